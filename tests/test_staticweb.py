"""The eleventh generator (:mod:`demoweb.staticweb`): each kind's coincidences and exceptions
answered as described, and a differential crawl or two. The battery every generator passes
(deterministic, every document collected by stock, every kind drawn) is in
``test_generators.py``."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest
import pytest_twisted
from demoweb.randomweb import Page, doc_id_of
from demoweb.staticweb import (
    KINDS,
    CloudflarePagesSite,
    DocusaurusSite,
    HugoSite,
    MkDocsSite,
    S3WebsiteSite,
    StaticSite,
    StaticWeb,
    VercelSite,
    WpmlSite,
    compare_static,
    generate_static_web,
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
_REFRESH = re.compile(r'<meta http-equiv="refresh" content="\d+; url=([^"]*)"')


def test_every_client_side_redirect_page_leads_to_its_page() -> None:
    """Each client-side redirect page leads to its page (the spellings themselves are checked
    with every generator's, in ``test_generators.py``)."""
    for seed in range(24):
        web = generate_static_web(seed)
        for site in web.hosts:
            for url, page in site.leads:
                assert site.plain(page), (seed, url)
                _leads(web, url, page)


def test_check_rejects_a_key_spelled_both_ways() -> None:
    """S3 reads ``+`` as a space: linking ``/notes/c++.html`` (a 404) beside ``/notes/c%2B%2B.html``
    (one fingerprint for stock) would hide the page from a crawl that met the first one first."""
    web, site = _site(S3WebsiteSite)
    assert isinstance(site, S3WebsiteSite)
    assert not web.check()
    site.home.links.append(f"http://{site.host}/notes/c++.html")
    assert any("one fingerprint" in problem for problem in web.check())


# -- helpers ------------------------------------------------------------------------------------


def _sites(kind: type[StaticSite], seeds: range = SEEDS) -> Iterator[tuple[StaticWeb, StaticSite]]:
    return sites_of(generate_static_web, kind, seeds)


def _site(kind: type[StaticSite]) -> tuple[StaticWeb, StaticSite]:
    return next(_sites(kind))


def _quiet(kind: type[StaticSite], nth: int = 0) -> tuple[StaticWeb, StaticSite]:
    return quiet_site(generate_static_web, kind, SEEDS, nth)


def _leads(web: StaticWeb, url: str, page: Page, hops: int = 2) -> list[str]:
    """``url`` answers a client-side redirect page (``200``, no document) whose refresh and links
    lead to ``page`` (through another such page, ``hops`` at most); what they name, resolved
    against ``url``."""
    reply = web.fetch(url)
    assert reply.status == 200 and doc_id_of(reply) is None, (url, reply.status)
    named = [urljoin(url, html.unescape(target)) for target in _REFRESH.findall(reply.body.decode())]
    named += web.links_of(url, reply.body)
    assert named, url
    for target in named:
        if web.resolve(target) is None and hops:  # (mike's root, to its redirect page latest/)
            _leads(web, target, page, hops - 1)
        else:
            assert web.resolve(target) == page.doc_id, (url, target)
    return named


def _hidden(site: StaticSite, prefix: str) -> Page:
    """The page of ``site`` that hides behind an exception, at a path starting with ``prefix``."""
    return next(page for page in site.pages if page.doc_id in site.hidden and page.path.startswith(prefix))


def _plain(site: StaticSite) -> list[Page]:
    return [page for page in site.pages if site.plain(page)]


# -- kinds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("nth", range(4))
def test_hugo_directories_aliases_translations_and_the_second_pager(nth: int) -> None:
    web, site = _quiet(HugoSite, nth)
    assert isinstance(site, HugoSite)
    base, moved = f"http://{site.host}", frozenset({301})
    for page in _plain(site):
        _same(web, page.url, f"{page.url}index.html", f"{page.url}?lang=en")
        if page is not site.home:
            _moves(web, page.url[:-1], page.url, moved)
    about = next(iter(site.english.values()))
    if site.legacy_en:
        _moves(web, f"{base}/en{about.path}", about.url, moved)
        _moves(web, f"{base}/en/", site.home.url, moved)
    else:
        assert web.fetch(f"{base}/en{about.path}").status == 404  # (Hugo writes nothing under /en/)
    leads = dict(site.leads)
    for listing in (site.section, site.tag):
        assert _leads(web, f"{listing.url}page/1/", listing) == [listing.url]  # (Hugo's alias: the permalink)
        assert f'<link rel="canonical" href="{listing.url}">'.encode() in web.fetch(f"{listing.url}page/1/").body
        reply = web.fetch(f"{listing.url}page/1")  # (nginx: a directory's slash, the alias page below)
        assert reply.status == 301 and reply.headers["Location"].endswith(f"{listing.path}page/1/"), reply
    assert len(leads) == 3  # (two first pagers, a post's old path)
    for english_id, other in site.translations.items():
        page = next(page for page in site.pages if page.doc_id == english_id)
        _other(web, other.url, page.url)
        assert b'hreflang="' + site.lang.encode() + b'"' in web.fetch(page.url).body
    second = f"{base}/posts/page/2/"
    _other(web, second, site.section.url)
    _behind(web, site, second, _hidden(site, "/posts/").key)
    assert _hidden(site, "/posts/").path not in site.section.links
    assert web.fetch(f"{base}/posts/page/3/").status == 404


@pytest.mark.parametrize("nth", range(4))
def test_docusaurus_trailing_slashes_client_redirects_and_the_other_versions(nth: int) -> None:
    web, site = _quiet(DocusaurusSite, nth)
    assert isinstance(site, DocusaurusSite)
    base = f"http://{site.host}"
    for name, page in site.docs.items():
        if site.slash:
            _same(web, page.url, f"{page.url}index.html", f"{page.url}?q=1")
            _moves(web, page.url[:-1], page.url, frozenset({301}))
        else:
            _same(web, page.url, f"{page.url}.html", f"{page.url}?q=1")
            assert web.fetch(f"{page.url}/").status == 404  # (GitHub Pages: no such directory)
        _leads(web, base + site.at(f"/docs/{site.latest}/{name}")[0], page)
    first = next(iter(site.docs.values()))
    _other(web, site.next_page.url, first.url)
    new = _hidden(site, "/docs/next/")
    _behind(web, site, site.next_page.url, new.key)
    assert web.fetch(base + site.at(new.path.replace("/next", "", 1).rstrip("/"))[0]).status == 404
    older = site.docs[site.old_page.path.rstrip("/").rsplit("/", 1)[1]]
    _other(web, site.old_page.url, older.url)
    _behind(web, site, site.old_page.url, _hidden(site, f"/docs/{site.older}/").key)
    assert b"no longer actively maintained" in web.fetch(site.old_page.url).body


@pytest.mark.parametrize("nth", range(4))
def test_mkdocs_directory_urls_the_latest_alias_and_the_other_versions(nth: int) -> None:
    web, site = _quiet(MkDocsSite, nth)
    assert isinstance(site, MkDocsSite)
    base, version = f"http://{site.host}", site.version
    for rest, page in site.versioned.items():
        _same(web, page.url, f"{page.url}index.html")
        _moves(web, page.url[:-1], page.url, frozenset({301}))
        latest = f"{base}/latest/{rest}"
        if site.alias_type == "redirect":
            assert _leads(web, latest, page) == [page.url] * 2  # (the noscript refresh and the link)
        else:
            _same(web, page.url, latest, f"{latest}index.html")
        if rest:
            assert web.fetch(f"{base}/{version}/{rest[:-1]}.md").status == 404
            assert web.fetch(f"{base}/{version}/{rest[:-1]}.html").status == 404
    assert _leads(web, f"{base}/", site.home)  # (mike set-default)
    first = site.dev.path.split("/")[2]
    _other(web, site.dev.url, f"{base}/{version}/{first}/")
    new = _hidden(site, "/dev/")
    _behind(web, site, site.dev.url, f"../{new.path.split('/')[2]}/")
    assert web.fetch(f"{base}/{version}{new.path[len('/dev') :]}").status == 404
    second = site.old.path.split("/")[2]
    _other(web, site.old.url, f"{base}/{version}/{second}/")
    removed = _hidden(site, f"/{site.older}/")
    _behind(web, site, site.old.url, f"../{removed.path.split('/')[2]}/")


@pytest.mark.parametrize("nth", range(4))
def test_cfpages_route_matching_the_splat_and_the_archive(nth: int) -> None:
    web, site = _quiet(CloudflarePagesSite, nth)
    assert isinstance(site, CloudflarePagesSite)
    base, pretty = f"http://{site.host}", frozenset({308})
    for page in _plain(site):
        assert web.fetch(page.url).headers.get("ETag"), page.url
        _same(web, page.url, f"{page.url}?utm_source=x&ref=hn")
        if page is site.home:
            _moves(web, f"{base}/index.html", page.url, pretty)
        elif page.path.endswith("/"):
            _moves(web, f"{page.url}index.html", page.url, pretty)
            _moves(web, page.url[:-1], page.url, pretty)
        else:
            _moves(web, f"{page.url}.html", page.url, pretty)
            _moves(web, f"{page.url}/", page.url, pretty)
        if page.path.startswith("/posts/"):
            _moves(web, f"{base}/blog/{page.path[len('/posts/') :]}", page.url, frozenset({301}))
    archive = f"{base}/blog/archive"
    _other(web, archive, site.blog.url)
    assert web.fetch(f"{base}/posts/archive").status == 404
    _same(web, archive, f"{base}/legacy/archive")
    _behind(web, site, archive, _hidden(site, "/legacy/").key)


@pytest.mark.parametrize("nth", range(4))
def test_vercel_clean_urls_the_en_rewrite_and_the_stale_file(nth: int) -> None:
    web, site = _quiet(VercelSite, nth)
    assert isinstance(site, VercelSite)
    base, moved = f"http://{site.host}", frozenset({308})
    _same(web, site.home.url, f"{base}/en")
    _moves(web, f"{base}/index.html", site.home.url, moved)
    for page in _plain(site):
        if page is site.home:
            continue
        directory = f"{page.path[1:]}/index.html" in site.files
        _moves(web, f"{page.url}/index.html" if directory else f"{page.url}.html", page.url, moved)
        _moves(web, f"{page.url}/", page.url, moved)
        _same(web, page.url, f"{page.url}?plan=pro")
        if not page.path.startswith("/fr") and page is not site.terms:
            _same(web, page.url, f"{base}/en{page.path}")
            _moves(web, f"{base}/en{page.path}.html", f"{base}/en{page.path}", moved)
    stale = f"{base}/en/terms"
    _other(web, stale, site.terms.url)
    _behind(web, site, stale, "terms-2019")
    assert web.fetch(f"{base}/terms-2019").status == 404


@pytest.mark.parametrize("nth", range(4))
def test_s3website_index_documents_plus_signs_and_the_routing_rule(nth: int) -> None:
    web, site = _quiet(S3WebsiteSite, nth)
    assert isinstance(site, S3WebsiteSite)
    base = f"http://{site.host}"
    for page in _plain(site):
        _same(web, page.url, f"{page.url}?versionId=1")
        if page.path.endswith("/"):
            _same(web, page.url, f"{page.url}index.html")
            if page is not site.home:
                _moves(web, page.url[:-1], page.url, frozenset({302}))
    for page in site.spaced.values():
        assert "%20" in page.url
        _same(web, page.url, page.url.replace("%20", "+"))
        assert web.fetch(page.url.replace("%20", "%2B")).status == 404
    for name, chapter in site.chapters.items():
        assert web.fetch(f"{base}{chapter.path.upper()}").status == 404  # (keys are case-sensitive)
        if name != site.stale_name:
            _moves(web, f"{base}/docs/{name}.html", chapter.url, frozenset({301}))
    _moves(web, f"{base}/docs/", site.guide.url, frozenset({301}))
    plus = f"{base}/notes/c%2B%2B.html"
    assert web.resolve(plus) == site.plus.doc_id
    assert web.fetch(f"{base}/notes/c++.html").status == 404  # (the key "notes/c  .html")
    _behind(web, site, plus, "c%2B%2B11.html")
    stale = f"{base}/docs/{site.stale_name}.html"
    _other(web, stale, site.chapters[site.stale_name].url)
    _behind(web, site, stale, "upgrade-notes.html")
    assert web.fetch(f"{base}/guide/upgrade-notes.html").status == 404


@pytest.mark.parametrize("nth", range(4))
def test_wpml_language_parameters_redirects_and_the_translation(nth: int) -> None:
    web, site = _quiet(WpmlSite, nth)
    assert isinstance(site, WpmlSite)
    base, moved = f"http://{site.host}", frozenset({301})
    for page in _plain(site):
        _same(web, page.url, f"{page.url}?lang=en")
        _alike(web, page.url, f"{page.url}?lang=de")
        assert b'<html lang="de-DE">' in web.fetch(f"{page.url}?lang=de").body
        if page is not site.about:
            _alike(web, page.url, f"{page.url}?lang=fr")
    for number, page in site.ids.items():
        _moves(web, page.url[:-1], page.url, moved)
        _moves(web, f"{base}/?{'page_id' if page.path.count('/') == 2 else 'p'}={number}", page.url, moved)
    _moves(web, f"{base}/index.php", site.home.url, moved)
    french = f"{base}/about/?lang=fr"
    _other(web, french, site.about.url)
    assert b'hreflang="fr-FR"' in web.fetch(site.about.url).body
    legal = _hidden(site, "/")
    _behind(web, site, french, legal.key)
    assert web.fetch(f"{base}{legal.path}").status == 404  # (a page only French has)


@pytest.mark.parametrize("seed", [1, 2])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_static(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
