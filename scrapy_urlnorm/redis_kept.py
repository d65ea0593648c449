"""Drops kept in Redis, where they outlive the worker that made them (``kill -9``).

:class:`SharedForeignDrops` keeps the static drops against other workers' pages,
:class:`SharedParkedDrops` mirrors the learned drops a worker parked.

A static step drops ``/x?utm_source=a`` against the ``/x`` another worker
queued (see :class:`~scrapy_urlnorm.holds.ForeignDrops`). If that request then
settles without delivering, the drop must be released, and the worker that made
it may be dead by then (``kill -9``): kept in its memory, the drop died with it
(``bench_differential.py --redis 2 --kills 1 --robots``, seed 147221). So each
such drop is written into Redis, under the key it was dropped against
(``<bucket>:k:<field>``, beside that key's field in the shared seen set), before
the lease of the page that yielded it is acknowledged: killed sooner, that page
is fetched again by another worker, and its links with it.

What becomes of a key decides what becomes of the list, atomically in Redis:

- its page delivers: the worker that fetched it marks the field delivered (with
  its next claim) and deletes the list in the same script; a drop made after
  that is not written (the script reads the mark);
- its request fails: the worker that fetched it adds the key to
  ``<queue>:failed:keys``, tells every worker (``<queue>:failed``), and then, as
  every worker told, takes the list (whoever comes first takes it all) and
  releases what it holds through its own filter; a drop made after that is not
  written, but released by the worker that made it.

A learned drop against a delivered page is parked, to be released if its rule is
revoked; :class:`SharedParkedDrops` mirrors those, and the worker that reclaims
what a dead worker held puts them through its own filter again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .holds import MAX_FOREIGN_DROPS, ForeignDrops
from .redis_setup import LEASE, PARENT

if TYPE_CHECKING:
    from scrapy import Request

    from .ledger import Drop
    from .stores import RedisStore

logger = logging.getLogger(__name__)

#: Keep drops: KEYS = [epoch, failed keys, bucket...]; ARGV = [field, key, entry, ...].
#: Per drop: 0 if its key failed (not written: the caller releases it), 2 if its page
#: delivered (nothing to keep), else 1 (pushed to ``<bucket>:k:<field>``).
_KEEP = """
local cap = tonumber(redis.call('HGET', KEYS[1], 'cap')) or 0
local function stored(bucket, field)
  local link, i = bucket, 0
  while true do
    local v = redis.call('HGET', link, field)
    if v then return v end
    if cap == 0 or redis.call('HLEN', link) < cap then return nil end
    i = i + 1
    link = bucket .. ':' .. i
  end
end
local out = {}
for i = 3, #KEYS do
  local field, key, entry = ARGV[3 * i - 8], ARGV[3 * i - 7], ARGV[3 * i - 6]
  local v = stored(KEYS[i], field)
  if redis.call('SISMEMBER', KEYS[2], key) == 1 then
    out[i - 2] = 0
  elseif v and v ~= 'x' and tonumber(v) >= 1000 then
    out[i - 2] = 2
  else
    redis.call('RPUSH', KEYS[i] .. ':k:' .. field, entry)
    out[i - 2] = 1
  end
end
return out
"""

#: Take what was kept against failed keys: KEYS = [kept list...]; returns every entry.
_TAKE = """
local out = {}
for _, list in ipairs(KEYS) do
  for _, entry in ipairs(redis.call('LRANGE', list, 0, -1)) do out[#out + 1] = entry end
  redis.call('DEL', list)
end
return out
"""


class _RequestsInRedis:
    """Requests written into Redis by one worker and rebuilt by any."""

    def __init__(
        self,
        encode: Callable[[Request], bytes],
        decode: Callable[[bytes], Request],
        count: Callable[[str, int], None],
    ) -> None:
        self._encode = encode
        self._decode = decode
        self._stat = count

    def _entry(self, request: Request) -> bytes:
        """``request`` serialized without this worker's lease ids: the worker that takes
        it settles none of them. Raises what serializing raises (see ``UNSERIALIZABLE``)."""
        meta = request.meta
        leases = {name: meta.pop(name) for name in (PARENT, LEASE) if name in meta}
        try:
            return self._encode(request)
        finally:
            meta.update(leases)

    def _rebuilt(self, entries: list[bytes], what: str, unreadable: str) -> list[Request]:
        """The requests of ``entries``; one that does not rebuild is logged (``what`` became
        of it) and counted under ``unreadable``: said, not silent."""
        requests = []
        for entry in entries:
            try:
                requests.append(self._decode(entry))
            except Exception as exc:  # not a request this spider can rebuild
                logger.error("A drop kept in Redis could not be rebuilt, %s (%s): %r", what, exc, entry[:80])
                self._stat(unreadable, 1)
        return requests


class SharedForeignDrops(_RequestsInRedis, ForeignDrops):
    """:class:`~scrapy_urlnorm.holds.ForeignDrops` written into Redis (see the module doc).

    A drop waits here, serialized, until :meth:`send` writes it (before the
    lease of the page that yielded it is acknowledged, and twice a second). A
    request that does not serialize for Redis is fetched instead, as is one
    past ``limit`` drops waiting."""

    def __init__(
        self,
        store: RedisStore,
        failed_keys: str,
        encode: Callable[[Request], bytes],
        decode: Callable[[bytes], Request],
        *,
        count: Callable[[str, int], None],
        limit: int = MAX_FOREIGN_DROPS,
    ) -> None:
        _RequestsInRedis.__init__(self, encode, decode, count)
        ForeignDrops.__init__(self, limit)
        self.store = store
        self.failed_keys = failed_keys
        self._unsent: list[tuple[int, bytes, Request]] = []
        self._untaken: set[int] = set()  # failed keys whose lists Redis did not give yet
        client = store.client
        self._keep_script = client.register_script(_KEEP)
        self._take_script = client.register_script(_TAKE)

    def __len__(self) -> int:
        return len(self._unsent)

    def _list(self, key: int) -> bytes:
        bucket, field = self.store.locate(key)
        return bucket.encode() + b":k:" + field

    def delivered(self, key: int) -> None:
        """The page of ``key`` delivered here: marked in Redis with the next claim, which
        deletes what any worker kept against it (and claims of it answer it delivered)."""
        if self.store.delivered.add(key, 0) is None:
            self.store.link.set_rank(key, "v")

    def keep(self, key: int, request: Request) -> bool:
        if self.store.delivered.get(key) is not None:
            return True  # its page delivered: the drop is discharged already
        try:
            entry = self._entry(request)
        except Exception:  # (what UNSERIALIZABLE names) kept in memory it would die with this worker
            return False  # fetched
        if len(self._unsent) >= self.limit:
            return False
        self._unsent.append((key, entry, request))
        return True

    def send(self) -> list[tuple[int, Request]] | None:
        """Write the drops kept since the last call into Redis. Returns those whose key
        failed meanwhile, with that key (the caller releases them); ``None`` if Redis did
        not take them (they wait for the next call: the lease they came with is not
        acknowledged)."""
        unsent = self._unsent
        if not unsent:
            return []
        keys: list[Any] = [self.store.epoch.epoch_key, self.failed_keys]
        args: list[Any] = []
        for key, entry, _ in unsent:
            bucket, field = self.store.locate(key)
            keys.append(bucket)
            args += (field, f"{key:x}", entry)
        try:
            answer = self._keep_script(keys=keys, args=args)
        except Exception as exc:
            logger.debug("Could not keep %d drop(s) in Redis yet: %s", len(unsent), exc)
            return None
        self._unsent = []
        kept = sum(1 for state in answer if state == 1)
        if kept:
            self._stat("urlnorm/redis/foreign_kept", kept)
        return [(key, request) for (key, _, request), state in zip(unsent, answer, strict=True) if state == 0]

    def take(self, keys: Iterable[int]) -> list[Request]:
        """What was kept against ``keys``, which did not deliver, here and in Redis
        (whichever worker kept it): to be released."""
        keys = set(keys) | self._untaken
        unsent = [drop for drop in self._unsent if drop[0] not in keys]
        requests = [request for key, _, request in self._unsent if key in keys]
        self._unsent = unsent
        if not keys:
            return requests
        try:
            entries = self._take_script(keys=[self._list(key) for key in keys])
        except Exception as exc:  # taken with the next failure read (still in Redis)
            logger.debug("Could not take the drops kept against %d failed key(s): %s", len(keys), exc)
            self._untaken = keys
            return requests
        self._untaken = set()
        return requests + self._rebuilt(entries, "not released", "urlnorm/redis/foreign_unreadable")


class SharedParkedDrops(_RequestsInRedis):
    """The learned drops this worker parked, mirrored into Redis so they outlive it.

    A learned drop against a delivered page is parked, to be released if the rule is
    revoked (:mod:`scrapy_urlnorm.parking`). Killed, the worker could release none of
    them. So each is written into ``<queue>:parked:<worker>`` (one entry per URL,
    before the lease of the page that yielded it is acknowledged), and the worker that
    reclaims what a dead worker held takes that hash too and puts each request through
    its own filter again: dropped again under the rules still active (parked there in
    turn), fetched where a rule was revoked meanwhile. Entries are deleted with the
    hash when the worker closes; a drop released since it was written is checked again
    at worst, and its URL, fetched by then, is a duplicate the filter drops.
    A request that does not serialize is not mirrored (kept in memory, as before)."""

    def __init__(
        self,
        server: Any,
        key: str,
        encode: Callable[[Request], bytes],
        decode: Callable[[bytes], Request],
        *,
        count: Callable[[str, int], None],
    ) -> None:
        super().__init__(encode, decode, count)
        self.server = server
        self.key = key
        self._unsent: dict[str, bytes] = {}

    def __len__(self) -> int:
        return len(self._unsent)

    def parked(self, drop: Drop) -> None:
        """``drop`` was parked: written with the next :meth:`send`."""
        try:
            self._unsent[drop.url] = self._entry(drop.request)
        except Exception:  # (what UNSERIALIZABLE names) kept in memory only, as before
            self._stat("urlnorm/redis/parked_unshared", 1)

    def send(self) -> bool:
        """Write what was parked since the last call; False if Redis did not take it."""
        if not self._unsent:
            return True
        try:
            self.server.hset(self.key, mapping=self._unsent)
        except Exception as exc:
            logger.debug("Could not share %d parked drop(s) yet: %s", len(self._unsent), exc)
            return False
        self._stat("urlnorm/redis/parked_shared", len(self._unsent))
        self._unsent = {}
        return True

    def adopted(self, entries: list[bytes]) -> list[Request]:
        """The requests a dead worker parked, rebuilt (to go through the filter again)."""
        requests = self._rebuilt(entries, "not checked again", "urlnorm/redis/parked_unreadable")
        self._stat("urlnorm/redis/parked_adopted", len(requests))
        return requests
