"""Seeded random small webs, and the differential check run on them: stock Scrapy vs the add-on.

``generate(seed)`` builds a :class:`RandomWeb` of 2-5 hosts and 10-60 documents
from ``random.Random(seed)`` alone (same seed, same web, byte for byte). Each
host is one server family with its own random parameters:

- ``apache``: case-sensitive; ``/dir`` -> 301 ``/dir/``; ``/dir/index.html``
  serves the directory's page; sometimes a ``www.`` twin that 301s to the bare
  host (or the bare host 301s to ``www.``); sometimes MultiViews.
- ``iis``: case-insensitive paths; ``default.htm`` / ``default.aspx`` as the
  directory index; ``Server: Microsoft-IIS/10.0``.
- ``nginx``: slash removal: ``/x/`` -> 301 ``/x``.
- ``twin``: ``www.`` and bare serve the same pages, without redirects.
- ``multiviews``: Apache with MultiViews: ``/x`` serves ``/x.html``, naming it
  (``Content-Location: x.html``, and with entity tags the variant's own tag, as
  mod_negotiation does); its pages link mostly without the extension.
- ``trap``: every path served exactly, with look-alike pairs that are different
  documents.

On top of its family, any host may be a catch-all (every unknown path answers
200 with one "not found" body: a soft 404), carry look-alike trap pairs that
are different documents (``/API/`` vs ``/api/``, ``/report`` vs ``/report/``,
``www.h`` vs ``h``, ``/view?sid=1`` vs ``/view?sid=2``, ``/download`` vs
``/download.html``, ``/files/`` vs ``/files/index.html``, and on about 15% of
hosts ``/talks?session=opening-keynote-day-1`` vs ``?session=closing-panel-day-2``;
on 30% of MultiViews hosts ``/status`` is a page of its own beside
``/status.html``, where every other ``/x`` serves ``/x.html``; a quarter of the
hosts with entity tags answer ``304`` to any ``If-None-Match``), redirect loops
(self-redirect, A <-> B, 301 with an empty ``Location``, ``/x`` <-> ``/x/``,
a 302 to itself plus a tracking parameter), moved pages (301 chains to a
document), a session id style (``;jsessionid=`` or ``PHPSESSID``) and true or
lying ``<link rel="canonical">`` tags. Servers ignore tracking and session
parameters. Some webs have menu pages of 100+ links: many spellings of a few
targets.

Links are written the way real pages write them: relative and absolute, with
and without the trailing slash, case variants, ``index.html``, ``www.`` and
bare, tracking parameters, session ids, fragments, ``:80``, and some are
broken. Every variant is checked against the servers' own rules when it is
written, so it reaches the document it means to (or, for broken links,
whatever the server answers).

Served with ``robots=True`` (:func:`serve`), four sites in five also have a
``robots.txt`` (:class:`Robots`, drawn from the seed apart from the web):
directory prefixes, single pages, other spellings, tracking and session
parameters. Stock then misses the documents it forbids, as the add-on may.

Soft-404 pages carry no ``doc-id`` meta, so they are never items: the
comparison is over documents only.

Every document is reachable under stock Scrapy by construction: every page
(but a host's home) is linked, in plain canonical form (absolute, root-relative
or relative, with no redirect on the way), from a parent page of its host that
is itself reachable that way, and a host's home is a start URL or is linked by
its absolute canonical URL from a page of an earlier host. Stock Scrapy fetches
every distinct URL it finds, so it fetches every canonical URL.

The second half of the module runs the comparison: :class:`CrawlOrder` (the
crawl order a seed is crawled in), :class:`PrioritySpider` and :func:`compare`,
shared by ``tests/test_differential.py`` and ``benchmarks/bench_differential.py``.
"""

from __future__ import annotations

import html
import random
import re
import time
import zlib
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy.spiders import SitemapSpider
from w3lib.url import canonicalize_url as _canonicalize_url
from w3lib.url import safe_url_string as _safe_url_string

from .aspnet import AspNetSessions
from .crawling import LinkSpider, RulesSpider, crawl
from .server import (
    METHOD_HEADER,
    NETLOC_HEADER,
    SCHEME_HEADER,
    Dynamic,
    Flaky,
    Hit,
    Lenient,
    Reply,
    Secure,
    Site,
    VirtualWeb,
    request_cookie,
)
from .sitemaps import Sitemaps, sitemap_urls

#: Scrapy's spelling of a link and stock's fingerprint key, remembered: the simulated stock
#: crawls and the generators' self-checks ask both of the same few URLs thousands of times.
safe_url_string = lru_cache(maxsize=1 << 16)(_safe_url_string)
canonicalize_url = lru_cache(maxsize=1 << 16)(_canonicalize_url)

FAMILIES = ("apache", "iis", "nginx", "twin", "multiviews", "trap")
#: www twin modes: no twin, www 301 -> bare, bare 301 -> www, both serve the same, www is another site.
TWIN_MODES = ("none", "to_bare", "to_www", "same", "different")
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
#: What Apache adds to a response MultiViews negotiated (besides ``Content-Location``).
_NEGOTIATED = {"Vary": "negotiate", "TCN": "choice"}
#: Query parameters every server ignores (tracking and session ids).
IGNORED_PARAMS = frozenset({"utm_source", "utm_medium", "utm_campaign", "PHPSESSID", "jsessionid", "fbclid"})
TRACKING = (
    "utm_source=newsletter",
    "utm_source=rss&utm_medium=feed",
    "utm_source=twitter&utm_medium=social&utm_campaign=spring",
    "utm_campaign=launch",
    "fbclid=IwAR2xYz",
)
FRAGMENTS = ("top", "main", "comments", "section-2")

_SECTIONS = ("docs", "news", "products", "blog", "help", "shop", "team", "events", "guides", "press", "support")
_WORDS = ("intro", "guide", "faq", "pricing", "contact", "history", "story", "item", "release", "notes", "setup")
_TRAP_WORDS = ("api", "report", "download", "files", "view", "readme", "archive", "export", "feed", "status")
_FILLER = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
    "Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.",
    "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris.",
    "Duis aute irure dolor in reprehenderit in voluptate velit esse.",
    "Excepteur sint occaecat cupidatat non proident, sunt in culpa.",
)
_DOC_ID = re.compile(rb'<meta name="doc-id" content="([^"]*)">')
#: A link of a rendered page: the tag's start, then its address (HTML-escaped).
_ANCHOR_HREF = re.compile(rb'(<a href=")([^"]*)"')
#: Names sites keep sessions under in URLs where no list of the add-on knows them.
_URL_SESSION_NAMES = ("s", "sess", "visit", "u", "vid", "sk")
_HREF = re.compile(r'<a href="([^"]*)"')
#: A ``<meta http-equiv="refresh">``'s target (every generator writes ``content="N; url=..."``).
_REFRESH = re.compile(r'<meta http-equiv="refresh" content="[^";]*;\s*url=([^"]*)"', re.IGNORECASE)


def render_page(
    doc_id: str, links: list[str], *, canonical: str | None = None, title: str = "", text: str = "", server: str = ""
) -> Reply:
    """A document page: ``doc-id`` meta, optional ``<link rel="canonical">`` in ``<head>``, then its links."""
    esc = html.escape
    head = f'<meta name="doc-id" content="{esc(doc_id)}"><title>{esc(title or doc_id)}</title>'
    if canonical is not None:
        head += f'<link rel="canonical" href="{esc(canonical)}">'
    anchors = "\n".join(f'<li><a href="{esc(href)}">{esc(href)}</a></li>' for href in links)
    body = f"<h1>{esc(title or doc_id)}</h1><p>{esc(text)}</p><ul>\n{anchors}\n</ul>"
    document = f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if server:
        headers["Server"] = server
    return Reply(200, document.encode(), headers)


def doc_id_of(reply: Reply) -> str | None:
    """The document a 200 reply carries (``None`` for soft 404s and anything else)."""
    if reply.status != 200:
        return None
    match = _DOC_ID.search(reply.body)
    return html.unescape(match.group(1).decode()) if match else None


@dataclass
class Page:
    """One document, served at ``http://{host}{path}`` (plus ``?query`` for ``?sid=`` pages)."""

    doc_id: str
    host: str
    path: str
    query: str = ""
    links: list[str] = field(default_factory=list)
    canonical: str | None = None
    lying: bool = False  # the canonical tag names another document, or nothing
    menu: bool = False
    text: str = ""

    @property
    def key(self) -> str:
        return self.path + (f"?{self.query}" if self.query else "")

    @property
    def url(self) -> str:
        return f"http://{self.host}{self.key}"


class TwinHosts:
    """A site's host names from its ``name`` and ``twin`` mode (see :data:`TWIN_MODES`);
    shared by :class:`RandomSite` and :mod:`demoweb.frameworkweb`'s sites."""

    name: str
    twin: str

    @property
    def host(self) -> str:
        """The canonical host: ``www.`` + name when the bare host redirects to ``www.``."""
        return f"www.{self.name}" if self.twin == "to_www" else self.name

    @property
    def other_host(self) -> str | None:
        """The twin's name, if the site has one."""
        if self.twin == "none":
            return None
        return self.name if self.twin == "to_www" else f"www.{self.name}"

    @property
    def hosts(self) -> list[str]:
        return [self.host] + ([self.other_host] if self.other_host else [])


@dataclass
class RandomSite(TwinHosts):
    """One host (and its ``www.`` twin, if any) of one server family, with its parameters."""

    name: str  # the bare host name
    family: str
    twin: str = "none"
    case_insensitive: bool = False
    index_names: tuple[str, ...] = ()
    slash: str = "none"  # "add": /d -> /d/, "remove": /d/ -> /d, "none": exact
    multiviews: bool = False
    catch_all: bool = False
    session: str | None = None  # "jsessionid" (path parameter) or "PHPSESSID" (query)
    server: str = "Apache/2.4.57 (Unix)"
    redirect_status: int = 301
    absolute_location: bool = True
    extension: str = ".html"
    canonical_rate: float = 0.0
    lie_rate: float = 0.0
    #: Entity tags on 200 replies, with 304 for a matching If-None-Match: "none";
    #: "content" (a digest of the body); "file" (Apache/nginx on files of one
    #: modification time, as a package installs them: the size alone, so
    #: different pages of one size share a tag).
    etags: str = "none"
    #: With tags: a naive cache layer that answers ``304`` to any ``If-None-Match``,
    #: whatever the tag (and names none), as some hand-written ones do.
    lying_304: bool = False
    #: An application that reads its query (``generate(query_pages=True)``): parameters
    #: in any order, ``query_ignored`` names ignored (``?ref=nav``), and a parameter at
    #: its ``query_defaults`` value the same as none (``?page=1``, ``?sort=name``).
    parses_query: bool = False
    #: A session kept in the URL, under a name no list knows (``generate(url_sessions=True)``):
    #: an answer to a request without one opens a session, and every link to the site in an
    #: answer carries the request's session (``?s=<token>``); the site ignores the parameter.
    #: As PHP's ``session.use_trans_sid``: each answer to a client that sent no session cookie
    #: also offers the session as one (``s=<token>``), and one that sent it gets plain links.
    url_session: str = ""
    query_ignored: frozenset[str] = frozenset()
    query_defaults: dict[str, str] = field(default_factory=dict)
    #: A top-level directory (``/legacy/``) another backend serves behind the host
    #: (``generate(mixed_sections=True)``), where the site's path rule ``mixed_rule`` does
    #: not hold: "case" (paths served case-sensitively on a case-insensitive site) or
    #: "slash" (``/x`` and ``/x/`` are two documents, no redirect between them).
    mixed_section: str = ""
    mixed_rule: str = ""
    pages: list[Page] = field(default_factory=list)
    traps: list[str] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)
    specials: dict[tuple[str, str], Reply] = field(default_factory=dict)
    _index: dict[tuple[str, str], Page] = field(default_factory=dict, repr=False)

    def fold(self, key: str) -> str:
        if not self.case_insensitive or self.excepted(key, "case"):
            return key
        path, mark, query = key.partition("?")
        return path.lower() + mark + query

    def excepted(self, path: str, rule: str) -> bool:
        """Whether ``path`` lies in the site's mixed section and ``rule`` ("case", "slash") does
        not hold there (the front routes the section's prefix as it matches its own paths)."""
        if not self.mixed_section or self.mixed_rule != rule:
            return False
        return (path.lower() if self.case_insensitive else path).startswith(self.mixed_section)

    def add(self, page: Page) -> Page:
        self.pages.append(page)
        self._index[(page.host, self.fold(page.key))] = page
        return page

    def lookup(self, host: str, key: str) -> Page | None:
        return self._index.get((host, self.fold(key)))

    def has(self, host: str, key: str) -> bool:
        return (host, self.fold(key)) in self._index

    # -- serving ---------------------------------------------------------------------------

    def redirect(self, host: str, target: str, status: int | None = None) -> Reply:
        location = f"http://{host}{target}" if self.absolute_location and target.startswith("/") else target
        return Reply.redirect(location, status or self.redirect_status)

    def render(self, page: Page) -> Reply:
        return render_page(page.doc_id, page.links, canonical=page.canonical, text=page.text, server=self.server)

    def soft_404(self) -> Reply:
        body = (
            "<!DOCTYPE html><html><head><title>Page not found</title></head><body><h1>Sorry!</h1>"
            "<p>The page you are looking for may have been moved, renamed or deleted. "
            "Try the search box or go back to the home page.</p>"
            f'<p><a href="http://{self.host}/">Home</a></p></body></html>'
        )
        return Reply(200, body.encode(), {"Content-Type": "text/html; charset=utf-8", "Server": self.server})

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        session = held = ""
        if self.url_session:
            query, session = self._take_session(query)
            held = request_cookie(headers, self.url_session)
        reply = self._answer(path, query, headers)
        if self.url_session and not held and reply.status == 200 and _DOC_ID.search(reply.body):
            session = session or f"{random.getrandbits(64) | 1 << 63:016x}"
            reply = self._with_session(reply, session)
            reply = replace(reply, headers={**reply.headers, "Set-Cookie": f"{self.url_session}={session}; path=/"})
        if self.etags == "none" or reply.status != 200:
            return reply
        body = reply.body
        tag = f'"{zlib.crc32(body):08x}"' if self.etags == "content" else f'"5f3e2a10-{len(body):x}"'
        if "Content-Location" in reply.headers:  # a negotiated variant's tag is its own (Apache)
            tag = f'{tag[:-1]};{zlib.crc32(path.encode()):x}"'
        wanted = next((value for name, value in headers.items() if name.lower() == "if-none-match"), "")
        if self.lying_304 and wanted:
            return Reply(304, b"", {"Server": self.server})
        if tag in {value.strip().removeprefix("W/") for value in wanted.split(",")}:
            return Reply(304, b"", {"ETag": tag, "Server": self.server})
        return Reply(200, body, {**reply.headers, "ETag": tag})

    def _answer(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower()
        raw_query = query
        if self.twin in ("to_bare", "to_www") and host != self.host:
            return Reply.redirect(f"http://{self.host}{path}" + (f"?{query}" if query else ""), 301)
        reached = host
        if self.twin == "same":
            host = self.host
        if self.session == "jsessionid":
            path = path.split(";", 1)[0]
        query = "&".join(p for p in query.split("&") if p and p.partition("=")[0] not in IGNORED_PARAMS)
        if self.parses_query:
            query = self.parsed_query(query)
        suffix, raw_suffix = (f"?{query}" if query else ""), (f"?{raw_query}" if raw_query else "")
        special = self.specials.get((host, self.fold(path + suffix)))
        if special is not None:
            return special
        page = self.lookup(host, path + suffix)
        if page is not None:
            return self.render(page)
        slash = "none" if self.excepted(path, "slash") else self.slash
        if slash == "add" and not path.endswith("/") and self.has(host, path + "/" + suffix):
            return self.redirect(reached, path + "/" + raw_suffix)
        if slash == "remove" and path.endswith("/") and path != "/" and self.has(host, path[:-1] + suffix):
            return self.redirect(reached, path[:-1] + raw_suffix)
        for name in self.index_names:
            if self.fold(path).endswith("/" + self.fold(name)):
                page = self.lookup(host, path[: -len(name)] + suffix)
                if page is not None:
                    return self.render(page)
        if self.multiviews and not path.endswith("/"):
            page = self.lookup(host, path + ".html" + suffix)
            if page is not None:
                # As Apache's mod_negotiation: it names the file it chose.
                reply = self.render(page)
                name = path.rsplit("/", 1)[-1] + ".html"
                return replace(reply, headers={**reply.headers, **_NEGOTIATED, "Content-Location": name})
        if self.catch_all:
            return self.soft_404()
        return Reply.not_found()

    def _take_session(self, query: str) -> tuple[str, str]:
        """``query`` without the site's session parameter, and the session it named."""
        kept, session = [], ""
        for pair in query.split("&"):
            name, _, value = pair.partition("=")
            if name == self.url_session:
                session = value
            elif pair:
                kept.append(pair)
        return "&".join(kept), session

    def _with_session(self, reply: Reply, session: str) -> Reply:
        """``reply`` with ``session`` in each of its links to this site."""
        own = tuple(f"http://{host}/" for host in self.hosts) + tuple(f"http://{host}:80/" for host in self.hosts)

        def spelled(match: re.Match[bytes]) -> bytes:
            href = html.unescape(match.group(2).decode())
            if href.startswith("//") or ("://" in href and not href.startswith(own)):
                return match.group(0)
            head, mark, fragment = href.partition("#")
            head += ("&" if "?" in head else "?") + f"{self.url_session}={session}"
            return match.group(1) + html.escape(head + mark + fragment).encode() + b'"'

        return replace(reply, body=_ANCHOR_HREF.sub(spelled, reply.body))

    def parsed_query(self, query: str) -> str:
        """``query`` as this application reads it: sorted, without the parameters it
        ignores or that carry their default value."""
        kept = []
        for pair in query.split("&"):
            name, _, value = pair.partition("=")
            if pair and name not in self.query_ignored and self.query_defaults.get(name) != value:
                kept.append(pair)
        return "&".join(sorted(kept))

    def describe(self) -> str:
        flags = [self.family, f"twin={self.twin}" if self.twin != "none" else ""]
        flags += [
            "case-insensitive" if self.case_insensitive else "",
            f"url-session={self.url_session}" if self.url_session else "",
            f"index={'/'.join(self.index_names)}" if self.index_names else "",
            f"slash={self.slash}" if self.slash != "none" else "",
            f"mixed={self.mixed_section}({'case-sensitive' if self.mixed_rule == 'case' else 'no slash redirect'})"
            if self.mixed_section
            else "",
            "multiviews" if self.multiviews else "",
            "catch-all" if self.catch_all else "",
            f"session={self.session}" if self.session else "",
            f"server={self.server.split('/')[0]}",
            f"redirect={self.redirect_status}{'' if self.absolute_location else '(relative)'}",
            f"canonical={self.canonical_rate:.1f}/lie={self.lie_rate:.1f}",
            f"etags={self.etags}{'(lying 304)' if self.lying_304 else ''}" if self.etags != "none" else "",
            f"query(ignores={','.join(sorted(self.query_ignored)) or '-'} defaults="
            f"{','.join(f'{k}={v}' for k, v in sorted(self.query_defaults.items()))})"
            if self.parses_query
            else "",
            f"docs={len(self.pages)}",
            f"traps=[{', '.join(self.traps)}]" if self.traps else "",
            f"loops=[{', '.join(self.loops)}]" if self.loops else "",
        ]
        return f"{self.host:14} " + " ".join(flag for flag in flags if flag)


@dataclass
class RandomWeb:
    """A generated web: ``sites`` for :class:`VirtualWeb`, ``start_urls``, and the ``documents`` reachable."""

    seed: int
    sites: dict[str, Site]
    start_urls: list[str]
    documents: set[str]
    hosts: list[RandomSite]

    @property
    def pages(self) -> list[Page]:
        return [page for site in self.hosts for page in site.pages]

    def describe(self) -> str:
        lines = [
            f"seed {self.seed}: {len(self.hosts)} hosts, {len(self.documents)} documents, "
            f"start {' '.join(self.start_urls)}"
        ]
        lines += [f"  {site.describe()}" for site in self.hosts]
        menus = [f"{page.url} ({len(page.links)} links)" for page in self.pages if page.menu]
        if menus:
            lines.append(f"  menus: {', '.join(menus)}")
        lies = [f"{page.url} -> {page.canonical}" for page in self.pages if page.lying]
        if lies:
            lines.append(f"  lying canonicals: {', '.join(lies)}")
        return "\n".join(lines)

    def fetch(self, url: str, headers: Mapping[str, str] | None = None) -> Reply:
        """What the server answers for ``url`` (with request ``headers``), without HTTP (as
        VirtualWeb routes it)."""
        return route(self.sites, url, headers or {})

    def resolve(self, url: str, hops: int = 20) -> str | None:
        """The document ``url`` ends at after redirects (``None``: 404, soft 404, loop, too many hops)."""
        url = safe_url_string(url)
        for _ in range(hops):
            reply = self.fetch(url)
            if reply.status in REDIRECT_STATUSES and "Location" in reply.headers:
                target = safe_url_string(urljoin(url, reply.headers["Location"]))
                if target.split("#")[0] == url.split("#")[0]:
                    return None
                url = target
                continue
            return doc_id_of(reply)
        return None

    def simulate_stock(self, limit: int = 20_000, allowed: Callable[[str], bool] | None = None) -> tuple[int, set[str]]:
        """(requests, documents) of a stock-Scrapy-like crawl without HTTP: every distinct
        canonicalized URL is fetched once, redirects are followed, every ``<a href>`` too.
        Stock Scrapy's set of fetched URLs does not depend on crawl order, so this predicts
        its request count (up to the 20-redirect limit). Stops after ``limit`` requests.
        ``allowed``: only URLs it allows are fetched (``robots.txt`` obeyed everywhere)."""
        seen: set[str] = set()
        queue: deque[str] = deque()

        def schedule(url: str) -> None:
            url = safe_url_string(url)
            key = canonicalize_url(url)
            if key not in seen:
                seen.add(key)
                queue.append(url)

        for url in self.start_urls:
            schedule(url)
        requests, docs = 0, set()
        while queue and requests < limit:
            url = queue.popleft()
            if allowed is not None and not allowed(url):
                continue
            requests += 1
            target, doc, links = self.visit(url)
            if target is not None:
                schedule(target)
                continue
            if doc:
                docs.add(doc)
            for link in links:
                schedule(link)
        return requests, docs

    def visit(self, url: str) -> tuple[str | None, str | None, list[str]]:
        """What a crawler meets at ``url``: where its redirect leads, else its page's
        document id and the links stock follows (nothing for an error)."""
        reply = self.fetch(url)
        if reply.status in REDIRECT_STATUSES and "Location" in reply.headers:
            return urljoin(url, reply.headers["Location"]), None, []
        if reply.status != 200:
            return None, None, []
        return None, doc_id_of(reply), self.links_of(url, reply.body)

    def collectable(
        self,
        allowed: Callable[[str], bool],
        *,
        depth_limit: int = 0,
        listing: Callable[[str | None], bool] | None = None,
        manual_redirects: bool = False,
        sites: Mapping[str, Site] | None = None,
        limit: int = 50_000,
    ) -> set[str]:
        """The documents some crawl that fetches only what ``allowed`` allows could collect
        as items, whatever its order: more than any crawl collects, never less (a
        document outside it is one no such crawl reaches). Each (URL, callback) is taken
        at the least depth any path gives it: a link one level below its page, a redirect
        and a ``<meta http-equiv="refresh">`` at its request's depth and callback (one
        level below with ``manual_redirects``, the spider's own request), none past
        ``depth_limit``. With ``listing`` (two callbacks: ``listing(doc)`` says whether a
        page's links go to the one that yields items) only those yield items, and start
        requests do not. ``sites``: answered by these (the fronts a crawl order puts before
        the web's own sites, :func:`fronted_sites`), not by the web's own."""
        fetch = self.fetch if sites is None else (lambda url: fetch_from(sites, url))
        best: dict[tuple[str, bool], int] = {}
        queue: deque[tuple[str, int, bool]] = deque()

        def push(url: str, depth: int, item: bool, *, same_level: bool = False) -> None:
            if depth_limit and depth > depth_limit:
                return
            key = (canonicalize_url(safe_url_string(url)), item)
            if best.get(key, depth + 1) <= depth:
                return
            best[key] = depth
            (queue.appendleft if same_level else queue.append)((url, depth, item))

        for url in self.start_urls:
            push(url, 0, listing is None)
        docs: set[str] = set()
        requests = 0
        while queue and requests < limit:
            url, depth, item = queue.popleft()
            if best.get((canonicalize_url(safe_url_string(url)), item)) != depth or not allowed(url):
                continue
            requests += 1
            reply = fetch(url)
            if reply.status in REDIRECT_STATUSES and "Location" in reply.headers:
                target = urljoin(url, reply.headers["Location"])
                push(target, depth + manual_redirects, item, same_level=not manual_redirects)
                continue
            if reply.status != 200:
                continue
            doc = doc_id_of(reply)
            if doc and item:
                docs.add(doc)
            body = reply.body.decode()
            for target in _REFRESH.findall(body):  # (its URL may be quoted: URL='/x')
                push(urljoin(url, html.unescape(target).strip("'\" ")), depth, item, same_level=True)
            child = listing is None or listing(doc)
            for link in self.links_of(url, reply.body):
                push(link, depth + 1, child)
        return docs

    def links_of(self, url: str, body: bytes) -> list[str]:
        """The URLs stock Scrapy follows from a page at ``url``: each ``<a href>``, joined to it."""
        return [urljoin(url, html.unescape(href)) for href in _HREF.findall(body.decode())]

    def check(self) -> list[str]:
        """Generator self-check: each page is served at its canonical URL and every start
        URL is a document; returns the problems found (none expected)."""
        problems = [
            f"{page.url} serves {self.resolve(page.url)}"
            for page in self.pages
            if self.resolve(page.url) != page.doc_id
        ]
        problems += [f"start URL {url} is no document" for url in self.start_urls if self.resolve(url) is None]
        return problems


# -- generation ------------------------------------------------------------------------------


def generate(
    seed: int,
    *,
    hosts: int | None = None,
    documents: int | None = None,
    meta_refresh: bool = False,
    query_pages: bool = False,
    url_sessions: bool = False,
    mixed_sections: bool = False,
) -> RandomWeb:
    """A random small web (2-5 hosts, 10-60 documents) determined by ``seed`` alone;
    ``meta_refresh``: with the ``<meta http-equiv="refresh">`` stubs of :func:`_add_refreshes`;
    ``query_pages``: with the listings, items and posts of :func:`_add_query_pages`;
    ``url_sessions``: about half the hosts keep a session in their links' URLs
    (:attr:`RandomSite.url_session`); ``mixed_sections``: about half the sites with a
    site-wide path rule have a section where it does not hold (:func:`_add_mixed_sections`)."""
    rng = random.Random(seed)
    n_hosts = hosts or rng.randint(2, 5)
    total = documents or rng.randint(10, 60)
    budgets = _split(rng, max(total, 2 * n_hosts), n_hosts)
    sites = [_make_site(rng, index, rng.choice(FAMILIES)) for index in range(n_hosts)]
    # Drawn apart from ``rng``: webs without the trap stay as they were (the salt keeps
    # the seeds of ``tests/test_differential.py``'s ONCE_LOST regression tests as they were too).
    slugs = random.Random(f"{seed}:talk-slugs")
    shadows = random.Random(f"{seed}:negotiation-traps")
    for site, budget in zip(sites, budgets, strict=True):
        shadowed = shadows.random() < 0.3 and site.multiviews
        _add_pages(rng, site, budget, session_slugs=slugs.random() < 0.15, shadowed_page=shadowed)
    by_host: dict[str, Site] = {}
    for site in sites:
        for host in site.hosts:
            by_host[host] = site
    web = RandomWeb(seed, by_host, [], {page.doc_id for site in sites for page in site.pages}, sites)
    writer = _LinkWriter(rng, web)

    # The spanning links: every page from a reachable parent, in plain canonical form.
    for index, site in enumerate(sites):
        home = site.pages[0]
        if index == 0 or rng.random() < 0.35:
            web.start_urls.append(home.url)
        else:
            parent = rng.choice([page for earlier in sites[:index] for page in earlier.pages])
            parent.links.append(home.url)
        placed: dict[str, list[Page]] = {home.host: [home]}
        for page in site.pages[1:]:
            if page.host not in placed:  # the home of a "different" www twin, linked from the bare site
                parent = rng.choice(placed[site.host])
                parent.links.append(page.url)
                placed[page.host] = [page]
                continue
            parent = rng.choice(placed[page.host])
            parent.links.append(writer.plain(parent, page))
            placed[page.host].append(page)

    # Loops, moved pages and broken links, each linked from a page of its host.
    for site in sites:
        for href in _add_specials(rng, site):
            source = rng.choice([page for page in site.pages if page.host == site.host])
            source.links.append(href)

    # Extra links: random targets, mostly written as variants.
    everything = web.pages
    for site in sites:
        for page in site.pages:
            for _ in range(rng.randint(1, 5)):
                target = rng.choice(site.pages) if rng.random() < 0.8 else rng.choice(everything)
                page.links.append(writer.plain(page, target) if rng.random() < 0.35 else writer.variant(page, target))
            if rng.random() < 0.15:
                page.links.append(writer.broken(page))

    # Menus: 100+ spellings of a few targets.
    menus = rng.choice((0, 0, 1, 1, 2))
    for page in rng.sample(everything, min(menus, len(everything))):
        page.menu = True
        site = _site_of(web, page)
        targets = rng.sample(site.pages, min(len(site.pages), rng.randint(3, 6)))
        for _ in range(rng.randint(100, 150)):
            target = rng.choice(targets)
            page.links.append(writer.variant(page, target) if rng.random() < 0.85 else writer.plain(page, target))

    # Canonical tags, true or lying, and the finishing touches.
    for site in sites:
        for page in site.pages:
            roll = rng.random()
            if roll < site.lie_rate:
                page.canonical = writer.lie(page)
                page.lying = page.canonical is not None
            elif roll < site.lie_rate + site.canonical_rate:
                page.canonical = page.url if rng.random() < 0.8 else page.key
            rng.shuffle(page.links)
            page.text = " ".join(rng.sample(_FILLER, 2))
    # Drawn apart from ``rng``, like the traps above: the webs are otherwise as they were.
    tags = random.Random(f"{seed}:entity-tags")
    for site in sites:
        site.etags = tags.choice(("none", "none", "content", "file", "file"))
    liars = random.Random(f"{seed}:lying-304")  # (apart from ``tags``: other webs stay as they were)
    for site in sites:
        site.lying_304 = site.etags != "none" and liars.random() < 0.25
    spanned = web.pages  # (linked plainly from the start URLs: no page of a stub or a listing)
    if meta_refresh:
        _add_refreshes(random.Random(f"{seed}:meta-refresh"), web)
    if query_pages:
        _add_query_pages(random.Random(f"{seed}:query-pages"), web)
    if url_sessions:
        sessions = random.Random(f"{seed}:url-sessions")
        for site in sites:
            if sessions.random() < 0.5:
                site.url_session = sessions.choice(_URL_SESSION_NAMES)
    if mixed_sections:
        _add_mixed_sections(
            random.Random(f"{seed}:mixed-sections"), web, spanned, random.Random(f"{seed}:nested-sections")
        )
    return web


def _refresh_stub(target: str, delay: int, quoted: bool) -> Reply:
    """A ``200`` page that moves the browser on (Scrapy's ``MetaRefreshMiddleware`` follows it)."""
    url = f"'{target}'" if quoted else target
    body = (
        f'<!DOCTYPE html><html><head><meta http-equiv="refresh" content="{delay}; URL={html.escape(url)}">'
        f"<title>Moved</title></head><body><p>This page has moved.</p></body></html>"
    )
    return Reply(200, body.encode(), {"Content-Type": "text/html; charset=utf-8"})


def _add_refreshes(rng: random.Random, web: RandomWeb) -> None:
    """On about half the sites, one to three pages that move on by ``<meta http-equiv=
    "refresh">`` instead of a redirect, as static sites and documentation generators
    write moved pages: to a document (its URL as written anywhere: relative, with a
    tracking parameter, the twin's host), to a document only the stub leads to, to
    itself (a loop), or to a broken URL. A stub may be served at two spellings
    (``/moved-0`` and ``/moved-0/``, one body), each linked from a page of its host."""
    writer = _LinkWriter(rng, web)
    for site in web.hosts:
        if rng.random() < 0.5:
            continue
        documents = [page for page in site.pages if page.host == site.host]
        for number in range(rng.randint(1, 3)):
            path = f"/moved-{number}"
            stub = Page("", site.host, path)
            kind = rng.choice(("page", "page", "only", "self", "broken"))
            if kind == "only":  # a document no link reaches: stock gets it through the stub only
                page = site.add(Page(f"{site.host}/landing-{number}.html", site.host, f"/landing-{number}.html"))
                page.links.append("/")
                page.text = rng.choice(_FILLER)
                web.documents.add(page.doc_id)
                target = writer.plain(stub, page)
            elif kind == "page":
                page = rng.choice(documents)
                target = writer.variant(stub, page) if rng.random() < 0.6 else writer.plain(stub, page)
            elif kind == "self":
                target = path
            else:
                target = f"/gone-{number}.html"
            reply = _refresh_stub(target, rng.choice((0, 0, 1, 5)), rng.random() < 0.3)
            site.specials[(site.host, site.fold(path))] = reply
            hrefs = [path]
            if rng.random() < 0.3:
                site.specials[(site.host, site.fold(path + "/"))] = reply
                hrefs.append(path + "/")
            for href in hrefs:
                source = rng.choice(documents)
                source.links.append(href if rng.random() < 0.7 else f"{href}?utm_source=moved")
            site.loops.append(f"refresh:{kind}")


#: Parameters an application ignores (navigation and referral markers no tracking list names).
_SITE_IGNORED = ("ref", "from", "src", "source", "trk", "origin", "nav")


def _add_query_pages(rng: random.Random, web: RandomWeb) -> None:
    """On about half the sites, documents told apart by their query, as shops, blogs
    and forums serve them, on an application that reads its query (see
    :meth:`RandomSite.parsed_query`): a listing paged by ``?page=n`` (``?page=1`` is
    the listing itself) whose pages list items at ``/item?id=n``; sometimes a second
    order (``?sort=price``; ``?sort=name`` is the default) or language (``?lang=de``;
    ``?lang=en`` is the default); sometimes posts at ``/?p=n`` beside the home page.
    Every parameter but one the site ignores (``?ref=nav``...) names a page of its own
    for some value, so no rule may drop it for all; a third of the listings say every
    page's canonical URL is the first (as misconfigured paginations do)."""
    writer = _LinkWriter(rng, web)
    for site in web.hosts:
        if rng.random() < 0.5:
            continue
        documents = [page for page in site.pages if page.host == site.host]
        extension = site.extension if site.family == "iis" else rng.choice(("", "", ".php"))
        listing_path = f"/{rng.choice(('catalog', 'products', 'list', 'archive', 'forum'))}{extension}"
        item_path = f"/{rng.choice(('item', 'view', 'product', 'topic'))}{extension}"
        if any(site.has(site.host, path) for path in (listing_path, item_path)):
            continue
        site.parses_query = True
        site.query_defaults = {"page": "1"}
        if rng.random() < 0.6:
            site.query_ignored = frozenset(rng.sample(_SITE_IGNORED, rng.randint(1, 2)))
        ignored = sorted(site.query_ignored)

        def doc(path: str, query: str = "", *, site: RandomSite = site) -> Page:
            page = site.add(Page(f"{site.host}{path}{'?' + query if query else ''}", site.host, path, query))
            page.text = rng.choice(_FILLER)
            web.documents.add(page.doc_id)
            return page

        def marked(query: str, *, ignored: list[str] = ignored) -> str:
            """``query`` with an ignored parameter added, before or after (the server reads both)."""
            if not ignored:
                return query
            extra = f"{rng.choice(ignored)}={rng.choice(('nav', 'footer', 'related', 'home', '2'))}"
            parts = [query, extra] if rng.random() < 0.5 else [extra, query]
            return "&".join(filter(None, parts))

        pages = [doc(listing_path)] + [doc(listing_path, f"page={n}") for n in range(2, rng.randint(3, 6))]
        lying = rng.random() < 0.33
        ids = rng.sample(range(1, 1000), rng.randint(3, 3 * len(pages)))
        items = [doc(item_path, f"id={number}") for number in ids]
        # The listing is linked from a page of the site; each page links the next and the previous.
        source = rng.choice(documents)
        source.links.append(writer.plain(source, pages[0]))
        for number, page in enumerate(pages, start=1):
            if number < len(pages):
                page.links.append(rng.choice((f"?page={number + 1}", f"{listing_path}?page={number + 1}")))
            if number > 1:
                previous = f"page={number - 1}"
                page.links.append(rng.choice(("?page=1", listing_path, f"?{previous}", f"?{marked(previous)}")))
                if lying:
                    page.canonical = pages[0].url
                    page.lying = True
        for index, item in enumerate(items):
            listed_on = pages[index % len(pages)]
            listed_on.links.append(writer.plain(listed_on, item))
            item.links.append(f"{listing_path}?{marked('page=1') if rng.random() < 0.5 else 'page=1'}")
            for other in rng.sample(items, min(2, len(items))):
                if other is not item:
                    item.links.append(f"{item_path}?{marked(other.query)}")
            if rng.random() < 0.3:
                item.links.append(writer.variant(item, rng.choice(items)))
        for name, default, other in (("sort", "name", "price"), ("lang", "en", "de")):
            if rng.random() < 0.4:
                site.query_defaults[name] = default
                view = doc(listing_path, f"{name}={other}")
                pages[0].links += [f"?{name}={other}", f"?{name}={default}", f"?{marked(f'{name}={default}')}"]
                view.links.append(f"{listing_path}?{name}={default}")
        if rng.random() < 0.3 and not site.has(site.host, "/?p=1"):
            home = site.pages[0]
            for number in rng.sample(range(2, 200), rng.randint(2, 5)):
                post = doc("/", f"p={number}")
                home.links.append(rng.choice((f"/?p={number}", f"?p={number}", f"./?p={number}")))
                post.links.append(f"/?{marked('')}" if ignored else "/")
        site.loops.append(f"query:{listing_path}({len(pages)} pages, {len(items)} items)")


#: Top-level directories another backend serves behind a site's host (``generate(mixed_sections=True)``).
_MIXED_SECTIONS = ("legacy", "api", "static", "app", "portal", "classic", "v1", "cgi-bin", "old-site", "backend")
_MIXED_WORDS = ("report", "summary", "export", "overview", "data", "results")


def _add_mixed_sections(rng: random.Random, web: RandomWeb, spanned: list[Page], nesting: random.Random) -> None:
    """On about half the sites whose family makes a path rule hold site-wide (IIS:
    case-insensitive paths; Apache and MultiViews: ``/d`` -> ``/d/``; nginx: ``/d/`` ->
    ``/d``), one section where it does not, as when a part of the site is
    served by another backend behind the same host (:meth:`RandomSite.excepted`): a
    top-level one, or (drawn from ``nesting``, half the time where the site has a
    top-level directory of pages) one mounted below the site's busiest top-level
    directory (``/Docs/legacy/``), where the rule holds all around it. On a
    case-insensitive site, the section serves paths case-sensitively: two documents
    whose paths differ by case only (``/legacy/Report.htm`` and ``/legacy/report.htm``,
    or ``/legacy/REPORT/`` and ``/legacy/report/``), and other spellings of its pages'
    paths are 404s. On a slash site, ``/api/x`` and ``/api/x/`` are two documents, no
    redirect between them. Beside the pair, the section's home and one to three pages;
    each is linked plainly from a page of the site, both twins by each other, and the
    section's pages link back to the site in other spellings (case variants...). The rest
    of the site's links, written before, keep teaching the site-wide rule. ``spanned``: the
    pages plain links reach from the start URLs (the only sources and targets taken)."""
    writer = _LinkWriter(rng, web)
    plain = {id(page) for page in spanned}
    for site in web.hosts:
        if site.case_insensitive:
            rule = "case"
        elif site.slash in ("add", "remove"):
            rule = "slash"
        else:
            continue
        if rng.random() < 0.5:
            continue
        taken = [page.path.lower() for page in site.pages] + [key.lower() for _, key in site.specials]
        free = [name for name in _MIXED_SECTIONS if not any(path.startswith(f"/{name}") for path in taken)]
        if not free:
            continue
        name = rng.choice(free)
        tops = Counter(
            page.path.split("/")[1] for page in site.pages if page.host == site.host and page.path.count("/") >= 2
        )
        tops.pop("", None)
        if tops and nesting.random() < 0.5:
            nested = f"{tops.most_common(1)[0][0]}/{name}"
            if not any(path.startswith(f"/{nested.lower()}") for path in taken):
                name = nested
        site.mixed_section, site.mixed_rule = (f"/{name}/".lower() if site.case_insensitive else f"/{name}/"), rule
        outside = [page for page in site.pages if page.host == site.host and id(page) in plain]

        def doc(path: str, *, site: RandomSite = site) -> Page:
            page = site.add(Page(f"{site.host}{path}", site.host, path))
            web.documents.add(page.doc_id)
            return page

        home = doc(f"/{name}" if site.slash == "remove" else f"/{name}/")
        word = rng.choice(_MIXED_WORDS)
        if rule == "case":
            ending = rng.choice((site.extension, "/"))
            twins = [
                doc(f"/{name}/{rng.choice((word.capitalize(), word.upper()))}{ending}"),
                doc(f"/{name}/{word}{ending}"),
            ]
        else:
            twins = [doc(f"/{name}/{word}"), doc(f"/{name}/{word}/")]
            rng.shuffle(twins)
        site.traps.append(f"{twins[0].path} vs {twins[1].path}")
        ordinary = [
            doc(f"/{name}/{stem.capitalize() if site.case_insensitive else stem}-{number}{site.extension}")
            for number, stem in enumerate(rng.sample(_WORDS, rng.randint(1, 3)), start=1)
        ]
        section = [home, *twins, *ordinary]
        source = rng.choice(outside)
        source.links.append(writer.plain(source, home))
        for page in section[1:]:
            source = home if rng.random() < 0.5 else rng.choice(outside)
            source.links.append(writer.plain(source, page))
        twins[0].links.append(writer.plain(twins[0], twins[1]))
        twins[1].links.append(writer.plain(twins[1], twins[0]))
        for page in section:
            page.links.append(writer.plain(page, site.pages[0]))
            for target in rng.sample(outside, min(len(outside), rng.randint(1, 3))):
                page.links.append(writer.variant(page, target))
            if rng.random() < 0.4:
                source = rng.choice(outside)
                source.links.append(writer.variant(source, page))
            if rule == "case" and rng.random() < 0.3:  # a case variant the section answers 404 (or soft 404)
                href = _variant_case(rng, rng.choice(section).path)
                if web.resolve(urljoin(page.url, href)) is None:
                    page.links.append(href)
            if rng.random() < site.canonical_rate:
                page.canonical = page.url
            rng.shuffle(page.links)
            page.text = rng.choice(_FILLER)


def _site_of(web: RandomWeb, page: Page) -> RandomSite:
    site = web.sites[page.host]
    assert isinstance(site, RandomSite)
    return site


def _split(rng: random.Random, total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` random shares of at least 2."""
    shares = [2] * parts
    for _ in range(total - 2 * parts):
        shares[rng.randrange(parts)] += 1
    return shares


def _make_site(rng: random.Random, index: int, family: str) -> RandomSite:
    site = RandomSite(f"h{index}.test", family)
    site.redirect_status = rng.choice((301, 301, 301, 302, 308))
    site.absolute_location = rng.random() < 0.75
    site.catch_all = rng.random() < 0.25
    site.session = rng.choice((None, None, "jsessionid", "PHPSESSID"))
    site.canonical_rate = rng.choice((0.0, 0.5, 0.9))
    site.lie_rate = rng.choice((0.0, 0.0, 0.1, 0.3))
    if family in ("apache", "multiviews"):
        site.slash = "add"
        site.index_names = rng.choice((("index.html",), ("index.html", "index.php")))
        site.twin = rng.choice(("none", "to_bare", "to_www", "same"))
        site.multiviews = family == "multiviews" or rng.random() < 0.2
        site.server = "Apache/2.4.57 (Unix)"
    elif family == "iis":
        site.case_insensitive = True
        site.slash = "add"
        site.index_names = rng.choice((("default.htm",), ("default.aspx",), ("default.htm", "default.aspx")))
        site.twin = rng.choice(("none", "to_bare", "to_www"))
        site.server = "Microsoft-IIS/10.0"
        site.extension = rng.choice((".aspx", ".htm"))
    elif family == "nginx":
        site.slash = "remove"
        site.twin = rng.choice(("none", "to_bare", "to_www"))
        site.server = "nginx/1.24.0"
        site.extension = rng.choice(("", "", ".html"))
    elif family == "twin":
        site.twin = "same"
        site.index_names = rng.choice(((), ("index.html",)))
        site.server = rng.choice(("Apache/2.4.57 (Unix)", "nginx/1.24.0"))
    else:  # trap: everything served exactly
        site.twin = rng.choice(("none", "different"))
        # An IIS front (ARR) for a case-sensitive backend now and then.
        site.server = rng.choice(("nginx/1.24.0", "gunicorn", "Apache/2.4.57 (Unix)", "Microsoft-IIS/10.0"))
        site.extension = rng.choice(("", ".html"))
    return site


def _add_pages(
    rng: random.Random, site: RandomSite, budget: int, *, session_slugs: bool = False, shadowed_page: bool = False
) -> None:
    """The site's documents: home, trap pairs, then sections of pages, ``budget`` in all.
    ``session_slugs``: also a ``?session=`` trap whose values are long slugs (a
    conference's talks), pages of their own that no session-id rule may merge.
    ``shadowed_page`` (MultiViews sites): also ``/x`` and ``/x.html`` as two pages, as
    when a file ``/x`` exists beside ``x.html`` and negotiation never runs for it, while
    every other ``/y`` serves ``/y.html``."""

    def cased(word: str) -> str:
        return word.capitalize() if site.case_insensitive else word

    def doc(path: str, query: str = "", host: str | None = None) -> Page:
        host = host or site.host
        return site.add(Page(f"{host}{path}{'?' + query if query else ''}", host, path, query))

    doc("/")
    trap_count = rng.randint(2, 4) if site.family == "trap" else (1 if rng.random() < 0.3 else 0)
    kinds = ["slash", "sid"]
    if not site.case_insensitive:
        kinds.append("case")
    if site.twin in ("none", "different"):
        kinds.append("www")
    if not site.multiviews:
        kinds.append("extension")
    if not site.index_names:
        kinds.append("index")
    words = list(_TRAP_WORDS)
    rng.shuffle(words)
    for kind in rng.sample(kinds, min(trap_count, len(kinds))):
        word = words.pop()
        if budget - len(site.pages) < 3:
            break
        if kind == "case":
            upper = rng.choice((word.upper(), word.capitalize()))
            ending = "/" if site.slash != "remove" else ""
            doc(f"/{upper}{ending}")
            doc(f"/{word}{ending}")
            site.traps.append(f"/{upper}{ending} vs /{word}{ending}")
        elif kind == "slash":
            doc(f"/{word}")
            doc(f"/{word}/")
            site.traps.append(f"/{word} vs /{word}/")
        elif kind == "sid":
            doc(f"/{word}", "sid=1")
            doc(f"/{word}", "sid=2")
            site.traps.append(f"/{word}?sid=1 vs /{word}?sid=2")
        elif kind == "www":
            site.twin = "different"
            www = f"www.{site.name}"
            if not site.has(www, "/"):
                doc("/", host=www)
            lookalike = rng.choice([page.path for page in site.pages if page.host == site.host and not page.query])
            if not site.has(www, lookalike):
                doc(lookalike, host=www)
            site.traps.append(f"www.{site.name}{lookalike} vs {site.name}{lookalike}")
        elif kind == "extension":
            doc(f"/{word}")
            doc(f"/{word}.html")
            site.traps.append(f"/{word} vs /{word}.html")
        elif kind == "index":
            doc(f"/{word}/")
            doc(f"/{word}/index.html")
            site.traps.append(f"/{word}/ vs /{word}/index.html")
    if session_slugs and budget - len(site.pages) >= 3:
        word = words.pop()
        for value in ("opening-keynote-day-1", "closing-panel-day-2"):
            doc(f"/{word}", f"session={value}")
        site.traps.append(f"/{word}?session=opening-keynote-day-1 vs ?session=closing-panel-day-2")
    if shadowed_page and budget - len(site.pages) >= 3:
        word = words.pop()
        doc(f"/{word}")
        doc(f"/{word}.html")
        site.traps.append(f"/{word} vs /{word}.html")

    sections: list[str] = []
    counter = 0
    used_words = {word for word in _TRAP_WORDS if word not in words}
    while len(site.pages) < budget:
        roll = rng.random()
        free = [s for s in _SECTIONS if s not in sections and s not in used_words]
        if (not sections or roll < 0.25) and free:
            name = rng.choice(free)
            parent = rng.choice(["", *sections]) if sections and rng.random() < 0.3 else ""
            section = f"{parent}/{cased(name)}"
            sections.append(section)
            path = section if site.slash == "remove" else section + "/"
        else:
            counter += 1
            directory = rng.choice(sections) + "/" if sections and roll < 0.9 else "/"
            path = f"{directory}{cased(rng.choice(_WORDS))}-{counter}{site.extension}"
        if not site.has(site.host, path):
            doc(path)


def _add_specials(rng: random.Random, site: RandomSite) -> list[str]:
    """Redirect loops and moved pages on ``site``; returns the hrefs that lead to them."""
    hrefs: list[str] = []
    host = site.host
    documents = [page for page in site.pages if page.host == host]
    for number in range(rng.choice((0, 0, 1, 2))):
        kind = rng.choice(("self", "pair", "empty", "slash", "param"))
        if kind == "self":
            site.specials[(host, site.fold(f"/loop{number}"))] = site.redirect(host, f"/loop{number}")
            hrefs.append(f"/loop{number}")
        elif kind == "pair":
            site.specials[(host, site.fold(f"/ping{number}"))] = site.redirect(host, f"/pong{number}")
            site.specials[(host, site.fold(f"/pong{number}"))] = site.redirect(host, f"/ping{number}")
            hrefs.append(f"/ping{number}")
        elif kind == "empty":
            site.specials[(host, site.fold(f"/empty{number}"))] = Reply(301, b"", {"Location": ""})
            hrefs.append(f"/empty{number}")
        elif kind == "slash":
            site.specials[(host, site.fold(f"/flip{number}"))] = site.redirect(host, f"/flip{number}/")
            site.specials[(host, site.fold(f"/flip{number}/"))] = site.redirect(host, f"/flip{number}")
            hrefs.append(f"/flip{number}" + rng.choice(("", "/")))
        else:
            site.specials[(host, site.fold(f"/track{number}"))] = site.redirect(
                host, f"/track{number}?utm_source=loop", 302
            )
            hrefs.append(f"/track{number}")
        site.loops.append(kind)
    for number in range(rng.choice((0, 1, 2))):
        target = rng.choice(documents)
        site.specials[(host, site.fold(f"/old/{number}"))] = site.redirect(host, target.key)
        if rng.random() < 0.5:
            site.specials[(host, site.fold(f"/go/{number}"))] = site.redirect(host, f"/old/{number}")
            hrefs.append(f"/go/{number}")
        else:
            hrefs.append(f"/old/{number}")
        site.loops.append(f"moved->{target.key}")
    return hrefs


def _relative(source: str, target: str) -> str:
    """``target`` (a path) as a relative reference from the page at path ``source``."""
    base = source.split("/")[1:-1]
    parts = target.split("/")[1:]
    common = 0
    while common < min(len(base), len(parts) - 1) and base[common] == parts[common]:
        common += 1
    ref = "../" * (len(base) - common) + "/".join(parts[common:])
    if not ref:
        return "./"
    if ":" in ref.split("/")[0]:
        return "./" + ref
    return ref


def _variant_case(rng: random.Random, path: str) -> str:
    choice = rng.random()
    if choice < 0.4:
        return path.upper()
    if choice < 0.7:
        return path.lower()
    return "/".join(part[:1].upper() + part[1:] for part in path.split("/"))


_ROBOTS_PARAMS = ("/*?utm_", "/*utm_source=", "/*;jsessionid", "/*PHPSESSID", "/*fbclid", "/*?sid=", "/*?session=")


def robots_txt(rng: random.Random, site: RandomSite) -> str | None:
    """A ``robots.txt`` for ``site`` (``None``: it has none), written as sites write
    them: directory prefixes with and without the slash, single pages (sometimes
    anchored with ``$``), another spelling of a path than the pages link (case,
    slash, ``index.html``), tracking and session parameters, an ``Allow`` carved out
    of a disallowed directory, and a group for another robot that must not apply."""
    if rng.random() < 0.2:
        return None
    paths = [page.path for page in site.pages[1:]] or ["/"]
    rules: list[str] = []
    for _ in range(rng.randint(1, 4)):
        path = rng.choice(paths)
        directory = path.rsplit("/", 1)[0] + "/" if path.count("/") > 1 else path
        kind = rng.choice(("dir", "prefix", "page", "anchored", "case", "slash", "index", "params", "allow"))
        if kind == "dir":
            rules.append(f"Disallow: {directory}")
        elif kind == "prefix":  # ``/docs`` also covers ``/docs/``, ``/docs.html``, ``/docsearch``
            rules.append(f"Disallow: {directory.rstrip('/') or '/x'}")
        elif kind == "page":
            rules.append(f"Disallow: {path}")
        elif kind == "anchored":
            rules.append(f"Disallow: {path}$")
        elif kind == "case":
            rules.append(f"Disallow: {_variant_case(rng, directory)}")
        elif kind == "slash":
            rules.append(f"Disallow: {path[:-1] if path.endswith('/') and path != '/' else path + '/'}$")
        elif kind == "index":
            rules.append(rng.choice(("Disallow: /*index.html$", "Disallow: /index.html", "Disallow: /*default.htm")))
        elif kind == "params":
            rules.append(f"Disallow: {rng.choice(_ROBOTS_PARAMS)}")
        elif path != directory:
            rules += [f"Allow: {path}", f"Disallow: {directory}"]
    other = ["User-agent: Googlebot", "Disallow: /", ""] if rng.random() < 0.3 else []
    return "\n".join([*other, "User-agent: *", *rules, ""])


def allowed_domains(web: RandomWeb, seed: int) -> list[str]:
    """A spider's ``allowed_domains`` for ``web``, drawn from ``seed``, as people write
    them: mostly the bare name (its ``www.`` twin included), sometimes one spelling of
    a twin only (``www.h1.test``: the bare twin is then offsite), sometimes not the
    site at all; never empty."""
    rng = random.Random(f"{seed}:allowed-domains")
    allowed: list[str] = []
    for site in web.hosts:
        roll = rng.random()
        if roll < 0.55:
            allowed.append(site.name)
        elif roll < 0.8:
            allowed.append(site.host)
        elif roll < 0.9:
            allowed.append(site.other_host or site.name)
    return allowed or [web.hosts[0].name]


class Robots:
    """``site`` with the ``/robots.txt`` :func:`robots_txt` draws from ``salt``
    (on every host of the site; without one, the site answers as it would)."""

    def __init__(self, site: RandomSite, salt: str) -> None:
        self.site = site
        self.text = robots_txt(random.Random(f"{salt}:{site.name}"), site)

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        redirecting = self.site.twin in ("to_bare", "to_www") and headers.get("Host", "").lower() != self.site.host
        if path == "/robots.txt" and self.text is not None and not redirecting:  # a twin redirects it
            return Reply(200, self.text.encode(), {"Content-Type": "text/plain", "Server": self.site.server})
        return self.site.handle(path, query, headers)


def robots_rules(web: RandomWeb) -> Callable[[str], bool]:
    """Whether the ``robots.txt`` :func:`serve` gives each site (``--robots``) lets Scrapy
    fetch a URL (a site without one allows everything)."""
    from protego import Protego  # (Scrapy's default robots.txt parser)

    parsers = {}
    for site in web.hosts:
        text = Robots(site, f"{web.seed}:robots").text
        parsers[id(site)] = None if text is None else Protego.parse(text)

    def allows(url: str) -> bool:
        site = web.sites.get((urlsplit(url).hostname or "").lower())
        parser = None if site is None else parsers[id(site)]
        return parser is None or parser.can_fetch(url, "Scrapy")

    return allows


class _LinkWriter:
    """Spells links to pages the way pages do, checking each spelling against the servers."""

    def __init__(self, rng: random.Random, web: RandomWeb) -> None:
        self.rng = rng
        self.web = web

    def spell(self, source: Page, host: str, path: str, query: str, *, form: str, port: bool = False) -> str:
        suffix = f"?{query}" if query else ""
        if form == "relative" and host == source.host:
            return _relative(source.path, path) + suffix
        if form == "root" and host == source.host:
            return path + suffix
        return f"http://{host}{':80' if port else ''}{path}{suffix}"

    def reaches(self, source: Page, href: str, target: Page) -> bool:
        return self.web.resolve(urljoin(source.url, href)) == target.doc_id

    def plain(self, source: Page, target: Page) -> str:
        """The target's canonical URL, absolute, root-relative or relative: no redirect on the way."""
        form = self.rng.choice(("absolute", "root", "relative", "relative"))
        href = self.spell(source, target.host, target.path, target.query, form=form)
        if urljoin(source.url, href) != target.url:
            href = target.url
        return href

    def variant(self, source: Page, target: Page) -> str:
        """A spelling that is not the canonical URL but reaches the same document (else a plain one)."""
        site = _site_of(self.web, target)
        rng = self.rng
        for _ in range(4):
            host, path, query = target.host, target.path, target.query
            options = ["tracking", "fragment", "port"]
            if site.other_host and site.twin != "different" and target.host == site.host:
                options += ["twin", "twin"]
            if site.slash == "add" and path.endswith("/") and path != "/":
                options += ["slash", "slash"]
            if site.slash == "remove" and not path.endswith("/") and path != "/":
                options += ["slash", "slash"]
            if site.index_names and path.endswith("/"):
                options += ["index", "index"]
            if site.case_insensitive:
                options += ["case", "case", "case"]
            if site.multiviews and path.endswith(".html"):
                options += ["multiviews"] * (6 if site.family == "multiviews" else 2)
            if site.session:
                options.append("session")
            chosen = set(rng.sample(options, rng.choice((1, 1, 1, 2, 2, 3))))
            fragment = ""
            if "twin" in chosen:
                host = site.other_host or host
            if "slash" in chosen:
                path = path[:-1] if path.endswith("/") else path + "/"
            if "multiviews" in chosen:
                path = path.removesuffix(".html")
            if "index" in chosen and path.endswith("/"):
                name = rng.choice(site.index_names)
                path += _variant_case(rng, name) if site.case_insensitive else name
            if "case" in chosen:
                path = _variant_case(rng, path)
            if "tracking" in chosen:
                query = "&".join(filter(None, [query, rng.choice(TRACKING)]))
            if "session" in chosen:
                token = f"{rng.getrandbits(64):016X}"
                if site.session == "jsessionid":
                    path += f";jsessionid={token}"
                else:
                    query = "&".join(filter(None, [query, f"PHPSESSID={token.lower()}"]))
            if "fragment" in chosen:
                fragment = "#" + rng.choice(FRAGMENTS)
            form = rng.choice(("absolute", "root", "relative")) if host == source.host else "absolute"
            href = self.spell(source, host, path, query, form=form, port="port" in chosen) + fragment
            if urljoin(source.url, href) != target.url and self.reaches(source, href, target):
                return href
        return self.plain(source, target)

    def broken(self, source: Page) -> str:
        """A link to nothing: a missing page, a case variant on a case-sensitive host, a
        ``www.`` host that does not exist. The server answers 404 or a soft 404."""
        site = _site_of(self.web, source)
        rng = self.rng
        for _ in range(4):
            roll = rng.random()
            if roll < 0.4:
                href = f"/missing-{rng.randrange(1000)}{site.extension}"
            elif roll < 0.7:
                href = _variant_case(rng, rng.choice(site.pages).path)
            elif roll < 0.85:
                href = f"http://www.{site.name}{rng.choice(site.pages).path}"
            else:
                href = f"../{rng.choice(_WORDS)}/"
            if self.web.resolve(urljoin(source.url, href)) is None:
                return href
        return f"/missing-{rng.randrange(1000)}"

    def lie(self, page: Page) -> str | None:
        """A canonical URL that is not this document: the www twin, the ``/k/`` (or ``/k``)
        form, the home page, a sibling. ``None`` when no lie is at hand."""
        site = _site_of(self.web, page)
        www = f"www.{site.name}" if page.host == site.name else site.name
        candidates = [
            f"http://{www}{page.key}",
            f"http://{page.host}{page.path[:-1] if page.path.endswith('/') else page.path + '/'}",
            f"http://{page.host}/",
            self.rng.choice(site.pages).url,
        ]
        candidates = [url for url in candidates if url != page.url and self.web.resolve(url) != page.doc_id]
        return self.rng.choice(candidates) if candidates else None


# -- the comparison ---------------------------------------------------------------------------


class PrioritySpider(LinkSpider):
    """LinkSpider that gives every followed link a random priority, seeded by the
    ``RANDOMWEB_PRIORITY_SEED`` setting."""

    name = "links-priority"
    _rng: random.Random | None = None

    def follow(self, response: scrapy.http.Response, href: str, callback: Any) -> scrapy.Request:
        if self._rng is None:
            self._rng = random.Random(self.settings.getint("RANDOMWEB_PRIORITY_SEED"))
        return super().follow(response, href, callback).replace(priority=self._rng.randint(-5, 5))


class SitemapLinkSpider(SitemapSpider, LinkSpider):
    """:class:`~demoweb.crawling.LinkSpider` that also reads the sitemaps the
    ``DEMOWEB_SITEMAP_URLS`` setting names (``robots.txt`` or sitemap URLs), as a
    ``SitemapSpider`` does: their pages go to ``parse``, which follows links as ever."""

    name = "links-sitemaps"

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SitemapLinkSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.sitemap_urls = crawler.settings.getlist("DEMOWEB_SITEMAP_URLS")
        return spider

    async def start(self) -> AsyncIterator[Any]:
        async for request in super().start():  # SitemapSpider's: the sitemaps
            yield request
        for url in self.start_urls:  # as Spider.start does
            yield scrapy.Request(url, dont_filter=True)


class SitemapPrioritySpider(SitemapLinkSpider, PrioritySpider):
    """:class:`SitemapLinkSpider` whose followed links get random seeded priorities."""

    name = "links-sitemaps-priority"


@dataclass(frozen=True)
class CrawlOrder:
    """The crawl order a seed is crawled in (both crawls, stock and add-on, use it)."""

    fifo: bool  # breadth-first FIFO queues instead of Scrapy's default LIFO
    concurrency: int
    priorities: bool  # PrioritySpider: random seeded priorities on followed links
    jobdir: bool
    seed: int = 0
    #: With ``jobdir``: the add-on crawl is stopped cleanly this many times, at
    #: random points, and resumed from its ``JOBDIR`` (stock runs through).
    stops: int = 0
    #: With ``jobdir``: the add-on crawl is killed (``SIGKILL``) this many times, at
    #: random points, and resumed (see :mod:`demoweb.killed`; stock runs through).
    kills: int = 0
    #: The add-on crawl is this many scrapy-redis workers at once, sharing one Redis
    #: (see :mod:`demoweb.distributed`; 0: one ordinary crawl). With ``kills``, workers
    #: are killed and restarted instead of the one crawl; stock runs through alone.
    redis_workers: int = 0
    #: Both crawls meet a flaky server (:class:`demoweb.server.Flaky`: some URLs
    #: fail a few times, with a ``503`` or a dropped connection) and retry as
    #: Scrapy does by default.
    flaky: bool = False
    #: Both crawls stop following links this deep (``DEPTH_LIMIT``; 0: no limit), so
    #: stock misses documents too: the add-on must miss none stock collects.
    depth_limit: int = 0
    #: Both crawls obey ``robots.txt`` (``ROBOTSTXT_OBEY``), and most hosts have one
    #: (:class:`Robots`), so stock misses documents too.
    robots: bool = False
    #: The spider has ``allowed_domains`` (:func:`allowed_domains`), so Scrapy's
    #: ``OffsiteMiddleware`` keeps both crawls off some hosts or some twins.
    offsite: bool = False
    #: The web has ``<meta http-equiv="refresh">`` stubs (``generate(meta_refresh=True)``),
    #: which Scrapy's ``MetaRefreshMiddleware`` follows as redirects.
    refresh: bool = False
    #: The spider has two callbacks, and only one yields items (``LinkSpider``,
    #: ``DEMOWEB_CALLBACKS_SEED``), so stock misses documents too.
    callbacks: bool = False
    #: The spider is a ``CrawlSpider`` whose item rule matches some spellings only
    #: (:class:`~demoweb.crawling.RulesSpider`), so stock misses documents too.
    rules: bool = False
    #: About half the hosts render every answer anew, with a token of its own
    #: (:class:`~demoweb.server.Dynamic`): no two answers of a page are byte-identical.
    dynamic: bool = False
    #: About half the hosts answer a one-step redirect's target as a ``200`` in its place
    #: (:class:`~demoweb.server.Lenient`): ``/x`` and ``/x/``, ``www.h`` and ``h`` alike.
    lenient: bool = False
    #: The web has documents told apart by their query (``generate(query_pages=True)``):
    #: paged listings, items by id, sort orders, languages, posts at ``/?p=n``.
    params: bool = False
    #: About half the hosts keep a session in their links' URLs (``generate(url_sessions=True)``).
    sessions: bool = False
    #: About half the sites with a site-wide path rule have a section where it does not hold
    #: (``generate(mixed_sections=True)``): case-sensitive under IIS, no slash redirect under
    #: Apache or nginx.
    mixed: bool = False
    #: About half the hosts are HTTPS sites (:class:`~demoweb.server.Secure`): most redirect
    #: ``http://`` to ``https://``, the others serve both; pages spell some links ``https://``.
    https: bool = False
    #: About half the sites publish sitemaps (:mod:`demoweb.sitemaps`), and the spider reads
    #: them beside the links (:class:`SitemapLinkSpider`): other spellings, stale entries,
    #: pages only a sitemap names.
    sitemaps: bool = False
    #: Both crawls keep cookies (``COOKIES_ENABLED``, Scrapy's default; off otherwise, so
    #: that every answer is a function of the URL): sites that offer a session as a cookie
    #: (Tomcat, ``--sessions`` hosts) stop writing it into the links of a client that keeps it,
    #: and about half the IIS hosts run ASP.NET sessions (:class:`~demoweb.aspnet.AspNetSessions`).
    cookies: bool = False
    #: Scrapy settings both crawls get on top of the order's own (``CONCURRENT_REQUESTS_PER_DOMAIN``,
    #: ``REDIRECT_ENABLED``...): a user's project differs from ours in more than the order.
    shared_settings: dict[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def from_seed(cls, seed: int) -> CrawlOrder:
        """Bits of ``seed % 16``: any 16 consecutive seeds cover every combination."""
        bits = seed % 16
        return cls(bool(bits & 1), 16 if bits & 2 else 1, bool(bits & 4), bool(bits & 8), seed)

    @property
    def name(self) -> str:
        return "-".join(
            filter(
                None,
                [
                    "fifo" if self.fifo else "lifo",
                    f"c{self.concurrency}",
                    "prio" if self.priorities else "",
                    "jobdir" if self.jobdir else "",
                    f"stops{self.stops}" if self.jobdir and self.stops else "",
                    f"kills{self.kills}" if (self.jobdir or self.redis_workers) and self.kills else "",
                    f"redis{self.redis_workers}" if self.redis_workers else "",
                    "flaky" if self.flaky else "",
                    f"depth{self.depth_limit}" if self.depth_limit else "",
                    "robots" if self.robots else "",
                    "offsite" if self.offsite else "",
                    "refresh" if self.refresh else "",
                    "callbacks" if self.callbacks else "",
                    "rules" if self.rules else "",
                    "dynamic" if self.dynamic else "",
                    "lenient" if self.lenient else "",
                    "params" if self.params else "",
                    "sessions" if self.sessions else "",
                    "mixed" if self.mixed else "",
                    "https" if self.https else "",
                    "sitemaps" if self.sitemaps else "",
                    "cookies" if self.cookies else "",
                ],
            )
        )

    @property
    def spider(self) -> type[scrapy.Spider]:
        if self.rules:
            if self.sitemaps:
                raise ValueError("a CrawlSpider (rules) that reads sitemaps is not one of the orders")
            return RulesSpider
        if self.sitemaps:
            return SitemapPrioritySpider if self.priorities else SitemapLinkSpider
        return PrioritySpider if self.priorities else LinkSpider

    def settings(self, jobdir: Path | None) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "CONCURRENT_REQUESTS": self.concurrency,
            "DOWNLOAD_DELAY": 0,
            "LOG_LEVEL": "WARNING",
            "RANDOMWEB_PRIORITY_SEED": self.seed,
        }
        if self.fifo:
            settings |= {
                "DEPTH_PRIORITY": 1,
                "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
                "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
            }
        if self.jobdir and jobdir is not None:
            settings["JOBDIR"] = str(jobdir)
        if self.flaky:
            settings["RETRY_ENABLED"] = True  # Scrapy's default, two retries
        if self.depth_limit:
            settings["DEPTH_LIMIT"] = self.depth_limit
        if self.robots:
            settings["ROBOTSTXT_OBEY"] = True
        if self.cookies:
            settings["COOKIES_ENABLED"] = True
        if self.offsite:
            settings["DEMOWEB_ALLOWED_DOMAINS"] = allowed_domains(generate(self.seed), self.seed)
        if self.callbacks:
            settings["DEMOWEB_CALLBACKS_SEED"] = str(self.seed)
        if self.rules:
            settings |= {"DEMOWEB_RULES_SEED": str(self.seed), "DEMOWEB_RULES_PRIORITIES": self.priorities}
        if self.shared_settings.get("HTTPCACHE_ENABLED") and jobdir is not None:
            settings["HTTPCACHE_DIR"] = f"{jobdir}.httpcache"  # each crawl its own (the web's hosts recur)
        return settings | self.shared_settings


ADDON: dict[str, Any] = {"ADDONS": {"scrapy_urlnorm.Addon": 0}}
#: A stalled crawl ends with reason ``closespider_timeout`` (and fails the comparison).
#: Generous: a stock crawl of ~300 requests takes ~5 s alone but has taken 60 s on a
#: machine loaded eight times over; runaways are caught by CLOSESPIDER_PAGECOUNT instead.
TIMEOUT_GUARD = 240


@dataclass
class CrawlSummary:
    doc_ids: list[str]  # one per 200 response carrying a document
    requests: int  # downloader/request_count
    finish_reason: str | None
    seconds: float
    stats: dict[str, Any]
    #: Pages downloaded again at a URL that answered one already (``None``: not counted,
    #: a crawl in several runs). Stock does it for ``h:80/x`` beside ``h/x`` (its
    #: fingerprint keeps the port); the add-on should never.
    urls_twice: int | None = None
    #: The URLs each document was collected at (a single crawl; empty for one in several runs).
    urls_of: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: Hosts (and ports, as requests spelled them) whose ``robots.txt`` this crawl asked
    #: for, and those that answered it (see :func:`robots_answered`).
    robots_asked: frozenset[str] = frozenset()
    robots_answered: frozenset[str] = frozenset()
    #: Requests the server had answered when each kill or stop came (``--kills``,
    #: ``--stops``; else empty): a crawl run again starts with an empty cookie jar.
    restarted_at: tuple[int, ...] = ()

    @property
    def docs(self) -> set[str]:
        return set(self.doc_ids)

    @property
    def redundancy(self) -> float:
        """1 - distinct documents / 200 responses with a document."""
        return 1 - len(self.docs) / len(self.doc_ids) if self.doc_ids else 0.0


@dataclass
class Comparison:
    seed: int
    order: CrawlOrder
    web: RandomWeb
    stock: CrawlSummary
    addon: CrawlSummary
    #: What a stock crawl needs on this web without failures (``--flaky``: stock may
    #: give up on a start URL the add-on's second chance gets through).
    baseline: int = 0
    #: Documents the add-on did not collect that a stock crawl in another order misses
    #: too, with cookies on (:func:`stock_misses_in_other_orders`). Not counted as lost.
    cookie_luck: frozenset[str] = frozenset()

    @property
    def request_limit(self) -> int:
        return 3 * max(self.stock.requests, self.baseline) + 20

    @property
    def lost(self) -> set[str]:
        return self.stock.docs - self.addon.docs - self.robots_luck - self.offsite_luck - self.cookie_luck

    @cached_property
    def offsite_luck(self) -> set[str]:
        """Documents the add-on did not collect that stock collected only at URLs on hosts
        its spider's ``allowed_domains`` leaves out, neither a start URL nor where a start
        URL redirects (``--offsite --flaky``). Scrapy's offsite filter lets a request past
        only with ``dont_filter``, which a start request carries, and a retry: a flaky
        answer retried, and the redirect it then led to, reach a host the spider leaves
        out (seed 149594: ``www.h0.test/x?utm_source=...`` failed stock once, and its retry
        was redirected to the offsite ``h0.test/x``; the add-on fetched the same URL, met
        no failure, and its redirect was filtered, as every other one to ``h0.test`` was in
        both crawls). Which crawl meets a failure is the flaky server's luck, not a drop.
        Not counted as lost, reported apart."""
        if not (self.order.offsite and self.order.flaky):
            return set()
        missing = self.stock.docs - self.addon.docs - self.robots_luck
        if not missing:
            return set()
        allowed = [domain.lower() for domain in allowed_domains(self.web, self.seed)]

        def offsite(url: str) -> bool:
            host = (urlsplit(url).hostname or "").lower()
            return not any(host == domain or host.endswith(f".{domain}") for domain in allowed)

        started: set[str] = set()  # start URLs and where their redirects lead (dont_filter too)
        for url in self.web.start_urls:
            for _ in range(20):
                started.add(url)
                reply = self.web.fetch(url)
                if reply.status not in REDIRECT_STATUSES or "Location" not in reply.headers:
                    break
                url = urljoin(url, reply.headers["Location"])
        urls_of = self.stock.urls_of
        return {
            doc
            for doc in missing
            if urls_of.get(doc) and all(offsite(url) and url not in started for url in urls_of[doc])
        }

    @cached_property
    def robots_luck(self) -> set[str]:
        """Documents the add-on did not collect that stock collected only because a
        ``robots.txt`` it asked for failed, where the add-on's own crawl was given that
        ``robots.txt`` (``--robots --flaky``). Scrapy crawls a host (and port) whose
        ``robots.txt`` fails as if it had none; a flaky server fails a file its first few
        times, so which crawl meets the failure depends on how often and in which order
        it asks (a resumed crawl asks again), not on what it dropped. Such a document:
        the site's ``robots.txt`` forbids every URL stock collected it at, and the add-on
        was given the ``robots.txt`` of every host stock collected it on; or no crawl that
        obeys the ``robots.txt`` the add-on was given, and no other, reaches it (linked only
        from pages those forbid, or linked for the callback that yields items only from
        them or too deep for ``DEPTH_LIMIT``: :meth:`RandomWeb.collectable`, through the
        order's own fronts, refresh pages and lenient hosts included; kitchen-sink seeds
        174558 and 174575, ``h2.test/blog/`` and ``/list?page=2``). Where the add-on never
        asked (it merged ``h:80`` into ``h``) or was not answered either, it is counted lost, except on ``h:80`` where
        stock was not given that robots.txt either and the add-on, resumed, was given
        ``h``'s, the same file of the same origin: whether the add-on asked ``h:80`` for
        another URL and met a failure too does not matter, it read the page's links at
        ``h`` (seed 148347 of ``--kills 2 --flaky --robots``). The same on ``h.`` (a
        trailing dot, which the add-on merges into ``h`` as it does ``:80``: coincidence
        seed 1177 of the same flags, ``routes1.test./help/pricing``). A crawl in one run asks each
        as stock does and meets the same failures, so only a resumed one can differ. Not
        counted as lost, reported apart."""
        if not (self.order.robots and self.order.flaky):
            return set()
        missing = self.stock.docs - self.addon.docs
        if not missing:
            return set()
        allows, told = robots_rules(self.web), self.addon.robots_answered
        resumed = self.order.redis_workers or (self.order.jobdir and (self.order.stops or self.order.kills))
        stock_not_told = self.stock.robots_asked - self.stock.robots_answered

        def forbidden_but_told(url: str) -> bool:
            parts = urlsplit(url)
            netloc = parts.netloc.lower()
            origin = netloc.removesuffix(":80").rstrip(".")
            if resumed and netloc != origin and netloc in stock_not_told and netloc not in told:
                # Neither crawl was told h:80 (or h.): judged by h's robots.txt.
                netloc, url = origin, parts._replace(netloc=origin).geturl()
            return not allows(url) and netloc in told

        urls_of = self.stock.urls_of
        luck = {doc for doc in missing if urls_of.get(doc) and all(map(forbidden_but_told, urls_of[doc]))}
        # Linked only from forbidden pages: not reached by a crawl that obeys the robots.txt
        # the add-on was given, and no other (every host and port it was not told is open).
        # (not with sitemaps: pages only a sitemap names are beyond this search)
        if missing - luck and not self.order.sitemaps:

            def obeyed_as_told(url: str) -> bool:
                return allows(url) or urlsplit(url).netloc.lower() not in told

            order = self.order
            seed = str(order.seed)
            reachable = self.web.collectable(
                obeyed_as_told,
                # (no ASP.NET cookie front: without a jar, its probes never reach the page;
                # the sites answer the pages it guards plainly, which reaches more, not less)
                sites=fronted_sites(self.web, replace(order, flaky=False, cookies=False)),
                depth_limit=order.depth_limit,
                # (as LinkSpider.page draws a page's callback, from its doc-id, None too)
                listing=(lambda doc: random.Random(f"{seed}:{doc}").random() < 0.5) if order.callbacks else None,
                manual_redirects=bool(order.shared_settings.get("DEMOWEB_MANUAL_REDIRECTS")),
            )
            luck |= {doc for doc in missing - luck if doc not in reachable}
        return luck

    def sanity_problems(self) -> list[str]:
        """Stock Scrapy collects every document, by construction of the web."""
        problems = []
        # A flaky server may fail every spelling of a page more often than stock retries,
        # and a depth limit or robots.txt keeps stock from documents by design.
        order = self.order
        limited = order.flaky or order.depth_limit or order.robots or order.offsite or order.callbacks or order.rules
        # (pages only a sitemap names are documents the web's own list leaves out)
        extra = self.stock.docs - self.web.documents if not order.sitemaps else set()
        if (self.web.documents - self.stock.docs or extra) and not limited:
            problems.append(
                f"stock missed {sorted(self.web.documents - self.stock.docs)}, "
                f"extra {sorted(self.stock.docs - self.web.documents)}"
            )
        if self.stock.finish_reason != "finished":
            problems.append(f"stock finish_reason={self.stock.finish_reason}")
        return problems

    def problems(self) -> list[str]:
        """Where the add-on breaks the promise on this web and order."""
        problems = []
        if self.lost:
            problems.append(f"lost {len(self.lost)} document(s): {sorted(self.lost)}")
        if self.addon.finish_reason != "finished":
            problems.append(f"finish_reason={self.addon.finish_reason}")
        if errors := self.addon.stats.get("urlnorm/internal_errors"):
            problems.append(f"{errors} internal error(s) in the add-on's bookkeeping (logged)")
        if self.addon.requests > self.request_limit:
            problems.append(
                f"{self.addon.requests} requests > 3 x {self.stock.requests} (stock) + 20 = {self.request_limit}"
            )
        return problems

    def report(self) -> str:
        return (
            f"seed {self.seed} order {self.order.name}: stock {self.stock.requests} requests "
            f"{len(self.stock.docs)} docs; add-on {self.addon.requests} requests {len(self.addon.docs)} docs "
            f"({self.addon.finish_reason})\n{self.web.describe()}"
        )


#: Runs of each concurrent crawl order in :func:`stock_misses_in_other_orders`.
TIMING_RUNS = 3

#: A comparison, of either generator's webs.
C = TypeVar("C", bound=Comparison)


def serve(web: RandomWeb, order: CrawlOrder | None = None) -> VirtualWeb:
    """``web`` on a fresh server, with the fronts ``order`` asks for (:func:`fronted_sites`)."""
    return VirtualWeb(web.sites if order is None else fronted_sites(web, order))


def route(sites: Mapping[str, Site], url: str, headers: Mapping[str, str]) -> Reply:
    """What the site of ``url``'s host among ``sites`` answers it, with request ``headers``
    (``Host`` set from the URL), without HTTP (as :class:`VirtualWeb` routes it)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".").lower()
    site = sites.get(host)
    if site is None:
        return Reply.not_found()
    return site.handle(parts.path or "/", parts.query, {**headers, "Host": host})


def fetch_from(sites: Mapping[str, Site], url: str) -> Reply:
    """What ``sites`` answer a ``GET`` for ``url``, with the headers :class:`VirtualWeb` adds
    (the netloc and scheme it was reached at: the fronts read them)."""
    parts = urlsplit(url)
    return route(sites, url, {NETLOC_HEADER: parts.netloc.lower(), SCHEME_HEADER: parts.scheme, METHOD_HEADER: "GET"})


def fronted_sites(web: RandomWeb, order: CrawlOrder) -> Mapping[str, Site]:
    """``web``'s sites behind the fronts ``order`` asks for: ``robots``, each
    site with the ``robots.txt`` :class:`Robots` draws from the seed; ``dynamic``, about
    half the sites render each answer anew (:class:`~demoweb.server.Dynamic`); ``lenient``,
    about half serve a page where they would redirect by one step (:class:`~demoweb.server.Lenient`);
    ``flaky``, behind :class:`~demoweb.server.Flaky` fronts (failures drawn from the
    seed, counted per server), which may fail a ``robots.txt`` too; ``cookies``, about
    half the IIS hosts run ASP.NET sessions (:class:`~demoweb.aspnet.AspNetSessions`)."""
    sites: Mapping[str, Site] = web.sites
    if order.robots:
        fronts_r = {id(site): Robots(site, f"{web.seed}:robots") for site in web.hosts}
        sites = {host: fronts_r[id(site)] for host, site in sites.items()}
    if order.sitemaps:
        fronts_m: dict[int, Sitemaps] = {}
        for host, site in web.sites.items():  # (one front per site: twins share it)
            if id(site) not in fronts_m:
                fronts_m[id(site)] = Sitemaps(sites[host], web, site)
        sites = {host: fronts_m[id(site)] for host, site in web.sites.items()}
    if order.cookies:  # (robots.txt and sitemaps are no pages of its)
        fronts_a = {id(site): AspNetSessions(site, f"{web.seed}:aspnet") for site in sites.values()}
        sites = {host: fronts_a[id(site)] for host, site in sites.items()}
    if order.lenient:
        fronts_l = {id(site): Lenient(site, f"{web.seed}:lenient") for site in sites.values()}
        sites = {host: fronts_l[id(site)] for host, site in sites.items()}
    if order.dynamic:
        fronts_d = {id(site): Dynamic(site, f"{web.seed}:dynamic") for site in sites.values()}
        sites = {host: fronts_d[id(site)] for host, site in sites.items()}
    if order.https:
        fronts_s = {id(site): Secure(site, f"{web.seed}:https") for site in sites.values()}
        sites = {host: fronts_s[id(site)] for host, site in sites.items()}
    if order.flaky:
        fronts = {id(site): Flaky(site, f"{web.seed}:flaky") for site in sites.values()}
        sites = {host: fronts[id(site)] for host, site in sites.items()}
    return sites


async def crawl_web(
    web: RandomWeb,
    order: CrawlOrder,
    extra: Mapping[str, Any],
    jobdir: Path | None,
    *,
    page_guard: int = 0,
    server: VirtualWeb | None = None,
) -> CrawlSummary:
    """One crawl of ``web`` in ``order``, ``extra`` settings on top, on ``server`` (else a fresh one)."""
    settings = {**order.settings(jobdir), "CLOSESPIDER_TIMEOUT": TIMEOUT_GUARD, **extra}
    if page_guard:
        settings["CLOSESPIDER_PAGECOUNT"] = page_guard
    started = time.perf_counter()
    if server is None:
        with serve(web, order) as fresh:
            result = await crawl(fresh, web.start_urls, settings, spider=order.spider)
            hits = fresh.hits
    else:
        first = len(server.hits)
        result = await crawl(server, web.start_urls, settings, spider=order.spider)
        hits = server.hits[first:]
    stats = result.stats
    urls_of: dict[str, set[str]] = {}
    for item in result.items:
        urls_of.setdefault(item["doc_id"], set()).add(item["url"])
    return CrawlSummary(
        result.doc_ids,
        int(stats.get("downloader/request_count", 0)),
        stats.get("finish_reason"),
        time.perf_counter() - started,
        stats,
        urls_twice(hits),
        {doc: frozenset(urls) for doc, urls in urls_of.items()},
        *robots_answered(hits),
    )


def web_settings(web: RandomWeb, order: CrawlOrder) -> dict[str, Any]:
    """Settings both crawls of ``web`` get from the web itself: with ``order.sitemaps``,
    the sitemaps (or ``robots.txt`` files) the spider is given."""
    if not order.sitemaps:
        return {}
    return {"DEMOWEB_SITEMAP_URLS": sitemap_urls(web)}


def robots_answered(hits: Iterable[Hit]) -> tuple[frozenset[str], frozenset[str]]:
    """The hosts (with the port a request spelled) whose ``robots.txt`` a crawl asked for,
    and those it was given: answered, or redirected to a host whose ``robots.txt`` was
    answered (a ``www.`` twin redirects it to its site's other name). A ``5xx`` or a
    dropped connection (every try) is no answer: Scrapy then crawls the host as if it
    had no ``robots.txt``."""
    asked, answered, redirected = set(), set(), set()
    for hit in hits:
        if hit.target == "/robots.txt":
            netloc = hit.netloc or hit.host
            asked.add(netloc)
            if hit.status in REDIRECT_STATUSES:
                redirected.add(netloc)
            elif hit.status < 500:
                answered.add(netloc)
    hosts = {netloc.rsplit(":", 1)[0] for netloc in answered}
    answered |= {netloc for netloc in redirected if twin_of(netloc.rsplit(":", 1)[0]) in hosts}
    return frozenset(asked), frozenset(answered)


def twin_of(host: str) -> str:
    return host.removeprefix("www.") if host.startswith("www.") else f"www.{host}"


DEFAULT_PORT = {"http": "80", "https": "443"}


def urls_twice(hits: Iterable[Hit]) -> int:
    """Pages (``200`` to a ``GET``) downloaded at a URL that had answered one already
    (``h:8080/x`` is not ``h/x``; ``h:80/x`` is)."""
    seen: set[tuple[str, str, str, str]] = set()
    again = 0
    for hit in hits:
        if hit.status != 200 or hit.method != "GET":
            continue
        port = hit.netloc.rpartition(":")[2]
        if not port.isdigit() or port == DEFAULT_PORT.get(hit.scheme):
            port = ""
        url = (hit.scheme, hit.host, port, hit.target)
        again += url in seen
        seen.add(url)
    return again


async def crawl_with_stops(
    web: RandomWeb, order: CrawlOrder, extra: Mapping[str, Any], jobdir: Path, *, page_guard: int
) -> CrawlSummary:
    """The crawl of :func:`crawl_web`, stopped cleanly ``order.stops`` times
    (``CLOSESPIDER_PAGECOUNT``, at points drawn from the seed) and resumed from
    its ``JOBDIR``, on one server: its runs summed up as one crawl."""
    rng = random.Random(order.seed)
    doc_ids: list[str] = []
    requests, seconds = 0, 0.0
    restarted_at: list[int] = []
    with serve(web, order) as server:
        for run in range(order.stops + 1):
            last = run == order.stops
            pages = max(1, page_guard - requests) if last else rng.randint(1, max(1, page_guard // (10 * order.stops)))
            summary = await crawl_web(web, order, extra, jobdir, page_guard=pages, server=server)
            doc_ids += summary.doc_ids
            requests += summary.requests
            seconds += summary.seconds
            if summary.finish_reason != "closespider_pagecount":
                break
            restarted_at.append(len(server.hits))
        asked, answered = robots_answered(server.hits)
    return CrawlSummary(
        doc_ids,
        requests,
        summary.finish_reason,
        seconds,
        summary.stats,
        robots_asked=asked,
        robots_answered=answered,
        restarted_at=tuple(restarted_at),
    )


async def compare(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> Comparison:
    """Crawl ``generate(seed)`` with stock Scrapy, then with the add-on, in the seed's crawl order.

    The add-on crawl gets ``CLOSESPIDER_PAGECOUNT`` = 3 x stock requests + 40 as a runaway
    guard: a crawl that reaches it has sent more requests than the comparison allows anyway,
    so the guard only makes that failure quick (its finish reason says so)."""
    order = order or CrawlOrder.from_seed(seed)
    web = generate(
        seed,
        meta_refresh=order.refresh,
        query_pages=order.params,
        url_sessions=order.sessions,
        mixed_sections=order.mixed,
    )
    both = web_settings(web, order)
    stock = await crawl_web(web, order, both, workdir / "stock")
    settings = {**ADDON, **both, **(addon_settings or {})}
    baseline = web.simulate_stock()[0] if order.flaky else 0
    guard = 3 * max(stock.requests, baseline) + 40
    addon = await crawl_restarted(web, order, settings, workdir / "addon", guard, stock.requests)
    if addon is None:
        addon = await crawl_web(web, order, settings, workdir / "addon", page_guard=guard)
    return await told_from_cookie_luck(Comparison(seed, order, web, stock, addon, baseline), both, workdir)


async def crawl_restarted(
    web: RandomWeb, order: CrawlOrder, settings: dict[str, Any], jobdir: Path, guard: int, stock_requests: int
) -> CrawlSummary | None:
    """The add-on's crawl where ``order`` runs it in more than one go: as Redis workers, or
    stopped or killed and resumed (``None``: one ordinary crawl, the caller's to run)."""
    expected = max(1, stock_requests // 3)
    if order.redis_workers:
        from .distributed import crawl_distributed  # (it imports this module)

        return await crawl_distributed(web, order, settings, jobdir, page_guard=guard, expected=expected)
    if order.jobdir and order.kills:
        from .killed import crawl_with_kills  # (it imports this module)

        return await crawl_with_kills(web, order, settings, jobdir, page_guard=guard, expected=expected)
    if order.jobdir and order.stops:
        return await crawl_with_stops(web, order, settings, jobdir, page_guard=guard)
    return None


def span_sites(rng: random.Random, web: RandomWeb, sites: Sequence[Any], pen: Any) -> None:
    """The spanning links of a web of ``sites`` (each with ``pages``, its home first, and
    ``natural_links(pen, rng)``): every page linked from a reachable parent of its site as
    ``pen.plain(parent, page)`` writes it; each home a start URL, or linked by its URL from
    a page of an earlier site. Shared by the frameworks and wild generators."""
    for index, site in enumerate(sites):
        home = site.pages[0]
        if index == 0 or rng.random() < 0.35:
            web.start_urls.append(home.url)
        else:
            parent = rng.choice([page for earlier in sites[:index] for page in earlier.pages])
            parent.links.append(home.url)
        placed = [home]
        for page in site.pages[1:]:
            parent = rng.choice(placed)
            parent.links.append(pen.plain(parent, page))
            placed.append(page)
        site.natural_links(pen, rng)


@dataclass
class FamilyComparison(Comparison):
    """A comparison with requests, pages and documents tallied per family of host."""

    #: family -> {"stock_requests": ..., "addon_requests": ..., "stock_pages": ..., "stock_docs": ...}
    families: dict[str, dict[str, int]] = field(default_factory=dict)


F = TypeVar("F", bound=FamilyComparison)


def tally(
    family: Callable[[RandomWeb, str], str],
    web: RandomWeb,
    hits: Iterable[Any],
    doc_ids: list[str],
    side: str,
    out: dict[str, dict[str, int]],
) -> None:
    """Count ``side``'s requests (server ``hits``), pages and documents per ``family`` of host into ``out``."""
    for hit in hits:
        row = out.setdefault(family(web, hit.host), {})
        row[f"{side}_requests"] = row.get(f"{side}_requests", 0) + 1
    for doc in doc_ids:
        row = out.setdefault(family(web, doc.split("/", 1)[0]), {})
        row[f"{side}_pages"] = row.get(f"{side}_pages", 0) + 1
    for doc in set(doc_ids):
        row = out.setdefault(family(web, doc.split("/", 1)[0]), {})
        row[f"{side}_docs"] = row.get(f"{side}_docs", 0) + 1


async def compare_by_family(
    web: RandomWeb,
    seed: int,
    workdir: Path,
    addon_settings: Mapping[str, Any] | None,
    order: CrawlOrder,
    *,
    family: Callable[[RandomWeb, str], str],
    comparison: type[F],
    serving: Callable[[RandomWeb, CrawlOrder], VirtualWeb] | None = None,
) -> F:
    """:func:`compare` on another generator's ``web``, with its requests, pages and documents
    tallied per ``family`` of host where a crawl runs on one server (``serving``, default
    :func:`serve`; not with stops, kills or Redis workers). With ``order.offsite`` both crawls
    get this web's ``allowed_domains``."""
    serving = serving or serve
    both: dict[str, Any] = web_settings(web, order)
    if order.offsite:
        both["DEMOWEB_ALLOWED_DOMAINS"] = allowed_domains(web, seed)
    families: dict[str, dict[str, int]] = {}
    with serving(web, order) as server:
        stock = await crawl_web(web, order, both, workdir / "stock", server=server)
        tally(family, web, server.hits, stock.doc_ids, "stock", families)
    settings = {**ADDON, **both, **(addon_settings or {})}
    baseline = web.simulate_stock()[0] if order.flaky else 0
    guard = 3 * max(stock.requests, baseline) + 40
    restarted = await crawl_restarted(web, order, settings, workdir / "addon", guard, stock.requests)
    if restarted is not None:
        addon = restarted
        tally(family, web, [], addon.doc_ids, "addon", families)
    else:
        with serving(web, order) as server:
            addon = await crawl_web(web, order, settings, workdir / "addon", page_guard=guard, server=server)
            tally(family, web, server.hits, addon.doc_ids, "addon", families)
    result = comparison(seed, order, web, stock, addon, baseline, families=families)
    return await told_from_cookie_luck(result, both, workdir)


async def told_from_cookie_luck(comparison: C, both: Mapping[str, Any], workdir: Path) -> C:
    """``comparison`` with its :attr:`~Comparison.cookie_luck`: what it would count lost
    that :func:`stock_misses_in_other_orders` finds stock misses too."""
    stock, addon = comparison.stock, comparison.addon
    missing = stock.docs - addon.docs - comparison.robots_luck - comparison.offsite_luck
    # A kill or stop empties the add-on's cookie jar: stock's is emptied as far into its crawl.
    resets = [round(n * stock.requests / max(addon.requests, 1)) for n in addon.restarted_at]
    luck = await stock_misses_in_other_orders(comparison.web, comparison.order, both, workdir, missing, resets)
    return replace(comparison, cookie_luck=luck) if luck else comparison


async def stock_misses_in_other_orders(
    web: RandomWeb,
    order: CrawlOrder,
    both: Mapping[str, Any],
    workdir: Path,
    missing: set[str],
    cookie_resets: Sequence[int] = (),
) -> frozenset[str]:
    """Of ``missing`` (documents stock collected and the add-on did not), those a stock
    crawl of ``web`` misses too in another of the 16 crawl orders, with cookies on.

    With cookies, what a page links to depends on the order of the crawl: a site that
    writes its session into the links of a client without its cookie (Tomcat's
    ``;jsessionid=``, ``--sessions`` hosts) gives the first page a crawl asks for session
    spellings and every later one plain links, and a ``CrawlSpider``'s item rule matches
    only one of the two. Which page of a host comes first is the crawl order's luck; the
    add-on, fetching fewer pages, and killed or stopped (a killed crawl loses its cookie
    jar, stock's as well), meets another first page than stock (seed 164846 of
    ``--rules --cookies --sessions``, stock misses the same 11 documents in 6 of the 16
    orders; frameworks seed 584409 of ``--rules --cookies --kills 2``, stock misses
    ``tomcat2.test/app/events-tips.html`` in every ``lifo-c1`` order of Scrapy 2.14+). Judged only with
    cookies on, and on the web without failures, kills or stops (``--flaky``'s luck is
    not cookies' luck): a loss that needs those stays a loss. With a depth limit (which
    depends on the order too) only the jar's emptying is judged, in the add-on's own
    order: a resumed crawl meets ASP.NET's cookieless redirects again (``/`` to
    ``?AspxAutoDetectCookieSupport=1`` to ``/(S(session))/``), each a level deeper for a
    spider that follows redirects itself, and links below them are cut (quirks seed 2047,
    every condition, one kill or stop: ``sharepoint0.test/``). At concurrency 16 the order is also the timing's: whether
    a host's cookie is in the jar when the next request to it leaves, so stock collects
    more or fewer documents from one run to the next (seed 165459, ``fifo-c16``: 45 to 49
    of its 55), and such an order is crawled :data:`TIMING_RUNS` times. A killed or
    stopped crawl loses its cookie jar, which stock's never does here (frameworks seed 584409, random
    165545 of ``--rules --cookies --sessions --kills 2``): with ``cookie_resets`` (response
    counts), stock's jar is emptied at those points too (:class:`~demoweb.crawling.CookieJarResets`),
    kills' luck being cookies' luck. Stock is crawled again only where something is missing."""
    if not (order.cookies and missing) or (order.depth_limit and not cookie_resets):
        return frozenset()
    missed: set[str] = set()
    calm = replace(order, flaky=False, stops=0, kills=0, redis_workers=0)
    if cookie_resets:
        both = {**both, "DEMOWEB_COOKIE_RESETS": list(cookie_resets)}
    for bits in [order.seed] if order.depth_limit else range(16):
        drawn = CrawlOrder.from_seed(bits)  # (any 16 consecutive seeds draw every order)
        other = replace(
            calm, fifo=drawn.fifo, concurrency=drawn.concurrency, priorities=drawn.priorities, jobdir=drawn.jobdir
        )
        for run in range(TIMING_RUNS if other.concurrency > 1 else 1):
            summary = await crawl_web(web, other, both, workdir / f"stock-order{bits}-{run}")
            missed |= missing - summary.docs
            if missed == missing:
                return frozenset(missed)
    return frozenset(missed)
