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
