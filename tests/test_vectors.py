"""Public test vectors (tests/vectors/, sources in its README): RFC 3986,
python-url-c14n and the WHATWG URL test data."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urljoin

import pytest

from scrapy_urlnorm import InvalidURL, Policy, UnsupportedScheme, explain_url, normalize_url
from scrapy_urlnorm.steps import remove_dot_segments_from_path

VECTORS = Path(__file__).parent / "vectors"
SAFE = Policy.preset("safe")
SAFE_WITH_FRAGMENT = SAFE.replace(keep_fragment=True)


def _load(name: str) -> list[dict]:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


RFC = _load("rfc3986.json")
C14N = _load("url_c14n.json")
WPT = _load("wpt_urltestdata.json")


def _ids(cases: list[dict]) -> list[str]:
    return [repr(c["input"])[:60] for c in cases]


DOT_SEGMENTS = [c for c in RFC if c["options"]["operation"] == "remove_dot_segments"]


@pytest.mark.parametrize("case", DOT_SEGMENTS, ids=_ids(DOT_SEGMENTS))
def test_rfc3986_remove_dot_segments(case: dict) -> None:
    assert remove_dot_segments_from_path(case["input"]) == case["expected"]


RESOLVE = [
    c
    for c in RFC
    if c["options"]["operation"] == "resolve" and c["expected"].startswith("http://") and c["input"] != "http:g"
]


@pytest.mark.parametrize("case", RESOLVE, ids=_ids(RESOLVE))
def test_rfc3986_resolution_then_normalization(case: dict) -> None:
    """Links are resolved by Scrapy (``response.urljoin``); the resolved URL
    must normalize to the RFC's expected target, whose own normal form it is."""
    resolved = urljoin(case["options"]["base"], case["input"])
    expected = normalize_url(case["expected"], SAFE_WITH_FRAGMENT)
    assert normalize_url(resolved, SAFE_WITH_FRAGMENT) == expected
    assert expected in (case["expected"], case["expected"] + "/")  # empty path -> /


NORMALIZE = [c for c in RFC if c["options"]["operation"] == "normalize"]


@pytest.mark.parametrize("case", NORMALIZE, ids=_ids(NORMALIZE))
def test_rfc3986_section_6_normalization(case: dict) -> None:
    kind = case["options"]["kind"]
    url, expected = case["input"], case["expected"]
    if url.startswith(("eXAMPLE:", "example:")):
        # Syntax-based normalization is scheme-independent; we only accept the
        # schemes a crawler fetches, so check the same URL under http.
        url, expected = "http" + url[url.index(":") :], "http" + expected[expected.index(":") :]
    if kind.startswith("scheme-specific"):
        # mailto: is not something a crawler fetches: rejected consistently.
        with pytest.raises(UnsupportedScheme):
            normalize_url(url)
        return
    if kind.startswith("protocol-based"):
        # Optional: only our trailing_slash switch makes it.
        assert normalize_url(url, SAFE) == url
        assert normalize_url(url, SAFE.replace(trailing_slash="add")) == expected
        return
    assert normalize_url(url, SAFE_WITH_FRAGMENT) == expected
    if url.endswith("?"):
        # Optional in the RFC, on in our default preset.
        assert normalize_url(url) == expected[:-1]
    if url.endswith("#"):
        assert normalize_url(url) == expected[:-1]


C14N_POLICY = SAFE.replace(keep_fragment=True, sort_query=True, collapse_slashes=True)


@pytest.mark.parametrize("case", C14N, ids=_ids(C14N))
def test_python_url_c14n(case: dict) -> None:
    if case["options"].get("test") == "test_empty_parameter":
        # url_c14n rewrites ``a`` to ``a=``; some servers tell them apart, so we
        # keep the distinction (documented in the README) and only sort.
        assert normalize_url(case["input"], C14N_POLICY) == "http://example.com/?a&b=&c=z"
        return
    assert normalize_url(case["input"], C14N_POLICY) == case["expected"]


COMPARABLE = [c for c in WPT if c["options"].get("rfc_comparable")]

# WHATWG percent-encodes a few characters RFC 3986 allows raw in a query
# (``'``) and leaves ``%2E`` in file names; both forms are equivalent under
# RFC 3986 except where WHATWG changes the octets a server receives.
WPT_DISAGREES = {
    "http://host/?'": "WHATWG encodes ' in special-scheme queries; RFC 3986 says it is a sub-delim, sent as is",
}


@pytest.mark.parametrize("case", COMPARABLE, ids=_ids(COMPARABLE))
def test_wpt_rfc_comparable(case: dict) -> None:
    """The raw input and the WHATWG-parsed result are the same URL: they must
    normalize alike (fragments kept so they are compared too)."""
    if case["input"] in WPT_DISAGREES:
        pytest.skip(WPT_DISAGREES[case["input"]])
    policy = Policy.preset("default").replace(keep_fragment=True)
    assert normalize_url(case["input"], policy) == normalize_url(case["expected"], policy)


def test_every_wpt_input_either_normalizes_or_raises_invalid_url() -> None:
    outcomes = {"normalized": 0, "invalid": 0}
    for case in WPT:
        url = case["input"]
        if case["options"].get("base"):
            # Relative inputs are resolved against their base first, as Scrapy
            # does for links; urljoin itself may refuse some (not our concern).
            try:
                url = urljoin(case["options"]["base"], url)
            except ValueError:
                continue
        for policy in (SAFE, Policy.preset("default"), Policy.preset("aggressive")):
            try:
                normal = normalize_url(url, policy)
            except InvalidURL:
                outcomes["invalid"] += 1
                continue
            outcomes["normalized"] += 1
            assert normalize_url(normal, policy) == normal, url
            explain_url(url, policy)
    assert outcomes["normalized"] >= 800  # 849 today: the rest are other schemes or bad hosts
