"""The de-duplication engine shared by the dupe filter and the middlewares.

One :class:`Deduplicator` per crawler (:func:`~scrapy_urlnorm.wiring.for_crawler`)
wires the units that do the work and makes the decisions:

- :class:`~scrapy_urlnorm.keys.RequestKeys`: a request's static and learned keys;
- the seen index (a :class:`~scrapy_urlnorm.stores.SeenStore`) and the
  :class:`~scrapy_urlnorm.persistence.FailedKeys`;
- the :class:`~scrapy_urlnorm.ledger.DropLedger`: every drop against its representative;
- :class:`~scrapy_urlnorm.hostrules.LearnedPolicies`: what learned rules mean per host;
- the :class:`~scrapy_urlnorm.learning.Learner` (fed by :mod:`scrapy_urlnorm.observer`);
- the :class:`~scrapy_urlnorm.audits.Auditor` and the
  :class:`~scrapy_urlnorm.meter.RedundancyMeter`.

The invariant it enforces: a request is dropped only against a
*representative* with the same key that has delivered its page (a final,
non-redirect 2xx response) or is still pending; a drop against a pending one
is written in the ledger and released if it settles without delivering.
Exact duplicates (the same URL up to what stock Scrapy's own fingerprint
ignores) are dropped as stock Scrapy drops them.
"""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.utils.request import referer_str

from . import meta as M
from .audits import SEMANTIC_RANK, AuditDesk, Auditor, mark_audit
from .figures import memory_figures, summary
from .holdback import HoldBack
from .hostrules import LearnedPolicies
from .keys import Fingerprint, RequestKeys, host_of
from .learning import Learner
from .ledger import Claim, DropLedger
from .meter import RedundancyMeter
from .observer import RuleKeeper
from .persistence import FailedKeys, RulesFile
from .redis_setup import LEASE, PARENT
from .steps import LEARNED_RANKS, REASONS
from .stores import MemoryStore, RedisRules, SeenStore

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from .policy import Policy

logger = logging.getLogger(__name__)

#: Fetched page URLs remembered per host, to store their learned keys when the host's rules
#: change, and in all (the hosts first remembered go first). A page forgotten costs at most
#: a duplicate fetched under a rule learned later (``urlnorm/pages_for_rekeying_forgotten``).
PAGES_PER_HOST = 1000
PAGE_HOSTS = 1000
PAGES_IN_ALL = 20_000

_ADMIT = None  # what _against returns when it does not drop


def _defragment(url: str) -> str:
    return url.partition("#")[0]


#: What ``check`` answers for a variant held back (not a duplicate: it is scheduled again later).
HELD_BACK = "held_back"
#: Counts gathered before they are added to ``crawler.stats`` (also at close, and
#: whenever someone reads them through :meth:`Deduplicator.publish_counts`).
PUBLISH_EVERY = 1024
#: reason -> its ``urlnorm/filtered/<reason>`` counter name, made once.
_FILTERED_KEYS: dict[str, str] = {}


class Deduplicator:
    """Fingerprints requests, decides which are duplicates, and keeps every drop's promise."""

    #: The ``spider_idle`` receiver ``wiring`` connects (signals hold receivers weakly).
    idle_handler: Callable[..., None] | None = None
    #: Told each request that delivered its page, with its static key (RedisScheduler
    #: tells the worker that queued it, which may hold drops against it).
    on_delivered: Callable[[Request, int], None] | None = None

    def __init__(
        self,
        policy: Policy,
        *,
        bits: int = 64,
        path: str | Path | None = None,
        failed_path: str | Path | None = None,
        debug: bool = False,
        stats: StatsCollector | None = None,
        fallback: Callable[[Request], bytes] | None = None,
        custom_fingerprinter: bool = False,
        cache_size: int = 4096,
        learn: bool = False,
        min_evidence: int = 2,
        audit_rate: float = 0.0,
        rules_path: str | Path | None = None,
        reschedule: Callable[[Request], None] | None = None,
        store: SeenStore | None = None,
        shared_rules: RedisRules | None = None,
    ) -> None:
        self.policy = policy
        self.bits = bits
        self.debug = debug
        self.stats = stats
        # Counters pile up here and reach crawler.stats every PUBLISH_EVERY counts and at
        # close: a stats call per request cost about a quarter of the filter's time.
        self._counts: dict[str, int] = {}
        self._unpublished = 0
        # The two counts every request or drop makes, kept in attributes of their own.
        self._requests_seen = 0
        self._filtered = 0
        self._filtered_by_reason: dict[str, int] = {}
        self.keys = RequestKeys(
            policy, bits=bits, fallback=fallback, custom=custom_fingerprinter, cache_size=cache_size, count=self.count
        )
        self.seen: SeenStore = store if store is not None else MemoryStore(bits, path)
        # The per-request lookup, bound once (the in-memory table's own, without the store's wrapper).
        self._seen_get: Callable[[int], int | None] = (
            self.seen.table.get if type(self.seen) is MemoryStore else self.seen.get
        )
        self._seen_add: Callable[[int, int], int | None] = (
            self.seen.table.add if type(self.seen) is MemoryStore and self.seen.file is None else self.seen.add
        )
        self.failed = FailedKeys(failed_path, bits)
        #: Keys whose representative was replaced before it was sent (a shortcut,
        #: a late drop): no request was fetched as written under them.
        self.abandoned: set[int] = set()
        self.reschedule_request = reschedule
        #: Told of a request a response hook settled and ended (an audit answered 304):
        #: no response reaches the spider and no error the middlewares, so the ``JOBDIR``
        #: journal and the Redis queue lease, which settle requests by those, are told here.
        self.request_ended: list[Callable[[Request], None]] = []
        self.ledger = DropLedger(self._reschedule if reschedule is not None else None, self.count)
        self.audits = AuditDesk(self, Auditor(audit_rate))
        self.meter = RedundancyMeter()
        self.shared_rules = shared_rules
        #: Other workers share the seen set: this worker's drop ledger dies with it
        #: (kill -9), and no other worker can release what it holds. So a drop
        #: against a representative still pending holds the queue lease of the
        #: page that yielded it (or its own) until the representative settles
        #: (``ledger.on_hold``): killed meanwhile, that page is fetched again by
        #: another worker and its links with it. A learned drop with no lease
        #: to hold is not made: the request is fetched.
        self.distributed = store is not None and type(store) is not MemoryStore
        self._first_urls: dict[int, str] = {}  # key -> first URL, only with debug
        self._host_pages: dict[str, list[str]] = {}  # host -> recently delivered URLs
        self._pages_kept = 0
        self._closed = False
        self.learner: Learner | None = None
        self.learned: LearnedPolicies | None = None
        #: Set by ``wiring`` when hold-back applies (learning on, no JOBDIR, no shared store).
        self.holdback: HoldBack | None = None
        self.rules_file = RulesFile(rules_path)
        if learn:
            self.learner = Learner(
                min_evidence=min_evidence,
                on_change=lambda rule: self.rule_keeper.changed(rule),
                share=self._share_evidence if shared_rules is not None else None,
            )
            self.learned = LearnedPolicies(policy, self.learner)
            self.rule_keeper = RuleKeeper(self)
            self.rules_file.load(self.learner)

    # -- construction from a crawler -----------------------------------------------------

    _by_crawler: ClassVar[weakref.WeakKeyDictionary[Crawler, Deduplicator]] = weakref.WeakKeyDictionary()

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> Deduplicator:
        """The crawler's one deduplicator, built from its settings on first use."""
        existing = cls._by_crawler.get(crawler)
        if existing is None:
            from .wiring import build_deduplicator

            existing = cls._by_crawler[crawler] = build_deduplicator(cls, crawler)
        return existing

    # -- keys ---------------------------------------------------------------------------

    def normalize(self, url: str) -> tuple[str | None, int]:
        return self.keys.normalize(url)

    def fingerprint(self, request: Request) -> Fingerprint:
        static = self.keys.static(request)
        learned_policies = self.learned
        if (
            learned_policies is not None
            and learned_policies.by_host
            and static.url is not None
            and not request.meta.get("verbatim_url")
        ):
            learned = learned_policies.get(host_of(static.url))
            if learned is not None:
                return self.keys.learned(request, static, *learned)
        return static

    # -- decisions ----------------------------------------------------------------------

    def check(self, request: Request) -> str | None:
        """What the dupe filter asks: ``None`` if ``request`` is to be fetched
        (it is now a representative, or an audit), else the reason it is a duplicate."""
        if self.shared_rules is not None and self.learner is not None:
            self.rule_keeper.adopt_shared()
        fingerprint = self.fingerprint(request)
        self._requests_seen += 1  # counted apart, published with the other counts
        if self._requests_seen >= PUBLISH_EVERY:
            self.publish_counts()
        meta = request.meta
        if self.learner is not None:
            meta[M.RULES_VERSION] = fingerprint.namespace
        source = self._redirect_source(request) if "redirect_urls" in meta else None
        if source is not None and self._is_loop(request):
            self.count("urlnorm/redirect_loops")
            self._fail(source, "loop")
            return self._dropped(request, fingerprint, "redirect_loop", learned=False)
        # The decision, in this one function: it runs for every request.
        value, rank = fingerprint.value, fingerprint.rank
        stored = self._seen_get(value)
        if stored is not None:
            verdict = self._against(request, fingerprint, value, rank if rank > stored else stored, source)
            if verdict is not _ADMIT or M.AUDIT in meta:
                return verdict
        if fingerprint.learned is not None:
            key, stored = self._learned_match(request, fingerprint)
            if stored is not None:
                rank = _learned_rank(fingerprint.learned_rank, stored)
                verdict = self._against(request, fingerprint, key, rank, source, learned=True)
                if verdict is not _ADMIT or M.AUDIT in meta:
                    return verdict
        # A variant of an undecided rule may wait instead of being admitted (see _hold_back).
        if self.holdback is not None and source is None and self._hold_back(request, fingerprint):
            return HELD_BACK
        self._claim(request, fingerprint, source)
        return None

    def _hold_back(self, request: Request, fingerprint: Fingerprint) -> bool:
        url = fingerprint.url
        meta = request.meta
        if url is None or M.AUDIT in meta or meta.get("verbatim_url") or M.SHORTCUT_OF in meta:
            return False
        assert self.holdback is not None
        return self.holdback.hold(request, url, host_of(url))

    def is_pending_url(self, url: str) -> bool:
        """Whether the request admitted for normalized ``url`` is still to settle (holds a claim)."""
        from scrapy import Request

        return self.ledger.is_pending(self.keys.static(Request(url)).value)

    def probe_settled(self, request: Request, url: str | None = None) -> None:
        """``request`` (normalized ``url``, if known) settled or was dropped at download
        time: if it was a hold-back probe, the next variants go. Free when no probe is out."""
        holdback = self.holdback
        if holdback is None or not holdback.testing:
            return
        shortcut_of = request.meta.get(M.SHORTCUT_OF)  # sent in its taught form: the probe was the link
        for normalized in (
            url if url is not None else self.normalize(request.url)[0],
            self.normalize(shortcut_of)[0] if shortcut_of else None,
        ):
            if normalized is not None:
                holdback.settled(normalized)

    def _learned_match(self, request: Request, fingerprint: Fingerprint) -> tuple[int, int | None]:
        """The key a request matches under its host's learned rules, and its stored
        rank: its learned key, or its learned form seen as a URL of its own."""
        assert fingerprint.learned is not None and fingerprint.learned_url is not None
        stored = self.seen.get(fingerprint.learned)
        if stored is not None or fingerprint.learned_url == fingerprint.url:
            return fingerprint.learned, stored
        plain = self.keys.hash(request, fingerprint.learned_url)
        return plain, self.seen.get(plain)

    def _against(
        self,
        request: Request,
        fingerprint: Fingerprint,
        key: int,
        rank: int,
        source: Claim | None,
        *,
        learned: bool = False,
    ) -> str | None:
        """``request`` has the key of an earlier request: drop it, or say why not (``_ADMIT``)."""
        claim = self.ledger._claims.get(key)
        if claim is not None and claim is source:
            # A redirect to its own chain's key (/pubs -> /pubs/): the server just
            # said the first form is not the page. It takes the claim over.
            if not learned or self.seen.get(fingerprint.value) is None:
                self.count("urlnorm/redirects_passed")
            return _ADMIT
        if claim is None and key in self.abandoned:
            return _ADMIT  # its representative was never sent as written
        hold = None
        if claim is not None and self.distributed and rank > 0:
            hold = self._hold(request)
            if hold is None and learned:
                self.count("urlnorm/redis/learned_fetched")  # (see ``distributed``)
                return _ADMIT
        reason = REASONS.get(rank, "exact")
        if rank == 0:
            # The same URL up to what stock Scrapy's fingerprint ignores: stock drops it too.
            if source is not None:
                self._follow(source, claim, key)
            return self._dropped(request, fingerprint, reason, learned=learned)
        if claim is None and key in self.failed:
            return _ADMIT  # its representative did not deliver: this one may
        if learned and claim is None and self._foreign(key):
            self.count("urlnorm/redis/learned_fetched")  # (see ``_foreign``)
            return _ADMIT
        # Only audits and learned drops (parked, revoked, by host) need the host.
        host = host_of(fingerprint.url or "") if learned or claim is None else ""
        if (
            claim is None
            and rank >= SEMANTIC_RANK
            and self.audits.audit_now(request, fingerprint.value, key, reason, host)
        ):
            return _ADMIT
        if not self.ledger.drop(request, reason, host, learned=learned, claim=claim, hold=hold):
            # The ledger is full: fetch rather than drop without a promise, as written.
            request.meta[M.NO_SHORTCUT] = True
            return _ADMIT
        if hold is not None:
            self._take_hold(request, hold)
        if source is not None:
            self._follow(source, claim, key)
        return self._dropped(request, fingerprint, reason, learned=learned, key=key)

    def _dropped(
        self, request: Request, fingerprint: Fingerprint, reason: str, *, learned: bool, key: int | None = None
    ) -> str:
        self._filtered += 1  # urlnorm/filtered and urlnorm/filtered/<reason>, published with the other counts
        by_reason = self._filtered_by_reason
        by_reason[reason] = by_reason.get(reason, 0) + 1
        if self.debug:
            logger.debug(
                "Filtered duplicate %s (reason: %s; same as %s; normalized: %s; referer: %s)",
                request,
                reason,
                self._first_urls.get(key if key is not None else fingerprint.value, "?"),
                fingerprint.learned_url if learned else fingerprint.url,
                referer_str(request),
            )
        return reason

    def _claim(self, request: Request, fingerprint: Fingerprint, source: Claim | None = None) -> Claim:
        """``request`` becomes the representative of its keys."""
        value, learned = fingerprint.value, fingerprint.learned
        self._seen_add(value, fingerprint.rank)
        if learned is None:
            keys: tuple[int, ...] = (value,)
        else:
            self._seen_add(learned, fingerprint.learned_rank)
            keys = (value, learned)
        if self.debug:
            for key in keys:
                self._first_urls.setdefault(key, request.url)
        claim = self.ledger.claim(keys, request.url)
        if source is not None:
            self.ledger.merge(source, claim)
        return claim

    # -- redirects ----------------------------------------------------------------------

    def _redirect_source(self, request: Request) -> Claim | None:
        """The claim of the URL that redirected to ``request``, if it is pending."""
        chain = request.meta.get("redirect_urls")
        if not chain:
            return None
        source = self.fingerprint(request.replace(url=chain[-1]))
        return self.ledger.claim_of(source.value) or self.ledger.claim_of(source.learned)

    @staticmethod
    def _is_loop(request: Request) -> bool:
        """A redirect chain that comes back to a URL it passed: stock's filter stops it there too."""
        url = _defragment(request.url)
        return any(_defragment(previous) == url for previous in request.meta.get("redirect_urls", ()))

    def _follow(self, source: Claim, claim: Claim | None, key: int) -> None:
        """A redirect's target was a duplicate: the source's drops follow its page."""
        if claim is not None:
            self.ledger.merge(source, claim)
        elif key in self.failed:
            self._fail(source, "redirect")
        else:
            self.failed.discard(self.ledger.delivered(source))

    # -- download time ------------------------------------------------------------------

    def recheck(self, request: Request) -> str | None:
        """At download time: check a request queued before its host's learned
        rules last changed against what those rules now merge. Never an audit: it
        is compared with its representative's page whatever the rules became, and
        its URL counts as verified already, so dropped here it would go unverified."""
        checked_under = request.meta.get(M.RULES_VERSION)
        if checked_under is None or not self.learned or M.AUDIT in request.meta:
            return None
        fingerprint = self.fingerprint(request)
        if fingerprint.namespace == checked_under:
            return None
        request.meta[M.RULES_VERSION] = fingerprint.namespace
        if fingerprint.learned is None:
            return None
        own = self.ledger.claim_of(fingerprint.value)
        key, stored = self._learned_match(request, fingerprint)
        claim = self.ledger.claim_of(key)
        if stored is None or (claim is not None and claim is own) or (claim is None and key in self.failed):
            self._claim(request, fingerprint)  # its learned key joins its claim
            return None
        reason = REASONS.get(_learned_rank(fingerprint.learned_rank, stored), "exact")
        dropped = self._drop_late(request, fingerprint, key, reason, claim, own, may_audit=True)
        if dropped is None and M.AUDIT not in request.meta:
            self._claim(request, fingerprint)
        return dropped

    def shortcut_duplicate(self, request: Request, canonical: str) -> str | None:
        """``request`` is about to be sent as ``canonical`` (the form its host's redirects
        taught): the reason to drop it instead when ``canonical`` itself was queued or
        delivered already, else ``None``. A shortcut goes through the filter like any request."""
        key = self.keys.static(request.replace(url=canonical)).value
        if self.seen.get(key) is None:
            return None
        claim = self.ledger.claim_of(key)
        if claim is None and (key in self.failed or key in self.abandoned):
            return None  # its representative did not deliver: this one may
        fingerprint = self.fingerprint(request)
        own = self.ledger.claim_of(fingerprint.value)
        if claim is not None and claim is own:
            return None
        rules = self.learned.shortcut_rules(host_of(fingerprint.url or "")) if self.learned else ()
        reason = f"learned:{rules[0].family.value}" if rules else "learned:shortcut"
        return self._drop_late(request, fingerprint, key, reason, claim, own)

    def _drop_late(
        self,
        request: Request,
        fingerprint: Fingerprint,
        key: int,
        reason: str,
        claim: Claim | None,
        own: Claim | None,
        *,
        may_audit: bool = False,
    ) -> str | None:
        """Drop ``request`` at download time against ``key``'s representative (learned,
        so revocable); ``None`` to fetch it: to verify the drop against a delivered
        representative (the first drops of a rule are checked, as at check time; with
        ``may_audit``, as an audit where that needs no download), or when the ledger is full."""
        hold = None
        if claim is not None and self.distributed:
            hold = self._hold(request)
            if hold is None:
                self.count("urlnorm/redis/learned_fetched")  # (see ``distributed``)
                return None
        elif claim is None and self._foreign(key):
            self.count("urlnorm/redis/learned_fetched")  # (see ``_foreign``)
            return None
        host = host_of(fingerprint.url or "")
        if claim is None and self.audits.verify_late(request, fingerprint.value, key, reason, host):
            cheap = may_audit and not self.distributed and self.delivered_here(key)
            if cheap and self.audits.cheap.may_settle(request, key, reason):
                # Its representative's page tells how to check it without a download (an
                # entity tag, a negotiated file): it goes on as an audit of this drop.
                mark_audit(request.meta, key, reason, host)
                request.dont_filter = True  # (an audit fetched in full after all is not a duplicate)
                self.count("urlnorm/audits_scheduled")
                self._give_up_claim(request, fingerprint, own)
                return None
            # Fetched as written, as an ordinary request: its page goes to the learner,
            # which revokes the rule if it differs from the representative's.
            request.meta[M.NO_SHORTCUT] = True
            return None
        if not self.ledger.drop(request, reason, host, learned=True, claim=claim, hold=hold):
            return None
        if hold is not None:
            self._take_hold(request, hold)
        self.count("urlnorm/late_filtered")
        self._give_up_claim(request, fingerprint, own)
        return self._dropped(request, fingerprint, reason, learned=True, key=key)

    def _give_up_claim(self, request: Request, fingerprint: Fingerprint, own: Claim | None) -> None:
        """``request`` will not deliver its own key's page (dropped, or sent as an audit):
        what was dropped against it is checked again, against the learned key now."""
        if own is not None and own.held_by(request.url):
            self.abandoned.add(fingerprint.value)
            self.ledger.detach(own, fingerprint.value)
            self._fail(own, "dropped")

    def delivered_here(self, key: int) -> bool:
        """Whether a drop against ``key`` can rest on a page this crawl already has: its
        representative is not pending, did not fail, was sent as written and (distributed)
        was this worker's. A drop made outside ``check`` with no claim to wait on needs it."""
        return not (self.ledger.is_pending(key) or key in self.failed or key in self.abandoned or self._foreign(key))

    def _foreign(self, key: int) -> bool:
        """``key`` is another worker's only (a distributed crawl): a learned drop against
        it could rest on a request that worker's filter dropped after claiming its URL,
        so on a page nobody fetches; and that worker's ledger could not release it."""
        if not self.distributed:
            return False
        represented_here = getattr(self.seen, "represented_here", None)
        return represented_here is not None and not represented_here(key)

    def _hold(self, request: Request) -> tuple[str, str] | None:
        """What a drop of ``request`` against a pending representative holds (see
        ``distributed``): its own queue lease (a popped request, or a redirect, which
        carries its source's), else the lease of the page that yielded it."""
        if self.ledger.on_hold is None:
            return None
        meta = request.meta
        lease = meta.get(LEASE)
        if lease is not None:
            return ("ack", lease)
        parent = meta.get(PARENT)
        return None if parent is None else ("settled", parent)

    @staticmethod
    def _take_hold(request: Request, hold: tuple[str, str]) -> None:
        """The drop holds it now: the scheduler and the middlewares must not give it back."""
        request.meta.pop(LEASE if hold[0] == "ack" else PARENT, None)

    def record(self, request: Request) -> None:
        """A request Scrapy never shows the filter (``dont_filter``) is about to be
        fetched: it represents its keys unless they are delivered already."""
        if M.AUDIT in request.meta:
            return  # compared with its representative's page, never one itself
        fingerprint = self.fingerprint(request)
        source = self._redirect_source(request)
        stored = self.seen.get(fingerprint.value)
        if stored is None:
            self.count("urlnorm/recorded_unfiltered")
        elif not (self.ledger.is_pending(fingerprint.value) or fingerprint.value in self.failed or source):
            return
        self._claim(request, fingerprint, source)

    def claim_recovered(self, request: Request) -> None:
        """A request scheduled again after a crash holds its keys again; at
        download time it is checked again under the learned rules."""
        fingerprint = self.fingerprint(request)
        self.ledger.claim(fingerprint.keys, request.url)
        request.meta[M.RULES_VERSION] = -2

    def took_over(self, request: Request, original: str) -> None:
        """``request`` (a shortcut or a rewrite) is sent in place of ``original``:
        it holds the claim, except on ``original``'s own key (that URL is not
        fetched as written), and what was dropped against it now rests on the
        learned rule that made the two equal."""
        key = self.keys.static(request.replace(url=original)).value
        claim = self.ledger.claim_of(key)
        if claim is not None:
            self.ledger.detach(claim, key)
            self.abandoned.add(key)
            claim.hand_over(request.url)
            for drop in claim.drops or ():
                drop.learned = True
        self._claim(request, self.fingerprint(request))

    # -- settling -----------------------------------------------------------------------

    def settle(self, request: Request, *, delivered: bool, why: str = "") -> None:
        """A final response or error for ``request``: settle the claim it holds."""
        if M.AUDIT in request.meta:
            return
        fingerprint = self.fingerprint(request)
        self.probe_settled(request, fingerprint.url)
        claim = self.ledger.claim_of(fingerprint.value) or self.ledger.claim_of(fingerprint.learned)
        if delivered:
            self.failed.discard(fingerprint.keys)
            self.abandoned.difference_update(fingerprint.keys)
            if claim is not None:
                self.audits.audit_drops(claim, fingerprint, request.url)
                self.failed.discard(self.ledger.delivered(claim))
            if self.on_delivered is not None:
                self.on_delivered(request, fingerprint.value)
        elif claim is not None and claim.held_by(request.url):
            self._fail(claim, why)

    def delivered_elsewhere(self, keys: list[int]) -> None:
        """Requests this worker queued were fetched by another worker and delivered
        (static ``keys``): what was dropped against them here is discharged."""
        for key in keys:
            claim = self.ledger.claim_of(key)
            if claim is not None:
                self.count("urlnorm/redis/delivered_elsewhere")
                self.failed.discard(self.ledger.delivered(claim))

    def _fail(self, claim: Claim, why: str) -> None:
        self.ledger.failed(claim, why, mark=self.failed.add)

    def _reschedule(self, request: Request, why: str) -> None:
        assert self.reschedule_request is not None
        request.meta.pop(M.RULES_VERSION, None)
        request.meta.pop("_urlnorm_frontier_parent", None)
        self.reschedule_request(request)

    def release_orphans(self) -> int:
        """At ``spider_idle``: release drops whose representative can no longer settle,
        and the variants hold-back still holds."""
        released = 0
        if self.shared_rules is not None and self.learner is not None:
            # A rule another worker revoked while this one had nothing to check
            # (rules are looked up as requests are): its drops are released now,
            # before this worker may close.
            before = self.ledger.released
            self.rule_keeper.adopt_shared(now=True)
            released += self.ledger.released - before
        released += self.ledger.release_orphans(mark=self.failed.add)
        if self.holdback is not None:
            released += self.holdback.release_all()
        return released

    # -- responses ----------------------------------------------------------------------

    def observe_page(
        self,
        request: Request,
        url: str,
        digest: int,
        *,
        length: int,
        server: str = "",
        canonical: str | None = None,
        tag: str | None = None,
        location: str | None = None,
    ) -> None:
        """A 200 response (entity tag ``tag``, ``Content-Location`` ``location``): count
        it, settle an audit or remember its digest (and tag), feed the learner."""
        host = host_of(url).lower()
        self.meter.page(digest, host)
        tags = self.audits.cheap.tags
        if tags is not None and tag and not tags.observe(host, tag, digest):
            self.count("urlnorm/etags_distrusted")
        if M.AUDIT in request.meta:
            self.audits.settle(request, digest)
        else:
            keys = self.fingerprint(request).keys
            self.audits.auditor.remember(keys, digest)
            if tags is not None and tag:
                tags.remember(keys, tag)
        negotiated = self.audits.cheap.negotiated(url, location, digest) if location else None
        if self.learner is not None:
            self.rule_keeper.observe_page(
                request,
                url,
                digest,
                length=length,
                server=server,
                canonical=canonical,
                location=negotiated[1] if negotiated else None,
            )

    def observe_redirect(self, source: str, target: str) -> None:
        if self.learner is not None:
            self.rule_keeper.observe_redirect(source, target)

    def canonical_url(self, url: str) -> str | None:
        """The form of ``url`` its host's redirects taught (see ``LearnedPolicies.canonical_url``)."""
        return self.learned.canonical_url(url) if self.learned else None

    def shortcut_fell_back(self, original: str) -> None:
        """``original``'s taught form failed: it is fetched as written, no longer parked."""
        if self.learner is not None:
            self.rule_keeper.shortcut_fell_back(original)

    def shortcut_contradicted(self, original: str, sent: str, final: str) -> None:
        """``original`` delivered (at ``final``) where its taught form ``sent`` failed: a rewriting rule is wrong."""
        if self.learner is not None:
            self.rule_keeper.shortcut_contradicted(original, sent, final)

    def park_shortcut_original(self, request: Request, canonical: str) -> bool:
        """A link sent in its taught form is parked as written: a revoked rule fetches
        it after all. ``False`` when the ledger has no room: then it is sent as written."""
        fingerprint = self.fingerprint(request)
        rules = self.learned.shortcut_rules(host_of(fingerprint.url or "")) if self.learned else ()
        reason = f"learned:{rules[0].family.value}" if rules else "learned:shortcut"
        host = host_of(self.normalize(canonical)[0] or "")
        # Under its own claim: when the taught form delivers, the link as
        # written is the drop an audit compares with it.
        claim = self.ledger.claim_of(fingerprint.value) or self.ledger.claim_of(fingerprint.learned)
        return self.ledger.drop(request, reason, host, learned=True, claim=claim)

    # -- learning (see observer.py) -----------------------------------------------------

    def remember_page(self, host: str, url: str) -> None:
        host_pages = self._host_pages
        pages = host_pages.get(host)
        if pages is None:
            if len(host_pages) >= PAGE_HOSTS:
                self._forget_pages(next(iter(host_pages)))
            pages = host_pages[host] = []
        pages.append(url)
        self._pages_kept += 1
        if len(pages) > PAGES_PER_HOST:
            forgotten = len(pages) - PAGES_PER_HOST
            del pages[:forgotten]
            self._pages_kept -= forgotten
            self.count("urlnorm/pages_for_rekeying_forgotten", forgotten)
        while self._pages_kept > PAGES_IN_ALL and len(host_pages) > 1:
            self._forget_pages(next(iter(host_pages)))

    def _forget_pages(self, host: str) -> None:
        forgotten = len(self._host_pages.pop(host))
        self._pages_kept -= forgotten
        self.count("urlnorm/pages_for_rekeying_forgotten", forgotten)

    def pages_of(self, host: str) -> list[str]:
        return self._host_pages.get(host, [])

    def page_hosts(self) -> list[str]:
        return list(self._host_pages)

    def _share_evidence(self, rule: Any, pair: int | None) -> int:
        """Learner hook for distributed crawls (see ``Learner.share``)."""
        return self.rule_keeper.share_evidence(rule, pair)

    # -- figures and lifecycle -----------------------------------------------------------

    def count(self, key: str, count: int = 1) -> None:
        counts = self._counts
        counts[key] = counts.get(key, 0) + count
        self._unpublished += 1
        if self._unpublished >= PUBLISH_EVERY:
            self.publish_counts()

    def publish_counts(self) -> None:
        """Add the counters gathered since the last call to ``crawler.stats``."""
        stats, counts = self.stats, self._counts
        if self._requests_seen:
            counts["urlnorm/requests_seen"] = counts.get("urlnorm/requests_seen", 0) + self._requests_seen
        if self._filtered:
            counts["urlnorm/filtered"] = counts.get("urlnorm/filtered", 0) + self._filtered
            for reason, count in self._filtered_by_reason.items():
                name = _FILTERED_KEYS.get(reason)
                if name is None:
                    name = _FILTERED_KEYS[reason] = f"urlnorm/filtered/{reason}"
                counts[name] = counts.get(name, 0) + count
            self._filtered_by_reason.clear()
        if stats is not None:
            for key, value in counts.items():
                stats.inc_value(key, value)
        counts.clear()
        self._unpublished = self._requests_seen = self._filtered = 0

    def close(self, *args: Any, **kwargs: Any) -> None:
        if self._closed:
            return
        self._closed = True
        self.publish_counts()
        if self.stats is not None:
            for key, value in summary(self).items():
                if key not in ("audits", "audit_mismatches"):  # counted as they happen
                    self.stats.set_value(f"urlnorm/{key}", value)
            for key, value in memory_figures(self).items():
                self.stats.set_value(f"urlnorm/memory/{key}", value)
        if self.learner is not None:
            self.rules_file.save(self.learner)
        if self.shared_rules is not None:
            self.shared_rules.flush()
        self.seen.close()
        self.failed.close()
        if self.shared_rules is not None and self.stats is not None:
            self.rule_keeper.aggregate_stats()

    def clear(self) -> None:
        """Forget every fingerprint (scrapy-redis calls this to reset a crawl)."""
        self.seen.clear()
        self.failed.clear()
        self.abandoned.clear()
        self.ledger.clear()
        self.keys.clear()
        self._first_urls.clear()
        if self.shared_rules is not None:
            self.shared_rules.clear()


_FIRST_LEARNED_RANK = min(LEARNED_RANKS.values())


def _learned_rank(own: int, stored: int) -> int:
    """The rank a learned match is reported and audited under: the learned rule that
    changed this request, when one did (its own spelling is what the rule vouches for:
    ``/status`` matched against a key ``/status/index.html`` stored first is a
    ``trailing_slash`` drop, and is checked under that rule's budget), else the riskier."""
    return own if own >= _FIRST_LEARNED_RANK else max(own, stored)
