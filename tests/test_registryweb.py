"""The ninth generator (:mod:`demoweb.registryweb`): each kind's coincidences and exceptions
answered as described, and a differential crawl or two. The battery every generator passes
(deterministic, every document collected by stock, every kind drawn) is in
``test_generators.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest
import pytest_twisted
from demoweb.randomweb import Page
from demoweb.registryweb import (
    _DEB_CLASHES,
    KINDS,
    ArxivSite,
    DebianSite,
    DocsRsSite,
    DSpaceSite,
    NpmSite,
    PgDocsSite,
    PyPISite,
    RegistrySite,
    RegistryWeb,
    ZenodoSite,
    compare_registry,
    generate_registry_web,
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


def test_check_rejects_a_pair_stock_takes_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """An npm site that read ``?activeTab=versions&x=1`` apart from ``?x=1&activeTab=versions`` (one
    fingerprint) would hide a page from stock."""
    original = NpmSite.route

    def by_order(self: NpmSite, authority: str, path: str, raw_path: str, query: str):  # type: ignore[no-untyped-def]
        if query.startswith("x="):
            return self.packages[self.long]
        return original(self, authority, path, raw_path, query)

    monkeypatch.setattr(NpmSite, "route", by_order)
    web, site = _site(NpmSite)
    assert isinstance(site, NpmSite)
    site.home.links += [f"/package/{site.long}?activeTab=versions&x=1", f"/package/{site.long}?x=1&activeTab=versions"]
    assert any("one fingerprint" in problem for problem in web.check())


# -- helpers ------------------------------------------------------------------------------------


def _sites(kind: type[RegistrySite], seeds: range = SEEDS) -> Iterator[tuple[RegistryWeb, RegistrySite]]:
    return sites_of(generate_registry_web, kind, seeds)


def _site(kind: type[RegistrySite]) -> tuple[RegistryWeb, RegistrySite]:
    return next(_sites(kind))


def _quiet(kind: type[RegistrySite], nth: int = 0) -> tuple[RegistryWeb, RegistrySite]:
    return quiet_site(generate_registry_web, kind, SEEDS, nth)


def _hidden(site: RegistrySite, prefix: str) -> Page:
    """The page of ``site`` that hides behind an exception, at a path starting with ``prefix``."""
    return next(page for page in site.pages if page.doc_id in site.hidden and page.path.startswith(prefix))


def _canonical(web: RegistryWeb, url: str) -> str:
    body = web.fetch(url).body.decode()
    return body.split('<link rel="canonical" href="', 1)[1].split('"', 1)[0]


# -- kinds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("nth", range(4))
def test_pypi_names_versions_and_the_older_releases(nth: int) -> None:
    web, site = _quiet(PyPISite, nth)
    assert isinstance(site, PyPISite)
    base, moved = f"http://{site.host}", frozenset({301})
    for key, project in site.projects.items():
        if project.doc_id in site.hidden:
            continue
        name, latest = site.names[key], site.latest[key]
        for spelling in (f"/project/{key}/", f"/project/{name.upper()}/", f"/project/{name}", f"/pypi/{key}"):
            if base + spelling != project.url:
                _moves(web, base + spelling, project.url, moved)
        _alike(web, project.url, f"{project.url}{latest}/")
        assert f"pip install {name}=={latest}".encode() in web.fetch(f"{project.url}{latest}/").body
        _moves(web, f"{project.url}{latest}.0/", project.url, moved)
        _alike(web, project.url, f"{project.url}?utm_source=rss")  # (its og:url names the query too)
        assert f'content="{project.url}?utm_source=rss"'.encode() in web.fetch(f"{project.url}?utm_source=rss").body
        assert _canonical(web, f"{project.url}{latest}/") == project.url
        simple = site.simple[key].url
        _moves(web, f"{base}/simple/{name.upper()}/", simple, moved)
        _moves(web, simple[:-1], simple, moved)
    for user, profile in site.users.items():
        _moves(web, f"{base}/user/{user.upper()}/", profile.url, moved)
    listed = site.projects[site.long].url
    for release in (site.older, site.pre):
        _other(web, release.url, listed)
        assert _canonical(web, release.url) == listed  # (as Warehouse writes it on every release)
    _behind(web, site, site.older.url, _hidden(site, "/project/").key)
    pre = site.pre.url.rstrip("/").rsplit("/", 1)[1]
    _moves(web, f"{listed}{pre.upper()}/", site.pre.url, moved)
    assert web.fetch(f"{listed}9.9.9/").status == 404


@pytest.mark.parametrize("nth", range(4))
def test_npm_the_readme_tab_and_the_versions_tab(nth: int) -> None:
    web, site = _quiet(NpmSite, nth)
    assert isinstance(site, NpmSite)
    base = f"http://{site.host}"
    for name, package in site.packages.items():
        latest = f"{package.url}/v/{site.latest[name]}"
        _same(web, package.url, f"{package.url}?activeTab=readme", latest, f"{latest}?activeTab=readme")
        if name not in (site.long, site.lower.path.rsplit("/", 1)[1]):
            assert web.fetch(f"{package.url}?activeTab=versions").status == 404
    assert any("/" in name for name in site.packages)  # (a scoped package)
    for word, search in site.searches.items():
        _moves(web, f"{base}/browse/keyword/{word}", search.url, frozenset({301}))
    versions = f"{base}/package/{site.long}?activeTab=versions"
    _other(web, versions, f"{base}/package/{site.long}")
    _behind(web, site, versions, site.old_page.key)
    _other(web, site.old_page.url, versions)
    lower = site.lower.path.rsplit("/", 1)[1]
    legacy = next(name for name in site.packages if name.lower() == lower and name != lower)
    _other(web, site.lower.url, f"{base}/package/{legacy}")
    assert web.fetch(f"{base}/package/{legacy.title()}").status == 404


@pytest.mark.parametrize("nth", range(4))
def test_docsrs_latest_aliases_redirects_and_the_older_version(nth: int) -> None:
    web, site = _quiet(DocsRsSite, nth)
    assert isinstance(site, DocsRsSite)
    base, found = f"http://{site.host}", frozenset({302})
    for crate, listing in site.crates.items():
        latest, old = site.versions[crate]
        target = site.target(crate)
        root = site.files[crate][""].url
        _moves(web, f"{base}/crate/{crate}", listing.url, found)
        _alike(web, listing.url, f"{base}/crate/{crate}/{latest}")
        _same(web, root, f"{root}index.html", f"{root}?search=Error")
        _moves(web, f"{base}/{crate}", root, found)
        _moves(web, f"{base}/{crate}/latest", root, found)
        _moves(web, f"{base}/{crate}/^{latest.split('.')[0]}/{target}/", f"{base}/{crate}/{latest}/{target}/", found)
        _alike(web, root, f"{base}/{crate}/{latest}/{target}/")
        alias = crate.replace("_", "-") if "_" in crate else crate.replace("-", "_")
        if alias != crate:
            _moves(web, f"{base}/crate/{alias}/latest", listing.url, found)
            _moves(web, f"{base}/{alias}/latest/{target}/", root, found)
        for name, page in site.files[crate].items():
            if name:
                _same(web, page.url, f"{page.url}?search=from")
                _moves(web, f"{base}/{crate}/*/{target}/{name}", page.url, found)
        if crate != site.long:
            assert web.fetch(f"{base}/{crate}/{old}/{target}/").status == 404
    latest, old = site.versions[site.long]
    old_root = f"{base}/{site.long}/{old}/{site.target(site.long)}/"
    _other(web, old_root, site.files[site.long][""].url)
    assert _canonical(web, old_root) == site.files[site.long][""].url  # (docs.rs: the latest's URL)
    removed = next(name for name in site.old_files if name)
    _behind(web, site, old_root, removed)
    assert web.fetch(site.files[site.long][""].url + removed).status == 404


@pytest.mark.parametrize("nth", range(4))
def test_arxiv_versions_contexts_legacy_ids_and_the_first_version(nth: int) -> None:
    web, site = _quiet(ArxivSite, nth)
    assert isinstance(site, ArxivSite)
    base = f"http://{site.host}"
    for paper, (category, versions, page) in site.papers.items():
        url = page.url
        _same(web, url, f"{url}?context={category}", f"{url}?context=", f"{url}?context=no.such")
        _moves(web, f"{base}/abs/arXiv:{paper}", url, frozenset({301}))
        _alike(web, url, f"{url}v{versions}")
        other = next(c for c in site.listings if c != category)
        _alike(web, url, f"{url}?context={other}")
        if paper in site.old:
            archive, subject = site.old[paper]
            number = paper.split("/")[1]
            _same(web, url, f"{base}/abs/{archive}?papernum={number}", f"{base}/abs/{archive}?{number}")
            if subject:
                _moves(web, f"{base}/abs/{archive}.{subject}/{number}", url, frozenset({301}))
        elif versions > 1 and paper != site.long:
            assert web.fetch(f"{url}v1").status == 404  # (other old versions: not modelled)
    for category, listing in site.listings.items():
        url = listing.url
        _same(web, url, f"{url}?skip=0&show=25", f"{url}?show=25", f"{url}?skip=x&show=")
        _alike(web, url, f"{base}/list/{category}/pastweek")
        assert web.fetch(f"{url}?show=50").status == 404  # (another page size: not modelled)
    paged = site.paged.url
    _other(web, paged, paged.split("?")[0])
    _same(web, paged, f"{paged.split('?')[0]}?show=25&skip=025")
    _behind(web, site, paged, site.papers[site.later][2].key)
    first = f"{base}/abs/{site.long}v1"
    _other(web, first, f"{base}/abs/{site.long}")
    _behind(web, site, first, f"/abs/{site.companion}")
    assert all(f"/abs/{site.companion}" not in listing.links for listing in site.listings.values())


@pytest.mark.parametrize("nth", range(4))
def test_dspace_handles_bitstreams_and_the_full_record(nth: int) -> None:
    web, site = _quiet(DSpaceSite, nth)
    assert isinstance(site, DSpaceSite)
    base = f"http://{site.host}"
    for handle in site.handles.values():
        _same(web, handle.url, f"{handle.url}?locale-attribute=en")
    for (item, name), (sequence, page) in site.bitstreams.items():
        folder = f"{base}/bitstream/handle/{site.prefix}/{item}"
        _same(web, page.url, f"{folder}/{name}?sequence={sequence}", f"{folder}/renamed.html?sequence={sequence}")
        _same(web, page.url, f"{folder}/{name}")
        assert web.fetch(f"{folder}/{name.upper()}").status == 404  # (by name: as stored)
    long = f"{base}/handle/{site.prefix}/{site.long}"
    _other(web, f"{long}?show=full", long)
    _behind(web, site, f"{long}?show=full", _hidden(site, "/handle/").key)
    report = f"{base}/bitstream/handle/{site.prefix}/{site.long}/report.html?sequence=1&isAllowed=y"
    _behind(web, site, report, "appendix.html")
    _other(web, urljoin(report, "appendix.html"), report)
    _same(web, urljoin(report, "appendix.html"), urljoin(report, "whatever.pdf?sequence=2"))


@pytest.mark.parametrize("nth", range(4))
def test_zenodo_legacy_routes_concepts_and_the_older_version(nth: int) -> None:
    web, site = _quiet(ZenodoSite, nth)
    assert isinstance(site, ZenodoSite)
    base = f"http://{site.host}"
    latest = site.records[site.latest_version].url
    for number, record in site.records.items():
        if record.doc_id in site.late or record.doc_id in site.hidden:
            continue
        _moves(web, f"{base}/record/{number}", record.url, frozenset({301}))
        _moves(web, f"{base}/doi/{site.DOI}{number}", record.url, frozenset({302}))
        _moves(web, f"{record.url}/latest", record.url, frozenset({302}))
    concept = next(iter(site.concepts))
    _moves(web, f"{base}/records/{concept}", latest, frozenset({302}))
    _moves(web, f"{base}/doi/{site.DOI}{concept}", latest, frozenset({302}))
    _moves(web, f"{site.older.url}/latest", latest, frozenset({302}))
    _other(web, site.older.url, latest)
    _behind(web, site, site.older.url, _hidden(site, "/records/").key)


@pytest.mark.parametrize("nth", range(4))
def test_debian_suite_aliases_and_the_other_suites(nth: int) -> None:
    web, site = _quiet(DebianSite, nth)
    assert isinstance(site, DebianSite)
    base, code = f"http://{site.host}", site.codename
    for page in site.pages:
        if page.path.startswith(f"/{code}/"):
            _same(web, page.url, f"{base}/stable/{page.path[len(code) + 2 :]}")
        elif page.path.startswith(f"/source/{code}/"):
            _same(web, page.url, page.url.replace(f"/{code}/", "/stable/"))
    _moves(web, f"{base}/stable", site.suite.url, frozenset({301}))
    for name, section in site.sections.items():
        if name != site.clash:
            _moves(web, section.url[:-1], section.url, frozenset({301}))
            _moves(web, f"{base}/stable/{name}", section.url, frozenset({301}))
    keywords = site.params(site.search.query)["keywords"]
    _same(web, site.search.url, f"{base}/search?keywords={keywords}&suite=all")
    assert web.fetch(f"{base}/search?keywords={keywords}&suite=all&searchon=contents").status == 404
    package = site.sid.path.rsplit("/", 1)[1]
    _other(web, site.sid.url, f"{base}/{code}/{package}")
    _same(web, site.sid.url, f"{base}/unstable/{package}")
    newer = _hidden(site, "/sid/").path.rsplit("/", 1)[1]
    _behind(web, site, site.sid.url, newer)
    assert web.fetch(f"{base}/{code}/{newer}").status == 404
    clash = f"{base}/{code}/{site.clash}"
    _other(web, clash, f"{clash}/")
    _same(web, clash, f"{base}/stable/{site.clash}")
    _behind(web, site, clash, _DEB_CLASHES[site.clash][code])


@pytest.mark.parametrize("nth", range(4))
def test_pgdocs_current_legacy_prefixes_and_the_older_major(nth: int) -> None:
    web, site = _quiet(PgDocsSite, nth)
    assert isinstance(site, PgDocsSite)
    base, current, moved = f"http://{site.host}", site.current, frozenset({301})
    _moves(web, f"{base}/docs", site.home.url, moved)
    toc = site.toc.url
    _same(web, toc, f"{toc}index.html", f"{base}/docs/{current}/", f"{base}/docs/{current}/index.html")
    _moves(web, f"{base}/docs/current", toc, moved)
    for name, chapter in site.chapters.items():
        _same(web, chapter.url, f"{base}/docs/{current}/{name}")
        for legacy in ("static", "interactive"):
            _moves(web, f"{base}/docs/current/{legacy}/{name}", chapter.url, moved)
            _moves(web, f"{base}/docs/{current}/{legacy}/{name}", chapter.url, moved)
        assert _canonical(web, f"{base}/docs/{current}/{name}") == chapter.url
    old = site.old_page.url
    name = old.rsplit("/", 1)[1]
    _other(web, old, f"{base}/docs/current/{name}")
    assert _canonical(web, old) == f"{base}/docs/current/{name}"
    removed = next(name for name in site.old_pages if name != old.rsplit("/", 1)[1])
    _behind(web, site, old, removed)
    assert web.fetch(f"{base}/docs/current/{removed}").status == 404


@pytest.mark.parametrize("seed", [1, 2])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_registry(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
