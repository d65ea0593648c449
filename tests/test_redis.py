"""Distributed crawls: the seen set and learned rules shared through a real Redis."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from crawl_process import spawn
from demoweb.server import VirtualWeb
from demoweb.web import DOCUMENTS, START_URLS, build_sites
from redis_server import RedisServer

from scrapy_urlnorm.learning import Learner
from scrapy_urlnorm.stores import RedisRules, RedisStore, RedisUnavailable

HERE = Path(__file__).resolve().parent


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    instance = RedisServer(tmp_path).start()
    yield instance
    instance.stop()


def client(server: RedisServer) -> redis.Redis:
    return redis.Redis.from_url(server.url, socket_timeout=2, socket_connect_timeout=2)


def test_two_workers_share_one_atomic_seen_set(server: RedisServer) -> None:
    first, second = RedisStore(client(server), "t:seen"), RedisStore(client(server), "t:seen")
    assert first.add(1 << 63, 5) is None
    assert second.add(1 << 63, 9) == 5  # the other worker's rank
    assert second.get(1 << 63) == 5 and first.get(7) is None
    assert len(first) == 1
    first.clear()
    assert len(second) == 0


def test_unreachable_at_start_is_a_clear_error(server: RedisServer) -> None:
    url = server.url
    server.stop()
    with pytest.raises(RedisUnavailable, match=r"cannot reach Redis at redis://127\.0\.0\.1"):
        RedisStore(redis.Redis.from_url(url, socket_connect_timeout=1), "t:seen", url=url)


def test_outage_keeps_going_and_loses_nothing(server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    errors: Counter[str] = Counter()
    store = RedisStore(client(server), "t:seen", count=lambda name: errors.update([name]), url=server.url)
    store.add(1, 0)
    server.stop()
    for fingerprint in range(2, 12):  # Redis is away: no exception, counted, de-duplicated locally
        assert store.add(fingerprint, 1) is None
        assert store.add(fingerprint, 1) == 1
    assert errors["urlnorm/redis_errors"] >= 1
    assert "is unreachable" in caplog.text
    server.start()
    time.sleep(0.6)  # past the first backoff
    assert store.add(99, 0) is None
    assert "is back" in caplog.text
    raw = client(server)
    assert raw.hlen("t:seen") == 12  # 1, the ten kept meanwhile, and 99: each once
    other = RedisStore(client(server), "t:seen")
    assert other.add(5, 7) == 1


def test_rules_learned_by_one_worker_apply_to_the_other(server: RedisServer) -> None:
    shared_a, shared_b = (
        RedisRules(client(server), "t:rules", interval=0),
        RedisRules(client(server), "t:rules", interval=0),
    )
    learned: list[str] = []
    worker_a = Learner(
        min_evidence=2, on_change=lambda rule: shared_a.publish(f"{rule.host}|{rule.kind}", json.dumps(rule.as_dict()))
    )
    worker_b = Learner(min_evidence=2, on_change=lambda rule: learned.append(f"{rule.kind}:{rule.active}"))
    worker_a.observe_redirect("http://h/a", "http://h/a/")
    worker_a.observe_redirect("http://h/b", "http://h/b/")
    for state in shared_b.changes().values():
        worker_b.adopt(json.loads(state))
    assert learned == ["trailing_slash:True"]
    assert [r.direction for r in worker_b.active_rules("h")] == ["add"]
    assert shared_b.changes() == {}  # nothing new since


def run_worker(
    web: VirtualWeb, url: str, feed: Path, *, scheduler: bool, extra: dict | None = None
) -> subprocess.Popen:
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        "DEMOWEB_PROXY": web.address,
        "URLNORM_REDIS_URL": url,
        "URLNORM_REDIS_SYNC_INTERVAL": 0.2,
        "URLNORM_AUDIT_RATE": 0,
        "CONCURRENT_REQUESTS": 2,
        "LOG_LEVEL": "INFO",
        "FEEDS": {str(feed): {"format": "jsonlines"}},
        **(extra or {}),
    }
    if scheduler:
        settings |= {"SCHEDULER": "scrapy_redis.scheduler.Scheduler", "SCHEDULER_PERSIST": True, "REDIS_URL": url}
    return spawn(settings, START_URLS, stderr=subprocess.PIPE, text=True)


def doc_ids(*feeds: Path) -> list[str]:
    return [json.loads(line)["doc_id"] for feed in feeds if feed.exists() for line in feed.read_text().splitlines()]


def stat(log: str, name: str) -> int:
    """A counter from the stats a worker dumps at close (0 if absent)."""
    match = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(match.group(1)) if match else 0


@pytest.mark.slow
def test_two_scrapy_redis_workers_crawl_the_demo_web_together(server: RedisServer, tmp_path: Path) -> None:
    """Two workers share the queue, the seen set and the learned rules.

    Only invariants are asserted: how the work splits between the workers, and
    how much a rule saves before it reaches the other worker, depend on timing.
    (The test used to allow one worker *with* learned rules plus 8 pages: both
    figures move with timing, 36 or 37 pages alone and 38 to 45 for the two
    workers here, which left no margin on a loaded machine. It also required
    each worker to collect something, which a worker that starts late need not.)"""
    with VirtualWeb(build_sites(), delay=0.01) as web:  # baseline: one worker, no learned rules
        alone = run_worker(web, server.url, tmp_path / "alone.jsonl", scheduler=True, extra={"URLNORM_LEARN": False})
        assert alone.communicate(timeout=120) and alone.returncode == 0
        static_pages = sum(1 for hit in web.hits if hit.status == 200)
    client(server).flushdb()

    with VirtualWeb(build_sites(), delay=0.01) as web:
        workers = [run_worker(web, server.url, tmp_path / f"w{i}.jsonl", scheduler=True) for i in range(2)]
        logs = [worker.communicate(timeout=120)[1] for worker in workers]
        assert [worker.returncode for worker in workers] == [0, 0], logs[0][-2000:] + logs[1][-2000:]
        pages = sum(1 for hit in web.hits if hit.status == 200)
    ids = doc_ids(tmp_path / "w0.jsonl", tmp_path / "w1.jsonl")
    assert len(set(ids)) == sum(DOCUMENTS.values())  # every document, across the two workers
    assert all("scrapy-urlnorm shares its seen set" in log for log in logs)
    assert pages == len(ids)
    # Together they download no more than one worker without learned rules (a
    # rule's savings may be spent while it travels between them, at most 0.2 s
    # here), plus the drops released and fetched after all: a representative
    # one worker queued may be downloaded by the other, and the first releases
    # what it dropped against it when it goes idle.
    released = sum(stat(log, "urlnorm/released") for log in logs)
    assert pages <= static_pages + released, (pages, static_pages, released)
    # A rule learned by one worker was applied by the other.
    assert any("learned by another worker" in log for log in logs)
    # The last worker to close reports totals over both.
    totals = {int(m) for log in logs for m in re.findall(r"'urlnorm/all_workers/requests_seen': (\d+)", log)}
    own = [int(m) for log in logs for m in re.findall(r"'urlnorm/requests_seen': (\d+)", log)]
    assert max(totals) == sum(own)


@pytest.mark.slow
def test_redis_restarted_mid_crawl_and_the_crawl_finishes(server: RedisServer, tmp_path: Path) -> None:
    with VirtualWeb(build_sites(), delay=0.05) as web:
        worker = run_worker(web, server.url, tmp_path / "w.jsonl", scheduler=False)
        web.wait_for_hits(12)
        server.stop()
        time.sleep(1.0)
        server.start()
        log = worker.communicate(timeout=120)[1]
    assert worker.returncode == 0, log[-3000:]
    assert "is unreachable" in log and "is back" in log
    assert "'urlnorm/redis_errors'" in log
    assert len(set(doc_ids(tmp_path / "w.jsonl"))) == sum(DOCUMENTS.values())


@pytest.mark.slow
def test_killed_worker_resumes_without_refetching(server: RedisServer, tmp_path: Path) -> None:
    with VirtualWeb(build_sites(), delay=0.05) as web:
        first = run_worker(web, server.url, tmp_path / "w1.jsonl", scheduler=True)
        web.wait_for_hits(15)
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=30)
        before = len(web.hits)
        second = run_worker(web, server.url, tmp_path / "w2.jsonl", scheduler=True)
        log = second.communicate(timeout=120)[1]
        assert second.returncode == 0, log[-3000:]
        targets = [(hit.host, hit.target) for hit in web.hits]
    assert len(targets) > before  # the second worker carried on
    assert set(targets[before:]) & set(targets[:before]) == set()  # nothing fetched again


def test_evidence_adds_up_across_workers_and_contradictions_travel(server: RedisServer) -> None:
    def worker(shared: RedisRules) -> Learner:
        def share(rule, pair):  # the Deduplicator's hook, minus the crawler
            field = f"{rule.host}|{rule.kind}"
            if pair is None:
                shared.publish(field, json.dumps(rule.as_dict()))
                return 0
            return shared.add_pair(field, pair)

        return Learner(min_evidence=2, share=share)

    shared_a, shared_b = (
        RedisRules(client(server), "t:rules", interval=0),
        RedisRules(client(server), "t:rules", interval=0),
    )
    a, b = worker(shared_a), worker(shared_b)
    a.observe_redirect("http://h/a", "http://h/a/")
    b.observe_redirect("http://h/b", "http://h/b/")  # one pair each: two together
    assert [r.kind for r in b.active_rules()] == ["trailing_slash"]

    # A contradiction of a rule not yet active anywhere reaches the other worker.
    a.observe_page("http://k/report", 1, length=64)
    a.observe_page("http://k/report/", 2, length=64)
    for state in shared_b.changes().values():
        b.adopt(json.loads(state))
    b.observe_redirect("http://k/x", "http://k/x/")
    b.observe_redirect("http://k/y", "http://k/y/")
    assert [r.host for r in b.active_rules()] == ["h"]
