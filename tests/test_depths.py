"""``ClaimDepths``: the shallowest depth each key was claimed at, and what a resume knows of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy import Request
from scrapy.settings import Settings

from scrapy_urlnorm import meta as M
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.depths import DEPTH_LOG_FILE, DEPTHS_FILE, OWN_PAGES_FILE, ClaimDepths
from scrapy_urlnorm.ledger import DropLedger
from scrapy_urlnorm.policy import Policy


def at(depth: int) -> Request:
    return Request("http://example.test/", meta={"depth": depth})


def test_a_request_is_shallower_only_than_every_claim_of_its_key() -> None:
    depths = ClaimDepths()
    depths.claimed(at(3), (1, 2))
    assert depths.shallower(at(2), 1) and not depths.shallower(at(3), 1)
    depths.claimed(at(1), (1,))
    assert not depths.shallower(at(2), 1) and depths.shallower(at(2), 2)
    depths.claimed(at(5), (1,))  # deeper: the shallowest claim stays
    assert depths.shallower(at(0), 1) and not depths.shallower(at(1), 1)
    assert not depths.shallower(at(0), 99)  # never claimed here: nothing to be shallower than


def test_no_depth_limit_keeps_nothing(tmp_path: Path) -> None:
    assert ClaimDepths.for_crawl(Settings(), str(tmp_path), resumed=True, bits=64) is None


@pytest.mark.parametrize("bits", [64, 128])
def test_a_clean_stop_saves_the_depths_and_the_resume_takes_them_back(tmp_path: Path, bits: int) -> None:
    settings = Settings({"DEPTH_LIMIT": 4})
    first = ClaimDepths.for_crawl(settings, str(tmp_path), resumed=False, bits=bits)
    assert first is not None
    key = (1 << (bits - 1)) | 12345
    first.claimed(at(2), (key, 7))
    first.save()
    resumed = ClaimDepths.for_crawl(settings, str(tmp_path), resumed=True, bits=bits)
    assert resumed is not None and resumed.unknown == 0
    assert resumed.shallower(at(1), key) and not resumed.shallower(at(2), 7)
    assert not (tmp_path / DEPTHS_FILE).exists(), "loaded once: a run killed later must not find it"


def test_a_resume_after_a_kill_takes_every_earlier_key_as_claimed_at_the_limit(tmp_path: Path) -> None:
    """Where the depth journal has nothing for a key (a JOBDIR of an older version)."""
    depths = ClaimDepths.for_crawl(Settings({"DEPTH_LIMIT": 4}), str(tmp_path), resumed=True, bits=64)
    assert depths is not None and depths.unknown == 4
    assert depths.shallower(at(3), 42) and not depths.shallower(at(4), 42)
    depths.claimed(at(2), (42,))
    assert not depths.shallower(at(2), 42) and depths.shallower(at(1), 42)


@pytest.mark.parametrize("bits", [64, 128])
def test_a_resume_after_a_kill_takes_each_key_s_last_journaled_depth(tmp_path: Path, bits: int) -> None:
    """Every change of a key's depth is journaled as it happens, so a killed run's keys
    keep their depths; only a key the journal has nothing for counts as claimed at the limit
    (each kill used to cost a crawl every link shallower than the limit again)."""
    settings = Settings({"DEPTH_LIMIT": 4})
    key = (1 << (bits - 1)) | 777
    first = ClaimDepths.for_crawl(settings, str(tmp_path), resumed=False, bits=bits)
    assert first is not None
    first.claimed(at(3), (key, 8))
    first.claimed(at(1), (8,))  # shallower: the last record wins
    first.delivered(at(2), (9,))
    # killed here: no save()
    resumed = ClaimDepths.for_crawl(settings, str(tmp_path), resumed=True, bits=bits)
    assert resumed is not None and resumed.unknown == 4
    assert not resumed.shallower(at(3), key) and resumed.shallower(at(2), key)
    assert not resumed.shallower(at(1), 8) and resumed.shallower(at(0), 8)
    assert not resumed.shallower(at(2), 9) and resumed.shallower(at(1), 9)
    assert resumed.shallower(at(3), 10), "never journaled: claimed at the limit, when unsure fetch"
    records = (tmp_path / DEPTH_LOG_FILE).stat().st_size
    assert records == 3 * (10 if bits == 64 else 18), "rewritten at the resume: one record per key"


def test_depth_records_held_back_are_written_at_the_flush(tmp_path: Path) -> None:
    """With the crash-safe frontier, a depth is written with the seen set's records, after
    the request that claimed it was journaled: never ahead of a claim a kill could lose."""
    depths = ClaimDepths.for_crawl(Settings({"DEPTH_LIMIT": 4}), str(tmp_path), resumed=False, bits=64)
    assert depths is not None
    flush = depths.hold_writes()
    depths.claimed(at(2), (5,))
    log = tmp_path / DEPTH_LOG_FILE
    assert log.stat().st_size == 0
    flush()
    assert log.stat().st_size == 10


def test_a_request_let_through_for_being_shallower_is_kept_at_download_time() -> None:
    """Its claim joined the deeper one's, so its key's depth is its own now: only the mark tells."""
    depths = ClaimDepths()
    depths.claimed(at(3), (1,))
    shallow = at(2)
    assert depths.shallower(shallow, 1)
    shallow.meta[M.SHALLOWER] = True  # (what the filter marks it with)
    depths.claimed(shallow, (1,))
    assert not depths.shallower(shallow, 1) and depths.kept(shallow, 1)
    assert not depths.kept(at(2), 1)


def test_the_first_delivery_sets_the_depth_whatever_claim_came_before() -> None:
    """Seed 65088 (every condition on): ``/status`` was claimed at depth 1 and still
    queued (LIFO) when a copy at depth 3, sent past the filter (a released drop's
    redirect), delivered the page. The page's links were followed from depth 3, so
    the queued depth-1 request must be fetched, not dropped against that page."""
    depths = ClaimDepths()
    depths.claimed(at(1), (1,))
    assert not depths.shallower(at(1), 1)
    depths.delivered(at(3), (1,))
    assert depths.shallower(at(1), 1) and depths.shallower(at(2), 1) and not depths.shallower(at(3), 1)
    depths.delivered(at(1), (1,))  # the shallow one delivered in turn
    assert not depths.shallower(at(1), 1)
    depths.delivered(at(4), (1,))  # a later, deeper delivery follows no link a shallower one did not
    assert not depths.shallower(at(2), 1) and depths.shallower(at(0), 1)


def test_a_re_keyed_page_keeps_its_delivered_depth() -> None:
    depths = ClaimDepths()
    depths.delivered(at(2), (1,))
    depths.alias(1, 2)
    depths.delivered(at(4), (2,))  # a deeper delivery under the new key does not deepen it
    assert depths.shallower(at(1), 2) and not depths.shallower(at(3), 2)


def test_a_page_found_deeper_than_its_parked_drop_releases_the_drop_as_written() -> None:
    released: list[Request] = []
    ledger = DropLedger(lambda request, why: released.append(request), lambda key, n: None)
    dropped = Request("http://example.test/p", meta={"depth": 1})
    assert ledger.drop(dropped, "learned:trailing_slash", "example.test", learned=True, claim=None)
    assert not ClaimDepths.release_shallower(ledger, "example.test", dropped, 1)  # as deep: it waits
    assert not ClaimDepths.release_shallower(ledger, "example.test", Request("http://example.test/q"), 3)
    assert ClaimDepths.release_shallower(ledger, "example.test", dropped, 3)
    assert [(request.url, request.dont_filter) for request in released] == [(dropped.url, True)]
    assert not ClaimDepths.release_shallower(ledger, "example.test", dropped, 3)  # once


def test_the_shallowest_repeat_of_a_parked_url_is_the_one_kept() -> None:
    """Differential seed 76107 (every condition on, one run in five at concurrency 16): a
    URL was dropped under a learned rule from a page at depth 3, then from one at depth 2;
    the second was a repeat and was not kept. An audit at depth 3 then found the URL a page
    of its own, with nothing shallower parked to release, and the page's links were cut by
    ``DEPTH_LIMIT``. The shallowest link of a parked URL stands for it."""
    released: list[Request] = []
    ledger = DropLedger(lambda request, why: released.append(request), lambda key, n: None)
    url = "http://example.test/report.html"
    for depth in (3, 2, 4):
        assert ledger.drop(Request(url, meta={"depth": depth}), "learned:x", "example.test", learned=True, claim=None)
    assert ledger.held == 1  # one per URL, as before
    assert ClaimDepths.release_shallower(ledger, "example.test", Request(url), 3)
    assert [request.meta["depth"] for request in released] == [2]
    assert ledger.held == 0


@pytest.mark.parametrize("audited", ["/report.html#top", "/report.html?utm_source=newsletter"])
def test_an_audit_of_another_spelling_releases_the_shallower_parked_drop(audited: str) -> None:
    """Differential seed 76107 (every condition on, 1 run in 30 at concurrency 16):
    ``/report.html`` was dropped at depth 2 under ``extension_alias`` and parked; an
    audit at depth 3 of ``/report.html#top`` (then of ``?utm_source=newsletter``) found
    it a page of its own, but looked the parked drop up by its URL as written, found
    none, and the links ``/report.html`` has at depth 3 were cut. A parked drop is found
    by its key under the static policy, callback included."""
    released: list[Request] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=released.append)
    dropped = Request("http://example.test/report.html", meta={"depth": 2})
    assert dedup.ledger.drop(dropped, "learned:x", "example.test", learned=True, claim=None)
    audit = Request(f"http://example.test{audited}", meta={"depth": 3})
    assert ClaimDepths.release_shallower(dedup.ledger, "example.test", audit, 3)
    assert [(request.url, request.meta["depth"]) for request in released] == [(dropped.url, 2)]


def test_a_parked_drop_of_another_callback_is_not_one_url_with_it() -> None:
    """Each callback reads a page for itself (``scrapy_urlnorm.callbacks``): a drop parked
    for ``parse_item`` is not a repeat of one parked for ``parse``, nor found by an audit
    made for ``parse``."""

    class Spider:
        def parse(self, response: object) -> None: ...

        def parse_item(self, response: object) -> None: ...

    spider = Spider()
    dedup = Deduplicator(Policy.preset("default"), reschedule=lambda request: None)
    url = "http://example.test/p"
    for callback in (spider.parse, spider.parse_item):
        request = Request(url, callback=callback, meta={"depth": 2})
        assert dedup.ledger.drop(request, "learned:x", "example.test", learned=True, claim=None)
    assert dedup.ledger.parked() == 2
    audit = Request(url, callback=spider.parse, meta={"depth": 3})
    assert ClaimDepths.release_shallower(dedup.ledger, "example.test", audit, 3)
    assert dedup.ledger.parked() == 1


def test_a_link_shallower_than_a_page_of_its_own_is_fetched_once_per_depth() -> None:
    """A URL found a page of its own (an audit, or its page beside one a rule merges it
    with) at depth 4: a link to it at depth 2 is fetched though the rule drops it against
    a key claimed at depth 1; one at depth 3 is not, nor another at depth 2."""
    depths = ClaimDepths()
    own = 42
    assert not depths.below_own_page(at(2), own)  # not known for a page of its own
    depths.own_page(own, at(4))
    depths.own_page(own, at(5))  # deeper: the page's depth stays
    assert not depths.below_own_page(at(4), own)
    assert depths.below_own_page(at(2), own)
    assert not depths.below_own_page(at(3), own) and not depths.below_own_page(at(2), own)
    assert depths.below_own_page(at(1), own)


@pytest.mark.parametrize("stop", ["clean", "kill"])
def test_a_page_of_its_own_is_known_after_a_resume(tmp_path: Path, stop: str) -> None:
    """The key such a page is merged into may be claimed shallower again in the resumed
    run, so a link shallower than the page must still be fetched: the page's depth is
    appended to the ``JOBDIR`` as it is found, and a kill keeps it too."""
    settings = Settings({"DEPTH_LIMIT": 5})
    first = ClaimDepths.for_crawl(settings, str(tmp_path), resumed=False, bits=64)
    assert first is not None
    first.own_page(42, at(4))
    assert first.below_own_page(at(3), 42)  # now known at depth 3
    if stop == "clean":
        first.save()
    resumed = ClaimDepths.for_crawl(settings, str(tmp_path), resumed=True, bits=64)
    assert resumed is not None
    assert not resumed.below_own_page(at(3), 42)
    assert resumed.below_own_page(at(2), 42)
    assert (tmp_path / OWN_PAGES_FILE).exists(), "kept for every later resume"
    resumed.save()
    again = ClaimDepths.for_crawl(settings, str(tmp_path), resumed=True, bits=64)
    assert again is not None and not again.below_own_page(at(2), 42) and again.below_own_page(at(1), 42)
