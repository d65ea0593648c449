"""The drop ledger: every drop is a promise that another request delivers the page.

A request is dropped only against a *representative*: the request that holds
the same key and has delivered its page (a final, non-redirect 2xx response)
or is still pending. A pending representative holds a :class:`Claim` on its
keys; each drop made against it is written under that claim. When the claim
settles:

- *delivered*: the drops are discharged (drops made by learned rules stay
  parked under their host, so a revoked rule can still release them);
- *not delivered* (an error status, a download error, an ignored or offsite
  request, a redirect nobody followed, a request dropped itself): everything
  dropped against it is released, that is scheduled again, once.

A redirect passes its claim to its target (:meth:`DropLedger.merge`): the
target's page is the one the source's drops were promised. At ``spider_idle``
no claim can still be pending (nothing is in flight), so whatever is left is
released before the spider may close (:meth:`DropLedger.release_orphans`).

The ledger is bounded: when it is full, :meth:`DropLedger.drop` says no and
the caller fetches the request instead. A duplicate costs one request; a lost
page costs the user's data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy import Request

#: Drops held at once (waiting on pending claims, plus learned drops parked for revocation).
MAX_DROPS = 100_000
#: Learned drops parked per host for revocation.
MAX_PARKED_PER_HOST = 2_000


class Drop:
    """One request dropped against a claim (or parked under a learned rule)."""

    __slots__ = ("host", "learned", "reason", "request", "settled")

    def __init__(self, request: Request, reason: str, host: str, learned: bool) -> None:
        self.request = request
        self.reason = reason
        self.host = host
        self.learned = learned
        #: True once released or discharged for good: never released twice.
        self.settled = False


class Claim:
    """The keys a pending representative holds, and what was dropped against it.

    One exists per request in flight or queued, so it is kept small: the
    holder is the hash of its URL (``hash(str)`` is cached by the string),
    ``drops`` is made on the first drop.
    """

    __slots__ = ("drops", "holder", "keys", "settled")

    def __init__(self, keys: tuple[int, ...], holder: str) -> None:
        self.keys = keys
        #: hash() of the URL of the request that holds the claim now (a redirect target takes it over).
        self.holder = hash(holder)
        self.drops: list[Drop] | None = None
        self.settled = False

    def held_by(self, url: str) -> bool:
        return self.holder == hash(url)

    def hand_over(self, url: str) -> None:
        self.holder = hash(url)


class DropLedger:
    """Claims of pending representatives and the drops written under them.

    ``reschedule(request, why)`` sends a released request back to the
    scheduler; ``count(key, n)`` counts into the crawl's stats.
    """

    def __init__(
        self,
        reschedule: Callable[[Request, str], None] | None,
        count: Callable[[str, int], None],
        *,
        max_drops: int | None = None,
        max_parked_per_host: int | None = None,
    ) -> None:
        self._reschedule = reschedule
        self._count = count
        self.max_drops = MAX_DROPS if max_drops is None else max_drops
        self.max_parked_per_host = MAX_PARKED_PER_HOST if max_parked_per_host is None else max_parked_per_host
        self._claims: dict[int, Claim] = {}
        self._peak = 0  # the most claims held since the dict was last rebuilt
        # host -> URL hash -> learned drop, for revocation (one per URL: releasing
        # one link of a URL releases its page; its repeats are duplicates of it).
        self._parked: dict[str, dict[int, Drop]] = {}
        self.held = 0  # drops waiting on a claim or parked
        self.released = 0

    # -- claims ---------------------------------------------------------------------

    def claim(self, keys: Iterable[int], holder: str) -> Claim:
        """A representative takes ``keys`` (a key already claimed joins that claim)."""
        claims = self._claims
        keys = tuple(keys)
        claim = Claim(keys, holder)
        if any(key in claims for key in keys):
            claim.keys = ()
            for key in keys:
                old = claims.get(key)
                if old is not None and old is not claim:
                    self.merge(old, claim)
                else:
                    claims[key] = claim
                    claim.keys += (key,)
        else:
            for key in keys:
                claims[key] = claim
        if len(claims) > self._peak:
            self._peak = len(claims)
        return claim

    def claim_of(self, key: int | None) -> Claim | None:
        return None if key is None else self._claims.get(key)

    def is_pending(self, key: int | None) -> bool:
        return key is not None and key in self._claims

    def merge(self, source: Claim, target: Claim) -> None:
        """``source``'s representative redirected to ``target``'s: one fate for both."""
        if source is target:
            return
        for key in source.keys:
            self._claims[key] = target
        target.keys += source.keys
        if source.drops:
            if target.drops is None:
                target.drops = []
            target.drops.extend(source.drops)
        source.keys, source.drops, source.settled = (), None, True

    def detach(self, claim: Claim, key: int) -> None:
        """``key`` no longer belongs to ``claim``."""
        if self._claims.get(key) is claim:
            del self._claims[key]
        claim.keys = tuple(k for k in claim.keys if k != key)

    def delivered(self, claim: Claim) -> tuple[int, ...]:
        """The representative delivered its page: discharge its drops; its keys are returned."""
        keys = self._close(claim)
        for drop in claim.drops or ():
            if drop.learned and not drop.settled:
                self._park(drop)
            elif not drop.settled:
                drop.settled = True
                self.held -= 1
        claim.drops = None
        return keys

    def failed(self, claim: Claim, why: str) -> tuple[int, ...]:
        """The representative settled without delivering: release its drops; its keys are returned."""
        keys = self._close(claim)
        drops, claim.drops = claim.drops or (), None
        for drop in drops:
            self._release(drop, why)
        return keys

    def _close(self, claim: Claim) -> tuple[int, ...]:
        claim.settled = True
        claims = self._claims
        for key in claim.keys:
            if claims.get(key) is claim:
                del claims[key]
        keys, claim.keys = claim.keys, ()
        if self._peak > 4096 and len(claims) * 8 < self._peak:
            # A dict never shrinks by itself: after a burst of pending
            # requests has settled, give the memory back.
            self._claims = dict(claims)
            self._peak = len(claims)
        return keys

    # -- drops ---------------------------------------------------------------------

    def drop(self, request: Request, reason: str, host: str, *, learned: bool, claim: Claim | None) -> bool:
        """Write a drop against ``claim`` (``None``: against a delivered page, kept
        only when ``learned``, so a revoked rule can release it). False when a
        drop against a pending claim does not fit: fetch instead.

        A learned drop against a delivered page that does not fit is still a
        drop: its page was delivered, only the insurance against a later
        revocation is lost (``urlnorm/parked_overflow``). Fetching it instead
        would fetch a page the crawl has, whose links repeat the overflow."""
        if claim is None and not learned:
            return True  # against a delivered page: nothing to keep
        entry = Drop(request, reason, host, learned)
        if claim is None:
            if self.held >= self.max_drops:
                self._count("urlnorm/parked_overflow", 1)
            else:
                self._park(entry, counted=False)
            return True
        if self.held >= self.max_drops:
            self._count("urlnorm/ledger_full", 1)
            return False
        else:
            if claim.drops is None:
                claim.drops = []
            claim.drops.append(entry)
        self.held += 1
        return True

    def _park(self, drop: Drop, *, counted: bool = True) -> bool:
        """Keep a learned drop whose page was delivered; False if it is not kept
        (``counted``: it was held, and is settled for good now)."""
        parked = self._parked.setdefault(drop.host, {})
        url = hash(drop.request.url)
        if url in parked and not parked[url].settled:
            if counted:
                drop.settled = True
                self.held -= 1
            return True
        if len(parked) >= self.max_parked_per_host:
            for key in [key for key, entry in parked.items() if entry.settled]:
                del parked[key]
            if len(parked) >= self.max_parked_per_host:
                self._count("urlnorm/parked_overflow", 1)
                if counted:  # already dropped: the rule is trusted for it from here on
                    drop.settled = True
                    self.held -= 1
                return False
        parked[url] = drop
        if not counted:
            self.held += 1
        return True

    def revoke_host(self, host: str) -> int:
        """A learned rule of ``host`` was revoked: release what learned rules dropped there."""
        # Collect first, release after: a released request goes back through the
        # filter and may be dropped again (under the host's other rules) into the
        # very lists walked here; walking them while they grow never ends.
        revoked = [drop for drop in self._parked.pop(host, {}).values() if not drop.settled]
        for claim in self._distinct_claims():
            if not claim.drops:
                continue
            kept = []
            for drop in claim.drops:
                if drop.learned and drop.host == host and not drop.settled:
                    revoked.append(drop)
                else:
                    kept.append(drop)
            claim.drops = kept
        for drop in revoked:
            self._release(drop, "revoked")
        return len(revoked)

    def discharge(self, drop: Drop) -> None:
        """``drop``'s request is being fetched after all (an audit): it needs no promise."""
        if not drop.settled:
            drop.settled = True
            self.held -= 1

    def forget_request(self, host: str, url: str) -> None:
        """``url`` is being fetched as written after all: do not release it again."""
        drop = self._parked.get(host, {}).get(hash(url))
        if drop is not None:
            self.discharge(drop)
        for claim in self._distinct_claims():
            for drop in claim.drops or ():
                if drop.request.url == url:
                    self.discharge(drop)

    def _distinct_claims(self) -> list[Claim]:
        return list({id(claim): claim for claim in self._claims.values()}.values())

    def release_orphans(self) -> int:
        """At ``spider_idle`` nothing is in flight: no pending claim can settle
        any more. Release what was dropped against them."""
        released = 0
        for claim in self._distinct_claims():
            released += sum(1 for drop in claim.drops or () if not drop.settled)
            self.failed(claim, "idle")
        return released

    def _release(self, drop: Drop, why: str) -> None:
        if drop.settled:
            return
        drop.settled = True
        self.held -= 1
        self.released += 1
        self._count(f"urlnorm/released/{why}", 1)
        if self._reschedule is not None:
            self._reschedule(drop.request, why)

    # -- figures --------------------------------------------------------------------

    def unsettled(self) -> int:
        """Drops still waiting on a pending claim."""
        return sum(1 for claim in self._distinct_claims() for drop in claim.drops or () if not drop.settled)

    def pending_claims(self) -> int:
        return len(self._distinct_claims())

    def parked(self) -> int:
        return sum(1 for drops in self._parked.values() for drop in drops.values() if not drop.settled)

    def clear(self) -> None:
        self._claims.clear()
        self._parked.clear()
        self.held = 0
