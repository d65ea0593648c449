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
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

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

# Check-and-add in one round trip: the stored rank if present, else store and -1.
_CHECK_AND_ADD = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then return tonumber(old) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return -1
"""


class RedisUnavailable(RuntimeError):
    """Redis could not be reached when the crawl started."""


class RedisStore:
    """Seen fingerprints in a Redis hash (field: the binary fingerprint, value:
    its rank) shared by every worker.

    Each check-and-add is one atomic round trip (a Lua script). Fingerprints
    this worker already knows are seen are answered locally, without a round
    trip. If Redis goes away mid-crawl the crawl goes on: adds are kept
    locally (``urlnorm/redis_errors`` counts the failures, a warning says so
    once per outage) and written to Redis when it answers again, retried with
    exponential backoff; writing is idempotent, so nothing is stored twice.
    """

    def __init__(
        self,
        client: Any,
        key: str,
        *,
        bits: int = 64,
        count: Callable[[str], None] | None = None,
        url: str = "",
    ) -> None:
        self.client = client
        self.key = key
        self.url = url
        self._width = bits // 8
        self._count = count or (lambda key: None)
        self._known = FingerprintSet(bits)  # seen for sure: answered without a round trip
        self._pending: list[tuple[bytes, int]] = []  # added while Redis was away
        self._script = client.register_script(_CHECK_AND_ADD)
        self._retry_at = 0.0
        self._backoff = 0.5
        try:
            client.ping()
        except Exception as exc:
            raise RedisUnavailable(f"scrapy-urlnorm cannot reach Redis at {url or client}: {exc}") from exc

    def _field(self, fingerprint: int) -> bytes:
        return fingerprint.to_bytes(self._width, "big")

    @property
    def available(self) -> bool:
        if not self._pending and self._retry_at == 0.0:
            return True
        if time.monotonic() < self._retry_at:
            return False
        return self._reconnect()

    def _reconnect(self) -> bool:
        try:
            pipe = self.client.pipeline(transaction=False)
            for field, rank in self._pending:
                pipe.hsetnx(self.key, field, rank)
            pipe.execute()
        except Exception as exc:
            self._failed(exc)
            return False
        if self._pending or self._retry_at:
            logger.warning(
                "Redis at %s is back; %d fingerprint(s) kept meanwhile written to it", self.url, len(self._pending)
            )
        self._pending.clear()
        self._retry_at = 0.0
        self._backoff = 0.5
        return True

    def _failed(self, exc: Exception) -> None:
        self._count("urlnorm/redis_errors")
        if self._retry_at == 0.0:
            logger.warning(
                "Redis at %s is unreachable (%s): de-duplicating locally until it answers again "
                "(other workers may fetch what this one fetches meanwhile)",
                self.url,
                exc,
            )
        self._retry_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, 30.0)

    def add(self, fingerprint: int, rank: int) -> int | None:
        known = self._known.get(fingerprint)
        if known is not None:
            return known
        field = self._field(fingerprint)
        if self.available:
            try:
                stored = int(self._script(keys=[self.key], args=[field, rank]))
            except Exception as exc:
                self._failed(exc)
            else:
                self._known.add(fingerprint, rank if stored < 0 else stored)
                return None if stored < 0 else stored
        self._known.add(fingerprint, rank)
        self._pending.append((field, rank))
        return None

    def get(self, fingerprint: int) -> int | None:
        known = self._known.get(fingerprint)
        if known is not None or not self.available:
            return known
        try:
            value = self.client.hget(self.key, self._field(fingerprint))
        except Exception as exc:
            self._failed(exc)
            return None
        if value is None:
            return None
        self._known.add(fingerprint, int(value))
        return int(value)

    def __len__(self) -> int:
        try:
            return int(self.client.hlen(self.key)) + len(self._pending)
        except Exception:
            return len(self._known)

    def clear(self) -> None:
        self._known.clear()
        self._pending.clear()
        try:
            self.client.delete(self.key)
        except Exception as exc:
            self._failed(exc)

    def close(self) -> None:
        if self._pending:
            self._reconnect()
        if self._pending:
            logger.error("Redis at %s unreachable at close: %d fingerprint(s) not shared", self.url, len(self._pending))


class RedisRules:
    """Learned rules shared by the workers of a crawl through Redis.

    A worker publishes each rule it learns or revokes into a hash (field
    ``host|kind``, value the rule as JSON) and bumps a version counter; every
    worker checks the counter at most every ``interval`` seconds and adopts
    what changed. Evidence itself stays per worker: a rule learned by any
    worker applies to all within ``interval`` seconds.
    """

    def __init__(self, client: Any, key: str, *, interval: float = 2.0) -> None:
        self.client = client
        self.key = key
        self.interval = interval
        self._version = -1
        self._next = 0.0
        self._published: dict[str, str] = {}

    def publish(self, field: str, state: str) -> None:
        if self._published.get(field) == state:
            return
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.hset(self.key, field, state)
            pipe.incr(self.key + ":version")
            pipe.execute()
        except Exception as exc:
            logger.warning("Could not share learned rule %s through Redis: %s", field, exc)
            return
        self._published[field] = state

    def add_pair(self, field: str, pair: int) -> int:
        """Record a pair of URLs evidencing rule ``field``; the distinct pairs all workers found."""
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.sadd(f"{self.key}:pairs:{field}", pair)
            pipe.scard(f"{self.key}:pairs:{field}")
            return int(pipe.execute()[-1])
        except Exception:
            return 0

    def changes(self) -> dict[str, str]:
        """Rules (field -> JSON) if others changed any since the last look, else {}."""
        now = time.monotonic()
        if now < self._next:
            return {}
        self._next = now + self.interval
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
            if self._published.get(field) != state:
                self._published[field] = state
                changed[field] = state
        return changed

    def clear(self) -> None:
        with contextlib.suppress(Exception):
            pairs = list(self.client.scan_iter(match=f"{self.key}:pairs:*", count=1000))
            self.client.delete(self.key, self.key + ":version", *pairs)
        self._published.clear()


def aggregate_counters(client: Any, key: str, counters: dict[str, int]) -> dict[str, int]:
    """Add this worker's counters to the crawl's totals in Redis; return the totals so far."""
    pipe = client.pipeline(transaction=True)
    for name, value in counters.items():
        pipe.hincrby(key, name, value)
    pipe.hgetall(key)
    totals = pipe.execute()[-1]
    return {name.decode(): int(value) for name, value in totals.items()}
