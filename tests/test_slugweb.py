"""The twelfth generator (:mod:`demoweb.slugweb`): each kind's coincidences and exceptions answered
as described, and a differential crawl or two. The battery every generator passes (deterministic,
every document collected by stock, every kind drawn) is in ``test_generators.py``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urljoin

import pytest
import pytest_twisted
from demoweb.randomweb import Page, doc_id_of
from demoweb.slugweb import (
    KINDS,
    ConfluenceSite,
    DiscourseSite,
    DSpaceSite,
    PloneSite,
    SlugSite,
    SlugWeb,
    StackExchangeSite,
    XenForoSite,
    _tiny,
    compare_slugs,
    generate_slug_web,
)
from generator_checks import assert_behind as _behind
from generator_checks import assert_in_other_bytes as _alike
from generator_checks import assert_moves as _moves
from generator_checks import assert_other_document as _other
from generator_checks import assert_same_bytes as _same
from generator_checks import (
    quiet_site,
    sites_of,
)

SEEDS = range(80)  # (the generator was checked on 200 seeds when written; the benchmark crawls more)


# -- helpers ------------------------------------------------------------------------------------


def _sites(kind: type[SlugSite], seeds: range = SEEDS) -> Iterator[tuple[SlugWeb, SlugSite]]:
    return sites_of(generate_slug_web, kind, seeds)


def _quiet(kind: type[SlugSite], nth: int = 0) -> tuple[SlugWeb, SlugSite]:
    return quiet_site(generate_slug_web, kind, SEEDS, nth)


def _hidden(site: SlugSite, prefix: str) -> Page:
    """The page of ``site`` that hides behind an exception, at a path starting with ``prefix``."""
    return next(page for page in site.pages if page.doc_id in site.hidden and page.path.startswith(prefix))


def _plain(site: SlugSite) -> list[Page]:
    return [page for page in site.pages if site.plain(page)]


def _location(web: SlugWeb, url: str) -> str:
    """Where ``url`` redirects to, absolute (whatever the host's ``Location`` style)."""
    return urljoin(url, web.fetch(url).headers["Location"])


def _behind_it(site: SlugSite, page: Page) -> Page:
    """The page hidden behind the exception ``page`` (linked from it alone)."""
    return next(found for found in site.pages if found.doc_id in site.hidden and found.key in page.links)


# -- kinds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("nth", range(3))
def test_discourse_slugs_post_numbers_and_the_second_page(nth: int) -> None:
    web, site = _quiet(DiscourseSite, nth)
    assert isinstance(site, DiscourseSite)
    base, moved = f"http://{site.host}", frozenset({301})
    for number, (slug, posts, pages) in site.topics.items():
        first = pages[0]
        if not site.plain(first):
            continue
        _same(web, first.url, f"{first.url}?page=1", f"{first.url}/", f"{first.url}?u=alice", f"{first.url}/1")
        _moves(web, f"{base}/t/{number}", first.url, moved)
        _moves(web, f"{base}/t/not-the-slug/{number}", first.url, moved)
        assert _location(web, f"{base}/t/{number}/3").endswith(f"/t/{slug}/{number}/3")  # (the post kept)
        if posts > 1:  # (the page that holds the post, its description the post's excerpt)
            _alike(web, first.url, f"{first.url}/2")
            if len(pages) == 1:  # (a post past the last: clamped to the last, on the only page)
                _alike(web, first.url, f"{first.url}/{site.CHUNK + 5}")
            assert b"post 2, an excerpt" in web.fetch(f"{first.url}/2").body
        assert web.fetch(f"{first.url}?page={len(pages) + 1}").status == 404
    slug, posts, pages = site.topics[site.long]
    _other(web, site.second.url, pages[0].url)
    assert web.resolve(f"{pages[0].url}/{site.CHUNK + 1}") == site.second.doc_id  # (post 21 lies on page 2)
    _behind(web, site, site.second.url, _hidden(site, "/u/").key)
    for name, (number, listing) in site.categories.items():
        _moves(web, f"{base}/c/{name}", listing.url, moved)
        _moves(web, f"{base}/c/{number}", listing.url, moved)
        _same(web, listing.url, f"{listing.url}/l/latest")
    for name, profile in site.users.items():
        if site.plain(profile):
            _same(web, profile.url, f"{base}/u/{name.upper()}")
    _same(web, site.home.url, f"{base}/latest")


@pytest.mark.parametrize("nth", range(3))
def test_stackexchange_slugs_share_links_sorts_and_the_exceptions(nth: int) -> None:
    web, site = _quiet(StackExchangeSite, nth)
    assert isinstance(site, StackExchangeSite)
    base, moved = f"http://{site.host}", frozenset({301})
    for qid, (slug, pages) in site.questions.items():
        first = pages[0]
        if not site.plain(first):
            continue
        _moves(web, f"{base}/questions/{qid}", first.url, moved)
        _moves(web, f"{base}/questions/{qid}/any-words-at-all", first.url, moved)
        _moves(web, f"{base}/q/{qid}", first.url, frozenset({302}))
        _same(web, first.url, f"{first.url}?noredirect=1", f"{first.url}?answertab=votes", f"{first.url}?page=1")
        for aid, (question, index) in site.answers.items():
            if question == qid and index == 0:
                assert _location(web, f"{base}/a/{aid}").endswith(f"/questions/{qid}/{slug}/{aid}#{aid}")
                _same(web, first.url, f"{first.url}/{aid}")
        if len(pages) == 1:  # (the same answers in another order)
            _alike(web, first.url, f"{first.url}?answertab=oldest", f"{first.url}?answertab=active")
    for uid, (name, profile) in site.users.items():
        if site.plain(profile):
            _same(web, profile.url, f"{base}/users/{uid}", f"{base}/users/{uid}/someone-else")
            assert name in profile.path
    slug, pages = site.questions[site.long]
    _other(web, site.second.url, pages[0].url)
    on_two = [aid for aid, (question, index) in site.answers.items() if question == site.long and index == 1]
    assert on_two and all(web.resolve(f"{base}/a/{aid}") == site.second.doc_id for aid in on_two)
    _behind(web, site, site.second.url, _behind_it(site, site.second).key)
    same = site.namesake.path.rsplit("/", 1)[1]
    original = next(pages[0] for slug, pages in site.questions.values() if slug == same and site.plain(pages[0]))
    _other(web, site.namesake.url, original.url)  # (the same slug, another id: another question)
    _behind(web, site, site.namesake.url, _behind_it(site, site.namesake).key)


@pytest.mark.parametrize("nth", range(3))
def test_xenforo_titles_routes_post_links_and_page_two(nth: int) -> None:
    web, site = _quiet(XenForoSite, nth)
    assert isinstance(site, XenForoSite)
    base, moved = f"http://{site.host}", frozenset({301})
    for (kind, number), (title, pages) in site.items.items():
        first = pages[0]
        if not site.plain(first):
            continue
        _same(web, first.url, f"{base}/index.php?{kind}/{title}.{number}/")
        _moves(web, f"{base}/{kind}/{number}/", first.url, moved)
        _moves(web, f"{base}/{kind}/not-it.{number}/", first.url, moved)
        _moves(web, first.url[:-1], first.url, moved)
        _moves(web, f"{base}/index.php?{kind}/{number}/", first.url, moved)
        if kind != "threads":
            continue
        _moves(web, f"{first.url}page-1", first.url, moved)
        _moves(web, f"{first.url}unread", first.url, frozenset({303}))
        for pid in site.thread_posts[number][: site.PER_PAGE][:3]:
            assert _location(web, f"{base}/posts/{pid}/").endswith(f"{first.path}#post-{pid}")
            _moves(web, f"{first.url}post-{pid}", first.url, moved)
        if len(pages) == 1:  # (a page past the last: the last, here the thread)
            _moves(web, f"{first.url}page-2", first.url, moved)
    title, pages = site.items[("threads", site.long)]
    _other(web, site.second.url, pages[0].url)
    last = site.thread_posts[site.long][-1]
    assert web.resolve(f"{base}/posts/{last}/") == site.second.doc_id
    assert _location(web, f"{pages[0].url}latest").endswith(f"page-2#post-{last}")
    _moves(web, f"{pages[0].url}page-3", site.second.url, moved)
    _behind(web, site, site.second.url, _hidden(site, "/members/").key)


@pytest.mark.parametrize("nth", range(3))
def test_plone_views_default_pages_acquisition_and_the_exceptions(nth: int) -> None:
    web, site = _quiet(PloneSite, nth)
    assert isinstance(site, PloneSite)
    base = f"http://{site.host}"
    folders = [obj for obj in site.root.children.values() if obj.kind == "folder"]
    for folder in folders:
        other = next(obj.name for obj in folders if obj is not folder)
        assert folder.page is not None
        _same(web, folder.page.url, f"{folder.page.url}/", f"{folder.page.url}/view", f"{base}/{other}/{folder.name}")
        if folder.default:
            _same(web, folder.page.url, f"{folder.page.url}/{folder.default}")
            _other(web, f"{folder.page.url}/folder_listing", folder.page.url)
        else:
            _same(web, folder.page.url, f"{folder.page.url}/folder_listing")
        for name, obj in folder.children.items():
            if obj.kind != "document" or obj.page is None or not site.plain(obj.page) or obj.page is folder.page:
                continue
            url = obj.page.url
            _same(web, url, f"{url}/", f"{url}/view", f"{url}/index_html", f"{url}/document_view")
            _same(web, url, f"{base}/{other}/{folder.name}/{name}", f"{base}/{other}/{other}/{folder.name}/{name}")
            body = web.fetch(url).body
            assert f'<base href="{obj.page.path}">'.encode() in body
            acquired = f"{base}/{other}/{folder.name}/{name}"  # (bounded: the links of the object's own URL)
            assert web.links_of(acquired, web.fetch(acquired).body) == web.links_of(url, body)
    _same(web, site.home.url, f"{base}/front-page", f"{base}/front-page/view")
    listing = site.listing_page
    _behind(web, site, listing.url, _hidden(site, listing.path.rsplit("/", 1)[0]).path.rsplit("/", 1)[1])
    view = site.file_view
    download = web.fetch(view.url.removesuffix("/view"))
    assert download.status == 200 and download.headers["Content-Type"] == "application/pdf"
    assert doc_id_of(download) is None  # (the file, no page)
    _same(web, view.url, f"{view.url.removesuffix('/view')}/file_view")
    folder_url = view.url.rsplit("/", 2)[0]
    _other(web, view.url, folder_url)
    _behind(web, site, view.url, _behind_it(site, view).path)


@pytest.mark.parametrize("nth", range(3))
def test_dspace_handles_full_records_bitstreams_and_the_related_item(nth: int) -> None:
    web, site = _quiet(DSpaceSite, nth)
    assert isinstance(site, DSpaceSite)
    base, moved = f"http://{site.host}", frozenset({301})
    _same(web, site.home.url, f"{base}/")
    for handle, page in site.handles.items():
        _moves(web, f"{base}/handle/{handle}", page.url, moved)
        if not site.plain(page):
            continue
        assert b'<base href="/">' in web.fetch(page.url).body
        if page in site.items:
            _moves(web, f"{base}/handle/{handle}?show=full", page.url, moved)
            _same(web, page.url, f"{page.url}?show=full", f"{page.url}/")
            if page is not site.related_from:  # (its /full is the exception)
                _alike(web, page.url, f"{page.url}/full")
    for bitstream, (handle, name) in site.bitstreams.items():
        legacy = f"{base}/bitstream/handle/{handle}/{name}"
        for url in (legacy, f"{legacy}?sequence=1&isAllowed=y"):
            assert _location(web, url).endswith(f"/bitstreams/{bitstream}/download")
        content = _location(web, f"{base}/bitstreams/{bitstream}/download")
        assert web.fetch(content).headers["Content-Type"] == "application/pdf"
    _other(web, site.full.url, site.related_from.url)
    assert site.related.path not in site.related_from.links
    _behind(web, site, site.full.url, site.related.path)


@pytest.mark.parametrize("nth", range(3))
def test_confluence_titles_page_ids_tiny_links_and_the_old_version(nth: int) -> None:
    web, site = _quiet(ConfluenceSite, nth)
    assert isinstance(site, ConfluenceSite)
    base = f"http://{site.host}"
    _moves(web, f"{base}/", site.home.url, frozenset({302}))
    for pid, (key, title, page, _) in site.by_id.items():
        if not site.plain(page):
            continue
        spaced = f"{base}/display/{key}/{quote(title, safe='')}"
        plussed = quote(title, safe="").replace("%20", "+")
        by_id = f"{base}/pages/viewpage.action?pageId={pid}"
        _alike(
            web, page.url, by_id, f"{by_id}&src=sidebar", f"{base}/pages/viewpage.action?spaceKey={key}&title={plussed}"
        )
        if " " in title:
            _alike(web, page.url, spaced)
        _moves(web, f"{base}/x/{_tiny(pid)}", page.url, frozenset({302}))
        destination = quote(page.path, safe="")
        assert f"/login.action?os_destination={destination}".encode() in web.fetch(page.url).body
        if site.space_homes[key] == title:
            _moves(web, f"{base}/display/{key}", page.url, frozenset({302}))
    login = web.fetch(f"{base}/login.action?os_destination=%2F")
    assert login.status == 200 and doc_id_of(login) is None
    current = site.by_id[site.old][2]
    _other(web, site.old_version.url, current.url)
    assert b"old version" in web.fetch(site.old_version.url).body
    hidden = next(page for page in site.pages if page.doc_id in site.hidden)
    _behind(web, site, site.old_version.url, hidden.path)
    assert hidden.path not in current.links


def test_confluence_tiny_codes_are_the_ids_bytes() -> None:
    """The code is the id's little-endian bytes in base64, trailing ``A`` (zero bits) dropped."""
    assert _tiny(1) == "AQ"
    assert _tiny(0x3F3F3F) == "Pz8-"  # ("Pz8/": a slash written as a hyphen)
    assert _tiny(0xF8) == "_"  # ("+A": a plus as an underscore)
    assert re.fullmatch(r"[\w-]+", _tiny(123456789))


@pytest.mark.parametrize("seed", [1, 2])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_slugs(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
