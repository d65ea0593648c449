"""The de-duplication engine shared by the dupe filter and the middlewares.

One :class:`Deduplicator` per crawler (:func:`~scrapy_urlnorm.wiring.build_deduplicator`)
holds the crawl's state and wires the units that do the work:

- :class:`~scrapy_urlnorm.admission.Admission`: the check-time decision (fetch,
  drop, hold back) and the claims it makes;
- :class:`~scrapy_urlnorm.keys.RequestKeys`: a request's static and learned keys;
- the seen index (a :class:`~scrapy_urlnorm.stores.SeenStore`) and the
  failed and abandoned :class:`~scrapy_urlnorm.persistence.DurableKeys`;
- the :class:`~scrapy_urlnorm.ledger.DropLedger`: every drop against its representative;
- :class:`~scrapy_urlnorm.late.LateChecks` and
  :class:`~scrapy_urlnorm.shortcut_checks.ShortcutChecks`: drops made at download time;
- :class:`~scrapy_urlnorm.settling.Settlement`: what a final response or error settles,
  and :class:`~scrapy_urlnorm.releases.Releases`: what a failure releases;
- :class:`~scrapy_urlnorm.responses.ResponseFeed`: what pages and redirects teach;
- :class:`~scrapy_urlnorm.hostrules.LearnedPolicies`: what learned rules mean per host;
- the :class:`~scrapy_urlnorm.learning.Learner` (fed by :mod:`scrapy_urlnorm.observer`);
- the :class:`~scrapy_urlnorm.audits.AuditDesk`, the
  :class:`~scrapy_urlnorm.meter.RedundancyMeter` and the
  :class:`~scrapy_urlnorm.counters.Counters`;
- :class:`~scrapy_urlnorm.holds.LeaseHolds`: what a drop holds in a distributed crawl.

The invariant it enforces: a request is dropped only against a
*representative* with the same key that has delivered its page (a final,
non-redirect 2xx response) or is still pending; a drop against a pending one
is written in the ledger and released if it settles without delivering.
Exact duplicates (the same URL up to what stock Scrapy's own fingerprint
ignores) are dropped as stock Scrapy drops them.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.utils.request import fingerprint as default_fingerprint

from . import figures
from .admission import Admission
from .audits import AuditDesk, Auditor
from .counters import Counters
from .holdback import HoldBack
from .holds import LeaseHolds
from .hostrules import LearnedPolicies
from .keys import Fingerprint, RequestKeys, host_of
from .late import LateChecks
from .learning import Learner
from .ledger import DropLedger
from .meter import RedundancyMeter
from .narrow import NarrowKeys
from .observer import RuleKeeper
from .pages import DeliveredPages
from .persistence import DurableKeys, RulesFile
from .releases import Releases
from .responses import ResponseFeed
from .resume import PendingFile
from .robots import ForbiddenSpellings
from .settling import Settlement
from .shortcut_checks import ShortcutChecks
from .stores import MemoryStore, RedisRules, SeenStore
from .unvouched import UnvouchedSweep

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

    from .depths import ClaimDepths
    from .policy import Policy
    from .session_links import SessionLinkedPages
    from .twin_dirs import DirectoryProbes
    from .twins import TwinProbes


class Deduplicator:
    """Fingerprints requests, decides which are duplicates, and keeps every drop's promise."""

    #: The ``spider_idle`` receiver ``wiring`` connects (signals hold receivers weakly).
    idle_handler: Callable[..., None] | None = None
    #: Told each request that delivered its page, with its static key and every key its
    #: claim holds (RedisScheduler tells the worker that queued it, which may hold drops
    #: against it, and marks the keys delivered in Redis, where other workers kept some).
    on_delivered: Callable[[Request, int, tuple[int, ...]], None] | None = None
    #: Told the keys of a claim whose request settled without delivering (distributed:
    #: the other workers release what they dropped against it, see ``ForeignDrops``).
    on_failed: Callable[[tuple[int, ...]], None] | None = None
    #: Told each request that claimed keys, with every key its claim holds (the
    #: crash-safe frontier journals them: recovered after a crash, it claims them again).
    on_claimed: Callable[[Request, tuple[int, ...]], None] | None = None
    #: Told each page a callback reads (a ``200`` to a ``GET``, not an audit), with its
    #: callback's salt (the crash-safe frontier journals it once its request is done).
    on_page: Callable[[Request, int], None] | None = None

    def __init__(
        self,
        policy: Policy,
        *,
        bits: int = 64,
        path: str | Path | None = None,
        failed_path: str | Path | None = None,
        abandoned_path: str | Path | None = None,
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
        self.counters = Counters(stats)
        self.count = self.counters.count
        self.publish_counts = self.counters.publish
        self.keys = RequestKeys(
            policy, bits=bits, fallback=fallback, custom=custom_fingerprinter, cache_size=cache_size, count=self.count
        )
        self.seen: SeenStore = store if store is not None else MemoryStore(bits, path)
        self.failed = DurableKeys(failed_path, bits)
        #: Keys whose representative was replaced before it was sent (a shortcut,
        #: a late drop): no request was fetched as written under them.
        self.abandoned = DurableKeys(abandoned_path, bits)
        self.reschedule_request = reschedule
        #: Told of a request a response hook settled and ended (an audit answered 304):
        #: no response reaches the spider and no error the middlewares, so the ``JOBDIR``
        #: journal and the Redis queue lease, which settle requests by those, are told here.
        self.request_ended: list[Callable[[Request], None]] = []
        #: Told of a page the add-on downloaded for its own question (a directory probe):
        #: it never reaches the engine's ``response_received``, and the crawl log records it.
        self.own_pages: list[Callable[[Response, Request], None]] = []
        self.releases = Releases(self)
        self.fail = self.releases.fail
        self.reschedule_released = self.releases.reschedule
        self.ledger = DropLedger(
            self.reschedule_released if reschedule is not None else None, self.count, identity=self._parking_identity
        )
        self.audits = AuditDesk(self, Auditor(audit_rate))
        self.late = LateChecks(self)
        self.shortcut_checks = ShortcutChecks(self, self.late)
        #: The crawler's own request fingerprint: a URL as stock Scrapy tells URLs apart.
        self.stock_fingerprint: Callable[[Request], bytes] = fallback or default_fingerprint
        self.settling = Settlement(self, self.stock_fingerprint)
        self.responses = ResponseFeed(self)
        self.meter = RedundancyMeter()
        self.shared_rules = shared_rules
        #: Other workers share the seen set (see :mod:`scrapy_urlnorm.holds`).
        self.distributed = store is not None and type(store) is not MemoryStore
        self.holds = LeaseHolds(self.seen, self.ledger, distributed=self.distributed)
        self.pages = DeliveredPages(self.count)
        self._closed = False
        self.learner: Learner | None = None
        #: Audits, at idle, what was dropped where no rule was vouched for (with learning).
        self.unvouched: UnvouchedSweep | None = None
        self.learned: LearnedPolicies | None = None
        #: Which learned rules a drop needs (see :mod:`scrapy_urlnorm.narrow`); with learning.
        self.narrow: NarrowKeys | None = None
        #: Set by ``wiring`` when hold-back applies (learning on, no JOBDIR, no shared store).
        self.holdback: HoldBack | None = None
        #: Set by ``wiring`` when learning and conditional requests are on.
        self.twins: TwinProbes | None = None
        #: Set by ``wiring`` with learning (see :mod:`scrapy_urlnorm.twin_dirs`).
        self.directory_probes: DirectoryProbes | None = None
        #: Set by ``wiring`` with ``DEPTH_LIMIT`` (see :mod:`scrapy_urlnorm.depths`).
        self.depths: ClaimDepths | None = None
        #: Set by ``wiring`` with cookies on (see :mod:`scrapy_urlnorm.session_links`).
        self.session_links: SessionLinkedPages | None = None
        #: Pages a link on which ``robots.txt`` forbade, as the fetched spelling
        #: spelled it: their other spellings are fetched (see ``robots.ForbiddenSpellings``).
        self.forbidden = ForbiddenSpellings(self)
        self.rules_file = RulesFile(rules_path)
        #: Pending claims kept across a clean stop (set by ``wiring`` with ``JOBDIR``).
        self.pending_file = PendingFile(None, self.count)
        if learn:
            self.learner = Learner(
                min_evidence=min_evidence,
                on_change=lambda rule: self.rule_keeper.changed(rule),
                share=self._share_evidence if shared_rules is not None else None,
            )
            self.learned = LearnedPolicies(policy, self.learner)
            self.narrow = NarrowKeys(self.keys, self.learned)
            self.rule_keeper = RuleKeeper(self)
            self.unvouched = UnvouchedSweep(self)
            self.rules_file.load(self.learner)
        self.admission = Admission(self)
        # The decision's entry points, bound once (``check`` runs for every request).
        self.check = self.admission.check
        self.claim = self.admission.claim
        self.dropped = self.admission.dropped
        self.record = self.admission.unfiltered.record
        self.claim_recovered = self.admission.unfiltered.claim_recovered

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

    def _parking_identity(self, request: Request) -> int:
        """Which parked drops are one URL: their key under the static policy (fragment,
        tracking parameters and the like removed; salted by callback), so an audit of
        ``/report.html#top`` finds the drop of ``/report.html`` (seed 76107)."""
        return self.keys.static(request).value

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

    def is_pending_url(self, url: str) -> bool:
        """Whether the request admitted for normalized ``url`` is still to settle (holds a claim)."""
        from scrapy import Request

        return self.ledger.is_pending(self.keys.static(Request(url)).value)

    # -- what a drop may rest on (see also late.py) ------------------------------------

    def delivered_here(self, key: int) -> bool:
        """Whether a drop against ``key`` can rest on a page this crawl already has: its
        representative is not pending, did not fail, was sent as written and (distributed)
        was this worker's or is marked delivered in Redis. A drop made outside ``check``
        with no claim to wait on needs it."""
        return not (
            self.ledger.is_pending(key) or key in self.failed or key in self.abandoned or self.holds.foreign(key)
        )

    def audited_already(self, key: int) -> bool:
        """Whether an audit downloaded the URL whose static key is ``key`` (same callback)
        in full: the spider had its page, and stock fetches a URL once. An audit claims no
        key, so without this a drop a revocation released, or a redirect, fetched it again
        (frameworks seed 570224: ``?replytocom=29``, audited, differed, revoked
        ``ignore_param``, and the release of its own link downloaded it again); checked
        when a request is admitted, and again when it is sent (``LateChecks``). Not where
        depths or ``robots.txt`` copies keep their own books on a key."""
        return self.audits.auditor.downloaded(key) and self.depths is None and not self.forbidden.active

    # -- settling (see settling.py) ---------------------------------------------------

    # -- learning (see observer.py) -----------------------------------------------------

    def restore_pages(self, pages: Iterable[tuple[str, int]]) -> None:
        """Pages the earlier runs of a ``JOBDIR`` crawl delivered and handled completely
        (URL, callback salt), before the requests it recovers claim their keys again."""
        if self.learner is not None:
            self.admission.unfiltered.delivered_before = self.rule_keeper.restore_pages(pages)

    def recovered(self) -> None:
        """The recovered requests have claimed their keys again."""
        self.admission.unfiltered.delivered_before = set()

    def _share_evidence(self, rule: Any, pair: int | None) -> int:
        """Learner hook for distributed crawls (see ``Learner.share``)."""
        return self.rule_keeper.share_evidence(rule, pair)

    # -- figures and lifecycle -----------------------------------------------------------

    def close(self, *args: Any, **kwargs: Any) -> None:
        if self._closed:
            return
        self._closed = True
        self.publish_counts()
        if self.stats is not None:
            figures.publish(self, self.stats)
        if self.learner is not None:
            self.rules_file.save(self.learner)
        if self.shared_rules is not None:
            self.shared_rules.flush()
        self.seen.close()
        self.failed.close()
        self.abandoned.close()
        if self.session_links is not None:
            self.session_links.close()
        if self.depths is not None:
            self.depths.save()
        if self.shared_rules is not None and self.stats is not None:
            self.rule_keeper.aggregate_stats()

    def clear(self) -> None:
        """Forget every fingerprint (scrapy-redis calls this to reset a crawl)."""
        self.seen.clear()
        self.failed.clear()
        self.abandoned.clear()
        self.ledger.clear()
        if self.depths is not None:
            self.depths.clear()
        self.keys.clear()
        if self.narrow is not None:
            self.narrow.clear()
        self.admission.first_urls.clear()
        if self.shared_rules is not None:
            self.shared_rules.clear()
