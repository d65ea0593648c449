"""A seventh generator of seeded webs: how e-commerce platforms, forums and enterprise CMSs spell URLs.

Written by an outside checker from what shop platforms, forum software and enterprise content
management systems do with the spelling of a URL: spellings that answer one page (byte for
byte, or by a redirect to it) and, on the same host, the one place they do not. Each host is
one *kind*; each exception is linked late (after the host's coincidences have been linked many
times over) and is the only way to the document behind it. Where a real page carries the
request's parameters along into some of its links (a shop's toolbar, a pager), those links are
left out: each page links what it lists.

- ``magento`` (Magento 2, SEO URLs with the ``.html`` suffix): a product at ``/linen-shirt.html``
  is also answered at its system route ``/catalog/product/view/id/<n>`` (and
  ``.../id/<n>/s/linen-shirt/``), a category ``/shirts.html`` at ``/catalog/category/view/id/<n>``,
  every page under the front controller ``/index.php/...``; on a listing, the layered
  navigation's filters ``?color=<option>&size=<option>`` are read in any order, ``?p=1`` is the
  first page, the toolbar's defaults ``?product_list_limit=12``, ``?product_list_order=position``,
  ``?product_list_mode=grid`` change nothing, nor do ``?___store=default`` (the store already
  shown) and ``?SID=<session>``; every listing's ``rel=canonical`` names the category without
  its page number. Exceptions: one category's ``?p=2`` (page two, another product) and, on the
  other, a filter value that selects other products (``?color=<another option>&size=...``).
- ``woocommerce`` (WordPress with WooCommerce): ``/product/<slug>`` -> 301 ``/product/<slug>/``,
  ``/?p=<id>`` and ``/?product=<slug>`` -> 301 the product, ``/shop/?paged=2`` -> 301
  ``/shop/page/2/``, ``/shop/page/1/`` and ``/?post_type=product`` -> 301 ``/shop/``; the
  geolocation cache buster ``?v=<hash>`` is ignored everywhere, and ``?orderby=menu_order``
  (the default sort, as is any order it does not know) is the listing itself. Exception:
  ``/shop/?orderby=price``, the products in another order, whose own pagination link
  ``page/2/?orderby=price`` leads to a page listing a product linked nowhere else.
- ``demandware`` (Salesforce Commerce Cloud, SFRA): ``/s/<Site>/<slug>-<pid>.html`` is also its
  pipeline URL ``/on/demandware.store/Sites-<Site>-Site/en_US/Product-Show?pid=<pid>``, a
  category ``/s/<Site>/<cat>/`` is ``.../Search-Show?cgid=<cat>``, the home ``/`` is
  ``/s/<Site>/home`` and ``.../Home-Show``; ``?lang=en_US`` (the default locale) and a
  listing's ``?start=0&sz=12`` (its first page at the default size) change nothing.
  Exception: a variation attribute ``?dwvar_<pid>_color=<color>`` on one product is the variant's
  page (another image, and a "complete the look" link to a product linked nowhere else).
- ``vbulletin`` (vBulletin 4 with friendly URLs): ``showthread.php?123-Thread-Title``,
  ``showthread.php?t=123`` and ``showthread.php?123`` are one thread (on half the hosts the
  canonical-URL option 301s the others to the friendly one), ``&page=1`` is page one, a page
  past the last is clamped to it (``&page=2`` of a one-page thread is the thread), a guest's
  session ``?s=<32 hex>`` is ignored; forums likewise (``forumdisplay.php?f=2`` =
  ``forumdisplay.php?2-Title``), ``/index.php`` and ``/forum.php`` are ``/``. Exceptions: the
  long thread's ``/page2`` (its relative link to a member's profile ``member.php?<u>-<name>``,
  linked nowhere else) and its print view ``printthread.php?t=123``, another document, whose
  own pager links its page two (``&page=2&pp=40``), linked nowhere else.
- ``aem`` (Adobe Experience Manager behind the dispatcher): ``/content/<site>/en/x.html`` and the
  shortened ``/en/x.html`` (resource mapping) are one page, ``/en/x`` -> 301 ``/en/x.html``,
  ``/`` -> ``/en.html``; selectors no script handles render the page itself
  (``/en/x.nocache.html``), and the query is not read on publish (``?wcmmode=disabled``).
  Exception: the ``print`` selector, which the page component has a script for:
  ``/en/x.print.html`` is a print view, its relative link ``x/references.html`` leading to a page
  linked nowhere else.
- ``sitecore`` (Sitecore on IIS, ``languageEmbedding="asNeeded"``, lower-case URLs): paths are
  case-insensitive, ``/en/x`` is ``/x`` (the default language), ``/x.aspx`` and ``/x/`` are ``/x``
  (no redirect), ``?sc_lang=en`` is ignored. Exception: ``/docs/``, which an IIS rewrite rule
  (ignoring case, as its rules do by default) proxies to a static documentation bucket whose
  keys are case-sensitive: ``/docs/changelog.html`` and ``/docs/CHANGELOG.html`` are two files,
  the second's relative link ``CHANGELOG-1.x.html`` leading to a page linked nowhere else. (The
  brief named the media library ``/-/media/``; Sitecore's media handler finds media items by
  path case-insensitively, so a proxied section is the case-sensitive handler modelled.)
- ``angular`` (an Angular Universal app on Express that replaced an AngularJS one): every page
  has ``<base href="/">``; the router matches ``/x/`` as ``/x`` (200, no redirect); old hash-bang
  links ``/#!/x`` are still on the pages (the home, for a crawler), and the server answers the
  AJAX crawling scheme, ``/?_escaped_fragment_=/x`` and ``/x?_escaped_fragment_=``, with the
  route's render; unknown routes render the app shell (200). Exception: the blog list, whose
  component reads ``?page=`` (``?page=1`` the list itself): ``/blog?page=2`` lists older posts,
  one of them linked nowhere else.
- ``faceted`` (Drupal Commerce with Search API and Facets, query-string URLs): the active
  facets ``f[i]=alias:value`` are read as a set (``/search?f[0]=color:red&f[1]=size:m`` is
  ``?f[0]=size:m&f[1]=color:red``, indices need not start at 0), facet links are written
  sorted (``asort``, so either order renders the same links), the pager is 0-based (``?page=0``
  the first page),
  ``/index.php/x`` is ``/x``, a product's ``?v=<its default variation>`` the product.
  Exceptions: ``/search?page=1``, the listing's *second* page, and one facet combination that is
  another listing: a second colour (facets OR values of one facet) lists a product linked
  nowhere else.

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter; kinds whose product answers with
one status set it), sometimes a ``www.`` twin that serves the same pages, and links are spelled
with an upper-case host, a trailing-dot host, ``:80``, tracking parameters and fragments where
the server ignores them (each checked).

Every document is collected by stock Scrapy by construction, which :meth:`CommerceWeb.check`
proves over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached
from a start URL through URLs that answer ``200``, and no two spellings stock takes as one
(w3lib's ``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from .quirksweb import QSite, QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply
from .wildweb import decode_path, encode_path

KINDS = ("magento", "woocommerce", "demandware", "vbulletin", "aem", "sitecore", "angular", "faceted")
_WORDS = ("intro", "guide", "history", "pricing", "setup", "roadmap", "faq", "notes", "install", "team")
_POSTS = ("hello-world", "release-notes", "why-ssr", "ci-setup", "benchmarks", "roadmap", "migration", "v2")
_PRODUCTS = (
    "linen-shirt",
    "wool-socks",
    "canvas-tote",
    "leather-belt",
    "denim-jacket",
    "rain-coat",
    "silk-scarf",
    "cotton-tee",
    "suede-boots",
    "cashmere-beanie",
    "chino-shorts",
    "fleece-vest",
    "trail-runner",
    "oxford-shirt",
)
_CATEGORIES = ("shirts", "knitwear", "outerwear", "accessories", "footwear", "sale")
_COLORS = ("red", "blue", "black", "green", "navy", "olive")
_FORUMS = ("General-Discussion", "Buying-Advice", "Sizing-and-Fit", "Off-Topic", "Announcements")
_THREADS = (
    "Sizing-question-for-the-linen-shirt",
    "Anyone-tried-the-rain-coat",
    "Shipping-to-Canada",
    "Returns-took-three-weeks",
    "Best-socks-for-hiking",
    "Wool-vs-cashmere",
    "Discount-codes-thread",
    "Photos-of-your-setup",
    "New-colours-announced",
)
_USERS = ("alice", "bob_k", "carol77", "dave", "erin-m")
_PAGES = ("about-us", "contact", "careers", "investors", "sustainability", "press", "stores", "support")


def _int(text: str, default: int = 0) -> int:
    """The leading digits of ``text`` (``"2abc"`` is 2), else ``default``."""
    match = re.match(r"\s*(\d+)", text)
    return int(match.group(1)) if match else default


def _tail(query: str) -> str:
    return f"?{query}" if query else ""


def _hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(4 * digits):0{digits}x}"


def _link(rel: str, href: str) -> str:
    return f'<link rel="{rel}" href="{html.escape(href)}">'


def _without(query: str, *names: str) -> str:
    """``query`` without the parameters ``names`` (the others as written)."""
    return "&".join(p for p in query.split("&") if p and p.partition("=")[0] not in names)


class CSite(QSite):
    """A host of one kind; :meth:`head_links` adds ``<link>`` elements to a page's ``<head>``."""

    def head_links(self, page: Page) -> str:
        """Extra ``<head>`` markup for ``page`` (a canonical): none by default."""
        return ""

    def render(self, page: Page) -> Reply:
        reply = super().render(page)
        extra = self.head_links(page)
        if not extra:
            return reply
        return Reply(reply.status, reply.body.replace(b"</head>", extra.encode() + b"</head>", 1), reply.headers)

    def exact(self, authority: str, path: str) -> Page | None:
        return self.routes.get((authority, path, ""))


# -- kinds ------------------------------------------------------------------------------------


class MagentoSite(CSite):
    """Magento 2 with SEO URLs: see the module's docstring."""

    #: The toolbar's defaults: parameters with these values change nothing.
    DEFAULTS = (
        ("product_list_limit", "12"),
        ("product_list_order", "position"),
        ("product_list_mode", "grid"),
        ("product_list_dir", "asc"),
    )

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "nginx/1.18.0", "Apache"))
        self.home = self.add("/")
        names = rng.sample(_CATEGORIES, 2)
        slugs = rng.sample(_PRODUCTS, max(3, min(8, budget - 7)) + 2)
        ids = iter(rng.sample(range(3, 2000), len(slugs) + 2))
        self.listings: dict[str, int] = {f"/{name}.html": next(ids) for name in names}  # path -> category id
        self.categories: dict[int, Page] = {number: self.add(path) for path, number in self.listings.items()}
        self.products: dict[int, Page] = {}  # product id -> its page
        visible, hidden = slugs[:-2], slugs[-2:]
        for slug in visible:
            self.products[next(ids)] = self.add(f"/{slug}.html")
        first, second = self.categories.values()
        listed = [page.path for page in self.products.values()]
        first.links += listed[: len(listed) // 2 + 1]
        second.links += listed[len(listed) // 2 :]
        color, other, size = [*rng.sample(range(49, 60), 2), rng.randrange(166, 172)]
        self.option = (color, size)
        self.filtered = self.add(second.path, f"color={color}&size={size}")
        self.filtered.links += rng.sample(listed, 2)
        self.paged = self.exception(self.add(first.path, "p=2"))
        self.texts[self.paged.doc_id] = "Page 2 of 2. Items 13-16 of 16."
        self.narrowed = self.exception(self.add(second.path, f"color={other}&size={size}"))
        for page, slug in ((self.paged, hidden[0]), (self.narrowed, hidden[1])):
            product = self.add(f"/{slug}.html")
            self.products[next(ids)] = product
            self.behind(page, product, f"/{slug}.html")
        self.traps.append(
            f"toolbar defaults, ___store, SID, ?p=1 ignored; {first.path}?p=2 page two, "
            f"{second.path}?color={other} other products"
        )

    def query_key(self, path: str, query: str) -> str:
        if path not in getattr(self, "listings", {}):
            return ""
        params = self.params(query)
        keep = [f"{name}={_int(params[name])}" for name in ("color", "size") if params.get(name)]
        number = _int(params.get("p", "1"), 1)
        if number > 1:
            keep.append(f"p={number}")
        keep += [f"{name}={params[name]}" for name, default in self.DEFAULTS if params.get(name, default) != default]
        return "&".join(keep)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if self.params(query).get("___store", "default") != "default":
            return None  # (another store view: not modelled)
        if path == "/index.php" or path.startswith("/index.php/"):
            path = path[len("/index.php") :] or "/"
        match = re.fullmatch(r"/catalog/product/view/id/(\d+)(?:/s/[\w-]+)?/?", path)
        if match:
            return self.products.get(int(match.group(1)))
        match = re.fullmatch(r"/catalog/category/view/id/(\d+)(?:/s/[\w-]+)?/?", path)
        if match:
            category = self.categories.get(int(match.group(1)))
            if category is None:
                return None
            path = decode_path(category.path)
        return self.routes.get((authority, path, self.query_key(path, query)))

    def head_links(self, page: Page) -> str:
        return _link("canonical", f"http://{self.host}{page.path}")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        rng = random.Random(page.doc_id)
        session = f"SID={_hex(rng, 26)}"
        if page is self.home:
            return [f"{base}/index.php", f"{base}/?___store=default", f"{base}/?{session}"]
        for number, product in self.products.items():
            if product is page:
                slug = page.path[1:-5]
                return [
                    f"{base}/catalog/product/view/id/{number}",
                    f"{base}/catalog/product/view/id/{number}/s/{slug}/",
                    f"{base}/index.php{page.path}",
                    f"{page.url}?___store=default",
                    f"{page.url}?{session}",
                ]
        defaults = [f"{name}={default}" for name, default in self.DEFAULTS[:3]]
        for number, category in self.categories.items():
            if category is page:
                return [
                    f"{page.url}?p=1",
                    f"{base}/catalog/category/view/id/{number}",
                    f"{base}/index.php{page.path}",
                    f"{page.url}?{rng.choice(defaults)}",
                    f"{page.url}?product_list_mode=grid&___store=default",
                    f"{page.url}?{session}",
                ]
        if page is self.filtered:
            color, size = self.option
            number = self.listings[page.path]
            return [
                f"{base}{page.path}?size={size}&color={color}",
                f"{page.url}&p=1",
                f"{page.url}&{rng.choice(defaults)}",
                f"{base}/catalog/category/view/id/{number}?size={size}&color={color}",
            ]
        return []


class WooSite(CSite):
    """WordPress with WooCommerce: see the module's docstring."""

    #: The orders WooCommerce knows besides its default (any other is the default).
    ORDERS = ("popularity", "rating", "date", "price", "price-desc")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache", "LiteSpeed"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.shop = [self.add("/shop/"), self.add("/shop/page/2/")]
        slugs = rng.sample(_PRODUCTS, max(3, min(8, budget - 8)) + 1)
        ids = iter(rng.sample(range(10, 900), len(slugs)))
        self.products: dict[int, Page] = {}  # post id -> product
        for slug in slugs[:-1]:
            self.products[next(ids)] = self.add(f"/product/{slug}/")
        listed = [page.path for page in self.products.values()]
        half = (len(listed) + 1) // 2
        self.shop[0].links += listed[:half]
        self.shop[1].links += listed[half:]
        self.category = self.add(f"/product-category/{rng.choice(_CATEGORIES)}/")
        self.category.links += rng.sample(listed, 2)
        self.sorted = self.exception(self.add("/shop/", "orderby=price"))
        self.sorted.links += listed[::-1][:half]
        older = self.add("/shop/page/2/", "orderby=price")
        self.behind(self.sorted, older, "page/2/?orderby=price")
        hidden = self.add(f"/product/{slugs[-1]}/")
        self.products[next(ids)] = hidden
        self.behind(older, hidden)
        self.texts[self.sorted.doc_id] = "Showing 1-12 of 20 results, sorted by price: low to high."
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"Link": f'<http://{self.host}/wp-json/>; rel="https://api.w.org/"'}
        self.traps.append("?orderby=menu_order, ?v= ignored, ?paged= -> /page/N/; but /shop/?orderby=price")

    def query_key(self, path: str, query: str) -> str:
        if not path.startswith(("/shop/", "/product-category/")):
            return ""
        order = self.params(query).get("orderby", "")
        return f"orderby={order}" if order in self.ORDERS else ""

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/index.php"):
            if "p" in params:
                post = self.products.get(_int(params["p"]))
                return self.redirect(authority, post.path) if post else None
            if "product" in params:
                found = self.plain_page(f"/product/{params['product']}/")
                return self.redirect(authority, found.path) if found else None
            if params.get("post_type") == "product":
                return self.redirect(authority, "/shop/" + _tail(_without(query, "post_type")))
            if path == "/index.php":
                return self.redirect(authority, "/" + _tail(query))
        match = re.fullmatch(r"/shop/(?:page/(\d+)/?)?", path)
        if match:  # redirect_canonical: ?paged=N -> /page/N/, /page/1/ -> the archive
            number = _int(params.get("paged", ""), 0) or int(match.group(1) or 1)
            target = "/shop/" + (f"page/{number}/" if number > 1 else "")
            if target != path or "paged" in params:
                return self.redirect(authority, target + _tail(_without(query, "paged")))
        found = self.routes.get((authority, path, self.query_key(path, query)))
        if found is not None:
            return found
        if not path.endswith("/") and self.exact(authority, path + "/"):
            return self.redirect(authority, encode_path(path + "/") + _tail(query))
        return None

    def head_links(self, page: Page) -> str:  # (Yoast: a sorted listing names the unsorted one)
        kept = _without(page.query, "orderby")
        return _link("canonical", f"http://{self.host}{page.path}{_tail(kept)}")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        buster = f"v={_hex(random.Random(page.doc_id), 12)}"
        if page is self.home:
            return [f"{base}/?{buster}", f"{base}/index.php"]
        if page is self.shop[0]:
            return [
                f"{page.url}?orderby=menu_order",
                f"{page.url}?{buster}",
                f"{base}/shop",
                f"{base}/shop/page/1/",
                f"{base}/shop/?paged=1",
                f"{base}/?post_type=product",
            ]
        if page is self.shop[1]:
            return [
                f"{base}/shop/?paged=2",
                f"{page.url}?orderby=menu_order",
                f"{base}/shop/page/2",
                f"{page.url}?{buster}",
            ]
        if page is self.category:
            return [f"{page.url}?{buster}", f"{base}{page.path[:-1]}", f"{page.url}?orderby=menu_order"]
        for number, product in self.products.items():
            if product is page:
                slug = page.path.split("/")[2]
                forms = [f"{base}/?p={number}", f"{base}/?product={slug}", f"{base}{page.path[:-1]}"]
                return [*forms, f"{page.url}?{buster}"]
        return []


class DemandwareSite(CSite):
    """Salesforce Commerce Cloud (SFRA): see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache", ""))
        site = rng.choice(("RefArch", "SiteGenesis", "Outfitters"))
        self.prefix = f"/s/{site}"
        self.pipeline = f"/on/demandware.store/Sites-{site}-Site/en_US"
        self.home = self.add("/")
        self.categories = {name: self.add(f"{self.prefix}/{name}/") for name in rng.sample(_CATEGORIES, 2)}
        slugs = rng.sample(_PRODUCTS, max(3, min(9, budget - 6)) + 1)
        pids = [f"{number}M" for number in rng.sample(range(10**7, 10**8), len(slugs))]
        self.products: dict[str, Page] = {}  # pid -> product page
        for slug, pid in zip(slugs[:-1], pids, strict=False):
            self.products[pid] = self.add(f"{self.prefix}/{slug}-{pid}.html")
        listed = [page.path for page in self.products.values()]
        for index, listing in enumerate(self.categories.values()):
            listing.links += listed[index::2]
        self.master = pids[0]
        self.color = rng.choice(("blue", "navy", "olive", "charcoal"))
        master = self.products[self.master]
        self.variant = self.exception(self.add(master.path, f"dwvar_{self.master}_color={self.color}"))
        self.texts[self.variant.doc_id] = f"Color: {self.color}. Image: {self.master}_{self.color}_large.jpg"
        look = self.add(f"{self.prefix}/{slugs[-1]}-{pids[-1]}.html")
        self.products[pids[-1]] = look
        self.behind(self.variant, look, f"{slugs[-1]}-{pids[-1]}.html")
        self.traps.append(f"?lang=en_US, ?start=0&sz=12 ignored; ?dwvar_{self.master}_color={self.color} a variant")

    def query_key(self, path: str, query: str) -> str:
        params = self.params(query)
        if path.endswith(".html"):
            return "&".join(sorted(f"{k}={v}" for k, v in params.items() if k.startswith("dwvar_") and v))
        if path.startswith(f"{getattr(self, 'prefix', '/s/')}/") and path.endswith("/"):
            keep = []
            if _int(params.get("start", "0")):
                keep.append(f"start={_int(params['start'])}")
            if _int(params.get("sz", "12"), 12) != 12:
                keep.append(f"sz={_int(params['sz'])}")
            return "&".join(keep)
        return ""

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if params.get("lang", "en_US") != "en_US":
            return None  # (another locale: not modelled)
        if path.startswith(self.pipeline + "/"):
            action = path[len(self.pipeline) + 1 :]
            if action == "Home-Show":
                path = "/"
            elif action == "Search-Show" and params.get("cgid") in self.categories:
                path = decode_path(self.categories[params["cgid"]].path)
            elif action == "Product-Show" and params.get("pid") in self.products:
                path = decode_path(self.products[params["pid"]].path)
            else:
                return None
        elif path == f"{self.prefix}/home":
            path = "/"
        return self.routes.get((authority, path, self.query_key(path, query)))

    def head_links(self, page: Page) -> str:
        return _link("canonical", f"http://{self.host}{page.path}")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [
                f"{base}/?lang=en_US",
                f"{base}{self.prefix}/home",
                f"{base}{self.prefix}/home?lang=en_US",
                f"{base}{self.pipeline}/Home-Show",
            ]
        for name, listing in self.categories.items():
            if listing is page:
                return [
                    f"{page.url}?lang=en_US",
                    f"{page.url}?start=0&sz=12",
                    f"{page.url}?sz=12",
                    f"{page.url}?lang=en_US&start=0",
                    f"{base}{self.pipeline}/Search-Show?cgid={name}",
                ]
        for pid, product in self.products.items():
            if product is page:
                return [f"{page.url}?lang=en_US", f"{base}{self.pipeline}/Product-Show?pid={pid}"]
        return []


class VBulletinSite(CSite):
    """vBulletin 4 with friendly URLs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache", "nginx", "LiteSpeed"))
        self.redirect_status = 301
        #: The "canonical URL" option: other spellings of a thread or forum 301 to the friendly one.
        self.canonical = rng.random() < 0.5
        self.home = self.add("/")
        self.forums: dict[int, Page] = {}
        for number, title in zip(rng.sample(range(2, 40), 2), rng.sample(_FORUMS, 2), strict=True):
            self.forums[number] = self.add("/forumdisplay.php", f"{number}-{title}")
        self.threads: dict[int, list[Page]] = {}  # thread id -> its pages
        for number in rng.sample(range(100, 9000), max(3, min(8, budget - 7))):
            forum = rng.choice(list(self.forums.values()))
            page = self.add("/showthread.php", f"{number}-{rng.choice(_THREADS)}")
            self.threads[number] = [page]
            forum.links.append(f"showthread.php?{page.query}")
        self.long = next(iter(self.threads))
        first = self.threads[self.long][0]
        second = self.exception(self.add("/showthread.php", f"{first.query}/page2"))
        self.threads[self.long].append(second)
        self.member = (rng.randrange(2, 5000), rng.choice(_USERS))
        self.profile = self.add("/member.php", "{}-{}".format(*self.member))
        self.behind(second, self.profile, f"member.php?{self.profile.query}")
        self.printed = [self.exception(self.add("/printthread.php", f"t={self.long}"))]
        self.printed.append(self.add("/printthread.php", f"t={self.long}&page=2&pp=40"))
        self.behind(self.printed[0], self.printed[1], f"printthread.php?t={self.long}&page=2&pp=40")
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"X-Powered-By": "vBulletin 4.2.5"}
        self.traps.append(
            f"?t=N, ?N-Title, &page=1, &s= one thread{' (301 to the friendly URL)' if self.canonical else ''}; "
            f"showthread.php?{second.query} and printthread.php?t={self.long} pages of their own"
        )

    def query_key(self, path: str, query: str) -> str:
        if path != "/printthread.php":
            return ""
        params = self.params(query)
        keep = [f"t={_int(params.get('t', ''))}"]
        if _int(params.get("page", "1"), 1) > 1:
            keep.append(f"page={_int(params['page'])}")
        if _int(params.get("pp", "40"), 40) != 40:
            keep.append(f"pp={_int(params['pp'])}")
        return "&".join(keep)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        pairs = parse_qsl(query, keep_blank_values=True)
        params = dict(pairs)
        friendly, match = "", None
        for name, value in pairs:
            match = re.fullmatch(r"(\d+)(?:-[^/]*)?(?:/page(\d+))?", name) if not value else None
            if match:
                friendly = name
                break
        if path in ("/", "/index.php", "/forum.php"):
            return self.home
        if path == "/forumdisplay.php":
            found = self.forums.get(int(match.group(1)) if match else _int(params.get("f", "")))
            return self.canonical_or(authority, found, friendly, params)
        if path == "/member.php":
            number = int(match.group(1)) if match else _int(params.get("u", ""))
            return self.profile if number == self.member[0] else None
        if path == "/showthread.php":
            pages = self.threads.get(int(match.group(1)) if match else _int(params.get("t", "")))
            if pages is None:
                return None
            number = _int(params.get("page", ""), 0) or (int(match.group(2) or 1) if match else 1)
            found = pages[max(1, min(number, len(pages))) - 1]  # (sanitize_pageresults: clamped)
            return self.canonical_or(authority, found, friendly, params)
        return super().route(authority, path, raw_path, query)

    def canonical_or(
        self, authority: str, page: Page | None, friendly: str, params: Mapping[str, str]
    ) -> Page | Reply | None:
        """``page``, or with the canonical-URL option a 301 to it where the request spelled it otherwise."""
        if page is None or not self.canonical:
            return page
        if friendly == page.query and not {"t", "f", "page"} & set(params):
            return page
        return self.redirect(authority, page.key)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        session = f"s={_hex(random.Random(page.doc_id), 32)}"
        if page is self.home:
            return [f"{base}/index.php", f"{base}/forum.php", f"{base}/?{session}", f"{base}/forum.php?{session}"]
        for number, forum in self.forums.items():
            if forum is page:
                return [
                    f"{base}/forumdisplay.php?f={number}",
                    f"{page.url}&{session}",
                    f"{base}/forumdisplay.php?{number}",
                ]
        for number, pages in self.threads.items():
            if page is pages[0]:
                forms = [f"{base}/showthread.php?t={number}", f"{base}/showthread.php?{number}"]
                forms += [f"{base}/showthread.php?t={number}&page=1", f"{page.url}&{session}"]
                forms += [f"{base}/showthread.php?{session}&t={number}"]
                if len(pages) == 1:
                    forms.append(f"{base}/showthread.php?t={number}&page=2")
                return forms
        return []


class AemSite(CSite):
    """Adobe Experience Manager behind the dispatcher: see the module's docstring."""

    SELECTORS = ("nocache", "mobile", "desktop", "seo")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache", "Apache/2.4.57 (Unix)"))
        self.redirect_status = 301
        self.root = f"/content/{rng.choice(('wknd', 'acme', 'brandx'))}"
        self.home = self.add("/en.html")
        words = rng.sample(_WORDS, max(2, min(6, budget - 8)))
        for word in words:
            self.add(f"/en/{word}.html")
        section = rng.choice(("products", "company", "magazine"))
        self.add(f"/en/{section}.html")
        for word in rng.sample(_WORDS, 2):
            self.add(f"/en/{section}/{word}.html")
        self.printed = self.exception(self.add(f"/en/{words[0]}.print.html"))
        self.texts[self.printed.doc_id] = "Printer-friendly version. References are listed on a page of their own."
        self.behind(self.printed, self.add(f"/en/{words[0]}/references.html"), f"{words[0]}/references.html")
        self.traps.append(f"{self.root}/x.html = /x.html, unknown selectors ignored; but /en/{words[0]}.print.html")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path == "/":
            return self.redirect(authority, "/en.html")
        if path.startswith(self.root + "/"):
            path = path[len(self.root) :]
        match = re.fullmatch(r"(/[^.]+?)((?:\.[\w-]+)*)\.html", path)
        if match is None:  # (the dispatcher's rewrite: an extensionless page -> .html)
            if re.fullmatch(r"/[^.]+", path) and self.exact(authority, path + ".html"):
                return self.redirect(authority, encode_path(path) + ".html" + _tail(query))
            return None
        resource, selectors = match.groups()
        names = selectors[1:].split(".") if selectors else []
        if names and names[0] == "print":  # (the page component's print.html script)
            return self.exact(authority, f"{resource}.print.html")
        return self.exact(authority, f"{resource}.html")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.printed or not page.path.endswith(".html"):
            return []
        selector = random.Random(page.doc_id).choice(self.SELECTORS)
        stem = page.path[:-5]
        forms = [f"{base}{self.root}{page.path}", f"{base}{stem}", f"{base}{stem}.{selector}.html"]
        forms.append(f"{page.url}?wcmmode=disabled")
        if page is self.home:
            forms.append(f"{base}/")
        return forms


class SitecoreSite(CSite):
    """Sitecore on IIS with a proxied documentation bucket: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Microsoft-IIS/10.0"
        self.home = self.add("/")
        for name in rng.sample(_PAGES, max(2, min(6, budget - 9))):
            self.add(f"/{name}")
        section = rng.choice(("products", "solutions", "industries"))
        self.add(f"/{section}")
        for word in rng.sample(_WORDS, 2):
            self.add(f"/{section}/{word}")
        self.docs = [self.add("/docs/changelog.html"), self.add(f"/docs/{rng.choice(_WORDS)}.html")]
        self.upper = self.exception(self.add("/docs/CHANGELOG.html"))
        self.texts[self.upper.doc_id] = "CHANGELOG (generated from CHANGELOG.md). Older entries: CHANGELOG-1.x."
        self.behind(self.upper, self.add("/docs/CHANGELOG-1.x.html"), "CHANGELOG-1.x.html")
        for page in self.pages:
            if not page.path.startswith("/docs/"):
                self.extra_headers[page.doc_id] = {"X-Powered-By": "ASP.NET"}
        self.traps.append("case, /en/, .aspx, trailing / and ?sc_lang=en ignored; /docs/ case-sensitive (S3)")

    def fold(self, path: str) -> str:
        head, sep, rest = path[1:].partition("/")
        if sep and head.lower() == "docs":  # (the rewrite rule ignores case; the bucket does not)
            return "/docs/" + rest
        folded = path.lower().removesuffix(".aspx").rstrip("/") or "/"
        if folded == "/en" or folded.startswith("/en/"):
            folded = folded[3:] or "/"
        return "sitecore:" + folded if folded.startswith("/docs/") else folded  # (no such item)

    def query_key(self, path: str, query: str) -> str:
        if path.lower().startswith("/docs/"):
            return ""
        lang = self.params(query).get("sc_lang", "en").lower()
        return "" if lang in ("", "en") else f"sc_lang={lang}"

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page.path.startswith("/docs/"):
            return [] if page is not self.docs[0] else [f"{base}/DOCS{page.path[5:]}", f"{base}/Docs{page.path[5:]}"]
        if page is self.home:
            return [f"{base}/en", f"{base}/en/", f"{base}/?sc_lang=en", f"{base}/EN?sc_lang=EN"]
        title = "/".join(part[:1].upper() + part[1:] for part in page.path.split("/"))
        return [
            f"{base}{title}",
            f"{base}{page.path.upper()}",
            f"{base}/en{page.path}",
            f"{base}{page.path}.aspx",
            f"{base}{page.path}/",
            f"{page.url}?sc_lang=en",
            f"{base}/EN{title}.aspx",
        ]


class AngularSite(CSite):
    """An Angular Universal app that replaced an AngularJS one: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "nginx"))
        self.fallback = "shell"
        self.home = self.add("/")
        words = rng.sample(_WORDS, max(2, min(6, budget - 7)))
        for word in words:
            self.add(f"/{word}")
        self.blog = self.add("/blog")
        posts = rng.sample(_POSTS, 3)
        for slug in posts[:-1]:
            self.add(f"/blog/{slug}")
        self.blog.links += [f"blog/{slug}" for slug in posts[:-1]]  # (relative to <base href="/">)
        self.older = self.exception(self.add("/blog", "page=2"))
        self.texts[self.older.doc_id] = "Older posts (page 2)."
        self.behind(self.older, self.add(f"/blog/{posts[-1]}"), f"blog/{posts[-1]}")
        self.home.links += [f"/#!/{word}" for word in words[:2]]  # (the AngularJS app's old links)
        for page in self.pages:
            self.bases[page.doc_id] = "/"
            self.extra_headers[page.doc_id] = {"X-Powered-By": "Express"}
        self.traps.append("/x/ = /x, ?_escaped_fragment_=/x = /x, hash-bang links; but /blog?page=2")

    def fold(self, path: str) -> str:
        return path.rstrip("/") or "/"

    def query_key(self, path: str, query: str) -> str:
        if self.fold(path) != "/blog":
            return ""
        number = _int(self.params(query).get("page", "1"), 1)
        return f"page={number}" if number > 1 else ""

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        fragment = params.get("_escaped_fragment_", "")
        if fragment:  # (the AJAX crawling scheme: /?_escaped_fragment_=/x is /#!/x)
            if path != "/":
                return None
            path, _, query = fragment.partition("?")
        return self.routes.get((authority, self.fold(path), self.query_key(path, query)))

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/?_escaped_fragment_=", f"{base}/?_escaped_fragment_=/"]
        if page is self.older:
            return [f"{base}/blog/?page=2", f"{base}/?_escaped_fragment_=/blog%3Fpage=2"]
        forms = [f"{page.url}/", f"{base}/?_escaped_fragment_={page.path}", f"{page.url}?_escaped_fragment_="]
        if page is self.blog:
            forms += [f"{page.url}?page=1", f"{page.url}/?page=1"]
        return forms


class FacetedSite(CSite):
    """Drupal Commerce with Search API and Facets: see the module's docstring."""

    ALIASES = ("color", "size")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache/2.4.57 (Debian)"))
        self.home = self.add("/")
        numbers = rng.sample(range(1, 400), max(4, min(9, budget - 8)) + 2)
        self.variations = {number: rng.randrange(1000, 9999) for number in numbers}
        self.products = [self.add(f"/product/{number}") for number in numbers[:-2]]
        listed = [page.path for page in self.products]
        self.listing = self.add("/search")
        self.listing.links += listed[:4]
        color, other = rng.sample(_COLORS, 2)
        size = rng.choice(("s", "m", "l", "xl"))
        self.facets = (color, other, size)
        self.single = self.add("/search", self.written(f"color:{color}"))
        self.pair = self.add("/search", self.written(f"color:{color}", f"size:{size}"))
        self.single.links += [listed[0], listed[-1]]
        self.pair.links.append(listed[0])
        self.listing.links += [self.single.key, self.pair.key]  # (facet links: the block writes them sorted)
        self.second = self.exception(self.add("/search", "page=1"))
        self.texts[self.second.doc_id] = "Displaying 13 - 24 of 24 products."
        self.either = self.exception(
            self.add("/search", self.written(f"color:{color}", f"color:{other}", f"size:{size}"))
        )
        for page, number in ((self.second, numbers[-2]), (self.either, numbers[-1])):
            self.behind(page, self.add(f"/product/{number}"))
        self.traps.append(f"facets read as a set, ?page=0 the first page; but ?page=1 and +color:{other}")

    @staticmethod
    def written(*filters: str) -> str:
        """Active facets as Drupal writes them in a link (sorted, brackets and colons encoded)."""
        return "&".join(f"f%5B{index}%5D={value.replace(':', '%3A')}" for index, value in enumerate(sorted(filters)))

    def query_key(self, path: str, query: str) -> str:
        if path != "/search":
            return ""
        active: dict[str, str] = {}
        for name, value in parse_qsl(query, keep_blank_values=True):
            index = re.fullmatch(r"f\[(\d*)\]", name)
            if index:  # (PHP: the last value of an index wins, f[] appends)
                active[index.group(1) or f"+{len(active)}"] = value
        filters = sorted(value for value in active.values() if value.partition(":")[0] in self.ALIASES)
        keep = [f"f={value}" for value in filters]
        number = _int(self.params(query).get("page", "0"))
        if number:
            keep.append(f"page={number}")
        return "&".join(keep)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path == "/index.php" or path.startswith("/index.php/"):
            path = path[len("/index.php") :] or "/"
        match = re.fullmatch(r"/product/(\d+)", path)
        if match:
            variation = self.params(query).get("v", "")
            if variation and _int(variation) != self.variations.get(int(match.group(1))):
                return None  # (another variation: not modelled)
            return self.exact(authority, path)
        return self.routes.get((authority, path, self.query_key(path, query)))

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        color, _, size = self.facets
        if page is self.listing:
            return [f"{page.url}?page=0", f"{base}/index.php/search"]
        if page is self.single:
            return [f"{base}/search?f[0]=color:{color}", f"{base}/search?f[1]=color:{color}", f"{page.url}&page=0"]
        if page is self.pair:
            return [
                f"{base}/search?f[0]=size:{size}&f[1]=color:{color}",
                f"{base}/search?f%5B0%5D=size%3A{size}&f%5B1%5D=color%3A{color}",
                f"{base}/search?f[3]=size:{size}&f[7]=color:{color}",
                f"{page.url}&page=0",
            ]
        if any(page is product for product in self.products):
            number = int(page.path.rsplit("/", 1)[1])
            return [f"{base}/index.php{page.path}", f"{page.url}?v={self.variations[number]}"]
        if page is self.home:
            return [f"{base}/index.php"]
        return []


_CLASSES: dict[str, type[CSite]] = {
    "magento": MagentoSite,
    "woocommerce": WooSite,
    "demandware": DemandwareSite,
    "vbulletin": VBulletinSite,
    "aem": AemSite,
    "sitecore": SitecoreSite,
    "angular": AngularSite,
    "faceted": FacetedSite,
}


# -- the web ------------------------------------------------------------------------------------


class CommerceWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of commerce kinds (the same checks)."""


def generate_commerce_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> CommerceWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds(
        "commerce", seed, KINDS, _CLASSES, CommerceWeb, meta_refresh=meta_refresh, query_pages=query_pages
    )


# -- the comparison ---------------------------------------------------------------------------


class CommerceComparison(FamilyComparison):
    """A comparison on a commerce web: requests, pages and documents per kind of host."""


async def compare_commerce(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> CommerceComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_commerce_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_commerce_web, CommerceComparison, seed, workdir, addon_settings, order)
