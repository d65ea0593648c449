"""Percent-escape work on very long URL components, as whole-array NumPy operations.

The per-escape Python in :mod:`scrapy_urlnorm.steps` is the fastest way for
ordinary URLs. A hostile 100,000-character component can hold 33,000
escapes, and a Python loop over them costs tens of milliseconds per step.
The functions here do the same work with a constant number of array
operations; ``steps`` switches to them for components of :data:`LONG`
characters or more, and the tests check both ways agree.

An escape is ``%`` followed by two hex digits. Escapes cannot overlap (a hex
digit is never ``%``), so finding every ``%`` followed by two hex digits
finds exactly what a left-to-right scan would.
"""

from __future__ import annotations

import sys
from typing import Any

try:
    import numpy as np
except ImportError:  # pragma: no cover - exercised by the no-NumPy install
    np = None  # type: ignore[assignment]

#: Whether the array path is available (NumPy is an optional speed-up).
AVAILABLE = np is not None

#: Components at least this long take the array path. Without NumPy, none
#: does: the per-escape way in ``steps`` is linear too, only slower on
#: hostile components of tens of thousands of escapes (milliseconds, not
#: tens of microseconds).
LONG = 2048 if AVAILABLE else sys.maxsize

_PERCENT = ord("%")
_LOWER_A, _LOWER_F = ord("a"), ord("f")
if AVAILABLE:
    _IS_HEX = np.zeros(256, dtype=bool)
    _HEX_VALUE = np.zeros(256, dtype=np.uint8)
    for _digit, _char in enumerate("0123456789abcdef"):
        for _code in {ord(_char), ord(_char.upper())}:
            _IS_HEX[_code] = True
            _HEX_VALUE[_code] = _digit
    _UPPER_HEX = np.frombuffer(b"0123456789ABCDEF", dtype=np.uint8)


def _escape_starts(data: Any) -> Any:
    """Positions of every ``%`` that starts an escape."""
    if len(data) < 3:
        return np.zeros(0, dtype=np.intp)
    percents = np.flatnonzero(data[:-2] == _PERCENT)  # then look only at what follows them
    return percents[_IS_HEX[data[percents + 1]] & _IS_HEX[data[percents + 2]]]


#: The last ASCII value analysed, its bytes and escape positions: consecutive
#: steps look at the same string object (identity, not equality, is checked;
#: the reference held keeps the id from being reused).
_last: tuple[str, Any, Any] | None = None


def _analyse(value: str) -> tuple[Any, Any]:
    """(read-only bytes, escape positions) of an ASCII ``value``."""
    global _last
    last = _last
    if last is not None and last[0] is value:
        return last[1], last[2]
    data = np.frombuffer(value.encode("ascii"), dtype=np.uint8)
    starts = _escape_starts(data)
    _last = (value, data, starts)
    return data, starts


def byte_table(allowed: bytes) -> Any:
    """A 256-entry mask of the bytes in ``allowed`` (``allowed`` itself without NumPy)."""
    if not AVAILABLE:
        return allowed
    table = np.zeros(256, dtype=bool)
    table[np.frombuffer(allowed, dtype=np.uint8)] = True
    return table


def uppercase_escapes(value: str) -> str:
    """``%3a`` -> ``%3A`` everywhere in an ASCII ``value``."""
    data, starts = _analyse(value)
    data = data.copy()
    for offset in (1, 2):
        positions = starts + offset
        digits = data[positions]
        data[positions[(digits >= _LOWER_A) & (digits <= _LOWER_F)]] -= 32
    return data.tobytes().decode("ascii")


def decode_escapes(value: str, decodable: Any) -> str:
    """Replace each escape of an ASCII ``value`` whose byte ``decodable`` marks by that byte."""
    data, starts = _analyse(value)
    codes = (_HEX_VALUE[data[starts + 1]] << 4) | _HEX_VALUE[data[starts + 2]]
    chosen = decodable[codes]
    if not chosen.any():
        return value
    data = data.copy()
    starts = starts[chosen]
    data[starts] = codes[chosen]
    keep = np.ones(len(data), dtype=bool)
    keep[starts + 1] = False
    keep[starts + 2] = False
    return data[keep].tobytes().decode("ascii")


def encoding_table(raw: Any) -> Any:
    """For each byte, the three output bytes :func:`encode` writes: the byte
    and two zeros where ``raw`` marks it, else ``%`` and its upper-case hex."""
    if not AVAILABLE:
        return raw
    codes = np.arange(256)
    table = np.zeros((256, 3), dtype=np.uint8)
    table[:, 0] = np.where(raw, codes, _PERCENT)
    table[~raw, 1] = _UPPER_HEX[codes[~raw] >> 4]
    table[~raw, 2] = _UPPER_HEX[codes[~raw] & 15]
    return table


def encode(encoded: bytes, table: Any) -> str:
    """Percent-encode the bytes of ``encoded`` as :func:`encoding_table` says,
    except a ``%`` that starts an escape, which stays."""
    data = np.frombuffer(encoded, dtype=np.uint8)
    rows = table[data]
    starts = _escape_starts(data)
    rows[starts, 1:] = 0
    flat = rows.reshape(-1)
    # Zeros are padding: a NUL byte itself is never raw, it becomes %00.
    return flat[flat != 0].tobytes().decode("ascii")


def has_stray_percent(value: str) -> bool:
    """Whether an ASCII ``value`` holds a ``%`` that starts no escape."""
    _, starts = _analyse(value)
    return value.count("%") != len(starts)


def has_lowercase_escape(value: str) -> bool:
    """Whether an ASCII ``value`` holds an escape with a lower-case hex digit."""
    data, starts = _analyse(value)
    digits = np.concatenate([data[starts + 1], data[starts + 2]])
    return bool(np.any((digits >= _LOWER_A) & (digits <= _LOWER_F)))


def lowercase_outside_escapes(value: str) -> str:
    """Lower-case the letters of an ASCII ``value`` except the hex digits of
    escapes, which become upper-case (what ``lowercase_path`` wants)."""
    data, starts = _analyse(value)
    in_escape = np.zeros(len(data), dtype=bool)
    in_escape[starts + 1] = True
    in_escape[starts + 2] = True
    upper = (data >= ord("A")) & (data <= ord("Z")) & ~in_escape
    lower_digits = in_escape & (data >= _LOWER_A) & (data <= _LOWER_F)
    if not upper.any() and not lower_digits.any():
        return value
    data = data.copy()
    data[upper] += 32
    data[lower_digits] -= 32
    return data.tobytes().decode("ascii")
