"""Differential property test: the add-on collects every document stock Scrapy collects, and finishes.

For each seed, ``demoweb.randomweb.generate(seed)`` builds a small random web
(2-5 hosts of random server families, 10-60 documents, traps, loops, lying
canonical tags; see that module). The web is crawled twice in the same crawl
order, chosen from the seed (``CrawlOrder.from_seed``: LIFO or breadth-first
FIFO, ``CONCURRENT_REQUESTS`` 1 or 16, random link priorities or none,
``JOBDIR`` or none; 16 consecutive seeds cover every combination): once with
stock Scrapy, once with ``ADDONS = {"scrapy_urlnorm.Addon": 0}``. The add-on
crawl must

- collect every document the stock crawl collected,
- finish by itself (``finish_reason == "finished"``),
- send at most 3 x stock's requests + 20.

All 30 seeds crawl in the full sweep (``make test-full``, CI's ``make test-newest``);
``URLNORM_DIFFERENTIAL=quick`` (``make test``) crawls seven of them;
``benchmarks/bench_differential.py`` crawls as many as you like.

Soft-404 pages carry no document id, so they are not items and not compared.

Stock Scrapy collects every document by construction; a sanity assertion
checks it on every crawl, and the fast tests below check the generator
without crawling. No test asserts on time: ``CLOSESPIDER_TIMEOUT`` (240 s) ends
a stalled crawl and ``CLOSESPIDER_PAGECOUNT`` (3 x stock requests + 40) a
runaway one; either finish reason fails the test.

To reproduce one seed outside pytest with more output, use
``python benchmarks/bench_differential.py --start SEED --seeds 1 --verbose``.
"""

from __future__ import annotations

import gzip
import html
import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import pytest_twisted
import scrapy
from demoweb import randomweb
from demoweb.aspnet import PROBE, AspNetSessions
from demoweb.frameworkweb import FrameworkComparison, generate_framework_web
from demoweb.randomweb import (
    FAMILIES,
    Comparison,
    CrawlOrder,
    CrawlSummary,
    allowed_domains,
    compare,
    crawl_web,
    doc_id_of,
    fronted_sites,
    generate,
    robots_answered,
    robots_rules,
    stock_misses_in_other_orders,
    told_from_cookie_luck,
    web_settings,
)
from demoweb.server import Dynamic, Hit, Lenient
from demoweb.sitemaps import Sitemaps, sitemap_urls

SEEDS = range(30)


def _label(seed: int) -> str:
    return f"{seed}-{CrawlOrder.from_seed(seed).name}"


#: With ``URLNORM_DIFFERENTIAL=quick`` (``make test``, ``make test-min``; see ``conftest.py``)
#: only these quick seeds crawl. Between them they cover LIFO and FIFO, concurrency 1 and
#: 16, JOBDIR, and seed 27, whose crawl once never ended (a revocation walking a list it was
#: appending to).
QUICK = (1, 4, 17, 18, 22, 23, 27)
FULL_SWEEP = pytest.mark.full_sweep


def _sampled(values: list[Any], quick: Callable[[Any], bool], ids: Callable[[Any], str]) -> list[Any]:
    """``values`` as parameters named by ``ids``, those ``quick`` does not keep marked ``full_sweep``."""
    return [pytest.param(value, marks=() if quick(value) else FULL_SWEEP, id=ids(value)) for value in values]


@pytest.mark.parametrize("seed", _sampled(list(SEEDS), QUICK.__contains__, _label))
@pytest_twisted.ensureDeferred
async def test_addon_collects_every_document_stock_collects(seed: int, tmp_path: Path) -> None:
    comparison = await compare(seed, tmp_path)
    sanity = comparison.sanity_problems()
    assert not sanity, f"the generated web is broken (not the add-on): {sanity}\n{comparison.report()}"
    problems = comparison.problems()
    assert not problems, f"seed {seed}, order {comparison.order.name}: {'; '.join(problems)}\n{comparison.report()}"


#: JOBDIR orders whose add-on crawl is interrupted and resumed: stopped cleanly three
#: times at points drawn from the seed (``bench_differential.py --stops 3``), or killed
#: (``SIGKILL``) two or three times, each run a process of its own (``--kills 2``). What the runs
#: collect together must hold every document stock collects in one run.
INTERRUPTED = [
    *[replace(CrawlOrder.from_seed(seed), stops=3) for seed in (8, 13, 26, 31)],
    *[replace(CrawlOrder.from_seed(seed), kills=2) for seed in (9, 14)],
    # A request recovered after a kill, dropped as a copy of its own key of the killed
    # run once a revocation brought that run's rules back (lost 14 pages in most runs).
    replace(CrawlOrder.from_seed(106093), kills=3, params=True, offsite=True, refresh=True),
    # A page whose cookieless answer wrote the session into its links, fetched again as
    # the next run's first request of its host, cookieless too: lost every run.
    replace(CrawlOrder.from_seed(166456), stops=2, rules=True, cookies=True, sessions=True, params=True),
]


#: Orders crawled with a flaky server and Scrapy's retries (``--flaky``), a
#: ``DEPTH_LIMIT`` (``--depth-limit``), or both, on seeds where the add-on once lost
#: documents that way (40024: a page stock got on a fourth try under another spelling;
#: 41000: a page fetched deeper than stock fetched it; 42000, 42132: a shallower
#: request settled against a deeper page without its links read), and with
#: ``robots.txt`` obeyed (``--robots``; 52019: stock Scrapy's own robots.txt race let a
#: forbidden page through, see ``SettledRobotsTxtMiddleware``; 52059: a failed URL's
#: copies fetched one after another; 55285, with a flaky server: a page fetched on the
#: ``www`` twin only, whose ``robots.txt`` forbids what the bare twin's failure allowed;
#: 58253, every condition at once: an audit held a ``<meta http-equiv="refresh">`` stub's
#: refresh, and the page only the refresh reached was lost; 58289: a link robots.txt
#: forbids as one spelling of its page spelled it, allowed as the dropped spelling does),
#: with two callbacks of which one yields items (``--callbacks``; 66004, 66032: a claim
#: of ``parse_listed`` joined one of ``parse``, which a ``304`` settled) and with a
#: ``CrawlSpider`` whose item rule matches some spellings only (``--rules``; 67008,
#: 67013: its requests taken for one callback, ``_callback``; 67216: a start page, read
#: by ``parse_start_url``, skipped as already fetched through a follow-only link); 76107,
#: every condition at once: a refresh's target dropped unchecked under ``extension_alias``.
#: Stock may miss documents here; the add-on must miss none stock collects.
CONDITIONS = [
    replace(CrawlOrder.from_seed(40024), flaky=True),
    replace(CrawlOrder.from_seed(41000), depth_limit=4),
    replace(CrawlOrder.from_seed(42000), flaky=True, depth_limit=4),
    replace(CrawlOrder.from_seed(42132), flaky=True, depth_limit=4),
    replace(CrawlOrder.from_seed(52019), robots=True),
    replace(CrawlOrder.from_seed(52059), robots=True),
    replace(CrawlOrder.from_seed(55285), flaky=True, depth_limit=4, robots=True),
    replace(CrawlOrder.from_seed(58253), flaky=True, depth_limit=5, robots=True, offsite=True, refresh=True),
    replace(CrawlOrder.from_seed(58289), flaky=True, depth_limit=5, robots=True, offsite=True, refresh=True),
    replace(CrawlOrder.from_seed(65042), flaky=True, depth_limit=5, robots=True, offsite=True, refresh=True),
    replace(CrawlOrder.from_seed(65088), flaky=True, depth_limit=4, robots=True, offsite=True, refresh=True),
    replace(CrawlOrder.from_seed(66004), callbacks=True),
    replace(CrawlOrder.from_seed(66032), callbacks=True),
    replace(CrawlOrder.from_seed(67008), rules=True),
    replace(CrawlOrder.from_seed(67013), rules=True),
    replace(CrawlOrder.from_seed(67216), rules=True),
    replace(
        CrawlOrder.from_seed(76107),
        flaky=True,
        depth_limit=3,
        robots=True,
        offsite=True,
        refresh=True,
        dynamic=True,
        callbacks=True,
    ),
    # An IIS site's case rule, vouched for in /guides/, and another backend mounted at
    # /guides/api/ where /Guides/api/SUMMARY/ and /Guides/api/summary/ are two pages.
    replace(CrawlOrder.from_seed(172939), mixed=True),
    # A host answering /x and /x/ with one body whose links are relative to its directory.
    replace(CrawlOrder.from_seed(84200), lenient=True),
    # A shortcut whose rule was revoked while it waited in the queue (lost once, at concurrency 16).
    replace(CrawlOrder.from_seed(89071), lenient=True, refresh=True),
    replace(CrawlOrder.from_seed(89160), lenient=True, refresh=True),
    # A link dropped unverified under ignore_param: marked as an audit's descendant,
    # generations of pages of their own below the audit (lost once in six runs).
    replace(CrawlOrder.from_seed(95059), params=True, lenient=True, callbacks=True, refresh=True),
    # A session in every link, on a host whose robots.txt forbids a linked page: every page
    # that links it is a parent, each new session spelled the parents anew, each spelling was
    # sent, and its redirect (dropping the session) opened another (ran away; 169771, 169804).
    replace(CrawlOrder.from_seed(169824), robots=True, lenient=True, sessions=True, https=True, sitemaps=True),
    # (Never lost a page; here so each condition of the generator stays exercised.)
    replace(CrawlOrder.from_seed(56015), offsite=True),
    replace(CrawlOrder.from_seed(57079), refresh=True),
    replace(CrawlOrder.from_seed(68005), dynamic=True),
    replace(CrawlOrder.from_seed(142802), https=True),
    replace(CrawlOrder.from_seed(154017), sitemaps=True, robots=True, https=True),  # pages only sitemaps name
    replace(CrawlOrder.from_seed(69012), rules=True, dynamic=True, robots=True, flaky=True, depth_limit=4),
]


HARDER = INTERRUPTED + CONDITIONS
#: The orders of ``HARDER`` that ``URLNORM_DIFFERENTIAL=quick`` crawls: one kill, one stop,
#: and every condition of the generator at least once (the whole list runs in the full sweep).
QUICK_HARDER = (9, 8, 166456, 40024, 42132, 52019, 52059, 58253, 65042, 65088, 66004, 67216, 76107, 172939, 84200,
                89071, 95059, 56015, 57079, 154017, 69012)  # fmt: skip


def _order_label(order: CrawlOrder) -> str:
    return f"{order.seed}-{order.name}"


@pytest.mark.parametrize("order", _sampled(HARDER, lambda order: order.seed in QUICK_HARDER, _order_label))
@pytest_twisted.ensureDeferred
async def test_crawls_under_harder_conditions_collect_every_document_stock_collects(
    order: CrawlOrder, tmp_path: Path
) -> None:
    comparison = await compare(order.seed, tmp_path, order=order)
    assert not comparison.sanity_problems()
    problems = comparison.problems()
    assert not problems, f"seed {order.seed}, order {order.name}: {'; '.join(problems)}\n{comparison.report()}"
    assert not comparison.robots_luck  # (none of these once lost a page to a robots.txt failure)
    if order.kills:
        assert "did not stop cleanly" in (tmp_path / "killed.run1.log").read_text()  # it was killed
    elif order.stops:
        assert comparison.addon.stats["urlnorm/start_requests_skipped"] >= 1  # it was resumed
    if order.kills or order.stops:
        # Where it ran again, with an empty cookie jar (see ``stock_misses_in_other_orders``;
        # a run may end by itself before its kill or stop).
        assert 1 <= len(comparison.addon.restarted_at) <= (order.kills or order.stops)


#: Distributed: the add-on crawl is two scrapy-redis workers sharing a redis-server
#: (``bench_differential.py --redis 2``), one of them killed and started again in the
#: second. 146406 and 146441 (``--params --lenient``) lost a listing's next page about
#: 1 run in 30: dropped against a page another worker delivered, under a rule every
#: drop of which is verified, and parked unverified.
DISTRIBUTED = [
    replace(CrawlOrder.from_seed(146406), redis_workers=2, params=True, lenient=True),
    replace(CrawlOrder.from_seed(146441), redis_workers=2, kills=1, params=True, lenient=True),
]


@pytest.mark.parametrize("order", _sampled(DISTRIBUTED, lambda order: not order.kills, _order_label))
@pytest_twisted.ensureDeferred
async def test_distributed_crawls_collect_every_document_stock_collects(order: CrawlOrder, tmp_path: Path) -> None:
    from redis_server import RedisServer

    server = RedisServer(tmp_path, aof=False).start()
    try:
        comparison = await compare(order.seed, tmp_path, {"REDIS_URL": server.url}, order=order)
    finally:
        server.stop()
    problems = comparison.problems()
    assert not problems, f"seed {order.seed}, order {order.name}: {'; '.join(problems)}\n{comparison.report()}"
    logs = sorted(path.name for path in tmp_path.glob("killed.worker*.log"))
    assert logs[:2] == ["killed.worker0.run0.log", "killed.worker1.run0.log"]  # two workers
    assert len(logs) == 2 + order.kills  # and each kill started one again


#: Seeds of the 1,000-seed benchmark where the add-on once lost a document.
#: 645, 796 and 949: an nginx host that removes trailing slashes (``/x/`` -> ``/x``) except for
#: one trap, ``/archive/`` (``/report/``), a page of its own. ``trailing_slash (remove)`` was
#: learned from the other redirects and dropped it once the rule's audit budget was spent;
#: every drop of a redirect-taught rule is now verified (``URLNORM_VERIFY_REDIRECT_RULES``).
#: 724: a session-id trap (``/files?sid=1`` vs ``?sid=2``) lost in one crawl order's timing.
#: 74124: ``/view/`` beside ``/view`` (two pages of 619 bytes) settled by a twin probe's
#: ``304`` on a host whose tags are its files' size and one shared date.
ONCE_LOST = (645, 724, 796, 949, 74124)


@pytest.mark.parametrize("seed", _sampled(list(ONCE_LOST), (645, 796).__contains__, _label))
@pytest_twisted.ensureDeferred
async def test_seeds_that_once_lost_a_document(seed: int, tmp_path: Path) -> None:
    comparison = await compare(seed, tmp_path)
    assert not comparison.sanity_problems()
    assert not comparison.problems(), comparison.report()


# -- the generator, without crawling ------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 7, 123, 4567])
def test_generation_is_deterministic(seed: int) -> None:
    first, second = generate(seed), generate(seed)
    assert first.describe() == second.describe()
    assert first.start_urls == second.start_urls
    assert [(p.url, p.links, p.canonical) for p in first.pages] == [(p.url, p.links, p.canonical) for p in second.pages]
    assert generate(seed + 1).describe() != first.describe()


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_web_is_small_and_every_document_reachable(seed: int) -> None:
    web = generate(seed)
    assert 2 <= len(web.hosts) <= 5
    assert 10 <= len(web.documents) <= 60
    assert len(web.documents) == len(web.pages)  # document ids are unique
    assert web.check() == []
    # A stock-like crawl without HTTP (every distinct canonicalized URL once) collects
    # every document, and in few enough requests for a crawl of ~1-2 s.
    requests, documents = web.simulate_stock()
    assert documents == web.documents
    assert requests < 1_000


def test_seeds_cover_every_family_order_and_trap() -> None:
    webs = [generate(seed) for seed in SEEDS]
    sites = [site for web in webs for site in web.hosts]
    assert {site.family for site in sites} == set(FAMILIES)
    assert {site.twin for site in sites} == {"none", "to_bare", "to_www", "same", "different"}
    assert any(site.catch_all for site in sites)
    assert any(site.multiviews for site in sites)
    assert {site.session for site in sites} == {None, "jsessionid", "PHPSESSID"}
    loops = {loop.split("->")[0] for site in sites for loop in site.loops}
    assert loops == {"self", "pair", "empty", "slash", "param", "moved"}
    traps = " ".join(trap for site in sites for trap in site.traps)
    for marker in ("?sid=1", "www.", ".html", "/index.html"):
        assert marker in traps
    assert any(page.lying for web in webs for page in web.pages)
    assert any(page.menu and len(page.links) >= 100 for web in webs for page in web.pages)
    assert len({CrawlOrder.from_seed(seed).name for seed in SEEDS}) == 16


def test_dynamic_hosts_answer_each_request_anew() -> None:
    """``--dynamic``: about half the hosts put a token of each answer's own in every
    page; of those, half send no entity tag and half a weak one."""
    web = generate(7)
    kinds = {}
    for site in web.hosts:
        front = Dynamic(site, "7:dynamic")
        kind = front.kind(site.host)
        headers = {"Host": site.host}
        first, second = front.handle("/", "", headers), front.handle("/", "", headers)
        assert first.status == 200 and doc_id_of(first) == doc_id_of(second)
        assert (first.body != second.body) == bool(kind)
        if kind == 1:
            assert "ETag" not in first.headers
        elif kind == 2 and "ETag" in site.handle("/", "", headers).headers:
            assert first.headers["ETag"].startswith("W/")
        kinds[site.host] = kind
    assert len(kinds) == len(web.hosts)
    assert {Dynamic(None, f"{seed}:dynamic").kind(f"h{n}.test") for seed in range(20) for n in range(5)} == {0, 1, 2}  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", SEEDS[:8])
def test_query_pages_are_reachable_and_read_as_an_application_reads_its_query(seed: int) -> None:
    """``--params``: listings paged by ``?page=n``, items by ``?id=``, a sort order and a
    language with a default value, posts at ``/?p=n``: every one a document stock
    reaches, served whatever the parameters' order, with the site's ignored parameters
    and at a default value the same as without."""
    web = generate(seed, query_pages=True)
    assert web.check() == []
    assert web.simulate_stock()[1] == web.documents
    assert generate(seed, query_pages=True).describe() == web.describe()
    assert {page.url for page in generate(seed).pages} <= {page.url for page in web.pages}
    for site in web.hosts:
        queried = [page for page in site.pages if page.query and site.parses_query]
        for page in queried:
            listing = page.query.startswith("page=")
            pairs = page.query.split("&") + [f"{name}=nav" for name in sorted(site.query_ignored)]
            assert web.resolve(f"{page.url.split('?')[0]}?{'&'.join(reversed(pairs))}") == page.doc_id
            if listing:
                first = f"http://{page.host}{page.path}"
                assert web.resolve(f"{first}?page=1") == web.resolve(first) != page.doc_id


def test_query_pages_cover_every_kind() -> None:
    webs = [generate(seed, query_pages=True) for seed in SEEDS]
    queries = {page.query.partition("=")[0] for web in webs for page in web.pages if page.query}
    assert {"page", "id", "sort", "lang", "p"} <= queries
    sites = [site for web in webs for site in web.hosts if site.parses_query]
    assert any(site.query_ignored for site in sites) and any(not site.query_ignored for site in sites)
    assert any(page.lying and "page=" in page.query for web in webs for page in web.pages)


def test_lenient_hosts_serve_a_page_where_they_would_redirect_by_one_step() -> None:
    """``--lenient``: a lenient host answers ``/x`` (which its site redirects to ``/x/``)
    and its ``www`` twin with the page itself; other redirects stay, and the other
    hosts redirect as before."""
    served = {True: 0, False: 0}
    for seed in range(40):
        for site in generate(seed).hosts:
            front = Lenient(site, f"{seed}:lenient")
            lenient = front.lenient(site.host)
            for page in site.pages:
                if page.host != site.host or page.query or not page.path.endswith("/") or page.path == "/":
                    continue
                headers = {"Host": site.host}
                plain = site.handle(page.path[:-1], "", headers)
                if plain.status not in (301, 302, 308) or not plain.headers["Location"].endswith(page.path):
                    continue
                answer = front.handle(page.path[:-1], "", headers)
                if lenient:
                    assert answer.status == 200 and doc_id_of(answer) == page.doc_id
                else:
                    assert answer == plain
                served[lenient] += 1
    assert served[True] and served[False]


def test_url_session_hosts_offer_the_session_as_a_cookie_and_write_none_for_a_client_keeping_it() -> None:
    """``--sessions --cookies``: as PHP's ``use_trans_sid``, an answer to a client that sent
    no session cookie offers its session as one and writes it into the links; a client that
    returns it gets the same document with plain links."""
    webs = (generate(seed, url_sessions=True) for seed in range(40))
    web, site = next((web, site) for web in webs for site in web.hosts if site.url_session)
    page = next(page for page in site.pages if page.links)
    first = web.fetch(page.url)
    session = first.headers["Set-Cookie"].split(";")[0]
    assert session.startswith(f"{site.url_session}=")
    assert html.escape(session).encode() in first.body  # written into the links
    kept = web.fetch(page.url, {"Cookie": f"other=1; {session}"})
    assert "Set-Cookie" not in kept.headers and html.escape(session).encode() not in kept.body
    assert doc_id_of(kept) == doc_id_of(first) == page.doc_id


def test_an_aspnet_front_offers_its_session_cookie_beside_the_sites_own() -> None:
    """Random seed 166918 (``--sessions --cookies``): ``h1.test`` writes its ``sk`` session
    into links and offers it as a cookie, behind ASP.NET's ``AutoDetect``; the front's
    ``ASP.NET_SessionId`` once replaced the site's cookie, so the page answered the probe
    with session links and no cookie for them (what no real server does: each cookie is
    a ``Set-Cookie`` header of its own, as the server sends them)."""
    web = generate(166918, url_sessions=True, query_pages=True)
    site = next(site for site in web.hosts if site.host == "h1.test")
    front = AspNetSessions(site, f"{web.seed}:aspnet")
    assert front.runs_aspnet("h1.test") and site.url_session == "sk"
    query = f"session=closing-panel-day-2&{PROBE}=1"
    served = front.handle("/report", query, {"Host": "h1.test", "Cookie": f"{PROBE}=1"})
    cookies = served.headers["Set-Cookie"].split("\n")
    assert [cookie.partition("=")[0] for cookie in cookies] == ["sk", "ASP.NET_SessionId"]
    assert cookies[0].partition(";")[0].partition("=")[2].encode() in served.body


def test_aspnet_hosts_ask_for_a_cookie_then_serve_by_cookie_or_by_a_session_in_the_path() -> None:
    """``--cookies``: an ASP.NET host in ``AutoDetect`` mode answers a first request with a
    redirect that adds ``AspxAutoDetectCookieSupport=1`` and offers a test cookie; with the
    cookie back, the page and a session cookie; without, the page under a session in its
    path; with the session cookie, any page at once."""
    webs = (generate(seed) for seed in range(40))
    fronts = (AspNetSessions(site, f"{web.seed}:aspnet") for web in webs for site in web.hosts if site.family == "iis")
    front = next(front for front in fronts if front.runs_aspnet(front.site.host))
    page = next(page for page in front.site.pages if page.links)
    host = {"Host": page.host}
    asked = front.handle(page.path, page.query, host)
    assert asked.status == 302 and asked.headers["Set-Cookie"].startswith(f"{PROBE}=1;")
    path, _, query = asked.headers["Location"].partition("?")
    assert (path, f"{PROBE}=1") == (page.path, query.split("&")[-1])
    served = front.handle(path, query, {**host, "Cookie": f"{PROBE}=1"})
    assert doc_id_of(served) == page.doc_id and served.headers["Set-Cookie"].startswith("ASP.NET_SessionId=")
    cookieless = front.handle(path, query, host)
    assert cookieless.status == 302 and cookieless.headers["Location"].startswith("/(S(")
    in_path, _, rest = cookieless.headers["Location"].partition("?")
    assert doc_id_of(front.handle(in_path, rest, host)) == page.doc_id
    assert doc_id_of(front.handle(page.path, page.query, {**host, "Cookie": "ASP.NET_SessionId=abc"})) == page.doc_id


def test_sitemaps_name_pages_the_servers_answer_and_pages_only_they_reach() -> None:
    """``--sitemaps``: a site's ``robots.txt`` names its sitemap; every entry is a page's
    URL or another spelling the servers answer with it, a stale URL, or a page only the
    sitemap names (served, with a document, where nothing else reaches it); the gzipped
    part of an index unpacks; the spider is given what the servers serve."""
    kinds = {"canonical": 0, "spelling": 0, "stale": 0, "only": 0, "index": 0}
    for seed in range(30):
        for web in (generate(seed), generate_framework_web(seed)):
            for url in sitemap_urls(web):
                assert url.endswith(("/robots.txt", ".xml"))
            for site in web.hosts:
                front = Sitemaps(web.sites[site.host], web, site)
                if front.plan is None:
                    continue
                robots = front.handle("/robots.txt", "", {"Host": site.host})
                assert robots.status == 200 and b"\nSitemap: http://" in robots.body
                kinds["index"] += "/sitemap_index.xml" in front.plan.files
                for path, (body, _) in front.plan.files.items():
                    answer = front.handle(path, "", {"Host": site.host})
                    assert answer.status == 200 and answer.body == body
                    text = gzip.decompress(body) if path.endswith(".gz") else body
                    if b"<urlset" not in text:
                        continue
                    for loc in re.findall(rb"<loc>([^<]*)</loc>", text):
                        url = html.unescape(loc.decode())
                        path_of = urlsplit(url).path
                        if path_of in front.plan.orphans:
                            assert web.resolve(url) is None  # nothing but the sitemap reaches it
                            page = front.handle(path_of, "", {"Host": site.host})
                            assert doc_id_of(page) == f"{site.host}{path_of}"
                            kinds["only"] += 1
                        elif url in {page.url for page in site.pages}:
                            kinds["canonical"] += 1
                        elif web.resolve(url) is not None:
                            kinds["spelling"] += 1
                        else:
                            kinds["stale"] += 1
    assert all(kinds.values()), kinds


def test_robots_txt_luck_is_told_apart_only_where_the_addon_was_given_that_robots_txt() -> None:
    """``bench_differential.py --robots --flaky``: a document stock collected only because a
    ``robots.txt`` it asked for failed is reported apart, not as lost, and only where the
    add-on's own crawl was given that host's ``robots.txt`` (differential seeds 138415,
    138490, 138511: a resumed crawl asks the flaky server again and is answered). A host
    and port it never asked for, or that failed it too, is no luck: ``h:80``, merged into
    ``h``, whose failure let stock read ``h:80/x``'s links (seed 135108), counts as lost."""
    hits = [
        Hit("h.test", "/robots.txt", 503, netloc="h.test"),
        Hit("h.test", "/robots.txt", 200, netloc="h.test"),
        Hit("www.h.test", "/robots.txt", 301, netloc="www.h.test:80"),
        Hit("g.test", "/robots.txt", 503, netloc="g.test:80"),
        Hit("g.test", "/robots.txt", 404, netloc="g.test"),
        Hit("h.test", "/x", 200, netloc="h.test"),
    ]
    asked, answered = robots_answered(hits)
    assert asked == {"h.test", "www.h.test:80", "g.test:80", "g.test"}
    assert answered == {"h.test", "www.h.test:80", "g.test"}

    web = generate(138415)
    allows = robots_rules(web)
    assert not allows("http://h2.test/Blog/Contact-8.htm") and not allows("http://h2.test:80/Blog/Contact-8.htm")
    assert allows("http://h2.test/Press/Faq-3.htm") and allows("http://nowhere.test/Blog/")


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_with_nothing_forbidden_every_document_is_collectable(seed: int) -> None:
    """The search that tells robots.txt luck apart reaches at least what stock reaches."""
    web = generate(seed, query_pages=True, meta_refresh=True)
    assert web.collectable(lambda url: True) == web.documents


KITCHEN_SINK = {"robots": True, "https": True, "refresh": True, "params": True, "mixed": True}
KITCHEN_SINK |= {"dynamic": True, "lenient": True, "callbacks": True, "cookies": True, "offsite": True}


@pytest.mark.parametrize(
    ("seed", "depth_limit", "doc", "through"),
    [(174558, 3, "h2.test/blog/", "h3.test"), (174575, 4, "www.h0.test/list?page=2", "www.h0.test")],
)
def test_a_document_only_a_failed_robots_txt_let_stock_reach_is_luck_at_any_remove(
    seed: int, depth_limit: int, doc: str, through: str
) -> None:
    """Kitchen-sink seeds (every condition, a spider that follows redirects itself,
    ``DEPTH_LIMIT``, one kill): stock collected ``h2.test/blog/`` as an item only from a
    link on ``h3.test``, whose ``robots.txt`` (``Disallow: /``) failed it; on ``h2.test`` the
    page is linked for the item callback only one level too deep. ``/list?page=2`` is
    linked only from ``/list`` and item pages, both forbidden. Stock reached them because
    its own robots.txt failed, which the search over (URL, callback, depth) tells; the
    reachability it replaced ignored callbacks and depth and was skipped with refresh
    pages and lenient hosts, so both were reported lost."""
    order = replace(CrawlOrder.from_seed(seed), depth_limit=depth_limit, **KITCHEN_SINK)
    web = generate(seed, query_pages=True, meta_refresh=True, mixed_sections=True)
    allows = robots_rules(web)
    sites = fronted_sites(web, replace(order, flaky=False, cookies=False))

    def listing(doc: str | None) -> bool:
        return random.Random(f"{seed}:{doc}").random() < 0.5

    def search(allowed: Callable[[str], bool]) -> set[str]:
        return web.collectable(allowed, depth_limit=depth_limit, listing=listing, manual_redirects=True, sites=sites)

    assert doc not in search(allows)
    assert doc in search(lambda url: allows(url) or urlsplit(url).hostname == through)


@pytest.mark.parametrize(
    ("flaky", "url", "luck"),
    [
        (True, "http://h0.test/download?session=opening-keynote-day-1&utm_source=twitter", True),
        (False, "http://h0.test/download?session=opening-keynote-day-1&utm_source=twitter", False),
        (True, "http://www.h0.test/download?session=opening-keynote-day-1", False),  # allowed: no luck needed
        (True, "http://h0.test/", False),  # a start URL: stock's every crawl has it
    ],
)
def test_offsite_luck_is_told_apart_only_where_stock_needed_a_retry_to_pass_the_offsite_filter(
    flaky: bool, url: str, luck: bool
) -> None:
    """Seed 149594 (``--flaky --robots --offsite``): stock's first fetch of a page on the
    allowed ``www.h0.test`` failed, and its retry (``dont_filter``) was redirected to the
    offsite ``h0.test``, which the offsite filter then let through; the add-on fetched the
    same URL without a failure, and its redirect was filtered, as stock's others were. A
    document stock collected only at offsite URLs, neither a start URL nor a start URL's
    redirect, is the flaky server's luck: reported apart, not lost."""
    web = generate(149594)
    assert "h0.test" not in allowed_domains(web, 149594) and "http://h0.test/" in web.start_urls
    doc = "h0.test/download?session=opening-keynote-day-1"
    stock = CrawlSummary([doc], 10, "finished", 1.0, {}, urls_of={doc: frozenset({url})})
    addon = CrawlSummary([], 5, "finished", 1.0, {})
    order = replace(CrawlOrder.from_seed(149594), offsite=True, flaky=flaky)
    comparison = Comparison(149594, order, web, stock, addon)
    assert comparison.offsite_luck == ({doc} if luck else set())
    assert comparison.lost == (set() if luck else {doc})


def test_offsite_luck_reads_the_allowed_domains_of_the_web_compared() -> None:
    """A frameworks web's hosts are not those of the random web of its seed: a page
    stock collected on a host its spider allows, and the add-on did not, is lost there
    too (read from the random web, every frameworks host looked offsite, and any such
    loss in ``--web frameworks --offsite --flaky`` runs would have been called luck)."""
    seed = 578440
    web = generate_framework_web(seed)
    allowed = allowed_domains(web, seed)
    url = f"http://{allowed[0]}/not-a-start-url"
    assert url not in web.start_urls
    doc = f"{allowed[0]}/not-a-start-url"
    stock = CrawlSummary([doc], 10, "finished", 1.0, {}, urls_of={doc: frozenset({url})})
    addon = CrawlSummary([], 5, "finished", 1.0, {})
    order = replace(CrawlOrder.from_seed(seed), offsite=True, flaky=True)
    comparison = FrameworkComparison(seed, order, web, stock, addon)
    assert comparison.offsite_luck == set() and comparison.lost == {doc}


@pytest.mark.parametrize(
    ("stops", "asked_80", "luck"), [(2, False, True), (2, True, True), (0, False, False), (0, True, False)]
)
def test_robots_txt_luck_on_a_default_port_stock_read_without_its_robots_txt(
    stops: int, asked_80: bool, luck: bool
) -> None:
    """Frameworks seed 574859 (``--robots --flaky --stops 2``): both ``robots.txt`` of
    ``h`` and ``h:80`` failed stock, which read a forbidden page at both; the add-on,
    resumed, was answered on ``h`` and never asked ``h:80`` (merged into ``h``); or asked
    it for another URL and met a failure too (random seed 148347, ``--kills 2``): it read
    the page's links at ``h``. Only a resumed crawl can differ so: in one run it meets
    stock's very failures."""
    web = generate(138415)
    doc = "h1.test/report?session=closing-panel-day-2"  # forbidden on both; linked from h1.test:80 only
    page = f"http://{doc.replace('h1.test', 'h1.test:80')}"
    stock = CrawlSummary(
        [doc],
        10,
        "finished",
        1.0,
        {},
        urls_of={doc: frozenset({page, page.replace(":80", "")})},
        robots_asked=frozenset({"h1.test", "h1.test:80"}),
        robots_answered=frozenset(),
    )
    asked = {"h1.test", "h1.test:80"} if asked_80 else {"h1.test"}
    addon = CrawlSummary(
        [], 5, "finished", 1.0, {}, robots_asked=frozenset(asked), robots_answered=frozenset({"h1.test"})
    )
    order = replace(CrawlOrder.from_seed(8), robots=True, flaky=True, stops=stops)  # (8: a JOBDIR order)
    comparison = Comparison(138415, order, web, stock, addon)
    assert comparison.robots_luck == ({doc} if luck else set())
    assert comparison.lost == (set() if luck else {doc})


@pytest.mark.parametrize(
    ("frameworks", "seed", "flags", "doc", "luck"),
    [
        # Stock misses it (and ten more) in every ``c1-prio`` order of Scrapy 2.14+. On
        # 2.13 even ``c1`` crawls vary from run to run (start requests interleave with
        # responses as the timing has it): stock missed it in about half of them, and in
        # none of the 16 once in CI, so there whether some order misses it is luck too.
        pytest.param(
            False,
            164846,
            {"rules": True, "cookies": True, "sessions": True},
            "h2.test/story-1.html",
            True,
            marks=pytest.mark.skipif(
                scrapy.version_info < (2, 14), reason="Scrapy 2.13's stock crawl orders vary with timing"
            ),
        ),
        # The add-on once lost it by dropping the spelling stock fetched with the cookie:
        # stock collects it in every order, so it stays lost.
        pytest.param(
            True, 584112, {"rules": True, "cookies": True}, "tomcat1.test/app/help/faq.html", False, marks=FULL_SWEEP
        ),
        (True, 584409, {"rules": True, "params": True}, "tomcat2.test/app/events-tips.html", False),  # no cookies
    ],
)
@pytest_twisted.ensureDeferred
async def test_cookie_luck_is_a_document_stock_misses_too_in_another_crawl_order(
    frameworks: bool,
    seed: int,
    flags: dict[str, bool],
    doc: str,
    luck: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With cookies on, a page's links depend on the order of the crawl (a session written
    into the links of the first page a host answers), so a document stock collects in one
    order it may miss in another: random seed 164846 (``--rules --cookies --sessions``)
    and, on Scrapy 2.14+, frameworks seed 584409 (``--rules --cookies --kills 2``). Such a
    document is reported apart, not lost; one every stock order collects is lost."""
    monkeypatch.setattr(randomweb, "TIMING_RUNS", 1)  # (these webs' stock crawls do not vary)
    order = replace(CrawlOrder.from_seed(seed), **flags)
    stock = CrawlSummary([doc], 10, "finished", 1.0, {})
    addon = CrawlSummary([], 5, "finished", 1.0, {})
    comparison: Comparison
    if frameworks:
        web = generate_framework_web(seed, query_pages=order.params)
        comparison = FrameworkComparison(seed, order, web, stock, addon)
    else:
        web = generate(seed, query_pages=order.params, url_sessions=order.sessions)
        comparison = Comparison(seed, order, web, stock, addon)
    comparison = await told_from_cookie_luck(comparison, web_settings(web, order), tmp_path)
    assert comparison.cookie_luck == ({doc} if luck else set())
    assert comparison.lost == (set() if luck else {doc})


@pytest.mark.parametrize("resets", [[], [15]])
@pytest_twisted.ensureDeferred
async def test_with_a_depth_limit_only_the_emptied_jar_is_judged_in_the_same_order(
    resets: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Quirks seed 2047 with every condition and a spider that follows redirects itself,
    ``DEPTH_LIMIT`` 4, stopped or killed once: the resumed add-on met ASP.NET's cookieless
    redirects to ``/(S(session))/`` again, each a level deeper, and missed
    ``sharepoint0.test/``; stock, its jar emptied 6, 15, 25 or 40 responses into its crawl,
    misses it too. With a depth limit (the depth each page is met at depends on the order)
    only that is judged, in the add-on's own order; without a reset, nothing is."""
    seed = 2047
    order = replace(CrawlOrder.from_seed(seed), depth_limit=4, cookies=True, callbacks=True)
    crawled: list[tuple[CrawlOrder, Any]] = []

    async def fake_crawl(web: Any, other: CrawlOrder, both: Any, *args: Any, **kwargs: Any) -> CrawlSummary:
        crawled.append((other, both.get("DEMOWEB_COOKIE_RESETS")))
        return CrawlSummary([], 10, "finished", 1.0, {})

    monkeypatch.setattr(randomweb, "crawl_web", fake_crawl)
    missed = await stock_misses_in_other_orders(None, order, {}, tmp_path, {"sharepoint0.test/"}, resets)  # type: ignore[arg-type]
    if not resets:
        assert missed == frozenset() and crawled == []
        return
    assert missed == {"sharepoint0.test/"}
    other, emptied_at = crawled[0]
    assert emptied_at == resets and other.depth_limit == 4
    assert (other.fifo, other.concurrency, other.priorities) == (order.fifo, order.concurrency, order.priorities)


@pytest.mark.parametrize("resets", [[], [13]])
@pytest_twisted.ensureDeferred
async def test_a_stock_crawl_whose_cookie_jar_is_emptied_meets_what_a_killed_crawl_meets(resets: list[int]) -> None:
    """A killed crawl loses its cookie jar (stock's as the add-on's), and the harness
    kills only the add-on: what it misses for that is told apart by crawling stock with
    its jar emptied as far into its crawl (``CookieJarResets``). Frameworks seed 584409:
    emptied just before Tomcat's ``/app/`` is fetched, stock gets its session links only
    and misses the item only its plain links lead to, as the add-on did after a kill."""
    seed = 584409
    order = replace(CrawlOrder.from_seed(seed), rules=True, cookies=True, params=True)
    assert order.fifo and order.concurrency == 1
    web = generate_framework_web(seed, query_pages=True)
    settings = {**web_settings(web, order), "DEMOWEB_COOKIE_RESETS": resets}
    summary = await crawl_web(web, replace(order, jobdir=False), settings, None)
    assert ("tomcat2.test/app/events-tips.html" in summary.docs) is not resets
