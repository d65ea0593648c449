"""A drop made after a ``JOBDIR`` crawl resumes rests on requests the last run queued.

Scrapy saves its queue at a clean stop; the requests in it were admitted
(their keys are in the seen set) but are not fetched yet. A variant of one
of them met after the resume is a drop against a *pending* representative,
and must be released if that representative fails, as in one run.
"""

from __future__ import annotations

import json
import pickle
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest
from crawl_process import spawn
from demoweb.server import FunctionSite, Reply, VirtualWeb
from scrapy import Request

from scrapy_urlnorm.frontier import _CLEAN, _DONE, _ENQ, _PAGE, JOURNAL_FILE, FrontierJournal
from scrapy_urlnorm.ledger import DropLedger
from scrapy_urlnorm.resume import PENDING_FILE, PendingFile

HOST = "resume.test"


def site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """``/`` links ``/r1``, ``/r2``, ``/b`` and a tracking variant of ``/r1``; ``/b``
    links a tracking variant of ``/r2``. ``/r1`` and ``/r2`` as written fail (a
    server error); with the tracking parameter each is a page."""
    if path == "/":
        return Reply.page("home", ["/r1", "/r2", "/b", "/r1?utm_source=home"])
    if path == "/b":
        return Reply.page("b", ["/r2?utm_source=b"])
    if path in ("/r1", "/r2"):
        return Reply.page(path[1:]) if query else Reply(500, b"busy", {"Content-Type": "text/plain"})
    return Reply.not_found()


def start(web: VirtualWeb, jobdir: Path, items: Path, stderr: int, **extra: object) -> subprocess.Popen:
    """A crawl of ``HOST`` with ``JOBDIR``, one request at a time, writing its items to ``items``."""
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        "JOBDIR": str(jobdir),
        "DEMOWEB_PROXY": web.address,
        "CONCURRENT_REQUESTS": 1,
        "RETRY_ENABLED": False,
        "LOG_LEVEL": "INFO",
        "ITEM_PIPELINES": {"demoweb.crawling.JsonLinesPipeline": 100},
        "ITEM_LOG": str(items),
        **extra,
    }
    return spawn(settings, [f"http://{HOST}/"], stderr=stderr, text=True)


def run(web: VirtualWeb, jobdir: Path, items: Path, **extra: object) -> subprocess.CompletedProcess[str]:
    """The crawl of :func:`start`, to its end; its log in ``stderr``."""
    process = start(web, jobdir, items, subprocess.PIPE, **extra)
    _, log = process.communicate(timeout=120)
    assert process.returncode == 0, log[-3000:]
    return subprocess.CompletedProcess(process.args, process.returncode, "", log)


def collected(items: Path) -> set[str]:
    return {json.loads(line)["doc_id"] for line in items.read_text().splitlines() if line.strip()}


@pytest.mark.parametrize("crash_safe", [True, False], ids=["frontier", "no-frontier"])
def test_drops_against_requests_queued_at_a_clean_stop_are_released_when_those_fail(
    tmp_path: Path, crash_safe: bool
) -> None:
    jobdir, items = tmp_path / "job", tmp_path / "items.jl"
    with VirtualWeb({HOST: FunctionSite(site)}) as web:
        # Stopped cleanly after the first page: /r1, /r2 and /b wait in Scrapy's saved
        # queue, and /r1's variant was dropped against /r1, pending.
        first = run(web, jobdir, items, CLOSESPIDER_PAGECOUNT=1, URLNORM_CRASH_SAFE=crash_safe)
        assert "closespider_pagecount" in first.stderr
        assert web.fetched(HOST) == ["/"]
        second = run(web, jobdir, items, URLNORM_CRASH_SAFE=crash_safe)
        fetched = web.fetched(HOST)
    # /b came first (Scrapy's queue is last in, first out): /r2's variant was dropped
    # while /r2 waited. Both failed, so both variants were fetched after all.
    assert fetched[:2] == ["/", "/b"], fetched
    assert collected(items) == {"home", "b", "r1", "r2"}, fetched
    assert "Resumed 3 pending claim(s) and 1 drop(s)" in second.stderr
    assert not (jobdir / PENDING_FILE).exists()  # the crawl finished: nothing pending


def revoked_later(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """``/a`` and ``/b`` redirect to their directory forms (which teaches
    ``trailing_slash``), but ``/x`` and ``/x/`` are two pages, and ``/gone``
    exists only as written."""
    links = {"/": ["/a"], "/a/": ["/b"], "/b/": ["/gone", "/x"]}
    if path in ("/a", "/b"):
        return Reply.redirect(path + "/")
    if path in links:
        return Reply.page(path, links[path])
    if path in ("/x", "/x/", "/gone"):
        return Reply.page(path)
    return Reply.not_found()


def test_learned_drops_parked_at_a_clean_stop_are_released_by_a_revocation_after_the_resume(tmp_path: Path) -> None:
    jobdir, items = tmp_path / "job", tmp_path / "items.jl"
    # Every drop of the rule is trusted once learned: no audit fetches /x as written.
    trusting = {"URLNORM_VERIFY_REDIRECT_RULES": False, "URLNORM_AUDIT_RATE": 0.0}
    with VirtualWeb({HOST: FunctionSite(revoked_later)}) as web:
        # Stopped after /x was sent as its taught form /x/, and parked as written.
        first = run(web, jobdir, items, CLOSESPIDER_PAGECOUNT=4, **trusting)  # (redirects are not counted)
        assert web.fetched(HOST) == ["/", "/a", "/a/", "/b", "/b/", "/x/"], web.fetched(HOST)
        assert "1 parked learned drop(s)" in first.stderr
        # /gone/ does not exist: the rule is revoked, and /x released.
        second = run(web, jobdir, items, **trusting)
        fetched = web.fetched(HOST)
    assert "revoked_rules" in second.stderr
    assert collected(items) >= {"/", "/a/", "/b/", "/x", "/gone"}, fetched


def test_pending_claims_and_their_drops_come_back_in_the_next_run(tmp_path: Path) -> None:
    counted: Counter[str] = Counter()

    def count(key: str, value: int) -> None:
        counted[key] += value

    saved = DropLedger(None, count)
    claim = saved.claim((1, 2), "http://h.test/a")
    assert saved.drop(Request("http://h.test/a?utm_source=x"), "tracking_params", "h.test", learned=False, claim=claim)
    assert saved.drop(
        Request("http://h.test/a?b", callback=lambda r: None), "exact", "h.test", learned=False, claim=claim
    )
    saved.claim((3,), "http://h.test/c")
    # A learned drop against a delivered page is parked, for a revocation to release.
    assert saved.drop(Request("http://h.test/D"), "learned:case_insensitive", "h.test", learned=True, claim=None)
    assert PendingFile(tmp_path / PENDING_FILE, count).save(saved, None) == (2, 1)
    assert counted["urlnorm/pending_unsaved"] == 1  # a lambda callback: no spider method to name

    released: list[str] = []
    loaded = DropLedger(lambda request, why: released.append(request.url), count)
    assert PendingFile(tmp_path / PENDING_FILE, count).load(loaded, None) == (2, 1)
    assert loaded.is_pending(1) and loaded.is_pending(2) and loaded.is_pending(3)
    # Whichever request of its keys fails first fails it (the holder's URL is not kept).
    restored = loaded.claim_of(2)
    assert restored is not None and restored.held_by("http://h.test/any")
    loaded.failed(restored, "status")
    assert released == ["http://h.test/a?utm_source=x"]
    assert loaded.parked() == 1
    loaded.revoke_host("h.test")
    assert released[1:] == ["http://h.test/D"]


def test_an_unreadable_pending_file_is_ignored_with_an_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / PENDING_FILE
    path.write_bytes(b"not a pickle")
    ledger = DropLedger(None, lambda key, value: None)
    assert PendingFile(path, lambda key, value: None).load(ledger, None) == (0, 0)
    assert ledger.pending_claims() == 0
    assert "Ignoring unreadable pending claims" in caplog.text


class HangingOnce:
    """A site whose first request of ``hang`` hangs (the crawl is killed meanwhile).

    ``/`` links ``links``. ``/r`` as written fails (a server error), and with the
    tracking parameter it is a page; ``/s`` redirects to such a variant. ``/a``,
    ``/b`` and ``/c`` redirect to their directory forms (two such redirects teach
    the ``trailing_slash`` rule); ``/c/`` is a page, and fails with a tracking parameter.
    """

    def __init__(self, hang: str, links: list[str]) -> None:
        self.hang = hang
        self.links = links
        self.hanging = threading.Event()
        self.let_go = threading.Event()

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        if path + (f"?{query}" if query else "") == self.hang and not self.hanging.is_set():
            self.hanging.set()
            self.let_go.wait(60)
        if path == "/":
            return Reply.page("home", self.links)
        if path == "/r":
            return Reply.page("r") if query else Reply(500, b"busy", {"Content-Type": "text/plain"})
        if path == "/s":
            return Reply.redirect("/r?utm_source=s")
        if path in ("/a", "/b", "/c"):
            return Reply.redirect(path + "/")
        if path in ("/a/", "/b/"):
            return Reply.page(path[1])
        if path == "/c/":
            return Reply(500, b"busy", {"Content-Type": "text/plain"}) if query else Reply.page("c")
        return Reply.not_found()


@pytest.mark.parametrize(
    ("hang", "links", "journaled", "documents"),
    [
        ("/r", ["/r", "/r?utm_source=home"], 2, {"home", "r"}),
        ("/", ["/r", "/r?utm_source=home"], 1, {"home", "r"}),
        ("/r", ["/r", "/s"], 4, {"home", "r"}),
        ("/c/?utm_source=home", ["/c/?utm_source=home", "/c", "/b", "/a"], 7, {"home", "a", "b", "c"}),
    ],
    ids=["representative-in-flight", "start-page-in-flight", "redirect-target", "dropped-at-download"],
)
def test_a_kill_while_a_request_is_in_flight_loses_nothing_it_holds(
    tmp_path: Path, hang: str, links: list[str], journaled: int, documents: set[str]
) -> None:
    """Killed while a representative hangs, with a request dropped against it:

    - a link (``/r?utm_source=home``): the home page is not journaled done while
      its link waits; after the kill it is fetched again, and its link dropped
      again against the recovered ``/r``, then released when that fails;
    - a redirect target (``/s`` to ``/r?utm_source=s``): ``/s`` is not done, and
      is fetched again;
    - a link dropped at download time (``/c``, whose taught form ``/c/`` was queued
      by then, with a tracking parameter): ``/c`` itself is not done, and is checked again.

    Killed while the start page itself hangs: the recovered start page is fetched
    (it is the representative, not a start request seen before)."""
    jobdir, items = tmp_path / "job", tmp_path / "items.jl"
    site = HangingOnce(hang, links)
    with VirtualWeb({HOST: site}) as web:
        process = start(web, jobdir, items, subprocess.DEVNULL)
        try:
            assert site.hanging.wait(60)
            # Wait for what the crawl journals before the hanging request could answer
            # (the start page; with /r hanging, also the home page's links), so the
            # kill lands after the drop.
            for _ in range(600):  # polls, 50 ms apart
                if journal_length(jobdir) >= journaled:
                    break
                time.sleep(0.05)
            time.sleep(0.5)
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
        finally:
            site.let_go.set()
        resumed = run(web, jobdir, items)
        fetched = web.fetched(HOST)
    assert collected(items) == documents, fetched
    assert "did not stop cleanly" in resumed.stderr


def journal_length(jobdir: Path) -> int:
    """Records in the crawl's frontier journal."""
    path = jobdir / JOURNAL_FILE
    return len(list(FrontierJournal(path)._records())) if path.exists() else 0


def case_insensitive(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """An IIS-like host: any case of a path is its page. ``/`` links ``/V`` (queued, and
    still queued at the stop) and ``/v``, delivered next, which leads to ``/p1``, ``/P1``,
    ``/p2`` and ``/P2`` (two pairs that teach ``case_insensitive_path``), then ``/x``."""
    links = {"/": ["/V", "/v"], "/v": ["/p1"], "/p1": ["/p2", "/P1"], "/p2": ["/x", "/P2"]}
    page = path.lower()
    if page not in ("/", "/v", "/x", "/p1", "/p2"):
        return Reply.not_found()
    return Reply.page(page, links.get(page, []))


def as_if_killed(jobdir: Path, before_done_of: str | None = None) -> None:
    """Make a clean stop look like a ``kill -9``: the journal loses its ``CLEAN`` record
    (and the ``DONE`` of the request for ``before_done_of``, with its ``PAGE``), and
    the pending file, which a crash never writes, goes."""
    path = jobdir / JOURNAL_FILE
    magic = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    records = list(FrontierJournal(path)._records())
    assert records[-1][0] == _CLEAN
    records.pop()
    if before_done_of is not None:
        enqueued = {rid: pickle.loads(payload)["url"] for kind, rid, payload, _ in records if kind == _ENQ}
        (undone,) = [rid for rid, url in enqueued.items() if url == before_done_of]
        at = next(n for n, record in enumerate(records) if record[:2] == (_DONE, undone))
        del records[at : at + (2 if records[at + 1][0] == _PAGE else 1)]  # (its PAGE follows its DONE)
    path.write_bytes(magic + b"".join(record for *_, record in records))
    (jobdir / PENDING_FILE).unlink(missing_ok=True)


def test_after_a_crash_a_variant_queued_before_its_rule_is_dropped_against_the_page_delivered_then(
    tmp_path: Path,
) -> None:
    """Reproduces the kill test's extra downloads (~25 of ~570): a request recovered after
    a crash claims again the keys the rules give it now, among them the learned key of a
    page the killed run delivered, seen and claimed by nobody; holding it itself, its
    check at download time fetched it. The journal now keeps the pages delivered by
    requests that were done, and a recovered request does not take their keys. (Audits
    off: with them, it is one of the rule's first drops in this run, against a page
    whose digest died with the killed run, and is fetched to be sure: see
    ``Auditor.inconclusive``.)"""
    jobdir, items = tmp_path / "job", tmp_path / "items.jl"
    with VirtualWeb({HOST: FunctionSite(case_insensitive)}) as web:
        # (While the scraper has a page, no request is taken: the order is the queue's, LIFO.)
        # (Hold-back off: the case variants are to be fetched in pairs, as without JOBDIR they were.)
        ordered = {"SCRAPER_SLOT_MAX_ACTIVE_SIZE": 1, "URLNORM_AUDIT_RATE": 0, "URLNORM_HOLD_BACK": False}
        first = run(web, jobdir, items, CLOSESPIDER_PAGECOUNT=6, **ordered)
        assert web.fetched(HOST)[:6] == ["/", "/v", "/p1", "/P1", "/p2", "/P2"], web.fetched(HOST)
        assert "/V" not in web.fetched(HOST)
        assert "case_insensitive_path" in first.stderr, first.stderr[-3000:]
        as_if_killed(jobdir)
        second = run(web, jobdir, items, **ordered)
        fetched = web.fetched(HOST)
    assert "did not stop cleanly" in second.stderr
    assert collected(items) == {"/", "/v", "/x", "/p1", "/p2"}, fetched
    assert "/V" not in fetched, fetched


def two_pages(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    return Reply.page(path, ["/a", "/b"] if path == "/" else []) if path in ("/", "/a", "/b") else Reply.not_found()


def test_a_cache_entry_a_crash_cut_short_is_not_served_to_the_recovered_request(tmp_path: Path) -> None:
    """Differential seeds 133113 and 133133 (``--kills 2``, ``HTTPCACHE_ENABLED``): a page
    was lost, served on resume with an empty body. Scrapy's filesystem cache writes an
    entry's ``pickled_meta`` (what makes it cached) before its body and ``request_body``
    last; killed in between, the entry was served as the page, and the request was done.
    Here ``/a`` was cached and the crawl is made to look killed before its ``DONE``."""
    jobdir, items, cache = tmp_path / "job", tmp_path / "items.jl", tmp_path / "cache"
    cached = {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(cache), "SCRAPER_SLOT_MAX_ACTIVE_SIZE": 1}
    with VirtualWeb({HOST: FunctionSite(two_pages)}) as web:
        run(web, jobdir, items, CLOSESPIDER_PAGECOUNT=2, **cached)
        assert web.fetched(HOST)[:2] == ["/", "/b"], web.fetched(HOST)
        as_if_killed(jobdir, before_done_of=f"http://{HOST}/b")
        (entry,) = [
            meta.parent for meta in cache.rglob("pickled_meta") if b"/b'" in (meta.parent / "meta").read_bytes()
        ]
        (entry / "request_body").unlink()
        (entry / "response_body").write_bytes(b"")
        items.unlink()
        second = run(web, jobdir, items, **cached)
        fetched = web.fetched(HOST)
    assert fetched.count("/b") == 2, fetched
    assert collected(items) >= {"/b"}, second.stderr[-3000:]
    assert "'urlnorm/frontier/torn_cache_entries': 1" in second.stderr
