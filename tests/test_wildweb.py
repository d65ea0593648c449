"""The third generator (:mod:`demoweb.wildweb`): deterministic, every document reachable in
canonical form, its quirks answered as described, and a differential crawl or two."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from demoweb.randomweb import CrawlOrder
from demoweb.wildweb import (
    ArchiveSite,
    CdnSite,
    CmsSite,
    JavaSite,
    MirrorSite,
    WikiSite,
    WildWeb,
    compare_wild,
    generate_wild_web,
    request_method,
)

SEEDS = range(40)


def _fingerprint(web: WildWeb) -> list[object]:
    return [web.describe(), web.start_urls, [(page.url, page.links) for page in web.pages]]


def test_same_seed_same_web() -> None:
    for seed in (0, 5, 17):
        assert _fingerprint(generate_wild_web(seed)) == _fingerprint(generate_wild_web(seed))
    assert _fingerprint(generate_wild_web(1)) != _fingerprint(generate_wild_web(2))


@pytest.mark.parametrize("options", [{}, {"meta_refresh": True, "query_pages": True}])
def test_every_document_reachable_in_canonical_form(options: dict[str, bool]) -> None:
    for seed in SEEDS:
        web = generate_wild_web(seed, **options)
        assert 2 <= len(web.hosts) <= 5
        assert 8 <= len(web.documents) <= 90, (seed, len(web.documents))
        assert not web.check(), (seed, web.check(), web.describe())
        assert web.simulate_stock()[1] == web.documents, seed


def test_every_kind_is_drawn() -> None:
    kinds = {site.kind for seed in SEEDS for site in generate_wild_web(seed).hosts}  # type: ignore[attr-defined]
    assert kinds == {"wiki", "doku", "records", "mirror", "cms", "java", "cdn", "archive"}


def _site(kind: type, seed_range: range = range(200)) -> tuple[WildWeb, object]:
    for seed in seed_range:
        web = generate_wild_web(seed)
        for site in web.hosts:
            if isinstance(site, kind):
                return web, site
    raise AssertionError(f"no {kind.__name__} in {seed_range}")


def test_wiki_folds_the_first_letter_only() -> None:
    web, site = _site(WikiSite)
    host = site.host  # type: ignore[attr-defined]
    assert web.resolve(f"http://{host}/wiki/main_Page") == f"{host}/wiki/Main_Page"
    assert web.fetch(f"http://{host}/wiki/main_Page").status == 301
    assert web.resolve(f"http://{host}/wiki/Main_page") is None
    assert web.resolve(f"http://{host}/w/index.php?title=Main_Page&printable=yes") == f"{host}/wiki/Main_Page"


def test_mirror_tells_an_encoded_question_mark_from_a_query() -> None:
    for seed in range(200):
        web = generate_wild_web(seed)
        for site in web.hosts:
            if isinstance(site, MirrorSite) and "/list.html?page=2.html" in site.files:
                host = site.host
                assert web.resolve(f"http://{host}/list.html?page=2.html") == f"{host}/list.html"
                assert web.resolve(f"http://{host}/list.html%3Fpage=2.html") == f"{host}/list.html%3Fpage=2.html"
                return
    raise AssertionError("no mirror with a mirrored query page")


def test_java_port_80_is_another_site() -> None:
    web, site = _site(JavaSite)
    host = site.host  # type: ignore[attr-defined]
    assert web.resolve(f"http://{host}:8080/app/") == f"{host}:8080/app/"
    assert web.resolve(f"http://{host}/app/") == f"{host}/app/"
    assert web.fetch(f"http://{host}:8080/app").headers["Location"] == f"http://{host}/app/"
    assert web.resolve(f"http://{host.upper()}.:8080/app/;jsessionid=AB12") == f"{host}:8080/app/"


def test_cdn_tags_every_page_alike_and_honours_them() -> None:
    web, site = _site(CdnSite)
    home, other = site.pages[0], site.pages[1]  # type: ignore[attr-defined]
    tag = web.fetch(home.url).headers["ETag"]
    assert web.fetch(other.url).headers["ETag"] == tag
    assert web.fetch(other.url, {"If-None-Match": tag}).status == 304


def test_cms_stray_index_html_is_another_page() -> None:
    for seed in range(200):
        web = generate_wild_web(seed)
        for site in web.hosts:
            if isinstance(site, CmsSite) and any("stray" in trap for trap in site.traps):
                directory = next(d for d in site.php_dirs if (site.host, d + "index.html", "") in site.routes)
                assert web.resolve(f"http://{site.host}{directory}index.php") == f"{site.host}{directory}"
                assert web.resolve(f"http://{site.host}{directory}index.html") == f"{site.host}{directory}index.html"
                return
    raise AssertionError("no CMS with a stray index.html")


def test_archive_puts_merged_slashes_back() -> None:
    web, site = _site(ArchiveSite)
    snapshot = site.pages[1]  # type: ignore[attr-defined]
    merged = snapshot.url.replace("://", ":/", 2).replace(":/", "://", 1)
    assert web.fetch(merged).status in (301, 302, 303, 307, 308)
    assert web.resolve(merged) == snapshot.doc_id


def test_head_is_told_to_the_sites() -> None:
    assert request_method() == "GET"
    for seed in range(200):
        web = generate_wild_web(seed)
        for site in web.hosts:
            if site.head == "405":  # type: ignore[attr-defined]
                url = site.pages[0].url
                assert web.fetch(url, method="HEAD").status == 405
                assert web.fetch(url).status == 200
                return
    raise AssertionError("no host refusing HEAD")


@pytest.mark.parametrize("seed", [0, 3])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_wild(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()


def test_doku_revision_of_the_import_date() -> None:
    from demoweb.wildweb import DokuSite

    web, site = _site(DokuSite)
    assert isinstance(site, DokuSite)
    base = f"http://{site.host}/doku.php"
    for page_id, article in site.articles.items():
        dated = web.resolve(f"{base}?id={page_id}&rev={site.imported}")
        edited = (page_id, site.imported) in site.revisions
        assert dated == (f"{site.host}/doku.php?id={page_id}&rev={site.imported}" if edited else article.doc_id)
        assert web.resolve(f"{base}?id={page_id}&rev=1234567890") == article.doc_id
        assert web.resolve(f"{base}?id={page_id.upper().replace(':', '/')}") == article.doc_id


def test_records_share_one_tag_across_comment_pages() -> None:
    from demoweb.wildweb import RecordsSite

    for seed in range(200):
        web = generate_wild_web(seed)
        for site in web.hosts:
            if isinstance(site, RecordsSite):
                second = next((page for page in site.pages if page.query == "page=2"), None)
                if second is None:
                    continue
                first = f"http://{second.host}{second.path}"
                tag = web.fetch(first).headers["ETag"]
                assert web.resolve(first + "?page=1") == web.resolve(first) != second.doc_id
                assert web.fetch(second.url).headers["ETag"] == tag
                assert web.fetch(second.url, {"If-None-Match": tag}).status == 304
                return
    raise AssertionError("no records host with a second page")


#: Losses this generator found in its first runs, replayed in their crawl orders: seed 580,
#: lifo-c1-prio: a web archive's capture of a URL with ``utm_source`` dropped by the fixed
#: ``tracking_params`` step against the capture of the plain URL (``archive1.test/web/20240615120000/
#: http://java0.test:8080/app/team?utm_source=rss``; a URL inside a path now keeps its parameters);
#: seed 608 with ``--refresh --params``, lifo-c1: a Rails host's page 1 answered ``304`` to the
#: record-keyed entity tag of its ``?page=2`` (``records2.test/products/218``; a tag is now no
#: evidence between two query spellings of a path).
LOSSES_FOUND = [
    (580, {}),
    (608, {"refresh": True, "params": True}),
]


@pytest.mark.parametrize(("seed", "flags"), LOSSES_FOUND, ids=[str(seed) for seed, _ in LOSSES_FOUND])
@pytest_twisted.ensureDeferred
async def test_losses_found_stay_fixed(seed: int, flags: dict[str, Any], tmp_path: Path) -> None:
    comparison = await compare_wild(seed, tmp_path, order=replace(CrawlOrder.from_seed(seed), **flags))
    assert not comparison.sanity_problems(), comparison.report()
    assert not comparison.problems(), comparison.report()
