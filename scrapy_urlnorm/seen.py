"""The seen set: compact fingerprint storage, in memory and in ``JOBDIR``.

:class:`FingerprintSet` is an *ordered* open-addressing hash table of 64-bit
fingerprints (Amble and Knuth's ordered linear probing) in a stdlib
``array('Q')``, with a parallel ``bytearray`` holding, per slot, the *rank* of
the riskiest normalization step that changed the stored URL (used to say why
a later request was a duplicate): 9 bytes per slot.

- A fingerprint's home slot is ``(fingerprint * capacity) >> 64`` (computed on
  its top 32 bits), so homes grow with the fingerprint, and the table keeps
  its keys in increasing order: a lookup stops at the first key not smaller
  than the one it looks for (about 5 slots at 90% load, 9 at 94%, where
  plain linear probing would read 50 and 140 for an absent key), and an
  insert shifts the rest of its run one slot right with one C-level
  ``memmove``.
- Probing never wraps: a few spare slots past the last home take the last
  run's overflow.
- It holds up to 94% load and grows by 1.15x, so it is between 82% and 94%
  full: 9.7 to 11.1 bytes per stored URL at any size (a Python ``set`` of
  Scrapy's 20-byte fingerprints costs ~90).
- Growing re-places the sorted keys in one pass: with NumPy as whole-array
  operations, else in a Python loop (the table itself needs no NumPy).

Fingerprints come from xxh3, already well mixed. The value 0 marks an empty
slot; a fingerprint that happens to be 0 is stored as 1 (one more collision
in 2**64). 128-bit fingerprints keep their low word in a third array (17
bytes per slot), ordered by (high, low).

:class:`SeenFile` appends each new fingerprint to a file with an unbuffered
``write`` (so a ``kill -9`` of the crawl loses nothing the kernel was given)
and checks every record when loading, so a torn last record is dropped
instead of failing the resume.
"""

from __future__ import annotations

import logging
import os
import struct
from array import array
from collections.abc import Sequence
from itertools import repeat
from pathlib import Path
from typing import Any

try:  # optional: whole-array growth and loading; the table works without it
    import numpy as np
except ImportError:  # pragma: no cover - exercised by the no-NumPy test
    np = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

_MASK64 = (1 << 64) - 1
_MAX_LOAD = 0.94
_GROWTH = 1.15
_INITIAL = 1 << 10


def _tail(capacity: int) -> int:
    """Spare slots past the last home slot (probing never wraps around)."""
    return 32 + (capacity >> 7)


class OrderedSlots:
    """The table's memory: per slot a key (the high word), a rank and, for 128-bit
    fingerprints, a low word, in flat arrays; keys sit in increasing order, and
    growing re-places them in one pass."""

    def __init__(self, wide: bool, capacity: int) -> None:
        self._wide = wide
        self._len = 0
        self.use_numpy = np is not None
        self._allocate(max(16, capacity))

    def _allocate(self, capacity: int) -> None:
        self._capacity = capacity
        self._limit = int(capacity * _MAX_LOAD)
        size = capacity + _tail(capacity)
        self._end = size - 1  # the last slot always stays empty: every probe stops there
        self._keys = array("Q", bytes(8 * size))
        self._ranks = bytearray(size)
        self._lows: array[int] | None = array("Q", bytes(8 * size)) if self._wide else None
        # The filter asks get() and then add() for the same new key: get() leaves
        # where its probe stopped, for add() to start there while nothing moved.
        self._probe_high = 0  # no key: fingerprints are stored as 1 and up
        self._probe_index = 0

    def __len__(self) -> int:
        return self._len

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def nbytes(self) -> int:
        """Bytes held by the table's buffers."""
        size = len(self._ranks)
        return size * (17 if self._wide else 9)

    def clear(self) -> None:
        self._len = 0
        self._allocate(_INITIAL)

    def _grow(self) -> None:
        self._rebuild(max(self._capacity + 1, int(self._capacity * _GROWTH)))

    def _rebuild(self, capacity: int) -> None:
        """Re-place every key, in order, in a table of ``capacity`` home slots."""
        if self.use_numpy:
            self._rebuild_numpy(capacity)
            return
        keys, ranks, lows = self._keys, self._ranks, self._lows
        occupied = [i for i, key in enumerate(keys) if key]
        while True:
            self._allocate(capacity)
            new_keys, new_ranks, new_lows = self._keys, self._ranks, self._lows
            end = self._end
            position = -1
            for i in occupied:
                key = keys[i]
                home = ((key >> 32) * capacity) >> 32
                position = home if home > position else position + 1
                if position >= end:
                    break
                new_keys[position] = key
                new_ranks[position] = ranks[i]
                if new_lows is not None and lows is not None:
                    new_lows[position] = lows[i]
            else:
                return
            capacity += capacity >> 4  # the spare slots overflowed: a little larger

    def _rebuild_numpy(self, capacity: int) -> None:
        old_keys = np.frombuffer(self._keys, dtype=np.uint64)
        occupied = np.flatnonzero(old_keys)
        keys = old_keys[occupied]
        ranks = np.frombuffer(self._ranks, dtype=np.uint8)[occupied]
        lows = np.frombuffer(self._lows, dtype=np.uint64)[occupied] if self._lows is not None else None
        del old_keys
        self._place_sorted(keys, lows, ranks, capacity)

    def _place_sorted(self, keys: Any, lows: Any, ranks: Any, capacity: int) -> None:
        """Fill a new table with NumPy arrays of keys in increasing order."""
        count = len(keys)
        steps = np.arange(count, dtype=np.int64)
        while True:
            homes = (((keys >> np.uint64(32)) * np.uint64(capacity)) >> np.uint64(32)).astype(np.int64)
            # Each key goes to its home or right after the previous key, whichever is later.
            positions = np.maximum.accumulate(homes - steps) + steps if count else steps
            size = capacity + _tail(capacity)
            if not count or positions[-1] < size - 1:
                break
            capacity += capacity >> 4
        self._allocate(capacity)
        np.frombuffer(self._keys, dtype=np.uint64)[positions] = keys
        np.frombuffer(self._ranks, dtype=np.uint8)[positions] = ranks
        if self._lows is not None and lows is not None:
            np.frombuffer(self._lows, dtype=np.uint64)[positions] = lows

    def _capacity_for(self, count: int) -> int:
        """A capacity that holds ``count`` keys at most 85% full (room before the next growth)."""
        return max(self._capacity, _INITIAL, int(count / 0.85) + 1)


class FingerprintSet(OrderedSlots):
    """A set of 64- or 128-bit integer fingerprints, each with a one-byte rank."""

    def __init__(self, bits: int = 64, capacity: int = _INITIAL) -> None:
        if bits not in (64, 128):
            raise ValueError(f"fingerprint bits must be 64 or 128, not {bits}")
        self.bits = bits
        super().__init__(bits == 128, capacity)
        if not self._wide:  # the common case, without the 128-bit branches
            self.add = self._add64  # type: ignore[method-assign]
            self.get = self._get64  # type: ignore[method-assign]

    def _split(self, fingerprint: int) -> tuple[int, int]:
        if self._wide:
            return (fingerprint >> 64) or 1, fingerprint & _MASK64
        return fingerprint or 1, 0

    def _find(self, high: int, low: int) -> int:
        """The slot holding the key, or the slot it belongs in (empty, or
        holding the next larger key)."""
        keys = self._keys
        index = ((high >> 32) * self._capacity) >> 32
        if self._lows is None:
            while True:
                key = keys[index]
                if key >= high or not key:
                    return index
                index += 1
        lows = self._lows
        while True:
            key = keys[index]
            if not key or key > high or (key == high and lows[index] >= low):
                return index
            index += 1

    def add(self, fingerprint: int, rank: int = 0) -> int | None:
        """Add ``fingerprint``; ``None`` if it is new, else the rank stored with it."""
        high, low = self._split(fingerprint)
        index = self._find(high, low)
        keys = self._keys
        key = keys[index]
        if key == high and (self._lows is None or self._lows[index] == low):
            return self._ranks[index]
        if key:  # a larger key: shift the rest of the run one slot right
            free = keys.index(0, index)
            if free == self._end:
                self._grow()
                return self.add(fingerprint, rank)
            keys[index + 1 : free + 1] = keys[index:free]
            ranks = self._ranks
            ranks[index + 1 : free + 1] = ranks[index:free]
            if self._lows is not None:
                self._lows[index + 1 : free + 1] = self._lows[index:free]
        elif index == self._end:
            self._grow()
            return self.add(fingerprint, rank)
        keys[index] = high
        self._ranks[index] = rank
        if self._lows is not None:
            self._lows[index] = low
        self._probe_high = 0
        self._len += 1
        if self._len > self._limit:
            self._grow()
        return None

    def _add64(self, fingerprint: int, rank: int = 0) -> int | None:
        """:meth:`add` for 64-bit fingerprints (``_find`` inlined)."""
        high = fingerprint or 1
        keys = self._keys
        if high == self._probe_high:
            index = self._probe_index
            key = keys[index]
        else:
            index = ((high >> 32) * self._capacity) >> 32
            while True:
                key = keys[index]
                if key >= high or not key:
                    break
                index += 1
        if key == high:
            return self._ranks[index]
        if key:  # a larger key: shift the rest of the run one slot right
            free = keys.index(0, index)
            if free == self._end:
                self._grow()
                return self._add64(fingerprint, rank)
            keys[index + 1 : free + 1] = keys[index:free]
            ranks = self._ranks
            ranks[index + 1 : free + 1] = ranks[index:free]
        elif index == self._end:
            self._grow()
            return self._add64(fingerprint, rank)
        keys[index] = high
        self._ranks[index] = rank
        self._probe_high = 0
        self._len += 1
        if self._len > self._limit:
            self._grow()
        return None

    def _get64(self, fingerprint: int) -> int | None:
        high = fingerprint or 1
        keys = self._keys
        index = ((high >> 32) * self._capacity) >> 32
        while True:
            key = keys[index]
            if key >= high or not key:
                if key == high:
                    return self._ranks[index]
                self._probe_high = high
                self._probe_index = index
                return None
            index += 1

    def get(self, fingerprint: int) -> int | None:
        """The rank stored with ``fingerprint``, or ``None`` if absent."""
        high, low = self._split(fingerprint)
        index = self._find(high, low)
        if self._keys[index] == high and (self._lows is None or self._lows[index] == low):
            return self._ranks[index]
        return None

    def __contains__(self, fingerprint: object) -> bool:
        return isinstance(fingerprint, int) and self.get(fingerprint) is not None

    def add_many(self, keys: Sequence[int] | Any, lows: Sequence[int] | Any | None, ranks: Sequence[int] | Any) -> None:
        """Bulk-add fingerprints (high words, low words for 128-bit, ranks),
        e.g. when loading ``JOBDIR``. Duplicates and present ones are skipped
        (the first rank stays)."""
        if self.use_numpy:
            self._add_many_numpy(keys, lows, ranks)
            return
        wide = self._lows is not None
        merged: dict[int, int] = {}  # key (high << 64 | low for 128 bits) -> rank
        for i, key in enumerate(self._keys):
            if key:
                merged[(key << 64 | self._lows[i]) if self._lows is not None else key] = self._ranks[i]
        low_words = lows if lows is not None else repeat(0)
        for key, low, rank in zip(keys, low_words, ranks, strict=False):
            high = int(key) or 1
            merged.setdefault((high << 64 | int(low)) if wide else high, int(rank))
        order = sorted(merged)
        self._len = len(order)
        self._keys = array("Q", [key >> 64 for key in order] if wide else order)
        self._ranks = bytearray(merged[key] for key in order)
        self._lows = array("Q", [key & _MASK64 for key in order]) if wide else None
        self._capacity = len(order)  # _rebuild reads the compact arrays as a table with no gaps
        self._rebuild(self._capacity_for(len(order)))

    def _add_many_numpy(self, keys: Any, lows: Any, ranks: Any) -> None:
        old_keys = np.frombuffer(self._keys, dtype=np.uint64)
        occupied = np.flatnonzero(old_keys)
        keys = np.concatenate([old_keys[occupied], np.where(np.asarray(keys) == 0, 1, keys).astype(np.uint64)])
        ranks = np.concatenate([np.frombuffer(self._ranks, dtype=np.uint8)[occupied], np.asarray(ranks, np.uint8)])
        del old_keys
        if self._lows is None:
            keys, first = np.unique(keys, return_index=True)  # sorted; the first occurrence (present ones) wins
            lows = None
        else:
            old_lows = np.frombuffer(self._lows, dtype=np.uint64)[occupied]
            lows = np.concatenate([old_lows, np.asarray(lows, dtype=np.uint64)])
            pairs, first = np.unique(np.stack([keys, lows], axis=1), axis=0, return_index=True)
            keys, lows = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
        ranks = ranks[first]
        self._len = len(keys)
        self._place_sorted(keys, lows, ranks, self._capacity_for(len(keys)))


# -- the JOBDIR file ------------------------------------------------------------

_MAGIC = b"URLNORM-SEEN-1\n"
_C1, _C2, _C3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9


def _record_dtype(bits: int) -> Any:
    fields = [("key", "<u8")]
    if bits == 128:
        fields.append(("low", "<u8"))
    fields += [("rank", "u1"), ("pad", "V3"), ("check", "<u4")]
    return np.dtype(fields)


def _check_words(keys: Any, lows: Any, ranks: Any) -> Any:
    """Vectorized :func:`_check_word`."""
    mixed = keys * np.uint64(_C1)
    if lows is not None:
        mixed ^= lows * np.uint64(_C2)
    mixed ^= (ranks.astype(np.uint64) + np.uint64(1)) * np.uint64(_C3)
    return (mixed >> np.uint64(32)).astype(np.uint32)


def _check_word(key: int, low: int, rank: int) -> int:
    """A 32-bit hash of a record's other fields (every field moves the top bits)."""
    return (((key * _C1) ^ (low * _C2) ^ ((rank + 1) * _C3)) & _MASK64) >> 32


_RECORD_64 = struct.Struct("<QB3xI")
_RECORD_128 = struct.Struct("<QQB3xI")


class SeenFile:
    """Append-only, self-checking record of seen fingerprints in ``JOBDIR``.

    Layout: a header line (magic, then ``bits=64`` or ``bits=128``), then
    fixed-size little-endian records ``key[, low], rank, 3 pad bytes, check``,
    where ``check`` is a hash of the rest. Loading keeps every record whose
    check matches and stops at a torn tail.
    """

    def __init__(self, path: str | os.PathLike[str], bits: int = 64) -> None:
        self.path = Path(path)
        self.bits = bits
        self._record = _RECORD_128 if bits == 128 else _RECORD_64
        self._fd: int | None = None
        self._held: bytearray | None = None
        self.loaded = 0
        self.dropped = 0

    def _header(self) -> bytes:
        return _MAGIC + f"bits={self.bits}\n".encode()

    def load_into(self, table: FingerprintSet) -> int:
        """Add every intact record to ``table``; return how many were loaded."""
        header = self._header()
        if not self.path.exists() or self.path.stat().st_size < len(header):
            return 0
        data = self.path.read_bytes()
        if not data.startswith(_MAGIC):
            raise ValueError(f"{self.path} is not a scrapy-urlnorm seen file")
        if not data.startswith(header):
            found = data[len(_MAGIC) :].split(b"\n", 1)[0].decode(errors="replace")
            raise ValueError(
                f"{self.path} holds {found} fingerprints but URLNORM_FINGERPRINT_BITS={self.bits}; "
                "use the same setting as the crawl that wrote it, or a new JOBDIR"
            )
        body = memoryview(data)[len(header) :]
        size = self._record.size
        whole = len(body) - len(body) % size
        if np is not None:
            records = np.frombuffer(body[:whole], dtype=_record_dtype(self.bits))
            lows = records["low"] if self.bits == 128 else None
            good = records["check"] == _check_words(records["key"], lows, records["rank"])
            corrupt = int((~good).sum())
            records = records[good]
            keys, ranks = records["key"], records["rank"]
            lows = records["low"] if self.bits == 128 else None
        else:
            keys, low_list, ranks = [], [], []
            corrupt = 0
            wide = self.bits == 128
            for fields in self._record.iter_unpack(body[:whole]):
                key, low, rank, check = fields if wide else (fields[0], 0, fields[1], fields[2])
                if check != _check_word(key, low, rank):
                    corrupt += 1
                    continue
                keys.append(key)
                low_list.append(low)
                ranks.append(rank)
            lows = low_list if wide else None
        self.dropped = corrupt + (1 if whole != len(body) else 0)
        if self.dropped:
            logger.warning(
                "Ignored %d torn or corrupt record(s) in %s (an interrupted write); the rest loaded",
                self.dropped,
                self.path,
            )
        table.add_many(keys, lows, ranks)
        self.loaded = len(keys)
        if whole != len(body):
            # Cut the torn tail so new records start on a record boundary.
            with self.path.open("r+b") as handle:
                handle.truncate(len(header) + whole)
        return self.loaded

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size < len(self._header())
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if new:
            os.ftruncate(self._fd, 0)
            os.write(self._fd, self._header())

    def append(self, fingerprint: int, rank: int) -> None:
        if self._fd is None:
            return
        if self.bits == 128:
            key, low = (fingerprint >> 64) or 1, fingerprint & _MASK64
            record = _RECORD_128.pack(key, low, rank, _check_word(key, low, rank))
        else:
            key = fingerprint or 1
            record = _RECORD_64.pack(key, rank, _check_word(key, 0, rank))
        if self._held is not None:
            self._held += record
            return
        # One unbuffered write per record: once it returns, a kill -9 of the
        # crawl cannot lose it (a power cut still can: there is no fsync).
        os.write(self._fd, record)

    def hold(self) -> None:
        """Keep new records in memory until :meth:`flush` (see ``UrlNormDupeFilter.hold_writes``)."""
        if self._held is None:
            self._held = bytearray()

    def flush(self) -> None:
        """Write the held records, in one write."""
        if self._held and self._fd is not None:
            os.write(self._fd, self._held)
            self._held.clear()

    def close(self) -> None:
        self.flush()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
