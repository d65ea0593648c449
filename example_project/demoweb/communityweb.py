"""An eighth generator of seeded webs: how community and developer software spells URLs.

Written by an outside checker from what forum software, Q&A sites, wikis, code forges,
documentation hosts and the fediverse do with the spelling of a URL: spellings that answer one
page (byte for byte, or by a redirect to it) and, on the same host, the one place they do not.
Each host is one *kind*; each exception is linked late (after the host's coincidences have been
linked many times over) and is the only way to the document behind it. Where the real software
puts a token of the request's own in its pages, so do these hosts (no two answers of such a page
are byte-identical, whatever the spelling), and where it binds the token to a session cookie, a
client that returns the cookie gets the same token again.

- ``discourse`` (Discourse, the crawler view): a topic at ``/t/<slug>/<id>`` is also
  ``/t/<id>`` and ``/t/<wrong-slug>/<id>`` (301 to the slug), ``/t/<slug>/<id>/<post>`` for any
  post on its first page (a post past the last clamped to it: ``/t/<slug>/<id>/25`` of a short
  topic is the topic), ``?page=1``, ``/t/<slug>/<id>/`` and the share link's ``?u=<user>``;
  ``/latest`` is ``/``, ``/c/<slug>`` -> 301 ``/c/<slug>/<id>``, ``/c/<slug>/<id>/l/latest`` the
  category, usernames case-insensitive (``/u/Alice``). Exception: the long topic's ``?page=2``
  (the crawler view's next page, also ``/t/<slug>/<id>/25``: post 25 lies on it), whose posts link
  a member's profile ``/u/<name>`` linked nowhere else.
- ``stackexchange`` (a Stack Exchange site): ``/questions/<id>/<slug>`` is also
  ``/questions/<id>`` and a wrong slug (301 to the slug; on half the hosts, a Q&A clone, ``200``
  with the page itself), ``/q/<id>`` and ``/q/<id>/<user>`` (302), an answer's
  ``/questions/<id>/<slug>/<answer>`` (the question page) and ``/a/<answer>`` (302 to it);
  ``?noredirect=1``, ``?lq=1``, ``?rq=1``, the default sort ``?answertab=votes`` (or
  ``scoredesc``) and the answers' first page ``?page=1&tab=scoredesc`` change nothing;
  ``/users/<n>`` -> 301 ``/users/<n>/<name>``; ``/questions`` is ``?tab=newest`` and ``?page=1``.
  Another sort order names itself in the page (another answer, not a byte-identical one).
  Exceptions: the long question's ``?answertab=oldest``, whose first page lists the oldest
  answers, and its ``?page=2&tab=scoredesc`` (answers 31-34), each by a member linked nowhere else.
- ``mediawiki`` (MediaWiki with short URLs, as ``MediaWiki::tryNormaliseRedirect`` reads a request;
  :mod:`demoweb.wildweb`'s ``wiki`` has the first-letter fold and ``?oldid=``): ``/wiki/T`` is
  ``/w/index.php?title=T``, ``/w/index.php/T``, ``/?title=T``, ``/w/index.php?curid=<page id>``,
  ``?action=view``, ``//wiki/T`` and ``?redirect=no`` (on an article), all ``200``; ``%20`` and a
  form-encoded ``+`` in a title, a lower-case first letter, ``/`` and ``/w/index.php`` 301 to the
  canonical title; a redirect title ``/wiki/Pie`` answers its target's page (``200``, "Redirected
  from Pie"). On half the hosts every answer carries its ``wgRequestId``. Exceptions:
  ``/wiki/Pie?redirect=no``, the redirect page itself, whose category link
  ``/wiki/Category:Redirects_from_short_names`` leads to a page linked nowhere else; and
  ``/wiki/Banana_Bread`` (a band), another article than ``/wiki/Banana_bread`` where every
  lower-case first letter redirected (case after the first letter is part of a title).
- ``gitea`` (Gitea): owner and repository are found by name case-insensitively (``/acme/widget`` =
  ``/Acme/Widget``, ``200``), ``.git`` is trimmed from the repository (``/Acme/Widget.git``), trailing
  slashes are stripped; legacy ``/src/main/x`` and ``/src/x`` -> 303 ``/src/branch/main/x``. The
  ``_csrf`` token in every page is bound to a cookie: a client without it gets a new one on every
  answer. Exception: the file tree is git's, case-sensitive: ``/src/branch/main/readme.md`` is
  another file than ``README.md``, its link to ``docs/old-setup.md`` a page linked nowhere else.
- ``gitlab`` (GitLab): other spellings of a group or project (case, ``.git``) 301 to the canonical
  path (``ensure_canonical_path``), legacy ``/<project>/tree/main`` and ``/blob/``, ``/issues/``
  301 to their ``/-/`` routes; ``?ref_type=heads`` and ``?plain=0`` change nothing; a Rails CSRF
  token, masked anew, in every answer. Exceptions: ``/-/blob/main/README.md?plain=1``, the file's
  source view (not its rendering), whose toolbar links the blame view, linked nowhere else; and
  the file tree, git's, case-sensitive where every project spelling's case redirected:
  ``src/xt_tcpmss.c`` beside ``src/xt_TCPMSS.c`` (two files, as in the Linux tree).
- ``readthedocs`` (Sphinx on Read the Docs, ``stable`` built from the release tag, ``latest``
  from ``main`` one commit later): ``/``, ``/en/`` and ``/page/<file>`` 302 to ``/en/latest/``,
  ``/en/latest`` and a directory without its slash 302 to it; ``index.html`` is its directory,
  ``?highlight=<word>`` (Sphinx search's) changes nothing, ``/en/stable/x.html`` is
  ``/en/latest/x.html`` byte for byte (one commit apart, ``release`` fixed in ``conf.py``, the
  canonical naming the default version in both). Exception: ``/en/latest/changelog.html``, where
  the commit added an "Unreleased" entry whose relative link ``migration.html`` leads to a page
  linked nowhere else (``/en/stable/changelog.html``, the release's, names it as canonical too).
- ``mastodon`` (Mastodon 4, the web app's routes): ``/@alice`` is ``/@Alice`` (usernames found
  case-insensitively), ``/@alice/with_replies`` and ``/@alice/media`` (the same server-rendered
  shell), ``/@alice/<id>/``; ``/users/alice`` and ``/users/alice/statuses/<id>`` 301 to the
  ``/@`` routes (``redirect_with_vary``), ``/web/@alice/<id>`` -> 302 ``/@alice/<id>``; hashtags
  ``/tags/Rust`` = ``/tags/rust``. Exception: ``/@alice/<id>/embed``, the status's embed view,
  another page, where ``/@alice/media`` and ``/@alice/with_replies`` are the profile.

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter; kinds whose software answers with
one status set it), sometimes a ``www.`` twin that serves the same pages, and links are spelled
with an upper-case host, a trailing-dot host, ``:80``, tracking parameters and fragments where
the server ignores them (each checked).

Every document is collected by stock Scrapy by construction, which :meth:`CommunityWeb.check`
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

from .commerceweb import CSite, _hex, _int, _link, _tail
from .quirksweb import QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply
from .wildweb import encode_path

KINDS = ("discourse", "stackexchange", "mediawiki", "gitea", "gitlab", "readthedocs", "mastodon")
_USERS = ("alice", "bob_k", "carol77", "dave", "erin-m", "frank", "grace", "heidi")
_TOPICS = (
    "how-do-i-upgrade-to-3-0",
    "feature-request-dark-mode",
    "weekly-meetup-thread",
    "crash-on-startup-after-update",
    "introduce-yourself",
    "plugin-api-questions",
    "release-2-0-feedback",
    "docs-typo-fixes",
    "best-practices-for-backups",
)
_CATEGORIES = ("support", "feature", "dev", "meta", "general", "announcements")
_QUESTIONS = (
    "how-do-i-merge-two-dictionaries",
    "what-does-the-yield-keyword-do",
    "how-to-undo-the-most-recent-local-commits",
    "why-is-processing-a-sorted-array-faster",
    "how-do-i-check-whether-a-file-exists",
    "what-is-a-nullpointerexception",
    "how-to-rename-a-local-git-branch",
    "regex-to-match-an-email-address",
)
_TAGS = ("python", "git", "regex", "bash", "docker", "javascript")
_ARTICLES = ("Apple_pie", "Banana_bread", "Cherry_tart", "Lemon_cake", "Plum_jam", "Fig_roll", "Sourdough")
_OWNERS = ("Acme", "OpenTools", "Zephyr", "NorthWind")
_REPOS = ("Widget", "ParserKit", "Lumen", "RiverDB")
_DOCS = ("installation", "usage", "configuration", "faq", "tutorial", "contributing", "glossary")
_HASHTAGS = ("Rust", "Photography", "Python", "Caturday", "FediTips")


class CommunitySite(CSite):
    """A host of one kind; pages may carry a token of each answer's own (see :meth:`finish`)."""

    #: Markup of the per-request token in ``<head>`` (``{}`` the token), "" for none.
    token_markup = ""
    #: The cookie that binds the token to a session ("": a new token on every answer).
    token_cookie = ""
    _minted = 0

    def finish(self, reply: Reply, headers: Mapping[str, str]) -> Reply:
        if self.token_markup and reply.status == 200 and b"</head>" in reply.body:
            token, cookie = self.token(headers)
            answer = dict(reply.headers)
            if cookie:
                answer["Set-Cookie"] = cookie
            markup = self.token_markup.format(token).encode()
            reply = Reply(200, reply.body.replace(b"</head>", markup + b"</head>", 1), answer)
        return super().finish(reply, headers)

    def token(self, headers: Mapping[str, str]) -> tuple[str, str]:
        """The answer's token, and a ``Set-Cookie`` value where a new session's starts ("")."""
        if self.token_cookie:
            sent = next((value for name, value in headers.items() if name.lower() == "cookie"), "")
            match = re.search(rf"(?:^|;)\s*{re.escape(self.token_cookie)}=([0-9a-f]{{32}})", sent)
            if match:
                return match.group(1), ""
        self._minted += 1
        token = _hex(random.Random(f"{self.host}:{self._minted}"), 32)
        if not self.token_cookie:
            return token, ""
        return token, f"{self.token_cookie}={token}; Path=/; HttpOnly; SameSite=Lax"

    def noted(self, page: Page, note: str) -> Reply:
        """``page`` rendered with ``note`` above its text (the same document, other bytes)."""
        reply = self.render(page)
        marker = f"<p>{html.escape(self.texts.get(page.doc_id, ''))}</p>".encode()
        body = reply.body.replace(marker, f'<div class="note">{html.escape(note)}</div>'.encode() + marker, 1)
        return Reply(reply.status, body, reply.headers)

    def canonical(self, page: Page) -> str:
        return _link("canonical", f"http://{self.host}{page.key}")


# -- kinds ------------------------------------------------------------------------------------


class DiscourseSite(CommunitySite):
    """Discourse's crawler view: see the module's docstring."""

    #: Posts on a page of the crawler view.
    CHUNK = 20

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 301
        self.home = self.add("/")
        names = rng.sample(_CATEGORIES, 2)
        ids = iter(rng.sample(range(2, 60), 2))
        self.categories: dict[str, tuple[int, Page]] = {}
        for name in names:
            number = next(ids)
            self.categories[name] = (number, self.add(f"/c/{name}/{number}"))
        slugs = rng.sample(_TOPICS, max(3, min(7, budget - 7)))
        self.slugs: dict[int, str] = {}  # topic id -> slug
        self.topics: dict[int, list[Page]] = {}  # topic id -> its pages in the crawler view
        self.posts: dict[int, int] = {}  # topic id -> posts
        for slug, number in zip(slugs, rng.sample(range(100, 9000), len(slugs)), strict=True):
            self.slugs[number] = slug
            self.topics[number] = [self.add(f"/t/{slug}/{number}")]
            self.posts[number] = rng.randint(1, self.CHUNK)
            rng.choice(list(self.categories.values()))[1].links.append(f"/t/{slug}/{number}")
        posters = rng.sample(_USERS, 3)
        self.users = {name: self.add(f"/u/{name}") for name in posters[:2]}
        self.long = next(iter(self.topics))
        self.posts[self.long] = rng.randint(2 * self.CHUNK - 12, 2 * self.CHUNK)
        self.post = rng.randint(self.CHUNK + 1, self.posts[self.long])
        slug = self.slugs[self.long]
        self.topics[self.long][0].links.append(f"/u/{posters[0]}")
        second = self.exception(self.add(f"/t/{slug}/{self.long}", "page=2"))  # (the crawler view's next link)
        self.topics[self.long].append(second)
        self.texts[second.doc_id] = f"Posts {self.CHUNK + 1}-{self.posts[self.long]} of {self.posts[self.long]}."
        self.users[posters[2]] = self.behind(second, self.add(f"/u/{posters[2]}"))
        self.traps.append(
            f"/t/<id>, wrong slugs, /t/<slug>/<id>/<post on page 1>, ?page=1, ?u= one topic; "
            f"but /t/{slug}/{self.long}?page=2 (= /{self.post}) page two"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/latest"):
            return None if _int(params.get("page", "0")) else self.home
        match = re.fullmatch(r"/c/([\w-]+)(?:/(\d+))?(/l/latest)?/?", path)
        if match and match.group(1) in self.categories:
            number, page = self.categories[match.group(1)]
            if match.group(2) is None:
                return self.redirect(authority, f"/c/{match.group(1)}/{number}" + _tail(query))
            return page if int(match.group(2)) == number else None
        match = re.fullmatch(r"/u/([\w.-]+)/?", path)
        if match:
            found = self.users.get(match.group(1).lower())
            return found if found is not None and not params.get("page") else None
        match = re.fullmatch(r"/t/(?:([^/]+)/)?(\d+)(?:/(\d+))?/?", path)
        if match is None:
            return None
        slug: str | None = match.group(1)
        number, post = int(match.group(2)), match.group(3)
        if slug is not None and slug.isdigit() and number not in self.topics and int(slug) in self.topics:
            number, post = int(slug), str(number)  # (/t/<id>/<post>)
            slug = None
        pages = self.topics.get(number)
        if pages is None:
            return None
        if slug != self.slugs[number]:
            target = f"/t/{self.slugs[number]}/{number}" + (f"/{post}" if post else "")
            return self.redirect(authority, target + _tail(query))
        page_number = _int(params.get("page", ""), 0)
        if page_number:  # (a page past the last: Discourse::NotFound)
            return pages[page_number - 1] if page_number <= len(pages) else None
        if post:  # (the page that holds the post, a post past the last clamped to it)
            return pages[min(max(int(post) - 1, 0) // self.CHUNK, len(pages) - 1)]
        return pages[0]

    def head_links(self, page: Page) -> str:
        for number, pages in self.topics.items():
            if page in pages:
                index = pages.index(page)
                return _link(
                    "canonical",
                    f"http://{self.host}/t/{self.slugs[number]}/{number}" + _tail(f"page={index + 1}" if index else ""),
                )
        return self.canonical(page)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/latest", f"{base}/?page=0"]
        for name, (_, listing) in self.categories.items():
            if listing is page:
                return [f"{base}/c/{name}", f"{page.url}/l/latest", f"{page.url}/"]
        for name, profile in self.users.items():
            if profile is page:
                return [f"{base}/u/{name.title()}", f"{page.url}/"]
        for number, pages in self.topics.items():
            if page is pages[0]:
                share = random.Random(page.doc_id).choice(_USERS)
                wrong = self.slugs[number].rsplit("-", 1)[0]
                forms = [f"{base}/t/{number}", f"{base}/t/{wrong}/{number}", f"{page.url}/1", f"{page.url}?page=1"]
                forms += [f"{page.url}/", f"{page.url}?u={share}", f"{base}/t/{number}/{min(3, self.posts[number])}"]
                forms += [f"{page.url}/{self.CHUNK}"]
                if len(pages) == 1:  # (a post past the last: the topic's only page)
                    forms.append(f"{page.url}/{self.CHUNK + 5}")
                return forms
        return []


class StackExchangeSite(CommunitySite):
    """A Stack Exchange site (or a Q&A clone answering slugs with ``200``): see the module's docstring."""

    #: Values of ``answertab`` that mean the default order.
    DEFAULTS = ("", "votes", "scoredesc")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "Microsoft-IIS/10.0"))
        self.redirect_status = 301
        #: A clone that answers a slugless or wrong-slugged question with the page itself.
        self.lenient = rng.random() < 0.5
        self.home = self.add("/")
        self.listing = self.add("/questions")
        tags = rng.sample(_TAGS, 2)
        self.tags = {tag: self.add(f"/questions/tagged/{tag}") for tag in tags}
        names = rng.sample(_USERS, 5)
        uids = rng.sample(range(1000, 99999), 5)
        self.users: dict[int, tuple[str, Page]] = {}  # uid -> (name, profile page)
        for uid, name in zip(uids[:3], names[:3], strict=True):
            self.users[uid] = (name, self.add(f"/users/{uid}/{name}"))
        slugs = rng.sample(_QUESTIONS, max(3, min(7, budget - 9)))
        self.questions: dict[int, tuple[str, Page]] = {}  # qid -> (slug, page)
        self.answers: dict[int, int] = {}  # answer id -> question id
        for slug, qid in zip(slugs, rng.sample(range(10**6, 8 * 10**7), len(slugs)), strict=True):
            page = self.add(f"/questions/{qid}/{slug}")
            self.questions[qid] = (slug, page)
            self.banners[page.doc_id] = '<p class="sort">Sorted by: Highest score (default)</p>'
            for _ in range(rng.randint(1, 3)):
                self.answers[rng.randrange(10**6, 8 * 10**7)] = qid
            self.tags[rng.choice(tags)].links.append(page.path)
        self.long = next(iter(self.questions))
        slug, first = self.questions[self.long]
        self.oldest = self.exception(self.add(first.path, "answertab=oldest"))
        self.banners[self.oldest.doc_id] = '<p class="sort">Sorted by: Date created (oldest first)</p>'
        self.texts[self.oldest.doc_id] = "34 answers, oldest first: the first 30."
        self.texts[first.doc_id] = "34 answers, highest score first: the first 30."
        self.second = self.exception(self.add(first.path, "page=2&tab=scoredesc"))  # (the answers' pager)
        self.texts[self.second.doc_id] = "34 answers, highest score first: 31-34."
        for page, uid, name in ((self.oldest, uids[3], names[3]), (self.second, uids[4], names[4])):
            self.users[uid] = (name, self.behind(page, self.add(f"/users/{uid}/{name}")))
        self.traps.append(
            f"/questions/<id>, wrong slugs ({'200' if self.lenient else '301'}), /q/, /a/, ?noredirect, ?lq, "
            f"?answertab=votes, ?page=1; but /questions/{self.long}/{slug}?answertab=oldest and ?page=2"
        )

    def question(
        self, authority: str, qid: int, slug: str | None, answer: str | None, query: str
    ) -> Page | Reply | None:
        if qid not in self.questions:
            return None
        canonical, page = self.questions[qid]
        if answer is not None and self.answers.get(int(answer)) != qid:
            return None
        if slug != canonical and not self.lenient:
            return self.redirect(
                authority, f"/questions/{qid}/{canonical}" + (f"/{answer}" if answer else "") + _tail(query)
            )
        params = self.params(query)
        tab = params.get("answertab", "").lower()
        number = _int(params.get("page", "1"), 1)
        if number > 1:  # (the answers' pager: 30 a page, in the order of ?tab=)
            order = params.get("tab", tab).lower()
            return self.second if qid == self.long and number == 2 and order in self.DEFAULTS else None
        if tab in self.DEFAULTS:
            return page
        if tab in ("oldest", "createdasc") and qid == self.long:
            return self.oldest
        return self.noted(page, f"Sorted by: {tab}")  # (another order of the same answers)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path == "/":
            return self.home
        if path == "/questions":
            newest = params.get("tab", "newest").lower() == "newest" and _int(params.get("page", "1"), 1) == 1
            return self.listing if newest else None
        match = re.fullmatch(r"/questions/tagged/([\w.+#-]+)", path)
        if match:
            return self.tags.get(match.group(1).lower())
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
            qid = self.answers[aid]
            return self.redirect(authority, f"/questions/{qid}/{self.questions[qid][0]}/{aid}#{aid}", 302)
        match = re.fullmatch(r"/users/(\d+)(?:/([^/]*))?/?", path)
        if match and int(match.group(1)) in self.users:
            name, profile = self.users[int(match.group(1))]
            if match.group(2) != name:
                return self.redirect(authority, f"/users/{match.group(1)}/{name}")
            return profile
        return None

    def head_links(self, page: Page) -> str:
        if page is self.oldest:
            return _link("canonical", f"http://{self.host}{page.path}")
        return self.canonical(page)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.listing:
            return [f"{page.url}?tab=newest", f"{page.url}?tab=Newest&page=1", f"{page.url}?page=1"]
        for uid, (name, profile) in self.users.items():
            if profile is page:
                return [f"{base}/users/{uid}", f"{base}/users/{uid}/{name.upper()}"]
        for qid, (slug, question) in self.questions.items():
            if question is page:
                forms = [f"{base}/questions/{qid}", f"{base}/questions/{qid}/{slug.rsplit('-', 2)[0]}"]
                forms += [f"{base}/q/{qid}", f"{base}/q/{qid}/{next(iter(self.users))}"]
                forms += [f"{page.url}?noredirect=1", f"{page.url}?lq=1", f"{page.url}?rq=1"]
                forms += [f"{page.url}?answertab=votes#tab-top", f"{page.url}?answertab=scoredesc#tab-top"]
                forms += [f"{page.url}?page=1&tab=scoredesc#tab-top", f"{page.url}?tab=scoredesc"]
                for aid in (aid for aid, question_id in self.answers.items() if question_id == qid):
                    forms += [f"{page.url}/{aid}#{aid}", f"{base}/a/{aid}"]
                return forms
        return []


class MediaWikiSite(CommunitySite):
    """MediaWiki with short URLs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.62 (Debian)", "nginx/1.24.0"))
        self.redirect_status = 301
        if rng.random() < 0.5:  # (no CDN in front: every answer renders anew)
            self.token_markup = '<script>RLCONF={{"wgRequestId":"{}"}};</script>'
        titles = ["Main_Page", *rng.sample(_ARTICLES, max(3, min(6, budget - 5)))]
        self.articles: dict[str, Page] = {title: self.add(f"/wiki/{title}") for title in titles}
        self.ids = dict(zip(titles, rng.sample(range(1, 5000), len(titles)), strict=True))  # title -> curid
        target = next(title for title in titles[1:] if "_" in title)
        self.shortcut = (target.split("_")[0], target)  # redirect title -> its target
        alias = self.shortcut[0]
        self.redirect_page = self.exception(self.add(f"/wiki/{alias}", "redirect=no"))
        self.texts[self.redirect_page.doc_id] = f"Redirect page. Redirect to: {target.replace('_', ' ')}"
        self.redirect_page.links.append(f"/wiki/{target}")
        category = "Category:Redirects_from_short_names"
        self.articles[category] = self.behind(self.redirect_page, self.add(f"/wiki/{category}"))
        base = next(title for title in titles[1:] if "_" in title and title != target)
        head, tail = base.split("_", 1)
        self.twin = f"{head}_{tail.title()}"  # (another article: case after the first letter matters)
        self.articles[self.twin] = self.exception(self.add(f"/wiki/{self.twin}"))
        self.ids[self.twin] = max(self.ids.values()) + 1
        self.texts[self.articles[self.twin].doc_id] = f"{head} {tail.title()} (band). Not to be confused with {base}."
        self.traps.append(
            f"?title=, curid, /index.php/, ?redirect=no on articles, /wiki/x -> /wiki/X; "
            f"but /wiki/{alias}?redirect=no and /wiki/{self.twin}"
        )

    @staticmethod
    def normal(title: str) -> str:
        title = title.replace(" ", "_").strip("_")
        return title[:1].upper() + title[1:]

    def view(self, title: str, params: Mapping[str, str]) -> Page | Reply | None:
        if params.get("action", "view") != "view":
            return None
        if title == self.shortcut[0]:
            if params.get("redirect") == "no":
                return self.redirect_page
            return self.noted(self.articles[self.shortcut[1]], f"(Redirected from {title})")
        return self.articles.get(title)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)  # (form-decoded: "+" is a space)
        extra = set(params) - {"title", "action"}
        if path in ("/", "/w/", "/w/index.php") or path.startswith("/w/index.php/"):
            if "curid" in params:
                title = next((t for t, number in self.ids.items() if number == _int(params["curid"], -1)), None)
                return None if title is None else self.view(title, params)
            title = path[len("/w/index.php/") :] if path.startswith("/w/index.php/") else params.get("title", "")
            if not title:
                return self.redirect(authority, "/wiki/Main_Page")
        elif path.startswith(("/wiki/", "//wiki/")):
            title = path.split("/wiki/", 1)[1]
        else:
            return None
        if self.normal(title) != title:
            if extra:  # (tryNormaliseRedirect: only a plain view is redirected)
                return self.view(self.normal(title), params)
            return self.redirect(authority, "/wiki/" + encode_path(self.normal(title)))
        return self.view(title, params)

    def head_links(self, page: Page) -> str:
        return _link("canonical", f"http://{self.host}{page.path}")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        for title, article in self.articles.items():
            if article is page and page.doc_id not in self.hidden:
                forms = [
                    f"{base}/w/index.php?title={title}",
                    f"{base}/w/index.php/{title}",
                    f"{base}/?title={title}",
                    f"{base}/w/index.php?curid={self.ids[title]}",
                    f"{page.url}?action=view",
                    f"{base}/w/index.php?title={title}&action=view",
                    f"{base}//wiki/{title}",
                    f"{page.url}?redirect=no",
                    f"{base}/wiki/{title[:1].lower()}{title[1:]}",
                ]
                if "_" in title:
                    forms += [
                        f"{base}/wiki/{title.replace('_', '%20')}",
                        f"{base}/w/index.php?title={title.replace('_', '+')}",
                    ]
                if title == "Main_Page":
                    forms += [f"{base}/", f"{base}/w/index.php", f"{base}/w/index.php?title="]
                if title == self.shortcut[1]:
                    forms.append(f"{base}/wiki/{self.shortcut[0]}")
                return forms
        return []


class GiteaSite(CommunitySite):
    """Gitea: see the module's docstring."""

    token_markup = '<meta name="_csrf" content="{}">'
    token_cookie = "_csrf"

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "Caddy", "nginx"))
        self.redirect_status = 303  # (ctx.Redirect's default)
        self.owner, self.repo = rng.choice(_OWNERS), rng.choice(_REPOS)
        self.home = self.add("/")
        self.explore = self.add("/explore/repos")
        self.profile = self.add(f"/{self.owner}")
        self.repo_home = self.add(f"/{self.owner}/{self.repo}")
        self.link = f"/{self.owner}/{self.repo}"
        names = ["README.md", "LICENSE", *(f"docs/{word}.md" for word in rng.sample(_DOCS, max(1, min(4, budget - 9))))]
        self.files: dict[str, Page] = {name: self.add(f"{self.link}/src/branch/main/{name}") for name in names}
        self.issues = {0: self.add(f"{self.link}/issues")}
        for number in rng.sample(range(1, 300), 2):
            self.issues[number] = self.add(f"{self.link}/issues/{number}")
        self.lower = self.exception(self.add(f"{self.link}/src/branch/main/readme.md"))
        self.texts[self.lower.doc_id] = "Old notes (readme.md, kept beside README.md). Setup: see docs/old-setup.md."
        self.files["readme.md"] = self.lower
        old = self.add(f"{self.link}/src/branch/main/docs/old-setup.md")
        self.files["docs/old-setup.md"] = self.behind(self.lower, old, old.path)
        self.traps.append("owner and repository case-insensitive, .git trimmed, /src/<ref>/ legacy; but readme.md")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        path = re.sub("/+", "/", path).rstrip("/") or "/"  # (the strip-slashes middleware)
        if path in ("/", "/explore/repos"):
            return self.home if path == "/" else self.explore
        parts = path[1:].split("/")
        if parts[0].lower() != self.owner.lower():
            return None
        if len(parts) == 1:
            return self.profile
        if parts[1].lower().removesuffix(".git") != self.repo.lower():
            return None
        rest = parts[2:]
        if not rest:
            return self.repo_home
        if rest == ["issues"] or (len(rest) == 2 and rest[0] == "issues" and rest[1].isdigit()):
            return self.issues.get(int(rest[1]) if len(rest) == 2 else 0)
        if rest[0] != "src" or len(rest) < 2:
            return None
        if rest[1] == "branch":
            return self.files.get("/".join(rest[3:])) if rest[2:3] == ["main"] else None
        if rest[1] in ("tag", "commit"):
            return None
        name = "/".join(rest[2:] if rest[1] == "main" else rest[1:])  # (a legacy path: the ref guessed)
        if name in self.files:
            return self.redirect(authority, f"{self.link}/src/branch/main/{name}" + _tail(query))
        return None

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        owner, repo = self.owner, self.repo
        if page is self.profile:
            return [f"{base}/{owner.lower()}", f"{base}/{owner.upper()}", f"{page.url}/"]
        if not page.path.startswith(self.link):
            return [f"{page.url}/"] if page is self.explore else []
        tail = page.path[len(self.link) :]
        forms = [f"{base}/{owner.lower()}/{repo.lower()}{tail}", f"{base}/{owner}/{repo}.git{tail}"]
        forms += [f"{base}/{owner.upper()}/{repo.lower()}{tail}", f"{page.url}/"]
        if tail.startswith("/src/branch/main/"):
            name = tail[len("/src/branch/main/") :]
            forms += [f"{base}{self.link}/src/main/{name}", f"{base}{self.link}/src/{name}"]
        return forms


class GitLabSite(CommunitySite):
    """GitLab: see the module's docstring."""

    token_markup = '<meta name="csrf-param" content="authenticity_token"><meta name="csrf-token" content="{}">'

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 301
        self.group, self.project = (
            rng.choice(_OWNERS).lower(),
            rng.choice(_REPOS).lower() + "-" + rng.choice(("core", "web", "cli")),
        )
        self.link = f"/{self.group}/{self.project}"
        self.home = self.add("/explore")
        self.group_page = self.add(f"/{self.group}")
        self.project_page = self.add(self.link)
        names = [
            "README.md",
            "CONTRIBUTING.md",
            *(f"docs/{word}.md" for word in rng.sample(_DOCS, max(1, min(4, budget - 9)))),
        ]
        self.blobs = {name: self.add(f"{self.link}/-/blob/main/{name}") for name in names}
        self.trees = {"": self.add(f"{self.link}/-/tree/main"), "docs": self.add(f"{self.link}/-/tree/main/docs")}
        self.issues = {0: self.add(f"{self.link}/-/issues")}
        for number in rng.sample(range(1, 900), 2):
            self.issues[number] = self.add(f"{self.link}/-/issues/{number}")
        self.source = self.exception(self.add(f"{self.link}/-/blob/main/README.md", "plain=1"))
        self.texts[self.source.doc_id] = "# README (source, 42 lines). Raw | Blame | History"
        self.blame = self.behind(self.source, self.add(f"{self.link}/-/blame/main/README.md"))
        module = rng.choice(("TCPMSS", "DSCP", "CONNMARK", "MARK"))  # (as the Linux tree has them)
        self.blobs[f"src/xt_{module}.c"] = self.add(f"{self.link}/-/blob/main/src/xt_{module}.c")
        self.lower = self.exception(self.add(f"{self.link}/-/blob/main/src/xt_{module.lower()}.c"))
        self.blobs[f"src/xt_{module.lower()}.c"] = self.lower
        self.texts[self.lower.doc_id] = f"xt_{module.lower()}.c: the match (xt_{module}.c is the target)."
        self.traps.append(
            "case and .git 301 to the canonical path, /tree/ -> /-/tree/, ?ref_type=heads; "
            f"but ?plain=1 and src/xt_{module.lower()}.c"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/explore"):
            return self.home if path == "/explore" else self.redirect(authority, "/explore", 302)
        parts = path.rstrip("/")[1:].split("/")
        if parts[0].lower() != self.group:
            return None
        if len(parts) == 1:
            return (
                self.group_page if parts[0] == self.group else self.redirect(authority, f"/{self.group}" + _tail(query))
            )
        if parts[1].lower().removesuffix(".git") != self.project:
            return None
        rest = parts[2:]
        if rest and rest[0] in ("tree", "blob", "blame", "issues"):  # (legacy routes without /-/)
            return self.redirect(authority, f"{self.link}/-/{'/'.join(rest)}" + _tail(query))
        if parts[:2] != [self.group, self.project]:  # (ensure_canonical_path)
            return self.redirect(authority, self.link + "".join(f"/{part}" for part in rest) + _tail(query))
        if not rest:
            return self.project_page
        if rest[0] != "-" or len(rest) < 2:
            return None
        if params.get("ref_type", "heads") != "heads":
            return None
        view, ref, name = rest[1], rest[2] if len(rest) > 2 else "", "/".join(rest[3:])
        if view == "issues":
            return self.issues.get(int(ref) if ref.isdigit() else 0) if len(rest) <= 3 else None
        if ref != "main":
            return None
        if view == "tree":
            return self.trees.get(name)
        if view == "blame":
            return self.blame if name == "README.md" else None
        if view == "blob" and name in self.blobs:
            if params.get("plain", "0") == "0":
                return self.blobs[name]
            return self.source if name == "README.md" and params["plain"] == "1" else None
        return None

    def head_links(self, page: Page) -> str:
        return _link("canonical", f"http://{self.host}{page.path}")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.group_page:
            return [f"{base}/{self.group.title()}", f"{base}/{self.group.upper()}", f"{page.url}/"]
        if not page.path.startswith(self.link) or page.query:
            return []
        tail = page.path[len(self.link) :]
        forms = [
            f"{base}/{self.group.title()}/{self.project}{tail}",
            f"{base}/{self.group}/{self.project.title()}{tail}",
        ]
        forms += [f"{page.url}/"]
        if not tail:
            forms.append(f"{base}{self.link}.git")
        if tail.startswith("/-/"):
            forms.append(f"{base}{self.link}{tail[2:]}")
        if tail.startswith(("/-/blob/", "/-/tree/")):
            forms.append(f"{page.url}?ref_type=heads")
        if tail.startswith("/-/blob/"):
            forms.append(f"{page.url}?plain=0")
        return forms


class ReadTheDocsSite(CommunitySite):
    """Sphinx on Read the Docs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 302
        words = rng.sample(_DOCS, max(3, min(6, budget - 6)))
        self.files: dict[str, Page] = {"index.html": self.add("/en/latest/")}
        for word in words:
            self.files[f"{word}.html"] = self.add(f"/en/latest/{word}.html")
        self.files["api/index.html"] = self.add("/en/latest/api/")
        for word in rng.sample(("client", "server", "models", "utils"), 2):
            self.files[f"api/{word}.html"] = self.add(f"/en/latest/api/{word}.html")
        self.released = self.add("/en/stable/changelog.html")
        self.texts[self.released.doc_id] = "Changelog. 2.4.0 (released). 2.3.1. 2.3.0."
        self.unreleased = self.exception(self.add("/en/latest/changelog.html"))
        self.texts[self.unreleased.doc_id] = "Changelog. Unreleased: see the migration guide. 2.4.0. 2.3.1. 2.3.0."
        migration = self.add("/en/latest/migration.html")
        self.behind(self.unreleased, migration, "migration.html")
        self.only_latest = {"changelog.html": self.unreleased, "migration.html": migration}
        self.traps.append("/en/stable/x = /en/latest/x, index.html, ?highlight=; but /en/latest/changelog.html")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path in ("/", "/en", "/en/"):
            return self.redirect(authority, "/en/latest/")
        if path.startswith("/page/"):
            return self.redirect(authority, "/en/latest/" + encode_path(path[len("/page/") :]) + _tail(query))
        match = re.fullmatch(r"/en/(latest|stable)(/.*)?", path)
        if match is None:
            return None
        version, rest = match.groups()
        if rest is None:
            return self.redirect(authority, f"/en/{version}/" + _tail(query))
        name = rest[1:]
        if name == "" or name.endswith("/"):
            name += "index.html"
        elif f"{name}/index.html" in self.files:  # (a directory: its slash added)
            return self.redirect(authority, f"/en/{version}/{encode_path(name)}/" + _tail(query))
        if name in self.only_latest:
            if version == "latest":
                return self.only_latest[name]
            return self.released if name == "changelog.html" else None
        return self.files.get(name)

    def head_links(self, page: Page) -> str:  # (the default version's URL, on every version's build)
        path = "/en/latest/changelog.html" if page is self.released else page.path
        return _link("canonical", f"http://{self.host}{path}")

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.released:
            return [f"{page.url}?highlight=release"]
        if not page.path.startswith("/en/latest/") or page.doc_id in self.late or page.doc_id in self.hidden:
            return []
        name = page.path[len("/en/latest/") :]
        forms = [f"{base}/en/stable/{name}", f"{page.url}?highlight={random.Random(page.doc_id).choice(_DOCS)}"]
        if name == "" or name.endswith("/"):
            forms += [f"{page.url}index.html", f"{base}/en/stable/{name}index.html"]
            forms += [f"{base}/en/latest/{name[:-1]}"] if name else [f"{base}/", f"{base}/en/", f"{base}/en/latest"]
        else:
            forms.append(f"{base}/page/{name}")
        return forms


class MastodonSite(CommunitySite):
    """Mastodon 4's web routes: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Mastodon", "nginx"))
        self.redirect_status = 301
        self.home = self.add("/explore")
        self.about = self.add("/about")
        names = rng.sample([name for name in _USERS if re.fullmatch(r"\w+", name)], 3)
        names[0] = names[0].title()  # (a username as its owner typed it)
        self.accounts = {name.lower(): (name, self.add(f"/@{name}")) for name in names}
        self.statuses: dict[int, tuple[str, Page]] = {}  # status id -> (account, page)
        ids = sorted(rng.sample(range(10**17, 10**18), max(3, min(8, budget - 7))))
        for number in ids:
            name = rng.choice(names)
            self.statuses[number] = (name.lower(), self.add(f"/@{name}/{number}"))
        self.hashtags = {tag.lower(): self.add(f"/tags/{tag.lower()}") for tag in rng.sample(_HASHTAGS, 2)}
        status = self.statuses[ids[0]][1]
        self.embed = self.exception(self.add(f"{status.path}/embed"))
        self.texts[self.embed.doc_id] = "Embedded post. View on Mastodon."
        self.traps.append(f"/@User = /@user, /@user/media, /users/ -> /@; but {status.path}/embed")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        path = path.rstrip("/") or "/"
        if path in ("/", "/explore"):
            return self.home if path == "/explore" else self.redirect(authority, "/explore", 302)
        if path == "/about":
            return self.about
        match = re.fullmatch(r"/tags/(\w+)", path)
        if match:
            return self.hashtags.get(match.group(1).lower())
        match = re.fullmatch(r"/users/(\w+)(?:/statuses/(\d+))?", path)
        if match and match.group(1).lower() in self.accounts:
            name = self.accounts[match.group(1).lower()][0]
            return self.redirect(authority, f"/@{name}" + (f"/{match.group(2)}" if match.group(2) else ""))
        match = re.fullmatch(r"/web/@(\w+)/(\d+)", path)
        if match and match.group(1).lower() in self.accounts:
            return self.redirect(authority, f"/@{self.accounts[match.group(1).lower()][0]}/{match.group(2)}", 302)
        match = re.fullmatch(r"/@(\w+)(?:/(with_replies|media|\d+)(/embed)?)?", path)
        if match is None or match.group(1).lower() not in self.accounts:
            return None
        name, profile = self.accounts[match.group(1).lower()]
        rest = match.group(2)
        if rest is None or not rest.isdigit():
            return None if match.group(3) else profile
        found = self.statuses.get(int(rest))
        if found is None or found[0] != name.lower():
            return None
        if match.group(3):
            return self.embed if found[1].path + "/embed" == self.embed.path else None
        return found[1]

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/", f"{page.url}/"]
        for name, profile in self.accounts.values():
            if profile is page:
                flipped = name.lower() if name != name.lower() else name.title()
                forms = [f"{base}/@{flipped}", f"{page.url}/with_replies", f"{page.url}/media", f"{page.url}/"]
                return [*forms, f"{base}/users/{name}", f"{base}/users/{name.lower()}"]
        for number, (account, status) in self.statuses.items():
            if status is page:
                name = self.accounts[account][0]
                forms = [f"{page.url}/", f"{base}/users/{name}/statuses/{number}", f"{base}/web/@{name}/{number}"]
                if name != account:
                    forms.append(f"{base}/@{account}/{number}")
                return forms
        for tag, hashtag in self.hashtags.items():
            if hashtag is page:
                return [f"{base}/tags/{tag.title()}", f"{base}/tags/{tag.upper()}", f"{page.url}/"]
        return []


_CLASSES: dict[str, type[CommunitySite]] = {
    "discourse": DiscourseSite,
    "stackexchange": StackExchangeSite,
    "mediawiki": MediaWikiSite,
    "gitea": GiteaSite,
    "gitlab": GitLabSite,
    "readthedocs": ReadTheDocsSite,
    "mastodon": MastodonSite,
}


# -- the web ------------------------------------------------------------------------------------


class CommunityWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of community kinds (the same checks)."""


def generate_community_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> CommunityWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds(
        "community", seed, KINDS, _CLASSES, CommunityWeb, meta_refresh=meta_refresh, query_pages=query_pages
    )


# -- the comparison ---------------------------------------------------------------------------


class CommunityComparison(FamilyComparison):
    """A comparison on a community web: requests, pages and documents per kind of host."""


async def compare_community(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> CommunityComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_community_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_community_web, CommunityComparison, seed, workdir, addon_settings, order)
