"""What a representative's failure releases: its drops marked, abandoned or sent again.

Split from :class:`~scrapy_urlnorm.dedup.Deduplicator`, which binds :meth:`Releases.fail`
and :meth:`Releases.reschedule` as its ``fail`` and ``reschedule_released``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from . import meta as M

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request

    from .dedup import Deduplicator
    from .ledger import Claim

logger = logging.getLogger(__name__)


class Releases:
    """Releases what a claim that settled without delivering held."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup

    def fail(self, claim: Claim, why: str, sent: Callable[[Request], bool] | None = None) -> None:
        """``claim``'s representative settled without delivering (``sent``: whether a drop
        is what it sent already, not to be fetched again; see ``Settlement.sent``)."""
        dedup = self.dedup
        self._abandon_unsent(claim, sent)
        keys = dedup.ledger.failed(claim, why, mark=dedup.failed.add, sent=sent)
        if dedup.on_failed is not None and keys:
            dedup.on_failed(keys)

    def _abandon_unsent(self, claim: Claim, sent: Callable[[Request], bool] | None) -> None:
        """Mark abandoned the static key of each drop of ``claim`` that the claim holds and
        that was never sent as written: a link parked while its taught form went in its
        place (or any request the claim stood for in another form). Released, it meets its
        own key, failed; without the mark it was dropped as an exact duplicate of itself, a
        URL stock fetches (coincidence seed 3589 with ``URLNORM_CONDITIONAL_AUDITS =
        False``: ``www.h/shop/``, another virtual host, sent as its taught form ``h/shop/``,
        which redirected to a page that had failed; the link was lost)."""
        if not claim.drops:
            return
        held = set(claim.keys)
        static = self.dedup.keys.static
        for drop in claim.drops:
            if drop.settled or (sent is not None and sent(drop.request)):
                continue
            own = static(drop.request).value
            if own in held:
                self.dedup.abandoned.add((own,))

    def reschedule(self, request: Request, why: str) -> None:
        """Send a released drop through the filter again."""
        dedup = self.dedup
        assert dedup.reschedule_request is not None
        if dedup.debug:  # (URLNORM_DEBUG: every drop is logged, so is every release)
            logger.debug("Released %s (%s): it goes through the filter again", request, why)
        # A copy, never the object dropped: a drop made at download time raised for that
        # object, and Scrapy's downloader and engine keep requests in flight in sets, so
        # the same object sent again while that exception still unwinds (its representative
        # failed meanwhile) is removed from them by the first attempt, and the second
        # attempt's response never reaches the spider (Django, real servers: ``/article/?id=1``).
        request = request.replace()
        request.meta.pop(M.RULES_VERSION, None)
        request.meta.pop("_urlnorm_frontier_parent", None)
        dedup.reschedule_request(request)
