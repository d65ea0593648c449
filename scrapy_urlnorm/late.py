"""Download-time decisions: what the filter admitted may be a duplicate by the time it is sent.

A request waits in the scheduler while its host's learned rules change, and an audit
or an ordinary request may find its very URL downloaded meanwhile. :class:`LateChecks`
drops such requests at download time, with the same promise as a drop at check time
(see :mod:`scrapy_urlnorm.dedup`): against a representative that delivered or is
pending, written in the ledger, revocable. A link sent in the form its host's
redirects taught (a *shortcut*) is checked in :mod:`scrapy_urlnorm.shortcut_checks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import meta as M
from .audits import as_dropped, mark_audit
from .keys import host_of
from .narrow import learned_drop_rank, learned_match
from .session_links import refetching
from .steps import REASONS

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .keys import Fingerprint
    from .ledger import Claim


class LateChecks:
    """The download-time half of a :class:`~scrapy_urlnorm.dedup.Deduplicator`."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup

    def recheck(self, request: Request) -> str | None:
        """Check a request queued before its host's learned rules last changed
        against what those rules now merge. Never an audit: it is compared with
        its representative's page whatever the rules became, and its URL counts
        as verified already, so dropped here it would go unverified."""
        dedup = self.dedup
        checked_under = request.meta.get(M.RULES_VERSION)
        if checked_under is None or not dedup.learned or M.AUDIT in request.meta:
            return None
        fingerprint = dedup.fingerprint(request)
        if fingerprint.namespace == checked_under:
            return None
        request.meta[M.RULES_VERSION] = fingerprint.namespace
        if fingerprint.learned is None:
            return None
        own = dedup.ledger.claim_of(fingerprint.value)
        key, stored = learned_match(dedup, request, fingerprint)
        claim = dedup.ledger.claim_of(key)
        if stored is None or (claim is not None and claim is own) or (claim is None and key in dedup.failed):
            dedup.claim(request, fingerprint)  # its learned key joins its claim
            return None
        reason = REASONS.get(learned_drop_rank(dedup, request, fingerprint, stored), "exact")
        dropped = self.drop(request, fingerprint, key, reason, claim, own, may_audit=True)
        if dropped is None and M.AUDIT not in request.meta:
            dedup.claim(request, fingerprint)
        return dropped

    def audited_meanwhile(self, request: Request) -> bool:
        """Whether ``request``, an ordinary request about to be sent, is dropped because
        an audit downloaded the page at its very URL (its static key: same callback) in
        full while it waited in the queue: the spider had that page, and stock fetches a
        URL once. The filter drops such a request when the audit answered first
        (``urlnorm/audited_already``); this is the same check where the request was
        admitted while the audit was in flight (differential seed 135834: a link admitted
        on a key its first link had given up to a taught form, while another spelling of
        that URL was audited). What was dropped against it rests on that page. Not for a
        redirect's target (see also ``Deduplicator.audited_already``)."""
        dedup = self.dedup
        if "redirect_urls" in request.meta or not dedup.audits.auditor.any_downloaded():
            return False
        own = dedup.keys.static(request).value
        if not dedup.audited_already(own):
            return False
        claim = dedup.ledger.claim_of(own)
        if claim is not None:
            if not claim.held_by(request.url):
                return False
            dedup.ledger.delivered(claim)
        dedup.count("urlnorm/audited_already")
        return True

    def pending_as_written(self, request: Request) -> bool:
        """Whether ``request``, an audit about to be sent, is dropped because its very URL
        (and callback: its static key) is pending as an ordinary request, which downloads
        the page the audit would, for the spider and the learner, or was delivered as one
        while the audit waited in the queue: the spider has that page, and stock fetches a
        URL once. The audit is kept as an exact drop against that request instead of being
        sent beside it or after it (differential seeds 130658, 570399, at concurrency 16;
        134108: a MultiViews ``/report`` beside ``/report.html``, delivered as itself while
        its audit waited, then downloaded again by the audit). Not where depths or
        ``robots.txt`` copies keep books per key, nor distributed."""
        dedup = self.dedup
        if dedup.depths is not None or dedup.forbidden.active or dedup.distributed:
            return False
        own = dedup.keys.static(request).value
        claim = dedup.ledger.claim_of(own)
        audit = request.meta[M.AUDIT]
        if claim is None:
            return self._delivered_as_written(request, own, audit["host"])
        dropped = as_dropped(request)
        hold = None
        if dedup.holds.active:  # (JOBDIR: the drop is journaled, so a kill -9 does not lose it)
            hold = dedup.holds.hold_for(dropped)
            if hold is None:
                return False
        if not dedup.ledger.drop(dropped, "exact", audit["host"], learned=False, claim=claim, hold=hold):
            return False  # no room to keep its promise: fetched
        if hold is not None:
            dedup.holds.take(request, hold)
        dedup.count("urlnorm/audits_pending_as_written")
        return True

    def _delivered_as_written(self, request: Request, own: int, host: str) -> bool:
        """Whether the audit ``request`` is dropped because the page at its very URL
        (static key ``own``) went to the spider already: delivered to an ordinary request,
        or downloaded by another audit. Whatever that page says of the drop, the learner
        had it then; fetching it again only downloads it twice. Not a static step's drop,
        whose representative's own page is keyed under ``own``."""
        dedup = self.dedup
        if own == request.meta[M.AUDIT]["key"] or not dedup.audits.auditor.had(own):
            return False
        if not dedup.ledger.drop(as_dropped(request), "exact", host, learned=False, claim=None):
            return False  # no room to keep its promise: fetched
        dedup.count("urlnorm/audits_delivered_as_written")
        return True

    def shallower(self, request: Request, key: int) -> bool:
        """Whether ``request`` is kept though ``key``'s page was had: it comes shallower,
        and its page's links may reach below ``DEPTH_LIMIT`` (see :mod:`scrapy_urlnorm.depths`)."""
        depths = self.dedup.depths
        return depths is not None and depths.kept(request, key)

    def drop(
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
        """Drop ``request`` against ``key``'s representative (learned, so revocable);
        ``None`` to fetch it: to verify the drop against a delivered representative
        (the first drops of a rule are checked, as at check time; with ``may_audit``,
        as an audit where that needs no download), or when the ledger is full."""
        dedup = self.dedup
        if self.shallower(request, key):
            dedup.count("urlnorm/depth_refetched")
            return None
        if refetching(request):
            return None  # fetched again for the plain links its page's first answer lacked
        if dedup.forbidden and dedup.forbidden.covers(key, request, host_of(fingerprint.url or "")):
            dedup.count("urlnorm/robots_parent_spellings")  # (see :mod:`scrapy_urlnorm.robots`)
            return None
        hold = None
        if claim is not None and dedup.holds.active:
            hold = dedup.holds.hold_for(request)
            if hold is None and dedup.distributed:
                dedup.count("urlnorm/redis/learned_fetched")  # (see holds.py)
                return None
        elif claim is None and dedup.holds.foreign(key):
            dedup.count("urlnorm/redis/learned_fetched")  # (see ``LeaseHolds.foreign``)
            return None
        host = host_of(fingerprint.url or "")
        if dedup.audits.fetches_redirect_target(request, host, reason, fingerprint.value, key):
            return None
        if claim is None and dedup.audits.verify_late(request, fingerprint.value, key, reason, host):
            cheap = may_audit and not dedup.distributed and dedup.delivered_here(key)
            if cheap and dedup.audits.cheap.may_settle(request, key, reason):
                # Its representative's page tells how to check it without a download (an
                # entity tag, a negotiated file): it goes on as an audit of this drop.
                mark_audit(request.meta, key, reason, host, epoch=dedup.audits.epoch(host))
                request.dont_filter = True  # (an audit fetched in full after all is not a duplicate)
                dedup.count("urlnorm/audits_scheduled")
                self._give_up_claim(request, fingerprint, own)
                return None
            # Fetched as written, as an ordinary request: its page goes to the learner,
            # which revokes the rule if it differs from the representative's.
            request.meta[M.NO_SHORTCUT] = True
            return None
        if not dedup.ledger.drop(request, reason, host, learned=True, claim=claim, hold=hold):
            return None
        if hold is not None:
            dedup.holds.take(request, hold)
        dedup.count("urlnorm/late_filtered")
        self._give_up_claim(request, fingerprint, own)
        return dedup.dropped(request, fingerprint, reason, learned=True, key=key)

    def _give_up_claim(self, request: Request, fingerprint: Fingerprint, own: Claim | None) -> None:
        """``request`` will not deliver its own key's page (dropped, or sent as an audit):
        what was dropped against it is checked again, against the learned key now."""
        if own is not None and own.held_by(request.url):
            dedup = self.dedup
            dedup.abandoned.add((fingerprint.value,))
            dedup.ledger.detach(own, fingerprint.value)
            dedup.fail(own, "dropped")
