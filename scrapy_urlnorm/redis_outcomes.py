"""How one worker's ledger follows what becomes of requests in other workers (scrapy-redis).

A drop against a pending representative holds a queue lease until it settles
(see :mod:`scrapy_urlnorm.holds`); a request this worker queued may be fetched by
another worker, which tells it when the page delivered; a request that does not
deliver is told to every worker. :class:`SharedOutcomes` wires those into a
worker's :class:`~scrapy_urlnorm.dedup.Deduplicator` and reads what the other
workers told it (:class:`~scrapy_urlnorm.redis_queue.DropNotices` carries it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .redis_kept import SharedForeignDrops, SharedParkedDrops
from .redis_setup import LEASE
from .stores import RedisStore

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .redis_queue import ReliableQueue


class SharedOutcomes:
    """One worker's side of the outcomes it shares with the others."""

    def __init__(self, queue: ReliableQueue, dedup: Deduplicator) -> None:
        self.queue = queue
        self.notices = queue.notices
        self.dedup = dedup
        dedup.ledger.on_take = self.take
        dedup.ledger.on_hold = self.give_back
        dedup.on_delivered = self.delivered
        dedup.on_failed = self.notices.notify_failed
        store = dedup.seen
        #: Drops against other workers' pages, kept in Redis (see :mod:`~scrapy_urlnorm.redis_kept`).
        self.kept: SharedForeignDrops | None = None
        if dedup.holds.foreign_drops is not None and isinstance(store, RedisStore):
            self.kept = SharedForeignDrops(
                store,
                self.notices.failed_keys,
                queue._encode_request,
                queue._decode_request,
                count=dedup.count,
            )
            dedup.holds.foreign_drops = self.kept
        #: Learned drops parked here, mirrored in Redis (see :class:`SharedParkedDrops`).
        self.parked = SharedParkedDrops(
            queue.server,
            queue.parked,
            queue._encode_request,
            queue._decode_request,
            count=dedup.count,
        )
        dedup.ledger.on_park = self.parked.parked
        queue.roster.on_adopted = self.adopt
        queue.before_ack = self.send_kept

    def take(self, hold: tuple[str, str]) -> None:
        """A drop holds this lease now, until its representative settles."""
        self.notices.hold(hold[1])

    def give_back(self, hold: tuple[str, str]) -> None:
        """A drop that held a lease settled: the lease goes on as if it had not been held."""
        kind, lease = hold
        self.notices.unhold(lease)
        if kind == "ack":
            self.queue.ack(lease)
        else:
            self.queue.settled(lease)
        if self.notices.shared:
            self.notices.share_held()  # (a lease still in flight that no drop holds now counts again)

    def delivered(self, request: Request, key: int, held: tuple[int, ...]) -> None:
        """``request`` (static key ``key``, its claim ``held``) delivered here: tell the worker
        that queued it; mark the keys delivered in Redis (what was kept against them goes)."""
        lease = request.meta.get(LEASE)
        if lease is not None:
            self.notices.notify_delivered(lease, key)
        if self.kept is not None:
            for held_key in held:
                self.kept.delivered(held_key)

    def send_kept(self) -> bool:
        """Write into Redis the drops parked here and those kept against other workers'
        pages (before a lease is acknowledged); of the latter, those whose page failed
        meanwhile are released. False if Redis did not take them."""
        if not self.parked.send():
            return False
        if self.kept is None:
            return True
        released = self.kept.send()
        if released is None:
            return False
        if released:
            failed = self.dedup.failed
            for key, _ in released:
                failed.add((key,))  # so the filter lets the released request through
            self.dedup.settling.release_kept([request for _, request in released])
        return True

    def adopt(self, entries: list[bytes]) -> None:
        """A worker died and this one reclaimed what it held: what it had parked goes
        through this worker's filter again (dropped again, or fetched where its rule
        was revoked since)."""
        for request in self.parked.adopted(entries):
            self.dedup.reschedule_released(request, "adopted")

    def settle(self) -> None:
        """Claims of requests this worker queued and another one delivered: settled as
        delivered. Then what was dropped here against requests that failed anywhere is
        released."""
        settling = self.dedup.settling
        self.send_kept()
        if self.kept is not None:
            self.kept.store.link.send_ranks()  # the pages delivered here, marked for the others
        keys = self.notices.take_delivered()
        if keys:
            settling.delivered_elsewhere(keys)
        theirs, mine = self.notices.take_failed()
        if theirs:
            settling.failed_elsewhere(theirs)
        if mine:
            # This worker's own requests that failed: it settled its ledger then; what
            # any worker (alive or not) kept against them in Redis is released here too.
            settling.release_foreign(mine)
