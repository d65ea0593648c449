"""The crawl's workers in Redis: this worker's heartbeat, and what dead workers left.

Each worker keeps ``<key>:alive:<worker>`` alive (``URLNORM_REDIS_LEASE``
seconds) and is a member of ``<key>:workers``; when a worker's heartbeat
expires, any other worker moves what it held (``<key>:processing:<worker>``)
back into the shared queue and takes what it parked (``<key>:parked:<worker>``,
see :class:`~scrapy_urlnorm.redis_kept.SharedParkedDrops`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from .redis_queue import DropNotices

logger = logging.getLogger(__name__)

# Move a dead worker's processing list back to the shared queue (next to be popped);
# returns how many, and takes what it parked (KEYS[6], see redis_kept.SharedParkedDrops).
_RECLAIM = """
if redis.call('EXISTS', KEYS[3]) == 1 then return {-1} end
local n = 0
while true do
  local v = redis.call('RPOP', KEYS[2])
  if not v then break end
  redis.call('RPUSH', KEYS[1], '!' .. v)
  n = n + 1
end
local parked = redis.call('HVALS', KEYS[6])
redis.call('DEL', KEYS[6])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[5])
return {n, parked}
"""


class Roster:
    """This worker's heartbeat, and the leases and parked drops of workers that died."""

    def __init__(
        self,
        server: Any,
        key: str,
        worker: str,
        lease: float,
        notices: DropNotices,
        count: Callable[[str, int], None],
    ) -> None:
        self.server = server
        self.key = key
        self.worker = worker
        self.lease = lease
        self._count = count  # (the crawler's stats)
        self.notices = notices
        self._lease_ms = max(int(lease * 1000), 100)  # how long this worker's keys outlive a beat
        self.alive = f"{key}:alive:{worker}"
        self.workers = f"{key}:workers"
        #: Told what a dead worker parked, when this worker reclaims what it held.
        self.on_adopted: Callable[[list[bytes]], None] | None = None
        self._reclaim = server.register_script(_RECLAIM)

    def beat(self) -> None:
        """This worker is alive: its heartbeat, and how many of its leases only wait on drops."""
        held = self.notices.held_count()
        pipe = self.server.pipeline(transaction=False)
        pipe.sadd(self.workers, self.worker)
        pipe.set(self.alive, b"1", px=self._lease_ms)
        pipe.set(self.notices.held_key, held, px=self._lease_ms)
        pipe.execute()
        self.notices.shared = held

    def reclaim(self) -> int:
        """Move back into the queue what dead workers held; how many requests."""
        total = 0
        for member in self.server.smembers(self.workers):
            worker = member.decode()
            if worker == self.worker:
                continue
            answer = self._reclaim(
                keys=[
                    self.key,
                    f"{self.key}:processing:{worker}",
                    f"{self.key}:alive:{worker}",
                    self.workers,
                    f"{self.key}:held:{worker}",
                    f"{self.key}:parked:{worker}",
                ],
                args=[worker],
            )
            moved = int(answer[0])
            if len(answer) > 1 and answer[1] and self.on_adopted is not None:
                self.on_adopted(answer[1])
            if moved > 0:
                logger.warning(
                    "Worker %s stopped renewing its lease (%.1f s): %d request(s) it held are queued again",
                    worker,
                    self.lease,
                    moved,
                )
                self._count("urlnorm/redis/reclaimed", moved)
                total += moved
        return total

    def others_pending(self) -> int:
        """Requests other workers hold (alive or not yet reclaimed), but those
        that only wait on a drop's representative (see :meth:`DropNotices.hold`)."""
        members = [m.decode() for m in self.server.smembers(self.workers)]
        others = [w for w in members if w != self.worker]
        if not others:
            return 0
        pipe = self.server.pipeline(transaction=False)
        for worker in others:
            pipe.llen(f"{self.key}:processing:{worker}")
            pipe.get(f"{self.key}:held:{worker}")
        answers = pipe.execute()
        return sum(max(int(n) - int(held or 0), 0) for n, held in zip(answers[::2], answers[1::2], strict=True))
