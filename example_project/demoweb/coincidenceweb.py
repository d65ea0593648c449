"""A fourth generator of seeded webs: hosts whose coincidences look like equivalence rules.

:mod:`demoweb.wildweb` models servers in the wild; this module was written by another
outside checker, from what real sites do that *looks* like a rule a normalizer could
learn (identical bytes at two spellings, a redirect that rewrites a spelling) while the
rule does not hold everywhere on the same host. Each host is one *kind*:

- ``tags`` (a static blog generator's output on a case-sensitive server, plus a tag
  controller for tags without posts): ``/tag/Go/`` and ``/tag/go/`` are two tags with
  posts of their own, while every tag without posts (``/tag/Haskell/``, ``/tag/haskell/``,
  ``/tag/haskell``, ``/tag/HASKELL/``...) answers one byte-identical "No posts yet"
  placeholder (one document) whose *relative* link ``suggest`` leads to a page of its
  own per spelling (``/tag/Haskell/suggest`` is not ``/tag/haskell/suggest``), reached
  from nowhere else: the placeholder coincides with its case and slash twins, the pages
  behind it do not. Posts ``/posts/x`` -> 301 ``/posts/x/``.
- ``shop`` (a PHP shop): parameters that matter by value and by path. ``/catalog?page=1``
  is ``/catalog`` byte for byte, ``?page=2`` another page; ``?sort=price`` the same items
  in another order (another page); ``?color=`` ignored on most items and a variant on a
  few; ``?currency=EUR`` another price (a page differing in one figure) on half the
  hosts, ignored on the others; ``?view=print`` ignored, a print page on every item, or
  on some; ``?ref=``/``?source=`` and share tokens ``?s=<12 hex>`` ignored on items while
  ``/saved?s=<12 hex>`` selects a saved search; ``/search?q=`` with results a page, every
  term without results one "No results" placeholder; out-of-stock items
  (``/item/N/``) all answer one byte-identical "Sold out" placeholder whose relative link
  ``reviews`` leads to the item's own reviews, reached from nowhere else. Half the hosts
  print a visitor counter (bytes change on every answer).
- ``legacy`` (Apache 2.2, MultiViews, ``DirectoryIndex index.php index.html``): ``/d`` ->
  301 ``/d/`` for most directories, but one ``/x`` is a script's page beside ``/x/``;
  ``/d/index.html`` the directory's page for most, an old page of its own in one
  (``index.php`` serves ``/d/``); ``/d/name`` serves ``/d/name.html`` byte for byte
  (``Content-Location``) for most names, but one ``/d/name`` is a page of its own.
- ``proxied`` (IIS, case-insensitive, with a case-sensitive application proxied under
  ``/app/``, and a ``www.`` twin that serves the same pages): ``/Products/Widget.aspx``
  is ``/products/WIDGET.aspx``, but ``/app/Report`` and ``/app/report`` are two pages;
  ``www.h/x`` is ``h/x`` for every page but the blog: ``www.h/blog/...`` is another
  virtual host (WordPress) beside the old ``h/blog/`` folder.
- ``rewrites`` (an application whose middlewares redirect spellings): each host draws
  three of: slash removal (``/x/`` -> 301 ``/x``, but ``/guides/`` and ``/guides`` two
  pages), lower-casing (``/About`` -> 301 ``/about``, but ``/files/`` served by a static
  handler where ``README`` and ``readme`` are two files), clean URLs (``/x.html`` -> 301
  ``/x``, but ``/legacy.html`` a page of its own), ``ref`` stripping (``?ref=x`` -> 301
  without it, but ``/invite?ref=alice`` a referral page), the ``www.`` twin (301 to the
  bare host, but ``www.h/shop/`` another virtual host), moved pages (``/old/x`` -> 301
  ``/new/x`` for most, ``/old/y`` still a page). Also a login wall (``/members/x`` -> 302
  ``/login?next=...`` for most members' pages, others public), a shortener
  (``/go/N`` -> 302 anywhere), a rotating ``/featured`` (302 to another page on every
  request) and a redirect chain ending at a page linked elsewhere in another spelling.
- ``routes`` (a Rails/Express/Flask application with non-strict routing): every route answers
  ``/x`` and ``/x/`` with the same bytes (no redirect), and pages write relative links, so
  the two spellings of a page link to different pages: a section's index ``/docs`` links
  ``intro`` (``/intro``, a page of the site's root) where ``/docs/`` links ``/docs/intro``
  (the section's own), each reached from nowhere else; every other page is linked in both
  spellings too (the coincidence a learner sees), its relative links broken from one of them.
- ``deploy`` (a CMS behind a cache): validators per template and per deploy: every
  article shares one entity tag, every event another (honoured: a page answers ``304``
  to another page's tag), one ``Last-Modified`` for the deploy; event pages that differ
  only in their date, monthly reports ``?month=2024-01``.. that differ in one figure;
  a "rendered at" counter; ``HEAD`` answered with a redirect to a login page, a wrong
  length, another entity tag, or ``405``.

Each host also draws the wild web's cross-cutting quirks (redirect status and
``Location`` style, validators, ``HEAD`` ignoring conditions, gzip, rotating ads), and
links are spelled with an upper-case host, a trailing-dot host, ``:80``, tracking
parameters and fragments where the server ignores them (each checked against the
servers). Evidence links spell many pages in the rule-like forms their host coincides
on, so a learner sees the coincidence many times before an exception.

Every document is collected by stock Scrapy by construction: each is reached from a
start URL through URLs that answer ``200`` themselves (no redirect), resolved against
``<base href>`` as Scrapy does, where no two spellings stock would take as one (w3lib's
``canonicalize_url``) answer differently. :meth:`CoincidenceWeb.check` verifies it over
the data.
"""

from __future__ import annotations

import html
import random
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

from .randomweb import CrawlOrder, FamilyComparison, Page, canonicalize_url, compare_by_family, doc_id_of
from .server import NETLOC_HEADER, Reply
from .wildweb import (
    Pen,
    WildSite,
    WildWeb,
    decode_path,
    kind_of,
    refresh_stub,
    request_method,
    serve_wild,
    split_budget,
)

KINDS = ("tags", "shop", "legacy", "proxied", "rewrites", "deploy", "routes")
_HTML = {"Content-Type": "text/html; charset=utf-8"}
_POSTS = ("hello-world", "release-notes", "why-go", "rust-tips", "ci-setup", "benchmarks", "faq", "roadmap", "v2")
_TAG_PAIRS = (("Go", "go"), ("Rust", "rust"), ("ML", "ml"), ("CI", "ci"), ("Web", "web"))
_EMPTY_TAGS = ("Haskell", "Elm", "Zig", "Nim", "OCaml", "Erlang", "Fortran")
_WORDS = ("intro", "guide", "history", "pricing", "setup", "roadmap", "faq", "notes", "install", "team")
_SECTIONS = ("about", "products", "support", "news", "archive", "people", "docs", "press")
_COLORS = ("red", "blue", "green", "black")
_NAMES = ("alice", "bob", "carol", "dave")


def _hex(rng: random.Random, digits: int = 12) -> str:
    return f"{rng.getrandbits(4 * digits):0{digits}x}"


def _params(query: str) -> dict[str, str]:
    return dict(p.partition("=")[::2] for p in query.split("&") if p)


def _swap_case(rng: random.Random, path: str) -> str:
    """``path`` with the case of some letters changed (never the same string when it has letters)."""
    letters = [i for i, c in enumerate(path) if c.isalpha()]
    if not letters:
        return path
    chars = list(path)
    for i in rng.sample(letters, max(1, len(letters) // 3)):
        chars[i] = chars[i].swapcase()
    return "".join(chars)


@dataclass(eq=False)
class CoSite(WildSite):
    """One host of one kind (see the module's docstring), on the wild web's machinery."""

    #: doc ids reached only behind a placeholder's relative link (never linked directly)
    hidden: set[str] = field(default_factory=set)
    #: doc ids linked by the kind's own evidence links only (placeholders, at every alias)
    unspanned: set[str] = field(default_factory=set)
    #: doc ids of the exceptions to the host's coincidences: spanned last, as a chain from the
    #: deepest page, so that a crawl meets the coincidences first (and learns from them)
    late: set[str] = field(default_factory=set)
    #: a visitor counter in every page: no two answers byte-identical
    counter: bool = False
    #: "", "redirect" (``HEAD`` -> 302 a login page), "length" (another length), "etag" (another tag)
    head_quirk: str = ""
    #: entity tags per template: doc id -> tag (honoured, so another page's tag answers 304)
    template_tags: dict[str, str] = field(default_factory=dict)
    #: a page's bytes beside the template: doc id -> extra headers
    extra_headers: dict[str, dict[str, str]] = field(default_factory=dict)
    _visits: int = 0

    def alias(self, path: str, page: Page, query: str = "", authority: str | None = None) -> str:
        """Another URL answering ``page`` byte for byte (a route to the same handler and data)."""
        authority = authority or self.host
        self.routes[(authority, self.fold(path), self.query_key(path, query))] = page
        return f"http://{authority}{quote(path)}" + (f"?{query}" if query else "")

    def linkable(self) -> list[Page]:
        """Pages other pages may link directly (not those reached only behind a placeholder)."""
        return [page for page in self.pages if page.doc_id not in self.hidden]

    def sources(self) -> list[Page]:
        """Pages whose links may be added to (not placeholders: their bytes serve many URLs)."""
        return [page for page in self.pages if page.doc_id not in self.unspanned]

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        """The kind's links in the forms its host coincides on (and to its placeholders)."""

    def link_from(self, rng: random.Random, pen: Pen, placed: list[Page], url: str) -> None:
        """A link to ``url`` from one of the host's first pages (evidence comes early)."""
        early = [page for page in placed if page.doc_id not in self.late][:4]
        source = rng.choice(early)
        source.links.append(pen.spell(source, url, exact=False))

    def exception(self, page: Page) -> Page:
        self.late.add(page.doc_id)
        return page

    def special(self, authority: str, raw_path: str, query: str) -> Reply | None:
        """A stub or move registered for this URL (``/refresh``, ``/go/N``...), for kinds that route
        before :meth:`WildSite.answer` would look."""
        return self.specials.get((authority, decode_path(raw_path), query))

    def render(self, page: Page) -> Reply:
        reply = super().render(page)
        headers = dict(reply.headers)
        if page.doc_id in self.template_tags:
            headers["ETag"] = self.template_tags[page.doc_id]
        headers.update(self.extra_headers.get(page.doc_id, {}))
        return Reply(reply.status, reply.body, headers)

    def finish(self, reply: Reply, headers: Mapping[str, str]) -> Reply:
        method = request_method()
        if method == "HEAD" and reply.status == 200 and self.head_quirk == "redirect":
            return super().finish(Reply.redirect(f"http://{self.host}/login?next=head", 302), headers)
        if reply.status == 200 and method == "HEAD" and self.head_quirk == "length":
            reply = Reply(200, reply.body[: len(reply.body) // 3], reply.headers)
        if reply.status == 200 and method == "HEAD" and self.head_quirk == "etag":
            reply = Reply(200, reply.body, {**reply.headers, "ETag": f'"head-{len(reply.body):x}"'})
        if self.counter and reply.status == 200 and b"</body>" in reply.body:
            self._visits += 1
            footer = f'<p class="visits">You are visitor #{10_000 + self._visits}</p></body>'.encode()
            reply = Reply(200, reply.body.replace(b"</body>", footer, 1), reply.headers)
        return super().finish(reply, headers)

    def describe(self) -> str:
        text = super().describe()
        extra = [
            f"HEAD={self.head_quirk}" if self.head_quirk else "",
            "counter" if self.counter else "",
            f"hidden={len(self.hidden)}" if self.hidden else "",
        ]
        return text + "".join(f" {flag}" for flag in extra if flag)


#: A host of any kind (see :func:`draw_cross_cutting`).
S = TypeVar("S", bound=CoSite)
#: A web of any generator built on this one (see :func:`woven`).
W = TypeVar("W", bound="CoincidenceWeb")

# -- kinds ------------------------------------------------------------------------------------


class TagSite(CoSite):
    """A static blog on a case-sensitive server with a tag controller: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx/1.24.0", "Caddy", "GitHub.com"))
        self.add("/")
        self.posts = [self.add(f"/posts/{slug}/") for slug in rng.sample(_POSTS, max(2, min(6, budget // 4)))]
        self.static_tags: dict[str, Page] = {}
        for upper, lower in rng.sample(_TAG_PAIRS, rng.randint(1, 2)):
            self.static_tags[upper] = self.add(f"/tag/{upper}/")
            self.static_tags[lower] = self.exception(self.add(f"/tag/{lower}/"))
            self.traps.append(f"/tag/{upper}/ vs /tag/{lower}/ (two tags with posts)")
        self.spellings_empty: list[str] = []
        for name in rng.sample(_EMPTY_TAGS, rng.randint(2, 3)):
            forms = [name, name.lower(), name.upper()]
            self.spellings_empty += rng.sample(forms, rng.randint(2, 3))
        first = self.spellings_empty[0]
        self.placeholder = self.add(f"/tag/{first}/", doc=f"{self.host}/tag/-no-posts-yet-")
        self.placeholder.links = ["suggest", "/"]  # relative: the suggestion page of the tag as spelled
        self.placeholder_key = (self.host, f"/tag/{first}/", "")
        self.unspanned.add(self.placeholder.doc_id)
        self.suggest: dict[str, Page] = {}
        for spelling in self.spellings_empty:
            page = self.add(f"/tag/{spelling}/suggest")
            page.links.append("/")
            self.suggest[spelling] = page
            self.hidden.add(page.doc_id)
        self.traps.append(
            f"{len(self.spellings_empty)} empty-tag spellings, one byte-identical placeholder, "
            "a relative link to a page per spelling"
        )

    def query_key(self, path: str, query: str) -> str:
        return ""

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        special = self.special(authority, raw_path, query)
        if special is not None:
            return special
        path = decode_path(raw_path)
        if (authority, path, "") in self.routes and (authority, path, "") != self.placeholder_key:
            return super().answer(authority, raw_path, query)
        parts = path.split("/")
        # The tag controller: a tag with no page written (no posts yet), with or without a slash.
        tag_url = len(parts) in (3, 4) and parts[1] == "tag" and parts[2] and (len(parts) == 3 or parts[3] == "")
        if tag_url and parts[2] not in self.static_tags:
            return self.render(self.placeholder)
        if not path.endswith("/") and (authority, path + "/", "") in self.routes:
            return self.redirect(authority, raw_path + "/")
        return self.fall_back(authority, raw_path)

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        for spelling in self.spellings_empty:
            self.link_from(rng, pen, placed, f"http://{self.host}/tag/{spelling}/")
            if rng.random() < 0.4:  # also slash-less: the same placeholder, its link then /tag/suggest
                self.link_from(rng, pen, placed, f"http://{self.host}/tag/{spelling}")
        for name, page in self.static_tags.items():
            for post in rng.sample(self.posts, min(2, len(self.posts))):
                page.links.append(pen.plain(page, post))
                post.links.append(f"/tag/{name}/")


class ShopSite(CoSite):
    """A PHP shop: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.57 (Debian)", "nginx", "LiteSpeed"))
        self.currency = rng.random() < 0.5
        self.print_mode = rng.choice(("ignored", "page", "some"))
        self.counter = rng.random() < 0.25
        self.colored: set[str] = set()
        self.printable: set[str] = set()
        self.add("/")
        self.add("/catalog")
        self.exception(self.add("/catalog", "page=2"))
        if rng.random() < 0.5:
            self.exception(self.add("/catalog", "page=3"))
        self.exception(self.add("/catalog", "sort=price"))
        if rng.random() < 0.4:
            self.exception(self.add("/catalog", "sort=name"))
        self.traps.append("/catalog?page=1 is /catalog, ?page=2 is not; ?sort= reorders")
        ids = [str(n) for n in rng.sample(range(100, 999), max(4, min(9, budget // 2)))]
        sold_out = ids[: rng.randint(1, 3)]
        self.in_stock = ids[len(sold_out) :]
        self.items = {item: self.add(f"/item/{item}/") for item in self.in_stock}
        self.sold_out = sold_out
        self.placeholder = self.add(f"/item/{sold_out[0]}/", doc=f"{self.host}/item/-sold-out-")
        self.placeholder.links = ["reviews", "/catalog"]
        self.unspanned.add(self.placeholder.doc_id)
        for item in sold_out[1:]:
            self.alias(f"/item/{item}/", self.placeholder)
        for item in sold_out:
            self.hidden.add(self.add(f"/item/{item}/reviews").doc_id)
        self.traps.append(f"{len(sold_out)} sold-out item(s): one placeholder, reviews behind a relative link")
        for item in rng.sample(self.in_stock, min(len(self.in_stock), rng.randint(1, 2))):
            self.colored.add(item)
            self.exception(self.add(f"/item/{item}/", f"color={rng.choice(_COLORS)}"))
        self.traps.append(f"?color= a variant on {len(self.colored)} item(s), ignored on the others")
        if self.currency:
            for item in rng.sample(self.in_stock, min(2, len(self.in_stock))):
                page = self.exception(self.add(f"/item/{item}/", "currency=EUR"))
                self.banners[page.doc_id] = "<p>Price: 17,90 EUR</p>"
            self.traps.append("?currency=EUR another price")
        if self.print_mode != "ignored":
            chosen = self.in_stock if self.print_mode == "page" else rng.sample(self.in_stock, 1)
            self.printable.update(chosen)
            for item in rng.sample(chosen, min(2, len(chosen))):
                self.exception(self.add(f"/item/{item}/", "view=print"))
            self.traps.append(f"?view=print a page ({self.print_mode})")
        self.results = [self.exception(self.add("/search", f"q={t}")) for t in rng.sample(("lamp", "chair", "desk"), 1)]
        self.misses = rng.sample(("zzz", "qwerty", "lmp", "asdf", "xyz"), rng.randint(2, 4))
        self.no_results = self.add("/search", f"q={self.misses[0]}", doc=f"{self.host}/search-no-results")
        self.no_results.links = ["/catalog", "/"]
        self.unspanned.add(self.no_results.doc_id)
        self.saved = [self.exception(self.add("/saved", f"s={_hex(rng)}")) for _ in range(rng.randint(1, 2))]
        self.traps.append("?s=<hex> a saved search on /saved, a share token ignored on items")
        for page in self.pages:
            if page.path == "/" or page.doc_id in self.hidden or page.doc_id in self.unspanned:
                continue
            if page.query.startswith("currency="):
                continue
            self.banners.setdefault(page.doc_id, "<p>Price: 19.90 USD</p>" if "/item/" in page.path else "")

    def query_key(self, path: str, query: str) -> str:
        params = _params(query)
        if path == "/catalog":
            keep = []
            if params.get("page", "1") not in ("", "1"):
                keep.append(f"page={params['page']}")
            if params.get("sort"):
                keep.append(f"sort={params['sort']}")
            return "&".join(keep)
        if path == "/search":
            return f"q={params['q']}" if params.get("q") else ""
        if path == "/saved":
            return f"s={params['s']}" if params.get("s") else ""
        if path.startswith("/item/") and path.endswith("/"):
            item = path.split("/")[2]
            keep = []
            if item in getattr(self, "colored", ()) and params.get("color"):
                keep.append(f"color={params['color']}")
            if getattr(self, "currency", False) and params.get("currency", "USD") not in ("", "USD"):
                keep.append(f"currency={params['currency']}")
            if params.get("view") == "print" and item in getattr(self, "printable", ()):
                keep.append("view=print")
            return "&".join(keep)
        return ""

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        special = self.special(authority, raw_path, query)
        if special is not None:
            return special
        path = decode_path(raw_path)
        key = (authority, path, self.query_key(path, query))
        if key in self.routes:
            return self.render(self.routes[key])
        if path == "/search":
            return self.render(self.no_results)
        if not path.endswith("/") and (authority, path + "/", "") in self.routes:
            return self.redirect(authority, raw_path + "/" + (f"?{query}" if query else ""))
        return self.fall_back(authority, raw_path)

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        base = f"http://{self.host}"
        self.link_from(rng, pen, placed, f"{base}/catalog?page=1")
        for item in self.sold_out:
            self.link_from(rng, pen, placed, f"{base}/item/{item}/")
        for term in self.misses:
            self.link_from(rng, pen, placed, f"{base}/search?q={term}")
        for item in self.in_stock:
            forms = [f"?ref={rng.choice(('home', 'footer'))}", f"?source={rng.choice(('mail', 'feed'))}"]
            forms.append(f"?s={_hex(rng)}")
            if item not in self.colored:
                forms.append(f"?color={rng.choice(_COLORS)}")
            if item not in self.printable:
                forms.append("?view=print")
            if not self.currency:
                forms.append("?currency=EUR")
            for form in rng.sample(forms, min(len(forms), rng.randint(1, 3))):
                self.link_from(rng, pen, placed, f"{base}/item/{item}/{form}")


class LegacySite(CoSite):
    """Apache 2.2 with MultiViews: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Apache/2.2.22 (Unix)"
        self.redirect_status = 301  # (mod_dir's DirectorySlash)
        self.add("/")
        self.dirs = rng.sample(_SECTIONS, rng.randint(3, 5))
        self.files: list[str] = []
        self.php_dirs: set[str] = set()
        for name in self.dirs:
            self.add(f"/{name}/")
        if rng.random() < 0.8:
            name = self.dirs[0]
            self.exception(self.add(f"/{name}"))  # RewriteRule ^name$ /cgi-bin/name.pl
            self.traps.append(f"/{name} (a script) vs /{name}/ (the directory)")
        if rng.random() < 0.8:
            name = self.dirs[1]
            self.php_dirs.add(f"/{name}/")
            self.exception(self.add(f"/{name}/index.html"))
            self.traps.append(f"/{name}/ (index.php) vs /{name}/index.html (an old page)")
        while len(self.pages) < budget:
            path = f"/{rng.choice(self.dirs)}/{rng.choice(_WORDS)}.html"
            if (self.host, path, "") not in self.routes:
                self.add(path)
                self.files.append(path)
        if self.files and rng.random() < 0.8:
            stem = rng.choice(self.files)[:-5]
            self.exception(self.add(stem))
            self.traps.append(f"{stem} (a page of its own) vs {stem}.html")
        self.etags = rng.choice(("none", "content", "weak"))

    def query_key(self, path: str, query: str) -> str:
        return ""

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        special = self.special(authority, raw_path, query)
        if special is not None:
            return special
        path = decode_path(raw_path)
        if (authority, path, "") in self.routes:
            return super().answer(authority, raw_path, query)
        if path.endswith("/index.html"):
            directory = path[: -len("index.html")]
            if directory not in self.php_dirs and (authority, directory, "") in self.routes:
                return self.render(self.routes[(authority, directory, "")])
        if not path.endswith("/") and (authority, path + "/", "") in self.routes:
            return self.redirect(authority, raw_path + "/")
        if (authority, path + ".html", "") in self.routes:
            reply = self.render(self.routes[(authority, path + ".html", "")])
            name = path.rsplit("/", 1)[-1] + ".html"
            return Reply(200, reply.body, {**reply.headers, "Content-Location": name, "Vary": "negotiate"})
        return self.fall_back(authority, raw_path)

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        base = f"http://{self.host}"
        for name in self.dirs:
            if (self.host, f"/{name}", "") not in self.routes:
                self.link_from(rng, pen, placed, f"{base}/{name}")
            if f"/{name}/" not in self.php_dirs:
                self.link_from(rng, pen, placed, f"{base}/{name}/index.html")
        for path in self.files:
            if (self.host, path[:-5], "") not in self.routes:
                self.link_from(rng, pen, placed, f"{base}{path[:-5]}")


class ProxiedSite(CoSite):
    """IIS with an application proxied under ``/app/``: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Microsoft-IIS/10.0"
        self.twin = "same" if rng.random() < 0.8 else "none"
        self.add("/")
        self.front: list[Page] = []
        for section in rng.sample(("Products", "Support", "Company", "Downloads"), 2):
            self.front.append(self.add(f"/{section}/"))
            for word in rng.sample(("Widget-Pro", "Overview", "Contact", "Pricing", "FAQ"), 2):
                self.front.append(self.add(f"/{section}/{word}.aspx"))
        pairs = rng.sample((("Report", "report"), ("Users/", "users/"), ("Export", "export")), rng.randint(1, 2))
        for upper, lower in pairs:
            self.add(f"/app/{upper}")
            self.exception(self.add(f"/app/{lower}"))
            self.traps.append(f"/app/{upper} vs /app/{lower} (case-sensitive application)")
        if self.twin == "same":
            www = self.other_host
            assert www is not None
            # Two blogs, each post reached from its own blog's index only.
            self.blogs = [self.exception(self.add("/blog/")), self.exception(self.add("/blog/", authority=www))]
            posts = [self.add("/blog/2009/archive.htm"), self.add("/blog/hello-world/", authority=www)]
            for blog, post in zip(self.blogs, posts, strict=True):
                blog.links.append(post.path)
                self.hidden.add(post.doc_id)
            self.traps.append(f"www.: the same pages, but {www}/blog/ is another virtual host")
        while len(self.pages) < budget:
            path = f"/{rng.choice(('Products', 'Support', 'News'))}/{rng.choice(_WORDS).title()}.aspx"
            if (self.host, self.fold(path), "") not in self.routes:
                self.front.append(self.add(path))

    def fold(self, path: str) -> str:
        if path.lower().startswith("/app/"):
            return "/app/" + path[5:]
        return path.lower()

    def query_key(self, path: str, query: str) -> str:
        return ""

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower().rstrip(".")
        netloc = headers.get(NETLOC_HEADER, host).lower()
        port = netloc.rpartition(":")[2]
        if port.isdigit() and port not in ("80", "443"):
            return self.finish(Reply.not_found(), headers)
        authority = self.host
        if host != self.host and decode_path(path).lower().startswith("/blog/"):
            authority = host  # the blog's virtual host
        return self.finish(self.answer(authority, path, query), headers)

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        if not path.endswith("/") and (authority, self.fold(path + "/"), "") in self.routes:
            return self.redirect(authority, raw_path + "/")
        return super().answer(authority, raw_path, query)

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        for page in self.front:
            for _ in range(rng.randint(1, 2)):
                self.link_from(rng, pen, placed, f"http://{self.host}{_swap_case(rng, page.path)}")
            if self.other_host and rng.random() < 0.6:
                self.link_from(rng, pen, placed, f"http://{self.other_host}{page.path}")


class RewritesSite(CoSite):
    """An application whose middlewares redirect spellings: see the module's docstring."""

    RULES = ("slash", "lower", "html", "ref", "www", "moved")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("gunicorn", "Kestrel", "Express", "openresty"))
        self.rules = set(rng.sample(self.RULES, 3))
        if "www" in self.rules:
            self.twin = "to_bare"
        self.add("/")
        self.plain: list[Page] = []
        for section in rng.sample(("guides", "blog", "pricing", "about-us", "careers", "docs"), 3):
            self.plain.append(self.add(f"/{section}"))
            for word in rng.sample(_WORDS, 2):
                self.plain.append(self.add(f"/{section}/{word}"))
        if "slash" in self.rules:
            name = rng.choice([page.path for page in self.plain if page.path.count("/") == 1])
            self.exception(self.add(name + "/"))
            self.traps.append(f"/x/ -> /x, but {name}/ is a page beside {name}")
        if "lower" in self.rules:
            self.add("/files/README")
            self.exception(self.add("/files/readme"))
            self.traps.append("/X -> /x, but /files/README vs /files/readme")
        if "html" in self.rules:
            self.add("/legacy")
            self.exception(self.add("/legacy.html"))
            self.traps.append("/x.html -> /x, but /legacy.html vs /legacy")
        self.invites: list[str] = []
        if "ref" in self.rules:
            self.add("/invite")
            self.invites = rng.sample(_NAMES, 2)
            for name in self.invites:
                self.exception(self.add("/invite", f"ref={name}"))
            self.traps.append("?ref= -> stripped, but /invite?ref=<name> are pages")
        if "www" in self.rules:
            www = self.other_host
            assert www is not None
            self.exception(self.add("/shop/", authority=www))
            self.exception(self.add("/shop/cart-help", authority=www))
            self.traps.append(f"www. -> bare, but {www}/shop/ is another virtual host")
        self.moved: list[str] = []
        if "moved" in self.rules:
            words = rng.sample(_WORDS, 4)
            for word in words[:3]:
                self.plain.append(self.add(f"/new/{word}"))
                self.moved.append(word)
            self.exception(self.add(f"/old/{words[3]}"))
            self.add(f"/new/{words[3]}")
            self.traps.append(f"/old/x -> /new/x, but /old/{words[3]} is a page of its own")
        # A login wall for most members' pages, a few public.
        self.public = rng.sample(_NAMES, 1)
        for name in self.public:
            self.exception(self.add(f"/members/{name}"))
        self.walled = [name for name in _NAMES if name not in self.public]
        self.login = self.add("/login")
        self.traps.append(f"/members/x -> 302 /login?next= but /members/{self.public[0]} is public")
        while len(self.pages) < budget:
            path = f"/{rng.choice(('blog', 'docs', 'news'))}/{rng.choice(_WORDS)}-{rng.randrange(10)}"
            if (self.host, path, "") not in self.routes:
                self.plain.append(self.add(path))
        # A shortener, a rotating featured page, a redirect chain.
        pool = self.plain + [page for page in others if "?" not in page.url]
        self.shorts = {str(n): rng.choice(pool).url for n in range(1, rng.randint(2, 4))}
        for number, url in self.shorts.items():
            self.specials[(self.host, f"/go/{number}", "")] = Reply.redirect(url, 302)
        self.loops.append(f"/go/N -> {len(self.shorts)}")
        self.featured = rng.sample(self.plain, min(3, len(self.plain)))
        self._rotation = 0
        self._lock = threading.Lock()
        end = rng.choice(self.plain)
        self.specials[(self.host, "/promo", "")] = Reply.redirect("/summer", 301)
        self.specials[(self.host, "/summer", "")] = Reply.redirect(f"{end.path}#top", 302)
        self.loops.append(f"/promo -> /summer -> {end.path}")

    def query_key(self, path: str, query: str) -> str:
        if path == "/invite":
            ref = _params(query).get("ref", "")
            return f"ref={ref}" if ref else ""
        return ""

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower().rstrip(".")
        if "www" in self.rules and host != self.host and decode_path(path).startswith("/shop/"):
            return self.finish(self.answer(host, path, query), headers)
        return super().handle(path, query, headers)

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        tail = f"?{query}" if query else ""
        if path == "/featured":
            with self._lock:
                self._rotation += 1
                target = self.featured[self._rotation % len(self.featured)]
            return self.redirect(authority, target.path, 302)
        if "ref" in self.rules and path != "/invite" and "ref" in _params(query):
            kept = "&".join(p for p in query.split("&") if p and not p.startswith("ref="))
            return self.redirect(authority, raw_path + (f"?{kept}" if kept else ""))
        if path == "/login":
            reply = self.render(self.login)
            hidden = f'<input type="hidden" name="next" value="{html.escape(_params(query).get("next", ""))}">'
            return Reply(200, reply.body.replace(b"</h1>", b"</h1>" + hidden.encode(), 1), reply.headers)
        if (authority, path, self.query_key(path, query)) in self.routes or (authority, path, query) in self.specials:
            return super().answer(authority, raw_path, query)
        if "lower" in self.rules and path != path.lower() and not path.startswith("/files/"):
            return self.redirect(authority, quote(path.lower()) + tail)
        if "slash" in self.rules and path.endswith("/") and path != "/":
            return self.redirect(authority, raw_path.rstrip("/") + tail)
        if "html" in self.rules and path.endswith(".html"):
            return self.redirect(authority, raw_path[:-5] + tail)
        if path.startswith("/old/") and (authority, "/new/" + path[5:], "") in self.routes:
            return self.redirect(authority, "/new/" + raw_path[5:] + tail)
        if path.startswith("/members/") and path[9:] in self.walled:
            return self.redirect(authority, "/login?next=" + quote(path, safe=""), 302)
        return super().answer(authority, raw_path, query)

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        base = f"http://{self.host}"
        for page in self.plain:
            forms = []
            if "slash" in self.rules and (self.host, page.path + "/", "") not in self.routes:
                forms.append(f"{base}{page.path}/")
            if "lower" in self.rules:
                forms.append(f"{base}{page.path.title()}")
            if "html" in self.rules:
                forms.append(f"{base}{page.path}.html")
            if "ref" in self.rules:
                forms.append(f"{base}{page.path}?ref={rng.choice(('nav', 'footer', 'mail'))}")
            if "www" in self.rules and self.other_host:
                forms.append(f"http://{self.other_host}{page.path}")
            for url in rng.sample(forms, min(len(forms), 2)):
                self.link_from(rng, pen, placed, url)
        for word in self.moved:
            self.link_from(rng, pen, placed, f"{base}/old/{word}")
        for name in self.walled:
            self.link_from(rng, pen, placed, f"{base}/members/{name}")
        for number in self.shorts:
            self.link_from(rng, pen, placed, f"{base}/go/{number}")
        self.link_from(rng, pen, placed, f"{base}/featured")
        self.link_from(rng, pen, placed, f"{base}/promo")


class DeploySite(CoSite):
    """A CMS behind a cache, validators per template and per deploy: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Varnish", "nginx", "Apache"))
        self.counter = rng.random() < 0.6
        self.head_quirk = rng.choice(("redirect", "length", "etag", ""))
        self.head = "405" if not self.head_quirk and rng.random() < 0.5 else "same"
        self.last_modified = True
        version = _hex(rng, 6)
        templates: dict[str, str] = {}

        def tagged(page: Page, template: str) -> Page:
            tag = templates.setdefault(template, rng.choice(('W/"{}-{}"', '"{}-{}"')).format(template, version))
            self.template_tags[page.doc_id] = tag
            return page

        tagged(self.add("/"), "home")
        tagged(self.add("/articles/"), "listing")
        tagged(self.add("/events/"), "listing")
        text = "Doors open at 19:00. Entry free."
        for day in rng.sample(range(1, 29), rng.randint(2, 4)):
            page = tagged(self.add(f"/events/2024-05-{day:02d}"), "event")
            self.texts[page.doc_id] = f"{text} Date: 2024-05-{day:02d}."
        self.traps.append("event pages that differ in their date only, one tag")
        months = rng.sample(range(1, 13), rng.randint(2, 3))
        for month in months:
            page = tagged(self.add("/report", f"month=2024-{month:02d}"), "report")
            self.texts[page.doc_id] = f"Monthly visitors: {1000 + month}."
        self.traps.append("/report?month= pages that differ in one figure")
        while len(self.pages) < budget:
            path = f"/articles/{rng.choice(_WORDS)}-{rng.randrange(100)}"
            if (self.host, path, "") not in self.routes:
                tagged(self.add(path), "article")
        self.traps.append(f"one tag per template ({len(templates)}), one Last-Modified")

    def query_key(self, path: str, query: str) -> str:
        month = _params(query).get("month", "")
        return f"month={month}" if path == "/report" and month else ""


class RoutesSite(CoSite):
    """An application with non-strict routing and relative links: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Puma", "Express", "Werkzeug/3.0.1", "gunicorn"))
        self.add("/")
        self.spelled: list[Page] = []  # linked with and without the slash
        for section in rng.sample(("docs", "help", "guides", "learn"), 2):
            index = self.add(f"/{section}")
            index.links = rng.sample(("intro", "setup", "faq", "pricing", "contact", "install"), 2)
            for name in index.links:  # relative: /name from /section, /section/name from /section/
                inner = self.add(f"/{section}/{name}")
                self.hidden.add(inner.doc_id)
                if (self.host, f"/{name}", "") not in self.routes:
                    self.hidden.add(self.add(f"/{name}").doc_id)
            self.unspanned.add(index.doc_id)
            self.traps.append(f"/{section} and /{section}/ one page, its relative links two")
        while len(self.pages) < budget:
            path = f"/{rng.choice(('blog', 'news', 'about', 'changelog'))}-{rng.randrange(100)}"
            if (self.host, path, "") not in self.routes:
                self.spelled.append(self.add(path))

    def fold(self, path: str) -> str:
        return path.rstrip("/") or "/"

    def query_key(self, path: str, query: str) -> str:
        return ""

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        for page in self.pages:
            if page.doc_id in self.unspanned:  # a section's index: both spellings, from the first pages
                self.link_from(rng, pen, placed, page.url)
                self.link_from(rng, pen, placed, page.url + "/")
        for page in self.spelled:
            self.link_from(rng, pen, placed, page.url + "/")


_CLASSES: dict[str, type[CoSite]] = {
    "tags": TagSite,
    "shop": ShopSite,
    "legacy": LegacySite,
    "proxied": ProxiedSite,
    "rewrites": RewritesSite,
    "deploy": DeploySite,
    "routes": RoutesSite,
}


# -- the web ------------------------------------------------------------------------------------


class CoincidenceWeb(WildWeb):
    """A :class:`~demoweb.wildweb.WildWeb` whose check follows every URL that answers ``200``
    (placeholders that are one document at many URLs, and what their relative links reach)."""

    def plain_reachable(self) -> set[str]:
        """Documents reached from the start URLs through URLs that answer ``200`` themselves,
        each fingerprint taken once, as stock does."""
        reached: set[str] = set()
        seen: set[str] = set()
        queue = deque(self.start_urls)
        while queue:
            url = queue.popleft()
            key = canonicalize_url(url)
            if key in seen:
                continue
            seen.add(key)
            reply = self.fetch(url)
            if reply.status != 200:
                continue
            doc = doc_id_of(reply)
            if doc:
                reached.add(doc)
            queue.extend(self.links_of(url, reply.body))
        return reached

    def reached_within(self, depth_limit: int, *, through_featured: bool) -> set[str]:
        """Documents within ``depth_limit`` links of the start URLs (``DEPTH_LIMIT``), each
        URL taken at the least depth it is linked at; a redirect keeps its request's depth,
        as Scrapy's does. A rotating ``/featured`` is not fetched (that would turn it):
        with ``through_featured`` it leads to each of its pages, else to none."""
        best: dict[str, int] = {}
        reached: set[str] = set()
        queue: deque[tuple[str, int]] = deque((url, 0) for url in self.start_urls)
        while queue:  # (a 0-1 breadth-first search: a redirect costs no depth)
            url, depth = queue.popleft()
            key = canonicalize_url(url)
            if best.get(key, depth_limit + 1) <= depth:
                continue
            best[key] = depth
            parts = urlsplit(url)
            if parts.path.endswith("/featured"):
                site = self.sites.get((parts.hostname or "").rstrip(".").lower())
                if through_featured and site is not None:
                    queue.extendleft((page.url, depth) for page in getattr(site, "featured", ()))
                continue
            target, doc, links = self.visit(url)
            if target is not None:
                queue.appendleft((target, depth))
                continue
            if doc:
                reached.add(doc)
            if depth < depth_limit:
                queue.extend((link, depth + 1) for link in links)
        return reached

    def spelling_problems(self) -> list[str]:
        """Links stock would take as one URL (one fingerprint) that lead to different documents."""
        outcome: dict[str, tuple[str, str | None]] = {}
        problems = []
        for page in self.pages:
            for href in page.links:
                for url in self.links_of(page.url, f'<a href="{html.escape(href)}">'.encode()):
                    key = canonicalize_url(url)
                    if urlsplit(url).path.endswith("/featured"):
                        continue  # (rotates: a redirect, never a spelling of a document)
                    doc = self.resolve(url)
                    first = outcome.setdefault(key, (url, doc))
                    if first[1] != doc:
                        problems.append(f"{url} -> {doc} but {first[0]} -> {first[1]} (one fingerprint)")
        return problems

    def check(self) -> list[str]:
        return super().check() + self.spelling_problems()


def generate_coincidence_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> CoincidenceWeb:
    """A web of 2-5 hosts and about 15-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the forms the hosts coincide on (evidence twice over)."""
    rng = random.Random(f"coincidence:{seed}")
    count = rng.randint(2, 5)
    budgets = split_budget(rng, rng.randint(10, 45), count, least=5)
    kinds = [rng.choice(KINDS) for _ in range(count)]
    sites: list[CoSite] = []
    for index, kind in enumerate(kinds):
        site = draw_cross_cutting(rng, _CLASSES[kind](f"{kind}{index}.test", kind))
        site.build(rng, min(budgets[index], 20), [page for other in sites for page in other.linkable()])
        sites.append(site)
    web = CoincidenceWeb(seed, *hosted(sites))
    return woven(rng, web, sites, f"coincidence:{seed}", query_pages=query_pages, meta_refresh=meta_refresh)


def hosted(sites: Sequence[CoSite]) -> tuple[dict[str, Any], list[str], set[str], list[Any]]:
    """A web's hosts, start URLs (none yet: :func:`weave` names them), documents and sites."""
    by_host: dict[str, Any] = {host: site for site in sites for host in site.hosts}
    return by_host, [], {page.doc_id for site in sites for page in site.pages}, list(sites)


def woven(
    rng: random.Random, web: W, sites: Sequence[CoSite], name: str, *, query_pages: bool, meta_refresh: bool
) -> W:
    """``web`` with its links woven (:func:`weave`), refresh stubs where asked (drawn from
    ``name``'s own generator) and every page's links shuffled."""
    pen = Pen(rng, web)
    weave(rng, web, sites, pen, query_pages=query_pages)
    if meta_refresh:
        add_refreshes(random.Random(f"{name}:refresh"), web, pen)
    for site in sites:
        for page in site.sources():
            rng.shuffle(page.links)
    return web


def draw_cross_cutting(rng: random.Random, site: S) -> S:
    """``site`` with the wild web's cross-cutting quirks drawn: redirect status and ``Location``
    style, validators, ``HEAD``, gzip, rotating ads, a visitor counter."""
    site.redirect_status = rng.choice((301, 301, 302, 303, 307, 308))
    site.location = rng.choice(("absolute", "relative", "upper", "port", "schemeless"))
    site.etags = rng.choice(("none", "none", "content", "weak"))
    site.last_modified = rng.random() < 0.3
    site.head = rng.choice(("same", "same", "405", "plain"))
    if site.head == "plain" and site.etags == "none":
        site.etags = "content"
    site.gzip = rng.random() < 0.3
    site.ads = rng.random() < 0.2
    site.counter = rng.random() < 0.1
    return site


def weave(rng: random.Random, web: CoincidenceWeb, sites: Sequence[CoSite], pen: Pen, *, query_pages: bool) -> None:
    """The links of a web of :class:`CoSite` hosts: every page but placeholders and what hides
    behind them spanned from a reachable parent in its exact URL, the exceptions last (a chain
    from the deepest page); each kind's evidence links (twice with ``query_pages``); then
    extra links to random targets, mostly written as variants the servers answer alike."""
    for index, site in enumerate(sites):
        home = site.pages[0]
        if index == 0 or rng.random() < 0.35:
            web.start_urls.append(home.url)
        else:
            parent = rng.choice([page for earlier in sites[:index] for page in earlier.sources()])
            parent.links.append(home.url)
        placed = [home]
        for page in site.pages[1:]:
            if page.doc_id in site.hidden or page.doc_id in site.unspanned or page.doc_id in site.late:
                continue
            parent = rng.choice(placed)
            parent.links.append(pen.plain(parent, page))
            placed.append(page)
        for page in site.pages:
            if page.doc_id in site.late:
                parent = placed[-1]
                parent.links.append(pen.plain(parent, page))
                placed.append(page)
        site.evidence(pen, rng, placed)
        if query_pages:
            site.evidence(pen, rng, placed)

    # Extra links: random targets, mostly written as variants the servers answer alike.
    everything = [page for site in sites for page in site.linkable() if page.doc_id not in site.late]
    for site in sites:
        linkable = [page for page in site.linkable() if page.doc_id not in site.late]
        for page in site.sources():
            for _ in range(rng.randint(1, 3)):
                target = rng.choice(linkable) if rng.random() < 0.8 else rng.choice(everything)
                page.links.append(pen.plain(page, target) if rng.random() < 0.3 else pen.variant(page, target))
            if rng.random() < 0.1:
                page.links.append(pen.spell(page, pen.broken(page), exact=False))


def add_refreshes(rng: random.Random, web: CoincidenceWeb, pen: Pen) -> None:
    """On about half the hosts, a page that moves on by ``<meta http-equiv="refresh">``."""
    linkable = [page for site in web.hosts for page in site.linkable()]  # type: ignore[attr-defined]
    for site in web.hosts:
        assert isinstance(site, CoSite)
        if rng.random() < 0.5:
            continue
        target = rng.choice(linkable)
        url = rng.choice((target.url, pen.variant(target, target)))
        authority = site.pages[0].host
        site.specials[(authority, "/refresh", "")] = refresh_stub(url)
        site.pages[0].links.append(f"http://{authority}/refresh")
        site.loops.append(f"refresh->{url}")


# -- the comparison ---------------------------------------------------------------------------


class CoincidenceComparison(FamilyComparison):
    """A comparison on a coincidence web: requests, pages and documents per kind of host."""

    @property
    def lost(self) -> set[str]:
        return super().lost - self.rotation_luck

    @cached_property
    def rotation_luck(self) -> set[str]:
        """Documents the add-on did not collect that a ``rewrites`` host's rotating
        ``/featured`` leads to, with ``DEPTH_LIMIT``: where that redirect is the only way
        to them within the limit, which of its pages a crawl gets depends on how often
        the crawls before it asked (the rotation runs on across both crawls) and how
        often it asks itself, not on what it dropped (seed 1099, ``--depth-limit 4``
        drawn as 1: stock's ``/featured`` led to ``/guides/faq``, the add-on's, asked
        next, to ``/blog/notes``). Without a limit each is reached by its own links.
        The same holds below such a page: a document within the limit only through
        ``/featured`` (seed 3093, ``--depth-limit 3``: stock's ``/featured`` led to
        ``/pricing/notes`` at depth 1, and from there to ``legacy1.test/`` at depth 3;
        the add-on's to ``/blog/guide``, and ``/pricing/notes``, linked at depth 2 from
        ``/blog``, is one level too deep for it). Not counted as lost, reported apart."""
        if not self.order.depth_limit:
            return set()
        featured = {
            page.doc_id for site in self.web.sites.values() for page in getattr(site, "featured", ()) if page.doc_id
        }
        if not featured:
            return set()
        missing = super().lost
        luck = missing & featured
        if missing - luck:
            web = self.web
            assert isinstance(web, CoincidenceWeb)
            limit = self.order.depth_limit
            only_featured = web.reached_within(limit, through_featured=True) - web.reached_within(
                limit, through_featured=False
            )
            luck |= missing & only_featured
        return luck


async def compare_coincidence(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> CoincidenceComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_coincidence_web(seed)``, with per-kind tallies."""
    order = order or CrawlOrder.from_seed(seed)
    web = generate_coincidence_web(seed, meta_refresh=order.refresh, query_pages=order.params)
    return await compare_by_family(
        web,
        seed,
        workdir,
        addon_settings,
        order,
        family=kind_of,
        comparison=CoincidenceComparison,
        serving=serve_wild,
    )
