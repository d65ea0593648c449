"""The seventh generator (:mod:`demoweb.commerceweb`): each kind's coincidences and exceptions
answered as described, and a differential crawl or two. The battery every generator passes
(deterministic, every document collected by stock, every kind drawn) is in
``test_generators.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest
import pytest_twisted
from demoweb.commerceweb import (
    KINDS,
    AemSite,
    AngularSite,
    CommerceWeb,
    CSite,
    DemandwareSite,
    FacetedSite,
    MagentoSite,
    SitecoreSite,
    VBulletinSite,
    WooSite,
    compare_commerce,
    generate_commerce_web,
)
from demoweb.randomweb import REDIRECT_STATUSES, doc_id_of
from generator_checks import assert_moves as _moves
from generator_checks import assert_other_document as _other
from generator_checks import assert_same_bytes as _same
from generator_checks import (
    quiet_site,
    sites_of,
)

SEEDS = range(200)


def test_check_rejects_a_pair_stock_takes_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Magento whose layered navigation read ``?size=4&color=12`` apart from ``?color=12&size=4``
    (one fingerprint) would hide a listing from stock."""
    original = MagentoSite.query_key

    def by_order(self: MagentoSite, path: str, query: str) -> str:
        return "" if query.startswith("size=") else original(self, path, query)

    monkeypatch.setattr(MagentoSite, "query_key", by_order)
    web, site = _site(MagentoSite)
    assert isinstance(site, MagentoSite)
    color, size = site.option
    path = site.filtered.path
    site.home.links += [f"{path}?color={color}&size={size}", f"{path}?size={size}&color={color}"]
    assert any("one fingerprint" in problem for problem in web.check())


def _sites(kind: type[CSite], seeds: range = SEEDS) -> Iterator[tuple[CommerceWeb, CSite]]:
    return sites_of(generate_commerce_web, kind, seeds)


def _site(kind: type[CSite]) -> tuple[CommerceWeb, CSite]:
    return next(_sites(kind))


def _quiet(kind: type[CSite]) -> tuple[CommerceWeb, CSite]:
    return quiet_site(generate_commerce_web, kind, SEEDS)


def _alike(web: CommerceWeb, first: str, *others: str) -> None:
    """``others`` lead to ``first``'s document: byte for byte where they answer ``200``."""
    body = web.fetch(first).body
    for url in others:
        assert web.resolve(url) == web.resolve(first) is not None, (first, url)
        reply = web.fetch(url)
        assert reply.status in REDIRECT_STATUSES or reply.body == body, (first, url, reply.status)


def _behind(web: CommerceWeb, site: CSite, page_url: str, href: str) -> None:
    """``href`` written on the page at ``page_url`` leads to a page linked nowhere else."""
    assert web.resolve(urljoin(page_url, href)) in site.hidden, (page_url, href)


def test_magento_system_routes_toolbar_defaults_and_the_other_listings() -> None:
    web, site = _quiet(MagentoSite)
    assert isinstance(site, MagentoSite)
    base = f"http://{site.host}"
    _same(web, f"{base}/", f"{base}/index.php", f"{base}/?___store=default", f"{base}/?SID=0123456789abcdef")
    for number, product in site.products.items():
        slug = product.path[1:-5]
        _same(
            web,
            product.url,
            f"{base}/catalog/product/view/id/{number}",
            f"{base}/catalog/product/view/id/{number}/s/{slug}/",
            f"{base}/index.php{product.path}",
            f"{product.url}?___store=default&SID=abc123",
        )
        assert f'<link rel="canonical" href="{product.url}">'.encode() in web.fetch(product.url).body
    for number, listing in site.categories.items():
        _same(
            web,
            listing.url,
            f"{listing.url}?p=1",
            f"{base}/catalog/category/view/id/{number}",
            f"{listing.url}?product_list_limit=12&product_list_order=position",
            f"{listing.url}?product_list_mode=grid&___store=default",
        )
    color, size = site.option
    filtered = site.filtered.url
    _same(web, filtered, f"{base}{site.filtered.path}?size={size}&color={color}", f"{filtered}&p=1")
    first = site.paged.url.split("?")[0]
    _other(web, site.paged.url, first)
    _other(web, site.narrowed.url, filtered)
    assert f'<link rel="canonical" href="{first}">'.encode() in web.fetch(site.paged.url).body
    for page in (site.paged, site.narrowed):
        hrefs = [href for href in page.links if web.resolve(urljoin(page.url, href)) in site.hidden]
        assert hrefs, page.url
    assert web.fetch(f"{first}?___store=fr").status == 404


def test_woocommerce_redirects_defaults_and_the_price_order() -> None:
    web, site = _quiet(WooSite)
    assert isinstance(site, WooSite)
    base = f"http://{site.host}"
    shop, second = f"{base}/shop/", f"{base}/shop/page/2/"
    moved = frozenset({301})
    for url in (f"{base}/shop", f"{base}/shop/page/1/", f"{base}/shop/?paged=1", f"{base}/?post_type=product"):
        _moves(web, url, shop, moved)
    _moves(web, f"{base}/shop/?paged=2", second, moved)
    _moves(web, f"{base}/shop/page/2", second, moved)
    _same(web, shop, f"{shop}?orderby=menu_order", f"{shop}?v=7516fd43adaa", f"{shop}?orderby=nonsense")
    _same(web, second, f"{second}?orderby=menu_order")
    for number, product in site.products.items():
        slug = product.path.split("/")[2]
        _moves(web, f"{base}/?p={number}", product.url, moved)
        _moves(web, f"{base}/?product={slug}", product.url, moved)
        _moves(web, product.url[:-1], product.url, moved)
        _same(web, product.url, f"{product.url}?v=0a1b2c3d4e5f")
    price = f"{shop}?orderby=price"
    _other(web, price, shop)
    older = urljoin(price, "page/2/?orderby=price")
    _behind(web, site, price, "page/2/?orderby=price")
    _other(web, older, second)
    _moves(web, f"{base}/shop/?paged=2&orderby=price", older, moved)
    assert f'<link rel="canonical" href="{shop}">'.encode() in web.fetch(price).body


def test_demandware_pipelines_defaults_and_the_variant() -> None:
    web, site = _quiet(DemandwareSite)
    assert isinstance(site, DemandwareSite)
    base = f"http://{site.host}"
    pipeline = f"{base}{site.pipeline}"
    _same(web, f"{base}/", f"{base}/?lang=en_US", f"{base}{site.prefix}/home", f"{pipeline}/Home-Show")
    for name, listing in site.categories.items():
        _same(
            web,
            listing.url,
            f"{listing.url}?start=0&sz=12",
            f"{listing.url}?lang=en_US",
            f"{pipeline}/Search-Show?cgid={name}",
        )
    for pid, product in site.products.items():
        _same(web, product.url, f"{product.url}?lang=en_US", f"{pipeline}/Product-Show?pid={pid}")
    master = site.products[site.master]
    variant = f"{master.url}?dwvar_{site.master}_color={site.color}"
    _other(web, variant, master.url)
    _same(web, variant, f"{pipeline}/Product-Show?pid={site.master}&dwvar_{site.master}_color={site.color}")
    hrefs = [href for href in site.variant.links if web.resolve(urljoin(variant, href)) in site.hidden]
    assert hrefs
    assert web.fetch(f"{master.url}?lang=de_DE").status == 404


@pytest.mark.parametrize("canonical", [False, True])
def test_vbulletin_friendly_urls_sessions_and_the_other_pages(canonical: bool) -> None:
    web, site = next(
        (web, site)
        for web, site in _sites(VBulletinSite)
        if not (site.counter or site.ads) and getattr(site, "canonical", None) is canonical
    )
    assert isinstance(site, VBulletinSite)
    base = f"http://{site.host}"
    session = "s=0123456789abcdef0123456789abcdef"
    _same(web, f"{base}/", f"{base}/index.php", f"{base}/forum.php", f"{base}/?{session}")
    for number, forum in site.forums.items():
        _alike(web, forum.url, f"{base}/forumdisplay.php?f={number}", f"{forum.url}&{session}")
    for number, pages in site.threads.items():
        first = pages[0]
        _alike(
            web,
            first.url,
            f"{base}/showthread.php?t={number}",
            f"{base}/showthread.php?{number}",
            f"{base}/showthread.php?t={number}&page=1",
            f"{first.url}&{session}",
        )
        _same(web, first.url, f"{first.url}&{session}")
        assert (web.fetch(f"{base}/showthread.php?t={number}").status == 301) is canonical
        if len(pages) == 1:
            _alike(web, first.url, f"{base}/showthread.php?t={number}&page=2")
    first, second = site.threads[site.long]
    _other(web, second.url, first.url)
    _alike(web, second.url, f"{base}/showthread.php?t={site.long}&page=2")
    _behind(web, site, second.url, f"member.php?{site.profile.query}")
    printed = f"{base}/printthread.php?t={site.long}"
    _other(web, printed, first.url)
    _behind(web, site, printed, f"printthread.php?t={site.long}&page=2&pp=40")


def test_aem_resource_mapping_selectors_and_the_print_view() -> None:
    web, site = _quiet(AemSite)
    assert isinstance(site, AemSite)
    base = f"http://{site.host}"
    _moves(web, f"{base}/", f"{base}/en.html", frozenset({301}))
    for page in site.pages:
        if page is site.printed:
            continue
        stem = page.url[:-5]
        _same(web, page.url, f"{base}{site.root}{page.path}", f"{stem}.nocache.html", f"{page.url}?wcmmode=disabled")
        _moves(web, stem, page.url, frozenset({301}))
    printed = site.printed.url
    plain = printed.replace(".print.html", ".html")
    _other(web, printed, plain)
    _same(web, printed, f"{base}{site.root}{site.printed.path}")
    word = site.printed.path.split("/")[-1].split(".")[0]
    _behind(web, site, printed, f"{word}/references.html")


def test_sitecore_folds_case_and_language_but_not_the_documentation_bucket() -> None:
    web, site = _quiet(SitecoreSite)
    assert isinstance(site, SitecoreSite)
    base = f"http://{site.host}"
    _same(web, f"{base}/", f"{base}/en", f"{base}/en/", f"{base}/?sc_lang=en", f"{base}/EN?sc_lang=EN")
    for page in site.pages:
        if page.path.startswith("/docs/") or page is site.home:
            continue
        _same(
            web,
            page.url,
            f"{base}{page.path.upper()}",
            f"{base}/en{page.path}",
            f"{page.url}.aspx",
            f"{page.url}/",
            f"{page.url}?sc_lang=en",
        )
    changelog = f"{base}/docs/changelog.html"
    _same(web, changelog, f"{base}/DOCS/changelog.html", f"{base}/Docs/changelog.html")
    _other(web, f"{base}/docs/CHANGELOG.html", changelog)
    assert web.fetch(f"{base}/docs/Changelog.html").status == 404
    assert web.fetch(f"{base}/en/docs/changelog.html").status == 404
    _behind(web, site, f"{base}/docs/CHANGELOG.html", "CHANGELOG-1.x.html")


def test_angular_slashes_escaped_fragments_and_the_older_posts() -> None:
    web, site = _quiet(AngularSite)
    assert isinstance(site, AngularSite)
    base = f"http://{site.host}"
    _same(web, f"{base}/", f"{base}/?_escaped_fragment_=", f"{base}/?_escaped_fragment_=/")
    for page in site.pages:
        if page.query or page is site.home or page.doc_id in site.hidden:
            continue
        _same(
            web,
            page.url,
            f"{page.url}/",
            f"{base}/?_escaped_fragment_={page.path}",
            f"{page.url}?_escaped_fragment_=",
        )
        assert b'<base href="/">' in web.fetch(page.url).body
    hash_bangs = [link for link in site.home.links if "#!" in link]
    assert hash_bangs
    for link in hash_bangs:  # (a crawler drops the fragment: the home)
        assert web.resolve(urljoin(site.home.url, link)) == site.home.doc_id
    blog = f"{base}/blog"
    _same(web, blog, f"{blog}?page=1", f"{blog}/?page=1")
    _other(web, f"{blog}?page=2", blog)
    _same(web, f"{blog}?page=2", f"{blog}/?page=2")
    hidden = [href for href in site.older.links if web.resolve(urljoin(f"{base}/", href)) in site.hidden]
    assert hidden
    shell = web.fetch(f"{base}/no-such-route")
    assert shell.status == 200 and doc_id_of(shell) is None


def test_faceted_search_reads_facets_as_a_set_but_not_the_second_page_or_another_colour() -> None:
    web, site = _quiet(FacetedSite)
    assert isinstance(site, FacetedSite)
    base = f"http://{site.host}"
    color, other, size = site.facets
    search = f"{base}/search"
    _same(web, search, f"{search}?page=0", f"{base}/index.php/search")
    _same(web, site.single.url, f"{search}?f[0]=color:{color}", f"{search}?f[1]=color:{color}")
    _same(
        web,
        site.pair.url,
        f"{search}?f[0]=color:{color}&f[1]=size:{size}",
        f"{search}?f[0]=size:{size}&f[1]=color:{color}",
        f"{search}?f[3]=size:{size}&f[7]=color:{color}",
        f"{site.pair.url}&page=0",
    )
    _other(web, f"{search}?page=1", search)
    either = f"{search}?f[0]=color:{color}&f[1]=color:{other}&f[2]=size:{size}"
    _other(web, either, site.pair.url)
    _same(web, either, f"{search}?f[0]=size:{size}&f[1]=color:{other}&f[2]=color:{color}")
    for product in site.products:
        number = int(product.path.rsplit("/", 1)[1])
        _same(web, product.url, f"{product.url}?v={site.variations[number]}", f"{base}/index.php{product.path}")
        assert web.fetch(f"{product.url}?v=1").status == 404
    for page in (site.second, site.either):
        assert [href for href in page.links if web.resolve(urljoin(page.url, href)) in site.hidden], page.url


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_commerce(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
