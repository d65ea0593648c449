"""A sixth generator of seeded webs: how modern static hosting, CDNs and SEO plugins spell URLs.

Written by an outside checker from what hosting platforms, edge caches and site builders do
with the spelling of a URL: spellings that usually answer one page (byte for byte, or by a
redirect to it) and, on the same host, the one place they do not. Each host is one *kind*;
each exception is linked late (after the host's coincidences have been linked many times
over) and is the only way to the document behind it:

- ``netlify`` (Netlify with Pretty URLs): a file ``x.html`` is served at ``/x``;
  ``/x.html`` -> 301 ``/x``, ``/x/`` -> 301 ``/x``; a directory's ``/d/index.html`` -> 301
  ``/d/``, ``/d`` -> 301 ``/d/``; the query is ignored. Exception: a directory ``/guides/``
  beside a legacy file ``guides.html``: ``/guides`` is that file (another page), whose
  relative link ``guides-faq`` leads to a page linked nowhere else (``/guides/guides-faq``
  from the directory's spelling: a 404).
- ``ghpages`` (GitHub Pages, Jekyll output): ``/x`` serves ``x.html`` with ``200`` (no
  redirect) and so does ``/x.html``, byte for byte; ``/d`` -> 301 ``/d/``; ``/d/index.html``
  is ``/d/`` byte for byte; ``/x/`` of a file 404. Exception: ``notes.html`` beside the
  directory ``notes/``: ``/notes`` (and ``/notes.html``) is that file, not a redirect to
  ``/notes/``; its relative link ``notes/<year>`` leads to a page linked nowhere else.
  (An extensionless file would be GitHub's ``application/octet-stream``, no page.)
- ``cdn`` (a CDN in front of a static origin, the query left out of the cache key): cache
  busters ``?v=3``, ``?ver=1.2.7``, ``?_=1700000000``, ``?v=<hash>`` answer the page byte for
  byte. Exception: the origin's ``/api-docs`` (passed through with its query), where ``?v=3``
  (the current version) is ``/api-docs`` but ``?v=2`` the old docs, whose relative link
  ``api-docs/v2/migration`` leads to a page linked nowhere else.
- ``wordpress`` (WordPress with an SEO plugin, the AMP plugin and Jetpack sharing): ``/?p=N``
  and ``/?page_id=N`` -> 301 the permalink; ``/slug`` -> 301 ``/2023/05/slug/``; ``/x`` -> 301
  ``/x/``; ``/index.php`` and ``/page/1/`` -> 301 ``/``; ``/2023/05/slug/2/`` -> 301 the post
  (one page); ``?replytocom=N`` the post byte for byte; ``?share=twitter`` 302 off the web.
  AMP pages are documents of their own (another HTML), at ``/2023/05/slug/amp/`` and
  ``?amp=1`` (``?amp``) byte for byte; ``?amp=1`` on a post without AMP 302 to the post.
  Exceptions: ``/page/2/`` (older posts: one linked nowhere else) and the one post split by
  ``<!--nextpage-->``, whose ``/2/`` is its second page (relative link
  ``../attachment/figure-1/`` an attachment page linked nowhere else).
- ``shopify`` (a Shopify store): ``/collections/c/products/p`` is ``/products/p`` byte for byte
  (``rel=canonical`` ``/products/p``), as is ``/collections/all/products/p``; ``?variant=N`` and
  ``?view=quick`` (no such template) ignored; a collection's ``?page=1`` and
  ``?sort_by=manual`` (its default order) are the collection. Exceptions: one collection's
  ``?page=2`` and another's ``?sort_by=price-ascending`` (canonical: the unsorted
  collection), each listing a product linked nowhere else.
- ``canonical-liar`` (a misconfigured SEO plugin): every page's ``rel=canonical`` names the home
  page, every listing page's names ``/blog/``; ``/x`` -> 301 ``/x/``; ``/blog/?page=1`` and
  ``?page=0`` are ``/blog/`` byte for byte, the home ignores ``?page=``. Exception:
  ``/blog/?page=2`` (older posts, canonical ``/blog/``), its relative link ``../posts/<slug>/``
  a post linked nowhere else.
- ``hreflang`` (a multilingual site with ``<link rel="alternate" hreflang>``): ``/`` -> 302
  ``/en/`` (``Vary: Accept-Language``), ``/en`` -> 301 ``/en/``; ``/en-us/x`` and ``/en-gb/x``
  are ``/en/x`` byte for byte (one English content); German pages at ``/de/``. Exception:
  ``/en-gb/pricing`` (prices in GBP) a page of its own, its relative link ``vat`` leading to
  ``/en-gb/vat``, linked nowhere else.
- ``macos`` (Apache on a Mac, an APFS volume case-insensitive and normalization-insensitive):
  ``/Café.html`` in NFC (``%C3%A9``), NFD (``e%CC%81``), lower-case escapes, any case
  (``/CAFÉ.HTML``) is one file; ``/d`` -> 301 ``/d/``, ``/d/index.html`` is ``/d/``. Exception: a
  case-sensitive volume mounted at ``/cs/`` (the mount point itself found case-insensitively):
  ``/cs/Readme.html`` and ``/cs/README.html`` are two files, the second's relative link
  ``CHANGES.html`` leading to a page linked nowhere else.
- ``nextjs`` (``next start`` with ``trailingSlash: true``): ``/x`` -> 308 ``/x/`` (with a
  ``Refresh`` header), ``//x/`` -> 308 ``/x/`` (repeated slashes), while names with an
  extension lose it: ``/releases/v1.2/`` -> 308 ``/releases/v1.2``. Exception: with
  ``skipTrailingSlashRedirect`` and a middleware that rewrites ``/docs`` and ``/docs/<page>`` to
  a hosted documentation app, ``/docs`` is the app's landing page beside the Next.js page
  ``/docs/``; its relative link ``docs/api-reference`` leads to a page linked nowhere else.
- ``edge`` (an edge worker in front of a static site, Cloudflare): click ids and campaign
  parameters (``gclid``, ``fbclid``, ``msclkid``, ``utm_*``, ``_gl``) stripped before the cache,
  the page byte for byte; e-mail links obfuscated as ``/cdn-cgi/l/email-protection#<hex>``
  (one page without a document). Exception: the campaign landing page ``/lp/spring``, whose
  origin reads ``utm_campaign``: ``?utm_campaign=spring-sale`` is the campaign's own page
  (any other campaign the plain page), its relative link ``spring/coupon`` leading to a
  page linked nowhere else. A newsletter tags links to up to three other pages with that
  campaign too, from the host's first pages: they answer the plain page, and say
  nothing of the landing page, linked later. Where the host has entity tags, half the
  workers (their own draw) pass the origin's tag through on the page they rewrote for the
  campaign and forward ``If-None-Match`` to the origin, as a worker that returns
  ``fetch(request)`` transformed does: the campaign's page carries the plain page's tag, and
  a conditional request for it with that tag is answered ``304``.

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter; kinds whose product answers with
one status set it), sometimes a ``www.`` twin that serves the same pages, and links are spelled
with an upper-case host, a trailing-dot host, ``:80``, tracking parameters and fragments where
the server ignores them (each checked).

Every document is collected by stock Scrapy by construction, which :meth:`HostingWeb.check`
proves over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached
from a start URL through URLs that answer ``200``, and no two spellings stock takes as one
(w3lib's ``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import html
import random
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .quirksweb import QSite, QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply
from .wildweb import Pen, content_tag, decode_path, encode_path, render

KINDS = (
    "netlify",
    "ghpages",
    "cdn",
    "wordpress",
    "shopify",
    "canonical-liar",
    "hreflang",
    "macos",
    "nextjs",
    "edge",
)
_WORDS = ("intro", "guide", "history", "pricing", "setup", "roadmap", "faq", "notes", "install", "team")
_POSTS = ("hello-world", "release-notes", "why-static", "ci-setup", "benchmarks", "roadmap", "migration", "v2")
_PRODUCTS = ("linen-shirt", "wool-socks", "canvas-tote", "leather-belt", "denim-jacket", "rain-coat", "silk-scarf")
_COLLECTIONS = ("summer", "sale", "new-arrivals", "accessories")
_MAC_NAMES = ("Café", "Résumé", "Crème Brûlée", "Naïve Art", "Ångström", "Über uns", "Piñata")
_HTML = {"Content-Type": "text/html; charset=utf-8"}


def _int(text: str, default: int = 0) -> int:
    """The leading digits of ``text`` (``"2abc"`` is 2), else ``default``."""
    match = re.match(r"\s*(\d+)", text)
    return int(match.group(1)) if match else default


def _tail(query: str) -> str:
    return f"?{query}" if query else ""


class HSite(QSite):
    """A host of one kind; :meth:`head_links` adds ``<link>`` elements to a page's ``<head>``."""

    def head_links(self, page: Page) -> str:
        """Extra ``<head>`` markup for ``page`` (canonical, alternates): none by default."""
        return ""

    def render(self, page: Page) -> Reply:
        reply = super().render(page)
        extra = self.head_links(page)
        if not extra:
            return reply
        return Reply(reply.status, reply.body.replace(b"</head>", extra.encode() + b"</head>", 1), reply.headers)

    def exact(self, authority: str, path: str) -> Page | None:
        return self.routes.get((authority, path, ""))


def _link(rel: str, href: str, **attributes: str) -> str:
    extra = "".join(f' {name}="{html.escape(value)}"' for name, value in attributes.items())
    return f'<link rel="{rel}"{extra} href="{html.escape(href)}">'


# -- kinds ------------------------------------------------------------------------------------


class NetlifySite(HSite):
    """Netlify with Pretty URLs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Netlify"
        self.redirect_status = 301
        self.home = self.add("/")
        for word in rng.sample(_WORDS, max(2, min(6, budget - 11))):
            self.add(f"/{word}")
        for section in rng.sample(("blog", "docs", "changelog", "showcase"), 2):
            self.add(f"/{section}/")
            for word in rng.sample(_WORDS, 2):
                self.add(f"/{section}/{word}")
        name = rng.choice(("guides", "learn", "tutorials"))
        self.add(f"/{name}/")
        self.add(f"/{name}/{rng.choice(_WORDS)}")
        self.legacy = self.exception(self.add(f"/{name}"))
        hidden = self.add(f"/{name}-faq")
        self.behind(self.legacy, hidden, f"{name}-faq")
        self.traps.append(f"/x.html, /x/ -> 301 /x and /d -> 301 /d/, but /{name} (guides.html) beside /{name}/")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        found = self.exact(authority, path)
        if found is not None:
            return found
        if path.endswith("/index.html") and self.exact(authority, path[:-10]):
            return self.redirect(authority, encode_path(path[:-10]) + _tail(query))
        if path.endswith(".html") and self.exact(authority, path[:-5]):
            return self.redirect(authority, encode_path(path[:-5]) + _tail(query))
        if path.endswith("/") and path != "/" and self.exact(authority, path[:-1]):
            return self.redirect(authority, encode_path(path[:-1]) + _tail(query))
        if not path.endswith("/") and self.exact(authority, path + "/"):
            return self.redirect(authority, encode_path(path + "/") + _tail(query))
        return None

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/index.html", f"{base}/?utm_source=netlify"]
        if page is self.legacy:
            return [f"{base}{page.path}.html"]
        if page.path.endswith("/"):
            forms = [f"{base}{page.path}index.html"]
            if not self.exact(self.host, decode_path(page.path[:-1])):
                forms.append(f"{base}{page.path[:-1]}")
            return forms
        return [f"{base}{page.path}.html", f"{base}{page.path}/"]


class GhPagesSite(HSite):
    """GitHub Pages: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "GitHub.com"
        self.redirect_status = 301
        self.home = self.add("/")
        for word in rng.sample(_WORDS, max(2, min(6, budget - 10))):
            self.add(f"/{word}")
        for section in rng.sample(("projects", "talks", "blog"), 2):
            self.add(f"/{section}/")
            for word in rng.sample(_WORDS, 2):
                self.add(f"/{section}/{word}")
        self.add("/notes/")
        self.add(f"/notes/{rng.choice(_WORDS)}")
        self.file = self.exception(self.add("/notes"))
        year = rng.randrange(2012, 2020)
        self.behind(self.file, self.add(f"/notes/{year}"), f"notes/{year}")
        self.traps.append("/x = /x.html (200), /d -> 301 /d/, but /notes (notes.html) beside /notes/")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        found = self.exact(authority, path)
        if found is not None:
            return found
        if path.endswith("/index.html"):
            return self.exact(authority, path[:-10])
        if path.endswith(".html"):
            return self.exact(authority, path[:-5])
        if not path.endswith("/") and self.exact(authority, path + "/"):
            return self.redirect(authority, encode_path(path + "/") + _tail(query))
        return None

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/index.html"]
        if page.path.endswith("/"):
            forms = [f"{base}{page.path}index.html"]
            if not self.exact(self.host, decode_path(page.path[:-1])):
                forms.append(f"{base}{page.path[:-1]}")
            return forms
        return [f"{base}{page.path}.html"]


class CdnSite(HSite):
    """A CDN in front of a static origin: see the module's docstring."""

    CURRENT = "3"

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("cloudflare", "AmazonS3", "Fastly"))
        self.home = self.add("/")
        for section in rng.sample(("products", "blog", "docs"), 2):
            for word in rng.sample(_WORDS, max(2, min(5, (budget - 4) // 2))):
                self.add(f"/{section}/{word}")
        self.docs = self.add("/api-docs")
        self.old = self.exception(self.add("/api-docs", "v=2"))
        self.behind(self.old, self.add("/api-docs/v2/migration"), "api-docs/v2/migration")
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"Cache-Control": "public, max-age=600", "X-Cache": "Hit from cdn"}
        self.traps.append("?v=, ?ver=, ?_= cache busters ignored, but /api-docs?v=2 the old docs")

    def query_key(self, path: str, query: str) -> str:
        if path != "/api-docs":
            return ""
        version = self.params(query).get("v", "")
        return "" if version in ("", self.CURRENT) else f"v={version}"

    def spellings(self, page: Page) -> list[str]:
        stamp = 1_700_000_000 + random.Random(page.doc_id).randrange(10**6)
        forms = [f"{page.url}?v={self.CURRENT}", f"{page.url}?ver=1.2.7", f"{page.url}?_={stamp}"]
        if page is not self.docs:
            forms.append(f"{page.url}?v={random.Random(page.doc_id).getrandbits(32):08x}")
        return forms


class WordPressSite(HSite):
    """WordPress with an SEO plugin, AMP and Jetpack sharing: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache"))
        self.redirect_status = 301
        self.home = self.add("/")
        ids = iter(rng.sample(range(2, 400), 20))
        self.page_ids: dict[int, Page] = {}
        for slug in rng.sample(("about", "contact", "privacy-policy", "team"), 2):
            self.page_ids[next(ids)] = self.add(f"/{slug}/")
        self.posts: dict[int, Page] = {}
        self.slugs: dict[str, Page] = {}
        self.amp: dict[str, Page] = {}  # a post's path -> its AMP page
        for slug in rng.sample(_POSTS, max(2, min(6, (budget - 6) // 2))):
            post = self.add(f"/2023/{rng.randint(1, 12):02d}/{slug}/")
            self.posts[next(ids)] = post
            self.slugs[slug] = post
            post.links.append(f"{post.path}?share=twitter&nb=1")
            if rng.random() < 0.5:
                self.amp[post.path] = self.add(f"{post.path}amp/")
        self.long = next(iter(self.posts.values()))
        self.second = self.exception(self.add(f"{self.long.path}2/"))
        self.behind(self.second, self.add(f"{self.long.path}attachment/figure-1/"), "../attachment/figure-1/")
        self.older = self.exception(self.add("/page/2/"))
        self.behind(self.older, self.add(f"/2019/03/{rng.choice(('first-post', 'old-news'))}/"))
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"Link": f'<http://{self.host}/wp-json/>; rel="https://api.w.org/"'}
        self.traps.append(f"/slug/N/ -> 301 the post, but {self.long.path}2/ is its second page; /page/2/")

    def post_of(self, path: str) -> Page | None:
        match = re.fullmatch(r"(/\d{4}/\d{2}/[^/]+/)(?:\d+/?)?", path)
        page = self.exact(self.host, match.group(1)) if match else None
        return page if page in self.posts.values() else None

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/index.php") and "p" in params:
            post = self.posts.get(_int(params["p"]))
            return self.redirect(authority, post.path) if post else None
        if path in ("/", "/index.php") and "page_id" in params:
            found = self.page_ids.get(_int(params["page_id"]))
            return self.redirect(authority, found.path) if found else None
        page = self.exact(authority, path)
        if page is not None and "share" in params:
            target = quote(f"http://{self.host}{page.path}", safe="")
            return Reply.redirect(f"http://twitter.test/intent/tweet?url={target}", 302)
        if page is not None and "amp" in params and page not in self.amp.values():
            if page.path in self.amp:
                return self.amp[page.path]
            kept = "&".join(p for p in query.split("&") if p and p.partition("=")[0] != "amp")
            return self.redirect(authority, page.path + _tail(kept), 302)
        if page is not None:
            return page
        if path in ("/index.php", "/page/1/", "/page/1"):
            return self.redirect(authority, "/" + _tail(query))
        if not path.endswith("/") and self.exact(authority, path + "/"):
            return self.redirect(authority, encode_path(path + "/") + _tail(query))
        post = self.post_of(path)
        if post is not None:  # redirect_canonical: a page number a one-page post does not have
            return self.redirect(authority, post.path + _tail(query))
        bare = self.slugs.get(path.strip("/"))
        if bare is not None:  # redirect_guess_404_permalink
            return self.redirect(authority, bare.path + _tail(query))
        return None

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/page/1/", f"{base}/index.php"]
        for number, found in self.page_ids.items():
            if found is page:
                return [f"{base}/?page_id={number}", f"{base}{page.path[:-1]}"]
        for path, amp in self.amp.items():
            if amp is page:
                return [f"{base}{path}?amp=1", f"{base}{path}?amp"]
        for number, post in self.posts.items():
            if post is page:
                slug = page.path.split("/")[3]
                forms = [f"{base}/?p={number}", f"{base}/{slug}", f"{base}{page.path[:-1]}"]
                forms.append(f"{page.url}?replytocom={number * 7 % 300 + 1}")
                if page is not self.long:
                    forms.append(f"{page.url}2/")
                if page.path not in self.amp:
                    forms.append(f"{page.url}?amp=1")
                return forms
        return []


class ShopifySite(HSite):
    """A Shopify store: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "cloudflare"
        self.home = self.add("/")
        self.add("/pages/about")
        handles = rng.sample(_PRODUCTS, max(3, min(5, budget - 7)) + 2)
        hidden = handles[-2:]
        self.products = {handle: self.add(f"/products/{handle}") for handle in handles[:-2]}
        self.variants = {handle: rng.randrange(10**13, 10**14) for handle in self.products}
        self.members: dict[str, list[str]] = {}
        for name in rng.sample(_COLLECTIONS, 2):
            listing = self.add(f"/collections/{name}")
            self.members[name] = rng.sample(list(self.products), 2)
            listing.links += [f"/collections/{name}/products/{handle}" for handle in self.members[name]]
        self.add("/collections/all").links += [f"/collections/all/products/{handle}" for handle in self.products]
        first, second = self.members
        paged = self.exception(self.add(f"/collections/{first}", "page=2"))
        self.behind(paged, self.add(f"/products/{hidden[0]}"), f"/collections/{first}/products/{hidden[0]}")
        self.sorted = self.exception(self.add(f"/collections/{second}", "sort_by=price-ascending"))
        self.behind(self.sorted, self.add(f"/products/{hidden[1]}"), f"/collections/{second}/products/{hidden[1]}")
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"powered-by": "Shopify", "x-shopify-stage": "production"}
        self.traps.append(f"?page=1, ?sort_by=manual are the collection, but {first}?page=2, {second}?sort_by=price")

    def query_key(self, path: str, query: str) -> str:
        if not re.fullmatch(r"/collections/[^/]+", path):
            return ""
        params = self.params(query)
        keep = []
        number = _int(params.get("page", "1"), 1)
        if number > 1:
            keep.append(f"page={number}")
        if params.get("sort_by", "manual") not in ("", "manual"):
            keep.append(f"sort_by={params['sort_by']}")
        return "&".join(keep)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        match = re.fullmatch(r"/collections/([^/]+)/products/([^/]+)", path)
        if match and (match.group(1) in self.members or match.group(1) == "all"):
            return self.plain_page(f"/products/{match.group(2)}")
        return super().route(authority, path, raw_path, query)

    def head_links(self, page: Page) -> str:
        base = f"http://{self.host}"
        if page.path.startswith("/products/"):
            return _link("canonical", f"{base}{page.path}")
        if page.path.startswith("/collections/"):  # (sort orders left out, page numbers kept)
            kept = "&".join(p for p in page.query.split("&") if p.startswith("page="))
            return _link("canonical", f"{base}{page.path}{_tail(kept)}")
        return _link("canonical", page.url)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        for handle, product in self.products.items():
            if product is page:
                forms = [
                    f"{base}/collections/{name}/products/{handle}" for name, m in self.members.items() if handle in m
                ]
                forms += [f"{base}/collections/all/products/{handle}", f"{page.url}?view=quick"]
                return [*forms, f"{page.url}?variant={self.variants[handle]}"]
        if page.path.startswith("/collections/") and not page.query:
            return [f"{page.url}?page=1", f"{page.url}?sort_by=manual", f"{page.url}?page=1&sort_by=manual"]
        return []


class LiarSite(HSite):
    """A misconfigured SEO plugin: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache", "nginx", "LiteSpeed"))
        self.home = self.add("/")
        slugs = rng.sample(_POSTS, max(3, min(7, budget - 5)) + 1)
        self.listing = self.add("/blog/")
        for slug in slugs[:-1]:
            self.add(f"/posts/{slug}/")
            self.listing.links.append(f"/posts/{slug}/")
        for slug in rng.sample(("about", "contact", "imprint"), 2):
            self.add(f"/{slug}/")
        self.older = self.exception(self.add("/blog/", "page=2"))
        self.behind(self.older, self.add(f"/posts/{slugs[-1]}/"), f"../posts/{slugs[-1]}/")
        self.traps.append("every canonical names / (listings /blog/); /blog/?page=1 is /blog/, ?page=2 is not")

    def query_key(self, path: str, query: str) -> str:
        if path != "/blog/":
            return ""
        number = _int(self.params(query).get("page", "1"), 1)
        return f"page={number}" if number > 1 else ""

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        found = super().route(authority, path, raw_path, query)
        if found is None and not path.endswith("/") and self.exact(authority, path + "/"):
            return self.redirect(authority, encode_path(path + "/") + _tail(query))
        return found

    def head_links(self, page: Page) -> str:
        return _link("canonical", f"http://{self.host}{'/blog/' if page.path == '/blog/' else '/'}")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/?page=1", f"{base}/?page=2"]
        if page is self.listing:
            return [f"{base}/blog/?page=1", f"{base}/blog/?page=0", f"{base}/blog"]
        return [f"{base}{page.path[:-1]}"]


class HreflangSite(HSite):
    """A multilingual site with hreflang alternates: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "cloudflare"))
        self.home = self.add("/en/")
        words = ["pricing", *rng.sample([w for w in _WORDS if w != "pricing"], max(2, min(6, budget - 7)))]
        self.english = {word: self.add(f"/en/{word}") for word in words}
        self.german = [self.add("/de/")] + [self.add(f"/de/{word}") for word in words[1:3]]
        self.gb = self.exception(self.add("/en-gb/pricing"))
        self.texts[self.gb.doc_id] = "Plans from GBP 9 a month, VAT included."
        self.behind(self.gb, self.add("/en-gb/vat"), "vat")
        self.traps.append("/en-us/x = /en-gb/x = /en/x, but /en-gb/pricing (GBP) is a page of its own")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path == "/":
            reply = self.redirect(authority, "/en/", 302)
            return Reply(reply.status, reply.body, {**reply.headers, "Vary": "Accept-Language"})
        match = re.fullmatch(r"/(en|en-us|en-gb|de)(/.*)?", path)
        if not match:
            return None
        lang, rest = match.groups()
        if rest is None:
            return self.redirect(authority, f"/{lang}/" + _tail(query))
        found = self.exact(authority, path)
        if found is None and lang in ("en-us", "en-gb"):
            found = self.exact(authority, "/en" + rest)
        return found

    def head_links(self, page: Page) -> str:
        base = f"http://{self.host}"
        if not page.path.startswith("/en/"):
            return _link("canonical", page.url)
        rest = page.path[3:]
        tags = [_link("canonical", page.url)]
        tags += [_link("alternate", f"{base}/{lang}{rest}", hreflang=lang) for lang in ("en-us", "en-gb")]
        if self.exact(self.host, "/de" + rest):
            tags.append(_link("alternate", f"{base}/de{rest}", hreflang="de"))
        tags.append(_link("alternate", f"{base}/", hreflang="x-default"))
        return "".join(tags)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/", f"{base}/en", f"{base}/en-us/", f"{base}/en-gb/"]
        if not page.path.startswith("/en/"):
            return []
        rest = page.path[3:]
        forms = [f"{base}/en-us{rest}"]
        if rest != "/pricing":
            forms.append(f"{base}/en-gb{rest}")
        return forms


class MacSite(HSite):
    """Apache on a Mac's case- and normalization-insensitive volume: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Apache/2.4.56 (Unix)"
        self.redirect_status = 301
        self.home = self.add("/")
        for name in rng.sample(_MAC_NAMES, max(2, min(5, budget - 9))):
            self.add(f"/{name}.html")
        for folder in rng.sample(("Photos", "Docs", "Projects"), 2):
            self.add(f"/{folder}/")
            for name in rng.sample(("ReadMe", "Index Card", "Notes", "Été", "Café Menu"), 2):
                self.add(f"/{folder}/{name}.html")
        self.add("/cs/Readme.html")
        self.upper = self.exception(self.add("/cs/README.html"))
        self.behind(self.upper, self.add("/cs/CHANGES.html"), "CHANGES.html")
        self.traps.append("case and NFC/NFD fold, but /cs/ (a case-sensitive volume): Readme.html vs README.html")

    def fold(self, path: str) -> str:
        path = unicodedata.normalize("NFC", path)
        head, sep, rest = path[1:].partition("/")
        if sep and head.lower() == "cs":
            return "/cs/" + rest
        return path.lower()

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        found = super().route(authority, path, raw_path, query)
        if found is not None:
            return found
        folded = self.fold(path)
        if folded.endswith("/index.html"):
            return self.routes.get((authority, folded[:-10], ""))
        if not folded.endswith("/") and (authority, folded + "/", "") in self.routes:
            return self.redirect(authority, raw_path + "/" + _tail(query))
        return None

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        path = decode_path(page.path)
        if page is self.home:
            return [f"{base}/index.html", f"{base}/INDEX.HTML"]
        forms = []
        nfd = encode_path(unicodedata.normalize("NFD", path))
        if nfd != page.path:
            forms.append(f"{base}{nfd}")
        if "%" in page.path:
            forms.append(base + re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), page.path))
        if path.startswith("/cs/"):
            return [*forms, f"{base}/CS{page.path[3:]}", f"{base}/Cs{page.path[3:]}"]
        forms += [f"{base}{encode_path(path.lower())}", f"{base}{encode_path(path.upper())}"]
        if path.endswith("/"):
            forms += [f"{base}{page.path}index.html", f"{base}{page.path[:-1]}"]
        return [form for form in forms if form != page.url]


class NextSite(HSite):
    """``next start`` with ``trailingSlash: true``: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "Vercel"))
        self.redirect_status = 308
        self.home = self.add("/")
        for word in rng.sample(_WORDS, max(2, min(5, budget - 10))):
            self.add(f"/{word}/")
        self.add("/blog/")
        for slug in rng.sample(_POSTS, 2):
            self.add(f"/blog/{slug}/")
        self.add("/releases/")
        for version in rng.sample(("v1.2", "v1.3", "v2.0"), 2):
            self.add(f"/releases/{version}")
        self.section = self.add("/docs/")
        self.app = self.exception(self.add("/docs"))
        self.behind(self.app, self.add("/docs/api-reference"), "docs/api-reference")
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"X-Powered-By": "Next.js"}
        self.traps.append("/x -> 308 /x/ (v1.2/ -> v1.2), but /docs (the docs app) beside /docs/")

    def redirect(self, authority: str, target: str, status: int | None = None) -> Reply:
        reply = super().redirect(authority, target, status)
        return Reply(reply.status, reply.body, {**reply.headers, "Refresh": f"0;url={target}"})

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if "//" in raw_path:
            return self.redirect(authority, re.sub("/+", "/", raw_path) + _tail(query))
        if path == "/docs" or (path.startswith("/docs/") and not path.endswith("/")):
            return self.exact(authority, path)  # (the middleware's rewrite to the docs app)
        dotted = re.search(r"\.\w+$", path.rstrip("/")) is not None
        if path != "/" and path.endswith("/") and dotted:
            return self.redirect(authority, raw_path.rstrip("/") + _tail(query))
        if not path.endswith("/") and not dotted:
            return self.redirect(authority, raw_path + "/" + _tail(query))
        return self.exact(authority, path)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}//"]
        if page is self.section:
            return [f"{base}/{page.path}"]
        if not page.path.endswith("/"):
            return [f"{page.url}/"]
        return [f"{base}{page.path[:-1]}", f"{base}/{page.path}"]


class EdgeSite(HSite):
    """An edge worker that strips click ids: see the module's docstring."""

    CAMPAIGN = "spring-sale"
    newsletter_sent = False

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "cloudflare"
        self.home = self.add("/")
        for section in ("features", "customers"):
            self.add(f"/{section}/")
        for word in rng.sample(_WORDS, max(2, min(7, budget - 6))):
            self.add(f"/blog/{word}/")
        self.landing = self.add("/lp/spring")
        self.campaign = self.exception(self.add("/lp/spring", f"utm_campaign={self.CAMPAIGN}"))
        self.texts[self.campaign.doc_id] = "Spring sale: 30% off every plan until May."
        self.behind(self.campaign, self.add("/lp/spring/coupon"), "spring/coupon")
        body = render(None, ["/"], title="Email Protection | Cloudflare", text="You are unable to access this email.")
        self.protection = Reply(200, body, dict(_HTML))
        for page in rng.sample(self.pages[:4], 2):
            page.links.append(f"/cdn-cgi/l/email-protection#{rng.getrandbits(64):016x}")
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"CF-Cache-Status": "HIT"}
        self.traps.append("gclid, fbclid, utm_* stripped, but /lp/spring?utm_campaign=spring-sale is its own page")
        # Its own draw (seeded by what the host drew, which differs from seed to seed): every
        # other page of earlier seeds stays as it was.
        drawn = ",".join(page.doc_id for page in self.pages)
        self.passes_origin_tags = random.Random(f"{self.host}:worker:{drawn}").random() < 0.5
        if self.passes_origin_tags and self.etags in ("content", "weak"):
            self.traps.append("the campaign's page carries the plain page's entity tag (304 to it)")

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        super().evidence(pen, rng, placed)
        if self.newsletter_sent:  # (evidence is drawn twice with query pages)
            return
        self.newsletter_sent = True
        # Its own draws: the rest of the web stays as every earlier seed built it.
        mail = random.Random(f"{self.host}:newsletter")
        others = [page for page in placed if page.doc_id not in self.late and page is not self.landing]
        for page in mail.sample(others, min(3, len(others))):
            self.link_from(mail, pen, placed, f"{page.url}?utm_campaign={self.CAMPAIGN}")

    def query_key(self, path: str, query: str) -> str:
        if path != "/lp/spring":
            return ""
        campaign = self.params(query).get("utm_campaign", "")
        return f"utm_campaign={campaign}" if campaign == self.CAMPAIGN else ""

    def render(self, page: Page) -> Reply:
        reply = super().render(page)
        if page is self.campaign and self.passes_origin_tags and self.etags in ("content", "weak"):
            # The origin's tag for the page it served (the plain one), on the page the worker
            # rewrote; a conditional request with it goes to the origin, which answers 304.
            tag = content_tag(super().render(self.landing).body, weak=self.etags == "weak")
            reply = Reply(reply.status, reply.body, {**reply.headers, "ETag": tag})
        return reply

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path == "/cdn-cgi/l/email-protection":
            return self.protection
        return super().route(authority, path, raw_path, query)

    def spellings(self, page: Page) -> list[str]:
        click = random.Random(page.doc_id).getrandbits(48)
        return [
            f"{page.url}?gclid=Cj0KCQjw{click:x}",
            f"{page.url}?fbclid=IwAR{click:x}",
            f"{page.url}?msclkid={click:032x}",
            f"{page.url}?utm_source=google&utm_medium=cpc&utm_campaign=brand",
            f"{page.url}?_gl=1*{click:x}*_ga*MTIzNDU2",
        ]


_CLASSES: dict[str, type[HSite]] = {
    "netlify": NetlifySite,
    "ghpages": GhPagesSite,
    "cdn": CdnSite,
    "wordpress": WordPressSite,
    "shopify": ShopifySite,
    "canonical-liar": LiarSite,
    "hreflang": HreflangSite,
    "macos": MacSite,
    "nextjs": NextSite,
    "edge": EdgeSite,
}


# -- the web ------------------------------------------------------------------------------------


class HostingWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of hosting kinds (the same checks)."""


def generate_hosting_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> HostingWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds(
        "hosting", seed, KINDS, _CLASSES, HostingWeb, meta_refresh=meta_refresh, query_pages=query_pages
    )


# -- the comparison ---------------------------------------------------------------------------


class HostingComparison(FamilyComparison):
    """A comparison on a hosting web: requests, pages and documents per kind of host."""


async def compare_hosting(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> HostingComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_hosting_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_hosting_web, HostingComparison, seed, workdir, addon_settings, order)
