"""The fifth generator (:mod:`demoweb.quirksweb`): each kind's coincidences and exceptions answered
as described, and a differential crawl or two. The battery every generator passes (deterministic,
every document collected by stock, every kind drawn) is in ``test_generators.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_twisted
from demoweb.quirksweb import (
    KINDS,
    AspNetSite,
    BlankSite,
    DrupalSite,
    EncodedSite,
    ForumSite,
    I18nSite,
    JoomlaSite,
    QSite,
    QuirksWeb,
    ServletSite,
    SharePointSite,
    SlashesSite,
    compare_quirks,
    generate_quirks_web,
)

SEEDS = range(40)


def test_check_rejects_a_pair_stock_takes_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that told ``%7E`` from ``~`` (one fingerprint) would hide a page from stock."""
    original = EncodedSite.route

    def strict(self: EncodedSite, authority: str, path: str, raw_path: str, query: str) -> object:
        return None if "%7E" in raw_path.upper() else original(self, authority, path, raw_path, query)

    monkeypatch.setattr(EncodedSite, "route", strict)
    web, _ = _site(EncodedSite)
    assert any("one fingerprint" in problem for problem in web.check())


def _sites(kind: type[QSite], seeds: range = range(200)) -> Iterator[tuple[QuirksWeb, QSite]]:
    for seed in seeds:
        web = generate_quirks_web(seed)
        for site in web.hosts:
            if isinstance(site, kind):
                yield web, site


def _site(kind: type[QSite]) -> tuple[QuirksWeb, QSite]:
    return next(_sites(kind))


def _same(web: QuirksWeb, first: str, *others: str) -> None:
    """``first`` and ``others`` answer one page byte for byte (no counter, ads or gzip in the way)."""
    body = web.fetch(first).body
    for url in others:
        reply = web.fetch(url)
        assert reply.status == 200 and reply.body == body, (first, url)


def _quiet(kind: type[QSite]) -> tuple[QuirksWeb, QSite]:
    return next((web, site) for web, site in _sites(kind) if not (site.counter or site.ads))


def test_drupal_spellings_and_comment_pages() -> None:
    web, site = _quiet(DrupalSite)
    assert isinstance(site, DrupalSite)
    base = f"http://{site.host}"
    _same(web, f"{base}/", f"{base}/node", f"{base}/?q=node", f"{base}/index.php")
    for number, pages in site.nodes.items():
        node = pages[0]
        _same(web, node.url, f"{base}/node/{number}", f"{base}/node/{number}/", f"{base}/?q=node/{number}")
        if len(pages) == 1:
            _same(web, node.url, f"{node.url}?page=1", f"{node.url}?page=0", f"{node.url}?page=9")
        else:
            assert web.resolve(f"{node.url}?page=1") == pages[1].doc_id != node.doc_id
    assert web.resolve(f"{base}/blog?page=1") not in (None, web.resolve(f"{base}/blog"))


def test_joomla_index_php_and_its_exceptions() -> None:
    web, site = _quiet(JoomlaSite)
    assert isinstance(site, JoomlaSite)
    base = f"http://{site.host}"
    for number, (_, page) in site.articles.items():
        query = f"option=com_content&view=article&id={number}&Itemid=101"
        _same(web, page.url, f"{base}/index.php{page.path}", f"{base}/index.php?{query}", f"{page.url}?Itemid=7")
    assert web.fetch(f"{base}/downloads").status in (301, 302, 303, 307, 308)
    assert None not in {web.resolve(f"{base}/index.php/downloads"), web.resolve(f"{base}/downloads/")}
    assert web.resolve(f"{base}/index.php/downloads") != web.resolve(f"{base}/downloads/")
    assert web.resolve(site.printed.url) not in (None, web.resolve(site.printed.url.split("?")[0]))


def test_forum_sessions_pagination_and_posts() -> None:
    web, site = _quiet(ForumSite)
    assert isinstance(site, ForumSite)
    base = f"http://{site.host}/viewtopic.php"
    for topic, (forum, pages) in site.topics.items():
        sid = "sid=0123456789abcdef0123456789abcdef"
        _same(web, pages[0].url, f"{base}?t={topic}&{sid}", f"{base}?f={forum}&t={topic}&start=0")
        if len(pages) == 1:
            _same(web, pages[0].url, f"{base}?t={topic}&start=10")
        else:
            assert web.resolve(f"{base}?t={topic}&start=10&{sid}") == pages[1].doc_id != pages[0].doc_id
    for post, (topic, index) in site.posts.items():
        assert web.resolve(f"{base}?p={post}") == site.topics[topic][1][index].doc_id


def test_servlet_path_parameters() -> None:
    web, site = _quiet(ServletSite)
    assert isinstance(site, ServletSite)
    base = f"http://{site.host}"
    city = site.cities[0]
    _same(web, f"{base}/maps/{city}", f"{base}/maps/{city};zoom=1", f"{base}/maps/{city};jsessionid=ABCDEF0123")
    _same(web, f"{base}/shop/cart", f"{base}/shop/cart;jsessionid=ABCDEF0123")
    zoomed = [page for page in site.pages if ";zoom=" in page.path and "/tiles" not in page.path]
    assert zoomed and all(web.resolve(page.url) not in (None, web.resolve(f"{base}/maps/{city}")) for page in zoomed)


def test_encoded_slashes_and_plus() -> None:
    web, site = _quiet(EncodedSite)
    assert isinstance(site, EncodedSite)
    base = f"http://{site.host}"
    doc = site.docs[0]
    _same(web, doc.url, doc.url.replace("/docs/", "/docs%2F"))
    _same(web, site.users[0].url, site.users[0].url.replace("~", "%7E"))
    _same(web, f"{base}/tags/c", f"{base}/tags/c%20%20")
    assert web.resolve(f"{base}/tags/c++") not in (None, web.resolve(f"{base}/tags/c"))
    projects = [page for page in site.pages if page.path.startswith("/projects/") and "/issues" not in page.path]
    assert len({web.resolve(page.url) for page in projects}) == 2 and None not in {web.resolve(p.url) for p in projects}


def test_iis_kinds_fold_case_but_not_everywhere() -> None:
    web, site = _quiet(AspNetSite)
    assert isinstance(site, AspNetSite)
    base = f"http://{site.host}"
    item = site.items[0]
    _same(web, f"{base}/Products/Detail.aspx?ID={item}", f"{base}/products/detail.aspx?id={item}&x=1")
    _same(web, f"{base}/Products/List.aspx?cat={site.cats[0]}", f"{base}/PRODUCTS/list.aspx?CAT={site.cats[0].lower()}")
    searches = [page for page in site.pages if page.path == "/Search.aspx"]
    assert len({web.resolve(page.url) for page in searches}) == 2
    web, site = _quiet(SharePointSite)
    assert isinstance(site, SharePointSite)
    base = f"http://{site.host}"
    _same(web, f"{base}/", f"{base}/Pages/Default.aspx", f"{base}/pages/DEFAULT.aspx")
    name, guid = next(iter(site.views.items()))
    listing = site.lists[name]
    _same(web, listing.url, f"{listing.url}?View=%7b{guid.lower()}%7d", f"{base}{listing.path.lower()}?View={{{guid}}}")
    others = [page for page in site.pages if page.path == listing.path and page.query]
    assert others and all(web.resolve(page.url) not in (None, listing.doc_id) for page in others)


def test_blank_parameters_ignored_but_flags() -> None:
    web, site = _quiet(BlankSite)
    assert isinstance(site, BlankSite)
    base = f"http://{site.host}/article.php"
    number = site.articles[2]
    _same(web, f"{base}?id={number}", f"{base}?id={number}&ref=", f"{base}?nocache&id=0{number}&")
    assert web.resolve(site.printed.url) not in (None, web.resolve(site.printed.url.removesuffix("&print")))
    assert web.resolve(site.printed.url + "=") == site.printed.doc_id  # (?print= is ?print, as stock takes it)
    assert web.resolve(site.amp.url) not in (None, web.resolve(site.amp.url.removesuffix("&amp")))


def test_language_prefixes_and_merged_slashes() -> None:
    web, site = _quiet(I18nSite)
    assert isinstance(site, I18nSite)
    base = f"http://{site.host}"
    for page in site.english:
        _same(web, page.url, f"{base}/en{page.path}", f"{page.url}?lang=en")
    word, german = next(iter(site.german.items()))
    assert web.resolve(f"{base}/{word}?lang=de") == german.doc_id != web.resolve(f"{base}/{word}")
    assert web.resolve(f"{base}/en/") not in (None, web.resolve(f"{base}/"))
    web, site = _quiet(SlashesSite)
    base = f"http://{site.host}"
    docs = [page for page in site.pages if page.path.startswith("/docs/")]
    _same(web, docs[0].url, f"{base}/{docs[0].path}", docs[0].url.replace("/docs/", "/docs//"))
    files = [page for page in site.pages if page.path.startswith("/files/")]
    assert len({web.resolve(page.url) for page in files}) == len(files) == 3


@pytest.mark.parametrize("seed", [0, 3])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_quirks(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) <= set(KINDS)
