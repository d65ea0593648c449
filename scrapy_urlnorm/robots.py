"""Twin hosts whose ``robots.txt`` answers differ are not one site.

``www.h/x`` and ``h/x`` may serve one page, but the page's relative links
resolve on the host it was fetched from, and ``RobotsTxtMiddleware`` checks
each host (and port) against that host's own ``robots.txt``. Stock Scrapy
fetches both spellings and follows each one's links under its own host's rules.
When the twins' answers differ (one forbids ``/help/``; or one failed, and
stock crawls that host as if it had no ``robots.txt``), merging the twins
(``www_alias``) would follow one host's links only, and lose pages the other
host allows.

So, with ``ROBOTSTXT_OBEY``, the answer to each host's ``robots.txt`` is
remembered (a digest of the body, or the status, or the error), and twins
whose answers differ contradict ``www_alias`` on their site: the rule never
activates, or is revoked and what it dropped is released
(``urlnorm/robots_twins_differ``). Found by ``bench_differential.py --robots
--flaky`` (seed 55285: the bare host's ``robots.txt`` failed, the ``www``
twin's forbade the page's links).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import xxhash
from scrapy import Request
from scrapy.http.request import NO_CALLBACK

from .callbacks import callback_salt
from .keys import host_of
from .learning import RuleKind
from .ledger import Drop, Parked, lighten, rebuilt

if TYPE_CHECKING:
    from collections.abc import Callable

    from .dedup import Deduplicator

#: Hosts whose answer is remembered (one per host and port the crawl meets).
MAX_HOSTS = 100_000

_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def has_default_port(url: str) -> bool:
    """Whether ``url`` writes its scheme's default port (``http://h:80/``)."""
    parts = urlsplit(url)
    port = _DEFAULT_PORTS.get(parts.scheme)
    return port is not None and parts.netloc.endswith(port)


def _namespace(learned: tuple[object, int] | None) -> int:
    """A host's rule namespace (0: no learned rule), as ``LearnedPolicies.get`` gives it."""
    return 0 if learned is None else learned[1]


def _base_of(url: str) -> str:
    """What ``url``'s page resolves its relative links against, as far as spellings of
    one page differ: scheme, host and path (no query, no fragment)."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{_host_of(url)}{parts.path}"


def _host_of(url: str) -> str:
    """``url``'s host and port as the learner keys hosts (lower case, no default port)."""
    parts = urlsplit(url)
    return parts.netloc.lower().removesuffix(_DEFAULT_PORTS.get(parts.scheme, ""))


class RobotsTwins:
    """Remembers each host's ``robots.txt`` answer and calls ``contradict(bare_host,
    kind, url, twin_url)`` when a host's answer differs from its twin's."""

    def __init__(
        self,
        contradict: Callable[[str, str, str, str], None],
        count: Callable[[str], None],
        answered_at: Callable[[str, int | str], None] | None = None,
    ) -> None:
        self._contradict = contradict
        self._count = count
        #: Told each answer with the host and port it was asked for, as spelled (``h:80``).
        self._answered_at = answered_at
        self._answers: dict[str, int | str] = {}

    @staticmethod
    def is_robots_request(request: Request) -> bool:
        """``RobotsTxtMiddleware``'s own request (``NO_CALLBACK``, not obeying itself)."""
        return request.callback is NO_CALLBACK and bool(request.meta.get("dont_obey_robotstxt"))

    def answered(self, request: Request, status: int, body: bytes) -> None:
        self._observe(request, xxhash.xxh3_64_intdigest(body) if status == 200 else f"status {status}")

    def failed(self, request: Request, error: BaseException) -> None:
        self._observe(request, f"error {type(error).__name__}")

    def _observe(self, request: Request, answer: int | str) -> None:
        first = (request.meta.get("redirect_urls") or [request.url])[0]  # the host it was asked for
        if urlsplit(first).path != "/robots.txt" or len(self._answers) >= MAX_HOSTS:
            return
        if self._answered_at is not None:
            self._answered_at(urlsplit(first).netloc.lower(), answer)
        host = _host_of(first)
        self._answers[host] = answer
        twin = host[4:] if host.startswith("www.") else f"www.{host}"
        other = self._answers.get(twin)
        if other is not None and other != answer:
            self._count("urlnorm/robots_twins_differ")
            bare = host.removeprefix("www.")
            self._contradict(bare, RuleKind.WWW_ALIAS.value, f"http://{host}/robots.txt", f"http://{twin}/robots.txt")


#: ``RobotsTxtMiddleware``'s ``IgnoreRequest`` message.
FORBIDDEN = "Forbidden by robots.txt"
#: Parent pages kept (beyond: a forbidden link's parents are not looked at).
MAX_PARENTS = 100_000
#: Pending keys whose exact copies' ``Referer`` are kept, and how many per key.
MAX_COPY_KEYS = 100_000
MAX_COPY_REFERERS = 8


class ForbiddenSpellings:
    """A link ``robots.txt`` forbids may be allowed as another page spelled it.

    ``robots.txt`` rules name spellings (``Disallow: /Docs/x``), and a relative
    link is spelled by the page it is on: ``x`` on ``/Docs/`` is the forbidden
    ``/Docs/x``, on ``/docs/`` the allowed ``/docs/x``. Stock fetches both
    spellings of the page and reaches ``/docs/x``; the add-on fetched one and
    dropped the other under a learned rule (case, default page, slash...).

    So when a request is forbidden, its *parents* are kept: its ``Referer``, and
    the ``Referer`` of every exact copy of it the filter dropped (stock drops
    those too, but their pages' other spellings spell the link otherwise;
    seed 65042 and the multi-parent case after it). Then:

    - the spellings of a parent that learned rules dropped and that are still
      parked for revocation are sent after all, past the filter;
    - a spelling of a parent met later is fetched, not dropped (``Admission``,
      ``LateChecks``; :meth:`covers`);
    - a spelling of a parent with its default port written (``h:80/p`` beside
      ``h/p``), which the static ``default_port`` step dropped, is sent after all:
      ``RobotsTxtMiddleware`` asks ``h:80`` for a ``robots.txt`` of its own, and
      where that one fails (Scrapy then crawls ``h:80`` as if it had none) stock
      follows ``h:80/p``'s links to pages ``h``'s forbids (differential seeds
      135108 and 138415, ``--robots --flaky``). Once per parent; the first such
      spelling of each page is kept (:meth:`port_spelling_dropped`).

    Parents are kept by URL, per site (``www.`` twins together), and matched under
    the rules of the moment: the rule that merges a parent's spellings may be
    learned after its link was forbidden (seed 65042), and learned keys change
    with each rule change on their host. Once per parent and spelling, so it
    cannot feed on itself (``urlnorm/robots_parent_spellings``). Only with
    ``ROBOTSTXT_OBEY`` and learning (:attr:`active`). First found by
    ``bench_differential.py`` with every condition on (seed 58289)."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup
        #: Set by ``wiring`` with ``ROBOTSTXT_OBEY`` and learning.
        self.active = False
        self._parents: dict[str, set[str]] = {}
        self._parent_count = 0
        #: Site -> (its parents' count and its twins' rule namespaces, their learned keys
        #: then): :meth:`covers` asks for every learned drop on the site, and fingerprinting
        #: each parent each time was quadratic (seed 169771, ``--robots --sessions``: a
        #: session token in every link made hundreds of parents; 235 s of a 270 s crawl).
        self._parent_keys: dict[str, tuple[tuple[int, ...], frozenset[int | None]]] = {}
        #: (A parent's learned key, a base it was fetched at): spellings of the parent at
        #: another base only are fetched for their links (see :meth:`covers`).
        self._bases_read: set[tuple[int, str]] = set()
        #: Host -> (its rule namespace, its parked drops' learned keys then, by URL): each
        #: parent met looks through them (see :meth:`_parked_keys`).
        self._drop_keys: dict[str, tuple[int, dict[str, tuple[Drop, int | None]]]] = {}
        #: Pending keys -> the ``Referer`` of the exact copies dropped against them.
        self._copies: dict[int, tuple[bytes, ...]] = {}
        self._referers: dict[bytes, bytes] = {}
        #: Keys whose representative was forbidden (until a delivery).
        self._forbidden: set[int] = set()
        #: Static keys of pages (without callback) -> a spelling of the page with its
        #: default port written, which the filter dropped (kept light, as parked drops are).
        self._port_spellings: dict[int, Request | Parked] = {}
        #: ``robots.txt`` answers by host and port as spelled (``h``, ``h:80``; see ``RobotsTwins``).
        self._robots_at: dict[str, int | str] = {}

    def __bool__(self) -> bool:
        """Whether any parent is kept (else nothing to match)."""
        return self._parent_count > 0

    def sizes(self) -> dict[str, int]:
        """For ``urlnorm/memory/*``."""
        return {
            "robots_parents": self._parent_count,
            "robots_copy_keys": len(self._copies),
            "robots_port_spellings": len(self._port_spellings),
        }

    # -- what the filter and the settling tell ------------------------------------------

    def copy_dropped(self, key: int, request: Request, *, pending: bool) -> None:
        """An exact copy of ``key``'s representative was dropped (``pending``: that one
        is still to settle). Its ``Referer`` is a parent if the link was forbidden."""
        referer = request.headers.get(b"Referer")
        if not referer:
            return
        if not pending:
            if key in self._forbidden:
                self._parent(referer)
            return
        copies = self._copies.get(key)
        if copies is None:
            if len(self._copies) < MAX_COPY_KEYS:
                self._copies[key] = (self._intern(referer),)
        elif len(copies) < MAX_COPY_REFERERS and referer not in copies:
            self._copies[key] = (*copies, self._intern(referer))

    def robots_answered_at(self, netloc: str, answer: int | str) -> None:
        """``netloc``'s ``robots.txt`` answered ``answer`` (a body's digest, a status, an error)."""
        if len(self._robots_at) < MAX_PARENTS:
            self._robots_at[netloc] = answer

    def port_spelling_dropped(self, key: int, request: Request) -> None:
        """``request`` spells its page's URL with the default port written (``h:80/p``) and
        was dropped against ``key``'s representative: kept, in case a link of that page
        is forbidden (see the class's docstring)."""
        if has_default_port(request.url):
            key ^= callback_salt(request)
            if key not in self._port_spellings and len(self._port_spellings) < MAX_PARENTS:
                self._port_spellings[key] = lighten(request)

    def _intern(self, referer: bytes) -> bytes:
        """One object per ``Referer`` value: a page's links all carry it, each its own copy."""
        interned = self._referers
        if len(interned) >= MAX_COPY_KEYS:
            interned.clear()  # (only memory is at stake)
        return interned.setdefault(referer, referer)

    def settled(self, keys: tuple[int, ...], *, delivered: bool) -> None:
        """``keys``' representative settled: its copies' ``Referer`` are needed no more."""
        for key in keys:
            self._copies.pop(key, None)
            if delivered:
                self._forbidden.discard(key)

    def forbidden(self, request: Request) -> None:
        """``robots.txt`` forbade ``request``: its parents and its copies' parents are kept."""
        referers = {request.headers.get(b"Referer")}
        for key in self.dedup.fingerprint(request).keys:
            referers.update(self._copies.pop(key, ()))
            if len(self._forbidden) < MAX_PARENTS:
                self._forbidden.add(key)
        for referer in referers:
            if referer:
                self._parent(referer)

    # -- parents ------------------------------------------------------------------------

    def covers(self, key: int, request: Request, host: str) -> bool:
        """Whether ``request``'s learned ``key`` (on ``host``) is, under its host's rules
        now, a parent, spelled with a base its links were not read against yet; if so,
        that base counts as read. (Parents are kept as URLs, keyed here without a
        callback: a parent is a page, whichever callback read it.) Only the base (the URL
        less its query) resolves a relative link, so a spelling that differs from one
        fetched in its query alone spells its links alike: seed 169824 (``--robots
        --sessions``), whose links each carry the session of the page they are on, sent
        every parent again under each new session, and each one's redirect, dropping the
        session, opened another: 6,884 requests to stock's 1,690."""
        site = host.removeprefix("www.")
        urls = self._parents.get(site)
        if not urls:
            return False
        key ^= callback_salt(request)
        if key not in self._learned_keys(site, urls):
            return False
        return self._unread(key, request.url)

    def _unread(self, key: int, url: str) -> bool:
        """Whether parent ``key`` spelled as ``url`` has a base its links were not read
        against yet; if so, it counts as read now (see :meth:`covers`)."""
        read = (key, _base_of(url))
        if read in self._bases_read or len(self._bases_read) >= MAX_PARENTS:
            return False
        self._bases_read.add(read)
        return True

    def _learned_keys(self, site: str, urls: set[str]) -> frozenset[int | None]:
        """The learned keys of ``site``'s parents under its rules now: computed again only
        when a parent is added or a rule changes on either twin (the namespace says so)."""
        learned = self.dedup.learned
        state = (len(urls), *(_namespace(learned.get(host) if learned else None) for host in (site, f"www.{site}")))
        cached = self._parent_keys.get(site)
        if cached is not None and cached[0] == state:
            return cached[1]
        fingerprint = self.dedup.fingerprint
        keys = frozenset(fingerprint(Request(url)).learned for url in urls)
        self._parent_keys[site] = (state, keys)
        return keys

    def _parent(self, referer: bytes) -> None:
        """``referer`` spelled a forbidden link: keep it, and send its parked spellings."""
        dedup = self.dedup
        try:
            parent = dedup.fingerprint(Request(referer.decode("latin-1")))
        except ValueError:  # a Referer that is no URL (a referrer policy may send anything)
            return
        if parent.url is None or self._parent_count >= MAX_PARENTS:
            return
        host = host_of(parent.url)
        urls = self._parents.setdefault(host.removeprefix("www."), set())
        if parent.url in urls:
            return
        urls.add(parent.url)
        self._parent_count += 1
        if parent.learned is not None:
            self._unread(parent.learned, parent.url)  # (read where it was fetched)
        spelling = self._port_spellings.pop(parent.value, None)
        if spelling is not None:
            here = urlsplit(referer.decode("latin-1")).netloc.lower()
            there = urlsplit(spelling.url).netloc.lower()
            answer = self._robots_at.get(there)
            # Not where both robots.txt are known to answer alike: its links would be forbidden too.
            if here != there and (answer is None or answer != self._robots_at.get(here)):
                dedup.count("urlnorm/robots_parent_spellings")
                dedup.reschedule_request(rebuilt(spelling).replace(dont_filter=True))  # type: ignore[misc]
        if parent.learned is None:
            return  # no learned rule merges spellings of the parent yet: nothing was dropped
        for drop, learned in self._parked_keys(host):
            if learned == parent.learned and self._unread(learned, drop.url):
                again = drop.request
                dedup.ledger.discharge(drop)
                dedup.count("urlnorm/robots_parent_spellings")
                dedup.reschedule_request(again.replace(dont_filter=True))  # type: ignore[misc]

    def _parked_keys(self, host: str) -> list[tuple[Drop, int | None]]:
        """``host``'s parked drops, each with its learned key (its callback's salt in)
        under the host's rules now: fingerprinted once per drop and rule set, not once
        per parent met (each rebuilt from its light form, too)."""
        learned = self.dedup.learned
        state = _namespace(learned.get(host) if learned else None)
        cached = self._drop_keys.get(host)
        known = cached[1] if cached is not None and cached[0] == state else {}
        fingerprint = self.dedup.fingerprint
        keys: dict[str, tuple[Drop, int | None]] = {}
        for drop in self.dedup.ledger.parked_of(host):
            entry = known.get(drop.url)
            if entry is None or entry[0] is not drop:
                again = drop.request
                key = fingerprint(again).learned
                entry = (drop, None if key is None else key ^ callback_salt(again))
            keys[drop.url] = entry
        self._drop_keys[host] = (state, keys)
        return list(keys.values())
