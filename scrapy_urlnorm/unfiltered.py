"""Claims of requests the dupe filter never checks: ``dont_filter`` requests about
to be fetched, and the requests a crash-safe ``JOBDIR`` crawl schedules again.

Neither is asked :meth:`~scrapy_urlnorm.admission.Admission.check`, yet each
represents its keys: what is dropped against those keys later must find a
claim that will settle, or the drop would rest on nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import meta as M

if TYPE_CHECKING:
    from scrapy import Request

    from .admission import Admission


class UnfilteredClaims:
    """Claims made outside the check: by ``dont_filter`` requests and recovered ones."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self.dedup = admission.dedup
        self.ledger = admission.ledger
        #: While a crash-safe resume claims again: the learned keys, under the rules now, of
        #: pages the earlier runs delivered and handled completely (``restore_pages``).
        self.delivered_before: set[int] = set()

    def record(self, request: Request) -> None:
        """A request Scrapy never shows the filter (``dont_filter``) is about to be
        fetched: it represents its keys unless they are delivered already. A key
        given up to a taught form (*abandoned*: that link was not to be fetched as
        written) is taken back by the link fetched as written after all: a spelling
        of it released meanwhile is dropped against this fetch, not sent beside it
        (differential seed 135615: ``/feed?sid=1`` fell back from ``/feed/?sid=1``,
        revoked ``trailing_slash``, and ``/feed?sid=1#main`` was downloaded too)."""
        if M.AUDIT in request.meta:
            return  # compared with its representative's page, never one itself
        dedup = self.dedup
        fingerprint = dedup.fingerprint(request)
        source = self.admission.chains.source(request)
        value = fingerprint.value
        stored = dedup.seen.get(value)
        if stored is None:
            dedup.count("urlnorm/recorded_unfiltered")
        elif M.AS_WRITTEN in request.meta and self.ledger.is_pending(value):
            # Released to be fetched beside its pending representative, which keeps the
            # claim: taken over here, the redirect of this spelling to that page passed
            # as the claim's own, and the queued representative downloaded it again
            # (differential seed 138092: /help;jsessionid=X, released rerouted, -> /help/).
            return
        elif not (self.ledger.is_pending(value) or value in dedup.failed or value in dedup.abandoned or source):
            return
        self.admission.claim(request, fingerprint, source)

    def claim_recovered(self, request: Request, journaled: tuple[int, ...] = ()) -> None:
        """A request scheduled again after a crash holds its keys again: those of
        the rules now, and those its claim held before (``journaled``), keys under
        rules since revoked among them, which the seen set kept and the rules may
        come back to. At download time it is checked again under the learned rules.
        An audit claims nothing: it is compared with its representative's page, never
        one itself (see :meth:`record`). Claiming, it held its representative's key
        (a learned key is theirs) for nobody to settle: what was dropped against it
        waited for ``spider_idle`` and was released then (~45 links per resume in
        ``tests/test_no_loss.py``'s kill test)."""
        if M.AUDIT in request.meta:
            return
        dedup = self.dedup
        fingerprint = dedup.fingerprint(request)
        keys = fingerprint.keys
        if journaled:
            # A key the rules now give it that another recovered request holds is not
            # taken: taken, it would merge the two claims into one, and neither would
            # be checked against the other at download time (two spellings queued apart
            # in the killed run, both fetched); left, the check drops the later one. A
            # learned key it takes is recorded as a claim at check time records it, so
            # that check finds it. A learned key seen and claimed by nobody is taken too:
            # after a crash that is no proof its page was delivered (a claim a redirect
            # merged into another is not journaled with it), and dropped against it, a
            # recovered request was lost (differential seed 129146, one run in three).
            # Unless a page the journal says was delivered and handled completely has that
            # key: then the check at download time drops it against that page, as in one
            # run (without this, both runs of the kill test downloaded ~25 pages again).
            ledger, delivered = self.ledger, self.delivered_before
            taken = tuple(
                key for key in keys if key not in journaled and not ledger.is_pending(key) and key not in delivered
            )
            if fingerprint.learned is not None and fingerprint.learned in taken:
                dedup.seen.add(fingerprint.learned, fingerprint.learned_rank)
            keys = journaled + taken
        claim = self.ledger.claim(keys, request.url)
        if dedup.on_claimed is not None and claim.keys != journaled:
            # Journaled too, as any claim is: killed again, the next run must know these
            # keys for its own (seed 106093 after two kills: /guides claimed its learned
            # key under the rules of the first resume, the rules changed back to them in
            # the second, and /guides met that key, claimed by nobody, as a delivered page).
            dedup.on_claimed(request, claim.keys)
        request.meta[M.RULES_VERSION] = -2
