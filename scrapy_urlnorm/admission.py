"""Admission: the check-time decision for every request, and the claims it makes.

:meth:`Admission.check` is what the dupe filter asks of each request (a request
Scrapy never shows the filter claims its keys through :mod:`~scrapy_urlnorm.unfiltered`;
redirect chains are :mod:`~scrapy_urlnorm.chains`). It answers with one of three things:

- ``None``: fetch it; the request now *claims* its keys (it is their
  representative, written in the :class:`~scrapy_urlnorm.ledger.DropLedger`), or
  it is an audit;
- a reason: a duplicate, dropped against a representative that has delivered its
  page or is pending (the drop is then written in the ledger and released if the
  representative settles without delivering);
- :data:`HELD_BACK`: a variant of an undecided learned rule, scheduled again later.

The state it reads and writes (the seen index, the ledger, failed and abandoned
keys, the audits, hold-back) belongs to the :class:`~scrapy_urlnorm.dedup.Deduplicator`;
this unit is the decision alone, kept apart so it can be read in one place.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.utils.request import referer_str

from . import meta as M
from .audits import SEMANTIC_RANK
from .callbacks import callback_salt
from .chains import RedirectChains
from .counters import PUBLISH_EVERY
from .keys import host_of
from .narrow import learned_drop_rank, learned_match
from .session_links import refetching
from .steps import REASONS
from .stores import MemoryStore
from .unfiltered import UnfilteredClaims

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request

    from .dedup import Deduplicator
    from .keys import Fingerprint
    from .ledger import Claim

logger = logging.getLogger(__name__)

#: Failed URLs of a key after which its other spellings are fetched, not dropped against a pending one.
FAILURES_BEFORE_FETCHING = 3

_ADMIT = None  # what _against returns when it does not drop

#: What ``check`` answers for a variant held back (not a duplicate: it is scheduled again later).
HELD_BACK = "held_back"


class Admission:
    """Decides, for each request, whether it is fetched, dropped or held back."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup
        self.ledger = dedup.ledger
        self.counters = dedup.counters
        self.count = dedup.count
        self.fingerprint = dedup.fingerprint
        self.forbidden = dedup.forbidden
        seen = dedup.seen
        # The per-request lookup, bound once (the in-memory table's own, without the store's wrapper).
        self._seen_get: Callable[[int], int | None] = seen.table.get if type(seen) is MemoryStore else seen.get
        self._seen_add: Callable[[int, int], int | None] = (
            seen.table.add if type(seen) is MemoryStore and seen.file is None else seen.add
        )
        self.first_urls: dict[int, str] = {}  # key -> first URL, only with debug
        self.chains = RedirectChains(dedup)
        self.unfiltered = UnfilteredClaims(self)

    # -- decisions ----------------------------------------------------------------------

    def check(self, request: Request) -> str | None:
        """What the dupe filter asks: ``None`` if ``request`` is to be fetched
        (it is now a representative, or an audit), else the reason it is a duplicate."""
        if self.dedup.shared_rules is not None and self.dedup.learner is not None:
            self.dedup.rule_keeper.adopt_shared()
        fingerprint = self.fingerprint(request)
        counters = self.counters
        counters.requests_seen += 1  # counted apart, published with the other counts
        if counters.requests_seen >= PUBLISH_EVERY:
            counters.publish()
        meta = request.meta
        if self.dedup.learner is not None:
            meta[M.RULES_VERSION] = fingerprint.namespace
        if "redirect_urls" in meta:
            source = self.chains.source(request)
            hop = self.chains.take_hop(request)
        else:
            source, hop = None, False
        if source is not None and self.chains.is_loop(request):
            self.count("urlnorm/redirect_loops")
            self.chains.fail(source, "loop", request)
            return self.dropped(request, fingerprint, "redirect_loop", learned=False)
        if source is not None and source.drops and self.chains.holds(source, request):
            self.chains.release_rerouted(source, meta["redirect_urls"], request.url)
        # The decision, in this one function: it runs for every request.
        value, rank = fingerprint.value, fingerprint.rank
        stored = self._seen_get(value)
        if stored is not None:
            verdict = self._against(request, fingerprint, value, rank if rank > stored else stored, source, hop)
            if verdict is not _ADMIT or M.AUDIT in meta:
                return verdict
        # Before any learned match: audited again for another rule, the URL was
        # downloaded twice (seed 132140).
        if M.AUDIT not in meta and self.dedup.audited_already(value):
            self._seen_add(value, 0)
            if source is not None:
                self.chains.follow(source, None, value, request)
            self.count("urlnorm/audited_already")
            return self.dropped(request, fingerprint, "exact", learned=False)
        if fingerprint.learned is not None:
            key, stored = learned_match(self.dedup, request, fingerprint)
            if stored is not None:
                rank = learned_drop_rank(self.dedup, request, fingerprint, stored)
                verdict = self._against(request, fingerprint, key, rank, source, hop, learned=True)
                if verdict is not _ADMIT or M.AUDIT in meta:
                    return verdict
        # A variant of an undecided rule may wait instead of being admitted (see holdback.py).
        holdback = self.dedup.holdback
        if holdback is not None and source is None and holdback.holds_request(request, fingerprint.url):
            return HELD_BACK
        self.claim(request, fingerprint, source)
        return None

    def _against(
        self,
        request: Request,
        fingerprint: Fingerprint,
        key: int,
        rank: int,
        source: Claim | None,
        hop: bool = False,
        *,
        learned: bool = False,
    ) -> str | None:
        """``request`` has the key of an earlier request: drop it, or say why not (``_ADMIT``).
        ``hop``: it is the request Scrapy built from a redirect (see ``RedirectChains.take_hop``)."""
        claim = self.ledger._claims.get(key)
        if claim is not None and claim is source and (learned or self.chains.holds(source, request)):
            if self.chains.back_to_failed_form(request) or self.chains.sent_before(key, request):
                self.chains.fail(source, "redirect", request)
                return self.dropped(request, fingerprint, "exact", learned=False)
            # A redirect to its own chain's key (/pubs -> /pubs/): the server just
            # said the first form is not the page. It takes the claim over.
            if not learned or self.dedup.seen.get(fingerprint.value) is None:
                self.count("urlnorm/redirects_passed")
            return _ADMIT
        if (
            claim is None
            and ((source is not None and self.dedup.distributed) or (hop and not self.chains.is_loop(request)))
            and self.chains.returns_to_own_key(request, key)
        ):
            # The chain came back to the key of a URL it passed, and no request holds that
            # key: the page it stands for is this hop's to deliver. Distributed, another worker
            # claimed it and handed it over with its redirect (scrapy-redis queues redirects
            # for any worker, whose cookie jar is its own: ``--redis 2 --cookies``, seed
            # 157800, an ASP.NET session put in the path). In one process, the chain's claim
            # was settled while it ran (its middle hop checked again under a new rule:
            # cookieless ASP.NET, seed 157923). Only a real hop: a child built with its
            # parent's meta carries the same ``redirect_urls``, and fetching those ran away.
            self.count("urlnorm/redirects_passed")
            return _ADMIT
        depths = self.dedup.depths
        if depths is not None and (depths.shallower(request, key) or depths.below_own_page(request, fingerprint.value)):
            if not request.meta.get(M.SHALLOWER):
                request.meta[M.SHALLOWER] = True
                self.count("urlnorm/depth_refetched")  # its page's links may reach below DEPTH_LIMIT
            return _ADMIT
        if claim is None and key in self.dedup.abandoned:
            return _ADMIT  # its representative was never sent as written
        if learned and self.forbidden and self.forbidden.covers(key, request, host_of(fingerprint.url or "")):
            self.count("urlnorm/robots_parent_spellings")  # its links may be allowed as it spells them
            return _ADMIT
        hold = None
        if claim is not None and rank > 0 and self.dedup.holds.active:
            hold = self.dedup.holds.hold_for(request)
            if hold is None and learned and self.dedup.distributed:
                self.count("urlnorm/redis/learned_fetched")  # (see holds.py)
                return _ADMIT
        if claim is None and rank and self.chains.sent_before(key, request):
            rank = 0  # what a representative that did not deliver sent already: stock drops it too
        reason = REASONS.get(rank, "exact")
        session_links = self.dedup.session_links
        # Not a redirect to the very URL (``rank`` 0 with a ``source``): stock drops it too.
        if claim is None and session_links is not None and (rank or source is None):
            if refetching(request):
                return _ADMIT  # (checked again under its host's learned key)
            if session_links.refetch(key, request):
                # Its links were spelled for a cookieless client. The same URL too: stock met
                # its plain links through a spelling the add-on dropped (``h:80/x``, whose
                # relative links spell ``h:80/...``; seeds 165309, 165318).
                self.count("urlnorm/session_links_refetched")
                return _ADMIT
        if rank == 0:
            if source is not None and claim is None and self.dedup.distributed and self.dedup.holds.foreign(key):
                # A redirect to a URL another worker claimed and is not known to have
                # delivered: it may have died before queueing it (a start request's
                # redirect holds no lease), and this chain's drops would rest on nothing
                # (``--redis 2 --kills 1``, seed 152907). Fetched: a duplicate costs a request.
                self.count("urlnorm/redis/redirects_fetched")
                return _ADMIT
            # The same URL up to what stock Scrapy's fingerprint ignores: stock drops it too.
            if source is not None:
                self.chains.follow(source, claim, key, request)
            if self.forbidden.active:
                self.forbidden.copy_dropped(key, request, pending=claim is not None)
            return self.dropped(request, fingerprint, reason, learned=learned)
        if claim is None and key in self.dedup.failed:
            return _ADMIT  # its representative did not deliver: this one may
        if claim is not None and self.dedup.settling.sent.failures(key) >= FAILURES_BEFORE_FETCHING:
            # Spellings of the key kept failing (a session in every link to a missing page):
            # each is fetched as stock fetches it. Dropped against the next pending spelling,
            # every drop was released at each failure and dropped again, a filter pass per
            # drop per failure (random seed 173830, ``--flaky --sessions --mixed``: hundreds
            # of ``/setup/?u=<session>`` answering 404, the crawl slowed to a timeout).
            self.count("urlnorm/failing_key_fetched")
            return _ADMIT
        if learned and claim is None and self.dedup.holds.foreign(key):
            self.count("urlnorm/redis/learned_fetched")  # (see ``LeaseHolds.foreign``)
            return _ADMIT
        # Only audits and learned drops (parked, revoked, by host) need the host.
        host = host_of(fingerprint.url or "") if learned or claim is None else ""
        if (
            learned
            and source is not None
            and self.dedup.audits.fetches_redirect_target(request, host, reason, fingerprint.value, key)
        ):
            return _ADMIT
        if (
            claim is None
            and rank >= SEMANTIC_RANK
            and self.dedup.audits.audit_now(request, fingerprint.value, key, reason, host)
        ):
            return _ADMIT
        if claim is None and not learned and self.dedup.distributed and self.dedup.holds.foreign(key):
            # Another worker's page, which may not deliver: kept, released if a worker says so.
            foreign = self.dedup.holds.foreign_drops
            if foreign is None or not foreign.keep(key, request):
                self.count("urlnorm/redis/foreign_fetched")
                return _ADMIT
        if claim is not None and hold is None and source is None and claim.repeats(request):
            return self.dropped(request, fingerprint, reason, learned=learned, key=key)
        if not self.ledger.drop(request, reason, host, learned=learned, claim=claim, hold=hold):
            # The ledger is full: fetch rather than drop without a promise, as written.
            request.meta[M.NO_SHORTCUT] = True
            return _ADMIT
        if hold is not None:
            self.dedup.holds.take(request, hold)
        if source is not None:
            self.chains.follow(source, claim, key, request)
        if not learned and self.forbidden.active:
            self.forbidden.port_spelling_dropped(key, request)  # (h:80 has a robots.txt of its own)
        return self.dropped(request, fingerprint, reason, learned=learned, key=key)

    def dropped(
        self, request: Request, fingerprint: Fingerprint, reason: str, *, learned: bool, key: int | None = None
    ) -> str:
        self.counters.filtered_as(reason)
        if self.dedup.debug:
            logger.debug(
                "Filtered duplicate %s (reason: %s; same as %s; normalized: %s; referer: %s)",
                request,
                reason,
                self.first_urls.get(key if key is not None else fingerprint.value, "?"),
                fingerprint.learned_url if learned else fingerprint.url,
                referer_str(request),
            )
        return reason

    def claim(self, request: Request, fingerprint: Fingerprint, source: Claim | None = None) -> Claim:
        """``request`` becomes the representative of its keys."""
        value, learned = fingerprint.value, fingerprint.learned
        keys: tuple[int, ...] = (value,) if learned is None else (value, learned)
        if self.dedup.depths is not None:
            # Before the seen set hears of them: a distributed one stores the depth too.
            self.dedup.depths.claimed(request, keys)
        new = self._seen_add(value, fingerprint.rank) is None
        if new and request.callback is not None:
            salt = callback_salt(request)
            if salt and self._seen_get(value ^ salt) is not None:
                self.count("urlnorm/callbacks_kept_apart")  # (see :mod:`scrapy_urlnorm.callbacks`)
        if learned is not None:
            self._seen_add(learned, fingerprint.learned_rank)
        if self.dedup.debug:
            for key in keys:
                self.first_urls.setdefault(key, request.url)
        claim = self.ledger.claim(keys, request.url)
        if source is not None:
            self.ledger.merge(source, claim)
        if self.dedup.on_claimed is not None:
            self.dedup.on_claimed(request, claim.keys)
        return claim
