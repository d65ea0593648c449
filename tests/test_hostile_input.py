"""Hostile input: no call blows up in time, and the Scrapy components never raise."""

from __future__ import annotations

import contextlib
import sys
import tracemalloc
from collections.abc import Callable
from types import FrameType

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


def _work(url: str, policy: Policy) -> tuple[int, int]:
    """What one ``normalize_url`` call costs, counted rather than timed, so it
    does not depend on how loaded the machine is: (Python and C function calls
    made, bytes allocated). Calls grow with a Python loop's iterations; bytes
    allocated (the peak over each stretch between two trace events, summed) also
    grow with work in C that copies, such as a loop rebuilding a string on
    each pass: few calls, but quadratic bytes. Work inside one C call that
    allocates nothing (a backtracking regex) shows in neither:
    ``benchmarks/bench_hostile.py`` times each shape."""
    with contextlib.suppress(InvalidURL):
        normalize_url(url, policy)  # warm: caches and lazy imports are not the input's cost
    calls = allocated = last = 0
    traced, reset_peak = tracemalloc.get_traced_memory, tracemalloc.reset_peak

    def sample() -> None:
        nonlocal allocated, last
        current, peak = traced()
        allocated += max(peak - last, 0)
        reset_peak()
        last = current

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1
        sample()

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., object]:
        sample()  # line events too: a loop of copies makes no calls
        return trace

    tracing, profiler, tracer = tracemalloc.is_tracing(), sys.getprofile(), sys.gettrace()
    if not tracing:
        tracemalloc.start()
    last = traced()[0]
    reset_peak()
    sys.setprofile(profile)
    sys.settrace(trace)
    try:
        with contextlib.suppress(InvalidURL):
            normalize_url(url, policy)
    finally:
        sys.settrace(tracer)
        sys.setprofile(profiler)
        if not tracing:
            tracemalloc.stop()
    return calls, allocated


@pytest.mark.parametrize("name", sorted(GROWING))
def test_cost_grows_linearly_with_input(name: str) -> None:
    """A quadratic loop would make 4x the input cost ~16x the work."""
    for policy in POLICIES:
        small_calls, small_bytes = _work(GROWING[name](10_000), policy)
        large_calls, large_bytes = _work(GROWING[name](40_000), policy)
        calls, allocated = large_calls / max(small_calls, 1), large_bytes / max(small_bytes, 1)
        assert calls < 9, f"{name}: 4x the input made {calls:.1f}x the function calls"
        assert allocated < 9, f"{name}: 4x the input allocated {allocated:.1f}x the bytes"


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
    dedup.publish_counts()  # counters reach crawler.stats in batches, and at close
    assert stats.get_value("urlnorm/invalid_urls") == 6
    warnings = [r for r in caplog.records if "Cannot normalize" in r.getMessage()]
    assert len(warnings) == 2  # one per host
    # other schemes fall back silently
    assert dupefilter.request_seen(Request("data:,hello")) is False
    assert dupefilter.request_seen(Request("data:,hello")) is True
    dedup.publish_counts()
    assert stats.get_value("urlnorm/invalid_urls") == 6
