"""Where seen fingerprints live: one small interface, swappable backends.

The :class:`~scrapy_urlnorm.dedup.Deduplicator` only talks to a
:class:`SeenStore`. :class:`MemoryStore` keeps the compact in-process table
and, with ``JOBDIR``, its crash-safe file; a shared backend for distributed
crawls implements the same five methods.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from .redis_link import DEFAULT_BUCKET_BITS, DELIVERED, DEPTH_UNIT, Epoch, RedisLink
from .seen import FingerprintSet, SeenFile

logger = logging.getLogger(__name__)


class SeenStore(Protocol):
    """A set of fingerprints, each stored with a one-byte rank."""

    def add(self, fingerprint: int, rank: int) -> int | None:
        """Add atomically; ``None`` if it is new, else the rank stored with it."""

    def get(self, fingerprint: int) -> int | None:
        """The stored rank, or ``None`` if absent."""

    def __len__(self) -> int: ...

    def clear(self) -> None:
        """Forget every fingerprint."""

    def close(self) -> None:
        """Flush and release resources; the store is not used afterwards."""


def _nothing() -> None:
    pass


class MemoryStore:
    """The compact in-process table, persisted append-only in ``path`` when given."""

    def __init__(self, bits: int = 64, path: str | Path | None = None) -> None:
        self.table = FingerprintSet(bits)
        self.file = SeenFile(path, bits) if path else None
        if self.file is not None:
            loaded = self.file.load_into(self.table)
            if loaded:
                logger.info("Resumed %d seen fingerprint(s) from %s", loaded, self.file.path)
            self.file.open()

    def add(self, fingerprint: int, rank: int) -> int | None:
        stored = self.table.add(fingerprint, rank)
        if stored is None and self.file is not None:
            self.file.append(fingerprint, rank)
        return stored

    def get(self, fingerprint: int) -> int | None:
        return self.table.get(fingerprint)

    def hold_writes(self) -> Callable[[], None]:
        """Hold new records of the ``JOBDIR`` file back until the returned flush is called."""
        if self.file is None:
            return _nothing
        self.file.hold()
        return self.file.flush

    def __len__(self) -> int:
        return len(self.table)

    def __contains__(self, fingerprint: object) -> bool:
        return fingerprint in self.table

    def clear(self) -> None:
        self.table.clear()
        if self.file is not None:
            self.file.close()
            self.file.path.unlink(missing_ok=True)
            self.file.open()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


# -- Redis: one seen set for every worker of a distributed crawl ---------------


class RedisUnavailable(RuntimeError):
    """Redis could not be reached when the crawl started."""


def without_retries(client: Any) -> Any:
    """A client of the same server with the same parameters that sends each
    command once. redis-py retries a command whose connection failed (ten times
    by default since redis-py 6), also after Redis ran it and only the reply was
    lost: a claim sent again reads the worker's own claim as another worker's
    (and the request is dropped with nobody to fetch it); a pop sent again
    strands the first entry it moved. Failures are handled where they happen
    (the local spill, :meth:`~scrapy_urlnorm.redis_link.RedisLink._failed`), so a command is sent once."""
    pool = getattr(client, "connection_pool", None)
    if pool is None:
        return client
    try:
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        kwargs = {**pool.connection_kwargs, "retry": Retry(NoBackoff(), 0), "retry_on_error": []}
        kwargs.pop("retry_on_timeout", None)
        once = type(pool)(connection_class=pool.connection_class, max_connections=pool.max_connections, **kwargs)
        return type(client)(connection_pool=once)
    except Exception as exc:  # an unusual client: keep it as it is
        logger.debug("Could not turn redis-py retries off (%s): using the client as configured", exc)
        return client


class RedisStore:
    """Seen fingerprints in Redis, shared by every worker of a crawl.

    A request's fate is the answer of one atomic check-and-add (a Lua script):
    :meth:`prefetch` claims the exact keys of every request a page yields in
    one round trip (the worker that claims first is told "new", every other
    one the stored rank) and looks up their learned keys; :meth:`get` then
    answers from that without a round trip, :meth:`add` confirms a claim (or
    claims, for a key nobody prefetched), and :meth:`release` gives back the
    claim of a request the filter dropped. :meth:`get` alone never claims: a
    key looked at and not taken must not read as seen to the other workers.

    This class keeps what each fingerprint means to this worker; where it
    lives in Redis is the :class:`~scrapy_urlnorm.redis_link.Epoch`'s, and
    getting it there through outages and wipes the
    :class:`~scrapy_urlnorm.redis_link.RedisLink`'s.
    """

    def __init__(
        self,
        client: Any,
        key: str,
        *,
        bits: int = 64,
        count: Callable[[str], None] | None = None,
        url: str = "",
        bucket_bits: int = DEFAULT_BUCKET_BITS,
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self.client = without_retries(client)
        self.key = key
        self.url = url
        self.bits = bits
        self._known = FingerprintSet(bits)  # seen for sure: answered without a round trip
        self._theirs = FingerprintSet(bits)  # of those, found by a read: another worker's page (see get())
        self._trusted = FingerprintSet(bits)  # of those, found by a claim too, or represented here as well
        self._own = FingerprintSet(bits)  # added by this worker: it represents them (see represented_here)
        self._mine: dict[int, int] = {}  # claimed by this worker, not confirmed by add() yet
        self._absent: set[int] = set()  # looked up by the last batches and absent: answered once
        #: Keys whose page delivered, as claims answered (``DELIVERED``) or this worker saw.
        self.delivered = FingerprintSet(bits)
        #: With ``DEPTH_LIMIT``: told the depth another worker claimed a fingerprint at.
        self.on_depth: Callable[[int, int], None] | None = None
        #: Stock fingerprints of requests sent unfiltered because a worker that died may
        #: have claimed them (``redis_batch.unfilter_reclaimed``).
        self.refetched: set[bytes] = set()
        self.epoch = Epoch(self.client, key, bits)
        self.link = RedisLink(
            self.client,
            self.epoch,
            count=count or (lambda key: None),
            url=url,
            knew=(self._known, self._mine),
            on_lost=on_lost,
        )
        self._claim = self.link.claim  # bound once: the claims of get, add and prefetch go straight to it
        self.locate = self.epoch.locate  # where a fingerprint lives in Redis
        try:
            self.client.ping()
            self.epoch.join(bucket_bits)
        except ValueError:
            raise
        except Exception as exc:
            raise RedisUnavailable(f"scrapy-urlnorm cannot reach Redis at {url or client}: {exc}") from exc

    # -- SeenStore ------------------------------------------------------------------

    def prefetch(self, claims: list[tuple[int, int]], reads: Iterable[int] = ()) -> int:
        """In one round trip: claim each (fingerprint, rank) of ``claims`` (a
        request's own exact key) and look up each of ``reads`` (its learned
        keys, only ever claimed by :meth:`add`), where not known yet; :meth:`get`
        and :meth:`add` then answer from it. Returns how many claims were new."""
        wanted: dict[int, int | str] = {}
        for fingerprint, rank in claims:
            if fingerprint not in wanted and (self._unknown(fingerprint) or self._shielded(fingerprint)):
                wanted[fingerprint] = rank  # a key only read so far is claimed: its own URL is a duplicate
        for fingerprint in reads:
            if (
                fingerprint not in wanted
                and fingerprint not in self._absent
                and (self._unknown(fingerprint) or self._shielded(fingerprint))
            ):
                wanted[fingerprint] = "r"  # (read again while shielded: its page may have delivered since)
        if not wanted or not self.link.available:
            return 0
        batch = list(wanted.items())
        answer = self._claim(batch)
        if answer is None:
            return 0
        new = 0
        if len(self._absent) > 100_000:
            self._absent.clear()
        for (fingerprint, mark), stored in zip(batch, answer, strict=True):  # mark: a rank, or "r" (a read)
            if stored >= 0:
                stored = self._rank(fingerprint, stored)
                if mark == "r":
                    self._theirs_add(fingerprint, stored)
                else:
                    self._claimed_by_other(fingerprint, stored)
            elif mark == "r":
                self._absent.add(fingerprint)
            else:
                self._mine[fingerprint] = int(mark) % DEPTH_UNIT  # (the claim's depth is the filter's)
                new += 1
        return new

    def _rank(self, fingerprint: int, stored: int) -> int:
        """The rank a claim answered (``stored``), noting whether its page delivered and
        (``DEPTH_LIMIT``) how shallow another worker claimed it."""
        if stored >= DEPTH_UNIT:
            depth, stored = divmod(stored, DEPTH_UNIT)
            if self.on_depth is not None:
                self.on_depth(fingerprint, depth - 1)
        if stored >= DELIVERED:
            self.delivered.add(fingerprint, 0)
            return stored - DELIVERED
        return stored

    def _unknown(self, fingerprint: int) -> bool:
        return fingerprint not in self._mine and self._known.get(fingerprint) is None

    def _theirs_add(self, fingerprint: int, stored: int) -> None:
        """A read found ``fingerprint`` stored by another worker (or an earlier run)."""
        if self._known.add(fingerprint, stored) is None:
            self._theirs.add(fingerprint)

    def _claimed_by_other(self, fingerprint: int, stored: int) -> None:
        """A claim found ``fingerprint`` stored: the request is a duplicate of that one."""
        self._known.add(fingerprint, stored)
        if self._theirs.get(fingerprint) is not None:
            self._trusted.add(fingerprint)

    def _shielded(self, fingerprint: int) -> bool:
        return (
            self._theirs.get(fingerprint) is not None
            and self._trusted.get(fingerprint) is None
            and self.delivered.get(fingerprint) is None
        )

    def get(self, fingerprint: int) -> int | None:
        """The stored rank (``None``: absent). A read: only :meth:`prefetch`
        and :meth:`add` claim, so a key looked at and then not taken (a learned
        key of a request dropped for another reason) never reads as seen.

        A key only another worker represents, found by a read (a learned key,
        at check time or at download time), reads as absent: a request is not
        dropped against another worker's page *by a learned rule*. That page
        may fail (an error, a redirect the other worker drops) and that
        worker's drop ledger cannot release a drop made here, while this
        request's own key, held here, keeps every worker from fetching it;
        unless a claim or a read found its page delivered (``delivered``): then
        the drop rests on a page the crawl has, as on one of this worker's.
        At-least-once: two workers may fetch pages that only a learned rule
        says are the same. A key found by a claim (a request's own key) is a
        duplicate of the other worker's request, the same URL: dropped."""
        known = self._known.get(fingerprint)
        if known is not None and self._shielded(fingerprint):
            return None
        if known is not None or fingerprint in self._mine:
            return known
        if fingerprint in self._absent:
            self._absent.discard(fingerprint)  # answered once, from the batch that just looked
            return None
        if not self.link.available:
            return None
        answer = self._claim([(fingerprint, "r")])
        if not answer or answer[0] < 0:
            return None
        stored = self._rank(fingerprint, answer[0])
        self._theirs_add(fingerprint, stored)
        return None if self._shielded(fingerprint) else stored

    def add(self, fingerprint: int, rank: int) -> int | None:
        known = self._known.get(fingerprint)
        if known is not None:
            if self._shielded(fingerprint):
                self._trusted.add(fingerprint)  # this worker's own representative too from now on
            self._own.add(fingerprint, known)
            if self.link.depth_of is not None:
                self.link.set_rank(fingerprint, known)  # (its depth here, if shallower, with the next claim)
            return known
        claimed = self._mine.pop(fingerprint, None)
        self._known.add(fingerprint, rank)
        self._own.add(fingerprint, rank)
        if claimed is not None:
            if claimed != rank or self.link.depth_of is not None:
                self.link.set_rank(fingerprint, rank)  # sent with the next claim (with its depth)
            return None
        link = self.link
        if link.available:
            answer = self._claim([(fingerprint, rank)])
            if answer:
                if answer[0] >= 0:
                    stored = self._rank(fingerprint, answer[0])
                    self._claimed_by_other(fingerprint, stored)
                    return stored
                return None
        if not link.lost:
            link.pending.append((fingerprint, rank))
        return None

    def represented_here(self, fingerprint: int) -> bool:
        """Whether this worker represents ``fingerprint`` (claimed or added it), as
        opposed to a key only another worker holds: a claim found the same URL
        there, and that request may have been dropped by its own filter (its claim
        given back only after the read), so nothing says its page is delivered."""
        return fingerprint in self._mine or self._own.get(fingerprint) is not None

    def release(self, fingerprint: int) -> None:
        """This worker claimed ``fingerprint`` for a request its filter then
        dropped (against another key): give the claim back at once, so no
        worker drops that URL against a request nobody queued."""
        if self._mine.pop(fingerprint, None) is None:
            return
        self.link.set_rank(fingerprint, "d", now=True)

    def __len__(self) -> int:
        try:
            return int(self.client.hget(self.epoch.epoch_key, "count") or 0) + len(self.link.pending)
        except Exception:
            return len(self._known)

    @property
    def known(self) -> int:
        """Fingerprints this worker knows are seen (answered without a round trip)."""
        return len(self._known)

    def clear(self) -> None:
        """Forget every fingerprint, in Redis too; other workers' epochs end with it."""
        self._known.clear()
        self._theirs.clear()
        self._trusted.clear()
        self._own.clear()
        self._mine.clear()
        self._absent.clear()
        self.delivered.clear()
        self.link.restart()

    def close(self) -> None:
        self.link.close()


#: Publish rule states: KEYS = [rules, version]; ARGV = [field, state, ...]. A
#: revocation is never overwritten by a state that is not revoked: two workers
#: publishing one rule at once (one found it contradicted, the other activated
#: it before it heard) must leave it revoked, or the second worker's drops under
#: a wrong rule are never released.
_PUBLISH = """
for i = 1, #ARGV, 2 do
  local old = redis.call('HGET', KEYS[1], ARGV[i])
  if not (old and cjson.decode(old).revoked and not cjson.decode(ARGV[i + 1]).revoked) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return redis.call('INCR', KEYS[2])
"""


class RedisRules:
    """Learned rules shared by the workers of a crawl through Redis.

    A worker publishes each rule it learns or revokes into a hash (field
    ``host|kind``, value the rule as JSON) and bumps a version counter; every
    worker checks the counter at most every ``interval`` seconds and adopts
    what changed: a rule learned by any worker applies to all within
    ``interval`` seconds. A state Redis does not take (an outage) is sent
    again, and a revoked rule stays revoked (see ``_PUBLISH``).
    """

    def __init__(self, client: Any, key: str, *, interval: float = 2.0) -> None:
        self.client = without_retries(client)
        self.key = key
        self.interval = interval
        self._version = -1
        self._next = 0.0
        self._published: dict[str, str] = {}
        # Rule states Redis did not take (it was away): sent again before the next look.
        # A revocation that never reaches the other workers leaves their drops under a
        # wrong rule unreleased.
        self._unsent: dict[str, str] = {}
        self.enabled = True  # False once the crawl's state in Redis is lost: nothing more is written
        self._publish = self.client.register_script(_PUBLISH)
        self._failing = False

    def disable(self) -> None:
        self.enabled = False

    def publish(self, field: str, state: str) -> None:
        if not self.enabled or self._published.get(field) == state:
            return
        self._unsent[field] = state
        self.flush()

    def flush(self) -> bool:
        """Send the rule states Redis has not taken yet; True if none is left."""
        if not self._unsent or not self.enabled:
            return not self._unsent
        unsent = dict(self._unsent)
        try:
            self._publish(keys=[self.key, self.key + ":version"], args=[x for pair in unsent.items() for x in pair])
        except Exception as exc:
            log = logger.debug if self._failing else logger.warning  # once per outage
            log("Could not share learned rule(s) %s through Redis yet: %s", ", ".join(unsent), exc)
            self._failing = True
            return False
        self._failing = False
        for field, state in unsent.items():
            self._published[field] = state
            if self._unsent.get(field) == state:
                del self._unsent[field]
        return not self._unsent

    def add_pair(self, field: str, pair: int) -> int:
        """Record a pair of URLs evidencing rule ``field``; the distinct pairs all workers found."""
        if not self.enabled:
            return 0
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.sadd(f"{self.key}:pairs:{field}", pair)
            pipe.scard(f"{self.key}:pairs:{field}")
            return int(pipe.execute()[-1])
        except Exception:
            return 0

    def changes(self, *, now: bool = False) -> dict[str, str]:
        """Rules (field -> JSON) if others changed any since the last look, else {}
        (``now``: look even if the last look was less than ``interval`` ago)."""
        clock = time.monotonic()
        if clock < self._next and not now:
            return {}
        self._next = clock + self.interval
        self.flush()
        try:
            version = int(self.client.get(self.key + ":version") or 0)
            if version == self._version:
                return {}
            rules = self.client.hgetall(self.key)
        except Exception:
            return {}
        self._version = version
        changed = {}
        for field, state in rules.items():
            field, state = field.decode(), state.decode()
            if field in self._unsent:
                continue  # this worker's newer state is still to be sent
            if self._published.get(field) != state:
                self._published[field] = state
                changed[field] = state
        return changed

    def clear(self) -> None:
        with contextlib.suppress(Exception):
            pairs = list(self.client.scan_iter(match=f"{self.key}:pairs:*", count=1000))
            self.client.delete(self.key, self.key + ":version", *pairs)
        self._published.clear()
        self._unsent.clear()


def aggregate_counters(client: Any, key: str, counters: dict[str, int]) -> dict[str, int]:
    """Add this worker's counters to the crawl's totals in Redis; return the totals so far."""
    pipe = client.pipeline(transaction=True)
    for name, value in counters.items():
        pipe.hincrby(key, name, value)
    pipe.hgetall(key)
    totals = pipe.execute()[-1]
    return {name.decode(): int(value) for name, value in totals.items()}
