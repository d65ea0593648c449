"""The crash-safe frontier: JOBDIR crawls survive kill -9 at random moments."""

from __future__ import annotations

import itertools
import json
import os
import pickle
import random
import signal
import struct
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
import scrapy
from crawl_process import spawn
from demoweb.server import FunctionSite, Reply, VirtualWeb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scrapy.http import HtmlResponse
from scrapy.utils.request import request_from_dict
from scrapy.utils.test import get_crawler

from scrapy_urlnorm import frontier as frontier_module
from scrapy_urlnorm import meta as M
from scrapy_urlnorm.audits import mark_audit
from scrapy_urlnorm.completion import Completion
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.frontier import (
    _CLEAN,
    _DONE,
    _DROP,
    _ENQ,
    _KEYS,
    _PAGE,
    ID_META,
    JOURNAL_FILE,
    CrashSafeScheduler,
    Frontier,
    FrontierJournal,
    FrontierMiddleware,
    Recovery,
    _record,
)
from scrapy_urlnorm.taught_forms import TaughtForms

HERE = Path(__file__).resolve().parent
HOST = "chain.test"
PAGES = 90
CONCURRENCY = 2


# -- the journal file -------------------------------------------------------------


def write_run(path: Path, enqueued: list[int], done: list[int], *, clean_in_flight: list[int] | None) -> None:
    journal = FrontierJournal(path)
    journal.open()
    for request_id in enqueued:
        journal.append(_ENQ, request_id, b"request %d" % request_id)
    for request_id in done:
        journal.append(_DONE, request_id)
    if clean_in_flight is not None:
        journal.append(_CLEAN, 0, struct.pack(f"<{len(clean_in_flight)}Q", *clean_in_flight))
    journal.close()  # without a CLEAN record: a crash


def payloads(recovery: Recovery) -> list[bytes]:
    return [payload for payload, _ in recovery.requests]


def test_after_a_crash_every_pending_request_is_recovered(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    write_run(path, [1, 2, 3, 4], [1, 3], clean_in_flight=None)
    recovery, next_id = FrontierJournal(path).open()
    assert recovery.crashed
    assert recovery.pending == 2
    assert payloads(recovery) == [b"request 2", b"request 4"]
    assert next_id == 5


def test_the_keys_a_pending_request_claimed_come_back_with_it_through_compactions(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    journal = FrontierJournal(path)
    journal.open()
    for request_id, keys in ((1, (11, 12)), (2, (21,)), (3, (31,))):
        journal.append(_ENQ, request_id, b"request %d" % request_id)
        journal.append(_KEYS, request_id, pickle.dumps(keys))
    journal.append(_KEYS, 2, pickle.dumps((21, 22, 2**100)))  # claimed more later (128-bit keys too)
    journal.append(_DONE, 1)
    journal.append(_KEYS, 3, b"not a pickle")  # unreadable: its request comes back all the same
    journal.close()
    for _ in range(2):  # the second open reads the journal the first compacted
        recovery, _ = FrontierJournal(path).open()
        assert recovery.requests == [(b"request 2", (21, 22, 2**100)), (b"request 3", (31,))]


def test_a_drop_not_settled_at_a_crash_comes_back_to_be_checked_again_through_compactions(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    journal = FrontierJournal(path)
    journal.open()
    journal.append(_ENQ, 1, b"representative")
    journal.append(_DROP, 2, b"dropped, settled")
    journal.append(_DROP, 3, b"dropped, pending")
    journal.append(_DONE, 2)
    journal.close()
    for _ in range(2):  # the second open reads the journal the first compacted
        recovery, next_id = FrontierJournal(path).open()
        assert payloads(recovery) == [b"representative"] and recovery.pending == 1
        assert recovery.rechecks == [(3, b"dropped, pending")]
        assert next_id == 4


def test_after_a_clean_stop_only_the_requests_in_flight_are_recovered(tmp_path: Path) -> None:
    # Scrapy's saved queue holds the others.
    path = tmp_path / JOURNAL_FILE
    write_run(path, [1, 2, 3, 4], [1], clean_in_flight=[3])
    recovery, _ = FrontierJournal(path).open()
    assert not recovery.crashed
    assert recovery.pending == 3
    assert payloads(recovery) == [b"request 3"]


def test_the_journal_is_compacted_and_a_crash_after_a_clean_stop_recovers_everything(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    write_run(path, list(range(1, 101)), list(range(1, 91)), clean_in_flight=[])
    before = path.stat().st_size
    journal = FrontierJournal(path)
    recovery, next_id = journal.open()
    assert (recovery.pending, payloads(recovery)) == (10, [])
    assert path.stat().st_size < before / 5
    journal.append(_ENQ, next_id, b"new")
    os.close(journal._fd)  # type: ignore[arg-type]  # killed: the clean stop before no longer counts
    recovery, _ = FrontierJournal(path).open()
    assert recovery.crashed
    assert payloads(recovery) == [b"request %d" % n for n in range(91, 101)] + [b"new"]


def test_a_torn_last_record_is_dropped_and_cut(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    write_run(path, [1, 2], [], clean_in_flight=None)
    with path.open("ab") as handle:
        handle.write(struct.pack("<BQI", _ENQ, 3, 100) + b"partial")
    recovery, _ = FrontierJournal(path).open()
    assert (recovery.crashed, recovery.dropped, payloads(recovery)) == (True, 1, [b"request 1", b"request 2"])
    recovery, _ = FrontierJournal(path).open()  # compaction cut the torn record
    assert (recovery.dropped, recovery.pending) == (0, 2)


def test_a_corrupt_record_ends_what_is_trusted(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    write_run(path, [1, 2, 3], [], clean_in_flight=None)
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF  # inside the last record
    path.write_bytes(bytes(data))
    recovery, _ = FrontierJournal(path).open()
    assert payloads(recovery) == [b"request 1", b"request 2"]
    assert recovery.dropped == 1


def test_a_file_that_is_not_a_journal_is_replaced_with_an_error_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / JOURNAL_FILE
    path.write_bytes(b"something else entirely")
    recovery = Frontier(path).open()
    assert (recovery.crashed, payloads(recovery)) == (False, [])
    assert "Cannot read the frontier journal" in caplog.text
    assert path.read_bytes().startswith(b"URLNORM-FRONTIER-2\n")


def test_a_journal_of_version_1_is_read(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    path.write_bytes(b"URLNORM-FRONTIER-1\n" + _record(_ENQ, 1, b"request 1") + _record(_ENQ, 2, b"request 2"))
    recovery, next_id = FrontierJournal(path).open()
    assert (recovery.crashed, payloads(recovery), next_id) == (True, [b"request 1", b"request 2"], 3)


def test_pages_are_kept_through_compaction_the_latest_first_to_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PAGE`` records outlive their requests' ``DONE``: a resume after several runs
    knows the pages of all of them, as many as ``PAGES_IN_ALL``, the latest."""
    monkeypatch.setattr(frontier_module, "PAGES_IN_ALL", 3)
    path = tmp_path / JOURNAL_FILE
    journal = FrontierJournal(path)
    journal.open()
    for n in range(5):
        journal.append(_ENQ, n + 1, b"request %d" % n)
        journal.append(_DONE, n + 1)
        journal.append(_PAGE, 0, pickle.dumps((f"http://h.test/{n}", n), protocol=4))
    journal.append(_PAGE, 0, b"not a pickle")
    journal.close()
    recovery, _ = FrontierJournal(path).open()
    assert recovery.pages == [("http://h.test/2", 2), ("http://h.test/3", 3), ("http://h.test/4", 4)]
    assert payloads(recovery) == []
    again, _ = FrontierJournal(path).open()  # compacted to them, and nothing else
    assert again.pages == recovery.pages


def test_a_page_is_journaled_after_its_request_is_done_never_before(tmp_path: Path) -> None:
    """Its links may not all be out before: a resume must not take it for a page it has."""
    frontier = Frontier(tmp_path / JOURNAL_FILE)
    frontier.open()
    for url, links in (("http://h.test/a", ["http://h.test/b"]), ("http://h.test/c", [])):
        request = scrapy.Request(url)
        frontier.assign_id(request)
        frontier.enqueued(request, None)
        frontier.page_delivered(request, 7)
        request_id = frontier.completion.output_started(HtmlResponse(url, body=b"", request=request))
        assert request_id is not None
        for link in links:
            frontier.completion.adopt(request_id, scrapy.Request(link))
        frontier.completion.output_ended(request_id)
    frontier.close()  # /a's link was never scheduled: /a is not done
    assert FrontierJournal(tmp_path / JOURNAL_FILE).open()[0].pages == [("http://h.test/c", 7)]


# -- real crawls, killed -------------------------------------------------------------


def chain_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Page n links ahead, to a tracking variant, a redirect to a page and a missing page."""
    if path == "/":
        return Reply.page("home", ["/p/0", "/p/1"])
    kind, _, number = path.strip("/").partition("/")
    if not number.isdigit():
        return Reply.not_found()
    n = int(number)
    if kind == "p" and n < PAGES:
        links = [f"/p/{m}" for m in range(n + 1, min(n + 4, PAGES))]
        links += [f"/p/{n + 1}?utm_source=chain", f"/old/{n + 2}", f"/gone/{n}", "/"]
        return Reply.page(f"p{n}", links)
    if kind == "old":
        return Reply.redirect(f"/p/{n}")
    return Reply.not_found()


def start_crawl(web: VirtualWeb, jobdir: Path, items: Path) -> subprocess.Popen:
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        "JOBDIR": str(jobdir),
        "DEMOWEB_PROXY": web.address,
        "CONCURRENT_REQUESTS": CONCURRENCY,
        "LOG_LEVEL": "WARNING",
        "ITEM_PIPELINES": {"demoweb.crawling.JsonLinesPipeline": 100},
        "ITEM_LOG": str(items),
    }
    return spawn(settings, [f"http://{HOST}/"], stderr=subprocess.PIPE, text=True)


def collected(items: Path) -> set[str]:
    if not items.exists():
        return set()
    return {json.loads(line)["doc_id"] for line in items.read_text().splitlines() if line.strip()}


def pages(targets: list[str]) -> list[str]:
    return [target for target in targets if target.startswith("/p/") and "?" not in target]


def not_done_at_stop(jobdir: Path) -> set[str]:
    """Paths of the requests the journal holds as enqueued and not done."""
    journal = FrontierJournal(jobdir / JOURNAL_FILE)
    enqueued: dict[int, str] = {}
    done: set[int] = set()
    for kind, request_id, payload, _ in journal._records():
        if kind == _ENQ:
            enqueued[request_id] = pickle.loads(payload)["url"]
        elif kind == _DONE:
            done.add(request_id)
    return {url.split(HOST, 1)[1] for request_id, url in enqueued.items() if request_id not in done}


@pytest.mark.slow
def test_repeated_random_kill_9_loses_nothing_and_refetches_only_what_was_not_done(tmp_path: Path) -> None:
    rng = random.Random(20261122)
    jobdir, items = tmp_path / "job", tmp_path / "items.jl"
    # Killed four times, stopped gracefully (SIGINT, Scrapy saves its queue) twice in between:
    # a kill after a graceful stop leaves Scrapy's saved queue stale.
    stops = [signal.SIGKILL, signal.SIGINT, signal.SIGKILL, signal.SIGKILL, signal.SIGINT, signal.SIGKILL]
    refetched_per_run: list[int] = []
    not_done: set[str] = set()
    with VirtualWeb({HOST: FunctionSite(chain_site)}, delay=0.01) as web:
        for run, stop in enumerate([*stops, None]):
            before = len(web.hits)
            fetched_before = set(pages(web.fetched(HOST)))
            process = start_crawl(web, jobdir, items)
            if stop is not None:
                web.wait_for_hits(before + rng.randint(8, 40))
                time.sleep(rng.uniform(0, 0.02))  # land anywhere, not just after a response
                process.send_signal(stop)
            _, stderr = process.communicate(timeout=120)
            time.sleep(0.1)  # let the server answer what a killed crawl had in flight
            if stop == signal.SIGKILL:
                assert process.returncode == -signal.SIGKILL
            else:
                assert process.returncode == 0, stderr[-3000:]
            assert "Traceback" not in stderr and "ERROR" not in stderr, stderr[-3000:]
            if run:  # every resume loads cleanly, and says what it recovered after a kill
                assert ("did not stop cleanly" in stderr) == (stops[run - 1] == signal.SIGKILL), stderr[-3000:]
            run_pages = pages(web.fetched(HOST)[before:])
            refetched = set(run_pages) & fetched_before
            # At least once, and no more: a page fetched again was not done
            # (in flight, or its response still being handled) when the crawl stopped.
            assert refetched <= not_done, (run, refetched - not_done)
            refetched_per_run.append(len(refetched))
            assert len(run_pages) == len(set(run_pages)), "a page fetched twice in one run"
            not_done = not_done_at_stop(jobdir)
        everything = {f"p{n}" for n in range(PAGES)} | {"home"}
        assert collected(items) == everything
        every_fetch = pages(web.fetched(HOST))
        assert len(every_fetch) - len(set(every_fetch)) == sum(refetched_per_run)
        # DONE is written as pages complete: what is fetched twice is a handful
        # per stop (the downloader's slots and responses waiting to be handled).
        assert sum(refetched_per_run) <= PAGES // 4, refetched_per_run


# -- serialization and wiring ------------------------------------------------------------


class TwoCallbackSpider(scrapy.Spider):
    name = "two"

    def parse(self, response: scrapy.http.Response) -> None:
        pass

    def on_error(self, failure: object) -> None:
        pass


def test_journaled_requests_are_what_scrapy_serializes(tmp_path: Path) -> None:
    spider = TwoCallbackSpider()
    frontier = Frontier(tmp_path / JOURNAL_FILE)
    requests = [
        scrapy.Request("http://a.test/x", callback=spider.parse, errback=spider.on_error, meta={"k": 1}, priority=3),
        scrapy.FormRequest("http://a.test/f", formdata={"q": "1"}, callback=spider.on_error, cb_kwargs={"n": 2}),
        scrapy.Request("http://a.test/plain"),
    ]
    for request in requests:
        assert frontier.dicts.to_dict(request, spider) == request.to_dict(spider=spider)


def test_an_unserializable_request_is_counted_and_warned_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    crawler = get_crawler(TwoCallbackSpider, {"JOBDIR": str(tmp_path)})
    frontier = Frontier(tmp_path / JOURNAL_FILE, stats=crawler.stats)
    frontier.open()
    for n in range(3):
        request = scrapy.Request(f"http://a.test/{n}", callback=lambda response: None)
        frontier.assign_id(request)
        frontier.enqueued(request, TwoCallbackSpider())
    assert crawler.stats.get_value("urlnorm/frontier/unserializable") == 3
    assert caplog.text.count("would not survive a crash") == 1
    frontier.close()
    assert FrontierJournal(tmp_path / JOURNAL_FILE).open()[0].pending == 0


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"JOBDIR": "job"}, CrashSafeScheduler),
        ({}, "scrapy.core.scheduler.Scheduler"),
        ({"JOBDIR": "job", "URLNORM_CRASH_SAFE": False}, "scrapy.core.scheduler.Scheduler"),
        ({"JOBDIR": "job", "SCHEDULER": "scrapy_redis.scheduler.Scheduler"}, "scrapy_redis.scheduler.Scheduler"),
    ],
)
def test_the_addon_makes_jobdir_crawls_crash_safe_unless_told_otherwise(
    settings: dict[str, object], expected: object
) -> None:
    crawler = get_crawler(TwoCallbackSpider, {"ADDONS": {"scrapy_urlnorm.Addon": 0}, **settings})
    assert crawler.settings["SCHEDULER"] == expected
    installed = expected is CrashSafeScheduler
    for components in ("SPIDER_MIDDLEWARES", "DOWNLOADER_MIDDLEWARES"):
        assert (FrontierMiddleware in crawler.settings.getdict(components)) == installed


def test_a_journal_that_cannot_be_written_costs_an_error_logged_once_not_the_crawl(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    crawler = get_crawler(TwoCallbackSpider, {"JOBDIR": str(tmp_path)})
    frontier = Frontier(tmp_path / JOURNAL_FILE, stats=crawler.stats)
    frontier.open()
    os.close(frontier.journal._fd)  # type: ignore[arg-type]  # every write now fails (EBADF)
    spider = TwoCallbackSpider()
    for n in range(3):
        request = scrapy.Request(f"http://a.test/{n}", callback=spider.parse)
        frontier.assign_id(request)
        frontier.enqueued(request, spider)
    assert crawler.stats.get_value("urlnorm/frontier/write_errors") == 3
    assert caplog.text.count("Cannot write the frontier journal") == 1


_examples = itertools.count()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=60), prefix=st.sampled_from(["http://h.test/", "https://h.test/?q=", "http://"]))
def test_any_request_scrapy_accepts_survives_the_journal_and_the_middleware_never_raises(
    tmp_path_factory: pytest.TempPathFactory, text: str, prefix: str
) -> None:
    try:
        request = scrapy.Request(prefix + text, callback=TwoCallbackSpider.parse, meta={"depth": 1})
    except (ValueError, TypeError):
        return  # Scrapy refuses it: it never reaches a scheduler
    spider = TwoCallbackSpider()
    request = request.replace(callback=spider.parse)
    path = tmp_path_factory.getbasetemp() / f"journal-{next(_examples)}"
    frontier = Frontier(path)
    frontier.open()
    frontier.assign_id(request)
    frontier.enqueued(request, spider)
    middleware = FrontierMiddleware(frontier)
    response = HtmlResponse(request.url, body=b"<html></html>", request=request)
    child = scrapy.Request("http://h.test/child", meta=dict(request.meta))
    assert list(middleware.process_spider_output(response, [child, {"url": request.url}, None], spider)) == [
        child,
        {"url": request.url},
        None,
    ]
    assert ID_META not in child.meta  # a child inherits none of its parent's journal state
    middleware.process_spider_exception(response, ValueError("boom"), spider)
    middleware.process_exception(request, OSError("reset"), spider)
    frontier.journal.close()  # killed: no CLEAN
    recovery, _ = FrontierJournal(path).open()
    assert recovery.crashed
    restored = request_from_dict(pickle.loads(recovery.requests[0][0]), spider=spider)
    assert (restored.url, restored.callback, restored.meta) == (request.url, spider.parse, request.meta)


def test_the_journal_of_a_long_run_is_compacted_as_it_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frontier_module, "COMPACT_MIN_BYTES", 20_000)
    crawler = get_crawler(TwoCallbackSpider, {"JOBDIR": str(tmp_path)})
    frontier = Frontier(tmp_path / JOURNAL_FILE, stats=crawler.stats)
    frontier.open()
    spider = TwoCallbackSpider()
    pending: list[str] = []
    for n in range(3000):
        request = scrapy.Request(f"http://a.test/{n}", callback=spider.parse)
        frontier.assign_id(request)
        frontier.enqueued(request, spider)
        if n % 100 == 0:
            pending.append(request.url)  # these stay queued
        else:
            frontier.completion.request_failed(request)  # done
            frontier.completion._settle_due()
        assert (tmp_path / JOURNAL_FILE).stat().st_size < 100_000
    assert crawler.stats.get_value("urlnorm/frontier/compactions") >= 5
    frontier.journal.close()  # killed right after
    recovery, _ = FrontierJournal(tmp_path / JOURNAL_FILE).open()
    assert recovery.crashed
    assert [pickle.loads(payload)["url"] for payload in payloads(recovery)] == pending


def test_an_entry_held_by_its_own_drop_is_done_once_when_the_request_is_queued_again() -> None:
    """A request dropped at download time holds its own entry; released, it is queued
    again and replaces that entry, which is then done whatever held it: once, and the
    drop settling afterwards leaves no count behind."""
    done: list[int] = []
    completion = Completion(done.append, lambda: None)
    request = scrapy.Request("http://h.test/c", meta={ID_META: 7})
    completion.handed_out(request)
    assert completion.entry_to_hold(request) == 7
    completion.hold(7)  # dropped late against a pending representative ...
    completion.request_failed(request)  # ... which raised IgnoreRequest
    completion._settle_due()
    assert done == []  # held
    completion.on_request_scheduled(request)  # released: queued again
    completion.unhold(7)
    assert completion._outputs[7] == [0, 1]  # its hold went with the entry: no count below zero
    completion._settle_due()
    assert done == [7]
    assert completion._outputs == {} and completion._held == {}


# -- the keys a journaled request claimed ----------------------------------------------


def scheduler_of(jobdir: Path, *rules: tuple[str, str, str]) -> tuple[CrashSafeScheduler, Deduplicator]:
    """One run of a learning JOBDIR crawl, its scheduler opened after its learner was
    taught ``rules`` (kind, then two redirects ``source -> target``: the evidence a rule needs)."""
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        "JOBDIR": str(jobdir),
        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue",  # (no engine here)
    }
    crawler = get_crawler(TwoCallbackSpider, settings)
    crawler.spider = crawler._create_spider()
    dedup = Deduplicator.for_crawler(crawler)
    assert dedup.learner is not None
    for _, first, second in rules:
        for source in (first, second):
            dedup.learner.observe_redirect(source, source.replace("www.", "").rstrip("/"))
    assert {kind for kind, _, _ in rules} <= {rule.kind for rule in dedup.learner.active_rules()}
    scheduler = CrashSafeScheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    return scheduler, dedup


WWW = ("www_alias", "http://www.h.test/a", "http://www.h.test/b")
SLASH = ("trailing_slash", "http://h.test/c/", "http://h.test/d/")


def test_a_recovered_request_is_not_dropped_against_a_key_it_claimed_before_the_crash(tmp_path: Path) -> None:
    """Seed 106093 (``--params --offsite --refresh --kills 3``) lost 14 pages: ``/item-7``,
    queued under rules R, claimed its learned key under R, and the crawl was killed. The
    next run recovered it under rules R + ``trailing_slash``; a redirect revoked that rule,
    the rules were R again, and at download time the recovered request met its own key of
    the first run, seen and claimed by nobody, and was dropped as a copy of itself."""
    jobdir = tmp_path / "job"
    scheduler, dedup = scheduler_of(jobdir, WWW)
    queued = scrapy.Request("http://h.test/item")
    assert scheduler.enqueue_request(queued)
    assert dedup.fingerprint(queued).learned is not None  # it holds a key under the rules of the time
    # killed: nothing is closed

    scheduler, dedup = scheduler_of(jobdir, WWW, SLASH)
    assert dedup.learner is not None
    for target in ("http://h.test/e", "http://h.test/f", "http://h.test/g"):  # the host contradicts it
        dedup.learner.contradict("h.test", "trailing_slash", target, target + "/", via="redirect")
    assert not dedup.learner.is_active("h.test", "trailing_slash")
    recovered = scheduler.next_request()
    assert recovered is not None and recovered.url == queued.url
    own = dedup.ledger.claim_of(dedup.fingerprint(recovered).value)
    assert own is not None and dedup.ledger.claim_of(dedup.fingerprint(recovered).learned) is own
    assert dedup.late.recheck(recovered) is None


def test_a_link_dropped_against_a_queued_request_is_checked_again_after_a_crash_not_its_page(
    tmp_path: Path,
) -> None:
    """A drop against a request still queued used to hold the journal entry of the page
    that yielded it: after a ``kill -9`` that page was fetched again, only to yield the
    link once more (~50 pages of ~570 per resume in
    ``test_kill_9_and_resume_refetches_only_what_was_in_flight``). The drop is journaled
    itself now: the link goes through the filter again, against the representative
    recovered with it, and is released if that representative fails."""
    jobdir = tmp_path / "job"
    scheduler, dedup = scheduler_of(jobdir, WWW)
    representative = scrapy.Request("http://h.test/page")
    assert scheduler.enqueue_request(representative)
    link = scrapy.Request("http://www.h.test/page", meta={ID_META: 999})  # (a redirect carries its source's id)
    assert not scheduler.enqueue_request(link)  # dropped against the queued page: learned www_alias
    assert dedup.ledger.unsettled() == 1
    # killed: nothing is closed

    scheduler, dedup = scheduler_of(jobdir, WWW)
    stats = scheduler.stats
    assert stats.get_value("urlnorm/frontier/recovered") == 1
    assert stats.get_value("urlnorm/frontier/drops_rechecked") == 1
    assert dedup.ledger.unsettled() == 1  # dropped again, against the recovered representative
    released: list[str] = []
    dedup.reschedule_request = lambda request: released.append(request.url)
    recovered = scheduler.next_request()
    assert recovered is not None and recovered.url == representative.url
    dedup.settling.settle(recovered, delivered=False, why="status")
    assert released == [link.url]  # its representative failed: it is fetched after all


def test_a_drop_that_settled_before_the_crash_is_not_checked_again(tmp_path: Path) -> None:
    jobdir = tmp_path / "job"
    scheduler, dedup = scheduler_of(jobdir, WWW)
    representative = scrapy.Request("http://h.test/page")
    assert scheduler.enqueue_request(representative)
    assert not scheduler.enqueue_request(scrapy.Request("http://www.h.test/page"))
    sent = scheduler.next_request()
    assert sent is not None
    dedup.reschedule_request = lambda request: None  # (the drop's audit: no engine here)
    dedup.settling.settle(sent, delivered=True)  # its page delivered: the drop is discharged
    assert dedup.ledger.unsettled() == 0
    # killed before the page was handled completely: it is fetched again, the drop is not
    scheduler, _ = scheduler_of(jobdir, WWW)
    assert scheduler.stats.get_value("urlnorm/frontier/recovered") == 1
    assert scheduler.stats.get_value("urlnorm/frontier/drops_rechecked") is None


def test_two_spellings_queued_apart_before_a_rule_are_not_one_claim_after_a_crash(tmp_path: Path) -> None:
    """Kill test: ``/Sec1/Page18.aspx`` and ``/sec1/page18.aspx`` were both queued before
    ``case_insensitive_path`` was learned, and the crawl was killed before either was sent.
    Recovered, each claimed the key the rules now give it: the same one, so their claims
    merged into one, neither was a copy of the other at download time, and both were
    fetched. One is dropped against the other now, as in an uninterrupted crawl."""
    jobdir = tmp_path / "job"
    scheduler, _ = scheduler_of(jobdir)
    for url in ("http://www.h.test/item", "http://h.test/item"):  # no rule yet: two pages
        assert scheduler.enqueue_request(scrapy.Request(url))
    # killed: nothing is closed

    scheduler, dedup = scheduler_of(jobdir, WWW)
    first, second = scheduler.next_request(), scheduler.next_request()
    assert first is not None and second is not None
    ledger = dedup.ledger
    assert ledger.claim_of(dedup.fingerprint(first).value) is not ledger.claim_of(dedup.fingerprint(second).value)
    # Whichever is sent first is dropped against the other, still queued (released if it fails).
    assert [dedup.late.recheck(first), dedup.late.recheck(second)] == ["learned:www_alias", None]
    assert ledger.unsettled() == 1


def test_a_form_sent_in_place_of_a_link_holds_its_claim_after_a_crash(tmp_path: Path) -> None:
    """Frameworks seed 560025, ``--kills 2``: ``/notes-launch/?utm_source=..`` (claiming the
    key of ``/notes-launch/``) was sent in its taught form ``/notes-launch?utm_source=..``
    (queued, ``dont_filter``) and the crawl was killed before the form was sent. Recovered,
    the form claimed its own keys only; the link ``/notes-launch/``, dropped against the
    first, met its key seen and claimed by nobody and was dropped as a delivered page:
    lost. The form is journaled with the keys of the claim it takes over."""
    jobdir = tmp_path / "job"
    scheduler, dedup = scheduler_of(jobdir)
    link = scrapy.Request("http://h.test/a/?utm_source=x")
    assert scheduler.enqueue_request(link)
    sent = scheduler.next_request()
    assert sent is not None
    dropped = scrapy.Request("http://h.test/a/", meta={ID_META: 999})
    assert not scheduler.enqueue_request(dropped)  # against the link's pending claim
    meta = {**sent.meta, M.SHORTCUT_OF: sent.url}
    form = sent.replace(url="http://h.test/a?utm_source=x", dont_filter=True, meta=meta)
    assert scheduler.enqueue_request(form)  # (the engine schedules the form in the link's place)
    scheduler.frontier._write(frontier_module._record(_DONE, sent.meta[ID_META]))  # the link: done
    key = dedup.fingerprint(link).value
    # killed before the form was sent

    scheduler, dedup = scheduler_of(jobdir)
    assert scheduler.stats.get_value("urlnorm/frontier/drops_rechecked") == 1
    assert dedup.ledger.claim_of(key) is not None  # held by the recovered form
    assert dedup.ledger.unsettled() == 1  # the link dropped again, against it: released if it fails


def test_a_recovered_shortcut_parks_its_link_again(tmp_path: Path) -> None:
    """Frameworks seed 575257, ``--kills 2``: ``/faq-update`` went in its taught form
    ``/faq-update/`` (``trailing_slash``, Django's ``APPEND_SLASH``), the link as written
    parked, to be compared with the form's page when it delivers. Killed before the form
    was sent: the parked link died with the process, the resumed crawl fetched the form
    only, and Django's ``/faq-update``, a page of its own, was lost. The recovered form
    parks its link again."""
    jobdir = tmp_path / "job"
    scheduler, dedup = scheduler_of(jobdir, WWW)
    assert scheduler.enqueue_request(scrapy.Request("http://www.h.test/page"))
    sent = scheduler.next_request()
    assert sent is not None
    form = sent.replace(url="http://h.test/page", dont_filter=True, meta={**sent.meta, M.SHORTCUT_OF: sent.url})
    assert scheduler.enqueue_request(form)  # (the engine schedules the form in the link's place)
    scheduler.frontier._write(frontier_module._record(_DONE, sent.meta[ID_META]))  # the link: done
    # killed before the form was sent

    scheduler, dedup = scheduler_of(jobdir, WWW)
    recovered = scheduler.next_request()
    assert recovered is not None and recovered.meta.get(M.SHORTCUT_OF) == sent.url
    assert TaughtForms(dedup).in_place(recovered) == (None, None)  # it goes on, in the link's place
    claim = dedup.ledger.claim_of(dedup.fingerprint(recovered).value)
    assert claim is not None
    assert [drop.request.url for drop in claim.drops or ()] == [sent.url]  # compared when the form delivers
    # Not under the form's journal id: its audit, scheduled, would mark the form done
    # (a replacement), and a kill before the form's page was read would lose it (seed 106093).
    assert all(ID_META not in drop.request.meta for drop in claim.drops or ())
    assert dedup.counters.counts.get("urlnorm/shortcuts_parked_again") == 1


def test_a_recovered_audit_claims_nothing(tmp_path: Path) -> None:
    """Kill test: an audit queued at the kill was recovered with a claim on its keys, its
    representative's learned key among them, which nobody settles (an audit is compared
    with its representative's page, never one itself). Links dropped against it waited for
    ``spider_idle`` and were fetched then (``urlnorm/released/idle``: ~45 per resume)."""
    jobdir = tmp_path / "job"
    scheduler, dedup = scheduler_of(jobdir, WWW)
    audit = scrapy.Request("http://www.h.test/item", dont_filter=True)
    key = dedup.fingerprint(audit).learned
    assert key is not None
    mark_audit(audit.meta, key, "learned:www_alias", "www.h.test")
    assert scheduler.enqueue_request(audit)
    # killed

    scheduler, dedup = scheduler_of(jobdir, WWW)
    assert scheduler.stats.get_value("urlnorm/frontier/recovered") == 1
    assert dedup.ledger.claim_of(key) is None
    assert dedup.ledger.claim_of(dedup.fingerprint(audit).value) is None
    recovered = scheduler.next_request()
    assert recovered is not None and M.AUDIT in recovered.meta


def test_the_keys_a_recovered_request_claims_are_journaled_for_the_next_crash(tmp_path: Path) -> None:
    """Seed 106093 again, after two kills: ``/guides``, queued before any rule, was
    recovered under rules R and claimed its learned key under R; killed again before it was
    sent, it was recovered under other rules, R came back, and ``/guides`` met its key under
    R in the seen set, claimed by nobody, and was dropped against it as a delivered page.
    What a recovered request claims is journaled, as any claim is."""
    jobdir = tmp_path / "job"
    scheduler, _ = scheduler_of(jobdir)
    queued = scrapy.Request("http://h.test/item")
    assert scheduler.enqueue_request(queued)  # no rule: its static key only
    # killed

    scheduler, dedup = scheduler_of(jobdir, WWW)  # recovered: it claims its key under WWW
    assert dedup.fingerprint(queued).learned is not None
    # killed again before it was sent

    scheduler, dedup = scheduler_of(jobdir, WWW, SLASH)
    assert dedup.learner is not None
    for target in ("http://h.test/e", "http://h.test/f", "http://h.test/g"):  # the rules go back to WWW alone
        dedup.learner.contradict("h.test", "trailing_slash", target, target + "/", via="redirect")
    recovered = scheduler.next_request()
    assert recovered is not None and recovered.url == queued.url
    fingerprint = dedup.fingerprint(recovered)
    own = dedup.ledger.claim_of(fingerprint.value)
    assert own is not None and dedup.ledger.claim_of(fingerprint.learned) is own  # its key, not a page's
    assert dedup.late.recheck(recovered) is None
    assert M.NO_SHORTCUT not in recovered.meta  # (not even sent to verify a drop)


def test_a_variant_held_back_is_journaled_until_it_is_scheduled_again(tmp_path: Path) -> None:
    """Hold-back under ``JOBDIR``: a variant of an undecided rule waits in memory, in no
    queue. It is journaled as a drop of its own: killed while it waits, it goes through
    the filter again on resume; once scheduled again, its record is done."""
    jobdir = tmp_path / "job"
    scheduler, dedup = scheduler_of(jobdir)
    holdback = dedup.holdback
    assert holdback is not None
    for url in ("http://h.test/a", "http://h.test/b", "http://h.test/a/"):  # two pages, the rule's probe
        assert scheduler.enqueue_request(scrapy.Request(url))
    assert not scheduler.enqueue_request(scrapy.Request("http://h.test/b/"))  # held: trailing_slash is tested
    assert holdback.held == 1
    # killed: nothing is closed

    scheduler, dedup = scheduler_of(jobdir)
    assert scheduler.stats.get_value("urlnorm/frontier/recovered") == 3
    assert scheduler.stats.get_value("urlnorm/frontier/drops_rechecked") == 1
    queued = [request.url for request in iter(scheduler.next_request, None)]
    assert sorted(queued) == ["http://h.test/a", "http://h.test/a/", "http://h.test/b", "http://h.test/b/"]
    # killed again, all four in flight; this time the held variant goes back to the queue first
    scheduler, dedup = scheduler_of(jobdir)
    holdback = dedup.holdback
    assert holdback is not None
    holdback.reschedule = scheduler.enqueue_request  # type: ignore[assignment]  # (no engine here)
    for url in ("http://h.test/c", "http://h.test/d", "http://h.test/c/"):
        assert scheduler.enqueue_request(scrapy.Request(url))
    assert not scheduler.enqueue_request(scrapy.Request("http://h.test/d/"))
    assert holdback.release_all() == 1
    # killed: the released variant is recovered as queued, not checked again as held
    scheduler, _ = scheduler_of(jobdir)
    assert scheduler.stats.get_value("urlnorm/frontier/recovered") == 8
    assert scheduler.stats.get_value("urlnorm/frontier/drops_rechecked") is None
