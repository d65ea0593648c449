"""The compact seen set and its JOBDIR file."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from scrapy_urlnorm.seen import FingerprintSet, SeenFile


@pytest.mark.parametrize("bits", [64, 128])
def test_add_get_grow_and_ranks(bits: int) -> None:
    rng = random.Random(bits)
    values = [rng.getrandbits(bits) | 1 << (bits - 1) for _ in range(20_000)]
    table = FingerprintSet(bits)
    for i, value in enumerate(values):
        assert table.add(value, i % 200) is None
    assert len(table) == len(values)
    for i, value in enumerate(values):
        assert table.get(value) == i % 200
        assert table.add(value, 255) == i % 200
    assert table.get(rng.getrandbits(bits - 1)) is None
    # 0 marks an empty slot: a zero fingerprint is stored as 1 (one more collision in 2**bits)
    zero = FingerprintSet(64)
    assert zero.add(0, 7) is None and zero.add(1) == 7
    assert table.nbytes <= 9 * 2 * 32_768 + (8 * 32_768 * 2 if bits == 128 else 0)


def test_get_then_add_in_any_interleaving_agrees_with_a_set() -> None:
    # get() leaves where its probe stopped for the add() of the same key that
    # follows (the filter's check, then claim): any add or growth in between
    # must make add() probe again, or keys land out of order and are lost.
    rng = random.Random(7)
    pool = [rng.getrandbits(64) for _ in range(3_000)] + [0, 1, 2]
    table, model = FingerprintSet(64, capacity=16), {}
    for _ in range(30_000):
        first, second = rng.choice(pool), rng.choice(pool)
        assert table.get(first) == model.get(first or 1)
        if rng.random() < 0.5:  # something moves in between
            assert table.add(second, 3) == model.get(second or 1)
            model.setdefault(second or 1, 3)
        assert table.add(first, 5) == model.get(first or 1)
        model.setdefault(first or 1, 5)
    assert len(table) == len(model)
    assert all(table.get(key) == rank for key, rank in model.items())


def test_bulk_add_skips_duplicates_and_present() -> None:
    table = FingerprintSet()
    table.add(5, 1)
    table.add_many(np.array([5, 6, 6, 7], dtype=np.uint64), None, np.array([9, 2, 3, 4], dtype=np.uint8))
    assert (len(table), table.get(5), table.get(6), table.get(7)) == (3, 1, 2, 4)


@pytest.mark.parametrize("bits", [64, 128])
def test_file_round_trip_with_torn_and_corrupt_records(tmp_path: Path, bits: int) -> None:
    path = tmp_path / "urlnorm.seen"
    writer = SeenFile(path, bits)
    writer.open()
    values = [random.getrandbits(bits) for _ in range(1000)]
    for value in values:
        writer.append(value, 3)
    writer.close()
    data = bytearray(path.read_bytes())
    header = len(b"URLNORM-SEEN-1\nbits=64\n") + (1 if bits == 128 else 0)
    record = (len(data) - header) // 1000
    data[header + 10 * record] ^= 0xFF  # corrupt record 10
    path.write_bytes(bytes(data) + b"\x01\x02\x03")  # and a torn tail
    table = FingerprintSet(bits)
    reader = SeenFile(path, bits)
    assert reader.load_into(table) == 999
    assert reader.dropped == 2
    assert values[10] not in table and values[11] in table and values[-1] in table
    # the torn tail is cut, so appends after a resume stay aligned
    reader.open()
    reader.append(12345, 0)
    reader.close()
    again = FingerprintSet(bits)
    assert SeenFile(path, bits).load_into(again) == 1000


def test_wrong_bits_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "urlnorm.seen"
    writer = SeenFile(path, 64)
    writer.open()
    writer.append(1, 0)
    writer.close()
    with pytest.raises(ValueError, match="URLNORM_FINGERPRINT_BITS=128"):
        SeenFile(path, 128).load_into(FingerprintSet(128))


@pytest.mark.parametrize("bits", [64, 128])
def test_without_numpy_the_table_and_file_agree(tmp_path: Path, bits: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """NumPy only speeds up growing and loading: the plain-Python ways build the same table."""
    from scrapy_urlnorm import seen

    rng = random.Random(7)
    values = [rng.getrandbits(bits) for _ in range(5000)]
    with_numpy = FingerprintSet(bits)
    plain = FingerprintSet(bits)
    plain.use_numpy = False
    for i, value in enumerate(values):
        assert with_numpy.add(value, i % 7) is None
        assert plain.add(value, i % 7) is None
    assert bytes(plain._keys) == bytes(with_numpy._keys)
    assert plain._ranks == with_numpy._ranks
    path = tmp_path / "urlnorm.seen"
    writer = SeenFile(path, bits)
    writer.open()
    for i, value in enumerate(values):
        writer.append(value, i % 7)
    writer.close()
    monkeypatch.setattr(seen, "np", None)
    loaded = FingerprintSet(bits)
    assert loaded.use_numpy is False
    loaded.add(values[0], 99)  # present before loading: its rank stays
    assert SeenFile(path, bits).load_into(loaded) == len(values)
    assert len(loaded) == len(values)
    assert loaded.get(values[0]) == 99
    assert all(loaded.get(value) == i % 7 for i, value in enumerate(values[1:], 1))


def test_keys_stay_in_order_and_lookups_stop_early() -> None:
    """The ordered-probing invariant: occupied slots hold increasing keys, each at or after its home."""
    table = FingerprintSet()
    rng = random.Random(3)
    for _ in range(30_000):
        table.add(rng.getrandbits(64))
    keys = [(i, key) for i, key in enumerate(table._keys) if key]
    assert [key for _, key in keys] == sorted(key for _, key in keys)
    assert all(i >= ((key >> 32) * table.capacity) >> 32 for i, key in keys)
    assert table._keys[-1] == 0


@pytest.mark.parametrize("count", [10_000, 200_000])
def test_at_most_twelve_bytes_per_fingerprint(count: int) -> None:
    """9-byte slots between 72% and 92% full: never more than 12 bytes per stored fingerprint."""
    table = FingerprintSet()
    rng = random.Random(count)
    worst = 0.0
    for i in range(count):
        table.add(rng.getrandbits(64))
        if i > 1000 and i % 97 == 0:
            worst = max(worst, table.nbytes / len(table))
    assert worst <= 12.0
    assert table.nbytes / len(table) <= 12.0
