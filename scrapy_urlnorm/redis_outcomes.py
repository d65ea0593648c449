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

from .redis_setup import LEASE

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

    def delivered(self, request: Request, key: int) -> None:
        """``request`` (static key ``key``) delivered here: tell the worker that queued it."""
        lease = request.meta.get(LEASE)
        if lease is not None:
            self.notices.notify_delivered(lease, key)

    def settle(self) -> None:
        """Claims of requests this worker queued and another one delivered: settled as
        delivered. Then what was dropped here against requests that failed anywhere is
        released."""
        settling = self.dedup.settling
        keys = self.notices.take_delivered()
        if keys:
            settling.delivered_elsewhere(keys)
        keys = self.notices.take_failed()
        if keys:
            settling.failed_elsewhere(keys)
