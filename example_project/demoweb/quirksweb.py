"""A fifth generator of seeded webs: how real applications and CMSs read URL spellings.

Written by an outside checker from what deployed software does with the spelling of a URL:
spellings that usually answer one page byte for byte (a session id in the links, a prefix
the router strips, a parameter read case-insensitively, an encoded slash the static server
decodes) and, on the same host, the one place they do not. Each host is one *kind*; each
exception is linked late (after the host's coincidences have been linked many times over)
and is the only way to what lies behind it:

- ``drupal`` (Drupal 7, clean URLs): ``/node/N`` = ``/node/N/`` = ``/?q=node/N`` =
  ``/index.php?q=node/N`` = its path alias ``/about-us`` (= ``/?q=about-us``); ``/node`` =
  ``/`` (the default front page); the comment pager ``?page=N`` is clamped to the pages a
  node has, so on every one-page node ``?page=1`` (or ``?page=0``, ``?page=7``) is the node
  byte for byte. Exceptions: the one node with many comments, whose ``?page=1`` (and
  ``?page=2``) are comment pages of their own (page 2 links a commenter's profile
  ``/user/N``, linked nowhere else), and the ``/blog`` view, whose ``?page=1`` is the next
  page of posts.
- ``joomla`` (Joomla 3, SEF URLs with mod_rewrite): ``/index.php/news/12-slug`` = ``/news/12-slug``
  = ``/index.php?option=com_content&view=article&id=12`` (``&catid=``, ``&Itemid=`` ignored,
  ``id=12:slug`` read as ``12``); ``/index.php`` = ``/``. Exceptions: ``/index.php/downloads``,
  an old menu item of the CMS, while ``/downloads/`` is a real directory Apache serves before
  the rewrite (``/downloads`` -> 301 ``/downloads/``), its relative link ``downloads/manual``
  leading to the menu item's sub-page; ``?tmpl=component&print=1``, an article's print view
  (where ``?Itemid=`` changes nothing).
- ``forum`` (phpBB 3): ``&sid=<32 hex>`` (a guest's session in every link) ignored on every
  script; ``viewtopic.php?f=2&t=5`` = ``?t=5`` = ``?t=5&start=0``; ``?p=77`` the topic page
  that holds post 77 (byte for byte); ``start`` clamped to the topic's last page, so on a
  one-page topic ``&start=10`` is the topic again; ``/index.php`` = ``/``. Exceptions: the
  long topic, whose ``&start=10`` (``&start=20``) are pages of their own (page 2's relative
  link ``./memberlist.php?mode=viewprofile&u=N`` a profile linked nowhere else, its posts'
  ``?p=`` the page 2 too); ``&view=print`` of one topic.
- ``servlet`` (Tomcat with a Spring MVC application and a JAX-RS map service): every path
  parameter (``;jsessionid=<32 hex>``, written into links for a client without the cookie)
  is stripped before routing; under ``/maps/`` the JAX-RS resource reads the matrix
  parameter ``zoom`` (default ``1``: ``/maps/paris;zoom=1`` is ``/maps/paris`` byte for byte).
  Exceptions: ``/maps/<city>;zoom=3`` (and ``;zoom=5``), maps of their own, each linking its
  ``/maps/<city>/tiles;zoom=N`` page, linked nowhere else.
- ``encoded`` (nginx serving static files, with applications proxied under ``/projects/``
  and ``/tags/``): the static handler decodes the path, ``%2F`` included
  (``/docs%2Fsetup.html`` = ``/docs/setup.html``), ``%7E`` is ``~`` (``/~alice/``), UTF-8 names
  (``/menu/caf%C3%A9.html``, links also spelled raw or with lower-case escapes); a
  ``/d`` -> 301 ``/d/``. The applications get the raw path (``proxy_pass`` without a URI).
  Exceptions: ``/projects/acme%2Fwidget`` (a project by its encoded path, GitLab-style) a page
  other than ``/projects/acme/widget``, its relative link ``acme%2Fwidget/issues`` leading to a
  page linked nowhere else; ``/tags/c++`` (``+`` literal in a path) a tag other than
  ``/tags/c`` (which ``/tags/c%20%20`` is: the tag controller trims spaces).
- ``aspnet`` (ASP.NET WebForms on IIS, SQL Server with a case-insensitive collation): paths
  and parameter *names* case-insensitive (``/Products/Detail.aspx?ID=5`` =
  ``/products/detail.aspx?id=5``), lookups by value too (``?cat=Tools`` = ``?cat=tools``),
  unknown parameters ignored, ``/`` = ``/default.aspx``. Exception: the search page, whose
  ``?q=Go`` and ``?q=go`` are two result pages (the term echoed as typed, another result
  list: the lower-case one links a product linked nowhere else).
- ``sharepoint`` (SharePoint publishing site on IIS): paths case-insensitive, ``/`` =
  ``/Pages/Default.aspx``; a list's ``AllItems.aspx`` = ``?View={guid of the default view}``
  (the GUID in any case, braces encoded or not), ``&InitialTabId=Ribbon.List``,
  ``&Source=<url>`` ignored; a document library under ``/Shared%20Documents/``.
  Exceptions: ``?View={another view}`` (another view of the list), ``?Paged=TRUE&p_ID=N``
  (the list's next page), each linking an item ``DispForm.aspx?ID=N`` linked nowhere else.
- ``blank`` (a PHP application that reads what it knows from ``$_GET``): blank and valueless
  parameters it does not know are ignored (``?ref=``, ``?nocache``, ``?src``), as are a bare
  ``?``, a trailing ``&``, and ``?id=05`` (``intval``: ``?id=5``). Exceptions: ``?print``
  (valueless, ``isset($_GET['print'])``: a print view, ``?print=`` too) and ``?amp`` (an AMP
  page) on one article each, the AMP page's relative link ``?id=N&amp&comments=1`` leading to its
  comments, linked nowhere else.
- ``i18n`` (a multilingual CMS with the default language unprefixed): ``/en/x`` = ``/x`` byte
  for byte, ``?lang=en`` ignored, ``?lang=de`` ignored where a page has no German version.
  Exceptions: ``/de/x`` (the German version, also at ``/x?lang=de``) whose relative link
  ``impressum`` leads to ``/de/impressum``, linked nowhere else; ``/en/``, a language-choice
  page where ``/en/x`` is ``/x`` everywhere else.
- ``slashes`` (nginx with ``merge_slashes on``, and an S3 bucket proxied under ``/files/``):
  ``//docs/x``, ``/docs//x``, ``/blog///y/`` are ``/docs/x``, ``/blog/y/``; under ``/files/``
  the raw path goes to S3, where ``/files//readme.txt`` is the object ``/readme.txt``, another
  object than ``/files/readme.txt`` (the exception, linked late).

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter), sometimes a ``www.`` twin that
serves the same pages, and links are spelled with an upper-case host, a trailing-dot host,
``:80``, tracking parameters and fragments where the server ignores them (each checked).

Every document is collected by stock Scrapy by construction, which :meth:`QuirksWeb.check`
proves over the data: each document is reached from a start URL through URLs that answer
``200`` themselves, and, over every URL a crawl can meet (every link of every answer, at
every spelling, and every redirect), no two spellings stock takes as one (w3lib's
``canonicalize_url``, as Scrapy's fingerprint does) lead to different documents or to
different links.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote, urljoin

from .coincidenceweb import CoincidenceWeb, CoSite, draw_cross_cutting, hosted, woven
from .randomweb import (
    REDIRECT_STATUSES,
    CrawlOrder,
    FamilyComparison,
    Page,
    canonicalize_url,
    compare_by_family,
    doc_id_of,
    safe_url_string,
)
from .server import Reply
from .wildweb import Pen, decode_path, kind_of, serve_wild, split_budget

KINDS = ("drupal", "joomla", "forum", "servlet", "encoded", "aspnet", "sharepoint", "blank", "i18n", "slashes")
_WORDS = ("intro", "guide", "history", "pricing", "setup", "roadmap", "faq", "notes", "install", "team")
_ALIASES = ("about-us", "contact", "pricing", "team", "history", "careers", "press", "faq", "imprint")
_CITIES = ("paris", "berlin", "lima", "osaka", "cairo", "quito")
_USERS = ("alice", "bob", "carol", "dave", "erin")


def _hex(rng: random.Random, digits: int, upper: bool = False) -> str:
    text = f"{rng.getrandbits(4 * digits):0{digits}x}"
    return text.upper() if upper else text


def _guid(rng: random.Random) -> str:
    raw = _hex(rng, 32, upper=True)
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def _int(text: str, default: int = 0) -> int:
    """PHP's ``intval``: the leading digits (``"05"`` is 5, ``"2abc"`` 2), else ``default``."""
    match = re.match(r"\s*(\d+)", text)
    return int(match.group(1)) if match else default


class QSite(CoSite):
    """A host of one kind: :meth:`route` reads a request as the application does."""

    def params(self, query: str) -> dict[str, str]:
        """The query as PHP's ``$_GET`` reads it (form-decoded, the last value of a name wins)."""
        return dict(parse_qsl(query, keep_blank_values=True))

    def query_key(self, path: str, query: str) -> str:
        return ""

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        """The document (or reply) for a request (``path`` decoded); ``None``: not found."""
        return self.routes.get((authority, self.fold(path), self.query_key(path, query)))

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        special = self.special(authority, raw_path, query)
        if special is not None:
            return special
        found = self.route(authority, decode_path(raw_path), raw_path, query)
        if isinstance(found, Page):
            return self.render(found)
        if isinstance(found, Reply):
            return found
        return self.fall_back(authority, raw_path)

    def spellings(self, page: Page) -> list[str]:
        """Other URLs that answer ``page`` byte for byte (each kind's coincidences)."""
        return []

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        """One or two of each page's coincident spellings, linked from the host's first pages."""
        for page in self.pages:
            if page.doc_id in self.late or page.doc_id in self.hidden:
                continue
            forms = self.spellings(page)
            for url in rng.sample(forms, min(len(forms), rng.randint(1, 2))):
                self.link_from(rng, pen, placed, url)

    def plain_page(self, path: str) -> Page | None:
        """The page at decoded ``path`` without a query (where the query is read apart)."""
        return next((page for page in self.pages if not page.query and decode_path(page.path) == path), None)

    def behind(self, page: Page, target: Page, href: str | None = None) -> Page:
        """``target`` linked from ``page`` only (``href``: as written there, often relative)."""
        self.hidden.add(target.doc_id)
        page.links.append(href or target.key)
        return target


# -- kinds ------------------------------------------------------------------------------------


class DrupalSite(QSite):
    """Drupal 7 with clean URLs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.57 (Ubuntu)", "nginx/1.18.0"))
        self.front = self.add("/")
        self.aliases: dict[str, str] = {}  # alias -> internal path
        self.nodes: dict[int, list[Page]] = {}  # node -> its comment pages (the node first)
        numbers = rng.sample(range(1, 90), max(3, min(8, budget - 5)))
        names = iter(rng.sample(_ALIASES, len(_ALIASES)))
        for number in numbers:
            alias = next(names) if rng.random() < 0.6 else None
            if alias:
                self.aliases[alias] = f"node/{number}"
            self.nodes[number] = [self.add(f"/{alias}" if alias else f"/node/{number}")]
        self.blog = [self.add("/blog")]
        long = numbers[0]
        first = self.nodes[long][0]
        for extra in range(1, rng.randint(2, 3)):
            self.nodes[long].append(self.exception(self.add(first.path, f"page={extra}")))
        user = rng.randrange(2, 400)
        self.behind(self.nodes[long][1], self.add(f"/user/{user}"))
        self.traps.append(f"{first.path}?page=1 a comment page, ?page=N clamped (the node) on every other node")
        self.blog.append(self.exception(self.add("/blog", "page=1")))
        self.traps.append("/blog?page=1 the view's next page")
        for page in self.blog:
            page.links += [self.nodes[n][0].path for n in numbers[1:]]
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"X-Generator": "Drupal 7 (http://drupal.org)"}

    def internal(self, path: str, params: Mapping[str, str]) -> str:
        """The path Drupal routes: ``?q=`` on the front controller, else the path; an alias resolved."""
        internal = params["q"] if path in ("/", "/index.php") and params.get("q") else path[1:]
        if internal == "index.php":
            internal = ""
        return self.aliases.get(internal, internal)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if authority != self.host:
            return None
        params = self.params(query)
        internal = self.internal(path, params)
        number = _int(params.get("page", "0"))
        if internal in ("", "node"):
            return self.front
        if internal == "blog":
            return self.blog[min(number, len(self.blog) - 1)]
        match = re.fullmatch(r"node/(\d+)/?", internal)
        if match and int(match.group(1)) in self.nodes:
            pages = self.nodes[int(match.group(1))]
            return pages[min(number, len(pages) - 1)]
        if internal.startswith("user/"):
            return self.plain_page("/" + internal)
        return None

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.front:
            return [f"{base}/node", f"{base}/?q=node", f"{base}/index.php", f"{base}/?q=node&page=0"]
        if page is self.blog[0]:
            return [f"{base}/?q=blog", f"{base}/blog?page=0", f"{base}/index.php?q=blog"]
        for number, pages in self.nodes.items():
            if page is pages[0]:
                alias = page.path[1:]
                forms = [f"{base}/?q=node/{number}", f"{base}/node/{number}/", f"{base}{page.path}?page=0"]
                forms += [f"{base}/index.php?q=node/{number}"]
                if not alias.startswith("node/"):
                    forms += [f"{base}/node/{number}", f"{base}/?q={alias}"]
                if len(pages) == 1:  # (clamped: every page number is the node's only page)
                    forms += [f"{base}{page.path}?page=1", f"{base}/node/{number}?page={1 + number % 4}"]
                return forms
        return []


class JoomlaSite(QSite):
    """Joomla 3 with SEF URLs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.41 (Ubuntu)", "Apache"))
        self.home = self.add("/")
        self.categories: dict[str, int] = {}
        self.articles: dict[int, tuple[str, Page]] = {}  # id -> (category, page)
        for number, category in enumerate(rng.sample(("news", "blog", "products", "events"), 2), start=8):
            self.categories[category] = number
            self.add(f"/{category}")
        ids = rng.sample(range(10, 99), max(3, min(8, budget - 6)))
        for article in ids:
            category = rng.choice(list(self.categories))
            slug = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}"
            self.articles[article] = (category, self.add(f"/{category}/{article}-{slug}"))
        self.static = self.add("/downloads/")
        self.legacy = self.exception(self.add("/index.php/downloads"))
        self.behind(self.legacy, self.add("/index.php/downloads/manual"), "downloads/manual")
        self.traps.append("/index.php/x = /x, but /index.php/downloads (the CMS) vs /downloads/ (a directory)")
        printed = self.articles[ids[0]][1]
        self.printed = self.exception(self.add(printed.path, "tmpl=component&print=1"))
        self.traps.append(f"{printed.path}?tmpl=component&print=1 a print view, ?Itemid= ignored")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if authority != self.host:
            return None
        params = self.params(query)
        if path == "/downloads/":
            return self.static
        if path == "/downloads":
            return self.redirect(authority, "/downloads/")
        sef = path.removeprefix("/index.php") or "/"
        if sef.startswith("/downloads"):  # (only through index.php: a real directory otherwise)
            return self.plain_page(path) if path.startswith("/index.php/") else None
        if params.get("option") == "com_content" and sef == "/":  # (the front controller's own query)
            if params.get("view") == "article":
                found = self.articles.get(_int(params.get("id", "")))
                return self.styled(found[1], params) if found else None
            if params.get("view") == "category":
                names = {number: name for name, number in self.categories.items()}
                name = names.get(_int(params.get("id", "")))
                return self.plain_page(f"/{name}") if name else None
            return None
        page = self.plain_page(sef)
        return self.styled(page, params) if page else None

    def styled(self, page: Page, params: Mapping[str, str]) -> Page | None:
        if params.get("tmpl") == "component":
            return self.printed if page.path == self.printed.path else None
        return page

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/index.php", f"{base}/index.php?Itemid=101"]
        for article, (category, found) in self.articles.items():
            if found is page:
                slug = page.path.rsplit("/", 1)[1]
                number = self.categories[category]
                return [
                    f"{base}/index.php{page.path}",
                    f"{base}{page.path}?Itemid={100 + number}",
                    f"{base}/index.php?option=com_content&view=article&id={article}&catid={number}&Itemid=101",
                    f"{base}/index.php?option=com_content&view=article&id={article}",
                    f"{base}/index.php?option=com_content&view=article&id={slug.replace('-', ':', 1)}",
                ]
        for category, number in self.categories.items():
            if page.path == f"/{category}":
                return [
                    f"{base}/index.php/{category}",
                    f"{base}/index.php?option=com_content&view=category&id={number}",
                ]
        return []


class ForumSite(QSite):
    """phpBB 3: see the module's docstring."""

    PER_PAGE = 10

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache", "nginx", "LiteSpeed"))
        self.index = self.add("/")
        self.forums: dict[int, Page] = {}
        self.topics: dict[int, tuple[int, list[Page]]] = {}  # topic -> (forum, its pages)
        self.posts: dict[int, tuple[int, int]] = {}  # post -> (topic, page index)
        for forum in rng.sample(range(2, 12), 2):
            self.forums[forum] = self.add("/viewforum.php", f"f={forum}")
        post = rng.randrange(50, 500)
        for topic in rng.sample(range(3, 300), max(3, min(7, budget - 5))):
            forum = rng.choice(list(self.forums))
            page = self.add("/viewtopic.php", f"f={forum}&t={topic}")
            self.topics[topic] = (forum, [page])
            self.forums[forum].links.append(f"./viewtopic.php?f={forum}&t={topic}")
            for _ in range(rng.randint(1, 3)):
                post += rng.randint(1, 40)
                self.posts[post] = (topic, 0)
        long = next(iter(self.topics))
        forum, pages = self.topics[long]
        for index in range(1, rng.randint(2, 3)):
            pages.append(self.exception(self.add("/viewtopic.php", f"f={forum}&t={long}&start={index * 10}")))
            for _ in range(2):
                post += rng.randint(1, 40)
                self.posts[post] = (long, index)
                pages[index].links.append(f"./viewtopic.php?p={post}#p{post}")
        self.member = rng.randrange(2, 900)
        self.profile = self.add("/memberlist.php", f"mode=viewprofile&u={self.member}")
        self.behind(pages[1], self.profile, f"./memberlist.php?mode=viewprofile&u={self.member}")
        self.traps.append(f"viewtopic.php?t={long}&start=10 a page of its own, start clamped on one-page topics")
        self.printed = next(topic for topic in self.topics if topic != long)
        self.print_page = self.exception(self.add("/viewtopic.php", f"t={self.printed}&view=print"))
        self.traps.append(f"viewtopic.php?t={self.printed}&view=print a print view; &sid= ignored everywhere")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/index.php"):
            return self.index
        if path == "/viewforum.php":
            return self.forums.get(_int(params.get("f", "")))
        if path == "/memberlist.php" and params.get("mode") == "viewprofile":
            return self.profile if _int(params.get("u", "")) == self.member else None
        if path != "/viewtopic.php":
            return None
        if "p" in params:
            where = self.posts.get(_int(params["p"]))
            if where is None:
                return None
            topic, index = where
        else:
            topic, index = _int(params.get("t", "")), -1
        if topic not in self.topics:
            return None
        if params.get("view") == "print":
            return self.print_page if topic == self.printed else None
        pages = self.topics[topic][1]
        if index < 0:
            index = min(_int(params.get("start", "0")) // self.PER_PAGE, len(pages) - 1)
        return pages[index]

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        sid = f"sid={_hex(random.Random(page.doc_id), 32)}"
        if page is self.index:
            return [f"{base}/index.php", f"{base}/index.php?{sid}", f"{base}/?{sid}"]
        for forum, found in self.forums.items():
            if found is page:
                return [f"{base}/viewforum.php?f={forum}&{sid}", f"{base}/viewforum.php?f={forum}&start=0"]
        for topic, (forum, pages) in self.topics.items():
            if page is pages[0]:
                forms = [f"{base}/viewtopic.php?t={topic}", f"{base}/viewtopic.php?f={forum}&t={topic}&{sid}"]
                forms += [f"{base}/viewtopic.php?t={topic}&start=0&{sid}", f"{base}/viewtopic.php?{sid}&t={topic}"]
                forms += [
                    f"{base}/viewtopic.php?p={post}#p{post}" for post, at in self.posts.items() if at == (topic, 0)
                ]
                if len(pages) == 1:
                    forms += [f"{base}/viewtopic.php?f={forum}&t={topic}&start=10"]
                return forms
        return []


class ServletSite(QSite):
    """Tomcat, Spring MVC and a JAX-RS map service: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache-Coyote/1.1", ""))
        self.add("/")
        for word in rng.sample(_WORDS, 2):
            self.add(f"/docs/{word}")
        for number in rng.sample(range(100, 999), max(2, min(6, budget - 8))):
            self.add(f"/shop/item/{number}")
        self.add("/shop/cart")
        self.cities = rng.sample(_CITIES, 2)
        for city in self.cities:
            self.add(f"/maps/{city}")
        for zoom in rng.sample(("3", "5"), rng.randint(1, 2)):
            city = self.cities[0]
            page = self.exception(self.add(f"/maps/{city};zoom={zoom}"))
            self.behind(page, self.add(f"/maps/{city}/tiles;zoom={zoom}"))
            self.traps.append(f"/maps/{city};zoom={zoom} a map of its own; ;jsessionid= and ;zoom=1 ignored")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        segments = path.split("/")
        clean = "/".join(segment.split(";", 1)[0] for segment in segments)
        if clean.startswith("/maps/"):
            matrix = dict(p.partition("=")[::2] for p in segments[-1].split(";")[1:])
            zoom = matrix.get("zoom", "1")
            return self.routes.get((authority, clean + (f";zoom={zoom}" if zoom != "1" else ""), ""))
        return self.routes.get((authority, clean, ""))

    def spellings(self, page: Page) -> list[str]:
        session = f";jsessionid={_hex(random.Random(page.doc_id), 32, upper=True)}"
        forms = [f"{page.url}{session}"] if ";" not in page.path else []
        if page.path.startswith("/maps/") and ";" not in page.path:
            forms += [f"{page.url};zoom=1", f"{page.url};zoom=1{session}"]
        return forms


class EncodedSite(QSite):
    """nginx static files with proxied applications: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx/1.24.0"
        self.add("/")
        self.add("/docs/")
        self.docs = [self.add(f"/docs/{word}.html") for word in rng.sample(_WORDS, max(2, min(5, budget - 9)))]
        self.users = [self.add(f"/~{user}/") for user in rng.sample(_USERS, 2)]
        self.named = [self.add(path) for path in rng.sample(("/menu/café.html", "/menu/crème-brûlée.html"), 1)]
        group, name = rng.choice((("acme", "widget"), ("infra", "tools"), ("web", "site")))
        self.add(f"/projects/{group}/{name}")
        project = self.exception(self.add(f"/projects/{group}%2F{name}"))
        self.behind(project, self.add(f"/projects/{group}%2F{name}/issues"), f"{group}%2F{name}/issues")
        self.traps.append(f"/docs%2Fx = /docs/x (static), /projects/{group}%2F{name} vs /projects/{group}/{name}")
        self.add("/tags/c")
        self.exception(self.add("/tags/c++"))
        self.traps.append("/tags/c++ vs /tags/c (= /tags/c%20%20, trimmed)")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path.startswith("/tags/"):
            return self.routes.get((authority, "/tags/" + path[6:].strip(), ""))
        if path.startswith("/projects/"):
            return self.routes.get((authority, path, ""))
        static = path.replace("%2F", "/")
        if (authority, static + "/", "") in self.routes:
            return self.redirect(authority, quote(static + "/"))
        return self.routes.get((authority, static, ""))

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        if page.path.startswith(("/projects/", "/tags/")):
            return [f"{base}/tags/c%20%20"] if page.path == "/tags/c" else []
        forms = []
        if page.path.count("/") >= 2 and not page.path.endswith("/"):
            head, _, tail = page.path.rpartition("/")
            forms += [f"{base}{head}%2F{tail}", f"{base}{head}%2f{tail}"]
        if "/~" in page.path:
            forms += [f"{base}{page.path.replace('~', '%7E')}", f"{base}{page.path.replace('~', '%7e')}"]
        if "%" in page.path:
            forms += [f"{base}{page.path.lower()}", f"{base}{decode_path(page.path)}"]
        return forms


class AspNetSite(QSite):
    """ASP.NET WebForms on IIS: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Microsoft-IIS/10.0"
        self.home = self.add("/")
        self.cats = rng.sample(("Tools", "Garden", "Kitchen", "Lighting"), 2)
        for cat in self.cats:
            self.add("/Products/List.aspx", f"cat={cat}")
        self.items = rng.sample(range(1, 400), max(2, min(6, budget - 7)))
        for item in self.items:
            self.add("/Products/Detail.aspx", f"ID={item}")
        term = rng.choice(("Go", "Net", "Pro"))
        upper = self.add("/Search.aspx", f"q={term}")
        upper.links += [f"/Products/Detail.aspx?ID={item}" for item in self.items[:2]]
        lower = self.exception(self.add("/Search.aspx", f"q={term.lower()}"))
        hidden = rng.randrange(400, 999)
        self.behind(lower, self.add("/Products/Detail.aspx", f"ID={hidden}"))
        self.traps.append(f"/Search.aspx?q={term} vs ?q={term.lower()}; names, paths and lookups case-insensitive")

    def fold(self, path: str) -> str:
        return "/" if path.lower() in ("/", "/default.aspx") else path.lower()

    def query_key(self, path: str, query: str) -> str:
        params = {name.lower(): value for name, value in self.params(query).items()}
        path = path.lower()
        if path == "/search.aspx":
            return f"q={params.get('q', '')}"
        if path == "/products/list.aspx":
            return f"cat={params.get('cat', '').lower()}"
        if path == "/products/detail.aspx":
            return f"id={_int(params.get('id', ''))}"
        return ""

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        if page is self.home:
            return [f"{base}/default.aspx", f"{base}/Default.aspx", f"{base}/DEFAULT.ASPX?from=nav"]
        name, _, value = page.query.partition("=")
        if page.path == "/Search.aspx":
            return [f"{base}/search.aspx?Q={quote(value)}"]
        forms = [f"{base}{page.path.lower()}?{name.lower()}={value}", f"{base}{page.path}?{name.upper()}={value}"]
        forms += [
            f"{base}{page.path.upper()}?{name}={value.lower()}",
            f"{base}{page.path}?{name.title()}={value}&src=menu",
        ]
        return forms


class SharePointSite(QSite):
    """A SharePoint publishing site: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Microsoft-IIS/10.0"
        self.home = self.add("/")
        self.extra_headers[self.home.doc_id] = {"MicrosoftSharePointTeamServices": "16.0.0.10337"}
        self.publishing = [self.add(f"/Pages/{word.title()}.aspx") for word in rng.sample(_WORDS, 2)]
        self.views: dict[str, str] = {}  # list -> its default view's GUID
        self.lists: dict[str, Page] = {}
        for name in rng.sample(("Tasks", "Announcements", "Events", "Contacts"), 2):
            self.views[name] = _guid(rng)
            self.lists[name] = self.add(f"/Lists/{name}/AllItems.aspx")
        self.library = self.add("/Shared Documents/Forms/AllItems.aspx")
        first = next(iter(self.lists))
        self.other_view = _guid(rng)
        other = self.exception(self.add(f"/Lists/{first}/AllItems.aspx", f"View=%7B{self.other_view}%7D"))
        paged = self.exception(self.add(f"/Lists/{first}/AllItems.aspx", "Paged=TRUE&p_ID=30"))
        for page, item in ((other, rng.randrange(1, 30)), (paged, rng.randrange(31, 60))):
            self.behind(page, self.add(f"/Lists/{first}/DispForm.aspx", f"ID={item}"), f"DispForm.aspx?ID={item}")
        self.traps.append(f"{first}: ?View={{default}} ignored, ?View={{other}} and ?Paged=TRUE&p_ID= pages")

    def fold(self, path: str) -> str:
        return "/" if path.lower() in ("/", "/pages/default.aspx") else path.lower()

    def query_key(self, path: str, query: str) -> str:
        params = {name.lower(): value for name, value in self.params(query).items()}
        if path.lower().endswith("/dispform.aspx"):
            return f"ID={_int(params.get('id', ''))}"
        if not path.lower().endswith("/allitems.aspx"):
            return ""
        keep = []
        list_name = path.split("/")[2] if path.lower().startswith("/lists/") else ""
        view = params.get("view", "").strip("{}").upper()
        default = {name.lower(): guid for name, guid in getattr(self, "views", {}).items()}.get(list_name.lower())
        if view and view != default:
            keep.append(f"View=%7B{view}%7D")
        if params.get("paged", "").upper() == "TRUE" and params.get("p_id"):
            keep.append(f"Paged=TRUE&p_ID={_int(params['p_id'])}")
        return "&".join(keep)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        if page is self.home:
            return [f"{base}/Pages/Default.aspx", f"{base}/pages/default.aspx", f"{base}/PAGES/Default.aspx"]
        forms = [f"{base}{page.path.lower()}", f"{base}{page.path.upper()}"]
        for name, guid in self.views.items():
            if page is self.lists[name]:
                forms += [f"{page.url}?View=%7B{guid}%7D", f"{page.url}?View=%7b{guid.lower()}%7d"]
                forms += [f"{page.url}?InitialTabId=Ribbon.List&VisibilityContext=WSSTabPersistence"]
                forms += [f"{base}{page.path.lower()}?View={{{guid}}}&Source={quote(base + '/', safe='')}"]
        return forms


class BlankSite(QSite):
    """A PHP application reading ``$_GET``: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.57 (Debian)", "nginx"))
        self.add("/")
        self.add("/about.php")
        self.articles = rng.sample(range(2, 90), max(3, min(8, budget - 6)))
        for article in self.articles:
            self.add("/article.php", f"id={article}")
        self.printed = self.exception(self.add("/article.php", f"id={self.articles[0]}&print"))
        self.amp = self.exception(self.add("/article.php", f"id={self.articles[1]}&amp"))
        comments = self.add("/article.php", f"id={self.articles[1]}&amp&comments=1")
        self.behind(self.amp, comments, f"?id={self.articles[1]}&amp&comments=1")
        self.traps.append("blank and valueless parameters ignored, but ?print and ?amp are views of their own")

    def query_key(self, path: str, query: str) -> str:
        params = self.params(query)
        if path != "/article.php":
            return ""
        keep = [f"id={_int(params.get('id', ''))}"]
        keep += [flag for flag in ("print", "amp") if flag in params]
        if "amp" in params and params.get("comments"):
            keep.append("comments=1")
        return "&".join(keep)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        if page.path != "/article.php":
            return [f"{base}{page.path}?", f"{base}{page.path}?ref=", f"{base}{page.path}?nocache"]
        number = page.query.removeprefix("id=")
        return [
            f"{page.url}&",
            f"{page.url}&ref=",
            f"{base}/article.php?src&id={number}",
            f"{base}/article.php?id=0{number}",
            f"{page.url}&nocache",
            f"{page.url}&utm_campaign=",
        ]


class I18nSite(QSite):
    """A multilingual CMS: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache", "cloudflare"))
        self.home = self.add("/")
        words = rng.sample(_WORDS, max(3, min(7, budget - 5)))
        self.english = [self.add(f"/{word}") for word in words]
        self.german: dict[str, Page] = {}
        for word in words[:2]:
            self.german[word] = self.exception(self.add(f"/de/{word}"))
        impressum = self.add("/de/impressum")
        for page in self.german.values():
            page.links.append("impressum")
        self.hidden.add(impressum.doc_id)
        self.chooser = self.exception(self.add("/en/"))
        self.chooser.links += ["/", "/de/" + words[0]]
        self.traps.append("/en/x = /x, ?lang=en ignored; /de/x and /en/ pages of their own")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        lang = self.params(query).get("lang", "")
        if path.startswith("/en/") and path != "/en/":
            path = path[3:]
        if lang == "de" and not path.startswith("/de/") and path[1:] in self.german:
            path = "/de" + path
        return self.routes.get((authority, path, ""))

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        if page.path.startswith("/de/") or page is self.chooser:
            return []
        forms = [f"{page.url}?lang=en"]
        if page is not self.home:
            forms.append(f"{base}/en{page.path}")
            if page.path[1:] not in self.german:
                forms.append(f"{page.url}?lang=de")
        return forms


class SlashesSite(QSite):
    """nginx with ``merge_slashes`` and an S3 bucket under ``/files/``: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.add("/")
        for word in rng.sample(_WORDS, max(2, min(5, budget - 6))):
            self.add(f"/docs/{word}")
        for word in rng.sample(_WORDS, 2):
            self.add(f"/blog/{word}/")
        names = rng.sample(("readme.txt", "index.html", "notes.md", "report.html"), 2)
        for name in names:
            self.add(f"/files/{name}")
        self.exception(self.add(f"/files//{names[0]}"))
        self.traps.append(f"// merged, but /files//{names[0]} (S3 key /{names[0]}) vs /files/{names[0]}")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        path = path.replace("%2F", "/")  # (nginx decodes it for files; S3 decodes the key)
        merged = re.sub("/+", "/", path)
        if merged.startswith("/files/"):
            return self.routes.get((authority, "/files/" + re.sub("^/+files/", "", path), ""))
        return self.routes.get((authority, merged, ""))

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        if page.path.startswith("/files/") or page.path == "/":
            return [f"{base}//"] if page.path == "/" else []
        head, _, tail = page.path[1:].partition("/")
        return [f"{base}/{page.path}", f"{base}/{head}//{tail}", f"{base}/{head}///{tail}"]


_CLASSES: dict[str, type[QSite]] = {
    "drupal": DrupalSite,
    "joomla": JoomlaSite,
    "forum": ForumSite,
    "servlet": ServletSite,
    "encoded": EncodedSite,
    "aspnet": AspNetSite,
    "sharepoint": SharePointSite,
    "blank": BlankSite,
    "i18n": I18nSite,
    "slashes": SlashesSite,
}


# -- the web ------------------------------------------------------------------------------------


class QuirksWeb(CoincidenceWeb):
    """A :class:`~demoweb.coincidenceweb.CoincidenceWeb` whose check also walks every URL a crawl
    can meet, at every spelling, and compares what each of stock's fingerprints leads to."""

    #: More distinct URLs than this in the walk: a spelling that grows without end.
    LIMIT = 20_000

    def landing(self, url: str) -> tuple[str, Reply]:
        """The URL ``url`` ends at after redirects, and its answer."""
        for _ in range(20):
            reply = self.fetch(url)
            if reply.status not in REDIRECT_STATUSES or "Location" not in reply.headers:
                return url, reply
            url = safe_url_string(urljoin(url, reply.headers["Location"])).split("#")[0]
        return url, Reply.not_found()

    def fingerprint_problems(self) -> list[str]:
        """URLs of one fingerprint (``canonicalize_url``) that lead to different documents,
        or whose answers link different fingerprints (stock fetches one of them only)."""
        outcome: dict[str, tuple[str, tuple[str | None, frozenset[str]]]] = {}
        problems: list[str] = []
        seen: set[str] = set()
        queue = deque(self.start_urls)
        while queue and len(seen) < self.LIMIT:
            url = safe_url_string(queue.popleft()).split("#")[0]
            if url in seen:
                continue
            seen.add(url)
            final, reply = self.landing(url)
            links = self.links_of(final, reply.body) if reply.status == 200 else []
            queue.extend(links)
            if final != url:
                queue.append(final)
            result = (doc_id_of(reply), frozenset(canonicalize_url(link) for link in links))
            first = outcome.setdefault(canonicalize_url(url), (url, result))
            if first[1] != result:
                problems.append(f"{url} -> {result[0]} but {first[0]} -> {first[1][0]} (one fingerprint)")
        if queue:
            problems.append(f"more than {self.LIMIT} URLs met")
        return problems

    def check(self) -> list[str]:
        return super().check() + self.fingerprint_problems()


W = TypeVar("W", bound=QuirksWeb)
C = TypeVar("C", bound=FamilyComparison)


def web_of_kinds(
    name: str,
    seed: int,
    kinds: tuple[str, ...],
    classes: Mapping[str, type[QSite]],
    web_type: type[W],
    *,
    meta_refresh: bool = False,
    query_pages: bool = False,
) -> W:
    """A web of 3-5 hosts of ``kinds`` (built by ``classes``), one kind each, and about 30-80
    documents, determined by ``name`` and ``seed`` alone (see :func:`generate_quirks_web`)."""
    rng = random.Random(f"{name}:{seed}")
    count = rng.randint(3, 5)
    budgets = split_budget(rng, rng.randint(25, 60), count, least=8)
    sites: list[QSite] = []
    for index, kind in enumerate(rng.sample(kinds, count)):
        site = draw_cross_cutting(rng, classes[kind](f"{kind}{index}.test", kind))
        if rng.random() < 0.25:
            site.twin = "same"
        site.build(rng, min(budgets[index], 18), [page for other in sites for page in other.linkable()])
        sites.append(site)
    web = web_type(seed, *hosted(sites))
    return woven(rng, web, sites, f"{name}:{seed}", query_pages=query_pages, meta_refresh=meta_refresh)


def generate_quirks_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> QuirksWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds("quirks", seed, KINDS, _CLASSES, QuirksWeb, meta_refresh=meta_refresh, query_pages=query_pages)


# -- the comparison ---------------------------------------------------------------------------


class QuirksComparison(FamilyComparison):
    """A comparison on a quirks web: requests, pages and documents per kind of host."""


async def compare_kinds(
    generate: Callable[..., QuirksWeb],
    comparison: type[C],
    seed: int,
    workdir: Path,
    addon_settings: Mapping[str, Any] | None = None,
    order: CrawlOrder | None = None,
) -> C:
    """:func:`~demoweb.randomweb.compare` on ``generate(seed)`` (a web of kinds, as
    :func:`web_of_kinds` builds), with per-kind tallies in a ``comparison``."""
    order = order or CrawlOrder.from_seed(seed)
    web = generate(seed, meta_refresh=order.refresh, query_pages=order.params)
    return await compare_by_family(
        web, seed, workdir, addon_settings, order, family=kind_of, comparison=comparison, serving=serve_wild
    )


async def compare_quirks(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> QuirksComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_quirks_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_quirks_web, QuirksComparison, seed, workdir, addon_settings, order)
