"""The Redis side of the shared seen set: where fingerprints live, and getting claims there.

:class:`~scrapy_urlnorm.stores.RedisStore` decides what a fingerprint means to
this worker; what it takes to keep that in Redis lives here:

- :class:`Epoch`: the crawl's epoch (its token and the bucket layout every
  worker follows) and where in it a fingerprint lives;
- :class:`RedisLink`: one atomic claim per round trip, and the crawl through
  outages (backoff, reconnecting, what was added meanwhile) and wipes.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence, Sized
from typing import Any

logger = logging.getLogger(__name__)

#: Claims, in one atomic step each: KEYS = [epoch, bucket...]; ARGV = [token,
#: n, field, rank, field, rank...]. The first n pairs only set ranks (of
#: fields this worker claimed earlier, before it knew their rank; rank ``d``
#: gives back a claim: the field keeps the tombstone ``x``, read as absent;
#: rank ``v``: the field's page delivered, its rank goes up by ``DELIVERED``
#: and the drops other workers kept against it, ``<bucket>:k:<field>``, go;
#: a numeric rank is merged into the stored value: the new rank, delivered if
#: either was, the shallower of the depths, see ``DEPTH_UNIT``);
#: for each other pair the answer is the stored value, or -1 if the field was
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
-- the stored value v updated with r: r's rank, delivered if either was, the shallower depth
local function merge(v, r)
  local o, n = tonumber(v), tonumber(r)
  local od, nd = math.floor(o / 2000), math.floor(n / 2000)
  local d = od
  if nd > 0 and (od == 0 or nd < od) then d = nd end
  local delivered = 0
  if o % 2000 >= 1000 or n % 2000 >= 1000 then delivered = 1000 end
  return d * 2000 + n % 1000 + delivered
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
  elseif rank == 'v' then
    if link and v ~= 'x' and tonumber(v) % 2000 < 1000 then redis.call('HSET', link, field, tonumber(v) + 1000) end
    redis.call('DEL', KEYS[i] .. ':k:' .. field)
  elseif not link or v == 'x' then
    new = new + 1
    redis.call('HSET', link or v, field, rank)
  else
    redis.call('HSET', link, field, merge(v, rank))
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

#: What the claim script adds to a stored rank when its page delivered (rank ``v``):
#: claims answer ``rank + DELIVERED`` from then on (ranks are below 256).
DELIVERED = 1000
#: With ``DEPTH_LIMIT``, a stored value also holds the shallowest depth a worker claimed
#: the key at: ``(depth + 1) * DEPTH_UNIT`` on top of the rank and ``DELIVERED`` (0: not
#: known). Another worker does not drop a shallower request against it (see ``depths``).
DEPTH_UNIT = 2000


def with_depth(rank: int, depth: int | None) -> int:
    """``rank`` as stored with the claim's ``depth`` (``None``: not known)."""
    return rank if depth is None else rank + (depth + 1) * DEPTH_UNIT


#: Buckets: 2**17 chains of small hashes. Redis keeps a hash of up to 128
#: entries (``hash-max-listpack-entries``) as one listpack, a few bytes per
#: entry; past that a bucket grows a second link. Each bucket costs ~100 bytes
#: of its own: fewer buckets cost less memory, more buckets shorter chains.
DEFAULT_BUCKET_BITS = 15


class Epoch:
    """The crawl's epoch in Redis, and the bucket layout it fixes for every worker.

    The fingerprint's high ``bucket_bits`` bits name a small hash
    ``<key>:{<bucket>}`` (the braces are a Redis Cluster hash tag: buckets
    spread over the cluster's slots), its remaining bits are the field, as
    short binary (6 bytes for a 64-bit fingerprint), the rank byte the value.
    A bucket that reaches the server's ``hash-max-listpack-entries`` goes on
    in ``<key>:{<bucket>}:1``, ``:2``... (same hash tag), so every hash stays
    small and Redis stores each as a listpack: ~11 bytes per fingerprint plus
    ~100 per bucket, against ~90 per fingerprint for a set of hex strings.
    ``<key>:epoch`` holds the crawl's token, the bucket layout (``bucket_bits``,
    ``cap``) and the count of fingerprints.
    """

    def __init__(self, client: Any, key: str, bits: int) -> None:
        self.client = client
        self.key = key
        self.bits = bits
        self.epoch_key = key + ":epoch"
        self.token = ""  # this worker's epoch: set by join()
        self.bucket_bits = 0

    def join(self, bucket_bits: int) -> None:
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

    def wipe(self) -> None:
        """Delete every bucket and the epoch: every worker's epoch ends (join() starts one)."""
        buckets = list(self.client.scan_iter(match=f"{self.key}:{{*", count=10_000))
        for start in range(0, len(buckets), 1000):
            self.client.delete(*buckets[start : start + 1000])
        self.client.delete(self.epoch_key)


class RedisLink:
    """Claims in Redis, one atomic round trip each, and the crawl through outages and wipes.

    **Outages.** If Redis goes away the crawl goes on locally: what the store
    adds meanwhile is kept in :attr:`pending` and claimed in Redis when it
    answers again (retried after a backoff, 0.5 s doubling up to 30 s); its
    writing waits for :attr:`gate` (the scheduler's spill of requests it could
    not push) so a fingerprint never reaches Redis before its request's queue
    entry does.

    **Wipes.** Every claim checks the epoch token first; if it is gone
    (``FLUSHALL``, a restart without persistence, deleted keys) nothing is
    written, an error says what was lost, and :attr:`on_lost` is called.
    """

    def __init__(
        self,
        client: Any,
        epoch: Epoch,
        *,
        count: Callable[[str], None],
        url: str,
        knew: Sequence[Sized],
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.epoch = epoch
        self.url = url
        self._count = count
        self._knew = knew  # the store's own sets, for what a wipe lost (the sets, not the store: no cycle)
        self.on_lost = on_lost
        #: Called before fingerprints kept during an outage are written: False holds them back.
        self.gate: Callable[[], bool] = lambda: True
        self.pending: list[tuple[int, int]] = []  # added while Redis was away
        self._ranks: list[tuple[int, int | str]] = []  # ranks of earlier claims, sent with the next one
        #: With ``DEPTH_LIMIT``: the depth this worker claimed a fingerprint at, stored with its rank.
        self.depth_of: Callable[[int], int | None] | None = None
        self._claim_script = client.register_script(_CLAIM)
        self._retry_at = 0.0
        self._backoff = 0.5
        self.lost = False

    # -- the round trip -----------------------------------------------------------

    def _run(self, items: Sequence[tuple[int, int | str]]) -> list[int] | None:
        """Claim (fingerprint, rank) pairs, sending the ranks kept back with them;
        ``None`` if the state was lost."""
        ranks, self._ranks = self._ranks, []
        epoch = self.epoch
        keys = [epoch.epoch_key]
        args: list[Any] = [epoch.token, len(ranks)]
        depth_of = self.depth_of
        for fingerprint, rank in [*ranks, *items]:
            bucket, field = epoch.locate(fingerprint)
            keys.append(bucket)
            if depth_of is not None and isinstance(rank, int) and rank < DEPTH_UNIT:
                rank = with_depth(rank, depth_of(fingerprint))
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

    def claim(self, items: Sequence[tuple[int, int | str]]) -> list[int] | None:
        """Claim each (fingerprint, rank): -1 where it was new, else the stored rank."""
        try:
            answer = self._run(items)
        except Exception as exc:
            self._failed(exc)
            return None
        self._count("urlnorm/redis/round_trips")
        return answer

    def set_rank(self, fingerprint: int, rank: int | str, *, now: bool = False) -> None:
        """Set the rank of a claim made before it was known (``"d"``: give it back;
        ``"v"``: its page delivered), with the next claim: at once if ``now``, or when
        256 wait."""
        self._ranks.append((fingerprint, rank))
        if (now or len(self._ranks) >= 256) and self.available:
            self.claim([])

    def send_ranks(self) -> None:
        """Send the ranks kept back for the next claim now (a worker with no claim to make)."""
        if self._ranks and not self.lost and self.available:
            self.claim([])

    # -- availability ---------------------------------------------------------------

    @property
    def available(self) -> bool:
        if self.lost:
            return False
        if self._retry_at == 0.0:
            if self.pending and self.gate():
                return self._flush_pending()
            return True
        if time.monotonic() < self._retry_at:
            return False
        return self._reconnect()

    def _epoch_intact(self, why: str) -> bool | None:
        """Whether the crawl's epoch key still holds this crawl's token (``None``: Redis
        did not answer); if not, the state is lost, ``why``."""
        try:
            token = self.client.hget(self.epoch.epoch_key, "token")
        except Exception as exc:
            self._failed(exc)
            return None
        if token is None or token.decode() != self.epoch.token:
            self._state_lost(why)
            return False
        return True

    def _reconnect(self) -> bool:
        if not self._epoch_intact("its epoch key is gone or was replaced (a restart without persistence?)"):
            return False
        logger.warning("Redis at %s is back", self.url)
        self._retry_at = 0.0
        self._backoff = 0.5
        if self.pending and self.gate():
            return self._flush_pending()
        return True

    def flush_pending(self) -> bool:
        """Claim in Redis what was added locally while it was away (the gate
        owner calls this once what it held is safe). True if nothing is left."""
        return not self.pending or (self.available and self._flush_pending())

    def _flush_pending(self) -> bool:
        pending = self.pending
        for start in range(0, len(pending), 1000):
            answer = self.claim(pending[start : start + 1000])
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
            self.epoch.epoch_key,
            why,
            sum(map(len, self._knew)),
        )
        if self.on_lost is not None:
            self.on_lost(why)

    def check_epoch(self) -> bool:
        """False (after saying so loudly, once) if the crawl's state in Redis is gone."""
        if self.lost:
            return False
        if self._retry_at and time.monotonic() < self._retry_at:
            return True  # unknown while Redis is away; checked when it answers
        return self._epoch_intact("its epoch key is gone or was replaced") is not False  # unknown: checked later

    def restart(self) -> None:
        """A clear: wipe the crawl's state in Redis and start a new epoch (what an outage kept goes too)."""
        self.pending.clear()
        try:
            self.epoch.wipe()
            self.lost = False
            self.epoch.join(self.epoch.bucket_bits)
        except Exception as exc:
            self._failed(exc)

    def close(self) -> None:
        """Send what still waits: the ranks of earlier claims, then what was kept during an outage."""
        self.send_ranks()
        if self.pending and not self.lost:
            self.flush_pending()
        if self.pending and not self.lost:
            logger.error("Redis at %s unreachable at close: %d fingerprint(s) not shared", self.url, len(self.pending))
