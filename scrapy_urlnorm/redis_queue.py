"""A shared request queue on Redis that loses nothing: leases, acknowledgements, a local spill.

:class:`ReliableQueue` is a scrapy-redis queue class (``SCHEDULER_QUEUE_CLASS``):
a pop moves the request atomically (``LMOVE``) from the shared list into this
worker's *processing* list, and it stays there until the request is done
(its response went through the spider, or it failed for good, or its
redirect or retry was queued in its place). Each worker keeps a heartbeat
key alive (``URLNORM_REDIS_LEASE`` seconds); when a worker dies (``kill -9``,
a lost machine), its heartbeat expires and any other worker moves what it
held back into the shared queue. At-least-once: a request a dead worker was
processing is fetched again.

:class:`RedisScheduler` is scrapy-redis' scheduler, plus:

- a request the dupe filter admitted is never lost when Redis does not take
  it: it goes to a local *spill* (in memory, mirrored in ``JOBDIR`` when set,
  bounded by ``URLNORM_REDIS_SPILL_LIMIT``: at the limit the engine pauses)
  and is pushed when Redis answers again, *before* the fingerprints kept
  meanwhile are written to Redis;
- an outage never ends the crawl (the scheduler reports pending requests
  while Redis is away), nor does a worker finish while another worker still
  holds leases;
- the crawl's state wiped from Redis stops the worker loudly with the finish
  reason ``urlnorm_redis_state_lost`` (see :class:`~scrapy_urlnorm.stores.RedisStore`).
"""

from __future__ import annotations

import functools
import logging
import os
import pickle
import struct
import zlib
from collections import Counter, deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.utils.job import job_dir
from scrapy_redis.queue import Base
from scrapy_redis.scheduler import Scheduler
from twisted.internet import task

from .redis_batch import request_keys, unfilter_reclaimed
from .redis_outcomes import SharedOutcomes
from .redis_roster import Roster
from .redis_setup import FOREIGN, LEASE, PARENT, RECLAIMED, RECLAIMED_CHAIN
from .stores import RedisStore, without_retries

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

STATE_LOST = "urlnorm_redis_state_lost"
SPILL_FILE = "urlnorm.redis-spill"
_WORKER = 12  # hex digits of a worker id: who queued an entry, at its start
_ID = _WORKER + 16  # hex digits of a lease id (the worker's id, then a random part)

# Move entries of this worker's processing list back to the queue (next to be popped).
_RECOVER = """
local n = 0
for _, v in ipairs(ARGV) do
  if redis.call('LREM', KEYS[2], 1, v) == 1 then
    redis.call('RPUSH', KEYS[1], v)
    n = n + 1
  end
end
return n
"""


#: What serializing a request for Redis raises when it cannot be (not a Redis failure).
UNSERIALIZABLE = (ValueError, TypeError, AttributeError, pickle.PicklingError)


def _count(spider: Spider | None, name: str, value: int = 1) -> None:
    stats = getattr(getattr(spider, "crawler", None), "stats", None)
    if stats is not None:
        stats.inc_value(name, value)


class DropNotices:
    """What a worker's drops make it tell the other workers through Redis.

    A drop against a representative still pending holds the lease of the page
    that yielded it until the representative settles: killed meanwhile, the
    worker leaves that page to be fetched again, its links with it. Such a
    lease waits on this worker going idle at worst (what is still pending then
    is released), so it must not keep other workers from going idle
    themselves: each would wait for the other. They count it out, reading
    ``<key>:held:<worker>``.

    A worker that queued a request holds its claim, and what it dropped against
    it waits on its page; another worker may pop and fetch it. Told that the page
    delivered (``<key>:delivered:<worker>``), the first worker settles that claim
    as delivered; not told, it releases those drops when it goes idle (fetched
    after all: a duplicate).

    A request that settles without delivering is told to every worker (the list
    ``<key>:failed``, read from where each worker last read it; its key is added to
    the set ``<key>:failed:keys`` in the same transaction): what they dropped
    against it is released (see :mod:`~scrapy_urlnorm.redis_kept`).
    """

    def __init__(self, server: Any, key: str, worker: str, lease: float, inflight: dict[str, bytes]) -> None:
        self.server = server
        self.key = key
        self.lease = lease
        self.lease_ms = max(int(lease * 1000), 100)  # how long the held count outlives a beat
        self.held_key = f"{key}:held:{worker}"
        self.inbox = f"{key}:delivered:{worker}"
        self.failed_key = f"{key}:failed"
        self.failed_keys = f"{key}:failed:keys"
        self._failed_read = 0  # entries of failed_key read so far
        self._failed_unsent: list[str] = []  # not taken by Redis yet: sent with the next call
        self.worker = worker
        self._inflight = inflight  # the queue's: lease id -> entry
        self.holding: Counter[str] = Counter()  # lease id -> drops holding it
        self.shared = 0  # the count last written to held_key

    def hold(self, lease: str) -> None:
        self.holding[lease] += 1

    def unhold(self, lease: str) -> None:
        left = self.holding[lease] - 1
        if left > 0:
            self.holding[lease] = left
        else:
            del self.holding[lease]

    def held_count(self) -> int:
        """Leases in flight that only wait on drops."""
        return sum(1 for lease in self.holding if lease in self._inflight)

    def share_held(self) -> None:
        """Write how many leases only wait on drops, if it changed (others read it before going idle)."""
        held = self.held_count()
        if held != self.shared:
            self.server.set(self.held_key, held, px=self.lease_ms)
            self.shared = held

    def notify_delivered(self, lease: str, key: int) -> None:
        """The request of ``lease`` delivered its page (static key ``key``): tell the worker that queued it."""
        origin = lease[:_WORKER]
        if origin == self.worker:
            return
        inbox = f"{self.key}:delivered:{origin}"
        try:
            pipe = self.server.pipeline(transaction=False)
            pipe.rpush(inbox, f"{key:x}")
            pipe.expire(inbox, max(int(self.lease * 20), 60))  # a dead worker's inbox goes
            pipe.execute()
        except Exception as exc:  # not told: it releases at idle (a duplicate, no loss)
            logger.debug("Could not tell worker %s a page delivered: %s", origin, exc)

    def notify_failed(self, keys: tuple[int, ...]) -> None:
        """A request this worker fetched settled without delivering (its claim's ``keys``): tell every worker."""
        self._failed_unsent.extend(f"{self.worker}:{key:x}" for key in keys)
        self._send_failed()

    def _send_failed(self) -> None:
        if not self._failed_unsent:
            return
        try:
            pipe = self.server.pipeline(transaction=True)
            pipe.sadd(self.failed_keys, *(entry.partition(":")[2] for entry in self._failed_unsent))
            pipe.rpush(self.failed_key, *self._failed_unsent)
            pipe.execute()
        except Exception as exc:  # sent again with the next call: a release late, not lost
            logger.debug("Could not tell the other workers a request failed: %s", exc)
            return
        self._failed_unsent.clear()

    def take_failed(self) -> tuple[list[int], list[int]]:
        """Keys of requests that settled without delivering since the last call: those
        other workers fetched, and this worker's own (it settled its ledger when they
        failed; what was kept against them in Redis is to be released still)."""
        self._send_failed()
        entries = self.server.lrange(self.failed_key, self._failed_read, -1)
        self._failed_read += len(entries)
        mine = self.worker.encode()
        theirs: list[int] = []
        own: list[int] = []
        for worker, _, key in (entry.partition(b":") for entry in entries):
            (own if worker == mine else theirs).append(int(key, 16))
        return theirs, own

    def take_delivered(self) -> list[int]:
        """Keys of requests this worker queued that another worker delivered since the last call."""
        pipe = self.server.pipeline(transaction=True)
        pipe.lrange(self.inbox, 0, -1)
        pipe.delete(self.inbox)
        return [int(entry, 16) for entry in pipe.execute()[0]]


class ReliableQueue(Base):
    """FIFO queue with leases (``SCHEDULER_QUEUE_CLASS = "scrapy_urlnorm.redis_queue.ReliableQueue"``).

    Keys: ``<key>`` the shared list; ``<key>:processing:<worker>`` what each
    worker holds; ``<key>:alive:<worker>`` its heartbeat (expires after the
    lease); ``<key>:held:<worker>`` how many of its leases only wait on a
    drop's representative and ``<key>:delivered:<worker>`` the requests it
    queued that another worker fetched and that delivered (see
    :class:`DropNotices`); ``<key>:parked:<worker>`` the learned drops it
    parked (taken by the worker that reclaims what it held, see
    :class:`~scrapy_urlnorm.redis_kept.SharedParkedDrops`); ``<key>:workers``
    the set of workers. Request
    priorities are ignored, as in scrapy-redis' ``FifoQueue``.
    """

    def __init__(self, server: Any, spider: Spider, key: str, serializer: Any = None) -> None:
        super().__init__(without_retries(server), spider, key, serializer)
        settings = spider.crawler.settings
        self.lease = settings.getfloat("URLNORM_REDIS_LEASE", 30.0)
        self.worker = os.urandom(6).hex()
        self.processing = f"{self.key}:processing:{self.worker}"
        self.parked = f"{self.key}:parked:{self.worker}"
        self.inflight: dict[str, bytes] = {}  # lease id -> the entry in the processing list
        self.notices = DropNotices(self.server, self.key, self.worker, self.lease, self.inflight)
        stats = functools.partial(_count, spider)
        self.roster = Roster(self.server, self.key, self.worker, self.lease, self.notices, stats)
        self.alive, self.workers = self.roster.alive, self.roster.workers
        self.outstanding: dict[str, int] = {}  # lease id -> what its callback yielded, not settled yet
        self._unacked: list[bytes] = []  # acknowledgements Redis did not take yet
        #: Called before a lease is acknowledged (what a drop made under it keeps in Redis
        #: goes first: ``SharedOutcomes.send_kept``); False: not acknowledged yet.
        self.before_ack: Callable[[], bool] | None = None
        self._recover = self.server.register_script(_RECOVER)
        self.stopped = False
        self.roster.beat()
        self._heartbeat = task.LoopingCall(self._tick)
        self._heartbeat.start(max(self.lease / 3, 0.1), now=False)

    # -- leases -------------------------------------------------------------------

    def _tick(self) -> None:
        try:
            self.roster.beat()
            if self._unacked and (self.before_ack is None or self.before_ack()):
                pipe = self.server.pipeline(transaction=False)
                for entry in self._unacked:
                    pipe.lrem(self.processing, 1, entry)
                pipe.execute()
                self._unacked.clear()
            self.reclaim()
        except Exception as exc:  # Redis away: the scheduler reports it
            logger.debug("Heartbeat to Redis failed: %s", exc)

    def reclaim(self) -> int:
        """Move back into the queue what dead workers held; how many requests."""
        return self.roster.reclaim()

    def others_pending(self) -> int:
        """Requests other workers hold (see :meth:`Roster.others_pending`)."""
        return self.roster.others_pending()

    def recover_own(self) -> int:
        """Move back into the queue the entries of this worker's processing list
        it does not hold: popped by a command whose reply never came (the entry
        moved, the request never reached this worker). How many requests."""
        held = Counter(self.server.lrange(self.processing, 0, -1))
        held.subtract(self.inflight.values())
        held.subtract(self._unacked)
        stranded = [entry for entry, n in held.items() for _ in range(n)]
        if not stranded:
            return 0
        moved = int(self._recover(keys=[self.key, self.processing], args=stranded))
        if moved:
            logger.warning("%d request(s) popped without an answer from Redis are queued again", moved)
        return moved

    def expect(self, lease: str, count: int) -> None:
        """The response of ``lease`` yielded ``count`` requests and items: it is
        done when each is queued (or filtered) or through the pipelines."""
        if count <= 0:
            self.ack(lease)
        else:
            self.outstanding[lease] = self.outstanding.get(lease, 0) + count

    def settled(self, lease: str | None) -> None:
        """One of what ``lease``'s response yielded is queued or through the pipelines."""
        if lease is None or lease not in self.outstanding:
            return
        left = self.outstanding[lease] - 1
        if left > 0:
            self.outstanding[lease] = left
        else:
            del self.outstanding[lease]
            self.ack(lease)

    def ack(self, lease: str | None) -> None:
        """The request of this lease is done: drop it from the processing list."""
        entry = self.inflight.pop(lease, None) if lease else None
        if entry is None:
            return
        if self.before_ack is not None and not self.before_ack():
            self._unacked.append(entry)
        else:
            notices = self.notices
            held = notices.held_count() if notices.shared else 0
            try:
                if held == notices.shared:
                    self.server.lrem(self.processing, 1, entry)
                else:
                    # The lease left its count of leases that only wait on drops, in the same
                    # transaction: a count left higher than what the processing list holds made
                    # another worker count this one's other leases out, and go idle before a
                    # killed worker's request was reclaimed (seed 169620).
                    pipe = self.server.pipeline(transaction=True)
                    pipe.lrem(self.processing, 1, entry)
                    pipe.set(notices.held_key, held, px=notices.lease_ms)
                    pipe.execute()
                    notices.shared = held
            except Exception:
                self._unacked.append(entry)
        _count(self.spider, "urlnorm/redis/acked")

    def ack_ended(self) -> int:
        """For a worker with nothing in its downloader or scraper: acknowledge every lease
        it holds but those drops hold. A request can end where no middleware sees it (an
        exception in a downloader middleware's ``process_response``: ``RedirectMiddleware``'s
        "max redirections reached", ending a ``dont_filter`` redirect loop), and its lease
        stayed: each idle worker waited on the other's until ``CLOSESPIDER_TIMEOUT``
        (``bench_differential.py --redis 2 --kills 1``, seed 146611: the links of a
        reclaimed page go unfiltered, ``/ping1`` among them)."""
        ended = [lease for lease in self.inflight if lease not in self.notices.holding]
        for lease in ended:
            self.ack(lease)
        if ended:
            logger.debug("Acknowledged %d lease(s) of requests that ended unseen", len(ended))
            _count(self.spider, "urlnorm/redis/acked_ended", len(ended))
        return len(ended)

    # -- scrapy-redis' queue interface ----------------------------------------------

    def __len__(self) -> int:
        return int(self.server.llen(self.key))

    def encode(self, request: Request) -> bytes:
        return (self.worker + os.urandom((_ID - _WORKER) // 2).hex()).encode() + self._encode_request(request)

    def push(self, request: Request) -> None:
        self.push_encoded([self.encode(request)], [request])

    def push_encoded(self, entries: list[bytes], requests: list[Request]) -> None:
        """Push entries in one round trip; each request's predecessor lease is acknowledged after."""
        pipe = self.server.pipeline(transaction=False)
        for entry in entries:
            pipe.lpush(self.key, entry)
        pipe.execute()
        for request in requests:
            self.ack(request.meta.get(LEASE))

    def pop(self, timeout: int = 0) -> Request | None:
        entry = self.server.lmove(self.key, self.processing, "RIGHT", "LEFT")
        if entry is None:
            return None
        body = entry.lstrip(b"!")  # "!": reclaimed from a worker that died
        try:
            lease = body[:_ID].decode()
            request = self._decode_request(body[_ID:])
        except Exception as exc:  # not ours, or damaged: never popped again
            logger.error("Dropped an entry of %s that is not a request (%s): %r", self.key, exc, entry[:80])
            self.server.lrem(self.processing, 1, entry)
            return None
        self.inflight[lease] = entry
        request.meta[LEASE] = lease
        if len(body) < len(entry):
            request.meta[RECLAIMED] = True
        if lease[:_WORKER] != self.worker:
            request.meta[FOREIGN] = True
        return request

    def clear(self) -> None:
        members = [m.decode() for m in self.server.smembers(self.workers)]
        self.server.delete(
            self.key,
            self.workers,
            self.notices.failed_key,
            self.notices.failed_keys,
            *(f"{self.key}:processing:{w}" for w in members),
            *(f"{self.key}:held:{w}" for w in members),
            *(f"{self.key}:delivered:{w}" for w in members),
            *(f"{self.key}:parked:{w}" for w in members),
        )
        self.inflight.clear()

    def stop(self) -> None:
        """Stop the heartbeat (the crawl's state in Redis was lost)."""
        self.stopped = True
        if self._heartbeat.running:
            self._heartbeat.stop()

    def close(self, finished: bool) -> None:
        """Give the leases back: after a normal finish everything popped was
        processed (nothing is in flight), else what was held goes back to the queue."""
        if self._heartbeat.running:
            self._heartbeat.stop()
        if self.stopped:
            return
        try:
            if self.before_ack is not None:
                self.before_ack()  # the drops kept against other workers' pages outlive this worker
            if not finished:
                while self.server.lmove(self.processing, self.key, "LEFT", "RIGHT") is not None:
                    pass
            else:
                self.recover_own()  # nothing is in flight: anything left there was never received
            pipe = self.server.pipeline(transaction=True)
            pipe.delete(self.processing, self.alive, self.notices.held_key, self.notices.inbox, self.parked)
            pipe.srem(self.workers, self.worker)
            pipe.execute()
        except Exception as exc:
            logger.error(
                "Redis unreachable while closing: the %d request(s) this worker held are queued again "
                "by the other workers once its lease expires (%s)",
                len(self.inflight),
                exc,
            )


class SpillFile:
    """Requests Redis did not take, one checksummed record each, in ``JOBDIR``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None

    def load(self) -> list[bytes]:
        if not self.path.exists():
            return []
        data, records, at = self.path.read_bytes(), [], 0
        while at + 8 <= len(data):
            size, crc = struct.unpack_from(">II", data, at)
            payload = data[at + 8 : at + 8 + size]
            if len(payload) < size or zlib.crc32(payload) != crc:
                logger.warning("Dropped a torn record at the end of %s", self.path)
                break
            records.append(payload)
            at += 8 + size
        return records

    def append(self, payload: bytes) -> None:
        if self._file is None:
            self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - closed in truncate/close
        self._file.write(struct.pack(">II", len(payload), zlib.crc32(payload)) + payload)

    def truncate(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class LocalSpill:
    """Requests Redis did not take, kept in memory (and in ``JOBDIR``, when set)
    until it answers again."""

    def __init__(self, file: SpillFile | None, limit: int) -> None:
        self.requests: list[Request] = []
        self.file = file
        self.limit = limit

    def __len__(self) -> int:
        return len(self.requests)

    def load(self, decode: Callable[[bytes], Request]) -> None:
        """What the last run spilled and could not push."""
        if self.file is not None:
            self.requests.extend(decode(payload) for payload in self.file.load())

    def add(self, request: Request, encode: Callable[[Request], bytes]) -> bool:
        """Keep ``request``; True once the spill holds ``limit`` requests. Encoded first,
        file or not: one Redis could never take would keep the spill from draining."""
        payload = encode(request)  # raises one of UNSERIALIZABLE: kept nowhere
        self.requests.append(request)
        if self.file is not None:
            self.file.append(payload)
        return len(self.requests) >= self.limit

    def push(self, queue: Any) -> None:
        """Push every request to ``queue``; raises if Redis fails (what it took is gone from here)."""
        requests = self.requests
        if isinstance(queue, ReliableQueue):
            while requests:
                chunk = requests[:1000]
                queue.push_encoded([queue.encode(r) for r in chunk], chunk)
                del requests[: len(chunk)]
        else:
            while requests:
                queue.push(requests[0])
                del requests[0]
        if self.file is not None:
            self.file.truncate()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def claim_handed_over(df: Any, request: Request) -> None:
    """``request``, popped from Redis, holds its claim in this worker (``df``, the dupe
    filter) if another worker checked it (``FOREIGN``) or it was reclaimed from one.

    Checked by another worker: this one holds its claim now (as after a crash), so
    what this worker drops against it waits on its page. So does any request reclaimed
    from a worker that died while fetching it, even one this worker queued: that worker
    settles a page as delivered when its response arrives, before the spider's callback,
    and may have told this worker so (its claim here closed) before it was killed. Not
    claimed again, the reclaimed fetch, dropped at download time under a rule learned
    since (against a twin that then redirected to this very URL), left that twin's
    redirect dropped against a page the spider never had (``--redis 2 --kills 1 --params
    --cookies``, seed 169583). A start request's key was claimed by that fetch."""
    if request.meta.pop(FOREIGN, False) or request.meta.get(RECLAIMED):
        claim = getattr(df, "claim_foreign", None)
        if claim is not None:
            claim(request)


class RedisScheduler(Scheduler):
    """scrapy-redis' scheduler that never loses an admitted request (see the module doc).

    ``SCHEDULER = "scrapy_urlnorm.redis_queue.RedisScheduler"`` (the add-on
    puts it in place of ``scrapy_redis.scheduler.Scheduler``). Its default
    queue class is :class:`ReliableQueue`.
    """

    crawler: Crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        instance = super().from_crawler(crawler)
        instance.crawler = crawler
        if not crawler.settings.get("SCHEDULER_QUEUE_CLASS"):
            instance.queue_cls = "scrapy_urlnorm.redis_queue.ReliableQueue"
        jobdir = job_dir(crawler.settings)
        instance.spill = LocalSpill(
            SpillFile(Path(jobdir, SPILL_FILE)) if jobdir else None,
            crawler.settings.getint("URLNORM_REDIS_SPILL_LIMIT", 100_000),
        )
        #: Requests that do not serialize: this worker fetches them itself (see ``_enqueue``).
        instance.local = deque()
        return instance

    def open(self, spider: Spider) -> None:
        super().open(spider)
        self.paused = False
        self.lost = False
        self.store: RedisStore | None = None
        self.outcomes: SharedOutcomes | None = None
        dedup = getattr(self.df, "dedup", None)
        if isinstance(getattr(dedup, "seen", None), RedisStore):
            self.store = dedup.seen  # type: ignore[union-attr]
            self.store.link.gate = lambda: not self.spill
            if isinstance(self.queue, ReliableQueue):
                self.outcomes = SharedOutcomes(self.queue, dedup)  # type: ignore[arg-type]
        self.spill.load(self.queue._decode_request)
        if self.spill and self.spill.file is not None:
            logger.warning(
                "Pushing the %d request(s) the last run spilled to %s", len(self.spill), self.spill.file.path
            )
        self._ticker = task.LoopingCall(self._tick)
        self._ticker.start(0.5, now=False)

    def _settle_elsewhere(self) -> None:
        """What the other workers told this one (see ``SharedOutcomes.settle``)."""
        if self.outcomes is not None:
            self.outcomes.settle()

    # -- the spill --------------------------------------------------------------------

    def _spill(self, request: Request, exc: Exception | None) -> None:
        if not self.spill:
            logger.warning(
                "Redis did not take a request (%s): keeping new requests in a local spill until it answers", exc
            )
        full = self.spill.add(request, self.queue._encode_request)
        if self.stats:
            self.stats.inc_value("urlnorm/redis/spilled")
        if full and not self.paused:
            logger.warning(
                "The spill holds %d requests (URLNORM_REDIS_SPILL_LIMIT): pausing downloads", len(self.spill)
            )
            self.paused = True
            self.crawler.engine.pause()  # type: ignore[union-attr]

    def drain(self) -> bool:
        """Push the spill to Redis, then let the store write the fingerprints
        kept meanwhile. True if nothing is left."""
        if self.spill and not self.lost:
            try:
                self.spill.push(self.queue)
            except Exception as exc:
                logger.debug("Spill not pushed yet: %s", exc)
                return False
            logger.warning("Redis answers again: the spilled requests are queued")
        if self.paused and not self.spill:
            self.paused = False
            self.crawler.engine.unpause()  # type: ignore[union-attr]
        return not self.spill and (self.store is None or self.store.link.flush_pending())

    def _tick(self) -> None:
        if self.spill or (self.store is not None and self.store.link.pending):
            self.drain()
        if self.store is not None and self.store.link.available and not self.lost:
            try:
                self._settle_elsewhere()
            except Exception as exc:
                logger.debug("Could not read which queued requests delivered elsewhere: %s", exc)
        if self.store is not None and not self.store.link.check_epoch():
            self._state_lost()

    def _state_lost(self) -> None:
        if self.lost:
            return
        self.lost = True
        if isinstance(self.queue, ReliableQueue):
            self.queue.stop()  # writes nothing more into what is left of the crawl's keys
        close_spider(self.crawler, STATE_LOST)

    # -- scrapy-redis' scheduler interface --------------------------------------------

    def enqueue_request(self, request: Request) -> bool:
        try:
            return self._enqueue(request)
        finally:
            if isinstance(self.queue, ReliableQueue):
                self.queue.settled(request.meta.pop(PARENT, None))

    def _enqueue(self, request: Request) -> bool:
        if self.lost:
            return False  # closing: the crawl's shared state is gone
        if request.meta.pop(RECLAIMED, False) and self.store is not None and not request.dont_filter:
            # A redirect of a request reclaimed from a worker that died (its meta copied):
            # that worker may have claimed the target without queueing it. Popped from the
            # meta, so the entry is marked reclaimed only by a reclaim.
            unfilter_reclaimed(self.df.dedup, self.store, request)
            # Its page's links go unfiltered too: the dead worker may have had that page
            # without this redirect (an ASP.NET cookie probe its cookie jar had passed) and
            # claimed them without queueing them (``--redis 2 --kills 1 --params --cookies``,
            # seed 169707: a listing's next page and its items lost).
            request.meta[RECLAIMED_CHAIN] = True
        if self.store is not None and not request.dont_filter:
            # The decision is the answer of the atomic claim (nothing to do if
            # RedisBatchMiddleware claimed it with its page's other links).
            claims, reads = request_keys(self.df.dedup, [request])
            self.store.prefetch(claims, reads)
            if self.df.request_seen(request):
                for fingerprint, _ in claims:
                    self.store.release(fingerprint)  # claimed for the batch, then dropped: not seen
                self.df.log(request, self.spider)
                if isinstance(self.queue, ReliableQueue):
                    self.queue.ack(request.meta.get(LEASE))
                return False
        elif not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)
            if isinstance(self.queue, ReliableQueue):
                self.queue.ack(request.meta.get(LEASE))  # a redirect or retry of it was a duplicate
            return False
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis")
        # The parent's lease is this worker's business (settled by enqueue_request): not
        # written into the entry, where the popping worker would settle it as its own.
        parent = request.meta.pop(PARENT, None)
        try:
            if self.spill and not self.drain():
                self._spill(request, None)
                return True
            try:
                self.queue.push(request)
            except UNSERIALIZABLE:
                raise
            except Exception as exc:
                self._spill(request, exc)
            return True
        except UNSERIALIZABLE as exc:
            # Not for Redis (a callback that is no method of the spider: robots.txt's
            # NO_CALLBACK, reached as a redirect or a release): fetched here, as Scrapy's
            # disk queues keep such a request in memory. Spilled, it was never pushed,
            # and the worker waited on its spill until CLOSESPIDER_TIMEOUT.
            logger.debug("Kept %s in this worker: it does not serialize for Redis (%s)", request, exc)
            if self.stats:
                self.stats.inc_value("urlnorm/redis/kept_local")
            self.local.append(request)
            return True
        finally:
            if parent is not None:
                request.meta[PARENT] = parent

    def next_request(self) -> Request | None:
        if self.local:
            return self.local.popleft()  # type: ignore[no-any-return]
        if self.lost or (self.spill and not self.drain()):
            return None
        try:
            request = self.queue.pop(self.idle_before_close)
        except Exception as exc:
            if self.stats:
                self.stats.inc_value("urlnorm/redis_errors")
            logger.debug("Could not pop from Redis: %s", exc)
            return None
        if request is not None:
            claim_handed_over(self.df, request)
        if request is not None and self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        return request

    def has_pending_requests(self) -> bool:
        if self.lost:
            return True  # closing with its own reason, not "finished"
        if self.spill or self.local:
            return True
        if self.store is not None and not self.store.link.check_epoch():
            self._state_lost()
            return True
        if self.store is not None and not self.store.link.available:
            # Redis failed and has not answered the store since: its state is unknown (a
            # restart without persistence empties the queue too), so the crawl is not over.
            return True
        try:
            if len(self.queue) > 0:
                return True
            if isinstance(self.queue, ReliableQueue) and self.queue.recover_own() > 0:
                return True
            if isinstance(self.queue, ReliableQueue):
                self.queue.notices.share_held()
                # Before going idle (which releases what waits on pending claims).
                self._settle_elsewhere()
                if len(self.queue) > 0:
                    return True  # it released (or audits) what is to be fetched after all
                if _engine_idle(self.crawler):
                    self.queue.ack_ended()
            # Another worker's leases: done soon, or reclaimed once its heartbeat stops.
            return isinstance(self.queue, ReliableQueue) and self.queue.others_pending() > 0
        except Exception:
            return True  # Redis away: the crawl is not over

    def close(self, reason: str) -> None:
        if self._ticker.running:
            self._ticker.stop()
        if self.spill and not self.drain():
            if self.spill.file is not None:
                logger.error(
                    "Redis unreachable at close: %d spilled request(s) stay in %s for the next run",
                    len(self.spill),
                    self.spill.file.path,
                )
            else:
                logger.error(
                    "Redis unreachable at close: %d spilled request(s) are LOST (set JOBDIR to keep them)",
                    len(self.spill),
                )
        self.spill.close()
        if isinstance(self.queue, ReliableQueue):
            self.queue.close(finished=reason == "finished")
        if self.lost:
            self.df.close(reason)
        else:
            super().close(reason)


def _engine_idle(crawler: Crawler) -> bool:
    """Whether nothing is in the crawler's downloader or scraper (what the engine checks
    before it asks the scheduler whether the spider is idle)."""
    try:
        engine = crawler.engine
    except RuntimeError:  # no crawl running (Scrapy 2.19 raises before it starts)
        return False
    slot = getattr(getattr(engine, "scraper", None), "slot", None)
    return slot is not None and slot.is_idle() and not engine.downloader.active  # type: ignore[union-attr]


def close_spider(crawler: Crawler, reason: str) -> None:
    """Close the crawler's spider with ``reason`` (Scrapy 2.13 and later)."""
    from twisted.internet import reactor

    engine = crawler.engine
    if engine is None or engine.spider is None:
        return
    closer = getattr(engine, "close_spider_async", None)
    if closer is not None:
        from scrapy.utils.defer import deferred_from_coro

        reactor.callLater(0, lambda: deferred_from_coro(closer(reason=reason)))  # type: ignore[attr-defined,arg-type]
    else:
        reactor.callLater(0, engine.close_spider, engine.spider, reason)  # type: ignore[attr-defined,arg-type]
