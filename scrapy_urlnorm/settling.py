"""Settling what the filter admitted: a final response or error keeps or releases its drops."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import meta as M

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request

    from .dedup import Deduplicator
    from .keys import Fingerprint
    from .ledger import Claim


#: Failed keys whose sent requests are remembered (beyond: exact copies are fetched, as before).
MAX_SENT_KEYS = 100_000


class SentAlready:
    """What the representatives that did not deliver sent, by key: stock fingerprints
    (the crawler's fingerprinter) of each such request and of the URLs its redirects
    passed. Stock Scrapy fetches a URL once, so a request of a failed key that was
    sent already as written is an exact duplicate (:meth:`before`), not a new
    representative: without this, every copy of a link to a page that keeps failing
    (``/docs`` redirecting to a ``robots.txt``-forbidden ``/docs/``) would be fetched
    in turn. Kept only while the key has failed (a delivery forgets it), and
    bounded: beyond :data:`MAX_SENT_KEYS`, such copies are fetched."""

    def __init__(self, fingerprint: Callable[[Request], bytes]) -> None:
        self.fingerprint = fingerprint
        self._by_key: dict[int, set[bytes]] = {}

    def record(self, keys: tuple[int, ...], request: Request) -> Callable[[Request], bool]:
        """``request`` failed holding ``keys``: remember what it sent; whether a request is one of those."""
        fingerprint = self.fingerprint
        sent = {
            fingerprint(request),
            *(fingerprint(request.replace(url=hop)) for hop in request.meta.get("redirect_urls", ())),
        }
        for key in keys:
            known = self._by_key.get(key)
            if known is not None:
                known |= sent
            elif len(self._by_key) < MAX_SENT_KEYS:
                self._by_key[key] = set(sent)
        return lambda other: fingerprint(other) in sent

    def before(self, key: int, request: Request) -> bool:
        """Whether ``request`` is what a failed representative of ``key`` sent already."""
        known = self._by_key.get(key)
        return known is not None and self.fingerprint(request) in known

    def failures(self, key: int) -> int:
        """How many URLs the failed representatives of ``key`` sent (since it last delivered)."""
        known = self._by_key.get(key)
        return len(known) if known is not None else 0

    def forget(self, keys: tuple[int, ...]) -> None:
        for key in keys:
            self._by_key.pop(key, None)

    def __len__(self) -> int:
        return len(self._by_key)


class Settlement:
    """How the requests a :class:`~scrapy_urlnorm.dedup.Deduplicator` admitted end.

    A representative that delivers discharges the drops written against it (after
    their audits); one that fails releases them (``DropLedger.failed``); at
    ``spider_idle``, drops whose representative can no longer settle are released."""

    def __init__(self, dedup: Deduplicator, stock_fingerprint: Callable[[Request], bytes]) -> None:
        self.dedup = dedup
        self.sent = SentAlready(stock_fingerprint)

    def settle(self, request: Request, *, delivered: bool, why: str = "") -> None:
        """A final response or error for ``request``: settle the claim it holds."""
        if M.AUDIT in request.meta:
            return
        dedup = self.dedup
        ledger = dedup.ledger
        fingerprint = dedup.fingerprint(request)
        self.probe_settled(request, fingerprint.url)
        claim = ledger.claim_of(fingerprint.value) or ledger.claim_of(fingerprint.learned)
        held = fingerprint.keys if claim is None else (*fingerprint.keys, *claim.keys)
        if dedup.forbidden.active:
            dedup.forbidden.settled(held, delivered=delivered)
        if delivered:
            if fingerprint.learned is not None and request.meta.get(M.RULES_VERSION) != fingerprint.namespace:
                self._rekey(fingerprint)
            self.forget_failures(fingerprint.keys)
            dedup.abandoned.discard(fingerprint.keys)
            if dedup.depths is not None:
                dedup.depths.delivered(request, held)
            if claim is not None:
                if dedup.session_links is not None and claim.drops:
                    self._refetch_session_linked(request, claim, held)
                key = fingerprint.learned if fingerprint.learned is not None else fingerprint.value
                dedup.audits.audit_drops(claim, fingerprint.value, key, request.url, rep=request.url)
                self.forget_failures(ledger.delivered(claim))
            if dedup.on_delivered is not None:
                dedup.on_delivered(request, fingerprint.value, held)
        else:
            holds = claim is not None and claim.held_by(request.url)
            if holds or any(key in dedup.failed for key in fingerprint.keys):  # (a key failing, or failed)
                keys = fingerprint.keys if claim is None else (*fingerprint.keys, *claim.keys)
                sent = self.sent.record(keys, request)
                # Sent as written now: no longer a key nothing fetched (``abandoned``), so a
                # later link to the failing URL is the duplicate stock drops, not fetched again.
                dedup.abandoned.discard((fingerprint.value,))
                if claim is not None and holds:
                    dedup.fail(claim, why, sent)

    def _refetch_session_linked(self, request: Request, claim: Claim, keys: tuple[int, ...]) -> None:
        """``request`` delivered a page whose links carry the session its answer opened:
        one spelling dropped against it is fetched after all, with the cookie now (see
        :mod:`scrapy_urlnorm.session_links`)."""
        dedup = self.dedup
        assert dedup.session_links is not None
        waiting = [drop for drop in claim.drops or () if not drop.settled]
        # Another spelling first; else the URL itself, linked again (see ``session_links``).
        other = next((drop for drop in waiting if drop.url != request.url), waiting[0] if waiting else None)
        if other is not None and dedup.session_links.refetch(keys):
            dedup.count("urlnorm/session_links_refetched")
            dedup.ledger.release_as_written([other], "session_links")

    def _rekey(self, fingerprint: Fingerprint) -> None:
        """A page delivered by a request checked under older rules (in flight, or
        past its download-time check, when its host's rules changed): its learned
        key under the rules now is stored, as ``RuleKeeper.changed`` stores those of
        the pages delivered before the change, so its variants are found."""
        dedup = self.dedup
        assert fingerprint.learned is not None
        if dedup.seen.add(fingerprint.learned, fingerprint.learned_rank) is None:
            dedup.count("urlnorm/pages_keyed_on_delivery")
            dedup.audits.alias(fingerprint.value, fingerprint.learned)

    def forget_failures(self, keys: tuple[int, ...]) -> None:
        """``keys`` delivered after all: they are failed no more, nor is what was sent for them kept."""
        self.dedup.failed.discard(keys)
        self.sent.forget(keys)

    def probe_settled(self, request: Request, url: str | None = None) -> None:
        """``request`` (normalized ``url``, if known) settled or was dropped at download
        time: if it was a hold-back probe, the next variants go. Free when no probe is out."""
        holdback = self.dedup.holdback
        if holdback is None or not holdback.testing:
            return
        normalize = self.dedup.normalize
        shortcut_of = request.meta.get(M.SHORTCUT_OF)  # sent in its taught form: the probe was the link
        for normalized in (
            url if url is not None else normalize(request.url)[0],
            normalize(shortcut_of)[0] if shortcut_of else None,
        ):
            if normalized is not None:
                holdback.settled(normalized)

    def delivered_elsewhere(self, keys: list[int]) -> None:
        """Requests this worker queued were fetched by another worker and delivered
        (static ``keys``): what was dropped against them here is discharged, but for
        the drops every one of which is verified, fetched (see ``AuditDesk.audit_drops``)."""
        dedup = self.dedup
        for key in keys:
            claim = dedup.ledger.claim_of(key)
            if claim is not None:
                dedup.count("urlnorm/redis/delivered_elsewhere")
                dedup.audits.audit_drops(claim, key, key, None)
                self.forget_failures(dedup.ledger.delivered(claim))

    def failed_elsewhere(self, keys: list[int]) -> None:
        """Requests other workers fetched settled without delivering (``keys``, read from
        Redis): what this worker dropped against them is released, the static
        steps' drops against another worker's page (``ForeignDrops``) and its own claims'
        drops, where this worker queued the request. Their keys are failed here too, so
        what is released, or comes later, is not dropped against them again."""
        dedup = self.dedup
        ledger = dedup.ledger
        for key in keys:
            dedup.failed.add((key,))
            claim = ledger.claim_of(key)
            if claim is not None:
                ledger.failed(claim, "failed_elsewhere", mark=dedup.failed.add)
        self.release_foreign(keys)

    def release_foreign(self, keys: list[int] | tuple[int, ...]) -> None:
        """Requests ``keys`` settled without delivering: what was dropped against them as
        other workers' pages (by this worker, or kept in Redis by any) is released."""
        foreign = self.dedup.holds.foreign_drops
        if foreign is not None:
            self.release_kept(foreign.take(keys))

    def release_kept(self, requests: list[Request]) -> None:
        """Release drops kept against other workers' pages that did not deliver."""
        dedup = self.dedup
        for request in requests:
            dedup.ledger.released += 1
            dedup.count("urlnorm/released/failed_elsewhere")
            dedup.reschedule_released(request, "failed_elsewhere")

    def release_orphans(self) -> int:
        """At ``spider_idle``: release drops whose representative can no longer settle,
        and the variants hold-back still holds."""
        dedup = self.dedup
        ledger = dedup.ledger
        released = 0
        if dedup.shared_rules is not None and dedup.learner is not None:
            # A rule another worker revoked while this one had nothing to check
            # (rules are looked up as requests are): its drops are released now,
            # before this worker may close.
            before = ledger.released
            dedup.rule_keeper.adopt_shared(now=True)
            released += ledger.released - before
        released += ledger.release_orphans(mark=dedup.failed.add)
        if dedup.holdback is not None:
            released += dedup.holdback.release_all()
        return released
