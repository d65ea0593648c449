"""What an audit's held redirect says of its drop.

An audit is sent with ``dont_redirect``: where its redirect points is the answer.
It *agrees* when the target is the representative (its key), or the audited URL
itself under today's rules; it *leaves the question open* when the target matches
the representative only through a rule verified on every drop (the very rule the
audit checks) or where the representative redirected too, to a URL the rules merge
with the target. Anything else contradicts the drop. The
:class:`~scrapy_urlnorm.audits.AuditDesk` counts and settles; this unit decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .keys import host_of
from .learning import VERIFIED_FAMILIES

if TYPE_CHECKING:
    from scrapy import Request

    from .audits import Auditor
    from .dedup import Deduplicator
    from .keys import Fingerprint


class RedirectVerdicts:
    """Whether an audit's redirect agrees with its drop, or leaves it open."""

    def __init__(self, dedup: Deduplicator, auditor: Auditor) -> None:
        self.dedup = dedup
        self.auditor = auditor

    def left_open(self, request: Request, key: int, target: str) -> bool:
        """Whether ``request``'s redirect to ``target``, which does not agree with its drop
        against ``key``, neither contradicts it: see the module's docstring."""
        return self._matches_unproven(request, key, target) or self._redirected_alike(request, key, target)

    def agrees(self, request: Request, key: int, target: str) -> bool:
        """Whether ``request`` redirecting to ``target`` confirms its drop against ``key``:
        ``target`` has the representative's key, or (when a rule change on the host has
        since renamed learned keys) a key of the audited URL under today's rules. Through
        a learned key only where that match rests on no rule verified on every drop (see
        :meth:`_rests_on_exceptions`): that rule is what the audit is there to check."""
        fingerprint = self.dedup.fingerprint
        aimed = fingerprint(request.replace(url=target))
        own = fingerprint(request).keys
        if key == aimed.value or aimed.value in own:
            return True
        if aimed.learned is None or (key != aimed.learned and aimed.learned not in own):
            return False
        return not self._rests_on_exceptions(request, aimed)

    def _matches_unproven(self, request: Request, key: int, target: str) -> bool:
        """Whether ``target`` shares a learned key with ``request``'s drop, but only through
        a rule family verified on every drop (:data:`~scrapy_urlnorm.learning.VERIFIED_FAMILIES`)."""
        fingerprint = self.dedup.fingerprint
        aimed = fingerprint(request.replace(url=target))
        if aimed.learned is None or (key != aimed.learned and aimed.learned not in fingerprint(request).keys):
            return False
        return self._rests_on_exceptions(request, aimed)

    def _rests_on_exceptions(self, request: Request, aimed: Fingerprint) -> bool:
        """Whether the learned key of ``aimed`` (a redirect target of the audit ``request``)
        may rest on a rule of :data:`~scrapy_urlnorm.learning.VERIFIED_FAMILIES` (its host
        has one active) while nothing else says its page was had: its URL as it is (same
        callback) delivered, or its key under the host's other rules naming a delivered page."""
        learner, url = self.dedup.learner, aimed.url
        if learner is None or url is None:
            return False
        host = host_of(url)
        if not any(rule.family.value in VERIFIED_FAMILIES for rule in learner.active_rules(learner.site_of(host))):
            return False
        if self.auditor.had(aimed.value):
            return False
        narrow = self.dedup.narrow
        return narrow is None or not narrow.names_delivered(request.replace(url=url), host)

    def _redirected_alike(self, request: Request, key: int, target: str) -> bool:
        """Whether ``key``'s representative redirected to a URL sharing a key with ``target``."""
        elsewhere = self.auditor.redirect_of(key)
        if elsewhere is None:
            return False
        fingerprint = self.dedup.fingerprint
        theirs = fingerprint(request.replace(url=elsewhere)).keys
        return not set(theirs).isdisjoint(fingerprint(request.replace(url=target)).keys)
