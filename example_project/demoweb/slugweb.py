"""A twelfth generator of seeded webs: sites that route by an id and read the rest of the URL loosely.

Written by an outside checker from what forum, Q&A, wiki, CMS and repository software does with
the parts of a URL it does not route by (a slug, a title, a tiny link's code, a path Zope reaches
by acquisition): spellings that answer one page (byte for byte, by a redirect to it, or as the
same document in other bytes) and, on the same host, the one or two places they do not. Each host
is one *kind*; each exception is linked late (after the host's coincidences have been linked many
times over) and is the only way to the document behind it. Where a real page links the exception
itself (a topic's "next page" link, a thread's pager, a folder's listing of a file), that link is
left out: the exception is linked where the model says, once.

- ``discourse`` (Discourse, the crawler view, 20 posts a page): a topic at ``/t/<slug>/<id>`` is
  also ``/t/<id>`` and ``/t/<wrong-slug>/<id>`` (301 to the slug, a post number kept), ``?page=1``,
  ``/t/<slug>/<id>/`` and a share link's ``?u=<username>`` (byte for byte);
  ``/t/<slug>/<id>/<post>`` is the crawler page that holds the post (``TopicView`` computes the
  page from the post number, a post past the last clamped to it), the same document in other bytes
  (its meta description is the post's excerpt; post 1's is the topic's own); ``/latest`` is ``/``;
  ``/c/<slug>`` and ``/c/<id>`` 301 to ``/c/<slug>/<id>``, ``/c/<slug>/<id>/l/latest`` is the category;
  usernames are found case-insensitively (``/u/Alice``). ``?page=N`` past the last page is a 404.
  Exception: the long topic's ``?page=2`` (posts 21 on), whose posts link a member's profile
  ``/u/<name>`` linked nowhere else (the first page's ``rel=next`` link to it is left out).
- ``stackexchange`` (a Stack Exchange site): ``/questions/<id>/<slug>`` is also ``/questions/<id>``
  and any wrong slug (301 to the slug, an answer id kept), ``/q/<id>`` and ``/q/<id>/<user>`` (share
  links, 302), ``/a/<answer>`` (302 to ``/questions/<id>/<slug>/<answer>#<answer>``, the question page
  byte for byte); ``?noredirect=1``, ``?answertab=votes`` and ``scoredesc`` (the default order) and
  the answers' first page ``?page=1&tab=scoredesc`` change nothing; ``?answertab=active`` and
  ``oldest`` list the same answers in another order (the same document in other bytes, on a
  question whose answers fit one page); ``/users/<id>/<name>`` answers with any name, and
  ``/users/<id>`` (the profile, ``rel=canonical`` naming its slug). Exceptions: the long question's
  ``?page=2&tab=scoredesc`` (answers 31-34, one by a member linked nowhere else), and a question
  whose title, so slug, another question has: ``/questions/<other id>/<same slug>``, another
  question (the id routes, the slug is decoration), its asker linked nowhere else.
- ``xenforo`` (XenForo 2, friendly URLs on, 20 posts a page, as a guest): ``/threads/<title>.<id>/``
  is also ``/threads/<id>/``, ``/threads/<wrong>.<id>/``, ``/threads/<title>.<id>`` (301:
  ``assertCanonicalUrl`` compares the route path) and ``index.php?threads/<title>.<id>/`` (the
  query-string route of friendly URLs off: the same route path, so the page byte for byte);
  ``/page-1`` and a page past the last 301 to the thread's (last) page; ``/unread`` 303s a guest to
  the thread, ``/latest`` to the last page's last post, ``/posts/<id>/`` and
  ``/threads/<title>.<id>/post-<id>`` 301 to the page that holds the post (``#post-<id>``); members
  and forums likewise (``/members/<name>.<id>/``, ``/members/<id>/`` -> 301). Exception: the long
  thread's ``/page-2``, another page of posts, one by a member whose profile is linked nowhere else.
- ``plone`` (Plone 4.3 on Zope 2, Archetypes content, every page with ``<base href>`` naming its
  object's own URL, as ``renderBase`` does): a document ``/f/doc`` is also ``/f/doc/``,
  ``/f/doc/view``, ``/f/doc/index_html`` and ``/f/doc/document_view``; a folder ``/f`` is ``/f/``,
  ``/f/view``, ``/f/index_html`` and, where it shows its listing, ``/f/folder_listing``; a folder
  with a default page shows that page at ``/f`` (``/f/<page>`` byte for byte); the portal shows its
  ``front-page``. Zope acquisition: a name not found in an object is looked up in the objects the
  path went through, so ``/g/f/doc`` (``f`` acquired from the portal through ``g``) and
  ``/f/other/doc`` (``doc`` acquired from ``f`` through ``other``) are ``/f/doc``, byte for byte (the
  page is rendered from the object's physical path). Bounded: every page's ``<base href>`` is its
  object's URL, so its relative links never grow an acquired path; only the spellings linked are
  met. Exceptions: ``/<folder>/folder_listing`` of the folder that has a default page (its contents,
  with a document excluded from navigation, linked nowhere else), and a File's ``/view``
  (``file_view``: a page about the file, where ``/f/report.pdf`` downloads it), whose Related Items
  link a document linked nowhere else.
- ``dspace`` (DSpace 7, the Angular UI with server-side rendering, ``<base href="/">`` on every page):
  items at ``/items/<uuid>``, collections and communities at ``/collections/<uuid>`` and
  ``/communities/<uuid>``; ``/handle/<prefix>/<n>`` 301s to the object (the query dropped, so
  DSpace 6's ``?show=full`` too), ``/items/<uuid>?show=full`` and ``/items/<uuid>/`` are the item
  byte for byte (the route reads no query), ``/items/<uuid>/full`` is the full item page (the same
  item, every metadata field in a table: other bytes); ``/`` is ``/home``; DSpace 6's
  ``/bitstream/handle/<prefix>/<n>/<file>?sequence=1&isAllowed=y`` and the same without its
  parameters 301 to ``/bitstreams/<uuid>/download``, which 302s to the REST content (the PDF, no
  document). Exception: one item's ``/full``, whose ``dc.relation.isreferencedby`` field links
  another item, linked nowhere else (the simple page shows no relation field).
- ``confluence`` (Confluence Data Center 7, anonymous access): a page at
  ``/display/<SPACE>/<Title+With+Plus>`` is also ``/display/<SPACE>/<Title%20With%20Spaces>``,
  ``/pages/viewpage.action?pageId=<n>`` (with or without ``&src=`` tracking) and
  ``viewpage.action?spaceKey=<SPACE>&title=<title>``: the same document in other bytes, as the
  header's "Log in" link carries the request (``/login.action?os_destination=<path and query>``,
  a login form, no document); ``/x/<tiny code>`` (the page id in base64) 302s to the page,
  ``/display/<SPACE>`` to the space's home page, ``/`` and ``/index.action`` to
  ``/dashboard.action``. Exception: ``viewpage.action?pageId=<n>&pageVersion=3``, an old version
  of a page (another document: "You are viewing an old version of this page"), linking a page the
  current version no longer links, linked nowhere else.

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter; the status of a redirect the
software always answers with one is that status), sometimes a ``www.`` twin that serves the same
pages, and links are spelled with an upper-case host, a trailing-dot host, ``:80``, tracking
parameters and fragments where the server ignores them (each checked). None of these kinds puts
a per-request token in its pages (as a guest or an anonymous reader).

Where unsure of the real software, a plausible behaviour is modelled and said so here: that
Discourse's crawler view differs for a post number only in its meta description (the post's
excerpt); that Stack Exchange answers ``/users/<id>/<any name>`` and ``/users/<id>`` with the profile
(``200``, not a redirect); that XenForo's ``index.php?<route>`` with friendly URLs on is served, not
redirected (the route path is what it compares), and sends a guest's ``/unread`` to the thread with
a 303; which statuses XenForo's post links answer with (301); that a Plone 4 page at an acquired
path is byte for byte the page at its own (everything in it computed from the physical path) and
that a File's own URL downloads it (Archetypes ``ATFile``); that DSpace 7's handle redirect is a 301
and drops the query, and that its server-side render at ``/`` is ``/home``'s bytes; that Confluence
reads ``%20`` in a ``/display/`` title as it reads ``+`` and that its tiny code is the page id's
eight little-endian bytes in base64 (``/`` and ``+`` as ``-`` and ``_``, trailing ``A`` and ``=``
dropped); and that an old Confluence version is asked for by ``pageVersion`` (older releases gave
each version an id of its own).

Every document is collected by stock Scrapy by construction, which :meth:`SlugWeb.check` proves
over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached from a
start URL through URLs that answer ``200``, and no two spellings stock takes as one (w3lib's
``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import base64
import html
import random
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, unquote, unquote_plus

from .commerceweb import _int, _link, _tail
from .communityweb import CommunitySite
from .quirksweb import QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply
from .wildweb import Pen, render

KINDS = ("discourse", "stackexchange", "xenforo", "plone", "dspace", "confluence")
_HTML = {"Content-Type": "text/html; charset=utf-8"}
_USERS = ("alice", "bob_k", "carol77", "dave", "erin-m", "frank", "grace", "heidi", "ivan", "judy")
_TOPICS = (
    "upgrading-to-3-2-broke-my-plugins",
    "dark-mode-for-the-editor",
    "monthly-community-call",
    "backup-restore-fails-on-large-sites",
    "welcome-introduce-yourself",
    "api-rate-limits-explained",
    "feedback-on-the-new-sidebar",
    "how-to-migrate-from-phpbb",
    "email-notifications-delayed",
)
_CATEGORIES = ("support", "feature", "dev", "meta", "general", "announcements")
_QUESTIONS = (
    "how-to-iterate-over-rows-in-a-dataframe",
    "why-does-my-regex-match-too-much",
    "how-do-i-revert-a-git-repository-to-a-previous-commit",
    "what-is-the-difference-between-let-and-var",
    "how-to-parse-json-in-bash",
    "why-is-floating-point-math-broken",
    "how-can-i-remove-a-key-from-a-dictionary",
    "what-does-if-name-main-do",
)
_TAGS = ("python", "git", "regex", "bash", "javascript", "pandas")
_THREADS = (
    "brake-pads-squealing-after-change",
    "best-budget-tent-for-2024",
    "firmware-2-1-bricked-my-router",
    "show-us-your-workshop",
    "engine-light-on-cold-mornings",
    "which-lens-for-astrophotography",
    "sourdough-starter-not-rising",
    "fan-noise-after-bios-update",
)
_FORUMS = ("general-discussion", "technical-help", "marketplace", "off-topic", "news")
_FOLDERS = ("news", "about", "events", "projects", "publications", "library", "research")
_DOCUMENTS = (
    "annual-report",
    "contact",
    "mission",
    "staff",
    "history",
    "funding",
    "partners",
    "faq",
    "visit",
    "press",
    "jobs",
)
_FILES = ("report.pdf", "brochure.pdf", "minutes-2023.pdf", "policy.pdf")
_ITEMS = (
    "Soil carbon under grazing",
    "A survey of coastal erosion",
    "Thesis: river sediment transport",
    "Bird migration data 2019-2022",
    "Working paper on tax incidence",
    "Proceedings of the 2021 workshop",
    "Lecture notes in topology",
    "Dataset: urban heat islands",
)
_HANDLE_PREFIXES = ("123456789", "1721.1", "10568", "2445", "11858")
_SPACES = {
    "DOC": "Documentation",
    "ENG": "Engineering",
    "HR": "People Team",
    "OPS": "Operations",
    "KB": "Knowledge Base",
}
_TITLES = (
    "Getting Started",
    "Release Notes",
    "Onboarding Checklist",
    "Architecture Overview",
    "Meeting Notes 2024-03-12",
    "How-to Articles",
    "Troubleshooting Guide",
    "Style Guide",
    "On-call Rotation",
)


def _slug_of(text: str) -> str:
    """A title as a slug (lower case, runs of other characters as one hyphen)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _pdf(name: str) -> Reply:
    """A file's bytes (no HTML, no document)."""
    return Reply(200, f"%PDF-1.4\n% {name}\n%%EOF\n".encode(), {"Content-Type": "application/pdf"})


def _tiny(page_id: int) -> str:
    """Confluence's tiny-link code of a page id (see the module's docstring)."""
    code = base64.b64encode(page_id.to_bytes(8, "little")).decode().rstrip("=").rstrip("A")
    return code.replace("/", "-").replace("+", "_")


class SlugSite(CommunitySite):
    """A host of one kind: its :meth:`forms` are the other URLs that answer a page."""

    def plain(self, page: Page) -> bool:
        """Whether ``page`` is neither an exception nor behind one (only those have spellings)."""
        return page.doc_id not in self.late and page.doc_id not in self.hidden

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        return list(dict.fromkeys(url for url in self.forms(page) if url != page.url))

    def forms(self, page: Page) -> list[str]:
        """Other URLs that answer ``page`` (each kind's coincidences)."""
        return []

    def unlisted(self, doc_id: str, text: str) -> Reply:
        """A document the software serves that no page of the model links (never met in a crawl:
        answered so that a route is faithful, not counted among the web's documents)."""
        body = render(doc_id, [], title=doc_id.split("/", 1)[-1], text=text)
        return Reply(200, body, dict(_HTML))

    def head_links(self, page: Page) -> str:
        return self.canonical(page)


# -- kinds ------------------------------------------------------------------------------------


class DiscourseSite(SlugSite):
    """Discourse's crawler view: see the module's docstring."""

    #: Posts on a page of the crawler view.
    CHUNK = 20

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 301
        self.home = self.add("/")
        self.categories: dict[str, tuple[int, Page]] = {}  # slug -> (id, listing)
        for name, number in zip(rng.sample(_CATEGORIES, 2), rng.sample(range(2, 60), 2), strict=True):
            self.categories[name] = (number, self.add(f"/c/{name}/{number}"))
        people = rng.sample(_USERS, 3)
        self.users = {name: self.add(f"/u/{name}") for name in people[:2]}
        count = max(3, min(7, budget - 7))
        #: topic id -> (slug, posts, its pages in the crawler view)
        self.topics: dict[int, tuple[str, int, list[Page]]] = {}
        for slug, number in zip(rng.sample(_TOPICS, count), rng.sample(range(100, 9999), count), strict=True):
            page = self.add(f"/t/{slug}/{number}")
            self.topics[number] = (slug, rng.randint(1, self.CHUNK), [page])
            rng.choice(list(self.categories.values()))[1].links.append(page.path)
            page.links.append(f"/u/{rng.choice(people[:2])}")  # (a poster's avatar)
        self.long = next(iter(self.topics))
        slug, _, pages = self.topics[self.long]
        posts = rng.randint(self.CHUNK + 2, 2 * self.CHUNK)
        self.second = self.exception(self.add(pages[0].path, "page=2"))
        pages.append(self.second)
        self.topics[self.long] = (slug, posts, pages)
        self.texts[pages[0].doc_id] = f"Posts 1-{self.CHUNK} of {posts}."
        self.texts[self.second.doc_id] = f"Posts {self.CHUNK + 1}-{posts} of {posts}."
        self.users[people[2]] = self.behind(self.second, self.add(f"/u/{people[2]}"))
        self.traps.append(
            f"/t/<id>, wrong slugs -> 301, /t/<slug>/<id>/<post> (other bytes), ?page=1, ?u=; "
            f"but /t/{slug}/{self.long}?page=2"
        )

    def excerpt(self, number: int, post: int) -> str:
        slug = self.topics[number][0]
        return f"{slug.replace('-', ' ')}: post {post}, an excerpt."

    def topic_page(self, number: int, index: int, post: int) -> Reply:
        """The crawler page ``index`` of topic ``number``, its description the excerpt of ``post``."""
        page = self.topics[number][2][index]
        reply = self.render(page)
        if post == 1:
            return reply
        first = html.escape(self.excerpt(number, 1)).encode()
        body = reply.body.replace(first, html.escape(self.excerpt(number, post)).encode(), 1)
        return Reply(reply.status, body, reply.headers)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path.rstrip("/") in ("", "/latest"):
            return None if _int(params.get("page", "0")) else self.home  # (a list's ?page= is 0-based)
        match = re.fullmatch(r"/c/([\w-]+)(?:/(\d+))?(/l/latest)?/?", path)
        if match:
            name, number = match.group(1), match.group(2)
            by_id = {str(found): slug for slug, (found, _) in self.categories.items()}
            if number is None and name in by_id:  # (/c/<id>)
                name = by_id[name]
            if name not in self.categories:
                return None
            found, listing = self.categories[name]
            if number is None or match.group(1) != name:
                return self.redirect(authority, f"/c/{name}/{found}" + (match.group(3) or "") + _tail(query))
            return listing if int(number) == found else None
        match = re.fullmatch(r"/u/([\w.-]+)/?", path)
        if match:
            return self.users.get(match.group(1).lower())
        match = re.fullmatch(r"/t/([^/]+)(?:/(\d+))?(?:/(\d+))?/?", path)
        if match is None:
            return None
        first, second, third = match.groups()
        slug: str | None
        if first.isdigit() and third is None:  # (/t/<id> and /t/<id>/<post>)
            slug, number, post = None, int(first), second
        elif second is not None:
            slug, number, post = first, int(second), third
        else:
            return None
        if number not in self.topics:
            return None
        canonical, posts, pages = self.topics[number]
        if slug != canonical:
            return self.redirect(authority, f"/t/{canonical}/{number}" + (f"/{post}" if post else "") + _tail(query))
        page_number = _int(params.get("page", ""), 0)
        if page_number > 1:  # (the page asked for wins over a post number)
            return self.topic_page(number, page_number - 1, 1) if page_number <= len(pages) else None
        desired = min(max(int(post), 1), posts) if post else 1
        return self.topic_page(number, (desired - 1) // self.CHUNK, desired)

    def head_links(self, page: Page) -> str:
        for number, (slug, _, pages) in self.topics.items():
            if page in pages:
                index = pages.index(page)
                canonical = f"http://{self.host}/t/{slug}/{number}" + (f"?page={index + 1}" if index else "")
                description = html.escape(self.excerpt(number, 1))
                return _link("canonical", canonical) + f'<meta name="description" content="{description}">'
        return self.canonical(page)

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/latest", f"{base}/latest/"]
        for name, (number, listing) in self.categories.items():
            if listing is page:
                return [f"{base}/c/{name}", f"{base}/c/{number}", f"{page.url}/", f"{page.url}/l/latest"]
        for name, profile in self.users.items():
            if profile is page:
                return [f"{base}/u/{name.title()}", f"{page.url}/"]
        for number, (slug, posts, pages) in self.topics.items():
            if page is pages[0]:
                share = random.Random(page.doc_id).choice(_USERS)
                wrong = slug.rsplit("-", 1)[0]
                forms = [f"{base}/t/{number}", f"{base}/t/{wrong}/{number}", f"{page.url}?page=1", f"{page.url}/"]
                forms += [f"{page.url}?u={share}", f"{page.url}/1"]
                if posts > 1:
                    forms += [f"{page.url}/{min(posts, self.CHUNK)}", f"{base}/t/{number}/2"]
                if len(pages) == 1:  # (a post past the last: clamped to the last, on the only page)
                    forms.append(f"{page.url}/{self.CHUNK + 5}")
                return forms
        return []


class StackExchangeSite(SlugSite):
    """A Stack Exchange site: see the module's docstring."""

    #: Answers on a page of a question.
    PER_PAGE = 30
    #: ``answertab``/``tab`` values and the order each names ("" for the default).
    ORDERS: ClassVar[dict[str, str]] = {
        "votes": "",
        "scoredesc": "",
        "active": "active",
        "modifieddesc": "active",
        "oldest": "oldest",
        "createdasc": "oldest",
    }

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("cloudflare", "Microsoft-IIS/10.0"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.listing = self.add("/questions")
        tags = rng.sample(_TAGS, 2)
        self.tags = {tag: self.add(f"/questions/tagged/{tag}") for tag in tags}
        names = rng.sample(_USERS, 5)
        uids = rng.sample(range(1000, 999999), 5)
        self.users: dict[int, tuple[str, Page]] = {}  # uid -> (name, profile)
        for uid, name in zip(uids[:3], names[:3], strict=True):
            self.users[uid] = (name, self.add(f"/users/{uid}/{name}"))
        count = max(3, min(7, budget - 9))
        slugs = rng.sample(_QUESTIONS, count)
        self.questions: dict[int, tuple[str, list[Page]]] = {}  # qid -> (slug, its pages of answers)
        self.answers: dict[int, tuple[int, int]] = {}  # answer id -> (qid, index of its page)
        for slug, qid in zip(slugs, rng.sample(range(10**6, 8 * 10**7), count), strict=True):
            page = self.add(f"/questions/{qid}/{slug}")
            self.questions[qid] = (slug, [page])
            for _ in range(rng.randint(1, 3)):
                self.answers[rng.randrange(10**6, 8 * 10**7)] = (qid, 0)
            self.tags[rng.choice(tags)].links.append(page.path)
            uid = rng.choice(uids[:3])
            page.links.append(f"/users/{uid}/{self.users[uid][0]}")
        self.long = next(iter(self.questions))
        slug, pages = self.questions[self.long]
        self.texts[pages[0].doc_id] = "34 answers, sorted by highest score: 1-30."
        self.second = self.exception(self.add(pages[0].path, "page=2&tab=scoredesc"))
        pages.append(self.second)
        self.texts[self.second.doc_id] = "34 answers, sorted by highest score: 31-34."
        for _ in range(2):
            self.answers[rng.randrange(10**6, 8 * 10**7)] = (self.long, 1)
        self.users[uids[3]] = (names[3], self.behind(self.second, self.add(f"/users/{uids[3]}/{names[3]}")))
        original_id, (same, _) = list(self.questions.items())[1]
        qid = rng.randrange(8 * 10**7, 9 * 10**7)
        self.namesake = self.exception(self.add(f"/questions/{qid}/{same}"))
        self.questions[qid] = (same, [self.namesake])
        self.texts[self.namesake.doc_id] = f"Another question, the same title as {original_id}."
        self.users[uids[4]] = (names[4], self.behind(self.namesake, self.add(f"/users/{uids[4]}/{names[4]}")))
        self.traps.append(
            f"/questions/<id>, wrong slugs -> 301, /q/ and /a/ -> 302, ?answertab= (other bytes), /users/<id>/<any>; "
            f"but {pages[0].path}?page=2&tab=scoredesc and /questions/{qid}/{same}"
        )

    def question(self, authority: str, qid: int, slug: str | None, aid: str | None, query: str) -> Page | Reply | None:
        if qid not in self.questions:
            return None
        canonical, pages = self.questions[qid]
        index = -1
        if aid is not None:
            where = self.answers.get(int(aid))
            if where is None or where[0] != qid:
                return None
            index = where[1]
        if slug != canonical:
            target = f"/questions/{qid}/{canonical}" + (f"/{aid}" if aid else "")
            return self.redirect(authority, target + _tail(query))
        params = self.params(query)
        order = self.ORDERS.get((params.get("answertab") or params.get("tab") or "scoredesc").lower(), "")
        number = _int(params.get("page", ""), 0) or index + 1 or 1
        if number > len(pages):
            return None  # (not modelled)
        if not order:
            return pages[number - 1]
        if len(pages) == 1:  # (the same answers in another order)
            return self.noted(pages[0], f"Sorted by: {order}")
        return self.unlisted(f"{self.host}/questions/{qid}/{canonical}?answertab={order}&page={number}", order)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path == "/":
            return self.home
        if path == "/questions":
            newest = params.get("tab", "newest").lower() == "newest" and _int(params.get("page", "1"), 1) == 1
            return self.listing if newest else None
        match = re.fullmatch(r"/questions/tagged/([\w.+#-]+)", path)
        if match:
            return self.tags.get(match.group(1))
        match = re.fullmatch(r"/questions/(\d+)(?:/([^/]*))?(?:/(\d+))?/?", path)
        if match:
            return self.question(authority, int(match.group(1)), match.group(2), match.group(3), query)
        match = re.fullmatch(r"/q/(\d+)(?:/\d+)?/?", path)
        if match and int(match.group(1)) in self.questions:
            qid = int(match.group(1))
            return self.redirect(authority, f"/questions/{qid}/{self.questions[qid][0]}", 302)
        match = re.fullmatch(r"/a/(\d+)(?:/\d+)?/?", path)
        if match and int(match.group(1)) in self.answers:
            aid = int(match.group(1))
            qid = self.answers[aid][0]
            return self.redirect(authority, f"/questions/{qid}/{self.questions[qid][0]}/{aid}#{aid}", 302)
        match = re.fullmatch(r"/users/(\d+)(?:/[^/]*)?/?", path)
        if match and int(match.group(1)) in self.users:
            return self.users[int(match.group(1))][1]
        return None

    def head_links(self, page: Page) -> str:
        return _link("canonical", page.url)

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.listing:
            return [f"{page.url}?tab=newest", f"{page.url}?tab=Newest&page=1", f"{page.url}?page=1"]
        for uid, (_, profile) in self.users.items():
            if profile is page:
                other = random.Random(page.doc_id).choice(_USERS)
                return [f"{base}/users/{uid}", f"{base}/users/{uid}/{other}x", f"{page.url}/"]
        for qid, (slug, pages) in self.questions.items():
            if page is pages[0]:
                forms = [f"{base}/questions/{qid}", f"{base}/questions/{qid}/{slug.rsplit('-', 2)[0]}"]
                forms += [f"{base}/q/{qid}", f"{base}/q/{qid}/{next(iter(self.users))}", f"{page.url}?noredirect=1"]
                forms += [f"{page.url}?answertab=votes#tab-top", f"{page.url}?answertab=scoredesc"]
                forms += [f"{page.url}?page=1&tab=scoredesc#tab-top"]
                for aid, (question_id, index) in self.answers.items():
                    if question_id == qid and index == 0:
                        forms += [f"{page.url}/{aid}#{aid}", f"{base}/a/{aid}"]
                if len(pages) == 1:
                    forms += [f"{page.url}?answertab=active#tab-top", f"{page.url}?answertab=oldest#tab-top"]
                return forms
        return []


class XenForoSite(SlugSite):
    """XenForo 2 with friendly URLs: see the module's docstring."""

    #: Posts on a page of a thread.
    PER_PAGE = 20

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache"))
        self.redirect_status = 301
        self.home = self.add("/")
        ids = iter(rng.sample(range(2, 40), 2))
        #: (route prefix, id) -> [title, its pages]
        self.items: dict[tuple[str, int], tuple[str, list[Page]]] = {}
        forums = [self.item("forums", name, next(ids)) for name in rng.sample(_FORUMS, 2)]
        people = rng.sample(_USERS, 3)
        uids = rng.sample(range(2, 99999), 3)
        members = [self.item("members", name, uid) for name, uid in zip(people[:2], uids[:2], strict=True)]
        count = max(3, min(7, budget - 7))
        self.posts: dict[int, tuple[int, int]] = {}  # post id -> (thread id, its position from 0)
        self.thread_posts: dict[int, list[int]] = {}  # thread id -> its post ids
        post = rng.randrange(1000, 90000)
        numbers = rng.sample(range(100, 99999), count)
        self.long = numbers[0]
        for title, number in zip(rng.sample(_THREADS, count), numbers, strict=True):
            page = self.item("threads", title, number)
            rng.choice(forums).links.append(page.path)
            page.links.append(rng.choice(members).path)
            long = number == self.long
            self.grow(
                number,
                rng.randint(self.PER_PAGE + 2, 2 * self.PER_PAGE) if long else rng.randint(1, self.PER_PAGE),
                post,
            )
            post += 3 * len(self.thread_posts[number]) + rng.randint(1, 50)
        title, pages = self.items[("threads", self.long)]
        self.second = self.exception(self.add(f"{pages[0].path}page-2"))
        pages.append(self.second)
        hidden = self.add(f"/members/{people[2]}.{uids[2]}/")
        self.items[("members", uids[2])] = (people[2], [self.behind(self.second, hidden)])
        self.traps.append(
            f"/threads/<id>/, wrong titles, no slash, page-1, pages past the last -> 301, index.php?<route>, "
            f"/unread, /posts/<id>/; but /threads/{title}.{self.long}/page-2"
        )

    def item(self, kind: str, title: str, number: int) -> Page:
        page = self.add(f"/{kind}/{title}.{number}/")
        self.items[(kind, number)] = (title, [page])
        return page

    def grow(self, number: int, count: int, first: int) -> None:
        """Thread ``number`` has ``count`` posts, their ids from ``first`` (a few apart)."""
        ids = [first + 3 * index for index in range(count)]
        self.thread_posts[number] = ids
        for position, pid in enumerate(ids):
            self.posts[pid] = (number, position)

    def post_link(self, pid: int) -> str:
        """The page that holds post ``pid``, with its anchor (``Thread::getPostLink``)."""
        number, position = self.posts[pid]
        title = self.items[("threads", number)][0]
        page = position // self.PER_PAGE + 1
        return f"/threads/{title}.{number}/" + (f"page-{page}" if page > 1 else "") + f"#post-{pid}"

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path in ("/", "/index.php"):
            first, _, rest = query.partition("&")
            if not first or "=" in first:
                return self.home
            path, query = "/" + unquote(first), rest  # (the query-string route: friendly URLs off)
        match = re.fullmatch(r"/(threads|forums|members|posts)/(?:([^/]*)\.)?(\d+)(/[^/]*)?", path)
        if match is None:
            return None
        kind, number, rest = match.group(1), int(match.group(3)), match.group(4) or ""
        if kind == "posts":
            return self.redirect(authority, self.post_link(number)) if number in self.posts and rest == "/" else None
        if (kind, number) not in self.items:
            return None
        canonical, pages = self.items[(kind, number)]
        action, page = rest[1:], 1
        if kind == "threads":
            if action == "unread":  # (a guest has read nothing: the thread)
                return self.redirect(authority, f"/threads/{canonical}.{number}/", 303)
            if action == "latest":
                return self.redirect(authority, self.post_link(self.thread_posts[number][-1]), 303)
            if action.startswith("post-") and action[5:].isdigit():
                pid = int(action[5:])
                found = self.posts.get(pid)
                return self.redirect(authority, self.post_link(pid)) if found and found[0] == number else None
            match = re.fullmatch(r"page-(\d+)", action)
            if match:
                page, action = int(match.group(1)), ""
        if action:
            return None
        last = (len(self.thread_posts[number]) - 1) // self.PER_PAGE + 1 if kind == "threads" else 1
        page = max(1, min(page, last))  # (assertValidPage: past the last, the last)
        target = f"/{kind}/{canonical}.{number}/" + (f"page-{page}" if page > 1 else "")
        if path != target:  # (assertCanonicalUrl)
            return self.redirect(authority, target + _tail(query))
        return pages[page - 1]

    def head_links(self, page: Page) -> str:
        return _link("canonical", page.url)

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/index.php"]
        for (kind, number), (title, pages) in self.items.items():
            if page is not pages[0]:
                continue
            wrong = title.rsplit("-", 1)[0] if "-" in title else title + "x"
            forms = [f"{base}/{kind}/{number}/", f"{base}/{kind}/{wrong}.{number}/", page.url[:-1]]
            forms += [f"{base}/index.php?{kind}/{title}.{number}/", f"{base}/index.php?{kind}/{number}/"]
            if kind == "threads":
                forms += [f"{page.url}page-1", f"{page.url}unread"]
                for pid in self.thread_posts[number][: self.PER_PAGE][:2]:
                    forms += [f"{base}/posts/{pid}/", f"{page.url}post-{pid}"]
                if len(self.thread_posts[number]) <= self.PER_PAGE:
                    forms += [f"{page.url}page-2", f"{page.url}latest"]
            return forms
        return []


@dataclass(eq=False)
class _Object:
    """A Zope object: a folder, a document or a file, and what its views render."""

    kind: str  # "folder", "document" or "file"
    name: str
    children: dict[str, _Object] = field(default_factory=dict)
    #: what the object's default view renders (a folder with a default page: none)
    page: Page | None = None
    #: a folder's ``folder_listing`` where it is not its default view
    listing: Page | None = None
    #: a folder's default page (the id of a document in it), "" for none
    default: str = ""


class PloneSite(SlugSite):
    """Plone 4.3 on Zope 2: see the module's docstring."""

    DOCUMENT_VIEWS = ("", "view", "index_html", "document_view")
    FOLDER_VIEWS = ("", "view", "index_html")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Zope/(2.13.29, python 2.7.18, linux2) ZServer/1.1", "nginx", "Apache"))
        self.redirect_status = 301
        self.root = _Object("folder", "", default="front-page")
        self.home = self.add("/")
        self.root.children["front-page"] = _Object("document", "front-page", page=self.home)
        self.bases[self.home.doc_id] = "/front-page"
        names = rng.sample(_FOLDERS, 3)
        documents = iter(rng.sample(_DOCUMENTS, len(_DOCUMENTS)))
        per_folder = max(1, min(2, (budget - 7) // 3))
        listing, paged, filed = (self.folder(name) for name in names)
        for folder in (listing, paged, filed):
            for _ in range(per_folder):
                self.document(folder, next(documents))
        # a folder with a default page: its document shown at the folder's URL
        shown = next(documents)
        paged.default = shown
        paged.children[shown] = _Object("document", shown, page=paged.page)
        assert paged.page is not None
        self.bases[paged.page.doc_id] = f"/{paged.name}/{shown}"
        self.texts[paged.page.doc_id] = f"{paged.name.title()}: an introduction (the folder's default page)."
        paged.page.links = [link for link in paged.page.links if not link.startswith(f"/{paged.name}/")]
        self.listing_page = self.exception(self.add(f"/{paged.name}/folder_listing"))
        paged.listing = self.listing_page
        self.bases[self.listing_page.doc_id] = f"/{paged.name}/"
        self.listing_page.links += [f"{name}" for name in paged.children if name != shown]
        excluded = next(documents)
        self.behind(self.listing_page, self.document(paged, excluded, linked=False), excluded)
        self.texts[self.listing_page.doc_id] = f"Contents of {paged.name}: {len(paged.children)} items."
        # a file: its own URL downloads it, its /view is a page about it
        name = rng.choice(_FILES)
        self.file_view = self.exception(self.add(f"/{filed.name}/{name}/view"))
        filed.children[name] = _Object("file", name, page=self.file_view)
        self.bases[self.file_view.doc_id] = f"/{filed.name}/{name}"
        self.file_view.links.append(name)  # ("Click here to get the file")
        self.texts[self.file_view.doc_id] = f"{name}: PDF document, 1.2 MB. Related items below."
        related = next(documents)
        self.behind(self.file_view, self.document(filed, related, linked=False), f"/{filed.name}/{related}")
        self.traps.append(
            f"/x/view, /x/index_html, /x/, folder_listing, acquisition (/g/f/x); but /{paged.name}/folder_listing "
            f"(a default page's folder) and /{filed.name}/{name}/view (a File)"
        )

    def folder(self, name: str) -> _Object:
        """A folder at the portal's root, its listing its default view."""
        page = self.add(f"/{name}")
        self.bases[page.doc_id] = f"/{name}/"
        folder = _Object("folder", name, page=page)
        self.root.children[name] = folder
        return folder

    def document(self, folder: _Object, name: str, *, linked: bool = True) -> Page:
        """A document in ``folder`` (``linked``: listed by the folder's default view)."""
        page = self.add(f"/{folder.name}/{name}")
        self.bases[page.doc_id] = page.path
        folder.children[name] = _Object("document", name, page=page)
        if linked and folder.page is not None:
            folder.page.links.append(page.path)
        return page

    def view(self, obj: _Object, name: str) -> Page | Reply | None:
        """What view ``name`` of ``obj`` answers ("" the default view)."""
        if obj.kind == "document":
            return obj.page if name in self.DOCUMENT_VIEWS else None
        if obj.kind == "file":
            if name in ("", "index_html"):
                return _pdf(obj.name)  # (ATFile: the download)
            return obj.page if name in ("view", "file_view") else None
        if name in self.FOLDER_VIEWS:
            return self.view(obj.children[obj.default], "") if obj.default else obj.page
        if name == "folder_listing":
            if not obj.default:
                return obj.page
            if obj.listing is not None:
                return obj.listing
            return self.unlisted(f"{self.host}/{obj.name}/folder_listing", "Contents.")
        return None

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        segments = [segment for segment in path.split("/") if segment]
        chain = [self.root]  # (the objects the path went through: the acquisition context)
        for index, segment in enumerate(segments):
            found = next((obj.children[segment] for obj in reversed(chain) if segment in obj.children), None)
            if found is not None:
                chain.append(found)
            elif index == len(segments) - 1:
                return self.view(chain[-1], segment)
            else:
                return None
        return self.view(chain[-1], "")

    def head_links(self, page: Page) -> str:
        return ""

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        folders = [obj for obj in self.root.children.values() if obj.kind == "folder"]
        if page is self.home:
            return [f"{base}/front-page", f"{base}/front-page/view", f"{base}/view", f"{base}/index_html"]
        for folder in folders:
            other = next(obj.name for obj in folders if obj is not folder)
            if page is folder.page:
                forms = [f"{page.url}/", f"{page.url}/view", f"{page.url}/index_html", f"{base}/{other}/{folder.name}"]
                if folder.default:
                    shown = f"{page.url}/{folder.default}"
                    return [*forms, shown, f"{shown}/view", f"{base}/{other}{page.path}/{folder.default}"]
                return [*forms, f"{page.url}/folder_listing"]
            for name, obj in folder.children.items():
                if obj.page is page and obj.kind == "document":
                    forms = [f"{page.url}/", f"{page.url}/view", f"{page.url}/index_html"]
                    forms += [f"{page.url}/document_view", f"{base}/{other}{page.path}"]
                    sibling = next((key for key in folder.children if key != name), None)
                    if sibling is not None:  # (a sibling acquired through another: /f/a/b)
                        forms.append(f"{base}/{folder.name}/{sibling}/{name}")
                    return forms
        return []


class DSpaceSite(SlugSite):
    """DSpace 7's Angular UI: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 301
        self.prefix = rng.choice(_HANDLE_PREFIXES)
        self.next_handle = rng.randint(1, 5000)
        self.home = self.add("/home")
        self.handles: dict[str, Page] = {}  # "<prefix>/<n>" -> its page
        self.bitstreams: dict[str, tuple[str, str]] = {}  # bitstream uuid -> (item handle, file name)
        self.uuid_rng = random.Random(rng.random())
        community = self.object("communities", "Faculty of Science")
        self.home.links.append(community.path)
        collections = [self.object("collections", name) for name in ("Theses", "Articles")]
        community.links += [collection.path for collection in collections]
        self.items: list[Page] = []
        self.titles: list[str] = []
        for title in rng.sample(_ITEMS, max(3, min(7, budget - 6))):
            item = self.item(title)
            rng.choice(collections).links.append(item.path)
        self.related_from = self.items[0]
        self.full = self.exception(self.add(f"{self.related_from.path}/full"))
        self.texts[self.full.doc_id] = "Full item record: dc.title, dc.contributor.author, dc.relation.isreferencedby."
        self.related = self.item(rng.choice([title for title in _ITEMS if title not in self.titles]))
        self.full.links = list(self.related_from.links)
        self.behind(self.full, self.related, self.related.path)
        for page in self.pages:
            self.bases[page.doc_id] = "/"
        self.traps.append(
            f"/handle/{self.prefix}/<n> -> 301, ?show=full, /items/<uuid>/full (other bytes), / = /home, "
            f"legacy bitstream URLs -> 301; but {self.full.path}"
        )

    def object(self, kind: str, title: str) -> Page:
        page = self.add(f"/{kind}/{uuid.UUID(int=self.uuid_rng.getrandbits(128), version=4)}")
        self.handles[f"{self.prefix}/{self.next_handle}"] = page
        self.next_handle += self.uuid_rng.randint(1, 40)
        self.texts[page.doc_id] = f"{title}. {self.texts[page.doc_id]}"
        return page

    def item(self, title: str) -> Page:
        page = self.object("items", title)
        self.titles.append(title)
        handle = next(handle for handle, found in self.handles.items() if found is page)
        bitstream = str(uuid.UUID(int=self.uuid_rng.getrandbits(128), version=4))
        self.bitstreams[bitstream] = (handle, f"{_slug_of(title)}.pdf")
        page.links.append(f"/bitstreams/{bitstream}/download")
        self.items.append(page)
        return page

    def handle_of(self, page: Page) -> str:
        return next(handle for handle, found in self.handles.items() if found is page)

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        super().evidence(pen, rng, placed)
        for handle, name in self.bitstreams.values():  # (DSpace 6's links, left in other sites)
            item = self.handles[handle]
            if self.plain(item):
                url = f"http://{self.host}/bitstream/handle/{handle}/{name}"
                self.link_from(rng, pen, placed, rng.choice((url, f"{url}?sequence=1&isAllowed=y")))

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path.rstrip("/") in ("", "/home"):
            return self.home
        match = re.fullmatch(r"/handle/([^/]+/\d+)/?", path)
        if match:
            found = self.handles.get(match.group(1))
            return self.redirect(authority, found.path) if found else None  # (the query dropped)
        match = re.fullmatch(r"/bitstream/handle/([^/]+/\d+)/([^/]+)", path)
        if match:
            for bitstream, (handle, name) in self.bitstreams.items():
                if (handle, name) == match.groups():
                    return self.redirect(authority, f"/bitstreams/{bitstream}/download")
            return None
        match = re.fullmatch(r"/bitstreams/([0-9a-f-]{36})/download", path)
        if match and match.group(1) in self.bitstreams:
            return self.redirect(authority, f"/server/api/core/bitstreams/{match.group(1)}/content", 302)
        match = re.fullmatch(r"/server/api/core/bitstreams/([0-9a-f-]{36})/content", path)
        if match and match.group(1) in self.bitstreams:
            return _pdf(self.bitstreams[match.group(1)][1])
        match = re.fullmatch(r"(/(?:items|collections|communities)/[0-9a-f-]{36})(/full)?/?", path)
        if match is None:
            return None
        page = next((page for page in self.handles.values() if page.path == match.group(1)), None)
        if page is None or not match.group(2):
            return page
        if page not in self.items:
            return None
        if page is self.related_from:
            return self.full
        return self.noted(page, "Full item record (every metadata field)")

    def head_links(self, page: Page) -> str:
        return ""

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/", f"{base}/home/"]
        handle = f"{base}/handle/{self.handle_of(page)}"
        forms = [handle, f"{page.url}/"]
        if page in self.items:
            forms += [f"{handle}?show=full", f"{page.url}?show=full"]
            if page is not self.related_from:  # (its /full is the exception)
                forms.append(f"{page.url}/full")
        return forms


class ConfluenceSite(SlugSite):
    """Confluence Data Center 7, anonymous access: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "Apache"))
        self.redirect_status = 302
        self.home = self.add("/dashboard.action")
        keys = rng.sample(sorted(_SPACES), 2)
        #: page id -> (space key, title, page, its current version)
        self.by_id: dict[int, tuple[str, str, Page, int]] = {}
        self.space_homes: dict[str, str] = {}  # space key -> its home page's title
        titles = iter(rng.sample(_TITLES, len(_TITLES)))
        count = max(3, min(8, budget - 5))
        for index in range(count + len(keys)):
            key = keys[index % len(keys)]
            title = f"{_SPACES[key]} Home" if index < len(keys) else next(titles)
            self.space_homes.setdefault(key, title)
            page = self.new_page(rng, key, title)
            if index >= len(keys):
                home = self.pages_of(key, self.space_homes[key])
                home.links.append(page.path)
        self.home.links += [f"/display/{key}" for key in keys]
        pid = next(number for number, (_, title, _, _) in self.by_id.items() if title not in self.space_homes.values())
        self.old = pid
        key, title, page, version = self.by_id[pid]
        self.old_version = self.exception(self.add("/pages/viewpage.action", f"pageId={pid}&pageVersion=3"))
        self.texts[self.old_version.doc_id] = (
            f"You are viewing an old version of this page (v. 3 of {version}). View the current version. {title}."
        )
        self.old_version.links.append(page.path)
        unlinked = self.new_page(rng, key, next(titles))
        self.behind(self.old_version, unlinked)
        self.traps.append(
            "+ and %20 in titles, viewpage.action?pageId= (other bytes: os_destination), /x/<tiny> -> 302; "
            f"but viewpage.action?pageId={pid}&pageVersion=3"
        )

    def new_page(self, rng: random.Random, key: str, title: str) -> Page:
        page = self.add(f"/display/{key}/{title.replace(' ', '+')}")
        number = rng.randrange(10**5, 10**9)
        self.by_id[number] = (key, title, page, rng.randint(4, 30))
        return page

    def pages_of(self, key: str, title: str) -> Page:
        return next(page for found, name, page, _ in self.by_id.values() if (found, name) == (key, title))

    def shown(self, page: Page, raw_path: str, query: str) -> Reply:
        """``page`` as Confluence answers it here: its header's "Log in" link carries the request."""
        reply = self.render(page)
        destination = quote(raw_path + _tail(query), safe="")
        anchor = f'<li><a href="/login.action?os_destination={destination}">Log in</a></li>\n</ul>'
        return Reply(reply.status, reply.body.replace(b"\n</ul>", anchor.encode(), 1), reply.headers)

    def find(self, key: str, title: str) -> int | None:
        return next((pid for pid, (found, name, _, _) in self.by_id.items() if (found, name) == (key, title)), None)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/index.action"):
            return self.redirect(authority, "/dashboard.action")
        if path == "/dashboard.action":
            return self.shown(self.home, raw_path, query)
        if path == "/login.action":
            body = render(None, [], title="Log In - Confluence", text="Username. Password. Log in.")
            return Reply(200, body, dict(_HTML))
        match = re.fullmatch(r"/display/([A-Z]+)/?", path)
        if match and match.group(1) in self.space_homes:
            title = self.space_homes[match.group(1)]
            return self.redirect(authority, f"/display/{match.group(1)}/{quote(title, safe='').replace('%20', '+')}")
        match = re.fullmatch(r"/display/([A-Z]+)/([^/]+)", raw_path)
        if match:
            pid = self.find(match.group(1), unquote_plus(match.group(2)))
            return self.shown(self.by_id[pid][2], raw_path, query) if pid is not None else None
        match = re.fullmatch(r"/x/([\w-]+)", path)
        if match:
            pid = next((pid for pid in self.by_id if _tiny(pid) == match.group(1)), None)
            return self.redirect(authority, self.by_id[pid][2].path) if pid is not None else None
        if path != "/pages/viewpage.action":
            return None
        if "pageId" in params:
            pid = _int(params["pageId"], -1)
        else:
            pid = self.find(params.get("spaceKey", ""), params.get("title", "")) or -1
        if pid not in self.by_id:
            return None
        _, title, page, version = self.by_id[pid]
        if "pageVersion" in params:
            asked = _int(params["pageVersion"], 0)
            if (pid, asked) == (self.old, 3):
                return self.shown(self.old_version, raw_path, query)
            if 1 <= asked < version:
                return self.unlisted(f"{self.host}/pages/viewpage.action?pageId={pid}&pageVersion={asked}", title)
            return None
        return self.shown(page, raw_path, query)

    def head_links(self, page: Page) -> str:
        return self.canonical(page) if page is not self.old_version else ""

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/", f"{base}/index.action"]
        for pid, (key, title, found, _) in self.by_id.items():
            if found is page:
                spaced = quote(title, safe="")
                forms = [f"{base}/display/{key}/{spaced}", f"{base}/pages/viewpage.action?pageId={pid}"]
                forms += [f"{base}/pages/viewpage.action?pageId={pid}&src=contextnavpagetreemode"]
                forms += [f"{base}/x/{_tiny(pid)}"]
                forms += [
                    f"{base}/pages/viewpage.action?spaceKey={key}&title={quote(title, safe='').replace('%20', '+')}"
                ]
                if self.space_homes.get(key) == title:
                    forms += [f"{base}/display/{key}", f"{base}/display/{key}/"]
                return forms
        return []


_CLASSES: dict[str, type[SlugSite]] = {
    "discourse": DiscourseSite,
    "stackexchange": StackExchangeSite,
    "xenforo": XenForoSite,
    "plone": PloneSite,
    "dspace": DSpaceSite,
    "confluence": ConfluenceSite,
}


# -- the web ------------------------------------------------------------------------------------


class SlugWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of slug-routing kinds (the same checks)."""


def generate_slug_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> SlugWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds("slugs", seed, KINDS, _CLASSES, SlugWeb, meta_refresh=meta_refresh, query_pages=query_pages)


# -- the comparison ---------------------------------------------------------------------------


class SlugComparison(FamilyComparison):
    """A comparison on a slug web: requests, pages and documents per kind of host."""


async def compare_slugs(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> SlugComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_slug_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_slug_web, SlugComparison, seed, workdir, addon_settings, order)
