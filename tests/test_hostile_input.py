"""Hostile input: no call blows up in time, and the Scrapy components never raise."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.request import RequestFingerprinter

from scrapy_urlnorm import InvalidURL, NormalizeMiddleware, Policy, UrlNormDupeFilter, normalize_url
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.middlewares import RedirectLearningMiddleware

# Each builds a URL whose size grows with n: long paths, many parameters, many
# dot segments, many escapes, non-ASCII, stray percent signs, slashes.
GROWING: dict[str, Callable[[int], str]] = {
    "long path": lambda n: "http://h/" + "a/" * n,
    "parameters": lambda n: "http://h/?" + "&".join(f"p{i}=v&utm_{i}=x" for i in range(n // 8)),
    "dot segments": lambda n: "http://h/" + "a/../" * (n // 5) + "b",
    "escapes": lambda n: "http://h/" + "%c3%a9%41" * (n // 9),
    "non-ascii": lambda n: "http://h/" + "\u00e9" * n,
    "stray percent": lambda n: "http://h/" + "%%41" * (n // 4),
    "slashes": lambda n: "http://h" + "/" * n + "x",
    "session params": lambda n: "http://h/" + ";jsessionid=1" * (n // 13),
    "long host": lambda n: "http://" + "a." * (n // 2) + "com/",
}
POLICIES = [Policy.preset("safe"), Policy.preset("default"), Policy.preset("aggressive")]


def _best_time(url: str, policy: Policy) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        with contextlib.suppress(InvalidURL):
            normalize_url(url, policy)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("name", sorted(GROWING))
def test_cost_grows_linearly_with_input(name: str) -> None:
    """A quadratic loop or a backtracking regex would make 4x the input cost ~16x."""
    for policy in POLICIES:
        small, large = GROWING[name](25_000), GROWING[name](100_000)
        ratio = _best_time(large, policy) / max(_best_time(small, policy), 1e-5)
        assert ratio < 9, f"{name}: 4x the input took {ratio:.1f}x the time"


def _dedup() -> Deduplicator:
    return Deduplicator(Policy.preset("aggressive"), fallback=RequestFingerprinter().fingerprint, learn=True)


def _request(url: str) -> Request | None:
    try:
        return Request(url)
    except (ValueError, TypeError):
        return None  # Scrapy itself refuses it: it never reaches us


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=80), st.sampled_from(["http://", "https://h/", "http://h/?", "ftp://", "data:,", "s3://b/"]))
def test_filter_and_middlewares_never_raise(text: str, prefix: str) -> None:
    request = _request(prefix + text)
    if request is None:
        return
    dedup = _dedup()
    dupefilter = UrlNormDupeFilter(dedup)
    normalize, learn = NormalizeMiddleware(dedup), RedirectLearningMiddleware(dedup)
    assert dupefilter.request_seen(request) is False
    # Whatever the URL, a second identical request is a duplicate: nothing lost, nothing doubled.
    assert dupefilter.request_seen(request.replace()) is True
    normalize.process_request(request)
    response = HtmlResponse(request.url, body=b"<html><link rel=canonical href='" + text.encode() + b"'></html>")
    normalize.process_response(request, response)
    redirect = HtmlResponse(request.url, status=301, headers={"Location": text.encode("utf-8", "replace")})
    learn.process_response(request, redirect)


def test_invalid_urls_are_counted_logged_once_per_host_and_still_deduplicated(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from scrapy.utils.test import get_crawler

    stats = get_crawler().stats
    assert stats is not None
    dedup = Deduplicator(Policy.preset("default"), stats=stats, fallback=RequestFingerprinter().fingerprint)
    dupefilter = UrlNormDupeFilter(dedup)
    bad = [Request("http://bad%ffhost.test/a"), Request("http://bad%ffhost.test/b"), Request("http://exa mple.com/")]
    assert [dupefilter.request_seen(r) for r in bad] == [False, False, False]
    assert [dupefilter.request_seen(r.replace()) for r in bad] == [True, True, True]
    assert stats.get_value("urlnorm/invalid_urls") == 6
    warnings = [r for r in caplog.records if "Cannot normalize" in r.getMessage()]
    assert len(warnings) == 2  # one per host
    # other schemes fall back silently
    assert dupefilter.request_seen(Request("data:,hello")) is False
    assert dupefilter.request_seen(Request("data:,hello")) is True
    assert stats.get_value("urlnorm/invalid_urls") == 6
