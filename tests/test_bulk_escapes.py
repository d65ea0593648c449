"""The array path for long components does exactly what the per-escape path does."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# The whole-array path exists only with NumPy (the ``numpy`` extra); without it
# the per-escape code runs, which tests/test_without_numpy.py checks.
pytest.importorskip("numpy")

from scrapy_urlnorm import InvalidURL, Policy, bulk_escapes, normalize_url, steps
from scrapy_urlnorm.steps import (
    _BAD_PERCENT,
    _ENCODE_FIELDS,
    _ENCODING_TABLES,
    _LOWER_ESCAPE,
    _UNRESERVED_BYTES,
    _UNRESERVED_ESCAPES,
    _UPPER_ESCAPES,
    _encode_by_pieces,
    _rewrite_escapes,
)

# Text dense in what matters: %, hex digits of both cases, letters, reserved
# and non-ASCII characters, spaces and controls.
ESCAPY = st.text(alphabet=st.sampled_from(list("%%%%0123456789aAbBcCdDeEfFgGzZ/?&=;:~ .-_\u00e9\u4e2d\x00\x7f")))
ASCII_ESCAPY = st.text(alphabet=st.sampled_from(list("%%%%0123456789aAbBcCdDeEfFgGzZ/?&=;:~ .-_")))
SAFES = [safe for _, safe, _ in _ENCODE_FIELDS]


@settings(max_examples=400, deadline=None)
@given(ASCII_ESCAPY)
def test_escape_rewrites_agree(value: str) -> None:
    assert bulk_escapes.uppercase_escapes(value) == _rewrite_escapes(value, _UPPER_ESCAPES)
    assert bulk_escapes.decode_escapes(value, _UNRESERVED_BYTES) == _rewrite_escapes(value, _UNRESERVED_ESCAPES)
    assert bulk_escapes.has_stray_percent(value) == (_BAD_PERCENT.search(value) is not None)
    assert bulk_escapes.has_lowercase_escape(value) == (_LOWER_ESCAPE.search(value) is not None)
    by_escape = _rewrite_escapes(value.lower(), _UPPER_ESCAPES) if "%" in value else value.lower()
    assert bulk_escapes.lowercase_outside_escapes(value) == by_escape


@settings(max_examples=400, deadline=None)
@given(ESCAPY, st.sampled_from(SAFES))
def test_encoding_agrees(value: str, safe: str) -> None:
    expected = _encode_by_pieces(value, safe)
    assert bulk_escapes.encode(value.encode("utf-8", "surrogateescape"), _ENCODING_TABLES[safe]) == expected


@contextlib.contextmanager
def array_path_off() -> Iterator[None]:
    long = steps._LONG
    steps._LONG = 1 << 60
    try:
        yield
    finally:
        steps._LONG = long


@settings(max_examples=200, deadline=None)
@given(preset=st.sampled_from(["safe", "default", "aggressive"]), path=ESCAPY, query=ESCAPY)
def test_long_urls_normalize_alike_either_way(preset: str, path: str, query: str) -> None:
    repeat = bulk_escapes.LONG // max(1, len(path) + len(query)) + 1
    url = f"http://h.test/{path * repeat}?{query * repeat}"
    policy = Policy.preset(preset)
    try:
        fast = normalize_url(url, policy)
    except InvalidURL:
        fast = "InvalidURL"
    with array_path_off():
        try:
            slow = normalize_url(url, policy)
        except InvalidURL:
            slow = "InvalidURL"
    assert fast == slow
