"""The seen set alone survives ``kill -9``: no fingerprint lost, nothing seen fetched again.

With ``URLNORM_CRASH_SAFE = False`` (at most once: what was queued or in
flight at the kill is not fetched on resume). The default, the crash-safe
frontier (at least once, nothing lost), is tested in test_frontier.py.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from pathlib import Path

import pytest
from crawl_process import spawn
from demoweb.server import FunctionSite, Reply, VirtualWeb
from scrapy import Request

from scrapy_urlnorm import Policy
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.persistence import SEEN_FILE
from scrapy_urlnorm.seen import FingerprintSet, SeenFile

HERE = Path(__file__).resolve().parent
HOST = "slow.test"
PAGES = 80


def chain_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Page n links to the next three pages, with tracking variants of them."""
    if path == "/":
        return Reply.page("home", ["/p/0", "/p/1"])
    if path.startswith("/p/") and path[3:].isdigit():
        n = int(path[3:])
        links = [f"/p/{m}" for m in range(n + 1, min(n + 4, PAGES))]
        links += [f"/p/{m}?utm_source=chain" for m in range(n + 1, min(n + 3, PAGES))]
        return Reply.page(f"p{n}", [*links, "/"])
    return Reply.not_found()


def run_crawl(web: VirtualWeb, jobdir: Path, *, kill_after: int | None = None) -> int:
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        "JOBDIR": str(jobdir),
        "URLNORM_CRASH_SAFE": False,
        "DEMOWEB_PROXY": web.address,
        "CONCURRENT_REQUESTS": 2,
        "LOG_LEVEL": "WARNING",
    }
    process = spawn(settings, [f"http://{HOST}/"])
    if kill_after is None:
        return process.wait(timeout=120)
    web.wait_for_hits(kill_after)
    process.send_signal(signal.SIGKILL)
    return process.wait(timeout=30)


@pytest.mark.slow
def test_without_the_frontier_kill_9_loses_no_fingerprint_and_refetches_nothing(tmp_path: Path) -> None:
    jobdir = tmp_path / "job"
    with VirtualWeb({HOST: FunctionSite(chain_site)}, delay=0.02) as web:
        code = run_crawl(web, jobdir, kill_after=15)
        assert code == -signal.SIGKILL
        first_run = web.fetched(HOST)
        assert 15 <= len(first_run) < PAGES

        # Every record the killed crawl wrote loads back, and covers every page it fetched.
        table = FingerprintSet()
        seen_file = SeenFile(jobdir / SEEN_FILE)
        loaded = seen_file.load_into(table)
        record_size = 16
        header = len(b"URLNORM-SEEN-1\nbits=64\n")
        assert loaded == ((jobdir / SEEN_FILE).stat().st_size - header) // record_size
        assert seen_file.dropped == 0
        dedup = Deduplicator(Policy.preset("default"))
        for target in first_run:
            assert dedup.fingerprint(Request(f"http://{HOST}{target}")).value in table, target

        assert run_crawl(web, jobdir) == 0
        second_run = web.fetched(HOST)[len(first_run) :]
        normal = {dedup.normalize(f"http://{HOST}{t}")[0] for t in first_run}
        refetched = [t for t in second_run if dedup.normalize(f"http://{HOST}{t}")[0] in normal]
        assert refetched == []
