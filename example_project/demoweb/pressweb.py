"""A fourteenth generator of seeded webs: how news sites, magazines and publishing platforms spell
the URLs of an article.

Written by an outside checker from what WordPress, Ghost, Medium, newspaper CMSs (Arc XP,
Brightspot), paginated magazines and live blogs do with the URL of an article: spellings that answer
one page (byte for byte, by a redirect to it, or as the same document in other bytes: an AMP or
print view, whose ``rel=canonical`` names the article) and, on the same host, the one or two places
they do not. Each host is one *kind*; each exception is linked late (after the host's coincidences
have been linked many times over) and is the only way to the document behind it. Where a real page
links the exception itself (an article's "Pages: 1 2" list, a gallery's "next" button, a live blog's
"older posts" link, the key-events tab), that link is left out: the exception is linked where the
model says, once.

- ``wordpress_news`` (WordPress with ``/%year%/%monthnum%/%day%/%postname%/`` permalinks, the AMP
  plugin): an article ``/2024/05/03/slug/`` is also ``/?p=<id>`` and ``/index.php?p=<id>``
  (``redirect_canonical``: 301, other parameters kept), ``/slug/`` and ``/slug``
  (``redirect_guess_404_permalink``: 301), a wrong date (301), the permalink without its slash (301),
  ``/slug/1/`` and, on an article of one page, ``/slug/2/`` and ``/slug/3/`` (301 to the permalink: a
  page past the post's last); ``/slug/amp/`` and ``?amp=1`` (or a bare ``?amp``) are its AMP view
  (the same document in other bytes), ``?print=1`` and ``?utm_*`` are unknown query variables,
  ignored (byte for byte); ``/slug/feed/`` and ``/feed/`` are RSS (no document); ``?cat=<id>`` and
  ``?author=<id>`` 301 to ``/category/<c>/`` and ``/author/<a>/``, whose ``/page/1/`` 301s to them.
  Exception: ``/2024/05/03/slug/2/``, the second page of the one article split by
  ``<!--nextpage-->``, linking an article linked nowhere else.
- ``ghost`` (Ghost 5): every path ends with a slash (``/slug`` 301s to ``/slug/``), a path with a
  capital letter 301s to its lower case (the ``uncapitalise`` middleware), ``/slug/amp/`` is the AMP
  view (other bytes), ``/p/<uuid>/`` (the preview link of a published post) 301s to the post, ``?ref=``
  (written by newsletters and other Ghost sites) and ``?utm_*`` are ignored, ``/tag/x/`` and
  ``/author/y/`` are listings whose ``/page/1/`` 301s to them, ``/rss/`` is a feed; posts duplicated by
  an old import answer ``/<slug>-2/`` with a 301 to ``/<slug>/`` (one ``redirects.yaml`` rule each).
  Exception: ``/<slug>-2/`` of a post with no such rule: another post with the same title (Ghost added
  ``-2`` to its slug), linking a post linked nowhere else.
- ``medium`` (a Medium-style platform): a story ``/@author/title-<12 hex>`` (or
  ``/<publication>/title-<12 hex>`` when a publication holds it) is also ``/p/<hex>``, any author or
  publication before it and any title text before the id, old titles included (301 to the current
  URL, the query kept); ``?source=...`` (in every link the platform writes) is ignored everywhere, and
  so is a friend link's ``?sk=<key>`` that unlocks nothing (a free story; a revoked key on the
  member-only one). Exception: the member-only story's live friend link ``?sk=<key>``, the whole
  story (another document than the paywalled page), linking a story linked nowhere else.
- ``newspaper_cms`` (an Arc XP/Brightspot-style newspaper CMS): ``/<section>/<slug>-<id>.html`` is
  also ``/<id>`` and any section and slug before the id (301), ``?outputType=amp`` (the AMP view) and
  ``/print/<id>`` (the print view: the same document in other bytes), ``?cmpid=`` and ``?utm_*``
  (ignored); a story reads no ``?page=``, so ``?page=2`` and ``?page=1`` are the story byte for byte,
  as ``?page=1`` is a photo gallery's first page. Exception: the gallery's ``?page=2`` (more photos,
  a caption linking a story linked nowhere else).
- ``magazine_paged`` (a magazine CMS paging long articles by ``?page=N`` and sections by
  ``/page/N/``): ``?page=1`` is the article byte for byte, a page past an article's last is clamped
  to it (on an article of one page, ``?page=2`` is the article), ``?view=all`` is the article on one
  page (the same document in other bytes), the article without its slash 301s to it; a section's
  ``/page/1/`` 301s to it, its ``/page/2/`` is the next page of articles. Exceptions: the long
  feature's ``?page=2`` and ``?page=3``, pages of their own, the third linking an article linked
  nowhere else (the feature's ``?view=all``, every page in one, is linked nowhere: answered, not
  counted).
- ``liveblog`` (a Guardian-style live blog): ``?page=with:block-<id>`` answers the page that holds
  the block (for a block on the first page, the live blog byte for byte), a share link's
  ``?update=<id>#update-<id>``, ``#block-<id>``, ``?CMP=`` and a blank ``?filter=`` are ignored, a
  trailing slash 301s to the path without it. Exceptions: ``?filter=key-events`` of one live blog (its
  key events only: another document, linking an article linked nowhere else) and the long live blog's
  second page, ``?page=with:block-<first block on it>`` (older posts, one of them linking an article
  linked nowhere else).

Where unsure of the real software, a plausible behaviour is modelled and said so here: that
WordPress 301s ``/slug/N/`` past a post's last page to the permalink (recent releases do; older ones
served the post), and that the AMP plugin serves both ``/amp/`` and ``?amp=1`` with one template;
that Ghost's published-post preview ``/p/<uuid>/`` answers with a 301 and that its AMP views are on;
that the Medium-style platform ignores a friend-link key that unlocks nothing, answering the page
byte for byte, and keeps the query when it redirects a story's other URLs; that the newspaper CMS
redirects a wrong section or slug before the id with a 301 and renders its print view at
``/print/<id>``; that the magazine CMS clamps a page number past the last (as Drupal's pager does)
and that its ``?view=all`` of a one-page article is other bytes (a "single page" header); that the
live blog answers ``?page=with:block-<id>`` of a first-page block with the first page byte for byte,
ignores ``?update=``, a blank or unknown ``?filter=`` and ``?page=`` values it cannot read the block
from (404), and redirects a trailing slash away.

Changed from the brief (no kind dropped): WordPress core reads no ``print`` query variable, so
``?print=1`` is the article byte for byte (no print view); the magazine's long feature has its
``?page=2`` as an exception too (page two of three is no spelling of page one, and linking it early
would show the learner the counter-example first); the live blog's ``?update=<id>`` (a share-link
format of other live-blog software) is modelled on the Guardian-style host as an old format it still
answers; the Ghost exception needs a coincidence to break, so posts an old import duplicated answer
``/<slug>-2/`` with a redirect (one ``redirects.yaml`` rule each).

Publishing platforms write absolute or root-relative links, never document-relative ones, so a view
at another path (``/amp/``, ``/print/<id>``) links what its article links: the woven links of these
hosts are written root-relative (:func:`generate_press_web`).

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: ``Location`` style, validators, ``HEAD``, gzip,
rotating ads, a visitor counter; every kind redirects with a ``301``, as its software does),
sometimes a ``www.`` twin that serves the same pages, and links are spelled with an upper-case host,
a trailing-dot host, ``:80``, tracking parameters and fragments where the server ignores them (each
checked). None of these kinds puts a per-request token in its pages.

Every document is collected by stock Scrapy by construction, which :meth:`PressWeb.check` proves
over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached from a start
URL through URLs that answer ``200``, and no two spellings stock takes as one (w3lib's
``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import html
import random
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from .commerceweb import _hex, _int, _tail, _without
from .quirksweb import QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply
from .slugweb import SlugSite
from .wildweb import Pen, encode_path

KINDS = ("wordpress_news", "ghost", "medium", "newspaper_cms", "magazine_paged", "liveblog")
_HEADLINES = (
    "council-approves-new-budget",
    "storm-closes-coastal-roads",
    "local-team-wins-the-final",
    "rail-strike-called-off",
    "new-museum-opens-downtown",
    "school-meals-plan-revealed",
    "bridge-repairs-delayed-again",
    "heatwave-warning-issued",
    "mayor-announces-reelection-bid",
    "startup-raises-series-b",
    "house-prices-fall-again",
    "festival-lineup-announced",
    "river-cleanup-draws-hundreds",
    "hospital-expands-emergency-ward",
    "airport-expansion-approved",
    "library-hours-extended",
)
_SECTIONS = ("politics", "business", "sport", "culture", "science", "world", "opinion", "technology")
_AUTHORS = ("jane-doe", "sam-okafor", "li-wei", "maria-garcia", "tom-baker", "aisha-khan")
_PUBLICATIONS = ("the-startup", "better-programming", "towards-data", "the-writers-desk")
_SOURCES = (
    "rss----4e1a2b3c4d5e---4",
    "collection_home---4------0-----------------------",
    "user_profile---------3----------------------------",
    "post_page-----a1b2c3d4e5f6--------------------------------",
    "email-digest---daily",
)
_NEWSLETTERS = ("weekly-digest", "morning-briefing", "members-update", "othersite.test")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _feed(title: str, items: list[str]) -> Reply:
    """An RSS feed (no HTML, no document)."""
    entries = "".join(f"<item><link>{html.escape(url)}</link></item>" for url in items)
    body = (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
        f"<title>{html.escape(title)}</title>{entries}</channel></rss>"
    )
    return Reply(200, body.encode(), {"Content-Type": "application/rss+xml; charset=UTF-8"})


def _rooted(page: Page, href: str) -> str:
    """``href`` written on ``page`` as a root-relative link when it is document-relative."""
    if href.startswith(("/", "#")) or urlsplit(href).scheme:
        return href
    parts = urlsplit(urljoin(page.url, href))
    return parts.path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")


class PressSite(SlugSite):
    """A host of one kind: its :meth:`forms` are the other URLs that answer a page (the
    twelfth generator's base: :class:`~demoweb.slugweb.SlugSite`)."""


# -- kinds ------------------------------------------------------------------------------------


class WordPressNewsSite(PressSite):
    """WordPress with date permalinks and the AMP plugin: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache", "nginx/1.24.0"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.categories: dict[str, tuple[int, Page]] = {}  # slug -> (term id, listing)
        for name, number in zip(rng.sample(_SECTIONS, 2), rng.sample(range(2, 40), 2), strict=True):
            self.categories[name] = (number, self.add(f"/category/{name}/"))
        self.authors: dict[str, tuple[int, Page]] = {}  # nicename -> (user id, archive)
        for name, number in zip(rng.sample(_AUTHORS, 2), rng.sample(range(2, 30), 2), strict=True):
            self.authors[name] = (number, self.add(f"/author/{name}/"))
        count = max(3, min(8, budget - 7))
        slugs = rng.sample(_HEADLINES, count + 1)
        ids = rng.sample(range(100, 20000), count + 1)
        self.articles: dict[str, tuple[int, str, Page]] = {}  # slug -> (post id, date, page)
        for slug, number in zip(slugs[:count], ids[:count], strict=True):
            page = self.article(rng, slug, number)
            rng.choice(list(self.categories.values()))[1].links.append(page.path)
            rng.choice(list(self.authors.values()))[1].links.append(page.path)
        self.paged = self.articles[slugs[0]][2]
        self.texts[self.paged.doc_id] = "Page 1 of 2. " + self.texts[self.paged.doc_id]
        self.second = self.exception(self.add(f"{self.paged.path}2/"))
        self.texts[self.second.doc_id] = "Page 2 of 2 (<!--nextpage-->). Related: see the follow-up."
        hidden = self.article(rng, slugs[count], ids[count])
        self.behind(self.second, hidden, hidden.path)
        self.traps.append(
            "?p=, /slug/, wrong dates, no slash -> 301, /amp/ and ?amp=1 (other bytes), ?print=1, /N/ past the "
            f"last page -> 301; but {self.paged.path}2/"
        )

    def article(self, rng: random.Random, slug: str, number: int) -> Page:
        date = f"{rng.choice((2023, 2024))}/{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}"
        page = self.add(f"/{date}/{slug}/")
        self.articles[slug] = (number, date, page)
        return page

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/index.php"):
            if params.get("p"):
                found = next((page for number, _, page in self.articles.values() if str(number) == params["p"]), None)
                return self.redirect(authority, found.path + _tail(_without(query, "p"))) if found else None
            for name, table, prefix in (("cat", self.categories, "category"), ("author", self.authors, "author")):
                if params.get(name):
                    slug = next((slug for slug, (number, _) in table.items() if str(number) == params[name]), None)
                    if slug is None:
                        return None
                    return self.redirect(authority, f"/{prefix}/{slug}/" + _tail(_without(query, name)))
            return self.home
        if path.rstrip("/") == "/page/1":
            return self.redirect(authority, "/" + _tail(query))
        if path == "/feed/":
            return _feed("News", [page.url for _, _, page in self.articles.values() if self.plain(page)])
        match = re.fullmatch(r"/(\d{4}/\d{2}/\d{2})/([\w-]+)(/.*)?", path)
        if match:
            return self.post(authority, match.group(1), match.group(2), match.group(3) or "", query)
        match = re.fullmatch(r"/(category|author)/([\w-]+)(/.*)?", path)
        if match:
            table = self.categories if match.group(1) == "category" else self.authors
            if match.group(2) not in table:
                return None
            listing, rest = table[match.group(2)][1], match.group(3) or ""
            if rest == "/":
                return listing
            if rest in ("", "/page/1", "/page/1/"):
                return self.redirect(authority, listing.path + _tail(query))
            return _feed(match.group(2), []) if rest == "/feed/" else None
        match = re.fullmatch(r"/([\w-]+)/?", path)
        if match and match.group(1) in self.articles:  # (redirect_guess_404_permalink)
            return self.redirect(authority, self.articles[match.group(1)][2].path + _tail(query))
        return None

    def post(self, authority: str, date: str, slug: str, rest: str, query: str) -> Page | Reply | None:
        if slug not in self.articles:
            return None
        _, real, page = self.articles[slug]
        if date != real:
            return self.redirect(authority, page.path + _tail(query)) if rest in ("", "/") else None
        if rest in ("", "/amp", "/feed") or re.fullmatch(r"/\d+", rest):
            return self.redirect(authority, page.path + rest[1:] + ("/" if rest else "") + _tail(query))
        if rest == "/feed/":
            return _feed(f"Comments on {slug}", [])
        found = page
        if re.fullmatch(r"/\d+/", rest):
            if page is self.paged and rest == "/2/":
                found = self.second
            else:  # (page 1, or a page past the post's last: redirect_canonical)
                return self.redirect(authority, page.path + _tail(query))
        elif rest == "/amp/":
            return self.noted(found, "AMP")
        elif rest != "/":
            return None
        return self.noted(found, "AMP") if "amp" in self.params(query) else found

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        super().evidence(pen, rng, placed)
        article = rng.choice([page for _, _, page in self.articles.values() if self.plain(page)])
        self.link_from(rng, pen, placed, f"{article.url}feed/")  # (the comments feed: no document)
        self.link_from(rng, pen, placed, f"http://{self.host}/feed/")

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/index.php", f"{base}/page/1/", f"{base}/?print=1"]
        for table, name in ((self.categories, "cat"), (self.authors, "author")):
            for number, listing in table.values():
                if listing is page:
                    return [f"{base}/?{name}={number}", f"{page.url}page/1/", page.url[:-1]]
        for slug, (number, date, article) in self.articles.items():
            if article is page:
                year = int(date[:4])
                forms = [f"{base}/?p={number}", f"{base}/index.php?p={number}", f"{base}/{slug}/", f"{base}/{slug}"]
                forms += [page.url[:-1], f"{page.url}amp/", f"{page.url}?amp=1", f"{page.url}?amp"]
                forms += [f"{page.url}?print=1", f"{page.url}1/", f"{base}/{year - 1}{date[4:]}/{slug}/"]
                if page is not self.paged:
                    forms += [f"{page.url}2/", f"{page.url}3/"]
                return forms
        return []


class GhostSite(PressSite):
    """Ghost 5: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "openresty", "cloudflare"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.tags = {name: self.add(f"/tag/{name}/") for name in rng.sample(_SECTIONS, 2)}
        self.authors = {name: self.add(f"/author/{name}/") for name in rng.sample(_AUTHORS, 2)}
        count = max(3, min(8, budget - 7))
        slugs = rng.sample(_HEADLINES, count + 1)
        self.posts: dict[str, Page] = {}  # slug -> post
        self.uuids: dict[str, str] = {}  # preview uuid -> slug
        self.uuid_rng = random.Random(rng.random())
        for slug in slugs[:count]:
            page = self.post(slug)
            rng.choice(list(self.tags.values())).links.append(page.path)
            rng.choice(list(self.authors.values())).links.append(page.path)
        #: redirects.yaml: the duplicates an old import made, each sent to its post
        self.moved = {f"{slug}-2": slug for slug in rng.sample(slugs[1:count], 2)}
        self.namesake = self.exception(self.post(f"{slugs[0]}-2"))
        self.texts[self.namesake.doc_id] = f"A second post titled like /{slugs[0]}/ (Ghost added -2 to its slug)."
        hidden = self.post(slugs[count])
        self.behind(self.namesake, hidden, hidden.path)
        self.traps.append(
            "/slug -> /slug/, capitals -> lower case, /p/<uuid>/ -> 301, /amp/ (other bytes), ?ref=, "
            f"{', '.join(f'/{slug}/' for slug in self.moved)} -> 301; but {self.namesake.path}"
        )

    def post(self, slug: str) -> Page:
        page = self.posts[slug] = self.add(f"/{slug}/")
        self.uuids[str(uuid.UUID(int=self.uuid_rng.getrandbits(128), version=4))] = slug
        return page

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path != path.lower():  # (uncapitalise)
            return self.redirect(authority, encode_path(path.lower()) + _tail(query))
        if not path.endswith("/") and "." not in path.rsplit("/", 1)[-1]:
            return self.redirect(authority, encode_path(path) + "/" + _tail(query))
        if path == "/":
            return self.home
        if path == "/page/1/":
            return self.redirect(authority, "/" + _tail(query))
        if path == "/rss/":
            return _feed("Blog", [page.url for page in self.posts.values() if self.plain(page)])
        parts = path.strip("/").split("/")
        if parts[0] in ("tag", "author") and len(parts) > 1:
            listing = (self.tags if parts[0] == "tag" else self.authors).get(parts[1])
            if listing is None or len(parts) == 2:
                return listing
            if parts[2:] == ["page", "1"]:
                return self.redirect(authority, listing.path + _tail(query))
            return _feed(parts[1], []) if parts[2:] == ["rss"] else None
        if parts[0] == "p" and len(parts) == 2:  # (a published post's preview link)
            slug = self.uuids.get(parts[1])
            return self.redirect(authority, self.posts[slug].path + _tail(query)) if slug else None
        if parts[0] in self.moved and len(parts) == 1:  # (redirects.yaml)
            return self.redirect(authority, f"/{self.moved[parts[0]]}/" + _tail(query))
        post = self.posts.get(parts[0])
        if post is None or len(parts) > 2:
            return None
        if len(parts) == 1:
            return post
        return self.noted(post, "AMP") if parts[1] == "amp" else None

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        ref = random.Random(page.doc_id).choice(_NEWSLETTERS)
        if page is self.home:
            return [f"{base}/page/1/", f"{base}/?ref={ref}", f"{base}/page/1"]
        if page in self.tags.values() or page in self.authors.values():
            return [page.url[:-1], f"{page.url}page/1/", f"{base}{page.path.upper()}", f"{page.url}?ref={ref}"]
        for slug, post in self.posts.items():
            if post is page:
                preview = next(key for key, found in self.uuids.items() if found == slug)
                forms = [page.url[:-1], f"{base}/{slug.title()}/", f"{page.url}?ref={ref}", f"{base}/p/{preview}/"]
                forms += [f"{page.url}amp/", f"{page.url}amp"]
                forms += [f"{base}/{moved}/" for moved, target in self.moved.items() if target == slug]
                forms += [f"{base}/{moved}" for moved, target in self.moved.items() if target == slug]
                return forms
        return []


class MediumSite(PressSite):
    """A Medium-style publishing platform: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "cloudflare"
        self.redirect_status = 301
        self.home = self.add("/")
        self.publication = rng.choice(_PUBLICATIONS)
        self.pub_home = self.add(f"/{self.publication}")
        names = rng.sample(_AUTHORS, 3)
        self.profiles = {name: self.add(f"/@{name}") for name in names[:2]}
        count = max(3, min(8, budget - 6))
        slugs = rng.sample(_HEADLINES, count + 1)
        #: story id (12 hex) -> (author, slug, in the publication, page)
        self.stories: dict[str, tuple[str, str, bool, Page]] = {}
        for slug in slugs[:count]:
            author, in_pub = rng.choice(names[:2]), rng.random() < 0.5
            page = self.story(rng, author, slug, in_pub)
            (self.pub_home if in_pub else self.profiles[author]).links.append(page.path)
        self.locked = next(iter(self.stories.values()))[3]
        self.texts[self.locked.doc_id] = "Member-only story. The first paragraphs; become a member to read on."
        self.key = _hex(rng, 32)
        self.friend = self.exception(self.add(self.locked.path, f"sk={self.key}"))
        self.texts[self.friend.doc_id] = "Member-only story, read with a friend link: the whole story. Part two: see"
        hidden = self.story(rng, names[2], slugs[count], False)
        self.behind(self.friend, hidden, hidden.path)
        self.traps.append(
            "/p/<id>, any author, publication or title before the id -> 301, ?source= and dead ?sk= ignored; "
            f"but {self.locked.path}?sk=<the key>"
        )

    def story(self, rng: random.Random, author: str, slug: str, in_pub: bool) -> Page:
        number = _hex(rng, 12)
        page = self.add(f"/{self.publication if in_pub else '@' + author}/{slug}-{number}")
        self.stories[number] = (author, slug, in_pub, page)
        return page

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path == "/":
            return self.home
        match = re.fullmatch(r"/p/([0-9a-f]{12})", path)
        if match:
            found = self.stories.get(match.group(1))
            return self.redirect(authority, found[3].path + _tail(query)) if found else None
        match = re.fullmatch(r"/(@?[\w-]+)", path)
        if match:
            name = match.group(1)
            if name.startswith("@"):
                return self.profiles.get(name[1:])
            return self.pub_home if name == self.publication else None
        match = re.fullmatch(r"/@?[\w-]+/(?:[\w-]*-)?([0-9a-f]{12})", path)
        if match is None or match.group(1) not in self.stories:
            return None
        page = self.stories[match.group(1)][3]
        if raw_path != page.path:
            return self.redirect(authority, page.path + _tail(query))
        if page is self.locked and params.get("sk") == self.key:
            return self.friend
        return page

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        rng = random.Random(page.doc_id)
        tracked = [f"{page.url}?source={source}" for source in rng.sample(_SOURCES, 2)]
        for number, (author, slug, in_pub, story) in self.stories.items():
            if story is page:
                prefix = self.publication if in_pub else f"@{author}"
                other = f"@{author}" if in_pub else f"@{rng.choice([name for name in _AUTHORS if name != author])}"
                old = slug.rsplit("-", 2)[0]
                forms = [f"{base}/p/{number}", f"{base}/{other}/{slug}-{number}", f"{base}/{prefix}/{number}"]
                forms += [f"{base}/{prefix}/{old}-{number}", f"{base}/p/{number}?source={_SOURCES[0]}"]
                return [*forms, *tracked, f"{page.url}?sk={_hex(rng, 32)}"]  # (a dead friend link)
        return tracked


class NewspaperSite(PressSite):
    """An Arc XP/Brightspot-style newspaper CMS: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache", ""))
        self.redirect_status = 301
        self.home = self.add("/")
        self.sections = {name: self.add(f"/{name}/") for name in rng.sample(_SECTIONS, 2)}
        count = max(3, min(8, budget - 6))
        slugs = rng.sample(_HEADLINES, count + 2)
        ids = rng.sample(range(10**7, 10**8), count + 2)
        self.stories: dict[int, Page] = {}  # story id -> story
        for slug, number in zip(slugs[:count], ids[:count], strict=True):
            page = self.story(rng.choice(list(self.sections)), slug, number)
            self.sections[page.path.split("/")[1]].links.append(page.path)
        section = rng.choice(list(self.sections))
        self.gallery = self.story(section, f"photos-{slugs[count]}", ids[count])
        self.sections[section].links.append(self.gallery.path)
        self.texts[self.gallery.doc_id] = "Photo gallery: 24 photos. Photos 1-12."
        self.gallery_two = self.exception(self.add(self.gallery.path, "page=2"))
        self.texts[self.gallery_two.doc_id] = "Photo gallery: photos 13-24. Caption: the full story, see"
        hidden = self.story(section, slugs[count + 1], ids[count + 1])
        self.behind(self.gallery_two, hidden, hidden.path)
        self.traps.append(
            "/<id>, wrong section or slug -> 301, ?outputType=amp and /print/<id> (other bytes), ?page= read by "
            f"no story, ?page=1; but {self.gallery.path}?page=2"
        )

    def story(self, section: str, slug: str, number: int) -> Page:
        page = self.stories[number] = self.add(f"/{section}/{slug}-{number}.html")
        return page

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path == "/":
            return self.home
        match = re.fullmatch(r"/([\w-]+)/?", path)
        if match and match.group(1).isdigit():
            found = self.stories.get(int(match.group(1)))
            return self.redirect(authority, found.path + _tail(query)) if found else None
        if match and match.group(1) in self.sections:
            section = self.sections[match.group(1)]
            return section if path.endswith("/") else self.redirect(authority, section.path + _tail(query))
        match = re.fullmatch(r"/print/(\d+)", path)
        if match:
            found = self.stories.get(int(match.group(1)))
            return self.noted(found, "Print view") if found else None
        match = re.fullmatch(r"/[\w/-]*?-(\d+)\.html", path)
        if match is None or int(match.group(1)) not in self.stories:
            return None
        story = self.stories[int(match.group(1))]
        if raw_path != story.path:
            return self.redirect(authority, story.path + _tail(query))
        found = story
        if story is self.gallery:
            number = _int(params.get("page", "1"), 0)
            if number not in (1, 2):
                return None
            found = self.gallery_two if number == 2 else story
        return self.noted(found, "AMP") if params.get("outputType") == "amp" else found

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/?cmpid=rss"]
        if page in self.sections.values():
            return [page.url[:-1], f"{page.url}?cmpid=nav"]
        for number, story in self.stories.items():
            if story is page:
                section = next(name for name in self.sections if name != page.path.split("/")[1])
                short = page.path.rsplit("/", 1)[1].split("-")[0]
                forms = [f"{base}/{number}", f"{base}/print/{number}", f"{page.url}?outputType=amp"]
                forms += [f"{page.url}?page=1", f"{page.url}?cmpid=rss", f"{base}/{section}/{short}-{number}.html"]
                if page is not self.gallery:
                    forms += [f"{page.url}?page=2", f"{page.url}?outputType=amp&page=2"]
                return forms
        return []


class MagazineSite(PressSite):
    """A magazine CMS paging long articles: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache/2.4.58 (Ubuntu)"))
        self.redirect_status = 301
        self.home = self.add("/")
        names = rng.sample(_SECTIONS, 2)
        self.sections = {name: self.add(f"/{name}/") for name in names}
        self.older = self.add(f"/{names[0]}/page/2/")  # (the section's next page of articles)
        self.sections[names[0]].links.append(self.older.path)
        count = max(3, min(7, budget - 8))
        slugs = rng.sample(_HEADLINES, count + 1)
        self.articles: dict[str, list[Page]] = {}  # path -> its pages (the article first)
        for index, slug in enumerate(slugs[:count]):
            name = rng.choice(names)
            page = self.add(f"/{name}/{slug}/")
            self.articles[page.path] = [page]
            (self.older if index == count - 1 else self.sections[name]).links.append(page.path)
        self.feature = next(iter(self.articles.values()))[0]
        self.texts[self.feature.doc_id] = "The long read, page 1 of 3."
        for number in (2, 3):
            page = self.exception(self.add(self.feature.path, f"page={number}"))
            self.texts[page.doc_id] = f"The long read, page {number} of 3."
            self.articles[self.feature.path].append(page)
        third = self.articles[self.feature.path][2]
        self.texts[third.doc_id] += " Read the interview it draws on:"
        hidden = self.add(f"/{names[1]}/{slugs[count]}/")
        self.articles[hidden.path] = [hidden]
        self.behind(third, hidden, hidden.path)
        self.traps.append(
            "?page=1, a page past the last clamped, ?view=all (other bytes), /page/1/ -> 301; "
            f"but {self.feature.path}?page=2 and ?page=3"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path == "/":
            return self.home
        match = re.fullmatch(r"/([\w-]+)(/page/(\d+))?/?", path)
        if match and match.group(1) in self.sections:
            section = self.sections[match.group(1)]
            if not path.endswith("/"):
                return self.redirect(authority, path + "/" + _tail(query))
            number = int(match.group(3) or "1")
            if number == 1:
                return self.redirect(authority, section.path + _tail(query)) if match.group(2) else section
            return self.older if (number, path) == (2, self.older.path) else None
        match = re.fullmatch(r"(/[\w-]+/[\w-]+)/?", path)
        if match is None or match.group(1) + "/" not in self.articles:
            return None
        pages = self.articles[match.group(1) + "/"]
        if not path.endswith("/"):
            return self.redirect(authority, pages[0].path + _tail(query))
        if params.get("view") == "all":
            if len(pages) == 1:
                return self.noted(pages[0], "All pages")
            return self.unlisted(f"{self.host}{pages[0].path}?view=all", " ".join(self.texts[p.doc_id] for p in pages))
        number = max(_int(params.get("page", "1"), 1), 1)
        return pages[min(number, len(pages)) - 1]  # (a page past the last: the last)

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return []
        if page in self.sections.values():
            return [page.url[:-1], f"{page.url}page/1/", f"{page.url}page/1"]
        if page is self.older:
            return [page.url[:-1]]
        pages = self.articles.get(page.path, [])
        if not pages or pages[0] is not page:
            return []
        forms = [f"{page.url}?page=1", f"{base}{page.path[:-1]}", f"{page.url}?page=0"]
        if len(pages) == 1:
            forms += [f"{page.url}?page=2", f"{page.url}?view=all", f"{page.url}?page=1&view=all"]
        return forms


class LiveblogSite(PressSite):
    """A Guardian-style live blog: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "nginx", "Fastly"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.listing = self.add("/live")
        slugs = iter(rng.sample(_HEADLINES, len(_HEADLINES)))
        self.articles: dict[str, Page] = {}
        for _ in range(max(2, min(5, budget - 9))):
            self.article(rng, next(slugs))
        #: live blog path -> its pages, newest first, with the ids of the blocks on each
        self.blogs: dict[str, list[tuple[Page, list[str]]]] = {}
        for _ in range(2):
            page = self.add(self.dated(rng, next(slugs), live=True))
            self.blogs[page.path] = [(page, [_hex(rng, 24) for _ in range(rng.randint(3, 6))])]
            self.listing.links.append(page.path)
        long_path, key_path = list(self.blogs)
        blocks = [_hex(rng, 24) for _ in range(rng.randint(2, 5))]
        self.older = self.exception(self.add(long_path, f"page=with:block-{blocks[0]}"))
        self.blogs[long_path].append((self.older, blocks))
        self.texts[self.older.doc_id] = "Older posts. A reader writes: see"
        self.key_events = self.exception(self.add(key_path, "filter=key-events"))
        self.key_blog = key_path
        self.texts[self.key_events.doc_id] = "Key events only (4). The statement in full:"
        for page in (self.older, self.key_events):
            hidden = self.article(rng, next(slugs))
            self.behind(page, hidden, hidden.path)
        self.traps.append(
            "?page=with:block-<first-page block>, ?update=, #block-, blank ?filter=, trailing / -> 301; "
            f"but {long_path}?page=with:block-{blocks[0]} and {key_path}?filter=key-events"
        )

    def dated(self, rng: random.Random, slug: str, *, live: bool = False) -> str:
        section = rng.choice(_SECTIONS)
        date = f"{rng.choice((2023, 2024))}/{rng.choice(_MONTHS)}/{rng.randint(1, 28):02d}"
        return f"/{section}{'/live' if live else ''}/{date}/{slug}"

    def article(self, rng: random.Random, slug: str) -> Page:
        page = self.add(self.dated(rng, slug))
        self.articles[page.path] = page
        return page

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path != "/" and path.endswith("/"):
            return self.redirect(authority, encode_path(path.rstrip("/")) + _tail(query))
        if path == "/":
            return self.home
        if path == "/live":
            return self.listing
        if path in self.articles:
            return self.articles[path]
        pages = self.blogs.get(path)
        if pages is None:
            return None
        params = self.params(query)
        if params.get("filter") == "key-events":
            if path == self.key_blog:
                return self.key_events
            return self.unlisted(f"{self.host}{path}?filter=key-events", "Key events only.")
        if not params.get("page"):
            return pages[0][0]
        match = re.fullmatch(r"with:block-([0-9a-f]{24})", params["page"])
        return next((page for page, blocks in pages if match and match.group(1) in blocks), None)

    def forms(self, page: Page) -> list[str]:
        if page is self.home:
            return []
        if page is self.listing or page.path in self.articles:
            return [f"{page.url}/", f"{page.url}?CMP=share_btn_tw"]
        pages = self.blogs.get(page.path)
        if not pages or pages[0][0] is not page:
            return []
        first, second = random.Random(page.doc_id).sample(pages[0][1], 2)
        forms = [f"{page.url}?page=with:block-{first}#block-{first}", f"{page.url}?page=with:block-{second}"]
        forms += [f"{page.url}?update={second}#update-{second}", f"{page.url}#block-{first}", f"{page.url}/"]
        return [*forms, f"{page.url}?filter=", f"{page.url}?CMP=share_btn_link"]


_CLASSES: dict[str, type[PressSite]] = {
    "wordpress_news": WordPressNewsSite,
    "ghost": GhostSite,
    "medium": MediumSite,
    "newspaper_cms": NewspaperSite,
    "magazine_paged": MagazineSite,
    "liveblog": LiveblogSite,
}


# -- the web ------------------------------------------------------------------------------------


class PressWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of publishing kinds (the same checks)."""


def generate_press_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> PressWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over). Links are written
    root-relative or absolute (see the module's docstring)."""
    web = web_of_kinds("press", seed, KINDS, _CLASSES, PressWeb, meta_refresh=meta_refresh, query_pages=query_pages)
    for site in web.hosts:
        for page in site.pages:
            page.links = [_rooted(page, href) for href in page.links]
    return web


# -- the comparison ---------------------------------------------------------------------------


class PressComparison(FamilyComparison):
    """A comparison on a press web: requests, pages and documents per kind of host."""


async def compare_press(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> PressComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_press_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_press_web, PressComparison, seed, workdir, addon_settings, order)
