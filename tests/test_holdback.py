"""Hold-back: variants of an undecided rule wait their turn, and always get out."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
import pytest_twisted
import scrapy
from demoweb.crawling import crawl
from demoweb.server import FunctionSite, Reply, VirtualWeb

from scrapy_urlnorm import meta as M
from scrapy_urlnorm.holdback import HoldBack, loose_key, variant_kinds
from scrapy_urlnorm.learning import Learner

ADDON = {"ADDONS": {"scrapy_urlnorm.Addon": 0}}


@pytest.mark.parametrize(
    ("a", "b", "kinds"),
    [
        ("http://h.test/a", "http://h.test/a/", ["trailing_slash"]),
        ("http://h.test/a", "http://www.h.test/a", ["www_alias"]),
        ("http://h.test/A/b", "http://h.test/a/b", ["case_insensitive_path"]),
        ("http://h.test/d/", "http://h.test/d/index.html", ["default_page:index.html"]),
        ("http://h.test/x", "http://h.test/x.html", ["extension_alias:html"]),
        ("http://h.test/a", "http://www.h.test/a/", []),  # two steps apart
        ("http://h.test/a?x=1", "http://h.test/a?x=2", []),  # parameters are not held
    ],
)
def test_variants_and_the_rule_they_would_test(a: str, b: str, kinds: list[str]) -> None:
    assert variant_kinds(a, b) == kinds
    if kinds:
        assert loose_key(a) == loose_key(b)


def test_one_variant_at_a_time_then_all_once_the_rule_is_decided() -> None:
    learner = Learner(min_evidence=2)
    sent: list[str] = []
    holdback = HoldBack(learner, lambda request: sent.append(request.url), lambda key: None)
    pages = [f"http://h.test/p{i}" for i in range(5)]
    for url in pages:  # the pages themselves: nothing to hold
        assert not holdback.hold(scrapy.Request(url), url, "h.test")
    variants = [url + "/" for url in pages]
    assert not holdback.hold(scrapy.Request(variants[0]), variants[0], "h.test")  # the probe
    assert all(holdback.hold(scrapy.Request(url), url, "h.test") for url in variants[1:])
    assert holdback.held == 4
    # The probe settles with the rule still undecided: the next variant is the next probe.
    holdback.settled(variants[0])
    assert sent == [variants[1]] and holdback.held == 3
    assert not holdback.hold(scrapy.Request(variants[1]), variants[1], "h.test")
    # Its redirects decide the rule: everything held goes back to the filter.
    learner.observe_redirect(pages[0], variants[0])
    learner.observe_redirect(pages[1], variants[1])
    assert learner.is_active("h.test", "trailing_slash")
    holdback.settled(variants[1])
    assert sent == variants[1:] and holdback.held == 0


def test_at_idle_everything_held_goes_and_is_never_held_again() -> None:
    learner = Learner(min_evidence=2)
    sent: list[scrapy.Request] = []
    holdback = HoldBack(learner, sent.append, lambda key: None)
    for url in ("http://h.test/a", "http://h.test/b", "http://h.test/a/"):
        holdback.hold(scrapy.Request(url), url, "h.test")
    assert holdback.hold(scrapy.Request("http://h.test/b/"), "http://h.test/b/", "h.test")
    assert holdback.release_all() == 1 and holdback.held == 0
    (released,) = sent
    assert released.meta[M.NO_HOLD]
    assert not holdback.hold(released, released.url, "h.test")
    assert holdback.release_all() == 0


def twin_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Both twins serve every page (no redirect); the start page links each page under both."""
    pages = [f"/p{i}.html" for i in range(12)]
    if path == "/":
        return Reply.page("twin:/", [f"http://{host}{page}" for page in pages for host in ("t.test", "www.t.test")])
    if path in pages:
        return Reply.page(f"twin:{path}", [])
    return Reply.not_found()


@pytest_twisted.ensureDeferred
async def test_twins_serving_alike_cost_the_pairs_not_every_variant() -> None:
    """Concurrency 16, every page linked under both twins at once: without hold-back
    every www variant is in flight before two pairs are seen; with it, the variants
    wait for the rule, which drops them (and audits verify the first drops)."""
    settings = {**ADDON, "CONCURRENT_REQUESTS": 16}
    results = {}
    for hold in (True, False):
        with VirtualWeb({"t.test": FunctionSite(twin_site), "www.t.test": FunctionSite(twin_site)}) as web:
            results[hold] = await crawl(web, ["http://t.test/"], {**settings, "URLNORM_HOLD_BACK": hold})
    documents = {f"twin:/p{i}.html" for i in range(12)} | {"twin:/"}
    for result in results.values():
        assert set(result.doc_ids) == documents
        assert result.stats["urlnorm/unsettled_at_close"] == 0
    held, free = results[True], results[False]
    assert held.stats["urlnorm/held_back"] > 0 and "urlnorm/held_back" not in free.stats
    # Held: the 13 pages, two pairs and the audits of the drops released at once, at
    # most five while no audit has vouched for the rule (20 when measured; free: 24).
    # Crawl timing moves the free figure, so only the held one is bounded.
    assert len(held.doc_ids) <= 13 + 2 + 5 <= len(free.doc_ids) + 2, (len(held.doc_ids), len(free.doc_ids))


@pytest_twisted.ensureDeferred
async def test_with_jobdir_variants_are_held_too(tmp_path: Path) -> None:
    """The same crawl with ``JOBDIR``: a held variant is journaled (see
    ``test_frontier``), so hold-back works there too, and every page is collected."""
    settings = {**ADDON, "CONCURRENT_REQUESTS": 16, "JOBDIR": str(tmp_path / "job")}
    with VirtualWeb({"t.test": FunctionSite(twin_site), "www.t.test": FunctionSite(twin_site)}) as web:
        result = await crawl(web, ["http://t.test/"], settings)
    assert set(result.doc_ids) == {f"twin:/p{i}.html" for i in range(12)} | {"twin:/"}
    assert result.stats["urlnorm/held_back"] > 0
    assert result.stats["urlnorm/held_back_released"] == result.stats["urlnorm/held_back"]
    assert result.stats["urlnorm/unsettled_at_close"] == 0
    assert len(result.doc_ids) <= 13 + 2 + 5
