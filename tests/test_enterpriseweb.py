"""The tenth generator (:mod:`demoweb.enterpriseweb`): each kind's coincidences and exceptions
answered as described, and a differential crawl or two. The battery every generator passes
(deterministic, every document collected by stock, every kind drawn) is in
``test_generators.py``."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import pytest_twisted
from demoweb.enterpriseweb import (
    KINDS,
    ApexSite,
    AspSite,
    ColdFusionSite,
    DominoSite,
    EnterpriseSite,
    EnterpriseWeb,
    JspSite,
    SapSite,
    SharePointSite,
    WebSphereSite,
    compare_enterprise,
    generate_enterprise_web,
)
from demoweb.randomweb import Page
from generator_checks import assert_behind as _behind
from generator_checks import assert_moves as _moves
from generator_checks import assert_other_document as _other
from generator_checks import assert_same_bytes as _same
from generator_checks import (
    quiet_site,
    sites_of,
)

SEEDS = range(80)  # (the generator was checked on 200 seeds when written; the benchmark crawls more)
FOUND = frozenset({302})


def test_check_rejects_a_pair_stock_takes_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ASP site that read ``?id=N&x=1`` apart from ``?x=1&id=N`` (one fingerprint) would hide a
    page from stock."""
    original = AspSite.route

    def by_order(self: AspSite, authority: str, path: str, raw_path: str, query: str):  # type: ignore[no-untyped-def]
        if query.startswith("x="):
            return self.home
        return original(self, authority, path, raw_path, query)

    monkeypatch.setattr(AspSite, "route", by_order)
    web, site = _site(AspSite)
    assert isinstance(site, AspSite)
    number = next(number for (script, number) in site.records if script == "/product.asp")
    site.home.links += [f"/product.asp?id={number}&x=1", f"/product.asp?x=1&id={number}"]
    assert any("one fingerprint" in problem for problem in web.check())


# -- helpers ------------------------------------------------------------------------------------


def _sites(kind: type[EnterpriseSite], seeds: range = range(80)) -> Iterator[tuple[EnterpriseWeb, EnterpriseSite]]:
    return sites_of(generate_enterprise_web, kind, seeds)


def _site(kind: type[EnterpriseSite]) -> tuple[EnterpriseWeb, EnterpriseSite]:
    return next(_sites(kind))


def _quiet(kind: type[EnterpriseSite], nth: int = 0) -> tuple[EnterpriseWeb, EnterpriseSite]:
    return quiet_site(generate_enterprise_web, kind, range(80), nth)


def _alike(web: EnterpriseWeb, first: str, *others: str) -> None:
    """``others`` answer ``first``'s document with ``200`` (in bytes that may differ)."""
    for url in others:
        assert web.fetch(url).status == 200, (first, url)
        assert web.resolve(url) == web.resolve(first) is not None, (first, url)


def _hidden(site: EnterpriseSite, prefix: str, part: str = "") -> Page:
    """The page of ``site`` that hides behind an exception, at a path starting with ``prefix`` (and a
    query holding ``part``)."""
    return next(
        page
        for page in site.pages
        if page.doc_id in site.hidden and page.path.startswith(prefix) and part in page.query
    )


def _missing(web: EnterpriseWeb, *urls: str) -> None:
    for url in urls:
        assert web.fetch(url).status == 404, url


# -- kinds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("nth", range(3))
def test_domino_commands_names_unids_and_the_second_page_and_the_section(nth: int) -> None:
    web, site = _quiet(DominoSite, nth)
    assert isinstance(site, DominoSite)
    base, prefix = f"http://{site.host}", site.prefix
    replica = f"{base}/__{site.replica}.nsf"
    database = f"{base}{prefix}"
    _same(web, site.home.url, database, f"{database}?OpenDatabase", f"{database}!OpenDatabase", f"{replica}?Open")
    _same(web, site.home.url, f"{base}{prefix.lower()}?opendatabase", f"{base}{prefix.upper()}")
    for view, (unid, listing) in site.views.items():
        bare = f"{base}{listing.path}"
        _same(web, listing.url, f"{bare}!OpenView", f"{bare}?Open", bare, f"{listing.url}&Start=1&Count=30")
        _same(web, listing.url, f"{database}/{unid.lower()}?OpenView", f"{base}{prefix.upper()}/{view.upper()}")
        _missing(web, f"{listing.url}&Count=10", f"{bare}?OpenDocument", f"{bare}?Start=1&OpenView")
        if view != site.long:
            _missing(web, f"{listing.url}&Start=31")
    for unid, (view, key, page) in site.docs.items():
        if page.doc_id in site.hidden:
            continue
        bare = f"{base}{page.path}"
        _same(web, page.url, f"{bare}!OpenDocument", f"{bare}?Open", bare, f"{bare}?opendocument")
        _same(web, page.url, f"{database}/0/{unid}?OpenDocument", f"{replica}/0/{unid.lower()}!OpenDocument")
        _same(web, page.url, f"{database}/{site.views[view][0].lower()}/{unid}", f"{page.url}&utm_source=rss")
        if unid != site.sectioned:
            _same(web, page.url, f"{page.url}&ExpandSection=1")
        _missing(web, f"{bare}?OpenView", f"{bare}?utm_source=rss", f"{database}/0/{key}?OpenDocument")
    assert any(f"/{site.views[site.long][0]}/" in link for link in site.views[site.long][1].links)
    first = site.views[site.long][1]
    _other(web, site.paged.url, first.url)
    _same(web, site.paged.url, f"{base}{first.path}!OpenView&Start=31&Count=30")
    _behind(web, site, site.paged.url, _hidden(site, f"{prefix}/{site.views[site.long][0]}/").key)
    view, key, page = site.docs[site.sectioned]
    _other(web, site.expanded.url, page.url)
    _same(web, site.expanded.url, f"{database}/0/{site.sectioned}!OpenDocument&ExpandSection=1")
    _behind(web, site, site.expanded.url, _hidden(site, f"{prefix}/0/").key)
    _missing(web, f"{page.url}&ExpandSection=2")


@pytest.mark.parametrize("nth", range(3))
def test_coldfusion_fuseactions_tokens_rows_and_the_other_rows(nth: int) -> None:
    web, site = _quiet(ColdFusionSite, nth)
    assert isinstance(site, ColdFusionSite)
    base, home = f"http://{site.host}", site.home
    tokens = "CFID=4711&CFTOKEN=12345678&jsessionid=8430b6e1"
    _same(web, home.url, f"{base}/index.cfm", f"{base}/INDEX.CFM?FuseAction=MAIN.HOME", f"{base}/?{tokens}")
    for (fuseaction, number), page in site.by_key.items():
        if page is home or page.doc_id in site.hidden:
            continue
        circuit, _, action = fuseaction.partition(".")
        title = f"FUSEACTION={circuit.upper()}.{action.title()}" + (f"&Id={number}" if number else "")
        _same(web, page.url, f"{base}/Index.cfm?{page.query}", f"{base}/?{page.query}", f"{page.url}&{tokens}")
        _same(web, page.url, f"{base}/index.cfm?{title}&{tokens}")
        ses = f"{base}/index.cfm/fuseaction/{fuseaction}" + (f"/id/{number}" if number else "")
        _same(web, page.url if site.ses else home.url, ses)  # (without SES parsing: index.cfm itself)
        if number:
            _same(web, page.url, f"{base}/index.cfm?fuseaction={fuseaction}&id=00{number}")
    for listing in site.lists.values():
        _same(web, listing.url, f"{listing.url}&startrow=1", f"{listing.url}&maxrows=10&startrow=1&{tokens}")
    news, events = site.lists["news"], site.lists["events"]
    _other(web, site.paged.url, news.url)
    _behind(web, site, site.paged.url, f"index.cfm?{_hidden(site, '/index.cfm', 'news.detail').query}")
    _other(web, site.every.url, events.url)
    _behind(web, site, site.every.url, f"index.cfm?{_hidden(site, '/index.cfm', 'events.detail').query}")
    _missing(web, f"{events.url}&startrow=11", f"{news.url}&maxrows=100", f"{base}/index.cfm?fuseaction=news.detail")


@pytest.mark.parametrize("nth", range(3))
def test_jsp_sessions_welcome_files_actions_and_the_table_page_and_the_help(nth: int) -> None:
    web, site = _quiet(JspSite, nth)
    assert isinstance(site, JspSite)
    ctx, session = f"http://{site.host}{site.ctx}", ";jsessionid=0123456789ABCDEF0123456789ABCDEF.node1"
    home = site.home.url
    _same(web, home, f"{ctx}/index.jsp", f"{ctx}/{session}", f"{ctx}/index.jsp{session}")
    _moves(web, ctx, home, FOUND)
    _moves(web, f"{ctx}{session}", home, FOUND)
    _same(web, f"{ctx}/docs/", f"{ctx}/docs/index.jsp", f"{ctx}/docs/index.jsp{session}")
    _moves(web, f"{ctx}/docs", f"{ctx}/docs/", FOUND)
    _same(web, f"{ctx}/help/", f"{ctx}/help/index.html", f"{ctx}/help/{session}")
    _moves(web, f"{ctx}/help", f"{ctx}/help/", FOUND)
    table = f"d-{site.table}-p"
    for (category, number), listing in site.lists.items():
        if number == 1:
            _same(web, listing.url, f"{listing.url}&{table}=1", f"{ctx}/list.do{session}?{table}=1&cat=0{category}")
    for number, item in site.items.items():
        if item.doc_id not in site.hidden:
            _same(web, item.url, f"{item.url}&method=view", f"{ctx}/item.do{session}?id=0{number}")
            _missing(web, f"{item.url}&method=edit", item.url.replace(site.ctx, site.ctx.upper()))
    listing = site.lists[(site.long, 1)]
    _other(web, site.paged.url, listing.url)
    _same(web, site.paged.url, f"{ctx}/list.do{session}?{table}=2&cat={site.long}")
    _behind(web, site, site.paged.url, f"item.do?{_hidden(site, f'{site.ctx}/item.do').query}")
    _other(web, site.help.url, f"{ctx}/help/")
    _behind(web, site, site.help.url, "faq.jsp")
    _missing(web, f"{ctx}/docs/faq.jsp", f"{ctx}/faq.jsp")


@pytest.mark.parametrize("nth", range(3))
def test_websphere_states_content_items_and_the_detail_view_and_the_other_item(nth: int) -> None:
    web, site = _quiet(WebSphereSite, nth)
    assert isinstance(site, WebSphereSite)
    base, tail = f"http://{site.host}", "/dz/d5/L2dBISEvZ0FBIS9nQSEh/"
    for token, (page, path) in site.states.items():
        if page is site.detail:
            continue
        _alike(web, page.url, f"{base}{path}/!ut/p/z1/{token}{tail}", f"{base}/wps/portal/!ut/p/z1/{token}{tail}")
        state = f"{base}{path}/!ut/p/z1/{token}{tail}"
        assert f'href="{state[len(base) :]}"'.encode() in web.fetch(state).body  # (the theme's NavStateUrl)
        assert web.fetch(state).body != web.fetch(page.url).body
    for path, item in site.items.items():
        own = f"{base}{path}?1dmy&urile=wcm%3apath%3a{quote(item, safe='')}"
        _alike(web, f"{base}{path}", own, f"{base}{path}?urile=wcm:path:{item}")
        _missing(web, f"{base}{path}?1dmy&urile=wcm%3apath%3a%2Fother%2Fitem")
    _moves(web, f"{base}/wps/portal", site.home.url, FOUND)
    _missing(web, f"{base}{site.root}/home/!ut/p/z1/04_SjUnknownState!{tail}")
    section = f"{base}{site.root}/{site.parent}"
    _other(web, site.detail.url, section)
    token = next(token for token, (page, _) in site.states.items() if page is site.detail)
    _alike(web, site.detail.url, f"{base}/wps/portal/!ut/p/z1/{token}{tail}")
    _missing(web, f"{site.home.url}/!ut/p/z1/{token}{tail}")  # (a friendly name the state contradicts)
    _behind(web, site, site.detail.url, _hidden(site, f"{site.root}/{site.parent}/").key)
    _other(web, site.article.url, f"{base}{site.article.path}")
    _behind(web, site, site.article.url, _hidden(site, f"{site.article.path}/").key)


@pytest.mark.parametrize("nth", range(3))
def test_sharepoint_welcome_pages_case_views_and_the_old_home_and_the_folder(nth: int) -> None:
    web, site = _quiet(SharePointSite, nth)
    assert isinstance(site, SharePointSite)
    base, root = f"http://{site.host}", site.site
    for web_root, welcome in site.welcome.items():
        _moves(web, f"{base}{web_root}", welcome.url, FOUND)
        _moves(web, f"{base}{web_root.upper()}/", welcome.url, FOUND)
    home = site.home.url
    assert web.fetch(home).body != web.fetch(home).body  # (a new __REQUESTDIGEST on every answer)
    _alike(web, home, f"{base}{site.home.path.lower()}", f"{home}?PageView=Shared&Source=%2F", f"{home}?Foo=1")
    assert b'action="./home.aspx"' in web.fetch(f"{base}{site.home.path.lower()}").body
    _missing(web, f"{home}?PageView=Personal")
    for page in (site.library, site.announcements):
        guid = site.views[page.doc_id]
        _alike(web, page.url, f"{page.url}?View=%7B{guid}%7D", f"{page.url}?View={{{guid.lower()}}}")
        _alike(web, page.url, f"{page.url}?InitialTabId=Ribbon.Library&VisibilityContext=WSSTabPersistence")
        _missing(web, f"{page.url}?View=%7B00000000-0000-0000-0000-000000000000%7D")
    _alike(web, site.library.url, f"{site.library.url}?RootFolder={quote(root + '/SitePages', safe='')}")
    for number, item in site.items.items():
        _alike(web, item.url, f"{base}{item.path.lower()}?id={number}", f"{item.url}&Source=%2F")
    _other(web, site.old_home.url, home)
    _alike(web, site.old_home.url, f"{base}{root}/Default.aspx", f"{base}{root.upper()}/DEFAULT.ASPX")
    _behind(web, site, site.old_home.url, "Lists/Links/AllItems.aspx")
    _other(web, site.archive.url, site.library.url)
    _alike(web, site.archive.url, f"{site.library.url}?RootFolder={root}/sitepages/archive/")
    _behind(web, site, site.archive.url, _hidden(site, f"{root}/SitePages/Archive/").key)


@pytest.mark.parametrize("nth", range(3))
def test_apex_sessions_fields_aliases_and_the_other_rows_and_department(nth: int) -> None:
    web, site = _quiet(ApexSite, nth)
    assert isinstance(site, ApexSite)
    url, app, alias = f"http://{site.host}{site.prefix}/f?p=", site.app, site.app_alias
    home = site.home.url
    assert web.fetch(home).body != web.fetch(home).body  # (a new p_page_submission_id on every answer)
    _alike(web, home, f"{url}{app}:1:0::NO:::", f"{url}{alias}:HOME:0", f"{url}{app}:home:3141592653589:::::")
    _alike(web, home, f"{url}{alias.lower()}:1", f"{url}{app}:1:0::NO:RP::")
    report, department = site.views[(2, "", 1)], site.views[(3, "10", 1)]
    paging = f"pg_max_rows={site.ROWS}&pg_rows_fetched={site.ROWS}"
    _alike(web, report.url, f"{url}{alias}:EMPLOYEES:42:pg_R_{site.region}:NO&pg_min_row=1&{paging}")
    _alike(web, department.url, f"{url}{app}:3:0::NO::P3_DEPTNO:10", f"{url}{app}:DEPARTMENT:7:::::")
    for (number, value, _), page in site.views.items():
        if number == 4 and page.doc_id not in site.hidden:
            _alike(
                web, page.url, f"{url}{alias}:EMPLOYEE:0::NO::P4_EMPNO:{value}", f"{url}{app}:4:::::p4_empno:{value}"
            )
    _missing(web, f"{home}&utm_source=rss", f"{url}{app}:1:0::YES", f"{url}{app}:1:0::::::YES", f"{url}{app}:4:0")
    _missing(web, f"{url}{app}:2:0::NO::P4_EMPNO:7369", f"{url}{app + 1}:1:0")
    _other(web, site.paged.url, report.url)
    _alike(web, site.paged.url, f"{url}{app}:EMPLOYEES:99:pg_R_{site.region}:NO&pg_min_row={site.ROWS + 1}&{paging}")
    _other(web, site.other.url, department.url)
    for page in (site.paged, site.other):
        hidden = next(other for other in site.pages if other.doc_id in site.hidden and f"f?{other.query}" in page.links)
        _behind(web, site, page.url, f"f?{hidden.query}")


@pytest.mark.parametrize("nth", range(3))
def test_sap_client_language_mangling_and_the_other_language_and_client(nth: int) -> None:
    web, site = _quiet(SapSite, nth)
    assert isinstance(site, SapSite)
    host, client = f"http://{site.host}", site.client

    def mangled(text: str, page: Page) -> str:
        return f"{host}/sap({base64.b64encode(text.encode()).decode()}){page.key[len('/sap') :]}"

    for page in site.pages:
        if page.doc_id in site.late or page.doc_id in site.hidden:
            continue
        join = "&" if page.query else "?"
        _same(web, page.url, f"{page.url}{join}sap-client={client}&sap-language=en", f"{page.url}{join}utm_source=rss")
        _same(web, page.url, mangled(f"l=en&c={client}", page), mangled(f"c={client}", page))
        if page.query.startswith("matnr="):
            _same(web, page.url, f"{host}{page.path}?matnr=0000{page.query[len('matnr=') :]}&sap-language=EN")
    _missing(web, f"{site.files['default.htm'].url}?sap-language=DE", f"{site.products.url}?sap-language=FR")
    _other(web, site.german.url, site.products.url)
    _same(web, site.german.url, mangled(f"l=de&c={client}", site.products), f"{site.german.url}&sap-client={client}")
    german = _hidden(site, f"{site.base}/detail.htm", "sap-language=DE")
    _behind(web, site, site.german.url, f"detail.htm?{german.query}")
    _missing(web, f"{host}{german.path}?{german.query.split('&')[0]}")  # (no English text)
    _other(web, site.foreign.url, site.products.url)
    foreign = _hidden(site, f"{site.base}/detail.htm", f"sap-client={site.other_client}")
    _behind(web, site, site.foreign.url, f"detail.htm?{foreign.query}")
    _missing(web, f"{host}{foreign.path}?{foreign.query.split('&')[0]}")  # (not in the default client)


@pytest.mark.parametrize("nth", range(3))
def test_asp_case_default_documents_and_the_shadowed_script(nth: int) -> None:
    web, site = _quiet(AspSite, nth)
    assert isinstance(site, AspSite)
    base = f"http://{site.host}"
    _same(web, site.home.url, f"{base}/default.asp", f"{base}/DEFAULT.ASP", f"{base}/?utm_source=rss")
    _same(web, f"{base}/news/", f"{base}/news/default.asp", f"{base}/NEWS/Default.asp")
    _moves(web, f"{base}/news", f"{base}/news/", frozenset({301}))
    _same(web, f"{base}/support/", f"{base}/support/Default.htm", f"{base}/SUPPORT/")
    _moves(web, f"{base}/Support", f"{base}/support/", frozenset({301}))
    for (script, number), page in site.records.items():
        name = page.query.partition("=")[0]
        _same(web, page.url, f"{base}{script.upper()}?{name.upper()}=00{number}&ref=nav", f"{page.url}&")
    _missing(web, f"{base}/product.asp?id=9999", f"{base}/support/kb.htm")
    _other(web, site.script.url, f"{base}/support/")
    _same(web, site.script.url, f"{base}/Support/DEFAULT.ASP")
    _behind(web, site, site.script.url, "kb.asp")


@pytest.mark.parametrize("seed", [1, 2])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_enterprise(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
