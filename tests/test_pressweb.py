"""The fourteenth generator (:mod:`demoweb.pressweb`): each kind's coincidences and exceptions
answered as described, and a differential crawl or two. The battery every generator passes
(deterministic, every document collected by stock, every kind drawn) is in
``test_generators.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_twisted
from demoweb.pressweb import (
    KINDS,
    GhostSite,
    LiveblogSite,
    MagazineSite,
    MediumSite,
    NewspaperSite,
    PressSite,
    PressWeb,
    WordPressNewsSite,
    compare_press,
    generate_press_web,
)
from demoweb.randomweb import Page, doc_id_of
from generator_checks import assert_behind as _behind
from generator_checks import assert_in_other_bytes as _other_bytes
from generator_checks import assert_moves as _moves
from generator_checks import assert_other_document as _other
from generator_checks import assert_same_bytes as _same
from generator_checks import (
    quiet_site,
    sites_of,
)

SEEDS = range(80)  # (the generator was checked on 200 seeds when written; the benchmark crawls more)
MOVED = frozenset({301})


def test_links_are_never_document_relative() -> None:
    """A view at another path (``/amp/``, ``/print/<id>``) links what its article links."""
    for seed in range(10):
        for site in generate_press_web(seed, query_pages=True).hosts:
            for page in site.pages:
                for href in page.links:
                    assert href.startswith(("/", "http://", "#")), (seed, page.url, href)


# -- helpers ------------------------------------------------------------------------------------


def _sites(kind: type[PressSite], seeds: range = SEEDS) -> Iterator[tuple[PressWeb, PressSite]]:
    return sites_of(generate_press_web, kind, seeds)


def _quiet(kind: type[PressSite], nth: int = 0) -> tuple[PressWeb, PressSite]:
    return quiet_site(generate_press_web, kind, SEEDS, nth)


def _behind_it(site: PressSite, page: Page) -> Page:
    """The page hidden behind the exception ``page`` (linked from it alone)."""
    return next(found for found in site.pages if found.doc_id in site.hidden and found.key in page.links)


def _no_document(web: PressWeb, url: str) -> None:
    """``url`` answers, but with no document (a feed)."""
    reply = web.fetch(url)
    assert reply.status == 200 and doc_id_of(reply) is None, (url, reply.status)


# -- kinds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("nth", range(2))
def test_wordpress_permalinks_amp_and_the_second_page(nth: int) -> None:
    web, site = _quiet(WordPressNewsSite, nth)
    assert isinstance(site, WordPressNewsSite)
    base = f"http://{site.host}"
    for slug, (number, _, page) in site.articles.items():
        if not site.plain(page):
            continue
        _moves(web, f"{base}/?p={number}", page.url, MOVED)
        _moves(web, f"{base}/{slug}/", page.url, MOVED)
        _moves(web, page.url[:-1], page.url, MOVED)
        _moves(web, f"{page.url}1/", page.url, MOVED)
        _same(web, page.url, f"{page.url}?print=1", f"{page.url}?utm_source=twitter")
        _same(web, f"{page.url}amp/", f"{page.url}?amp=1", f"{page.url}?amp")
        _other_bytes(web, page.url, f"{page.url}amp/")
        assert f'<link rel="canonical" href="{page.url}">'.encode() in web.fetch(f"{page.url}?amp=1").body
        if page is not site.paged:
            _moves(web, f"{page.url}2/", page.url, MOVED)  # (a page past the post's last)
        _no_document(web, f"{page.url}feed/")
    assert web.fetch(f"{base}/?p=1").status == 404
    for number, listing in site.categories.values():
        _moves(web, f"{base}/?cat={number}", listing.url, MOVED)
        _moves(web, f"{listing.url}page/1/", listing.url, MOVED)
    # The one article split by <!--nextpage-->: its /2/ is a page of its own.
    assert site.second.url == f"{site.paged.url}2/"
    _other(web, site.second.url, site.paged.url)
    _behind(web, site, site.second.url, _behind_it(site, site.second).path)


@pytest.mark.parametrize("nth", range(2))
def test_ghost_slashes_case_previews_and_the_namesake(nth: int) -> None:
    web, site = _quiet(GhostSite, nth)
    assert isinstance(site, GhostSite)
    base = f"http://{site.host}"
    for preview, slug in site.uuids.items():
        page = site.posts[slug]
        if not site.plain(page):
            continue
        _moves(web, page.url[:-1], page.url, MOVED)
        _moves(web, f"{base}/{slug.upper()}/", page.url, MOVED)
        _moves(web, f"{base}/p/{preview}/", page.url, MOVED)
        _same(web, page.url, f"{page.url}?ref=weekly-digest", f"{page.url}?utm_source=newsletter")
        _other_bytes(web, page.url, f"{page.url}amp/")
    for moved, slug in site.moved.items():
        _moves(web, f"{base}/{moved}/", site.posts[slug].url, MOVED)
    original = site.posts[site.namesake.path.strip("/").removesuffix("-2")]
    assert f"{site.namesake.path.strip('/')}" not in site.moved
    _other(web, site.namesake.url, original.url)
    _behind(web, site, site.namesake.url, _behind_it(site, site.namesake).path)
    for listing in [*site.tags.values(), *site.authors.values()]:
        _moves(web, f"{listing.url}page/1/", listing.url, MOVED)
    _no_document(web, f"{base}/rss/")


@pytest.mark.parametrize("nth", range(2))
def test_medium_ids_titles_sources_and_the_friend_link(nth: int) -> None:
    web, site = _quiet(MediumSite, nth)
    assert isinstance(site, MediumSite)
    base = f"http://{site.host}"
    for number, (author, _, _, page) in site.stories.items():
        if not site.plain(page):
            continue
        _moves(web, f"{base}/p/{number}", page.url, MOVED)
        _moves(web, f"{base}/@{author}/another-title-{number}", page.url, MOVED)
        _same(web, page.url, f"{page.url}?source=rss----4e1a2b3c4d5e---4", f"{page.url}?sk={'0' * 32}")
    _same(web, site.home.url, f"{base}/?source=email-digest---daily")
    # The live key unlocks the member-only story: another document than the paywalled page.
    assert site.friend.url == f"{site.locked.url}?sk={site.key}"
    _other(web, site.friend.url, site.locked.url)
    assert web.resolve(f"{base}/p/{site.locked.path.rsplit('-', 1)[1]}?sk={site.key}") == site.friend.doc_id
    _behind(web, site, site.friend.url, _behind_it(site, site.friend).path)


@pytest.mark.parametrize("nth", range(2))
def test_newspaper_ids_views_and_the_gallery_page(nth: int) -> None:
    web, site = _quiet(NewspaperSite, nth)
    assert isinstance(site, NewspaperSite)
    base = f"http://{site.host}"
    for number, page in site.stories.items():
        if not site.plain(page):
            continue
        _moves(web, f"{base}/{number}", page.url, MOVED)
        _moves(web, f"{base}/elsewhere/old-headline-{number}.html", page.url, MOVED)
        _other_bytes(web, page.url, f"{page.url}?outputType=amp", f"{base}/print/{number}")
        _same(web, page.url, f"{page.url}?page=1", f"{page.url}?cmpid=rss")
        if page is not site.gallery:
            _same(web, page.url, f"{page.url}?page=2")  # (a story reads no ?page=)
    _other(web, site.gallery_two.url, site.gallery.url)
    assert web.fetch(f"{site.gallery.url}?page=3").status == 404
    _behind(web, site, site.gallery_two.url, _behind_it(site, site.gallery_two).path)


@pytest.mark.parametrize("nth", range(2))
def test_magazine_pages_single_view_and_the_long_feature(nth: int) -> None:
    web, site = _quiet(MagazineSite, nth)
    assert isinstance(site, MagazineSite)
    for pages in site.articles.values():
        page = pages[0]
        if not site.plain(page) or page is site.feature:
            continue
        _same(web, page.url, f"{page.url}?page=1", f"{page.url}?page=2", f"{page.url}?page=9")
        _other_bytes(web, page.url, f"{page.url}?view=all")
        _moves(web, page.url[:-1], page.url, MOVED)
    for listing in site.sections.values():
        _moves(web, f"{listing.url}page/1/", listing.url, MOVED)
    _other(web, site.older.url, site.sections[site.older.path.split("/")[1]].url)
    feature = site.articles[site.feature.path]
    _same(web, site.feature.url, f"{site.feature.url}?page=1")
    _other(web, feature[1].url, site.feature.url)
    _other(web, feature[2].url, feature[1].url)
    _same(web, feature[2].url, f"{site.feature.url}?page=7")  # (clamped to the last)
    assert web.resolve(f"{site.feature.url}?view=all") not in web.documents  # (answered, linked nowhere)
    _behind(web, site, feature[2].url, _behind_it(site, feature[2]).path)


@pytest.mark.parametrize("nth", range(2))
def test_liveblog_blocks_updates_and_the_key_events(nth: int) -> None:
    web, site = _quiet(LiveblogSite, nth)
    assert isinstance(site, LiveblogSite)
    for path, pages in site.blogs.items():
        page, blocks = pages[0]
        for block in blocks:
            _same(web, page.url, f"{page.url}?page=with:block-{block}", f"{page.url}?page=with%3Ablock-{block}")
            _same(web, page.url, f"{page.url}?update={block}#update-{block}")
        _same(web, page.url, f"{page.url}?filter=", f"{page.url}?CMP=share_btn_fb")
        _moves(web, f"{page.url}/", page.url, MOVED)
        assert web.fetch(f"{page.url}?page=with:block-{'0' * 24}").status == 404
        if path != site.key_blog:  # (another live blog's key events: answered, linked nowhere)
            assert web.resolve(f"{page.url}?filter=key-events") not in web.documents
    older, blocks = next(pages[1] for pages in site.blogs.values() if len(pages) > 1)
    for block in blocks:
        assert web.resolve(older.url.split("?")[0] + f"?page=with:block-{block}") == older.doc_id
    _other(web, older.url, older.url.split("?")[0])
    _other(web, site.key_events.url, f"http://{site.host}{site.key_blog}")
    for exception in (older, site.key_events):
        _behind(web, site, exception.url, _behind_it(site, exception).path)


@pytest.mark.parametrize("seed", [1, 2])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_press(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
