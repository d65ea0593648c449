"""The seen set: compact fingerprint storage, in memory and in ``JOBDIR``.

:class:`FingerprintSet` is an open-addressing hash table (linear probing) of
64-bit fingerprints in one NumPy buffer, with a parallel byte per slot for the
*rank* of the riskiest normalization step that changed the stored URL (used to
say why a later request was a duplicate). It doubles when three quarters full,
so it holds 9 bytes per slot and between 12 and 24 bytes per stored URL (about
19 at one million). A Python ``set`` of Scrapy's 20-byte fingerprints costs
~90 bytes per URL.

Fingerprints come from xxh3, already well mixed, so the low bits index the
table directly. The value 0 marks an empty slot; a fingerprint that happens to
be 0 is stored as 1 (one more collision in 2**64).

:class:`SeenFile` appends each new fingerprint to a file with an unbuffered
``write`` (so a ``kill -9`` of the crawl loses nothing the kernel was given)
and checks every record when loading, so a torn last record is dropped
instead of failing the resume.
"""

from __future__ import annotations

import logging
import os
import struct
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

_MASK64 = (1 << 64) - 1
_MAX_LOAD = 0.75


class FingerprintSet:
    """A set of 64- or 128-bit integer fingerprints, each with a one-byte rank."""

    def __init__(self, bits: int = 64, capacity: int = 1 << 10) -> None:
        if bits not in (64, 128):
            raise ValueError(f"fingerprint bits must be 64 or 128, not {bits}")
        self.bits = bits
        self._wide = bits == 128
        self._len = 0
        self._allocate(max(1 << 4, 1 << (max(capacity, 1) - 1).bit_length()))

    def _allocate(self, capacity: int) -> None:
        self._capacity = capacity
        self._mask = capacity - 1
        self._limit = int(capacity * _MAX_LOAD)
        self._keys = np.zeros(capacity, dtype=np.uint64)
        self._ranks = np.zeros(capacity, dtype=np.uint8)
        self._lows = np.zeros(capacity, dtype=np.uint64) if self._wide else None
        # memoryviews give plain Python ints per element, far cheaper than
        # NumPy scalars on the one-at-a-time hot path.
        self._key_view = memoryview(self._keys)
        self._rank_view = memoryview(self._ranks)
        self._low_view = memoryview(self._lows) if self._lows is not None else None

    def __len__(self) -> int:
        return self._len

    @property
    def nbytes(self) -> int:
        """Bytes held by the table's buffers."""
        return self._keys.nbytes + self._ranks.nbytes + (self._lows.nbytes if self._lows is not None else 0)

    def _split(self, fingerprint: int) -> tuple[int, int]:
        if self._wide:
            high, low = fingerprint >> 64, fingerprint & _MASK64
        else:
            high, low = fingerprint, 0
        return (high or 1), low

    def _slot(self, high: int, low: int) -> int:
        """Index of the slot holding the key, or of the empty slot it would take."""
        keys, lows, mask = self._key_view, self._low_view, self._mask
        index = high & mask
        while True:
            key = keys[index]
            if key == 0 or (key == high and (lows is None or lows[index] == low)):
                return index
            index = (index + 1) & mask

    def add(self, fingerprint: int, rank: int = 0) -> int | None:
        """Add ``fingerprint``; ``None`` if it is new, else the rank stored with it."""
        high, low = self._split(fingerprint)
        index = self._slot(high, low)
        if self._key_view[index]:
            return self._rank_view[index]
        self._key_view[index] = high
        self._rank_view[index] = rank
        if self._low_view is not None:
            self._low_view[index] = low
        self._len += 1
        if self._len > self._limit:
            self._grow()
        return None

    def get(self, fingerprint: int) -> int | None:
        """The rank stored with ``fingerprint``, or ``None`` if absent."""
        index = self._slot(*self._split(fingerprint))
        return self._rank_view[index] if self._key_view[index] else None

    def __contains__(self, fingerprint: object) -> bool:
        return isinstance(fingerprint, int) and self.get(fingerprint) is not None

    def clear(self) -> None:
        self._len = 0
        self._allocate(1 << 10)

    def _grow(self) -> None:
        keys, lows, ranks = self.export()
        self._allocate(self._capacity * 2)
        self._place(keys, lows, ranks)

    def add_many(self, keys: np.ndarray, lows: np.ndarray | None, ranks: np.ndarray) -> None:
        """Bulk-add fingerprints (high words, low words for 128-bit, ranks),
        e.g. when loading ``JOBDIR``. Duplicates and present ones are skipped."""
        keys = np.where(keys == 0, np.uint64(1), keys).astype(np.uint64)
        if lows is None:
            _, first = np.unique(keys, return_index=True)
        else:
            pairs = np.stack([keys, lows], axis=1)
            _, first = np.unique(pairs, axis=0, return_index=True)
        first.sort()
        keys, ranks = keys[first], ranks[first].astype(np.uint8)
        lows = lows[first] if lows is not None else None
        if self._len:
            present = np.fromiter(
                (self.get(int(k) << 64 | int(lw) if lows is not None else int(k)) is not None
                 for k, lw in zip(keys, lows if lows is not None else keys, strict=True)),
                dtype=bool, count=len(keys),
            )  # fmt: skip
            keys, ranks = keys[~present], ranks[~present]
            lows = lows[~present] if lows is not None else None
        needed = self._len + len(keys)
        capacity = self._capacity
        while needed > int(capacity * _MAX_LOAD):
            capacity *= 2
        if capacity != self._capacity:
            old = self.export()
            self._allocate(capacity)
            self._place(*old)
        self._place(keys, lows, ranks)
        self._len = needed

    def _place(self, keys: np.ndarray, lows: np.ndarray | None, ranks: np.ndarray) -> None:
        """Vectorized linear-probing insert of keys known to be absent.

        Each round, every pending key whose slot is empty competes for it and
        the first one wins; the rest move one slot on. Slots only ever fill,
        so every key ends at the first free slot of its probe sequence as seen
        when it passed, which is all a lookup needs.
        """
        mask = np.uint64(self._mask)
        slots = (keys & mask).astype(np.int64)
        pending = np.arange(len(keys))
        while pending.size:
            candidate_slots = slots[pending]
            free = self._keys[candidate_slots] == 0
            contenders = pending[free]
            won_slots, first = np.unique(candidate_slots[free], return_index=True)
            winners = contenders[first]
            self._keys[won_slots] = keys[winners]
            self._ranks[won_slots] = ranks[winners]
            if self._lows is not None and lows is not None:
                self._lows[won_slots] = lows[winners]
            placed = np.zeros(len(keys), dtype=bool)
            placed[winners] = True
            pending = pending[~placed[pending]]
            slots[pending] = (slots[pending] + 1) & self._mask

    def export(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(high words, low words or None, ranks) of every stored fingerprint."""
        occupied = self._keys != 0
        lows = self._lows[occupied] if self._lows is not None else None
        return self._keys[occupied], lows, self._ranks[occupied]


# -- the JOBDIR file ------------------------------------------------------------

_MAGIC = b"URLNORM-SEEN-1\n"
_C1, _C2, _C3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9


def _record_dtype(bits: int) -> np.dtype:
    fields = [("key", "<u8")]
    if bits == 128:
        fields.append(("low", "<u8"))
    fields += [("rank", "u1"), ("pad", "V3"), ("check", "<u4")]
    return np.dtype(fields)


def _check_words(keys: np.ndarray, lows: np.ndarray | None, ranks: np.ndarray) -> np.ndarray:
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
        self._dtype = _record_dtype(bits)
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
        size = self._dtype.itemsize
        whole = len(body) - len(body) % size
        records = np.frombuffer(body[:whole], dtype=self._dtype)
        lows = records["low"] if self.bits == 128 else None
        good = records["check"] == _check_words(records["key"], lows, records["rank"])
        self.dropped = int((~good).sum()) + (1 if whole != len(body) else 0)
        if self.dropped:
            logger.warning(
                "Ignored %d torn or corrupt record(s) in %s (an interrupted write); the rest loaded",
                self.dropped,
                self.path,
            )
        records = records[good]
        table.add_many(records["key"], records["low"] if self.bits == 128 else None, records["rank"])
        self.loaded = len(records)
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
