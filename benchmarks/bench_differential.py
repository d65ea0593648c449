"""Stock Scrapy vs the add-on on many random webs: lost documents, runaways, distributions.

The same comparison as ``tests/test_differential.py``, over as many seeds as you
like: each seed's web (``demoweb.randomweb.generate``) is crawled with stock
Scrapy, then with ``ADDONS = {"scrapy_urlnorm.Addon": 0}`` (plus any
``--addon-settings``), in the crawl order the seed picks (``CrawlOrder.from_seed``).

Prints a line per seed as it goes (flushed), then every failure (documents the
add-on lost, crawls that did not finish, request counts over 3 x stock + 20,
webs stock Scrapy itself did not fully collect) with the web's description,
failures per crawl order, and the distributions side by side, stock vs add-on:
requests, documents collected, redundancy (1 - distinct documents / 200
responses with a document), lost documents; median, p90, max.

    python benchmarks/bench_differential.py --seeds 1000 --start 0
    python benchmarks/bench_differential.py --seeds 200 --workers 2 --addon-settings URLNORM_LEARN=False
    python benchmarks/bench_differential.py --start 17 --seeds 1 --verbose
    python benchmarks/bench_differential.py --report-from run1.jsonl run2.jsonl
    python benchmarks/bench_differential.py --seeds 600 --workers 2 --keep-failed traces/

All crawls of one process run one after the other on one reactor; ``--workers N``
splits the seeds over N such processes (one per core is about right).

``--web frameworks`` crawls the webs of the independent second generator instead
(``demoweb.frameworkweb.generate_framework_web``: hosts that answer as Django,
Rails, Express, WordPress, Netlify, Cloudflare Pages, GitHub Pages, S3, Tomcat,
Laravel and Next.js do), and adds requests, documents and losses per family to
the report. Every other option works with either web; ``--refresh`` and
``--params`` then mean that generator's versions (moved pages as jekyll-redirect-from
and Hugo aliases write them; sort orders and more pages on the listings), and
``--offsite`` draws ``allowed_domains`` from its hosts.

    python benchmarks/bench_differential.py --web frameworks --seeds 100 --start 500000

``--web wild`` crawls the webs of a third generator, written by an outside checker
(``demoweb.wildweb.generate_wild_web``: MediaWiki, static mirrors with encoded file
names, PHP under Apache with ``<base href>``, a servlet application on ``:8080``
beside another site on port 80, a CDN with one entity tag for every page, a web
archive), with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web wild --seeds 100 --start 0 --workers 1

``--web coincidence`` crawls the webs of a fourth generator, by another outside checker
(``demoweb.coincidenceweb.generate_coincidence_web``: hosts whose coincidences look like
equivalence rules that do not hold everywhere: byte-identical placeholders with relative
links, parameters that matter by value or by path, redirect rules with exceptions,
validators shared per template), with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web coincidence --seeds 100 --start 0 --workers 1

``--web quirks`` crawls the webs of a fifth generator, by another outside checker
(``demoweb.quirksweb.generate_quirks_web``: how applications and CMSs read the spelling of a
URL: Drupal's ``?q=`` and aliases, Joomla's ``/index.php/``, phpBB's ``sid``/``start``, servlet
path parameters, encoded slashes, ASP.NET's case-insensitive names, SharePoint views, blank
parameters, language prefixes, merged slashes; each with an exception linked late), with
requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web quirks --seeds 100 --start 0 --workers 1

``--web hosting`` crawls the webs of a sixth generator, by another outside checker
(``demoweb.hostingweb.generate_hosting_web``: how modern static hosting, CDNs and SEO plugins spell
URLs: Netlify's pretty URLs, GitHub Pages, cache busters, WordPress permalinks and AMP, Shopify
collections, lying canonicals, hreflang prefixes, a Mac's case- and Unicode-folding volume, Next.js
trailing slashes, an edge worker stripping click ids; each with an exception linked late), with
requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web hosting --seeds 100 --start 0 --workers 1

``--web commerce`` crawls the webs of a seventh generator, by another outside checker
(``demoweb.commerceweb.generate_commerce_web``: how e-commerce platforms, forums and enterprise CMSs
spell URLs: Magento's system routes and toolbar defaults, WooCommerce's pagination and sort orders,
Salesforce Commerce Cloud's pipelines and variation parameters, vBulletin's friendly URLs, AEM's
resource mapping and selectors, Sitecore's case- and language-folding, an Angular app's hash-bang
and escaped-fragment spellings, Drupal facets read as a set; each with an exception linked late),
with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web commerce --seeds 100 --start 0 --workers 1

``--web community`` crawls the webs of an eighth generator, by another outside checker
(``demoweb.communityweb.generate_community_web``: how community and developer software spells URLs:
Discourse's topic slugs and post numbers, Stack Exchange's short links and answer sorts, MediaWiki's
entry points and redirect pages, Gitea's and GitLab's case-insensitive owners over case-sensitive file
trees, Read the Docs' versions, Mastodon's account routes; per-request tokens where the software puts
them; each with an exception linked late), with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web community --seeds 100 --start 0 --workers 1

``--web registry`` crawls the webs of a ninth generator, by another outside checker
(``demoweb.registryweb.generate_registry_web``: how package registries, paper archives, institutional
repositories and versioned documentation hosts spell URLs: PyPI's PEP 503 names and release pages, npm's
tabs and versions, docs.rs's version aliases and semver redirects, arXiv's versioned ids and browse
contexts, DSpace's handles and bitstream sequences, Zenodo's record versions, packages.debian.org's suite
aliases, PostgreSQL's ``/docs/current/``; each with an exception linked late), with requests, documents
and losses per kind.

    python benchmarks/bench_differential.py --web registry --seeds 100 --start 0 --workers 1

``--web enterprise`` crawls the webs of a tenth generator, by another outside checker
(``demoweb.enterpriseweb.generate_enterprise_web``: how legacy enterprise web platforms spell URLs:
Domino's URL commands, view UNIDs and replica ids, ColdFusion's session tokens and Fusebox fuseactions,
Tomcat's jsessionid path parameters and welcome files with Struts and displaytag, WebSphere Portal's
navigational states, SharePoint's welcome pages and library folders, Oracle APEX's f?p fields, SAP BSP's
default client and language and URL mangling, classic ASP on IIS; each with an exception linked late),
with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web enterprise --seeds 100 --start 0 --workers 1

``--web static`` crawls the webs of an eleventh generator, by another outside checker
(``demoweb.staticweb.generate_static_web``: how static hosts, site generators and multilingual sites
spell URLs: Hugo's directories, pager and front-matter aliases and translations, Docusaurus's versioned
docs and client redirects on GitHub Pages, mike's ``latest`` alias over MkDocs's directory URLs,
Cloudflare Pages' route matching and ``_redirects``, Vercel's clean URLs and ``/en/`` rewrite, S3's
website endpoint (index documents, ``+`` read as a space, routing rules), WPML's ``?lang=``; each with
an exception linked late), with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web static --seeds 100 --start 0 --workers 1

``--web slugs`` crawls the webs of a twelfth generator, by another outside checker
(``demoweb.slugweb.generate_slug_web``: sites that route by an id and read the rest of the URL loosely:
Discourse's topic slugs, post numbers and crawler pages, Stack Exchange's question slugs, share links and
answer sorts, XenForo's thread titles, query-string routes and post links, Plone's views and Zope
acquisition, DSpace 7's handles and full item pages, Confluence's titles, page ids and tiny links; each
with an exception linked late), with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web slugs --seeds 100 --start 0 --workers 1

``--web encoding`` crawls the webs of a thirteenth generator, by another outside checker
(``demoweb.encodingweb.generate_encoding_web``: how servers and applications read escapes, character
sets and non-ASCII in URLs: MediaWiki's title normalization (spaces, first letter, NFC), classic ASP on
IIS (case folding of non-ASCII letters, the code page fallback, ``%5C``), Apache serving ISO-8859-1
file names with ``mod_speling``, a shop with an internationalized host name (punycode, an ASCII alias,
IDNA 2003 against 2008), nginx on a byte-exact file system beside a normalization-insensitive share,
a CGI.pm application reading ``;``, empty parameters and escaped terms; each with an exception linked
late), with requests, documents and losses per kind.

    python benchmarks/bench_differential.py --web encoding --seeds 100 --start 0 --workers 1

``--web press`` crawls the webs of a fourteenth generator, by another outside checker
(``demoweb.pressweb.generate_press_web``: how news sites, magazines and publishing platforms spell the
URLs of an article: WordPress's date permalinks, ``?p=``, slug guessing, AMP views and paginated posts,
Ghost's trailing slashes, lower-casing, preview links and ``-2`` slugs, a Medium-style platform's story
ids, ``?source=`` and friend links, a newspaper CMS's story ids, AMP and print views and gallery pages,
a magazine's ``?page=N``, ``view=all`` and section pages, a Guardian-style live blog's
``?page=with:block-<id>`` and key events; each with an exception linked late), with requests, documents
and losses per kind.

    python benchmarks/bench_differential.py --web press --seeds 100 --start 0 --workers 1
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import json
import logging
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "example_project"))

from demoweb.coincidenceweb import compare_coincidence, generate_coincidence_web  # noqa: E402
from demoweb.commerceweb import compare_commerce, generate_commerce_web  # noqa: E402
from demoweb.communityweb import compare_community, generate_community_web  # noqa: E402
from demoweb.encodingweb import compare_encoding, generate_encoding_web  # noqa: E402
from demoweb.enterpriseweb import compare_enterprise, generate_enterprise_web  # noqa: E402
from demoweb.frameworkweb import compare_frameworks, family_of, generate_framework_web  # noqa: E402
from demoweb.hostingweb import compare_hosting, generate_hosting_web  # noqa: E402
from demoweb.pressweb import compare_press, generate_press_web  # noqa: E402
from demoweb.quirksweb import compare_quirks, generate_quirks_web  # noqa: E402
from demoweb.randomweb import Comparison, CrawlOrder, CrawlSummary, RandomWeb, compare, generate  # noqa: E402
from demoweb.registryweb import compare_registry, generate_registry_web  # noqa: E402
from demoweb.slugweb import compare_slugs, generate_slug_web  # noqa: E402
from demoweb.staticweb import compare_static, generate_static_web  # noqa: E402
from demoweb.wildweb import compare_wild, generate_wild_web, kind_of  # noqa: E402

#: How often a worker's reactor proves it is responsive (see ``run_workers``).
HEARTBEAT_SECONDS = 5.0
#: ``--keep-failed``: where a failing seed's add-on traces are kept (see ``traced``).
KEEP_FAILED: Path | None = None
#: ``--keep-all``: keep every seed's traces, failing or not (where a crawl spends its requests).
KEEP_ALL = False
#: Clean stops and resumes of each add-on crawl in a JOBDIR order (``--stops``).
STOPS = 0
#: ``kill -9``s and resumes of each add-on crawl in a JOBDIR order (``--kills``).
KILLS = 0
#: ``--depth-limit N``: each seed's DEPTH_LIMIT is drawn from 1..N (0: none).
DEPTH_LIMIT = 0
#: ``--redis N``: the add-on crawl is N scrapy-redis workers sharing a redis-server (0: one crawl).
REDIS_WORKERS = 0
#: The redis-server of this process's ``--redis`` crawls (started on first use).
REDIS_SERVER: Any = None
#: The conditions that are on or off (a ``CrawlOrder`` field each, and a ``--flag``
#: of the same name), with their help.
FLAGS: dict[str, str] = {
    "flaky": "serve each web behind a flaky front (some URLs fail 1-3 times with a 503 or a dropped "
    "connection) and crawl with Scrapy's retries on, stock and add-on alike",
    "robots": "give most hosts a robots.txt (directories, pages, other spellings, parameters) and crawl "
    "with ROBOTSTXT_OBEY, stock and add-on alike",
    "offsite": "crawl with allowed_domains drawn from the seed (bare names, one twin's name only, hosts "
    "left out), stock and add-on alike",
    "refresh": 'give about half the hosts pages that move on by <meta http-equiv="refresh"> (to a document, '
    "to one only the stub reaches, to itself, to a broken URL)",
    "callbacks": "crawl with two callbacks, as a shop spider has: a listing's links go to the one that yields "
    "items, every other link to one that only follows (both crawls)",
    "rules": "crawl with a CrawlSpider, as most projects write one: an item rule whose pattern (drawn from "
    "the seed) matches some spellings of a page and not others, then a follow rule (both crawls)",
    "dynamic": "serve about half the hosts as an application renders them: a token of its own in every "
    "answer (no two answers of a page byte-identical), half of them with no entity tags, half with weak ones",
    "lenient": "serve about half the hosts as a lenient application server: a page where the site would "
    "redirect by one step (/x and /x/, www.h and h), so only content teaches those rules",
    "params": "give about half the hosts documents told apart by their query, on an application that reads "
    "it: listings paged by ?page=n (?page=1 the first), items by ?id=, sort orders and languages with a "
    "default value, posts at /?p=n, parameters the site ignores (?ref=nav), in any order",
    "sessions": "give about half the hosts (random webs only) a session kept in their links' URLs under a "
    "name no list knows (?s=<token>, ?visit=...): an answer without one opens a session, every link to the "
    "site carries the request's; the site ignores the parameter",
    "mixed": "give about half the hosts whose family makes a path rule hold site-wide (random webs only) one "
    "top-level section another backend serves, where it does not: case-sensitive paths on an IIS host (two "
    "documents /legacy/Report.htm and /legacy/report.htm), /x and /x/ two documents on an Apache or nginx host",
    "sitemaps": "give about half the sites sitemaps (one file or an index with a gzipped part, named in "
    "robots.txt, on either twin or with :80; other spellings, stale entries, pages only a sitemap names) and "
    "crawl with a SitemapSpider that also follows links (both crawls; not with --rules)",
    "cookies": "crawl with Scrapy's cookies on (its default), stock and add-on alike: Tomcat hosts and "
    "--sessions hosts also offer their session as a cookie and write no session into the links of a client "
    "that returns it; about half the IIS hosts (random webs) run ASP.NET sessions in AutoDetect mode (a first "
    "302 to ?AspxAutoDetectCookieSupport=1, then the page; a session in the path for a client without cookies)",
    "https": "serve about half the hosts as HTTPS sites (TLS in the proxy's CONNECT tunnel): two in three "
    "redirect http:// to https://, the others serve both alike; pages spell some links to them https://",
}
#: The conditions of ``FLAGS`` this run has on.
ON: dict[str, bool] = {}
#: ``--web``: which generator builds each seed's web ("random" or "frameworks").
WEB = "random"
#: The generators whose hosts are tallied by kind (``kind_of``), not by family.
KIND_WEBS = (
    "wild",
    "coincidence",
    "quirks",
    "hosting",
    "commerce",
    "community",
    "registry",
    "enterprise",
    "static",
    "slugs",
    "encoding",
    "press",
)
#: ``--settings``: Scrapy settings both crawls get (stock and add-on).
SHARED_SETTINGS: dict[str, Any] = {}


def parse_setting(item: str) -> tuple[str, Any]:
    """``KEY=VALUE``; the value is read as JSON when it parses (numbers, true/false, lists), Python's
    ``True``/``False``/``None`` are understood, anything else stays a string."""
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {item!r}")
    if value in ("True", "False", "None"):
        return key, {"True": True, "False": False, "None": None}[value]
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


#: The other generators than the random web's: ``--web`` name -> (generate, compare), each
#: generate taking ``meta_refresh`` and ``query_pages`` only.
GENERATORS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "frameworks": (generate_framework_web, compare_frameworks),
    "wild": (generate_wild_web, compare_wild),
    "coincidence": (generate_coincidence_web, compare_coincidence),
    "quirks": (generate_quirks_web, compare_quirks),
    "hosting": (generate_hosting_web, compare_hosting),
    "commerce": (generate_commerce_web, compare_commerce),
    "community": (generate_community_web, compare_community),
    "registry": (generate_registry_web, compare_registry),
    "enterprise": (generate_enterprise_web, compare_enterprise),
    "static": (generate_static_web, compare_static),
    "slugs": (generate_slug_web, compare_slugs),
    "encoding": (generate_encoding_web, compare_encoding),
    "press": (generate_press_web, compare_press),
}


def web_of(seed: int) -> RandomWeb:
    """The web ``seed`` is crawled on, with this run's generator and conditions."""
    if WEB in GENERATORS:
        return GENERATORS[WEB][0](seed, meta_refresh=ON.get("refresh", False), query_pages=ON.get("params", False))
    return generate(
        seed,
        meta_refresh=ON.get("refresh", False),
        query_pages=ON.get("params", False),
        url_sessions=ON.get("sessions", False),
        mixed_sections=ON.get("mixed", False),
    )


#: The add-on's stats of duplicate downloads by cause (``urlnorm/duplicate_downloads/<cause>``).
_DUPLICATES_BY_CAUSE = "urlnorm/duplicate_downloads/"


def summarize(crawl: CrawlSummary) -> dict[str, Any]:
    summary = {
        "requests": crawl.requests,
        "docs": len(crawl.docs),
        "pages": len(crawl.doc_ids),
        "redundancy": round(crawl.redundancy, 4),
        "finish_reason": crawl.finish_reason,
        "seconds": round(crawl.seconds, 3),
        "urls_twice": crawl.urls_twice,
    }
    causes = {
        key.removeprefix(_DUPLICATES_BY_CAUSE): value
        for key, value in (crawl.stats or {}).items()
        if key.startswith(_DUPLICATES_BY_CAUSE)
    }
    if causes:
        summary["duplicates_by_cause"] = causes  # (the add-on's: what it chose to spend, see learning_savings.py)
    return summary


def row(comparison: Comparison) -> dict[str, Any]:
    problems, sanity = comparison.problems(), comparison.sanity_problems()
    return {
        "seed": comparison.seed,
        "order": comparison.order.name,
        "documents": len(comparison.web.documents),
        "stock": summarize(comparison.stock),
        "addon": summarize(comparison.addon),
        "stock_lost": sorted(comparison.web.documents - comparison.stock.docs),
        "lost": sorted(comparison.lost),
        "robots_luck": sorted(comparison.robots_luck),
        "offsite_luck": sorted(comparison.offsite_luck),
        "cookie_luck": sorted(comparison.cookie_luck),
        "rotation_luck": sorted(getattr(comparison, "rotation_luck", ())),
        "problems": problems,
        "sanity": sanity,
        "describe": comparison.web.describe() if problems or sanity else "",
        **(
            {
                "web": WEB,
                "families": comparison.families,
                "lost_families": sorted(
                    {
                        (kind_of if WEB in KIND_WEBS else family_of)(comparison.web, doc.split("/", 1)[0])
                        for doc in comparison.lost
                    }
                ),
            }
            if hasattr(comparison, "families")
            else {}
        ),
    }


def line(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"seed {result['seed']:>5} ERROR {result['error']}"
    if "hung" in result:
        return f"seed {result['seed']:>5} {CrawlOrder.from_seed(result['seed']).name:<20} HUNG: {result['hung']}"
    stock, addon = result["stock"], result["addon"]
    verdict = "; ".join(result["sanity"] + result["problems"]) or "ok"
    if result.get("robots_luck"):
        verdict += f" (robots.txt luck, not lost: {result['robots_luck']})"
    if result.get("offsite_luck"):
        verdict += f" (offsite reached by a retry, not lost: {result['offsite_luck']})"
    if result.get("cookie_luck"):
        verdict += f" (cookie order luck, not lost: {result['cookie_luck']})"
    if result.get("rotation_luck"):
        verdict += f" (a rotating redirect's luck, not lost: {result['rotation_luck']})"
    return (
        f"seed {result['seed']:>5} {result['order']:<20} stock {stock['requests']:>4} req {stock['docs']:>3} docs"
        f" {stock['seconds']:>5.1f}s | add-on {addon['requests']:>4} req {addon['docs']:>3} docs"
        f" {addon['seconds']:>5.1f}s | {verdict}"
    )


# -- running seeds in this process ----------------------------------------------------------


@contextlib.contextmanager
def traced(seed: int, workdir: Path, settings: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """With ``--keep-failed``: ``settings`` plus the add-on's crawl log, its JSON report
    and its debug log (every drop, with what it was dropped against) in ``workdir``.
    Some losses happen once in a thousand seeds and not again on a rerun (an order of
    events at concurrency 16): the traces of the run that failed are what tells why."""
    if KEEP_FAILED is None:
        yield settings
        return
    handler = logging.FileHandler(workdir / "addon.debug.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(relativeCreated)d %(name)s %(levelname)s %(message)s"))
    logger = logging.getLogger("scrapy_urlnorm")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield {
            **settings,
            "URLNORM_DEBUG": True,
            "URLNORM_CRAWL_LOG": str(workdir / "addon.crawl.jsonl"),
            "URLNORM_REPORT_FILE": str(workdir / "addon.report.json"),
        }
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()


def keep_traces(seed: int, workdir: Path) -> None:
    assert KEEP_FAILED is not None
    KEEP_FAILED.mkdir(parents=True, exist_ok=True)
    names = ["addon.debug.log", "addon.crawl.jsonl", "addon.report.json"]
    names += sorted(path.name for path in workdir.glob("killed.*"))  # (--kills: each run's log)
    names += sorted(path.name for path in workdir.glob("addon.*.worker*"))  # (--redis: each worker's traces)
    for name in names:
        if (workdir / name).exists():
            shutil.copy(workdir / name, KEEP_FAILED / f"seed-{seed}-{name}")


async def run_seeds(seeds: list[int], settings: dict[str, Any], emit: Any, announce: Any = None) -> None:
    for seed in seeds:
        if announce:
            announce(seed)
        with tempfile.TemporaryDirectory(prefix=f"bench-diff-{seed}-") as workdir:
            try:
                with traced(seed, Path(workdir), settings) as seed_settings:
                    depth = 1 + random.Random(f"{seed}:depth").randrange(DEPTH_LIMIT) if DEPTH_LIMIT else 0
                    order = replace(
                        CrawlOrder.from_seed(seed),
                        stops=STOPS,
                        kills=KILLS,
                        depth_limit=depth,
                        redis_workers=REDIS_WORKERS,
                        shared_settings=SHARED_SETTINGS,
                        **ON,
                    )
                    if REDIS_WORKERS:
                        seed_settings = {**seed_settings, "REDIS_URL": redis_url(Path(workdir).parent)}
                    run = GENERATORS[WEB][1] if WEB in GENERATORS else compare
                    result = row(await run(seed, Path(workdir), seed_settings, order))
            except Exception as error:  # one broken seed must not end the benchmark
                result = {"seed": seed, "error": f"{type(error).__name__}: {error}"}
            if KEEP_FAILED is not None and (KEEP_ALL or result.get("problems")):
                keep_traces(seed, Path(workdir))
        emit(result)


def redis_url(directory: Path) -> str:
    """The address of this process's redis-server (``--redis``), started on first use
    and stopped at exit; each distributed crawl empties it first."""
    global REDIS_SERVER
    if REDIS_SERVER is None:
        import atexit

        sys.path.insert(0, str(ROOT / "tests"))
        from redis_server import RedisServer

        server_dir = Path(tempfile.mkdtemp(prefix="bench-diff-redis-", dir=directory))
        REDIS_SERVER = RedisServer(server_dir, aof=False).start()
        atexit.register(lambda: (REDIS_SERVER.stop(), shutil.rmtree(server_dir, ignore_errors=True)))
    return str(REDIS_SERVER.url)


def run_in_reactor(
    seeds: list[int], settings: dict[str, Any], emit: Any, announce: Any = None, heartbeat: Any = None
) -> None:
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from twisted.internet import defer, reactor
    from twisted.python import failure

    def done(outcome: object) -> None:
        if isinstance(outcome, failure.Failure):
            outcome.printTraceback()
        reactor.stop()  # type: ignore[attr-defined]

    if heartbeat is not None:  # proof of a responsive reactor, for the parent's watchdog
        from twisted.internet import task

        task.LoopingCall(heartbeat).start(HEARTBEAT_SECONDS)
    reactor.callWhenRunning(  # type: ignore[attr-defined]
        lambda: defer.ensureDeferred(run_seeds(seeds, settings, emit, announce)).addBoth(done)
    )
    reactor.run()  # type: ignore[attr-defined]


class Worker:
    """One child process of this script running ``seeds`` one after the other; it prints a
    ``start`` line before each seed and the seed's result after it, as JSON lines."""

    def __init__(self, seeds: list[int], settings: list[str], lines: queue.Queue[tuple[Worker, str | None]]) -> None:
        self.seeds = seeds
        self.finished: set[int] = set()
        self.current: int | None = None
        self.since = time.monotonic()  # the last line it printed
        self.started = time.monotonic()  # the start of its current seed
        self.handled = False  # its end (hang or crash) has been recorded already
        self.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - read when the worker hangs or dies
        command = [sys.executable, __file__, "--worker", "--heartbeat", "--seed-list", ",".join(map(str, seeds))]
        if KEEP_FAILED is not None:
            command += ["--keep-failed", str(KEEP_FAILED)] + (["--keep-all"] if KEEP_ALL else [])
        if STOPS:
            command += ["--stops", str(STOPS)]
        if KILLS:
            command += ["--kills", str(KILLS)]
        if REDIS_WORKERS:
            command += ["--redis", str(REDIS_WORKERS)]
        if DEPTH_LIMIT:
            command += ["--depth-limit", str(DEPTH_LIMIT)]
        command += [f"--{flag}" for flag, on in ON.items() if on]
        command += ["--web", WEB]
        for key, value in SHARED_SETTINGS.items():
            command += ["--settings", f"{key}={json.dumps(value)}"]
        for item in settings:
            command += ["--addon-settings", item]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1)
        threading.Thread(target=self._pump, args=(lines,), daemon=True).start()

    def _pump(self, lines: queue.Queue[tuple[Worker, str | None]]) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            lines.put((self, text))
        lines.put((self, None))

    def remaining(self) -> list[int]:
        return [seed for seed in self.seeds if seed not in self.finished and seed != self.current]

    def stack(self) -> str:
        """The worker's stderr: Python stacks (faulthandler) and tracebacks, the add-on's frames first."""
        self.stderr.seek(0)
        text = self.stderr.read()
        ours = [line for line in text.splitlines() if "scrapy_urlnorm" in line]
        return "\n".join(ours[:40]) if ours else text[-3000:]

    def kill(self) -> str:
        """Dump the worker's stacks (SIGUSR1: faulthandler), then kill it; returns the stacks."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGUSR1)
        time.sleep(2)
        self.process.kill()
        self.process.wait()
        return self.stack()


def run_workers(seeds: list[int], args: argparse.Namespace, emit: Any) -> None:
    """Split ``seeds`` over ``args.workers`` child processes and collect their results.

    A watchdog: each worker's reactor prints a heartbeat every few seconds. A worker silent for
    ``--hang-seconds`` has a blocked reactor (a loop in synchronous code: CLOSESPIDER_TIMEOUT,
    which ends a stalled but responsive crawl, cannot fire then). Its stack is dumped and
    recorded with the seed as "hung", the worker is killed, and a new one takes over its
    remaining seeds. A seed still running after ``--seed-seconds`` with a responsive reactor
    (something CLOSESPIDER_TIMEOUT did not end), and a worker that dies mid-seed, are handled
    the same way."""
    lines: queue.Queue[tuple[Worker, str | None]] = queue.Queue()
    workers = [Worker(seeds[i :: args.workers], args.addon_settings, lines) for i in range(args.workers)]
    workers = [worker for worker in workers if worker.seeds]

    def replace(worker: Worker, what: str, stack: str) -> None:
        worker.handled = True
        if worker.current is not None:
            emit({"seed": worker.current, "hung": what, "stack": stack})
        rest = worker.remaining()
        if rest:
            workers.append(Worker(rest, args.addon_settings, lines))

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the workers are ended below
    try:
        while any(worker.process.poll() is None or not worker.handled for worker in workers):
            try:
                worker, text = lines.get(timeout=5)
            except queue.Empty:
                pass
            else:
                if text is None:
                    worker.process.wait()
                    if not worker.handled:
                        if worker.current is not None:
                            replace(worker, f"worker died (exit code {worker.process.returncode})", worker.stack())
                        worker.handled = True
                elif text.startswith("{"):
                    message = json.loads(text)
                    worker.since = time.monotonic()
                    if message.get("event") == "start":
                        worker.current, worker.started = message["seed"], time.monotonic()
                    elif message.get("event") != "tick":
                        worker.finished.add(message["seed"])
                        worker.current = None
                        emit(message)
            for worker in list(workers):
                if worker.handled or worker.current is None:
                    continue
                silent, running = time.monotonic() - worker.since, time.monotonic() - worker.started
                if silent > args.hang_seconds:
                    replace(worker, f"reactor blocked: no heartbeat for {silent:.0f} s", worker.kill())
                elif running > args.seed_seconds:
                    replace(worker, f"no result after {running:.0f} s, reactor responsive", worker.kill())
    finally:
        for worker in workers:
            if worker.process.poll() is None:
                worker.process.kill()


# -- the report --------------------------------------------------------------------------------


def percentiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    if not ordered:
        return (0.0, 0.0, 0.0)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], ordered[-1]


def report(results: list[dict[str, Any]], seconds: float, max_describe: int) -> str:
    done = [result for result in results if "error" not in result and "hung" not in result]
    errors = [result for result in results if "error" in result]
    hung = [result for result in results if "hung" in result]
    failed = [result for result in done if result["problems"]]
    broken = [result for result in done if result["sanity"]]
    out = [
        "",
        f"{len(results)} seeds{f' in {seconds:.0f} s' if seconds else ''}: {len(failed)} with add-on failures, "
        f"{len(hung)} hung, {len(broken)} webs stock did not fully collect, {len(errors)} errors",
    ]
    kinds: Counter[str] = Counter()
    for result in failed:
        kinds["lost documents"] += bool(result["lost"])
        kinds["did not finish"] += result["addon"]["finish_reason"] != "finished"
        kinds["too many requests"] += any("requests >" in p for p in result["problems"])
    if failed:
        out.append("failures: " + ", ".join(f"{kind} {count}" for kind, count in kinds.items() if count))
        out.append("")
        out.append("FAILURES (seed, order, problems):")
        for result in failed:
            out.append(f"  seed {result['seed']} {result['order']}: {'; '.join(result['problems'])}")
        by_order = Counter(result["order"] for result in failed)
        total_by_order = Counter(result["order"] for result in done)
        out.append("")
        out.append("failures per crawl order:")
        for order in sorted(total_by_order):
            out.append(f"  {order:<22} {by_order[order]:>4} / {total_by_order[order]}")
    for result in broken:
        out.append(f"  STOCK INCOMPLETE seed {result['seed']} {result['order']}: {'; '.join(result['sanity'])}")
    for result in errors:
        out.append(f"  ERROR seed {result['seed']}: {result['error']}")
    if hung:
        out.append("")
        out.append("HUNG (no result: a loop blocked the reactor, or the worker died), with the stack at the time:")
        for result in hung:
            seed = result["seed"]
            out.append(f"--- seed {seed} {CrawlOrder.from_seed(seed).name}: {result['hung']}")
            out.append(result["stack"])
            out.append(web_of(seed).describe())
    described = [result for result in failed + broken if result["describe"]][:max_describe]
    if described:
        out.append("")
        out.append(f"webs of the first {len(described)} failures:")
        for result in described:
            out.append(
                f"--- seed {result['seed']} {result['order']}: {'; '.join(result['problems'] + result['sanity'])}"
            )
            out.append(result["describe"])
    if done:
        out.append("")
        out.append(f"{'':26}{'stock: median':>14}{'p90':>8}{'max':>8}   {'add-on: median':>15}{'p90':>8}{'max':>8}")
        metrics = [
            ("requests", lambda r, side: r[side]["requests"], "{:.0f}"),
            ("documents collected", lambda r, side: r[side]["docs"], "{:.0f}"),
            ("200 pages with a doc", lambda r, side: r[side]["pages"], "{:.0f}"),
            ("redundancy", lambda r, side: r[side]["redundancy"], "{:.3f}"),
            ("lost documents", lambda r, side: len(r["stock_lost"] if side == "stock" else r["lost"]), "{:.0f}"),
            ("seconds", lambda r, side: r[side]["seconds"], "{:.2f}"),
        ]
        for name, get, fmt in metrics:
            cells = []
            for side in ("stock", "addon"):
                cells += [fmt.format(value) for value in percentiles([get(result, side) for result in done])]
            out.append(f"{name:26}{cells[0]:>14}{cells[1]:>8}{cells[2]:>8}   {cells[3]:>15}{cells[4]:>8}{cells[5]:>8}")
        out += family_report(done)
        ratios = [r["addon"]["requests"] / max(r["stock"]["requests"], 1) for r in done]
        median, p90, high = percentiles(ratios)
        out.append(f"{'add-on / stock requests':26}{median:>14.2f}{p90:>8.2f}{high:>8.2f}")
        total_stock = sum(r["stock"]["requests"] for r in done)
        total_addon = sum(r["addon"]["requests"] for r in done)
        lost = sum(len(r["lost"]) for r in done)
        collected = sum(r["stock"]["docs"] for r in done)
        out.append(
            f"totals: stock {total_stock:,} requests, add-on {total_addon:,}"
            f" ({total_addon / max(total_stock, 1):.0%}); "
            f"add-on lost {lost} of {collected:,} documents stock collected"
        )
        out.append(twice_report(done))
        for key, why in (
            ("robots_luck", "because a robots.txt it asked for failed (it forbids every URL stock had them at; "),
            ("offsite_luck", "on hosts allowed_domains leaves out, past the offsite filter after a retry ("),
            ("cookie_luck", "in some crawl orders: with cookies, a stock crawl in another order misses them too ("),
            ("rotation_luck", "where a rotating redirect led it, within DEPTH_LIMIT ("),
        ):
            luck = [r for r in done if r.get(key)]
            if luck:
                seeds = ", ".join(str(r["seed"]) for r in luck[:10]) + (", ..." if len(luck) > 10 else "")
                out.append(
                    f"not counted as lost: {sum(len(r[key]) for r in luck)} document(s) in {len(luck)} crawl(s)"
                    f" stock collected only {why}seeds {seeds})"
                )
    return "\n".join(out)


def twice_report(done: list[dict[str, Any]]) -> str:
    """Pages downloaded again at a URL that answered one already, in crawls of one run
    (a killed or stopped crawl fetches again what was in flight: not counted)."""
    counted = [r for r in done if r["addon"].get("urls_twice") is not None]
    twice = {side: sum(r[side].get("urls_twice") or 0 for r in counted) for side in ("stock", "addon")}
    seeds = [str(r["seed"]) for r in counted if r["addon"]["urls_twice"]]
    where = f" (seeds {', '.join(seeds[:10])}{', ...' if len(seeds) > 10 else ''})" if seeds else ""
    return (
        f"URLs downloaded twice in {len(counted)} crawls of one run: "
        f"stock {twice['stock']}, add-on {twice['addon']}{where}"
    )


def family_report(done: list[dict[str, Any]]) -> list[str]:
    """``--web frameworks``: requests, documents, redundancy and losses per family, summed over
    the seeds (add-on requests only where its crawl ran on one server: not with stops or kills)."""
    totals: dict[str, Counter[str]] = {}
    for result in done:
        for family, counts in result.get("families", {}).items():
            totals.setdefault(family, Counter()).update(counts)
        for family in result.get("lost_families", []):
            totals.setdefault(family, Counter())["seeds_lost"] += 1
    if not totals:
        return []
    out = [
        "",
        "per family (summed over seeds): requests stock / add-on (share), redundancy stock / add-on, seeds with a loss",
    ]
    for family in sorted(totals):
        t = totals[family]
        counted = "addon_requests" in t  # (not counted where its crawl was stopped or killed)
        share = f"{t['addon_requests'] / max(t['stock_requests'], 1):>4.0%}" if counted else " n/a"
        redundancy = [
            1 - t[f"{side}_docs"] / t[f"{side}_pages"] if t[f"{side}_pages"] else 0.0 for side in ("stock", "addon")
        ]
        out.append(
            f"  {family:10} {t['stock_requests']:>7} / {t['addon_requests']:<7} ({share})"
            f"   {redundancy[0]:.3f} / {redundancy[1]:.3f}   docs {t['stock_docs']:>5}"
            f"   lost in {t['seeds_lost']} seed(s)"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=100, help="how many seeds (default 100)")
    parser.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    parser.add_argument(
        "--addon-settings",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="extra settings for the add-on crawl (several after one flag, or the flag repeated), "
        "e.g. URLNORM_LEARN=False",
    )
    parser.add_argument(
        "--settings",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="extra settings for both crawls, stock and add-on (several after one flag, or the flag repeated), "
        "e.g. REDIRECT_ENABLED=False",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="child processes to split the seeds over (default 1; 0: crawl in this process, no hang watchdog)",
    )
    parser.add_argument(
        "--hang-seconds",
        type=float,
        default=60,
        help="a worker whose reactor sent no heartbeat for this long is blocked: record its seed as hung, "
        "dump its stack, kill it, go on with a new worker (default 60)",
    )
    parser.add_argument("--verbose", action="store_true", help="describe every web, not only failing ones")
    parser.add_argument("--json", type=Path, help="also write one JSON line per seed to this file")
    parser.add_argument("--max-describe", type=int, default=30, help="describe at most this many failing webs")
    parser.add_argument(
        "--seed-seconds",
        type=float,
        default=600,
        help="a seed with no result after this long (its two crawls end at CLOSESPIDER_TIMEOUT, 240 s, "
        "if the reactor runs) is stuck: record it as hung and go on (default 600)",
    )
    parser.add_argument(
        "--report-from",
        type=Path,
        nargs="+",
        metavar="JSONL",
        help="print the report of earlier --json files (merged, by seed) instead of crawling",
    )
    parser.add_argument(
        "--keep-failed",
        type=Path,
        metavar="DIR",
        help="trace every add-on crawl (crawl log, JSON report, debug log) and keep those of failing seeds in DIR",
    )
    parser.add_argument(
        "--keep-all",
        action="store_true",
        help="with --keep-failed: keep every seed's traces, not only those of failing seeds",
    )
    parser.add_argument(
        "--stops",
        type=int,
        default=0,
        help="stop each add-on crawl of a JOBDIR order cleanly this many times, at random points, "
        "and resume it (default 0)",
    )
    parser.add_argument(
        "--kills",
        type=int,
        default=0,
        help="kill (SIGKILL) each add-on crawl of a JOBDIR order this many times, at random points, "
        "and resume it; each run is a process of its own (default 0; replaces --stops); with --redis, "
        "kill a worker this many times, in every order, and start it again",
    )
    parser.add_argument(
        "--redis",
        type=int,
        default=0,
        metavar="N",
        help="crawl with the add-on as N scrapy-redis workers at once, each a process of its own, sharing a "
        "redis-server this script starts (needs redis-server and scrapy-redis); stock crawls alone",
    )
    parser.add_argument(
        "--depth-limit",
        type=int,
        default=0,
        metavar="N",
        help="crawl each seed, stock and add-on alike, with a DEPTH_LIMIT drawn from 1..N by the seed "
        "(stock then misses documents too; the add-on must miss none stock collects)",
    )
    for flag, text in FLAGS.items():
        parser.add_argument(f"--{flag}", action="store_true", help=text)
    parser.add_argument(
        "--web",
        choices=("random", *GENERATORS),
        default="random",
        help="the generator of each seed's web: random (demoweb.randomweb, the default) or frameworks "
        "(demoweb.frameworkweb: hosts that answer as Django, Rails, Express, WordPress, Netlify, Cloudflare "
        "Pages, GitHub Pages, S3, Tomcat, Laravel, Next.js do; every option applies, --refresh and --params "
        "as that generator's own versions, --offsite with allowed_domains drawn from its hosts) or wild "
        "(demoweb.wildweb: MediaWiki, static mirrors with encoded names, PHP CMS with <base href>, a servlet "
        "application on :8080 beside another site on port 80, a CDN with one entity tag, a web archive) or "
        "coincidence (demoweb.coincidenceweb: placeholders, parameters by value, redirect rules with exceptions, "
        "validators per template) or quirks (demoweb.quirksweb: URL spellings as CMSs and applications read "
        "them, each kind with exceptions) or hosting (demoweb.hostingweb: URL spellings as static hosts, CDNs, "
        "site builders and SEO plugins answer them, each kind with exceptions) or commerce (demoweb.commerceweb: "
        "URL spellings as e-commerce platforms, forums and enterprise CMSs answer them, each kind with exceptions) or "
        "community (demoweb.communityweb: URL spellings as forums, Q&A sites, wikis, code forges, documentation "
        "hosts and Mastodon answer them, each kind with exceptions) or registry (demoweb.registryweb: URL spellings "
        "as package registries, paper archives, institutional repositories and versioned documentation hosts "
        "answer them, each kind with exceptions) or enterprise (demoweb.enterpriseweb: URL spellings as Domino, "
        "ColdFusion, Tomcat with Struts, WebSphere Portal, SharePoint, Oracle APEX, SAP BSP and classic ASP "
        "answer them, each kind with exceptions) or static (demoweb.staticweb: URL spellings as static hosts, "
        "static site generators and multilingual sites answer them, each kind with exceptions) or slugs "
        "(demoweb.slugweb: URL spellings as Discourse, Stack Exchange, XenForo, Plone, DSpace 7 and Confluence, "
        "which route by an id and read slugs and titles loosely, answer them, each kind with exceptions) or "
        "encoding (demoweb.encodingweb: URL escapes, character sets and non-ASCII as MediaWiki, classic ASP on IIS, "
        "Apache with ISO-8859-1 file names, an IDN host, nginx on a byte-exact file system and a CGI.pm "
        "application read them, each kind with exceptions) or press (demoweb.pressweb: URL spellings of an "
        "article as WordPress, Ghost, a Medium-style platform, a newspaper CMS, a paginated magazine and a "
        "Guardian-style live blog answer them, each kind with exceptions)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--heartbeat", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed-list", metavar="S1,S2,...", help="these seeds instead of --start/--seeds")
    args = parser.parse_args()
    if args.sitemaps and args.rules:
        parser.error("--sitemaps and --rules: a CrawlSpider that reads sitemaps is not one of the orders")
    settings = dict(parse_setting(item) for item in args.addon_settings)
    global KEEP_FAILED, KEEP_ALL, STOPS, KILLS, DEPTH_LIMIT, WEB, SHARED_SETTINGS, REDIS_WORKERS
    SHARED_SETTINGS = dict(parse_setting(item) for item in args.settings)
    WEB = args.web
    KEEP_FAILED = args.keep_failed.resolve() if args.keep_failed else None
    KEEP_ALL = args.keep_all
    STOPS, KILLS, DEPTH_LIMIT, REDIS_WORKERS = args.stops, args.kills, args.depth_limit, args.redis
    ON.update({flag: getattr(args, flag) for flag in FLAGS})

    if args.worker:  # a child of --workers: JSON lines on stdout, nothing else
        faulthandler.register(signal.SIGUSR1, all_threads=False)  # the parent's watchdog asks for the stack
        seeds = [int(seed) for seed in args.seed_list.split(",")]
        run_in_reactor(
            seeds,
            settings,
            lambda result: print(json.dumps(result), flush=True),
            lambda seed: print(json.dumps({"event": "start", "seed": seed}), flush=True),
            (lambda: print(json.dumps({"event": "tick"}), flush=True)) if args.heartbeat else None,
        )
        return
    if args.report_from:
        merged: dict[int, dict[str, Any]] = {}
        for path in args.report_from:
            for text in path.read_text(encoding="utf-8").splitlines():
                if text.strip():
                    result = json.loads(text)
                    merged[result["seed"]] = result
        print(report([merged[seed] for seed in sorted(merged)], 0.0, args.max_describe), flush=True)
        return

    if args.seed_list:
        seeds = [int(seed) for seed in args.seed_list.split(",")]
    else:
        seeds = list(range(args.start, args.start + args.seeds))
    print(
        f"{len(seeds)} seeds ({seeds[0]}..{seeds[-1]}), add-on settings {settings or 'default'},"
        f"{f' both crawls {SHARED_SETTINGS},' if SHARED_SETTINGS else ''}"
        f"{f' {STOPS} clean stop(s) per JOBDIR crawl,' if STOPS else ''}"
        f"{f' {KILLS} kill(s) per JOBDIR crawl,' if KILLS and not REDIS_WORKERS else ''}"
        f"{f' {REDIS_WORKERS} scrapy-redis workers per add-on crawl ({KILLS} killed),' if REDIS_WORKERS else ''}"
        f" {args.workers} worker(s), {WEB} webs",
        flush=True,
    )
    results: list[dict[str, Any]] = []
    json_file = args.json.open("w", encoding="utf-8") if args.json else None
    started = time.perf_counter()

    def emit(result: dict[str, Any]) -> None:
        results.append(result)
        elapsed = time.perf_counter() - started
        print(f"[{len(results):>4}/{len(seeds)} {elapsed:>6.0f}s] {line(result)}", flush=True)
        if args.verbose and "stock" in result:
            print(web_of(result["seed"]).describe(), flush=True)
        if json_file:
            json_file.write(json.dumps(result) + "\n")
            json_file.flush()

    if args.workers > 0:
        run_workers(seeds, args, emit)
    else:
        run_in_reactor(seeds, settings, emit)
    if json_file:
        json_file.close()
    results.sort(key=lambda result: result["seed"])
    print(report(results, time.perf_counter() - started, args.max_describe), flush=True)


if __name__ == "__main__":
    main()
