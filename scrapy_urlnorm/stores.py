"""Where seen fingerprints live: one small interface, swappable backends.

The :class:`~scrapy_urlnorm.dedup.Deduplicator` only talks to a
:class:`SeenStore`. :class:`MemoryStore` keeps the compact in-process table
and, with ``JOBDIR``, its crash-safe file; a shared backend for distributed
crawls implements the same five methods.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
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

#: Claims, in one atomic step each: KEYS = [epoch, bucket...]; ARGV = [token,
#: n, field, rank, field, rank...]. The first n pairs only set ranks (of
#: fields this worker claimed earlier, before it knew their rank; rank ``d``
#: gives back a claim: the field keeps the tombstone ``x``, read as absent);
#: for each other pair the answer is the stored rank, or -1 if the field was
#: absent and is now stored with the given rank (claimed by the caller; a
#: rank ``r`` only reads). ``nil`` if the epoch token is not the caller's:
#: the crawl's state was wiped (or cleared); then nothing is written.
#:
#: A bucket is a chain of small hashes, ``<bucket>``, ``<bucket>:1``, ... (one
#: hash tag, so one Redis Cluster slot), each holding up to the epoch's ``cap``
#: fields (the server's ``hash-max-listpack-entries``): a bucket never turns
#: into a hash table, whatever the crawl's size. Links fill in order and never
#: shrink, so the first link below ``cap`` is the last one. ``cap`` 0: one hash.
_CLAIM = """
local epoch = redis.call('HMGET', KEYS[1], 'token', 'cap')
if epoch[1] ~= ARGV[1] then return false end
local cap = tonumber(epoch[2]) or 0
-- (link, value) if a link holds field, else (nil, the link a new field goes to)
local function find(bucket, field)
  local link, i = bucket, 0
  while true do
    local v = redis.call('HGET', link, field)
    if v then return link, v end
    if cap == 0 or redis.call('HLEN', link) < cap then return nil, link end
    i = i + 1
    link = bucket .. ':' .. i
  end
end
local updates = tonumber(ARGV[2])
local out, new = {}, 0
for i = 2, updates + 1 do
  local field, rank = ARGV[2 * i - 1], ARGV[2 * i]
  local link, v = find(KEYS[i], field)
  if rank == 'd' then
    if link and v ~= 'x' then
      redis.call('HSET', link, field, 'x')
      new = new - 1
    end
  else
    if not link or v == 'x' then new = new + 1 end
    redis.call('HSET', link or v, field, rank)
  end
end
for i = updates + 2, #KEYS do
  local field, rank = ARGV[2 * i - 1], ARGV[2 * i]
  local link, v = find(KEYS[i], field)
  if link and v ~= 'x' then
    out[i - updates - 1] = tonumber(v)
  elseif rank == 'r' then
    out[i - updates - 1] = -1
  else
    redis.call('HSET', link or v, field, rank)
    out[i - updates - 1] = -1
    new = new + 1
  end
end
if new ~= 0 then redis.call('HINCRBY', KEYS[1], 'count', new) end
return out
"""

#: Buckets: 2**17 chains of small hashes. Redis keeps a hash of up to 128
#: entries (``hash-max-listpack-entries``) as one listpack, a few bytes per
#: entry; past that a bucket grows a second link. Each bucket costs ~100 bytes
#: of its own: fewer buckets cost less memory, more buckets shorter chains.
DEFAULT_BUCKET_BITS = 15


class RedisUnavailable(RuntimeError):
    """Redis could not be reached when the crawl started."""


def without_retries(client: Any) -> Any:
    """A client of the same server with the same parameters that sends each
    command once. redis-py retries a command whose connection failed (ten times
    by default since redis-py 6), also after Redis ran it and only the reply was
    lost: a claim sent again reads the worker's own claim as another worker's
    (and the request is dropped with nobody to fetch it); a pop sent again
    strands the first entry it moved. Failures are handled where they happen
    (the local spill, :meth:`RedisStore._failed`), so a command is sent once."""
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

    **Layout.** The fingerprint's high ``bucket_bits`` bits name a small hash
    ``<key>:{<bucket>}`` (the braces are a Redis Cluster hash tag: buckets
    spread over the cluster's slots), its remaining bits are the field, as
    short binary (6 bytes for a 64-bit fingerprint), the rank byte the value.
    A bucket that reaches the server's ``hash-max-listpack-entries`` goes on
    in ``<key>:{<bucket>}:1``, ``:2``... (same hash tag), so every hash stays
    small and Redis stores each as a listpack: ~11 bytes per fingerprint plus
    ~100 per bucket, against ~90 per fingerprint for a set of hex strings.
    ``<key>:epoch`` holds the crawl's token, the bucket layout (``bucket_bits``,
    ``cap``) and the count of fingerprints.

    **Claims.** A request's fate is the answer of one atomic check-and-add (a
    Lua script): :meth:`prefetch` claims the exact keys of every request a page
    yields in one round trip (the worker that claims first is told "new",
    every other one the stored rank) and looks up their learned keys;
    :meth:`get` then answers from that without a round trip, :meth:`add`
    confirms a claim (or claims, for a key nobody prefetched), and
    :meth:`release` gives back the claim of a request the filter dropped.
    :meth:`get` alone never claims: a key looked at and not taken must not
    read as seen to the other workers.

    **Outages.** If Redis goes away the crawl goes on locally: what is added
    meanwhile is kept and claimed in Redis when it answers again; its writing
    waits for :attr:`gate` (the scheduler's spill of requests it could not
    push) so a fingerprint never reaches Redis before its request's queue
    entry does.

    **Wipes.** Every claim checks the epoch token first; if it is gone
    (``FLUSHALL``, a restart without persistence, deleted keys) nothing is
    written, an error says what was lost, and :attr:`on_lost` is called.
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
        self._count = count or (lambda key: None)
        self.on_lost = on_lost
        #: Called before fingerprints kept during an outage are written: False holds them back.
        self.gate: Callable[[], bool] = lambda: True
        self._known = FingerprintSet(bits)  # seen for sure: answered without a round trip
        self._theirs = FingerprintSet(bits)  # of those, found by a read: another worker's page (see get())
        self._trusted = FingerprintSet(bits)  # of those, found by a claim too, or represented here as well
        self._own = FingerprintSet(bits)  # added by this worker: it represents them (see represented_here)
        self._mine: dict[int, int] = {}  # claimed by this worker, not confirmed by add() yet
        self._pending: list[tuple[int, int]] = []  # added while Redis was away
        self._absent: set[int] = set()  # looked up by the last batches and absent: answered once
        self._claim_script = self.client.register_script(_CLAIM)
        self._ranks: list[tuple[int, int | str]] = []  # ranks of earlier claims, sent with the next one
        self._retry_at = 0.0
        self._backoff = 0.5
        self.lost = False
        self.epoch_key = key + ":epoch"
        try:
            self.client.ping()
            self._open_epoch(bucket_bits)
        except ValueError:
            raise
        except Exception as exc:
            raise RedisUnavailable(f"scrapy-urlnorm cannot reach Redis at {url or client}: {exc}") from exc

    # -- layout -------------------------------------------------------------------

    def _open_epoch(self, bucket_bits: int) -> None:
        """Join the crawl's epoch, or start one: the first worker's layout wins."""
        token = os.urandom(8).hex()
        cap = self._listpack_entries()
        pipe = self.client.pipeline(transaction=True)
        pipe.hsetnx(self.epoch_key, "token", token)
        pipe.hsetnx(self.epoch_key, "bucket_bits", bucket_bits)
        pipe.hsetnx(self.epoch_key, "bits", self.bits)
        pipe.hsetnx(self.epoch_key, "cap", cap)
        pipe.hgetall(self.epoch_key)
        epoch = {k.decode(): v.decode() for k, v in pipe.execute()[-1].items()}
        if int(epoch["bits"]) != self.bits:
            raise ValueError(
                f"Redis key {self.key} holds {epoch['bits']}-bit fingerprints; this worker uses {self.bits} "
                "(URLNORM_FINGERPRINT_BITS must be the same on every worker)"
            )
        self.token = epoch["token"]
        self._set_layout(int(epoch["bucket_bits"]))

    def _listpack_entries(self) -> int:
        """The server's ``hash-max-listpack-entries`` (128 where ``CONFIG`` is not allowed)."""
        for name in ("hash-max-listpack-entries", "hash-max-ziplist-entries"):
            try:
                value = self.client.config_get(name).get(name)
            except Exception:
                break
            if value is not None:
                return max(int(value), 1)
        return 128

    def _set_layout(self, bucket_bits: int) -> None:
        self.bucket_bits = bucket_bits
        self._shift = self.bits - bucket_bits
        self._low_mask = (1 << self._shift) - 1
        self._width = (self._shift + 7) // 8

    def locate(self, fingerprint: int) -> tuple[str, bytes]:
        """The bucket key and the field of ``fingerprint``."""
        return (
            f"{self.key}:{{{fingerprint >> self._shift:x}}}",
            (fingerprint & self._low_mask).to_bytes(self._width, "big"),
        )

    # -- the round trip -----------------------------------------------------------

    def _run(self, items: Sequence[tuple[int, int | str]]) -> list[int] | None:
        """Claim (fingerprint, rank) pairs, sending the ranks kept back with them;
        ``None`` if the state was lost."""
        ranks, self._ranks = self._ranks, []
        keys = [self.epoch_key]
        args: list[Any] = [self.token, len(ranks)]
        for fingerprint, rank in [*ranks, *items]:
            bucket, field = self.locate(fingerprint)
            keys.append(bucket)
            args += (field, rank)
        try:
            answer = self._claim_script(keys=keys, args=args)
        except Exception:
            self._ranks[:0] = ranks
            raise
        if answer is None:
            self._state_lost("its epoch key is gone or was replaced")
            return None
        return answer if isinstance(answer, list) else []

    def _claim(self, items: Sequence[tuple[int, int | str]]) -> list[int] | None:
        """Claim each (fingerprint, rank): -1 where it was new, else the stored rank."""
        try:
            answer = self._run(items)
        except Exception as exc:
            self._failed(exc)
            return None
        self._count("urlnorm/redis/round_trips")
        return answer

    # -- availability ---------------------------------------------------------------

    @property
    def available(self) -> bool:
        if self.lost:
            return False
        if self._retry_at == 0.0:
            if self._pending and self.gate():
                return self._flush_pending()
            return True
        if time.monotonic() < self._retry_at:
            return False
        return self._reconnect()

    def _reconnect(self) -> bool:
        try:
            token = self.client.hget(self.epoch_key, "token")
        except Exception as exc:
            self._failed(exc)
            return False
        if token is None or token.decode() != self.token:
            self._state_lost("its epoch key is gone or was replaced (a restart without persistence?)")
            return False
        logger.warning("Redis at %s is back", self.url)
        self._retry_at = 0.0
        self._backoff = 0.5
        if self._pending and self.gate():
            return self._flush_pending()
        return True

    def flush_pending(self) -> bool:
        """Claim in Redis what was added locally while it was away (the gate
        owner calls this once what it held is safe). True if nothing is left."""
        return not self._pending or (self.available and self._flush_pending())

    def _flush_pending(self) -> bool:
        pending = self._pending
        for start in range(0, len(pending), 1000):
            answer = self._claim(pending[start : start + 1000])
            if answer is None:
                del pending[:start]
                return False
            # Claimed meanwhile by another worker: both fetch it (at-least-once), none is lost.
            for stored in answer:
                if stored >= 0:
                    self._count("urlnorm/redis/claimed_twice")
        logger.warning("Redis at %s: %d fingerprint(s) kept during the outage are shared", self.url, len(pending))
        pending.clear()
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

    def _state_lost(self, why: str) -> None:
        if self.lost:
            return
        self.lost = True
        self._count("urlnorm/redis/state_lost")
        logger.error(
            "The crawl's shared state in Redis at %s was LOST: %s (%s). This worker knew %d seen fingerprint(s) "
            "that Redis no longer has; the shared queue is gone with them. Stopping this worker "
            "(finish reason urlnorm_redis_state_lost): once every worker has stopped, delete what is left "
            "of the crawl's keys and start the crawl again to collect what was lost.",
            self.url,
            self.epoch_key,
            why,
            len(self._known) + len(self._mine),
        )
        if self.on_lost is not None:
            self.on_lost(why)

    def check_epoch(self) -> bool:
        """False (after saying so loudly, once) if the crawl's state in Redis is gone."""
        if self.lost:
            return False
        if self._retry_at and time.monotonic() < self._retry_at:
            return True  # unknown while Redis is away; checked when it answers
        try:
            token = self.client.hget(self.epoch_key, "token")
        except Exception as exc:
            self._failed(exc)
            return True
        if token is None or token.decode() != self.token:
            self._state_lost("its epoch key is gone or was replaced")
            return False
        return True

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
            if fingerprint not in wanted and fingerprint not in self._absent and self._unknown(fingerprint):
                wanted[fingerprint] = "r"
        if not wanted or not self.available:
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
                if mark == "r":
                    self._theirs_add(fingerprint, stored)
                else:
                    self._claimed_by_other(fingerprint, stored)
            elif mark == "r":
                self._absent.add(fingerprint)
            else:
                self._mine[fingerprint] = int(mark)
                new += 1
        return new

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
        return self._theirs.get(fingerprint) is not None and self._trusted.get(fingerprint) is None

    def get(self, fingerprint: int) -> int | None:
        """The stored rank (``None``: absent). A read: only :meth:`prefetch`
        and :meth:`add` claim, so a key looked at and then not taken (a learned
        key of a request dropped for another reason) never reads as seen.

        A key only another worker represents, found by a read (a learned key,
        at check time or at download time), reads as absent: a request is not
        dropped against another worker's page *by a learned rule*. That page
        may fail (an error, a redirect the other worker drops) and that
        worker's drop ledger cannot release a drop made here, while this
        request's own key, held here, keeps every worker from fetching it.
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
        if not self.available:
            return None
        answer = self._claim([(fingerprint, "r")])
        if not answer or answer[0] < 0:
            return None
        self._theirs_add(fingerprint, answer[0])
        return None if self._shielded(fingerprint) else answer[0]

    def add(self, fingerprint: int, rank: int) -> int | None:
        known = self._known.get(fingerprint)
        if known is not None:
            if self._shielded(fingerprint):
                self._trusted.add(fingerprint)  # this worker's own representative too from now on
            self._own.add(fingerprint, known)
            return known
        claimed = self._mine.pop(fingerprint, None)
        self._known.add(fingerprint, rank)
        self._own.add(fingerprint, rank)
        if claimed is not None:
            if claimed != rank:
                self._ranks.append((fingerprint, rank))  # sent with the next claim
                if len(self._ranks) >= 256 and self.available:
                    self._claim([])
            return None
        if self.available:
            answer = self._claim([(fingerprint, rank)])
            if answer:
                if answer[0] >= 0:
                    self._claimed_by_other(fingerprint, answer[0])
                    return answer[0]
                return None
        if not self.lost:
            self._pending.append((fingerprint, rank))
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
        self._ranks.append((fingerprint, "d"))
        if self.available:
            self._claim([])

    def __len__(self) -> int:
        try:
            return int(self.client.hget(self.epoch_key, "count") or 0) + len(self._pending)
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
        self._pending.clear()
        try:
            buckets = list(self.client.scan_iter(match=f"{self.key}:{{*", count=10_000))
            for start in range(0, len(buckets), 1000):
                self.client.delete(*buckets[start : start + 1000])
            self.client.delete(self.epoch_key)
            self.lost = False
            self._open_epoch(self.bucket_bits)
        except Exception as exc:
            self._failed(exc)

    def close(self) -> None:
        if self._ranks and not self.lost and self.available:
            self._claim([])
        if self._pending and not self.lost:
            self.flush_pending()
        if self._pending and not self.lost:
            logger.error("Redis at %s unreachable at close: %d fingerprint(s) not shared", self.url, len(self._pending))


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
