"""Fast checks of the second generator, ``demoweb.frameworkweb``, without crawling.

Each seed's web must be the same web every time, every document must be reachable
by a stock-Scrapy-like crawl (``RandomWeb.simulate_stock``), every page must be
served at its canonical URL, and the family rules the add-on is checked against must
answer as the frameworks and platforms they model do.
"""

from __future__ import annotations

import pytest
from demoweb.frameworkweb import (
    FAMILIES,
    CloudflarePagesSite,
    DjangoSite,
    ExpressSite,
    FrameworkSite,
    GitHubPagesSite,
    RailsSite,
    S3Site,
    TomcatSite,
    WordPressSite,
    generate_framework_web,
)
from demoweb.randomweb import RandomWeb, doc_id_of

SEEDS = range(20)


def _bodies(web: RandomWeb) -> dict[str, bytes]:
    return {page.url: web.fetch(page.url).body for page in web.pages}


@pytest.mark.parametrize("options", [{}, {"query_pages": True, "meta_refresh": True}])
def test_deterministic(options: dict[str, bool]) -> None:
    for seed in (0, 7, 123):
        one, two = generate_framework_web(seed, **options), generate_framework_web(seed, **options)
        assert one.describe() == two.describe()
        assert one.start_urls == two.start_urls
        assert _bodies(one) == _bodies(two)
        assert _bodies(one) == _bodies(one)  # a page's body is a function of the request alone


@pytest.mark.parametrize("seed", SEEDS)
def test_every_document_reachable_by_stock(seed: int) -> None:
    web = generate_framework_web(seed)
    assert web.check() == []
    requests, documents = web.simulate_stock()
    assert documents == web.documents
    assert requests < 2000


@pytest.mark.parametrize("seed", SEEDS)
def test_every_document_reachable_with_query_pages(seed: int) -> None:
    web = generate_framework_web(seed, query_pages=True, meta_refresh=True)
    assert web.check() == []
    _, documents = web.simulate_stock()
    # Pages only a Hugo alias (a <meta refresh> without a link) leads to: simulate_stock
    # follows no refresh, Scrapy's MetaRefreshMiddleware does.
    assert all("-only/" in doc for doc in web.documents - documents)


def test_families_all_drawn() -> None:
    drawn = {site.family for seed in range(60) for site in generate_framework_web(seed).hosts}
    assert drawn == set(FAMILIES)


def test_soft_pages_carry_no_document() -> None:
    for seed in range(30):
        web = generate_framework_web(seed)
        for site in web.hosts:
            assert isinstance(site, FrameworkSite)
            reply = web.fetch(f"http://{site.host}/no-such-page-{seed}/deeper")
            if isinstance(site, CloudflarePagesSite | GitHubPagesSite) or reply.status != 200:
                continue  # (an SPA rewrite serves the home page, a document, everywhere)
            if isinstance(site, S3Site) or not getattr(site, "has_404", True):
                continue
            assert doc_id_of(reply) is None, site.describe()


def _first(family: type[FrameworkSite]) -> tuple[RandomWeb, FrameworkSite]:
    for seed in range(500):
        web = generate_framework_web(seed)
        for site in web.hosts:
            if isinstance(site, family):
                return web, site
    raise AssertionError(f"no {family.family} host in 500 seeds")


def test_django_append_slash_only_where_a_pattern_matches() -> None:
    web, site = _first(DjangoSite)
    assert isinstance(site, DjangoSite)
    page = next(p for p in site.pages if p.path.endswith("/") and p.path.count("/") == 3 and not p.query)
    reply = web.fetch(f"http://{site.host}{page.path[:-1]}?utm_source=x")
    if site.append_slash:
        assert (reply.status, reply.headers["Location"]) == (301, f"{page.path}?utm_source=x")
    assert web.fetch(f"http://{site.host}/nothing-here").status == 404
    assert web.fetch(f"http://{site.host}{page.path.upper()}").status in (404, 302)


def test_rails_format_slash_and_id_slug_serve_one_page() -> None:
    web, site = _first(RailsSite)
    page = next(p for p in site.pages if p.path.startswith(f"/{site.resource}/"))  # type: ignore[attr-defined]
    number = page.path.split("/")[2].split("-")[0]
    for spelling in (page.path + ".html", page.path + "/", f"/{site.resource}/{number}-other-title"):  # type: ignore[attr-defined]
        assert web.resolve(f"http://{site.host}{spelling}") == page.doc_id
        assert web.fetch(f"http://{site.host}{spelling}").status == 200  # no redirect
    assert web.fetch(f"http://{site.host}{page.path.upper()}").status == 404


def test_express_routes_fold_case_static_files_do_not() -> None:
    for seed in range(300):
        web = generate_framework_web(seed)
        for site in web.hosts:
            if isinstance(site, ExpressSite) and site.case_insensitive and site.statics:
                routes = [p for p in site.pages if p.path.count("/") == 1 and p.path not in site.statics]
                route = next((p for p in routes if p.path != "/" and not p.query), None)
                if route is None:
                    continue
                assert web.resolve(f"http://{site.host}{route.path.upper()}/") == route.doc_id
                static = next(iter(site.statics.values()))
                assert web.resolve(f"http://{site.host}{static.path.upper()}") != static.doc_id
                return
    raise AssertionError("no case-insensitive Express host with static files")


def test_wordpress_shortlinks_and_pathinfo() -> None:
    for seed in range(300):
        web = generate_framework_web(seed)
        for site in web.hosts:
            if isinstance(site, WordPressSite) and site.structure != "plain":
                number, post = next(iter(site.posts.items()))
                reply = web.fetch(f"http://{site.host}/?p={number}")
                assert (reply.status, reply.headers["Location"]) == (301, post.url)
                assert web.fetch(f"http://{site.host}/index.php{post.path}").status == 200
                assert web.resolve(f"{post.url}?replytocom=5") == post.doc_id
                assert web.fetch(f"http://{site.host}/page/1/").status == 301
                return
    raise AssertionError("no WordPress host with pretty permalinks")


def test_tomcat_session_ids_in_links_and_context_redirect() -> None:
    web, site = _first(TomcatSite)
    assert isinstance(site, TomcatSite)
    reply = web.fetch(f"http://{site.host}{site.context}")
    assert (reply.status, reply.headers["Location"]) == (302, f"{site.context}/")
    home = web.fetch(f"http://{site.host}{site.context}/").body
    assert b";jsessionid=" in home
    # A session id in the path keeps its session; the page is the same document.
    again = web.fetch(f"http://{site.host}{site.context}/;jsessionid=ABC")
    assert doc_id_of(again) == site.pages[0].doc_id
    assert b";jsessionid=ABC" in again.body or site.encode_rate < 1


def test_tomcat_offers_its_session_as_a_cookie_and_leaves_the_links_of_a_client_keeping_it_alone() -> None:
    web, site = _first(TomcatSite)
    home = f"http://{site.host}{site.context}/"
    first = web.fetch(home)
    session, *attributes = first.headers["Set-Cookie"].split("; ")
    assert session.startswith("JSESSIONID=") and f"Path={site.context}" in attributes
    kept = web.fetch(home, {"Cookie": session})
    assert "Set-Cookie" not in kept.headers and b";jsessionid=" not in kept.body
    assert doc_id_of(kept) == doc_id_of(first) == site.pages[0].doc_id
    # A session the URL names is the one the page goes on with: no new one is offered.
    assert "Set-Cookie" not in web.fetch(f"{home};jsessionid=ABC").headers


def test_static_hosts() -> None:
    web, site = _first(S3Site)
    directory = next((p for p in site.pages if p.path.endswith("/") and p.path != "/"), None)
    if directory is not None:
        reply = web.fetch(f"http://{site.host}{directory.path[:-1]}")
        assert (reply.status, reply.headers.get("Location")) in ((302, directory.path), (200, None))
        assert web.resolve(f"http://{site.host}{directory.path}index.html") == directory.doc_id
    web, site = _first(CloudflarePagesSite)
    page = next(p for p in site.pages if not p.path.endswith("/"))
    reply = web.fetch(f"http://{site.host}{page.path}.html")
    assert (reply.status, reply.headers["Location"]) == (308, page.path)
