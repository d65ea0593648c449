"""Stock Scrapy vs the add-on on real web servers: Debian's Apache 2.4, nginx, lighttpd and
Caddy, Python's ``http.server``, Twisted Web's ``static.File``, the Node.js static servers
``serve`` and ``http-server``, PHP's built-in server (alone, and with pages that open a
session), h2o, BusyBox ``httpd``, ``mini_httpd``, Tomcat, ``webfsd``, Ruby's WEBrick, aiohttp's and
Tornado's static files, Jetty, Go's ``net/http`` ``FileServer``, WhiteNoise, Express's static
middleware, uWSGI's static files, and Django, Flask and Starlette applications under gunicorn and
uvicorn, nginx again as an https site, and Apache again as Debian configures ``/var/www``, on
loopback.

All twenty-eight serve the same Debian documentation trees (a Doxygen manual with its examples,
the Debian Reference, the Requests Sphinx docs: ``real_servers/servers.py``). The
static servers use stock directory handling: Apache with ``mod_dir`` (``/dir`` -> 301
``/dir/``), ``MultiViews`` (``/x`` serves ``/x.html``), ``mod_speling CheckCaseOnly``
(case variants -> 301) and a ``www.`` alias serving the same content; nginx with
``try_files $uri $uri.html $uri/ =404`` and a bare host that 301-redirects to ``www.``;
lighttpd as Debian ships it (``/dir`` -> 301 ``/dir/``, ``index.html``, no listings) with
``www.`` 301-redirecting to the bare host; Caddy's ``file_server`` (``/dir`` -> 308
``/dir/``, gzip) with ``www.`` 302-redirecting to the bare host; ``http.server`` (``/dir``
-> 301 ``/dir/``, ``index.html`` or a generated listing, ``Last-Modified`` and no ETag,
HTTP/1.0) serving the same tree under both names; Vercel's ``serve`` (clean URLs: ``/x.html``
-> 301 ``/x``; ``/d`` and ``/d/`` both the index), ``http-server`` (``/x`` serves
``/x.html``, ``/d`` -> 302 ``/d/``), Twisted (``/d`` -> 302 ``/d/``, no ETag) and PHP's
``php -S`` (``/d`` serves ``/d/``'s index, a path with no file the nearest index above it),
each the same tree under both names; ``php-session``, the same ``php -S`` whose HTML pages
call ``session_start()`` with ``session.use_trans_sid`` on, so that PHP writes
``?PHPSESSID=`` into their links for a client that returned no session cookie; h2o's file
handler (``/d`` -> 301 ``/d/``, ``www.`` 301-redirected to the bare host), BusyBox
``httpd`` and ``mini_httpd`` (``/d`` -> 302 ``/d/``, the same tree under both names), which take an
absolute-form request target for a path and are reached through ``real_servers/tunnel.py
--origin-form``; Tomcat 10's DefaultServlet (``/d`` -> 302 ``/d/``, ``www.`` an alias, a
path parameter ignored: ``/x;p`` is ``/x``) with JSP pages at ``/app/`` (a catalogue:
``?page=N``, ``&sort=price``, items by ``?id=``, an about page that ignores ``?ref=``) whose
links carry ``;jsessionid=`` for a client that returned no session cookie. Five servers nobody
here had tuned for, each with its stock directory handling and the same tree under both names:
``webfsd -F -f index.html`` (``/d`` -> 302 ``http://<host>:<its port>/d/``: the port it listens
on, so the crawl meets the site under a second authority, which the proxy reaches too; listings,
``Last-Modified`` and no ETag); WEBrick's ``DocumentRoot`` (``/d`` -> 301 ``/d/``, ``/x.html/anything``
serves ``/x.html``, inode-size-mtime ETags); aiohttp's ``web.static(show_index=True)`` (no index
files: ``/d`` and ``/d/`` are both a listing, ``/`` one that links the landing page); Tornado's
``StaticFileHandler(default_filename="index.html")`` (``/d`` -> 301 ``/d/``, no listings, content
ETags; origin-form only, through ``tunnel.py --origin-form``); Jetty 9's DefaultServlet (``/d``
-> 302 ``/d/``, ``/x.html/`` -> 302 ``/x.html``, listings, no ETag). Three more, likewise: Go's
``http.FileServer(http.Dir(root))`` (``real_servers/goserver.go``: relative redirects, ``/d`` -> 301
``d/``, ``/d/index.html`` -> 301 ``./``, ``/x.html/`` -> 301 ``../x.html``; listings, no ETag);
WhiteNoise under gunicorn with ``index_file=True`` (``/d`` -> 302 ``d/``, ``/d/index.html`` -> 302
``./``, the query dropped; a file only at its exact path, no listings); Express's
``express.static(root)`` (``/d`` -> 301 ``/d/``, ``index.html`` also by its name, no listings,
weak ETags). And uWSGI's static files (``--http-socket --check-static <root> --static-index
index.html``, its core's ``notfound`` plugin as the application): ``/d`` serves ``/d/index.html``
in place, no redirect, so the page's relative links resolve against its parent; no listings,
``Last-Modified`` and no ETag, origin-form only. ``apache-indexes`` is Apache as Debian's
default configuration serves ``/var/www`` (``Options Indexes`` with Debian's ``autoindex.conf``:
listings whose column headers link them sorted otherwise, ``?C=M;O=A``; no MultiViews, no
``mod_speling``; a ``www.`` alias), with two installed packages' doc directories beside the
trees (no index file: listings, files without an extension). The three applications add pages of
their own (a paginated list ``?page=N``, pages per article id, a page that ignores
``?ref=``) and their frameworks' URL conventions, with defaults: Django's
``APPEND_SLASH`` (``/x`` -> 301 ``/x/`` where only ``/x/`` is routed) and
``PREPEND_WWW`` (bare host -> 301 ``www.``), each document also at ``/tree/page/``;
Flask's Werkzeug routing (``/section`` -> 308 ``/section/``, ``/page/`` a 404, the host
ignored, a styled real 404); Starlette's ``redirect_slashes`` (307 both ways),
``StaticFiles(html=True)`` and ``TrustedHostMiddleware`` (bare host -> 307 ``www.``).
``nginx-https`` is the nginx site over TLS: ``http://`` -> 301 ``https://`` on the same
host, ``https://www.`` -> 301 the bare host; Scrapy's ``CONNECT`` for ``https://`` goes to
``real_servers/tunnel.py``, which relays it to nginx's TLS port (the rest to its http port).
Each server runs privately on a free 127.0.0.1 port; Scrapy reaches the hostnames
(``docs.test``, ``ref.test``, ``lt.test``, ``cd.test``, ``py.test``, ``tw.test``, ``sv.test``, ``hs.test``, ``ph.test``,
``ps.test``, ``h2.test``, ``bb.test``, ``mh.test``, ``tc.test``, ``dj.test``, ``fl.test``, ``st.test``, ``tls.test``,
``wf.test``, ``rb.test``, ``ah.test``, ``to.test``, ``jt.test``, ``go.test``, ``wn.test``, ``ex.test``, ``uw.test``,
``ai.test`` and their ``www.`` twins) through it as an HTTP proxy (the demo web's ``DEMOWEB_PROXY``
mechanism), so redirects name the real hostnames (``webfsd``'s with its port).

The spider starts at the site root and follows every ``<a href>`` on the site's hosts,
plus, for a seeded share of the links it extracts, one variant of the link of the kind
real crawls meet (``/index.html`` added or removed, trailing slash removed, ``.html``
removed, ``www.`` toggled, a path segment's case changed, ``?utm_source=`` added; for an
``https://`` URL, also ``http://``, as old links to a site that moved to https). The
variant of a URL depends only on the URL (up to a ``www.``: a page served under both
names links the same variants, as its HTML is the same; and up to a session in it) and
``--seed``, so every crawl meets the same variants. It yields an item per 200 response: a
document identity (SHA-1 of the body, less any session PHP or Tomcat wrote into it) for HTML
pages, the same for other files. Crawls run without cookies, as the harness's always
have; ``--settings COOKIES_ENABLED=True`` crawls with Scrapy's default.

Each server is crawled in each order (``--orders``) three ways: stock Scrapy, the add-on
with its defaults, the add-on with ``URLNORM_LEARN=False``. Printed side by side:
requests, downloads (responses), documents, documents lost vs stock (must be 0),
redundancy (1 - distinct documents / 200 HTML responses), requests per necessary request
(documents + distinct non-HTML files + unavoidable redirects, see ``necessary``) and the
rules the add-on learned (its JSON report).

    sudo PYTHON=.venv/bin/python benchmarks/real_servers/setup.sh  # once: servers, docs, frameworks
    nice python benchmarks/bench_real_servers.py
    nice python benchmarks/bench_real_servers.py --orders lifo-c16 --servers nginx --json out.json
    nice python benchmarks/bench_real_servers.py --servers django flask starlette --keep-logs logs/
    nice python benchmarks/bench_real_servers.py --servers webfs webrick aiohttp tornado jetty
    nice python benchmarks/bench_real_servers.py --servers go whitenoise express
    nice python benchmarks/bench_real_servers.py --servers uwsgi --orders lifo-c16 fifo-c1 lifo-c1 --seed 7

Exit status 1 if any add-on crawl lost a document stock collected or did not finish.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import scrapy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "example_project"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from demoweb.randomweb import CrawlOrder  # noqa: E402
from real_servers import servers  # noqa: E402

PROXY_MIDDLEWARE = "demoweb.proxy.VirtualWebProxyMiddleware"

#: Crawl orders by name: Scrapy's default LIFO at 16 concurrent requests, breadth-first
#: FIFO one at a time, LIFO one at a time; and (only when named) the first with a fresh
#: ``JOBDIR`` per crawl (disk queues, the add-on's crash-safe scheduler).
ORDERS: dict[str, CrawlOrder] = {
    "lifo-c16": CrawlOrder(fifo=False, concurrency=16, priorities=False, jobdir=False),
    "fifo-c1": CrawlOrder(fifo=True, concurrency=1, priorities=False, jobdir=False),
    "lifo-c1": CrawlOrder(fifo=False, concurrency=1, priorities=False, jobdir=False),
    "lifo-c16-jobdir": CrawlOrder(fifo=False, concurrency=16, priorities=False, jobdir=True),
}
DEFAULT_ORDERS = ["lifo-c16", "fifo-c1", "lifo-c1"]

#: The ways each server is crawled, in this order (``--modes``: stock first, then any of the others).
MODES: dict[str, dict[str, Any]] = {
    "stock": {},
    "addon": {"ADDONS": {"scrapy_urlnorm.Addon": 0}},
    "addon-nolearn": {"ADDONS": {"scrapy_urlnorm.Addon": 0}, "URLNORM_LEARN": False},
    "addon-fullaudits": {"ADDONS": {"scrapy_urlnorm.Addon": 0}, "URLNORM_CONDITIONAL_AUDITS": False},
}
DEFAULT_MODES = ["stock", "addon", "addon-nolearn"]

BASE_SETTINGS: dict[str, Any] = {
    "LOG_LEVEL": "WARNING",
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
    "COOKIES_ENABLED": False,
    "RETRY_ENABLED": False,
    "DOWNLOAD_TIMEOUT": 20,
    "DOWNLOAD_DELAY": 0,
    "HTTPCACHE_ENABLED": False,
    "DEPTH_LIMIT": 0,
    "DOWNLOAD_MAXSIZE": 0,
}

#: A crawl still running after this many seconds is stopped (finish reason closespider_timeout).
TIMEOUT_GUARD = 240
#: A session in a URL's path (``;jsessionid=``), left out where a URL's variant is drawn...
_SESSION_IN_PATH = re.compile(r";jsessionid=[^?#/]*", re.IGNORECASE)
#: ...and the query pairs left out likewise: a session PHP wrote (``PHPSESSID=``), and the tag
#: the ``utm`` variant adds.
_SESSION_PARAM = "phpsessid"
_BENCH_TAG = "utm_source=bench"


def _drawn_as(url: str) -> str:
    """``url`` as its variant is drawn: without a session or the bench's tag, pair by pair
    (``x.html?PHPSESSID=a&utm_source=bench`` is ``x.html``: a pattern that took the ``?``
    with the session left ``&utm_source=bench`` in the path, a draw of its own, seed 59)."""
    parts = urlsplit(_SESSION_IN_PATH.sub("", url))
    pairs = [
        pair
        for pair in parts.query.split("&")
        if pair and pair != _BENCH_TAG and pair.partition("=")[0].lower() != _SESSION_PARAM
    ]
    return urlunsplit(parts._replace(query="&".join(pairs)))


# -- link variants ----------------------------------------------------------------------------


def _draw(seed: int, key: str, salt: str) -> int:
    digest = hashlib.sha256(f"{seed}\0{salt}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def variant(url: str, seed: int, rate: float, double_slashes: bool = False) -> str | None:
    """One spelling of ``url`` that real crawls meet, for a seeded share ``rate`` of URLs;
    ``None`` for the others. Depends only on ``url`` (up to a ``www.``) and ``seed``. ``double_slashes``: the
    last slash of a path may be doubled too (``/a//b.html``: a template joining
    ``base + "/" + path``); off by default, so the figures of earlier runs stand."""
    parts = urlsplit(url)
    host, path, query = parts.hostname or "", parts.path or "/", parts.query
    # The same draws for a URL on either twin: a page served under both names is the same
    # HTML, so it links the same variants (drawn per host, the www copy of a page linked a
    # variant its bare copy did not, and PHP's built-in server answered that variant with
    # a page nothing else links: a document only the twin a crawl merged could reach).
    key = urlunsplit(parts._replace(netloc=parts.netloc[4:])) if host.startswith("www.") else url
    # And for a URL in any session (``php-session``, ``tomcat``): else each session's links
    # draw variants of their own, and a page only one of them reaches is one only the crawls
    # that met that session can collect. Likewise for the tag of a ``utm`` variant: a page's
    # links are written the same whatever tag a visitor came with, but a page fetched at its
    # tagged URL links itself (``#details``) with the tag, whose draw was its own: PHP's
    # built-in server answered its ``drop-html`` variant (``group__group3?utm_source=bench``,
    # no such file) with the directory's index, a page nothing else links, which only a
    # crawl fetching the tagged spelling could reach (seed 51).
    key = _drawn_as(key)
    if _draw(seed, key, "pick") / 2**64 >= rate:
        return None
    kinds: list[str] = ["www", "utm"]
    scheme = parts.scheme
    if scheme == "https":  # only https URLs: the draws for the http-only families stay as they were
        kinds.append("http")
    if path.endswith("/index.html"):
        kinds.append("drop-index")
    elif path.endswith("/"):
        kinds.append("add-index")
        if path != "/":
            kinds.append("drop-slash")
    elif path.endswith(".html"):
        kinds.append("drop-html")
    segments = [i for i, s in enumerate(path.split("/")) if any(c.isalpha() for c in s)]
    if segments:
        kinds.append("case")
    if double_slashes and path.rstrip("/").count("/") >= 1 and path != "/":
        kinds.append("double-slash")
    kind = kinds[_draw(seed, key, "kind") % len(kinds)]
    if kind == "www":
        host = host[4:] if host.startswith("www.") else f"www.{host}"
    elif kind == "http":
        scheme = "http"
    elif kind == "utm":
        if _BENCH_TAG in query.split("&"):
            return None  # (tagged already: its own self-link, drawn as the untagged URL was)
        query = f"{query}&{_BENCH_TAG}" if query else _BENCH_TAG
    elif kind == "drop-index":
        path = path[: -len("index.html")]
    elif kind == "add-index":
        path += "index.html"
    elif kind == "drop-slash":
        path = path.rstrip("/")
    elif kind == "drop-html":
        path = path[: -len(".html")]
    elif kind == "double-slash":
        slash = path.rstrip("/").rfind("/")
        path = path[:slash] + "/" + path[slash:]
    else:  # case: capitalize (or lower) one path segment
        pieces = path.split("/")
        index = segments[_draw(seed, key, "segment") % len(segments)]
        piece = pieces[index]
        pieces[index] = piece.lower() if piece[:1].isupper() else piece[:1].upper() + piece[1:]
        path = "/".join(pieces)
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return urlunsplit((scheme, netloc, path, query, ""))


# -- the spider -------------------------------------------------------------------------------


#: A session PHP wrote into a link or a form (``php-session``) or Tomcat into a link
#: (``tomcat``): one page under two sessions is one document.
_SESSION_IN_LINK = re.compile(
    rb'[?&](?:amp;)?PHPSESSID=[-,0-9A-Za-z]*|<input type="hidden" name="PHPSESSID" value="[^"]*" />'
    rb"|;jsessionid=[0-9A-Fa-f]+"
)


class RealServerSpider(scrapy.Spider):
    """Follows every ``<a href>`` on the site's hosts and a seeded variant of some of them;
    one item per 200 response with the SHA-1 of its body."""

    name = "real-servers"

    def __init__(
        self, site: str = "", seed: int = 0, rate: float = 0.4, double_slashes: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.start_urls = [f"http://{site}/"]
        self.allowed_domains = [site]  # and its subdomains: the www twin
        self.hosts = {site, f"www.{site}"}
        self.seed = int(seed)
        self.rate = float(rate)
        self.double_slashes = bool(double_slashes)

    def parse(self, response: scrapy.http.Response) -> Iterator[Any]:
        content_type = (response.headers.get(b"Content-Type") or b"").decode("latin-1").lower()
        html = content_type.startswith("text/html")
        if response.status == 200:
            yield {
                "url": response.url,
                "doc": hashlib.sha1(_SESSION_IN_LINK.sub(b"", response.body)).hexdigest(),
                "html": html,
                "file": (response.headers.get(b"X-Doc") or b"").decode("latin-1"),
                "redirects": len(response.meta.get("redirect_urls", [])),
            }
        if not html or not isinstance(response, scrapy.http.TextResponse):
            return
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href.strip()).split("#", 1)[0]
            # http:// anywhere (the offsite filter drops other hosts), https:// on the site's
            # hosts only: the https links of the trees to other sites were never followed.
            if not url.startswith("http://") and not (
                url.startswith("https://") and urlsplit(url).hostname in self.hosts
            ):
                continue
            yield scrapy.Request(url, callback=self.parse)
            other = variant(url, self.seed, self.rate, self.double_slashes)
            if other is not None:
                yield scrapy.Request(other, callback=self.parse)


# -- one crawl --------------------------------------------------------------------------------


@dataclass
class Crawl:
    server: str
    order: str
    mode: str
    stats: dict[str, Any]
    items: list[dict[str, Any]]
    seconds: float
    fetched: list[str] = field(default_factory=list)  # the URL of each response, in order
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        return int(self.stats.get("downloader/request_count", 0))

    @property
    def downloads(self) -> int:
        return int(self.stats.get("downloader/response_count", 0))

    @property
    def finish_reason(self) -> str:
        return str(self.stats.get("finish_reason"))

    @property
    def html_items(self) -> list[dict[str, Any]]:
        return [item for item in self.items if item["html"]]

    @property
    def docs(self) -> set[str]:
        return {item["doc"] for item in self.html_items}

    @property
    def files(self) -> set[str]:
        """Distinct non-HTML files (200 responses that are not pages)."""
        return {item["doc"] for item in self.items if not item["html"]}

    @property
    def refetched(self) -> dict[str, int]:
        """URLs downloaded more than once (stock Scrapy never does: its filter drops exact repeats)."""
        return {url: n for url, n in Counter(self.fetched).items() if n > 1}

    @property
    def redundancy(self) -> float:
        pages = self.html_items
        return 1 - len(self.docs) / len(pages) if pages else 0.0

    @property
    def redirects(self) -> int:
        return sum(v for k, v in self.stats.items() if re.fullmatch(r"downloader/response_status_count/3\d\d", k))

    def learned(self) -> list[str]:
        """``host: kind (direction)`` per active learned rule, from the add-on's JSON report."""
        out = []
        for host, rules in sorted(self.report.get("rules", {}).items()):
            for rule in rules:
                if rule.get("active"):
                    direction = f" ({rule['direction']})" if rule.get("direction") else ""
                    out.append(f"{host}: {rule['kind']}{direction}")
        return out

    def revoked(self) -> list[str]:
        return [
            f"{host}: {rule['kind']}"
            for host, rules in sorted(self.report.get("rules", {}).items())
            for rule in rules
            if rule.get("revoked")
        ]


def unavoidable_redirects(stock: Crawl) -> int:
    """Redirects no crawl can avoid: for each document (and non-HTML file) stock collected,
    the shortest redirect chain among the responses that delivered it (0 if some link
    reached it directly)."""
    shortest: dict[str, int] = {}
    for item in stock.items:
        shortest[item["doc"]] = min(shortest.get(item["doc"], 99), item["redirects"])
    return sum(shortest.values())


def necessary(stock: Crawl) -> int:
    """The fewest requests that collect what stock collected: one per document, one per
    distinct non-HTML file (stock follows links to them too), plus unavoidable redirects."""
    return len(stock.docs) + len(stock.files) + unavoidable_redirects(stock)


async def crawl(server: servers.Server, order: str, mode: str, args: argparse.Namespace, workdir: Path) -> Crawl:
    from scrapy.crawler import CrawlerRunner

    report_file = workdir / f"{server.kind}-{order}-{mode}.json"
    settings = {
        **BASE_SETTINGS,
        **ORDERS[order].settings(workdir / f"{server.kind}-{order}-{mode}.jobdir"),
        "LOG_LEVEL": "INFO" if args.verbose else "WARNING",
        "DEMOWEB_PROXY": server.proxy,
        "DOWNLOADER_MIDDLEWARES": {PROXY_MIDDLEWARE: 740},
        "CLOSESPIDER_TIMEOUT": TIMEOUT_GUARD,
        **MODES[mode],
    }
    settings.update(item.split("=", 1) for item in args.settings)
    if mode != "stock":
        settings.update(item.split("=", 1) for item in args.addon_settings)
        settings["URLNORM_REPORT_FILE"] = str(report_file)
        if args.keep_logs:  # the add-on's crawl log: one JSON line per response
            settings["URLNORM_CRAWL_LOG"] = str(args.keep_logs / f"{server.kind}-{order}-{mode}.crawl.jsonl")
    runner = CrawlerRunner(settings)
    crawler = runner.create_crawler(RealServerSpider)
    items: list[dict[str, Any]] = []

    def on_item(item: Any) -> None:
        items.append(dict(item))

    fetched: list[str] = []

    def on_response(response: scrapy.http.Response, request: scrapy.Request, spider: Any = None) -> None:
        fetched.append(request.url)

    crawler.signals.connect(on_item, signal=scrapy.signals.item_scraped)
    crawler.signals.connect(on_response, signal=scrapy.signals.response_received)
    # CrawlerRunner installs no log handler, so a LOG_FILE asked for (to see every
    # decision of one crawl) gets its own, for this crawl only.
    handler = _log_file_handler(settings) if mode != "stock" else None
    root_level = logging.getLogger().level
    started = time.perf_counter()
    try:
        await runner.crawl(
            crawler, site=server.host, seed=args.seed, rate=args.rate, double_slashes=args.double_slashes
        )
    finally:
        if handler is not None:
            logging.getLogger().removeHandler(handler)
            logging.getLogger().setLevel(root_level)
            handler.close()
    seconds = time.perf_counter() - started
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    if args.keep_logs and report_file.exists():
        (args.keep_logs / report_file.name).write_text(report_file.read_text())
    return Crawl(server.kind, order, mode, dict(crawler.stats.get_stats()), items, seconds, fetched, report)


def _log_file_handler(settings: dict[str, Any]) -> logging.Handler | None:
    """A handler writing this crawl's log to its ``LOG_FILE`` at its ``LOG_LEVEL``, if set."""
    if not settings.get("LOG_FILE"):
        return None
    handler = logging.FileHandler(settings["LOG_FILE"], mode="a", encoding="utf-8")
    handler.setLevel(settings.get("LOG_LEVEL", "DEBUG"))
    handler.setFormatter(logging.Formatter("%(asctime)s [%(name)s] %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(min(root.level or logging.WARNING, handler.level))
    return handler


# -- output -----------------------------------------------------------------------------------


def duplicates(crawl: Crawl) -> list[list[str]]:
    """The URLs of each document downloaded more than once (200 HTML responses), most first."""
    urls: dict[str, list[str]] = {}
    for item in crawl.html_items:
        urls.setdefault(item["doc"], []).append(item["url"])
    return sorted((sorted(group) for group in urls.values() if len(group) > 1), key=lambda g: (-len(g), g))


def summarize(crawl: Crawl, stock: Crawl) -> dict[str, Any]:
    lost = sorted(stock.docs - crawl.docs)
    lost_urls = sorted({item["url"] for item in stock.html_items if item["doc"] in lost})
    return {
        "requests": crawl.requests,
        "downloads": crawl.downloads,
        "redirects": crawl.redirects,
        "html_200": len(crawl.html_items),
        "documents": len(crawl.docs),
        "files": len(crawl.files),
        "lost": len(lost),
        "lost_urls": lost_urls,
        "files_lost": len(stock.files - crawl.files),
        "refetched": crawl.refetched,
        "redundancy": round(crawl.redundancy, 4),
        "requests_per_necessary": round(crawl.requests / max(necessary(stock), 1), 3),  # (stock may get nothing)
        "finish_reason": crawl.finish_reason,
        "seconds": round(crawl.seconds, 2),
        "filtered": int(crawl.stats.get("dupefilter/filtered", 0)),
        "released": {k.split("/", 2)[2]: v for k, v in crawl.stats.items() if k.startswith("urlnorm/released/")},
        "unsettled_at_close": crawl.stats.get("urlnorm/unsettled_at_close"),
        "learned": crawl.learned(),
        "revoked": crawl.revoked(),
        "duplicates": duplicates(crawl),
        "learned_by_kind": {k.split("/", 2)[2]: v for k, v in crawl.stats.items() if k.startswith("urlnorm/learned/")},
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'server':<8} {'order':<9} {'mode':<14} {'requests':>8} {'downloads':>9} {'docs':>5} {'lost':>5}"
        f" {'refetch':>7} {'redund.':>8} {'req/nec.':>8} {'finish':<10} learned rules"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        s = row["summary"]
        lost = f"{s['lost']}" + (" !!" if s["lost"] else "")
        lines.append(
            f"{row['server']:<8} {row['order']:<9} {row['mode']:<14} {s['requests']:>8} {s['downloads']:>9}"
            f" {s['documents']:>5} {lost:>5} {sum(s['refetched'].values()) - len(s['refetched']):>7}"
            f" {s['redundancy']:>8.3f} {s['requests_per_necessary']:>8.2f}"
            f" {s['finish_reason']:<10} {'; '.join(s['learned']) or '-'}"
        )
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    necessary_by: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        workdir = Path(tmp)
        for kind in args.servers:
            with servers.serve(kind) as server:
                for order in args.orders:
                    stock: Crawl | None = None
                    for mode in ["stock", *(mode for mode in args.modes if mode != "stock")]:
                        result = await crawl(server, order, mode, args, workdir)
                        if stock is None:
                            stock = result
                            necessary_by[f"{kind}/{order}"] = {
                                "documents": len(stock.docs),
                                "files": len(stock.files),
                                "unavoidable_redirects": unavoidable_redirects(stock),
                            }
                        summary = summarize(result, stock)
                        rows.append({"server": kind, "order": order, "mode": mode, "summary": summary})
                        print(
                            f"{kind:<8} {order:<9} {mode:<14} {summary['requests']:>5} requests"
                            f" {summary['documents']:>4} docs {summary['lost']} lost"
                            f" {summary['seconds']:>6.1f}s {summary['finish_reason']}",
                            file=sys.stderr,
                            flush=True,
                        )
                if args.keep_logs:
                    for name in ("access", "error", *(["tunnel"] if server.tunnel_port else [])):
                        (args.keep_logs / f"{kind}-{name}.log").write_text(server.log(name))
    problems = [
        f"{r['server']} {r['order']} {r['mode']}: lost {r['summary']['lost']} document(s) stock collected:"
        f" {r['summary']['lost_urls'][:10]}"
        for r in rows
        if r["summary"]["lost"]
    ] + [
        f"{r['server']} {r['order']} {r['mode']}: finish_reason={r['summary']['finish_reason']}"
        for r in rows
        if r["summary"]["finish_reason"] != "finished"
    ]
    return {
        "seed": args.seed,
        "variant_rate": args.rate,
        "double_slashes": args.double_slashes,
        "trees": servers.TREES,
        "necessary": necessary_by,
        "rows": rows,
        "problems": problems,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", nargs="+", choices=list(servers.FAMILIES), default=list(servers.FAMILIES))
    parser.add_argument("--orders", nargs="+", choices=list(ORDERS), default=DEFAULT_ORDERS)
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=DEFAULT_MODES, help="stock always runs")
    parser.add_argument("--seed", type=int, default=0, help="which links get a variant, and which (default 0)")
    parser.add_argument("--rate", type=float, default=0.4, help="share of link URLs given a variant (default 0.4)")
    parser.add_argument(
        "--double-slashes", action="store_true", help="variants may double a path's last slash (/a//b.html)"
    )
    parser.add_argument("--json", type=Path, help="write the summary as JSON here")
    parser.add_argument(
        "--keep-logs",
        type=Path,
        help="keep the servers' access and error logs, the add-on's reports and crawl logs here",
    )
    parser.add_argument("--verbose", action="store_true", help="Scrapy's INFO log")
    parser.add_argument(
        "--trees",
        metavar="NAME=PATH,...",
        help="serve these HTML trees instead of the three Debian documentation trees, e.g. "
        "apache-manual=/usr/share/doc/apache2-doc/manual (package apache2-doc)",
    )
    parser.add_argument(
        "--settings",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="settings for every crawl, stock and add-on (several after one flag, or the flag repeated), "
        "e.g. COOKIES_ENABLED=True",
    )
    parser.add_argument(
        "--addon-settings",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="settings for the add-on's crawls only (several after one flag, or the flag repeated), "
        "e.g. URLNORM_DEBUG=True LOG_LEVEL=DEBUG LOG_FILE=/tmp/x.log to see every decision",
    )
    args = parser.parse_args(argv)
    if args.trees:
        try:
            servers.TREES = servers.parse_trees(args.trees)
        except ValueError as error:
            parser.error(str(error))
        os.environ[servers.TREES_VARIABLE] = args.trees  # (the applications' processes read it)
    if missing := servers.missing(args.servers):
        print(f"missing {missing}: run benchmarks/real_servers/setup.sh (as root) first", file=sys.stderr)
        return 2
    if args.keep_logs:
        args.keep_logs.mkdir(parents=True, exist_ok=True)

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from twisted.internet import defer, reactor
    from twisted.python import failure

    outcome: dict[str, Any] = {}

    def done(result: Any) -> None:
        outcome["result"] = result
        reactor.stop()  # type: ignore[attr-defined,misc]

    reactor.callWhenRunning(  # type: ignore[attr-defined]
        lambda: defer.ensureDeferred(run(args)).addBoth(done)
    )
    reactor.run()  # type: ignore[attr-defined,misc]
    result = outcome.get("result")
    if not isinstance(result, dict):
        if isinstance(result, failure.Failure):
            result.printTraceback(file=sys.stderr)
        return 3
    print(table(result["rows"]))
    for key, figures in result["necessary"].items():
        print(f"necessary requests {key}: {figures}")
    counts = Counter(r["summary"]["lost"] > 0 for r in result["rows"] if r["mode"] != "stock")
    print(f"add-on crawls that lost documents: {counts[True]} of {counts[True] + counts[False]}")
    for row in result["rows"]:
        if refetched := row["summary"]["refetched"]:
            print(
                f"note: {row['server']} {row['order']} {row['mode']} downloaded {len(refetched)} URL(s) more than once:"
            )
            for url, times in sorted(refetched.items())[:5]:
                print(f"note:   {times} x {url}")
    if result["problems"]:
        print("\n!!! PROBLEMS !!!")
        for problem in result["problems"]:
            print(f"!!! {problem}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
