"""A second, independent generator of seeded random webs: hosts that answer as real frameworks and platforms do.

:mod:`demoweb.randomweb` draws its hosts from server families (Apache, IIS,
nginx, twins, MultiViews, traps) written by the people who wrote the add-on, so
the two may share blind spots. This module draws them instead from how the
application frameworks and hosting platforms most sites run on answer, each rule
taken from their documentation or source, so that a rule the add-on learns from
one family's redirects or identical pages meets families whose rules differ:

- ``django`` (``CommonMiddleware``, ``APPEND_SLASH``): ``/x`` -> 301 ``/x/``
  (relative ``Location``, query kept) only when ``/x/`` matches a URL pattern,
  else 404; case-sensitive; list views read ``?page=`` (``page=1`` is the list,
  ``page=last`` the last page, anything else a 404), other views ignore the
  query; sometimes ``PREPEND_WWW`` (bare -> 301 ``www.``), sometimes
  ``i18n_patterns`` (``/about/`` -> 302 ``/en/about/``, ``/de/about/`` another
  document), sometimes ``ConditionalGetMiddleware`` (strong tags, 304).
- ``rails``: ``/posts/1``, ``/posts/1.html``, ``/posts/1/`` and, as
  ``Post.find("1-title")`` reads the id, ``/posts/1-any-title`` serve one page
  without a redirect; ``/posts/1.json`` is JSON; case-sensitive; ``public/``
  files behind nginx ``try_files $uri $uri/index.html $uri.html``; weak
  ``Rack::ETag`` tags; ``?locale=de`` another document.
- ``express``: routes case-insensitive (``/About``) and non-strict (``/about/``)
  by default, route parameters matched exactly; ``express.static`` before the
  router is case-sensitive, redirects ``/docs`` -> 301 ``/docs/``, serves
  ``docs/index.html`` at ``/docs/``, and with ``extensions: ['html']`` serves
  ``guide.html`` at ``/guide``; ``Cannot GET`` 404s, or an SPA fallback (every
  unknown path a 200 app shell).
- ``wordpress``: permalinks (``/%year%/%monthnum%/%postname%/``,
  ``/%postname%/``, or plain ``/?p=N``); ``redirect_canonical``: ``/slug`` ->
  301 ``/slug/``, ``/?p=N``, ``/?page_id=N``, ``/?cat=N`` -> 301 permalink,
  case variants -> 301, ``/page/1/`` -> 301 ``/``, the other host -> 301,
  ``/slug/`` -> 301 the dated permalink and a 404 guessed by slug prefix;
  ``/index.php/slug/`` (PATH_INFO) and ``?replytocom=N`` serve the page;
  ``/feed/`` an RSS feed; ``/page/2/`` another document; true canonical tags.
- ``netlify`` (Pretty URLs): ``/x`` serves ``x.html``, ``/x.html`` and
  ``/x/`` -> 301 ``/x``, ``/d`` and ``/d/index.html`` -> 301 ``/d/``; 404.html
  or an SPA rewrite (the home page at every unknown path).
- ``cfpages`` (Cloudflare Pages): the same with 308s, ``/d/index`` and
  ``/index`` too; without a 404.html every unknown path serves the home page.
- ``ghpages`` (GitHub Pages, Jekyll): ``/x`` serves ``x.html`` and so does
  ``/x.html``, with no redirect; ``/d`` -> 301 ``/d/`` (absolute); ``/x/`` a
  404; case-sensitive; ``www.`` <-> apex 301; mtime-size entity tags, so pages
  of one size share a tag.
- ``s3`` (Amazon S3 website endpoint): keys case-sensitive; ``/d`` -> 302
  ``/d/`` when ``d/index.html`` exists and ``d`` does not, ``/d/index.html``
  served; a key ``docs`` beside ``docs/index.html`` is another object; an
  object's ``x-amz-website-redirect-location`` a 301; missing keys a 404 error
  document or 403 AccessDenied; the ``www.`` bucket redirects all requests.
- ``tomcat``: a context path (``/shop``): ``/shop`` -> 302 ``/shop/``, ``/``
  -> 302 ``/shop/`` from ROOT, welcome files (``/shop/index.jsp`` is
  ``/shop/``), ``/shop/catalog`` -> 302 ``/shop/catalog/``; path parameters
  (``;jsessionid=...``) ignored when mapping, and ``encodeURL`` writing the
  session id into most links of a page for a client without cookies (a new id
  per first visit); an answer that opens a session offers it as a ``JSESSIONID``
  cookie too, and a client that returns it gets links without one;
  ``product.jsp?id=N`` documents by id.
- ``laravel``: its ``.htaccess`` sends ``/x/`` -> 301 ``/x`` unless ``x`` is a
  real directory in ``public/`` (Apache's own 301 ``/docs`` -> ``/docs/``
  then), ``/index.php/x`` serves ``/x``, the paginator writes ``?page=1`` and
  reads a bad page as the first; sometimes a ``Route::fallback`` soft 404.
- ``nextjs`` (Vercel): ``trailingSlash`` false: ``/x/`` -> 308 ``/x``, true:
  ``/x`` -> 308 ``/x/`` (files with an extension exempt); ``cleanUrls``:
  ``/x.html`` -> 308 ``/x``; domain redirects are 308s too.

On top of its family a host may carry traps a real site has: distinct pages
that look like spellings of one another (``/Search/`` and ``/search/`` on a
case-sensitive host, ``/docs`` and ``/docs/``, ``/report`` and ``/report.html``
where no suffix is stripped, ``?lang=de`` beside ``?lang=en``), moved pages (301)
and temporary moves (302), redirects to another host, soft 404s.

Links are written the way such sites write them (WordPress and Laravel absolute,
Rails and Django root-relative, static sites relative), and as variants:
another case where the host folds case, the slash toggled, ``.html`` added or
dropped, ``index.html``, ``/index.php/``, ``?replytocom=``, ``/?p=N``, a Rails
id with another title, ``;jsessionid=``, the other host, tracking parameters,
fragments, ``:80``. Every variant is checked against the servers when it is
written: it reaches the document it means to, or, for broken links, none.

Every document is reachable by stock Scrapy by construction, as in
:mod:`demoweb.randomweb`: each page but a host's home is linked in canonical
form (the URL that serves it with a 200, no redirect) from a page of its host
that is itself reached that way, and each home is a start URL or linked by its
canonical URL from an earlier host's page. Stock Scrapy fetches every distinct
URL it meets, so it fetches every canonical URL. Every body is a function of the
request alone (a Tomcat session id is drawn from the URL that opened it, or named by
the request's cookie).

The web is a :class:`~demoweb.randomweb.RandomWeb` whose hosts are
:class:`FrameworkSite` objects presenting what :class:`RandomSite` presents
(``handle``, ``host``, ``hosts``, ``twin``, ``pages``, ``describe``...), so
``serve``, :class:`~demoweb.randomweb.Robots`, ``allowed_domains``,
:class:`CrawlOrder` and the fronts of :mod:`demoweb.server` run unchanged on it;
:func:`compare_frameworks` is :func:`~demoweb.randomweb.compare` on this web.
"""

from __future__ import annotations

import hashlib
import html
import random
import re
import zlib
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from .randomweb import (
    FRAGMENTS,
    TRACKING,
    CrawlOrder,
    FamilyComparison,
    Page,
    RandomWeb,
    TwinHosts,
    _relative,
    compare_by_family,
    render_page,
    span_sites,
)
from .server import Reply, request_cookie

FAMILIES = (
    "django",
    "rails",
    "express",
    "wordpress",
    "netlify",
    "cfpages",
    "ghpages",
    "s3",
    "tomcat",
    "laravel",
    "nextjs",
)
_WORDS = (
    "intro",
    "guide",
    "pricing",
    "history",
    "story",
    "release",
    "notes",
    "setup",
    "install",
    "roadmap",
    "careers",
    "security",
    "privacy",
    "terms",
    "partners",
    "changelog",
    "community",
    "press",
    "events",
    "faq",
)
_TOPICS = ("hello", "launch", "update", "review", "summer", "winter", "recap", "tips", "howto", "deep", "news")
_FILLER = (
    "Pellentesque habitant morbi tristique senectus et netus et malesuada fames.",
    "Vestibulum ante ipsum primis in faucibus orci luctus et ultrices posuere.",
    "Curabitur blandit tempus porttitor, nulla vitae elit libero a pharetra.",
    "Aenean lacinia bibendum nulla sed consectetur, cras mattis consectetur purus.",
    "Maecenas faucibus mollis interdum, donec ullamcorper nulla non metus auctor.",
)
_FEED = (
    '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>{title}</title>'
    "<link>{link}</link><description>Just another WordPress site</description></channel></rss>"
)


def _page_html(title: str, body: str, server: str, status: int = 200) -> Reply:
    text = f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title></head><body>{body}</body></html>"
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if server:
        headers["Server"] = server
    return Reply(status, text.encode(), headers)


def _with_query(path: str, query: str) -> str:
    return path + (f"?{query}" if query else "")


def _case_variants(path: str) -> list[str]:
    parts = path.split("/")
    return [path.upper(), path.lower(), "/".join(p[:1].upper() + p[1:] for p in parts)]


class FrameworkSite(TwinHosts):
    """One host (and its ``www.`` twin, if any) of one framework family.

    Subclasses draw their parameters (``configure``), build their documents
    (``build``) and answer a request on the canonical host (``answer``); this
    class does what they share: the twin redirect, moved pages (``specials``),
    views that read some query parameters, conditional GETs, rendering."""

    family = "base"
    #: How this family's templates write a link to one of its own pages: weights of
    #: (absolute, root-relative, relative).
    styles = (1, 3, 1)
    #: Status of the redirect from the non-canonical twin host.
    twin_status = 301

    def __init__(self, name: str, rng: random.Random) -> None:
        self.name = name
        self.twin = "none"  # "none", "to_bare", "to_www" (a 301 to the other), "same" (both serve)
        self.server = ""
        self.extra_headers: dict[str, str] = {}
        #: "none"; "strong" (a digest of the body); "weak" (``W/``); "mtime" (build time and
        #: size, as nginx tags files: pages of one size share a tag).
        self.etags = "none"
        self.built = rng.randrange(0x5F000000, 0x66000000)
        self.pages: list[Page] = []
        #: (host, path) -> the view there: its documents by normalized query.
        self.views: dict[tuple[str, str], dict[str, Page]] = {}
        #: (host, path) -> the query parameters the view reads, with their default value
        #: (``None``: no default) and whether a value it has no page for falls back to it.
        self.reads: dict[tuple[str, str], dict[str, str | None]] = {}
        self.lenient_values: set[tuple[str, str]] = set()
        #: (host, path) -> a fixed answer (moved pages, temporary moves, other hosts).
        self.specials: dict[tuple[str, str], Reply] = {}
        self.traps: list[str] = []
        self.loops: list[str] = []
        self.knobs: list[str] = []
        self.soft = False  # unknown paths answer 200 (soft 404 or app shell)
        self.configure(rng)

    # -- what RandomSite presents -----------------------------------------------------------

    def describe(self) -> str:
        flags = [self.family, f"twin={self.twin}" if self.twin != "none" else "", *self.knobs]
        flags += [
            "soft-404" if self.soft else "",
            f"etags={self.etags}" if self.etags != "none" else "",
            f"docs={len(self.pages)}",
            f"traps=[{', '.join(self.traps)}]" if self.traps else "",
            f"moves=[{', '.join(self.loops)}]" if self.loops else "",
        ]
        return f"{self.host:22} " + " ".join(flag for flag in flags if flag)

    # -- building ------------------------------------------------------------------------------

    def configure(self, rng: random.Random) -> None:
        raise NotImplementedError

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        raise NotImplementedError

    def add(
        self, path: str, query: str = "", *, reads: Mapping[str, str | None] | None = None, lenient: bool = False
    ) -> Page:
        """A document served at ``path`` (+ ``query``, as the view reads it) on the canonical host."""
        page = Page(f"{self.host}{_with_query(path, query)}", self.host, path, query)
        page.text = " ".join(random.Random(page.doc_id).sample(_FILLER, 2))
        self.pages.append(page)
        key = (self.host, path)
        self.views.setdefault(key, {})[query] = page
        if reads is not None:
            self.reads[key] = {**self.reads.get(key, {}), **reads}
        if lenient:
            self.lenient_values.add(key)
        return page

    def has(self, path: str) -> bool:
        return (self.host, path) in self.views

    def spellings(self, page: Page) -> list[str]:
        """Other URLs this family may serve ``page`` at (checked by the caller)."""
        return []

    def natural_links(self, pen: LinkPen, rng: random.Random) -> None:
        """The links a page of this family always has (pagination, language switch...)."""

    # -- serving ------------------------------------------------------------------------------

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower()
        if self.twin in ("to_bare", "to_www") and host != self.host:
            return Reply.redirect(f"http://{self.host}{_with_query(path, query)}", self.twin_status)
        if self.twin == "same":
            host = self.host
        special = self.specials.get((host, path))
        reply = special if special is not None else self.answer(host, path, query)
        return self.conditional(reply, path, headers)

    def answer(self, host: str, path: str, query: str) -> Reply:
        raise NotImplementedError

    def view(self, host: str, path: str, query: str) -> Page | None:
        """The document the view at ``path`` renders for ``query`` (``None``: there is no view
        there, or it has no document for these values)."""
        table = self.views.get((host, path))
        if table is None:
            return None
        reads = self.reads.get((host, path), {})
        kept: dict[str, str] = {}
        for name, value in parse_qsl(query, keep_blank_values=True):
            if name not in reads:
                continue
            kept.pop(name, None)
            if value != reads[name]:
                kept[name] = value
        key = urlencode(sorted(kept.items()))
        if key in table:
            return table[key]
        if (host, path) in self.lenient_values:  # ``parseInt(page) || 1``: a value it cannot read is the default
            kept = {name: value for name, value in kept.items() if value.isdigit()}
            return table.get(urlencode(sorted(kept.items())))
        return None

    def render(self, page: Page, path: str, query: str) -> Reply:
        reply = render_page(
            page.doc_id, self.hrefs(page, path, query), canonical=page.canonical, text=page.text, server=self.server
        )
        reply.headers.update(self.extra_headers)
        return reply

    def hrefs(self, page: Page, path: str, query: str) -> list[str]:
        return page.links

    def redirect(self, host: str, target: str, status: int, *, absolute: bool = False) -> Reply:
        location = f"http://{host}{target}" if absolute else target
        reply = Reply.redirect(location, status)
        if self.server:
            reply.headers["Server"] = self.server
        return reply

    def not_found(self, path: str) -> Reply:
        return _page_html(
            "Not Found", "<h1>Not Found</h1><p>The requested resource was not found.</p>", self.server, 404
        )

    def soft_404(self, title: str = "Page not found") -> Reply:
        body = f"<h1>{title}</h1><p>Sorry, nothing here.</p><p><a href='/'>Home</a></p>"
        return _page_html(title, body, self.server)

    def conditional(self, reply: Reply, path: str, headers: Mapping[str, str]) -> Reply:
        if self.etags == "none" or reply.status != 200:
            return reply
        if self.etags == "mtime":
            tag = f'"{self.built:x}-{len(reply.body):x}"'
        elif self.etags == "weak":
            tag = f'W/"{hashlib.md5(reply.body).hexdigest()}"'
        else:
            tag = f'"{hashlib.md5(reply.body).hexdigest()}"'
        wanted = next((value for name, value in headers.items() if name.lower() == "if-none-match"), "")
        if tag.removeprefix("W/") in {value.strip().removeprefix("W/") for value in wanted.split(",")}:
            return Reply(304, b"", {"ETag": tag, **({"Server": self.server} if self.server else {})})
        return Reply(200, reply.body, {**reply.headers, "ETag": tag})


def _slug(rng: random.Random, used: set[str], words: tuple[str, ...] = _WORDS) -> str:
    for _ in range(50):
        slug = rng.choice(words) if rng.random() < 0.5 else f"{rng.choice(words)}-{rng.choice(_TOPICS)}"
        if slug not in used:
            used.add(slug)
            return slug
    slug = f"{rng.choice(words)}-{len(used)}"
    used.add(slug)
    return slug


# -- application frameworks ------------------------------------------------------------------


class DjangoSite(FrameworkSite):
    family = "django"
    styles = (1, 6, 1)

    def configure(self, rng: random.Random) -> None:
        self.append_slash = rng.random() < 0.85
        self.i18n = rng.random() < 0.25
        if rng.random() < 0.3:
            self.twin = "to_www"  # PREPEND_WWW
        self.etags = "strong" if rng.random() < 0.5 else "none"
        self.server = rng.choice(("gunicorn", "nginx/1.24.0", "WSGIServer/0.2 CPython/3.11.4"))
        self.patterns: list[re.Pattern[str]] = []
        self.knobs = ["APPEND_SLASH" if self.append_slash else "no-APPEND_SLASH", "i18n" if self.i18n else ""]

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower()
        if self.twin == "to_www" and host != self.host:  # PREPEND_WWW: one redirect, slash appended too
            slash = self.append_slash and not path.endswith("/") and self.valid(self.host, path + "/")
            target = path + ("/" if slash and not self.valid(self.host, path) else "")
            return Reply.redirect(f"http://{self.host}{_with_query(target, query)}", 301)
        return super().handle(path, query, headers)

    def valid(self, host: str, path: str) -> bool:
        """``is_valid_path``: some URL pattern matches (whether or not an object is behind it)."""
        return (host, path) in self.views or any(pattern.fullmatch(path) for pattern in self.patterns)

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        langs = ["/en", "/de"] if self.i18n else [""]
        per_lang = max(3, budget // len(langs))
        used: set[str] = set()
        section = rng.choice(("blog", "news", "articles", "stories"))
        plan: list[tuple[str, str, dict[str, str | None] | None]] = [("/", "", None)]
        items = [f"/{section}/{_slug(rng, used, _TOPICS + _WORDS)}/" for _ in range(max(1, per_lang // 2))]
        per_page = rng.randint(2, 4)
        pages = max(1, -(-len(items) // per_page))
        reads: dict[str, str | None] = {"page": "1"}
        plan.append((f"/{section}/", "", reads))
        plan += [(f"/{section}/", f"page={n}", reads) for n in range(2, pages + 1)]
        if params:
            reads["sort"] = "-date"
            plan.append((f"/{section}/", "sort=title", reads))
        plan += [(item, "", None) for item in items]
        while len(plan) < per_lang:
            plan.append((f"/{_slug(rng, used)}/", "", None))
        traps: list[tuple[str, str, str]] = []
        for kind in rng.sample(("case", "slash", "ext", "lang"), rng.choice((0, 1, 1, 2))):
            word = _slug(rng, used)
            if kind == "case":
                traps += [(f"/{word.capitalize()}/", "", ""), (f"/{word}/", "", "")]
                self.traps.append(f"/{word.capitalize()}/ vs /{word}/")
            elif kind == "slash":
                traps += [(f"/{word}", "", ""), (f"/{word}/", "", "")]
                self.traps.append(f"/{word} vs /{word}/")
            elif kind == "ext":
                traps += [(f"/{word}", "", ""), (f"/{word}.html", "", "")]
                self.traps.append(f"/{word} vs /{word}.html")
            else:
                traps += [(f"/{word}/", "", "lang"), (f"/{word}/", "lang=de", "lang")]
                self.traps.append(f"/{word}/?lang=de vs /{word}/")
        self.section = (section, pages)
        for lang in langs:
            for path, query, view_reads in plan:
                self.add(lang + path, query, reads=view_reads)
            for path, query, kind in traps:
                self.add(lang + path, query, reads={"lang": "en"} if kind == "lang" else None)
            self.patterns.append(re.compile(re.escape(f"{lang}/{section}/") + r"[-\w]+/"))

    def natural_links(self, pen: LinkPen, rng: random.Random) -> None:
        section, pages = self.section
        for lang in ["/en", "/de"] if self.i18n else [""]:
            listing = f"{lang}/{section}/"
            for number in range(1, pages + 1):
                source = self.views[(self.host, listing)]["" if number == 1 else f"page={number}"]
                if number < pages:
                    pen.natural(source, f"?page={number + 1}")
                if number > 1:
                    pen.natural(source, rng.choice(("?page=1", "?page=1", listing, f"?page={number - 1}")))
                if number == 1 and pages > 2:
                    pen.natural(source, "?page=last")
        if self.i18n:
            for page in self.pages:
                other = ("/de" if page.path.startswith("/en") else "/en") + page.path[3:]
                twin = self.views.get((self.host, other), {}).get(page.query)
                if twin is not None:
                    pen.natural(page, twin.path + (f"?{twin.query}" if twin.query else ""))

    def answer(self, host: str, path: str, query: str) -> Reply:
        section, pages = self.section
        if path.endswith(f"/{section}/") and "page=last" in query:  # ListView: ``page == "last"``
            query = "&".join(f"page={pages}" if pair == "page=last" else pair for pair in query.split("&"))
        page = self.view(host, path, query)
        if page is not None:
            return self.render(page, path, query)
        if self.valid(host, path):
            return self.not_found(path)  # a pattern matched: the view's own 404 (no object, bad page)
        if self.i18n and not path.startswith(("/en/", "/de/")):
            language_path = "/en" + path
            if self.valid(host, language_path):
                return self.redirect(host, _with_query(language_path, query), 302)
            if self.append_slash and not language_path.endswith("/") and self.valid(host, language_path + "/"):
                return self.redirect(host, _with_query(language_path + "/", query), 302)
        if self.append_slash and not path.endswith("/") and self.valid(host, path + "/"):
            return self.redirect(host, _with_query(path + "/", query), 301)
        return self.not_found(path)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        out = [base + _with_query(page.path.rstrip("/"), page.query)]
        if self.i18n:
            out.append(base + _with_query(page.path[3:], page.query))
            out.append(base + _with_query(page.path[3:].rstrip("/"), page.query))
        if page.query.startswith("page="):
            out.append(base + page.path + "?page=" + page.query[5:] + "&utm_source=feed")
        return out


class RailsSite(FrameworkSite):
    family = "rails"
    styles = (1, 6, 0)

    def configure(self, rng: random.Random) -> None:
        self.slug_ids = rng.random() < 0.6
        self.twin = rng.choice(("none", "none", "to_bare", "to_www"))
        self.etags = "weak"
        self.server = "nginx/1.24.0"
        self.extra_headers = {"X-Runtime": "0.012", "X-Content-Type-Options": "nosniff"}
        self.resource = rng.choice(("posts", "articles", "products", "events"))
        self.ids: dict[int, Page] = {}
        self.statics: dict[str, Page] = {}
        self.knobs = [f"resources={self.resource}", "to_param=id-title" if self.slug_ids else ""]

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        used: set[str] = set()
        self.add("/", reads={"locale": "en"})
        index_reads: dict[str, str | None] = {"page": "1", "locale": "en"}
        count = max(2, budget // 2)
        per_page = rng.randint(3, 5)
        self.index_pages = max(1, -(-count // per_page))
        self.add(f"/{self.resource}", reads=index_reads)
        for number in range(2, self.index_pages + 1):
            self.add(f"/{self.resource}", f"page={number}", reads=index_reads)
        if params or rng.random() < 0.3:
            self.add("/", "locale=de", reads={"locale": "en"})
            self.add(f"/{self.resource}", "locale=de", reads=index_reads)
            self.traps.append("?locale=de vs ?locale=en")
        for number in rng.sample(range(1, 400), count):
            title = _slug(rng, used, _TOPICS + _WORDS)
            path = f"/{self.resource}/{number}" + (f"-{title}" if self.slug_ids else "")
            page = self.add(path, reads={"locale": "en"})
            self.ids[number] = page
        while len(self.pages) < budget:
            roll = rng.random()
            word = _slug(rng, used)
            if roll < 0.6:
                self.add(f"/{word}", reads={"locale": "en"})
            elif roll < 0.8:  # public/word.html (nginx try_files)
                self.statics[f"/{word}.html"] = self.add(f"/{word}.html")
            else:
                self.statics[f"/{word}/index.html"] = self.add(f"/{word}/")
        if rng.random() < 0.4:
            word = _slug(rng, used)
            self.add(f"/{word.capitalize()}", reads={"locale": "en"})
            self.add(f"/{word}", reads={"locale": "en"})
            self.traps.append(f"/{word.capitalize()} vs /{word}")

    def natural_links(self, pen: LinkPen, rng: random.Random) -> None:
        index = f"/{self.resource}"
        for number in range(1, self.index_pages + 1):
            source = self.views[(self.host, index)]["" if number == 1 else f"page={number}"]
            if number < self.index_pages:
                pen.natural(source, f"{index}?page={number + 1}")
            if number > 1:
                pen.natural(source, index if number == 2 else f"{index}?page={number - 1}")  # kaminari: no page=1

    def answer(self, host: str, path: str, query: str) -> Reply:
        # nginx: try_files $uri $uri/index.html $uri.html @rails
        for candidate in (path, path.rstrip("/") + "/index.html", path + ".html"):
            page = self.statics.get(candidate)
            if page is not None and host == self.host:
                return self.render(page, path, query)
        routed = path.rstrip("/") or "/"  # Journey ignores a trailing slash
        fmt = ""
        match = re.fullmatch(r"(/.*?)\.(html|json|xml)", routed)
        if match and "/" not in match.group(2):
            routed, fmt = match.group(1), match.group(2)
        page = None
        show = re.fullmatch(rf"/{self.resource}/(\d+)(?:-[^/]*)?", routed)
        if show:
            found = self.ids.get(int(show.group(1)))
            page = found and self.view(host, found.path, query)
        elif routed not in self.statics and routed + "/" not in self.statics:
            page = self.view(host, routed, query)
        if page is None:
            return self.not_found(path)
        if fmt == "json":
            return Reply(200, b'{"id":%d}' % zlib.crc32(page.doc_id.encode()), {"Content-Type": "application/json"})
        if fmt == "xml":
            return Reply(406, b"", {"Content-Type": "text/html"})
        return self.render(page, path, query)

    def not_found(self, path: str) -> Reply:
        body = "<h1>The page you were looking for doesn't exist.</h1><p>You may have mistyped the address.</p>"
        return _page_html("The page you were looking for doesn't exist (404)", body, self.server, 404)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        out = [base + _with_query(page.path + ".html", page.query), base + _with_query(page.path + "/", page.query)]
        match = re.fullmatch(rf"/{self.resource}/(\d+)(-.*)?", page.path)
        if match:
            number = match.group(1)
            out += [f"{base}/{self.resource}/{number}", f"{base}/{self.resource}/{number}-draft"]
            out.append(f"{base}/{self.resource}/0{number}")
        if page.path.endswith(".html"):
            out.append(base + page.path[:-5])
        return out


class ExpressSite(FrameworkSite):
    family = "express"
    styles = (1, 5, 1)

    def configure(self, rng: random.Random) -> None:
        self.case_insensitive = rng.random() < 0.85
        self.static_ext = rng.random() < 0.4
        self.soft = rng.random() < 0.2  # SPA fallback: app.get('*', shell)
        self.twin = rng.choice(("none", "none", "same"))
        self.etags = "weak"
        self.extra_headers = {"X-Powered-By": "Express"}
        self.statics: dict[str, Page] = {}
        self.params: dict[str, Page] = {}  # /products/:slug
        self.collection = rng.choice(("products", "users", "recipes", "courses"))
        self.knobs = [
            "routes-case-insensitive" if self.case_insensitive else "caseSensitive",
            "static-extensions=html" if self.static_ext else "",
        ]

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        used: set[str] = set()
        self.add("/")
        reads: dict[str, str | None] = {"page": "1"}
        self.add(f"/{self.collection}", reads=reads, lenient=True)
        count = max(2, budget // 3)
        self.list_pages = rng.randint(1, 3)
        for number in range(2, self.list_pages + 1):
            self.add(f"/{self.collection}", f"page={number}", reads=reads, lenient=True)
        for _ in range(count):
            slug = _slug(rng, used, _TOPICS + _WORDS)
            self.params[slug] = self.add(f"/{self.collection}/{slug}")
        docs_dir = rng.choice(("docs", "help", "manual"))
        static_index = False
        while len(self.pages) < budget:
            roll = rng.random()
            word = _slug(rng, used)
            if roll < 0.4:
                self.add(f"/{word}")
            elif roll < 0.7 or static_index:
                name = f"/{docs_dir}/{word}.html" if static_index and rng.random() < 0.6 else f"/{word}.html"
                self.statics[name] = self.add(name)
            else:
                self.statics[f"/{docs_dir}/index.html"] = self.add(f"/{docs_dir}/")
                static_index = True
        if rng.random() < 0.35 and not self.static_ext:
            word = _slug(rng, used)
            self.add(f"/{word}")
            self.statics[f"/{word}.html"] = self.add(f"/{word}.html")
            self.traps.append(f"/{word} vs /{word}.html")
        if rng.random() < 0.3:
            word = _slug(rng, used)
            self.add(f"/{word}", "lang=de", reads={"lang": "en"})
            self.add(f"/{word}", reads={"lang": "en"})
            self.traps.append(f"/{word}?lang=de vs /{word}")

    def natural_links(self, pen: LinkPen, rng: random.Random) -> None:
        listing = f"/{self.collection}"
        for number in range(1, self.list_pages + 1):
            source = self.views[(self.host, listing)]["" if number == 1 else f"page={number}"]
            if number < self.list_pages:
                pen.natural(source, f"{listing}?page={number + 1}")
            if number > 1:
                pen.natural(source, rng.choice((f"{listing}?page={number - 1}", f"{listing}?page=1")))

    def answer(self, host: str, path: str, query: str) -> Reply:
        # express.static (serve-static) first: case-sensitive files.
        page = self.statics.get(path)
        if page is None and path.endswith("/"):
            page = self.statics.get(path + "index.html")
        if page is None and not path.endswith("/") and path + "/index.html" in self.statics:
            location = _with_query(path + "/", query)
            reply = _page_html("Redirecting", f"<p>Redirecting to {html.escape(location)}</p>", "", 301)
            reply.headers["Location"] = location
            return reply
        if page is None and self.static_ext and not path.endswith("/"):
            page = self.statics.get(path + ".html")
        if page is not None:
            return self.render(page, path, query)
        # The router: strict routing off, case-insensitive literals unless caseSensitive.
        routed = path[:-1] if path.endswith("/") and path != "/" else path
        fold = str.lower if self.case_insensitive else str
        prefix = f"/{self.collection}/"
        if fold(routed).startswith(fold(prefix)) and routed.count("/") == 2:
            found = self.params.get(routed[len(prefix) :])  # the parameter as written: a lookup by slug
            if found is not None:
                return self.render(found, path, query)
        else:
            for (_, route), _table in self.views.items():
                if (
                    route not in self.statics
                    and route + "index.html" not in self.statics
                    and fold(route) == fold(routed)
                ):
                    found = self.view(self.host, route, query)
                    if found is not None:
                        return self.render(found, path, query)
        if self.soft:
            shell = '<div id="root"></div><script src="/static/js/main.3f9a2c.js"></script>'
            return _page_html("App", shell, self.server)
        return _page_html("Error", f"<pre>Cannot GET {html.escape(path)}</pre>", self.server, 404)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        path = page.path
        out = [base + _with_query(path + "/", page.query), base + _with_query(path.rstrip("/"), page.query)]
        out += [base + _with_query(variant, page.query) for variant in _case_variants(path)]
        if path.startswith(f"/{self.collection}/"):
            out.append(base + f"/{self.collection.upper()}/" + path.split("/")[2])
        if path.endswith(".html"):
            out.append(base + path[:-5])
        if path.endswith("/"):
            out.append(base + path + "index.html")
        return out


class LaravelSite(FrameworkSite):
    family = "laravel"
    styles = (6, 1, 0)

    def configure(self, rng: random.Random) -> None:
        self.twin = rng.choice(("none", "to_www", "to_bare"))
        self.server = "Apache/2.4.57 (Debian)"
        self.extra_headers = {"X-Powered-By": "PHP/8.2.12", "Cache-Control": "no-cache, private"}
        self.soft = rng.random() < 0.15  # Route::fallback returning a view with 200
        self.directories: dict[str, Page] = {}  # public/<dir>/index.html
        self.knobs = ["fallback-route" if self.soft else ""]

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        used: set[str] = set()
        self.add("/")
        reads: dict[str, str | None] = {"page": "1"}
        self.add("/posts", reads=reads, lenient=True)
        count = max(2, budget // 2)
        self.post_pages = max(1, -(-count // rng.randint(3, 6)))
        for number in range(2, self.post_pages + 1):
            self.add("/posts", f"page={number}", reads=reads, lenient=True)
        if params:
            reads["sort"] = "latest"
            self.add("/posts", "sort=popular", reads=reads, lenient=True)
        for _ in range(count):
            self.add(f"/posts/{_slug(rng, used, _TOPICS + _WORDS)}")
        while len(self.pages) < budget:
            word = _slug(rng, used)
            if rng.random() < 0.2 and not self.directories:
                self.directories[f"/{word}/"] = self.add(f"/{word}/")
            else:
                self.add(f"/{word}")
        if rng.random() < 0.3:
            word = _slug(rng, used)
            self.add(f"/{word.capitalize()}")
            self.add(f"/{word}")
            self.traps.append(f"/{word.capitalize()} vs /{word}")

    def natural_links(self, pen: LinkPen, rng: random.Random) -> None:
        base = f"http://{self.host}/posts"
        for number in range(1, self.post_pages + 1):
            source = self.views[(self.host, "/posts")]["" if number == 1 else f"page={number}"]
            if number < self.post_pages:
                pen.natural(source, f"{base}?page={number + 1}")
            if number > 1:
                pen.natural(source, f"{base}?page={number - 1}")  # the paginator writes ?page=1 for the first

    def answer(self, host: str, path: str, query: str) -> Reply:
        directory = self.directories.get(path if path.endswith("/") else path + "/")
        if directory is not None:  # a real directory in public/: Apache serves it (DirectorySlash first)
            if not path.endswith("/"):
                return self.redirect(host, _with_query(path + "/", query), 301, absolute=True)
            return self.render(directory, path, query)
        # .htaccess: RewriteCond %{REQUEST_FILENAME} !-d / RewriteRule ^(.*)/$ /$1 [L,R=301]
        if path.endswith("/") and path != "/" and not path.startswith("/index.php"):
            return self.redirect(host, _with_query(path.rstrip("/") or "/", query), 301, absolute=True)
        routed = path
        if routed == "/index.php" or routed.startswith("/index.php/"):
            routed = routed[len("/index.php") :]
        routed = "/" + routed.strip("/")
        page = self.view(host, routed, query)
        if page is not None:
            return self.render(page, path, query)
        if self.soft:
            return self.soft_404("Page Not Found")
        return _page_html("Not Found", "<div>404 | Not Found</div>", self.server, 404)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        out = [
            base + _with_query(page.path + "/", page.query),
            base + _with_query("/index.php" + page.path, page.query),
        ]
        if page.path == "/posts" and not page.query:
            out.append(base + "/posts?page=1")
        if page.query.startswith("page="):
            out.append(base + "/posts?page=" + page.query[5:] + "&ref=nav")
        return out


class NextSite(FrameworkSite):
    family = "nextjs"
    styles = (1, 6, 0)
    twin_status = 308

    def configure(self, rng: random.Random) -> None:
        self.trailing = rng.random() < 0.4
        self.clean_urls = rng.random() < 0.5
        self.twin = rng.choice(("none", "to_www", "to_bare"))
        self.etags = "strong"
        self.server = "Vercel"
        self.extra_headers = {"X-Powered-By": "Next.js"}
        self.knobs = [f"trailingSlash={str(self.trailing).lower()}", "cleanUrls" if self.clean_urls else ""]

    def canonical(self, path: str) -> str:
        return path + "/" if self.trailing and path != "/" else path

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        used: set[str] = set()
        self.add("/")
        self.add(self.canonical("/blog"))
        if params:
            self.add(self.canonical("/blog"), "page=2", reads={"page": "1"})
        while len(self.pages) < budget:
            roll = rng.random()
            if roll < 0.5:
                self.add(self.canonical(f"/blog/{_slug(rng, used, _TOPICS + _WORDS)}"))
            elif roll < 0.7:
                self.add(self.canonical(f"/docs/{rng.choice(('start', 'api', 'deploy'))}/{_slug(rng, used)}"))
            else:
                self.add(self.canonical(f"/{_slug(rng, used)}"))

    def answer(self, host: str, path: str, query: str) -> Reply:
        last = path.rsplit("/", 1)[-1]
        if self.clean_urls and path.endswith(".html"):
            target = self.canonical(path[:-5] or "/")
            return self._moved(host, _with_query(target, query))
        if path != "/" and self.trailing and not path.endswith("/") and "." not in last:
            return self._moved(host, _with_query(path + "/", query))
        if path != "/" and not self.trailing and path.endswith("/"):
            return self._moved(host, _with_query(path.rstrip("/") or "/", query))
        page = self.view(host, path, query)
        if page is not None:
            return self.render(page, path, query)
        return _page_html("404: This page could not be found", "<h1>404</h1>", self.server, 404)

    def _moved(self, host: str, target: str) -> Reply:
        reply = self.redirect(host, target, 308)
        reply.headers["Refresh"] = f"0;url={target}"
        return reply

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        bare = page.path.rstrip("/") or "/"
        return [base + _with_query(bare, page.query), base + _with_query(bare + "/", page.query), base + bare + ".html"]


#: The session a request's ``JSESSIONID`` cookie names (``""``: it sent none), for the
#: Tomcat answer being rendered in this thread.
_COOKIE_SESSION: ContextVar[str] = ContextVar("cookie_session", default="")


class TomcatSite(FrameworkSite):
    family = "tomcat"
    styles = (0, 3, 2)

    def configure(self, rng: random.Random) -> None:
        self.context = rng.choice(("/shop", "/portal", "/app", "/store"))
        self.root_redirect = rng.random() < 0.6
        self.twin = rng.choice(("none", "none", "to_www"))
        self.server = rng.choice(("Apache-Coyote/1.1", "Apache/2.4.57 (Unix)", ""))
        self.encoded: dict[str, list[bool]] = {}  # doc id -> which of its links go through encodeURL
        self.encode_rate = rng.choice((1.0, 1.0, 0.9))
        self.knobs = [f"context={self.context}", "ROOT->context" if self.root_redirect else ""]

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        used: set[str] = set()
        ctx = self.context
        self.add(f"{ctx}/")
        self.add(f"{ctx}/catalog/")
        for number in rng.sample(range(100, 999), max(1, budget // 3)):
            self.add(f"{ctx}/product.jsp", f"id={number}", reads={"id": None})
        while len(self.pages) < budget:
            word = _slug(rng, used)
            roll = rng.random()
            if roll < 0.5:
                self.add(f"{ctx}/{word}.jsp")
            elif roll < 0.8:
                self.add(f"{ctx}/help/{word}.html")
            else:
                self.add(f"{ctx}/{word}/")
        if rng.random() < 0.3:
            word = _slug(rng, used)
            self.add(f"{ctx}/{word}")  # a servlet mapping beside a static file
            self.add(f"{ctx}/{word}.html")
            self.traps.append(f"{ctx}/{word} vs {ctx}/{word}.html")

    def finish(self, rng: random.Random) -> None:
        for page in self.pages:
            self.encoded[page.doc_id] = [rng.random() < self.encode_rate for _ in page.links]

    def session_of(self, path: str, query: str) -> str:
        """The request's session id, or the one a new session gets: drawn from the page it
        opens on (any spelling of it), so that every body is a function of the request."""
        match = re.search(r";jsessionid=([^;/?]*)", path, re.IGNORECASE)
        if match:
            return match.group(1)
        mapped = re.sub(r";[^/]*", "", path)
        return self.issued(_with_query(mapped, query))

    def issued(self, opening: str) -> str:
        return hashlib.md5(f"{self.name}{opening}".encode()).hexdigest().upper()

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        held = request_cookie(headers, "JSESSIONID")
        reset = _COOKIE_SESSION.set(held)
        try:
            reply = super().handle(path, query, headers)
        finally:
            _COOKIE_SESSION.reset(reset)
        if held or reply.status != 200 or re.search(";jsessionid=", path, re.IGNORECASE):
            return reply
        # The page opened a session for a client that brought none: offered as a cookie too.
        cookie = f"JSESSIONID={self.session_of(path, query)}; Path={self.context}; HttpOnly"
        return replace(reply, headers={**reply.headers, "Set-Cookie": cookie})

    def hrefs(self, page: Page, path: str, query: str) -> list[str]:
        if _COOKIE_SESSION.get():  # encodeURL leaves links alone for a client that keeps the cookie
            return page.links
        session = self.session_of(path, query)
        flags = self.encoded.get(page.doc_id, [])
        out = []
        for index, href in enumerate(page.links):
            parts = urlsplit(urljoin(page.url, href))
            if (
                index < len(flags)
                and flags[index]
                and parts.hostname in self.hosts
                and parts.path.startswith(self.context)
            ):
                head, mark, tail = href.partition("#")
                head, qmark, rest = head.partition("?")
                href = f"{head};jsessionid={session}{qmark}{rest}{mark}{tail}"
            out.append(href)
        return out

    def answer(self, host: str, path: str, query: str) -> Reply:
        session = re.search(r";jsessionid=[^;/?]*", path, re.IGNORECASE)
        mapped = re.sub(r";[^/]*", "", path)  # path parameters play no part in mapping
        suffix = session.group(0) if session else ""
        ctx = self.context
        if mapped in ("/", "") and self.root_redirect:
            return self.redirect(host, _with_query(f"{ctx}/", query), 302)
        if mapped == ctx:
            return self.redirect(host, _with_query(f"{ctx}/{suffix}", query), 302)
        page = self.view(host, mapped, query)
        if page is None and mapped.endswith("/index.jsp"):  # a welcome file at its own name
            page = self.view(host, mapped[: -len("index.jsp")], query)
        if page is None and not mapped.endswith("/") and self.has(mapped + "/"):
            return self.redirect(host, _with_query(mapped + "/" + suffix, query), 302)
        if page is not None:
            return self.render(page, path, query)
        body = "<h1>HTTP Status 404 – Not Found</h1><p><b>Type</b> Status Report</p>"
        return _page_html("HTTP Status 404 – Not Found", body, self.server, 404)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        # A link copied from a session opened on the home page.
        token = self.issued(f"{self.context}/")
        out = [base + _with_query(f"{page.path};jsessionid={token}", page.query)]
        if page.path.endswith("/"):
            out += [base + _with_query(page.path + "index.jsp", page.query), base + page.path.rstrip("/")]
        if page.query:
            out.append(base + page.path + "?" + page.query + "&cid=nav")
        return out


# -- WordPress ------------------------------------------------------------------------------------


class WordPressSite(FrameworkSite):
    family = "wordpress"
    styles = (9, 1, 0)

    def configure(self, rng: random.Random) -> None:
        self.structure = rng.choice(("date", "date", "name", "plain"))
        self.twin = rng.choice(("to_www", "to_bare", "none"))
        self.server = rng.choice(("Apache/2.4.57 (Unix)", "nginx/1.24.0"))
        self.extra_headers = {
            "X-Powered-By": "PHP/8.1.27",
            "Link": f'<http://{self.host}/wp-json/>; rel="https://api.w.org/"',
        }
        self.posts: dict[int, Page] = {}
        self.slugs: dict[str, int] = {}
        self.static_pages: dict[int, Page] = {}
        self.categories: dict[int, Page] = {}
        self.paths: dict[str, Page] = {}  # permalink path -> page (pretty structures)
        self.knobs = [f"permalinks={self.structure}"]

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower()
        if self.twin in ("to_bare", "to_www") and host != self.host:  # redirect_canonical: one hop to the permalink
            reply = self.answer(self.host, path, query)
            if reply.status in (301, 302):
                return reply
            return Reply.redirect(f"http://{self.host}{_with_query(path, query)}", 301)
        return super().handle(path, query, headers)

    def permalink(self, kind: str, number: int, slug: str, year: int = 0, month: int = 0) -> tuple[str, str]:
        if self.structure == "plain":
            param = {"post": "p", "page": "page_id", "cat": "cat"}[kind]
            return "/", f"{param}={number}"
        if kind == "cat":
            return f"/category/{slug}/", ""
        if kind == "post" and self.structure == "date":
            return f"/{year}/{month:02d}/{slug}/", ""
        return f"/{slug}/", ""

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        used: set[str] = {"feed", "page", "category"}
        ids = iter(rng.sample(range(2, 2000), 200))
        home = self.add("/")
        self.per_page = rng.randint(3, 5)
        cats = []
        for _ in range(rng.randint(1, 2)):
            slug = _slug(rng, used, ("news", "tutorials", "releases", "events", "reviews"))
            path, query = self.permalink("cat", (number := next(ids)), slug)
            cats.append((number, slug, self.add(path, query)))
            self.categories[number] = cats[-1][2]
        count = max(2, (budget - len(self.pages)) * 2 // 3)
        posts = []
        for _ in range(count):
            slug = _slug(rng, used, _TOPICS)
            number = next(ids)
            year, month = rng.randint(2016, 2024), rng.randint(1, 12)
            path, query = self.permalink("post", number, slug, year, month)
            page = self.add(path, query)
            page.canonical = page.url
            self.posts[number] = page
            self.slugs[slug] = number
            posts.append(page)
        home_pages = max(1, -(-len(posts) // self.per_page))
        self.home_pages = [home]
        for number in range(2, home_pages + 1):
            self.home_pages.append(
                self.add(f"/page/{number}/") if self.structure != "plain" else self.add("/", f"paged={number}")
            )
        while len(self.pages) < budget:
            slug = _slug(rng, used)
            number = next(ids)
            path, query = self.permalink("page", number, slug)
            page = self.add(path, query)
            page.canonical = page.url
            self.static_pages[number] = page
            self.slugs.setdefault(slug, -number)
        for page in self.pages:
            if self.structure != "plain":
                self.paths[page.path] = page
        self.post_list = posts

    def natural_links(self, pen: LinkPen, rng: random.Random) -> None:
        for index, page in enumerate(self.home_pages):
            if index + 1 < len(self.home_pages):
                pen.natural(page, self.home_pages[index + 1].url)
            if index > 0:
                pen.natural(page, self.home_pages[index - 1].url)
            for post in self.post_list[index * self.per_page : (index + 1) * self.per_page]:
                pen.natural(page, post.url)
        for number, post in self.posts.items():
            if rng.random() < 0.7:
                for comment in rng.sample(range(10, 90), rng.randint(1, 3)):
                    pen.natural(post, f"{post.url}{'&' if post.query else '?'}replytocom={comment}#respond")
            if rng.random() < 0.3 and self.structure != "plain":
                pen.natural(post, f"http://{self.host}/?p={number}")
            pen.natural(post, f"http://{self.host}/" + ("?feed=rss2" if self.structure == "plain" else "feed/"))

    def answer(self, host: str, path: str, query: str) -> Reply:
        args = dict(parse_qsl(query, keep_blank_values=True))
        rest = "&".join(
            f"{k}={v}" for k, v in parse_qsl(query, keep_blank_values=True) if k not in ("p", "page_id", "cat", "paged")
        )
        pathinfo = path.startswith("/index.php/")
        routed = path[len("/index.php") :] if pathinfo else path
        if self.structure == "plain":
            if routed in ("/", "/index.php") and "feed" in args:
                return self.feed("/")
            if routed in ("/", "/index.php"):
                for param, table in (("p", self.posts), ("page_id", self.static_pages), ("cat", self.categories)):
                    if param in args:
                        found = table.get(int(args[param])) if args[param].isdigit() else None
                        return self.render(found, path, query) if found else self.not_found(path)
                if args.get("paged", "1").isdigit() and int(args.get("paged", "1")) > 1:
                    paged = int(args["paged"])
                    if paged <= len(self.home_pages):
                        return self.render(self.home_pages[paged - 1], path, query)
                    return self.not_found(path)
                return self.render(self.home_pages[0], path, query)
            return self.not_found(path)
        if routed == "/index.php":
            return self.redirect(host, _with_query("/", query), 301, absolute=True)
        if routed == "/" and not pathinfo:
            for param, table in (("p", self.posts), ("page_id", self.static_pages), ("cat", self.categories)):
                if param in args:
                    found = table.get(int(args[param])) if args[param].isdigit() else None
                    if found is None:
                        return self.not_found(path)
                    return self.redirect(host, _with_query(found.path, rest), 301, absolute=True)
            if "paged" in args and args["paged"].isdigit():
                paged = int(args["paged"])
                target = "/" if paged <= 1 else f"/page/{paged}/"
                return self.redirect(host, _with_query(target, rest), 301, absolute=True)
        page = self.paths.get(routed)
        if page is not None:
            return self.render(page, path, query)
        if routed in ("/feed/", "/feed") or routed.endswith("/feed/"):
            if routed == "/feed":
                return self.redirect(host, "/feed/", 301, absolute=True)
            base = routed[: -len("feed/")]
            if base == "/" or base in self.paths:
                return self.feed(base)
        if re.fullmatch(r"/page/1/?", routed):
            return self.redirect(host, _with_query("/", query), 301, absolute=True)
        # redirect_canonical: another case, a missing slash -> the permalink.
        folded = routed.lower() if routed.endswith("/") else routed.lower() + "/"
        for known in self.paths:
            if known.lower() == folded and known != routed:
                return self.redirect(host, _with_query(known, query), 301, absolute=True)
        # redirect_guess_404_permalink: a post by its name, then by a prefix of it.
        segment = routed.strip("/").rsplit("/", 1)[-1].lower()
        if segment:
            exact = self.slugs.get(segment)
            candidates = (
                [exact] if exact is not None else [n for s, n in sorted(self.slugs.items()) if s.startswith(segment)]
            )
            for number in candidates:
                found = self.posts.get(number) if number > 0 else self.static_pages.get(-number)
                if found is not None and found.path != routed:
                    return self.redirect(host, _with_query(found.path, query), 301, absolute=True)
        return self.not_found(path)

    def feed(self, base: str) -> Reply:
        feed = _FEED.format(title=html.escape(self.name), link=f"http://{self.host}{base}")
        return Reply(200, feed.encode(), {"Content-Type": "application/rss+xml; charset=UTF-8"})

    def not_found(self, path: str) -> Reply:
        body = "<h1>Oops! That page can&rsquo;t be found.</h1><p>It looks like nothing was found at this location.</p>"
        return _page_html(f"Page not found – {self.name}", body, self.server, 404)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        if self.structure == "plain":
            return [base + "/index.php?" + page.query, base + "/?" + page.query + "&replytocom=7"]
        out = [base + page.path.rstrip("/"), base + "/index.php" + page.path, base + page.path + "?replytocom=12"]
        out += [base + variant for variant in _case_variants(page.path)]
        slug = page.path.strip("/").rsplit("/", 1)[-1]
        if page.path.count("/") > 2 and slug:
            out += [f"{base}/{slug}/", f"{base}/{slug}"]
        for number, post in self.posts.items():
            if post is page:
                out.append(f"{base}/?p={number}")
        return out


# -- static hosts ---------------------------------------------------------------------------------


class StaticSite(FrameworkSite):
    """A static host: files (``/x.html``, ``/d/index.html``) answered by the platform's rules."""

    styles = (1, 3, 3)

    def configure(self, rng: random.Random) -> None:
        self.files: dict[str, Page] = {}
        self.has_404 = True
        self.setup(rng)

    def setup(self, rng: random.Random) -> None:
        raise NotImplementedError

    def url_of(self, file: str) -> str:
        """The path the platform serves ``file`` at without a redirect, as its links write it."""
        raise NotImplementedError

    def file(self, name: str) -> Page:
        page = self.add(self.url_of(name))
        self.files[name] = page
        return page

    def build(self, rng: random.Random, budget: int, params: bool) -> None:
        used: set[str] = set()
        self.file("/index.html")
        blog = rng.random() < 0.6
        while len(self.pages) < budget:
            roll = rng.random()
            word = _slug(rng, used)
            if blog and roll < 0.4:
                year, month, day = rng.randint(2015, 2024), rng.randint(1, 12), rng.randint(1, 28)
                self.file(f"/blog/{year}/{month:02d}/{day:02d}/{word}.html")
            elif roll < 0.65:
                self.file(f"/{word}.html")
            elif roll < 0.85:
                self.file(f"/{word}/index.html")
            else:
                self.file(f"/docs/{word}.html")
        self.add_traps(rng, used)

    def add_traps(self, rng: random.Random, used: set[str]) -> None:
        if rng.random() < 0.35:
            word = _slug(rng, used)
            self.file(f"/{word.capitalize()}.html")
            self.file(f"/{word}.html")
            self.traps.append(f"{word.capitalize()}.html vs {word}.html")

    def missing(self, path: str) -> Reply:
        if self.has_404:
            body = (
                "<h1>404</h1><p>File not found</p>"
                "<p>The site configured at this address does not contain the requested file.</p>"
            )
            return _page_html("Page not found", body, self.server, 404)
        return self.render(self.files["/index.html"], path, "")  # SPA: the home page everywhere

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        path = page.path
        out = [base + path + "?v=2", base + path.rstrip("/"), base + path + "/"]
        if path.endswith("/"):
            out += [base + path + "index.html", base + path + "index"]
        elif path.endswith(".html"):
            out.append(base + path[:-5])
        else:
            out.append(base + path + ".html")
        out += [base + variant for variant in _case_variants(path)]
        return out


class GitHubPagesSite(StaticSite):
    family = "ghpages"

    def setup(self, rng: random.Random) -> None:
        self.pretty = rng.random() < 0.4  # links without .html (permalink: pretty for pages)
        self.twin = rng.choice(("none", "to_www", "to_bare"))
        self.server = "GitHub.com"
        self.etags = "mtime"
        self.extra_headers = {"Cache-Control": "max-age=600", "Access-Control-Allow-Origin": "*"}
        self.knobs = ["links-without-.html" if self.pretty else ""]

    def url_of(self, file: str) -> str:
        if file.endswith("/index.html"):
            return file[: -len("index.html")]
        return file[:-5] if self.pretty else file

    def answer(self, host: str, path: str, query: str) -> Reply:
        page = self.files.get(path)
        if page is None and path.endswith("/"):
            page = self.files.get(path + "index.html")
        if page is None and not path.endswith("/"):
            if path + "/index.html" in self.files:
                return self.redirect(host, _with_query(path + "/", query), 301, absolute=True)
            page = self.files.get(path + ".html")
        if page is None:
            return self.missing(path)
        return self.render(page, path, query)


class S3Site(StaticSite):
    family = "s3"

    def setup(self, rng: random.Random) -> None:
        self.twin = rng.choice(("none", "to_bare", "to_www"))
        self.server = "AmazonS3"
        self.etags = "strong"
        self.denied = rng.random() < 0.4  # no s3:ListBucket: a missing key is a 403
        self.has_404 = rng.random() < 0.7
        self.knobs = ["403-for-missing" if self.denied else ("error-document" if self.has_404 else "")]

    def url_of(self, file: str) -> str:
        return file[: -len("index.html")] if file.endswith("/index.html") else file

    def add_traps(self, rng: random.Random, used: set[str]) -> None:
        super().add_traps(rng, used)
        if rng.random() < 0.35:  # an extensionless key beside a folder of the same name
            word = _slug(rng, used)
            self.file(f"/{word}")
            self.file(f"/{word}/index.html")
            self.traps.append(f"/{word} (key) vs /{word}/")
        if rng.random() < 0.3:
            word = _slug(rng, used)
            self.file(f"/{word}")
            self.file(f"/{word}.html")
            self.traps.append(f"/{word} vs /{word}.html")

    def answer(self, host: str, path: str, query: str) -> Reply:
        page = self.files.get(path)
        if page is None and path.endswith("/"):
            page = self.files.get(path + "index.html")
        if page is None and not path.endswith("/") and path + "/index.html" in self.files:
            return self.redirect(host, path + "/", 302)
        if page is not None:
            return self.render(page, path, query)
        if self.denied:
            body = (
                b'<?xml version="1.0" encoding="UTF-8"?>'
                b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
            )
            return Reply(403, body, {"Content-Type": "application/xml", "Server": self.server})
        return self.missing(path)

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower()
        if self.twin in ("to_bare", "to_www") and host != self.host:  # the www bucket redirects all requests
            return Reply.redirect(f"http://{self.host}{path}", 301)
        return super().handle(path, query, headers)


class NetlifySite(StaticSite):
    family = "netlify"

    def setup(self, rng: random.Random) -> None:
        self.pretty = rng.random() < 0.7
        self.twin = rng.choice(("none", "to_www", "to_bare"))
        self.server = "Netlify"
        self.etags = "strong"
        self.has_404 = rng.random() < 0.7
        self.status = 301
        self.knobs = ["pretty-urls" if self.pretty else "no-pretty-urls", "" if self.has_404 else "spa-rewrite"]

    def url_of(self, file: str) -> str:
        if file.endswith("/index.html"):
            return file[: -len("index.html")]
        return file[:-5] if self.pretty else file

    def answer(self, host: str, path: str, query: str) -> Reply:
        move = self.move(path)
        if move is not None:
            return self.redirect(host, _with_query(move, query), self.status)
        page = self.files.get(path)
        if page is None and path.endswith("/"):
            page = self.files.get(path + "index.html")
        if page is None and not path.endswith("/"):
            page = self.files.get(path + ".html")
        if page is None:
            return self.missing(path)
        return self.render(page, path, query)

    def move(self, path: str) -> str | None:
        if not self.pretty:
            if not path.endswith("/") and path + "/index.html" in self.files:
                return path + "/"
            return None
        if path.endswith("/index.html") and path in self.files:
            return path[: -len("index.html")]
        if path.endswith(".html") and path in self.files:
            return path[:-5]
        if (
            path.endswith("/")
            and path != "/"
            and path + "index.html" not in self.files
            and path[:-1] + ".html" in self.files
        ):
            return path[:-1]
        if not path.endswith("/") and path + "/index.html" in self.files and path + ".html" not in self.files:
            return path + "/"
        return None


class CloudflarePagesSite(NetlifySite):
    family = "cfpages"

    def setup(self, rng: random.Random) -> None:
        self.pretty = True
        self.twin = rng.choice(("none", "none", "to_www"))
        self.server = "cloudflare"
        self.etags = "strong"
        self.has_404 = rng.random() < 0.5
        self.status = 308
        self.twin_status = 308
        self.knobs = ["" if self.has_404 else "no-404.html (home page everywhere)"]

    def move(self, path: str) -> str | None:
        if path.endswith("/index") and path + ".html" in self.files:
            return path[: -len("index")]
        return super().move(path)


# -- the web --------------------------------------------------------------------------------------

_CLASSES: dict[str, type[FrameworkSite]] = {
    "django": DjangoSite,
    "rails": RailsSite,
    "express": ExpressSite,
    "wordpress": WordPressSite,
    "netlify": NetlifySite,
    "cfpages": CloudflarePagesSite,
    "ghpages": GitHubPagesSite,
    "s3": S3Site,
    "tomcat": TomcatSite,
    "laravel": LaravelSite,
    "nextjs": NextSite,
}


class LinkPen:
    """Writes links to pages as pages write them, checking every spelling against the servers."""

    def __init__(self, rng: random.Random, web: RandomWeb) -> None:
        self.rng = rng
        self.web = web
        self._variants: dict[str, list[str]] = {}

    def site(self, page: Page) -> FrameworkSite:
        site = self.web.sites[page.host]
        assert isinstance(site, FrameworkSite)
        return site

    def spell(self, source: Page, url: str, style: str) -> str:
        """``url`` written from ``source``: absolute, root-relative or relative (each checked)."""
        parts = urlsplit(url)
        if parts.netloc == source.host and not parts.port:
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            candidates = {
                "root": target,
                "relative": _relative(source.path, parts.path) + (f"?{parts.query}" if parts.query else ""),
            }
            href = candidates.get(style)
            if href is not None and href and urljoin(source.url, href) == url.split("#")[0]:
                return href + (f"#{parts.fragment}" if parts.fragment else "")
        return url

    def style(self, source: Page) -> str:
        site = self.site(source)
        weights = site.styles
        if isinstance(site, StaticSite) and not site.has_404 and source is site.pages[0]:
            # The home page answers every unknown path (an SPA rewrite): relative links on it
            # would resolve ever deeper, a trap no crawler leaves. SPA builds write them from the root.
            weights = (1, 1, 0)
        return self.rng.choices(("absolute", "root", "relative"), weights=weights)[0]

    def reaches(self, url: str, target: Page) -> bool:
        return self.web.resolve(url) == target.doc_id

    def plain(self, source: Page, target: Page) -> str:
        """The target's canonical URL (served with a 200, no redirect)."""
        return self.spell(source, target.url, self.style(source))

    def variants(self, target: Page) -> list[str]:
        if target.doc_id not in self._variants:
            site = self.site(target)
            candidates = site.spellings(target)
            if site.other_host:
                candidates.append(f"http://{site.other_host}{target.key}")
            candidates.append(f"http://{target.host}:80{target.key}")
            joiner = "&" if target.query else "?"
            candidates += [f"{target.url}{joiner}{tracking}" for tracking in TRACKING[:3]]
            self._variants[target.doc_id] = [
                url for url in dict.fromkeys(candidates) if url != target.url and self.reaches(url, target)
            ]
        return self._variants[target.doc_id]

    def variant(self, source: Page, target: Page) -> str:
        options = self.variants(target)
        if not options:
            return self.plain(source, target)
        url = self.rng.choice(options)
        if self.rng.random() < 0.25:
            url += "#" + self.rng.choice(FRAGMENTS)
        return self.spell(source, url, self.style(source))

    def natural(self, source: Page, href: str) -> None:
        """A link the family's templates write (checked: it must reach a ``200``)."""
        url = urljoin(source.url, href)
        for _ in range(10):
            reply = self.web.fetch(url)
            if reply.status in (301, 302, 307, 308):
                url = urljoin(url, reply.headers["Location"])
                continue
            break
        if reply.status != 200:
            raise AssertionError(f"{source.url}: natural link {href!r} answers {reply.status}")
        source.links.append(href)

    def broken(self, source: Page) -> str | None:
        site = self.site(source)
        rng = self.rng
        for _ in range(4):
            page = rng.choice(site.pages)
            roll = rng.random()
            if roll < 0.3:
                path = f"/{rng.choice(_WORDS)}-old{rng.choice(('', '/', '.html', '.php'))}"
            elif roll < 0.6:
                path = rng.choice(_case_variants(page.path))
            elif roll < 0.8:
                path = page.path + ("index.htm" if page.path.endswith("/") else "/")
            else:
                path = (page.path.rstrip("/") or "/index") + ".php"
            url = f"http://{source.host}{path}"
            if self.web.resolve(url) is None:
                return self.spell(source, url, self.style(source))
        return None


def _split(rng: random.Random, total: int, parts: int) -> list[int]:
    shares = [3] * parts
    for _ in range(max(0, total - 3 * parts)):
        shares[rng.randrange(parts)] += 1
    return shares


def generate_framework_web(
    seed: int, *, hosts: int | None = None, meta_refresh: bool = False, query_pages: bool = False
) -> RandomWeb:
    """A web of 2-5 framework hosts and about 12-70 documents, determined by ``seed`` alone.
    ``query_pages`` (``--params``): more documents told apart by their query (sort orders,
    ``?page=2`` on every listing); ``meta_refresh`` (``--refresh``): moved pages as static
    generators write them (jekyll-redirect-from, Hugo aliases: ``<meta http-equiv="refresh">``)."""
    rng = random.Random(f"frameworks:{seed}")
    count = hosts or rng.randint(2, 5)
    budgets = _split(rng, rng.randint(12, 70), count)
    sites: list[FrameworkSite] = []
    for index in range(count):
        family = rng.choice(FAMILIES)
        site = _CLASSES[family](f"{family}{index}.test", rng)
        # Without cookies each first visit of a Tomcat site opens a session, and each session
        # is a copy of the site for a crawler: keep those sites small.
        site.build(rng, min(budgets[index], 14) if family == "tomcat" else budgets[index], query_pages)
        sites.append(site)
    by_host: dict[str, Any] = {host: site for site in sites for host in site.hosts}
    web = RandomWeb(seed, by_host, [], {page.doc_id for site in sites for page in site.pages}, sites)  # type: ignore[arg-type]
    pen = LinkPen(rng, web)

    # The spanning links: every page from a reachable parent, in canonical form.
    span_sites(rng, web, sites, pen)

    # Moves: permanent (301 to a page), temporary (302, followed by stock), to another host.
    for index, site in enumerate(sites):
        for number in range(rng.choice((0, 1, 1, 2))):
            kind = rng.choice(("moved", "temporary", "elsewhere"))
            target = rng.choice(site.pages)
            status = 301
            if kind == "temporary":
                status = 302
            elif kind == "elsewhere" and len(sites) > 1:
                target = rng.choice(rng.choice(sites[:index] + sites[index + 1 :]).pages)
                status = rng.choice((301, 302))
            path = f"/{rng.choice(('old', 'go', 'latest', 'r'))}-{number}"
            site.specials[(site.host, path)] = Reply.redirect(target.url, status)
            site.loops.append(f"{path}->{status}->{target.url}")
            rng.choice(site.pages).links.append(path)

    # Extra links: random targets, mostly written as variants; some broken.
    everything = web.pages
    for site in sites:
        for page in site.pages:
            for _ in range(rng.randint(1, 4)):
                target = rng.choice(site.pages) if rng.random() < 0.8 else rng.choice(everything)
                page.links.append(pen.plain(page, target) if rng.random() < 0.35 else pen.variant(page, target))
            if rng.random() < 0.15:
                broken = pen.broken(page)
                if broken:
                    page.links.append(broken)
    if meta_refresh:
        _add_refreshes(random.Random(f"frameworks:{seed}:refresh"), web, pen)
    for site in sites:
        for page in site.pages:
            rng.shuffle(page.links)
        if isinstance(site, TomcatSite):
            site.finish(rng)
    return web


def _refresh_stub(target: str, hugo: bool) -> Reply:
    """A moved page as jekyll-redirect-from (with a link) or a Hugo alias (without) writes it."""
    url = html.escape(target)
    if hugo:
        text = (
            f'<!DOCTYPE html><html lang="en-us"><head><title>{url}</title><link rel="canonical" href="{url}">'
            f'<meta name="robots" content="noindex"><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="0; url={url}"></head></html>'
        )
    else:
        text = (
            f'<!DOCTYPE html><html lang="en-US"><meta charset="utf-8"><title>Redirecting&hellip;</title>'
            f'<link rel="canonical" href="{url}"><script>location="{url}"</script>'
            f'<meta http-equiv="refresh" content="0; url={url}"><meta name="robots" content="noindex">'
            f'<h1>Redirecting&hellip;</h1><a href="{url}">Click here if you are not redirected.</a></html>'
        )
    return Reply(200, text.encode(), {"Content-Type": "text/html; charset=utf-8"})


def _add_refreshes(rng: random.Random, web: RandomWeb, pen: LinkPen) -> None:
    """On about half the hosts, old paths that move on by ``<meta http-equiv="refresh">``: to a
    page, to a page only the stub leads to (a Hugo alias has no link, so only the refresh
    does), or to a path that is gone."""
    for site in web.hosts:
        assert isinstance(site, FrameworkSite)
        if rng.random() < 0.5:
            continue
        hugo = rng.random() < 0.5
        linked = list(site.pages)  # (not the landing pages added below: their bodies link only home)
        for number in range(rng.randint(1, 2)):
            kind = rng.choice(("page", "page", "only", "gone"))
            path = f"/moved-{number}/"
            if kind == "only":
                page = site.add(f"/landing-{number}-only/")
                # A landing page on a host whose rules may redirect its path: a special, so it is served.
                site.specials[(site.host, page.path)] = render_page(
                    page.doc_id, ["/"], text=page.text, server=site.server
                )
                web.documents.add(page.doc_id)
                target = page.url
            elif kind == "page":
                moved = rng.choice(site.pages[:-1] or site.pages)
                target = rng.choice(pen.variants(moved) or [moved.url])
            else:
                target = f"http://{site.host}/gone-{number}/"
            site.specials[(site.host, path)] = _refresh_stub(target, hugo)
            rng.choice(linked).links.append(path)
            site.loops.append(f"refresh:{kind}{'(hugo)' if hugo else ''}")


# -- the comparison -------------------------------------------------------------------------------


class FrameworkComparison(FamilyComparison):
    """A comparison on a frameworks web: requests, pages and documents per family."""


def family_of(web: RandomWeb, host: str) -> str:
    site = web.sites.get(host)
    return getattr(site, "family", "?")


async def compare_frameworks(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> FrameworkComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_framework_web(seed)``: stock Scrapy,
    then the add-on, in ``order``, with the same runaway guard. With ``order.offsite`` both
    crawls get this web's ``allowed_domains`` (``CrawlOrder.settings`` draws them for the
    other generator's web; the extra settings override them). Requests are counted per
    family where a crawl runs on one server (not with stops or kills)."""
    order = order or CrawlOrder.from_seed(seed)
    web = generate_framework_web(seed, meta_refresh=order.refresh, query_pages=order.params)
    return await compare_by_family(
        web, seed, workdir, addon_settings, order, family=family_of, comparison=FrameworkComparison
    )
