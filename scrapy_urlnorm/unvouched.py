"""At ``spider_idle``, audit the learned drops still not vouched for where they are.

A learned rule's drop is trusted where the rule has held (its pairs or audits matched
there: :mod:`scrapy_urlnorm.vouching`); elsewhere it is audited, within a budget per
place (``AUDITS_PER_SCOPE`` URLs, ``FOLDER_BUDGETS`` folders per rule, ``MAX_SCOPES``
places in all). The budget keeps the first drops of a page from being fetched all at
once; but a drop made once it was spent went unaudited, trusted where nothing had shown
the rule holding: past 256 folders of one site, past 10,000 places, or in a folder whose
five audits had gone to other spellings (community seed 663, session 59). When the crawl
falls idle nothing is in flight, and what a burst would have cost is one audit per
place, which the audits' gate (``AuditGate``) stops sending once the place is vouched
for: so every parked drop still not vouched for is audited then, once, unless its
place's own budget went to audits that found the rule holding there (two or more:
``AuditChoice.confirmed_place``, which pairs cannot show on a large site, whose early
pages ``PagePairs`` no longer remembers). Each drop is
looked at once (a sweep costs what the drops parked since cost, not the whole ledger
again) and audited once (:data:`MAX_SWEPT` at most: past it, counted and left parked), never a link of
a confirmed audit (its page is its representative's), never with audits off
(``URLNORM_AUDIT_RATE = 0``); so the sweep cannot feed on itself: its audits' links are
such links, and a URL is audited once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .audit_choice import UNTIL_VOUCHED
from .audits import asked

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .ledger import Drop

#: Drops the sweep audits in a crawl at most (beyond: left parked, ``urlnorm/idle_audits_overflow``).
MAX_SWEPT = 100_000

logger = logging.getLogger(__name__)


class UnvouchedSweep:
    """Finds the parked learned drops not vouched for, and sends each as an audit."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup
        self._swept: set[int] = set()

    def sweep(self) -> int:
        """Schedule an audit of each parked drop still not vouched for; how many."""
        dedup = self.dedup
        desk = dedup.audits
        if dedup.reschedule_request is None or dedup.learned is None or not desk.auditor.rate:
            return 0
        found = [hit for drop in list(dedup.ledger.parked_drops()) if (hit := self._unvouched(drop)) is not None]
        for drop, request, key, reason in found:
            logger.debug("Auditing %s at idle: %s had not held where it is", request.url, reason)
            desk.send_drop(drop, request, key, reason, UNTIL_VOUCHED)
        if found:
            dedup.count("urlnorm/idle_audits", len(found))
        return len(found)

    def _unvouched(self, drop: Drop) -> tuple[Drop, Request, int, str] | None:
        """``drop``, its request, its representative's key and its reason, if it is to be audited."""
        if drop.settled or drop.swept or not drop.learned:
            return None
        drop.swept = True  # (vouched for or not, it stays so while parked: a retraction releases it)
        dedup = self.dedup
        desk = dedup.audits
        choice, auditor = desk.choice, desk.auditor
        request = drop.request
        if "redirect_urls" in request.meta or choice.inherited(request):
            return None
        reason = drop.reason
        if dedup.narrow is not None:
            reason = dedup.narrow.reason(request, drop.host, reason)  # (as the host's rules are now)
        if not reason.startswith("learned:") or choice.verifies_every(drop.host, reason):
            return None
        fingerprint = dedup.fingerprint(request)
        key = next((key for key in fingerprint.keys if auditor.digest(key) is not None), fingerprint.value)
        own = dedup.keys.static(request).value
        if dedup.audited_already(own):
            return None
        question = asked(own, key)
        if question in self._swept or not choice.unvouched(request, key, reason, drop.host):
            return None
        if choice.confirmed_place(drop.host, reason, request.url, key):
            return None  # (its place's own audits found the rule holding: as its pairs would have)
        if desk.answers.answered_before(request, own, key, reason):
            return None
        if len(self._swept) >= MAX_SWEPT:
            dedup.count("urlnorm/idle_audits_overflow")
            return None
        self._swept.add(question)
        return drop, request, key, reason

    def sizes(self) -> dict[str, int]:
        return {"idle_audit_marks": len(self._swept)}
