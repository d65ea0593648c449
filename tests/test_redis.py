"""Distributed crawls: the seen set, the queue and the learned rules shared through a real Redis.

Every test starts its own ``redis-server`` on a free loopback port (and skips,
saying so, when it is not installed). The crawl tests run real Scrapy workers
in their own processes against a generated web of 1,000+ documents and check
that the workers together collect every document (a single stock run
collects them all: ``test_stock_run_collects_the_whole_web`` under
``URLNORM_REDIS_HEAVY=1``). Nothing here asserts on time: only counts.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import redis
from crawl_process import spawn
from demoweb.generated import generate
from demoweb.server import VirtualWeb
from demoweb.web import DOCUMENTS, START_URLS, build_sites
from redis_server import RedisServer
from scrapy import Request
from scrapy.settings import Settings
from scrapy.utils.request import RequestFingerprinter
from scrapy.utils.test import get_crawler
from twisted.internet import task

from scrapy_urlnorm import Policy, UrlNormDupeFilter
from scrapy_urlnorm import meta as M
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.learning import Learner
from scrapy_urlnorm.redis_batch import request_keys
from scrapy_urlnorm.redis_outcomes import SharedOutcomes
from scrapy_urlnorm.redis_queue import ReliableQueue, SpillFile
from scrapy_urlnorm.redis_setup import (
    BATCH_MIDDLEWARE,
    LEASE,
    PARENT,
    RECLAIMED,
    RECLAIMED_CHAIN,
    SCHEDULER,
    STOCK_SCHEDULER,
    redis_client,
)
from scrapy_urlnorm.rule_exchange import adopt_rule
from scrapy_urlnorm.stores import RedisRules, RedisStore, RedisUnavailable
from scrapy_urlnorm.taught_forms import TaughtForms

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Seconds a test waits on a worker process or a Redis reply before calling it hung.
#: Only a hang trips it: no test asserts how long anything took (a loaded machine
#: makes crawls slow, never wrong), and the figures live in benchmarks/bench_redis.py.
HANG_GUARD = 900.0
REPLY_GUARD = 30.0
#: Polls, 10 ms apart, for a worker process to register (it may start slowly on a loaded machine).
START_POLLS = 12_000
#: Tries, a few ms apart, to freeze a worker while it holds a lease.
FREEZE_TRIES = 6_000
HEAVY = pytest.mark.skipif(
    not os.environ.get("URLNORM_REDIS_HEAVY"), reason="set URLNORM_REDIS_HEAVY=1 to run the heavier fault crawls"
)


@pytest.fixture(autouse=True)
def _loops_stop_with_their_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stop every ``LoopingCall`` a test started (a queue's heartbeat, a scheduler's tick)
    when it ends. Left running on the shared reactor, a queue a test abandoned beat a
    Redis long stopped, whose port the worker's next servers reused: one that accepted
    and never answered held the reactor in a blocking read, and the worker hung."""
    started: list[task.LoopingCall] = []
    start = task.LoopingCall.start

    def recorded(self: task.LoopingCall, interval: float, now: bool = True) -> Any:
        started.append(self)
        return start(self, interval, now)

    monkeypatch.setattr(task.LoopingCall, "start", recorded)
    yield
    for loop in started:
        if loop.running:
            loop.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    instance = RedisServer(tmp_path).start()
    yield instance
    instance.stop()


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[RedisServer]:
    """For crawls: append-only file on, written to disk every second (not at every write)."""
    instance = RedisServer(tmp_path, fsync="everysec").start()
    yield instance
    instance.stop()


def client(server: RedisServer) -> redis.Redis:
    return redis.Redis.from_url(server.url, socket_timeout=REPLY_GUARD, socket_connect_timeout=REPLY_GUARD)


# -- the seen set ------------------------------------------------------------------------


def test_two_workers_share_one_atomic_seen_set(server: RedisServer) -> None:
    first, second = RedisStore(client(server), "t:seen"), RedisStore(client(server), "t:seen")
    assert first.get(1 << 63) is None and second.get(1 << 63) is None  # a look claims nothing
    assert first.prefetch([(1 << 63, 5)]) == 1  # the first to claim it is told "new"...
    assert second.prefetch([(1 << 63, 9)]) == 0 and second.get(1 << 63) == 5  # ...every other one its rank
    assert first.get(1 << 63) is None  # new to its own filter until the filter takes it
    assert first.add(1 << 63, 5) is None and first.get(1 << 63) == 5
    assert second.add(7, 9) is None  # add claims too:
    assert first.prefetch([(7, 1)]) == 0 and first.get(7) == 9  # the same URL elsewhere is a duplicate
    assert len(first) == 2
    first.clear()
    assert len(second) == 0


def test_the_seen_set_keeps_each_keys_shallowest_claim_depth(server: RedisServer) -> None:
    """With ``DEPTH_LIMIT`` a stored value also holds the shallowest depth a worker claimed
    the key at; a claim or read answers it, a rank sent later keeps the shallower depth
    and the delivered mark, and the rank answered is as without depths."""
    from scrapy_urlnorm.redis_link import with_depth

    first, second = RedisStore(client(server), "t:seen"), RedisStore(client(server), "t:seen")
    told: list[tuple[int, int]] = []
    second.on_depth = lambda key, depth: told.append((key, depth))
    assert first.prefetch([(7, with_depth(5, 3))]) == 1
    assert second.prefetch([(7, 9)]) == 0 and second.get(7) == 5 and told == [(7, 3)]
    first.link.depth_of = {7: 1}.get  # claimed shallower here since
    first.link.set_rank(7, 5, now=True)
    first.link.set_rank(7, "v", now=True)  # its page delivered
    first.link.depth_of = {7: 2}.get  # (not shallower: the stored depth stays)
    first.link.set_rank(7, 5, now=True)
    third = RedisStore(client(server), "t:seen")
    third.on_depth = lambda key, depth: told.append((key, depth))
    assert third.get(7) == 5 and told[-1] == (7, 1) and third.delivered.get(7) is not None


def test_spill_file_keeps_every_whole_record(tmp_path: Path) -> None:
    spill = SpillFile(tmp_path / "spill")
    for n in range(3):
        spill.append(b"request %d" % n)
    spill.close()
    with open(tmp_path / "spill", "ab") as torn:
        torn.write(b"\x00\x00\x00\x09\x00")  # a record cut short by a crash
    assert SpillFile(tmp_path / "spill").load() == [b"request 0", b"request 1", b"request 2"]
    spill.truncate()
    assert SpillFile(tmp_path / "spill").load() == []


def test_compact_layout_small_hashes_with_hash_tags(server: RedisServer) -> None:
    store = RedisStore(client(server), "t:seen", bucket_bits=12)
    fingerprint = 0xABC1_2345_6789_ABCD
    assert store.locate(fingerprint) == ("t:seen:{abc}", bytes.fromhex("0123456789abcd"))
    assert store.prefetch([(fingerprint, 3), (fingerprint + 1, 0)]) == 2
    raw = client(server)
    assert raw.hget("t:seen:{abc}", bytes.fromhex("0123456789abcd")) == b"3"
    assert raw.object("encoding", "t:seen:{abc}") == b"listpack"
    # The first worker's layout wins: a second worker asking for another one follows it.
    other = RedisStore(client(server), "t:seen", bucket_bits=20)
    assert other.epoch.bucket_bits == 12 and other.prefetch([(fingerprint, 0)]) == 0 and other.get(fingerprint) == 3
    with pytest.raises(ValueError, match="URLNORM_FINGERPRINT_BITS"):
        RedisStore(client(server), "t:seen", bits=128)


def test_a_full_bucket_grows_a_second_small_hash_instead_of_a_hash_table(server: RedisServer) -> None:
    raw = client(server)
    raw.config_set("hash-max-listpack-entries", 4)
    store = RedisStore(client(server), "t:seen", bucket_bits=8)
    keys = [(0xAB << 56) | n for n in range(1, 11)]  # one bucket, ten fingerprints
    assert store.prefetch([(k, 1) for k in keys]) == 10
    assert [raw.hlen(k) for k in ("t:seen:{ab}", "t:seen:{ab}:1", "t:seen:{ab}:2")] == [4, 4, 2]
    assert {raw.object("encoding", k) for k in raw.keys("t:seen:{ab}*")} == {b"listpack"}
    other = RedisStore(client(server), "t:seen")
    assert other.prefetch([(k, 2) for k in keys]) == 0 and other.get(keys[9]) == 1  # found in any link
    store.release(keys[9])  # not confirmed: given back, a tombstone keeps the chain in order
    store.release(keys[0])
    assert len(store) == 8
    assert RedisStore(client(server), "t:seen").get(keys[0]) is None
    third = RedisStore(client(server), "t:seen")
    assert third.prefetch([(keys[0], 3), (keys[9], 3), ((0xAB << 56) | 99, 3)]) == 3
    assert [raw.hlen(k) for k in ("t:seen:{ab}", "t:seen:{ab}:1", "t:seen:{ab}:2")] == [4, 4, 3]
    assert len(third) == 11
    third.clear()
    assert raw.keys("t:seen:*") == [b"t:seen:epoch"]  # every link gone; a new epoch


RACE = r"""
import sys, redis
from scrapy import Request
from scrapy.utils.request import RequestFingerprinter
from scrapy_urlnorm import Policy, UrlNormDupeFilter
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.redis_batch import request_keys
from scrapy_urlnorm.stores import RedisStore

url, out, batch, count, me = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
raw = redis.Redis.from_url(url)
store = RedisStore(redis.Redis.from_url(url), "race:seen", url=url)
dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, store=store)
dupefilter = UrlNormDupeFilter(dedup)
requests = [Request(f"http://race.test/p/{i}?utm_source=x&b={i % 7}&a=1") for i in range(count)]
raw.sadd("race:ready", me)
while raw.get("race:go") is None:
    pass
new = []
for start in range(0, count, batch):
    chunk = requests[start : start + batch]
    store.prefetch(*request_keys(dedup, chunk))  # what RedisScheduler and RedisBatchMiddleware do
    new += [r.url for r in chunk if not dupefilter.request_seen(r)]
open(out, "w").write(" ".join(new))
"""


@pytest.mark.parametrize(
    "batches",
    [(1, 1), (50, 50), pytest.param((1, 64), marks=HEAVY)],
    ids=["per-request", "batched", "mixed"],
)
def test_two_processes_racing_on_the_same_urls_see_each_once(tmp_path: Path, batches: tuple[int, int]) -> None:
    # Without the append-only file: its fsync per write would be all this test measures.
    server = RedisServer(tmp_path, aof=False).start()
    try:
        race(server, tmp_path, batches)
    finally:
        server.stop()


def race(server: RedisServer, tmp_path: Path, batches: tuple[int, int]) -> None:
    # 20,000 URLs; one claim per URL costs a round trip each: 5,000 then, unless URLNORM_REDIS_HEAVY.
    count = 20_000 if batches != (1, 1) or os.environ.get("URLNORM_REDIS_HEAVY") else 5_000
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outs = [tmp_path / "a.txt", tmp_path / "b.txt"]
    racers = [
        subprocess.Popen([sys.executable, "-c", RACE, server.url, str(out), str(batch), str(count), str(i)], env=env)
        for i, (out, batch) in enumerate(zip(outs, batches, strict=True))
    ]
    raw = client(server)
    while raw.scard("race:ready") < 2 and all(r.poll() is None for r in racers):
        time.sleep(0.01)
    raw.set("race:go", 1)
    assert [r.wait(timeout=HANG_GUARD) for r in racers] == [0, 0]
    a, b = (set(out.read_text().split()) for out in outs)
    assert len(a) + len(b) == count  # together: each URL new exactly once
    assert not a & b
    # Not asserted: that both won some. Under load one racer can finish before the other
    # starts; the invariant above is what a race must keep, whoever wins it.


# -- outages and wipes, one store --------------------------------------------------------


def test_unreachable_at_start_is_a_clear_error(server: RedisServer) -> None:
    url = server.url
    server.stop()
    with pytest.raises(RedisUnavailable, match=r"cannot reach Redis at redis://127\.0\.0\.1"):
        RedisStore(redis.Redis.from_url(url, socket_connect_timeout=1), "t:seen", url=url)


def test_outage_keeps_going_and_writes_after_the_gate(server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    errors: Counter[str] = Counter()
    store = RedisStore(client(server), "t:seen", count=lambda name: errors.update([name]), url=server.url)
    held = [True]
    store.link.gate = lambda: not held[0]  # the scheduler's spill, not pushed yet
    store.add(1, 0)
    server.stop()
    for fingerprint in range(2, 12):  # Redis is away: no exception, counted, de-duplicated locally
        assert store.get(fingerprint) is None
        assert store.add(fingerprint, 1) is None
        assert store.add(fingerprint, 1) == 1
    assert errors["urlnorm/redis_errors"] >= 1
    assert "is unreachable" in caplog.text
    server.start()
    store.link._retry_at = 1e-9  # a retry time long past: its backoff is over, however long the loop above took
    assert store.get(99) is None and store.add(99, 0) is None
    assert "is back" in caplog.text
    assert len(store) == 2 + 10  # the ten kept meanwhile wait for the gate (their requests' queue entries)
    held[0] = False
    assert store.link.flush_pending()
    other = RedisStore(client(server), "t:seen")
    assert len(other) == 12  # 1, the ten kept meanwhile, and 99: each once
    assert other.prefetch([(5, 0)]) == 0 and other.get(5) == 1


def test_wiped_state_is_detected_loudly_and_nothing_is_written(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    lost: list[str] = []
    store = RedisStore(client(server), "t:seen", url=server.url, on_lost=lost.append)
    store.prefetch([(n << 40, 0) for n in range(1, 101)])
    for n in range(1, 101):
        store.add(n << 40, 0)
    client(server).flushall()
    assert store.get(12345) is None  # answered locally from now on
    assert lost and store.link.lost
    assert client(server).dbsize() == 0  # nothing written into the wiped database
    assert "was LOST" in caplog.text and "knew 100 seen fingerprint(s)" in caplog.text
    assert not store.link.check_epoch()


def test_key_deletion_and_restart_without_persistence_are_detected(tmp_path: Path) -> None:
    volatile = RedisServer(tmp_path, aof=False).start()
    try:
        store = RedisStore(client(volatile), "t:seen", url=volatile.url)
        store.add(1, 0)
        assert store.link.check_epoch()
        volatile.stop()
        volatile.start()  # no persistence: everything is gone
        for _ in range(100):  # the first command after the restart may meet the old connection
            if not store.link.check_epoch():
                break
            store.link._retry_at = 0.0  # no backoff to wait out
        assert store.link.lost
        store = RedisStore(client(volatile), "t:seen", url=volatile.url)
        client(volatile).delete("t:seen:epoch")
        assert not store.link.check_epoch()
    finally:
        volatile.stop()


# -- the reliable queue ------------------------------------------------------------------


def fake_spider(lease: float = 30.0) -> Any:
    settings = Settings({"URLNORM_REDIS_LEASE": lease})
    return SimpleNamespace(name="q", crawler=SimpleNamespace(settings=settings, stats=None))


def addon_scheduler(server: RedisServer, **extra: Any) -> tuple[Any, Any]:
    """A crawler with the add-on on ``server`` and its scheduler, opened (the real wiring)."""
    from scrapy import Spider
    from scrapy.utils.misc import load_object

    class Links(Spider):
        name = "links"

    settings = {"ADDONS": {"scrapy_urlnorm.Addon": 0}, "SCHEDULER": STOCK_SCHEDULER, "REDIS_URL": server.url, **extra}
    crawler = get_crawler(Links, settings_dict=settings)
    crawler.spider = crawler._create_spider()
    scheduler = load_object(crawler.settings["SCHEDULER"]).from_crawler(crawler)
    scheduler.open(crawler.spider)
    return crawler, scheduler


def killed(server: RedisServer, queue: ReliableQueue) -> None:
    """``queue``'s worker stops beating (kill -9) and its lease runs out (no sleeping on a
    clock: the key's TTL ends it)."""
    queue._heartbeat.stop()
    client(server).pexpire(queue.alive, 1)
    while client(server).exists(queue.alive):
        time.sleep(0.01)


def test_queue_leases_are_acknowledged_or_reclaimed(server: RedisServer) -> None:
    spider = fake_spider()
    alive, dying = (
        ReliableQueue(client(server), spider, "q:requests"),
        ReliableQueue(client(server), spider, "q:requests"),
    )
    for n in range(4):
        alive.push(Request(f"http://h/{n}"))
    held = [dying.pop(), dying.pop()]
    assert [r.url for r in held] == ["http://h/0", "http://h/1"]  # FIFO
    assert alive.others_pending() == 2 and len(alive) == 2
    dying.notices.hold(held[1].meta[LEASE])  # a drop of its page waits on a representative: idle others may release
    dying.notices.share_held()
    assert alive.others_pending() == 1
    dying.notices.unhold(held[1].meta[LEASE])
    dying.notices.share_held()
    dying.ack(held[0].meta[LEASE])
    assert alive.others_pending() == 1
    # A redirect or retry of a popped request acknowledges it once it is queued itself.
    mine = alive.pop()
    alive.push(mine.replace(url="http://h/2/"))
    assert alive.inflight == {} and len(alive) == 2
    # The dying worker stops beating (kill -9): after its lease, its request is queued again.
    dying._heartbeat.stop()
    assert alive.reclaim() == 0  # its lease (30 s) has not run out yet
    client(server).pexpire(dying.alive, 1)  # it has now (no sleeping on a clock: the key's TTL ends it)
    while client(server).exists(dying.alive):
        time.sleep(0.01)
    assert alive.reclaim() == 1
    assert alive.others_pending() == 0
    urls = sorted(alive.pop().url for _ in range(3))
    assert urls == ["http://h/1", "http://h/2/", "http://h/3"]
    assert alive.pop() is None
    alive.close(finished=False)  # a stop that is not a finish: what it held goes back
    assert len(alive) == 3


def test_a_start_request_reclaimed_from_a_dead_worker_is_fetched_by_the_worker_that_queued_it(
    server: RedisServer,
) -> None:
    """Start requests go through the shared queue like any other. One this worker queued,
    popped by a worker that died fetching it (its key claimed by that fetch), comes back
    to this worker: it is the dead worker's fetch, not a copy of it, and is not skipped as
    "already seen" (``--redis 2 --kills 1``, seeds 147708, 147736, 147741: the start page
    and what only it linked to were lost, whenever the worker that queued it popped it)."""
    crawler, scheduler = addon_scheduler(server)
    start = Request("http://h/", dont_filter=True, meta={"is_start_request": True})
    assert scheduler.enqueue_request(start)
    dying = ReliableQueue(client(server), crawler.spider, scheduler.queue.key)
    assert dying.pop().url == start.url  # the other worker fetches it, claims its key, and dies
    killed(server, dying)
    assert scheduler.queue.reclaim() == 1
    again = scheduler.next_request()
    assert again.url == start.url and again.meta[RECLAIMED] and again.meta[M.RECOVERED]
    mine = Request("http://h/", dont_filter=True, meta={"is_start_request": True})
    assert scheduler.enqueue_request(mine)
    assert M.RECOVERED not in scheduler.next_request().meta  # not reclaimed: checked when sent
    scheduler.close("finished")


def test_a_held_lease_acknowledged_leaves_the_count_other_workers_read(server: RedisServer) -> None:
    """A worker publishes how many of its leases only wait on drops, and others count those
    out before going idle. A held lease acknowledged left that count as it was: the other
    worker counted the killed worker's next request out too and went idle before its lease
    ran out, and the request was never fetched (``--redis 2 --kills 1 --params --cookies``,
    seed 169620: a listing's next pages lost)."""
    spider = fake_spider()
    alive, dying = (ReliableQueue(client(server), spider, "q:requests") for _ in range(2))
    for n in range(3):
        alive.push(Request(f"http://h/{n}"))
    held, other = dying.pop(), dying.pop()
    dying.notices.hold(held.meta[LEASE])
    dying.notices.share_held()
    assert alive.others_pending() == 1  # ``other``
    dying.notices.unhold(held.meta[LEASE])  # what held it settled...
    dying.ack(held.meta[LEASE])  # ...and it is done
    assert alive.others_pending() == 1  # ``other`` still: killed now, it is reclaimed
    killed(server, dying)
    assert alive.reclaim() == 1 and alive.pop().url == other.url
    alive.close(finished=False)


def test_a_request_reclaimed_by_the_worker_that_queued_it_holds_its_claim_again(server: RedisServer) -> None:
    """A worker settles a page as delivered when its response arrives, before the spider's
    callback, and tells the worker that queued the request. Killed in between, it left that
    worker's claim closed as delivered, and the reclaimed request, popped back by that
    worker, held no claim: dropped at download time under a rule learned since (against
    the ``www`` twin), then the twin's redirect to this very URL was dropped against the
    "delivered" page the spider never had (``--redis 2 --kills 1 --params --cookies``,
    seed 169583). Popped back, it holds its claim again (the twin's learned key joins it):
    it is fetched, and what is dropped against it waits on that fetch."""
    crawler, scheduler = addon_scheduler(server)
    dedup = scheduler.df.dedup
    assert dedup.learned is not None
    dedup.learned.verify_taught = False  # no audit of the rule's first drops
    page = Request("http://h.test/c")
    assert scheduler.enqueue_request(page)
    key = dedup.fingerprint(page).value
    dying = ReliableQueue(client(server), crawler.spider, scheduler.queue.key)
    popped = dying.pop()
    assert popped.url == page.url
    dying.notices.notify_delivered(popped.meta[LEASE], key)  # its response arrived; then kill -9
    killed(server, dying)
    scheduler._settle_elsewhere()
    assert dedup.ledger.claim_of(key) is None  # settled as delivered on the dead worker's word
    dedup.responses.observe_redirect("http://www.h.test/a", "http://h.test/a")  # www_alias learned meanwhile
    dedup.responses.observe_redirect("http://www.h.test/b", "http://h.test/b")
    twin = Request("http://www.h.test/c")
    assert scheduler.enqueue_request(twin)
    assert scheduler.next_request().url == twin.url
    assert scheduler.queue.reclaim() == 1
    again = scheduler.next_request()
    assert again.url == page.url and again.meta[RECLAIMED] and again.meta[M.RECOVERED]
    claim = dedup.ledger.claim_of(key)
    assert claim is not None and claim.held_by(page.url)  # the dead worker's fetch, pending again
    assert dedup.late.recheck(again) is None  # fetched: the twin's learned key joined its claim
    dedup.settling.settle(twin, delivered=False, why="redirect")  # the twin redirects to its URL
    target = twin.replace(url=page.url)
    target.meta["redirect_urls"] = [twin.url]
    if scheduler.df.request_seen(target):
        pending = dedup.ledger.claim_of(key)
        assert pending is not None and pending.held_by(page.url)  # dropped against the pending fetch
    scheduler.close("finished")


def test_leases_of_requests_that_ended_unseen_are_acknowledged_when_the_worker_is_idle(server: RedisServer) -> None:
    """A ``dont_filter`` redirect loop ends with ``RedirectMiddleware``'s "max redirections
    reached", raised in ``process_response``, where no middleware sees it: its lease
    stayed, and two workers each left with one waited on the other's until
    ``CLOSESPIDER_TIMEOUT`` (``bench_differential.py --redis 2 --kills 1``, seed 146611).
    A worker with nothing in its downloader or scraper acknowledges what it still holds,
    but for the leases drops hold."""
    spider = fake_spider()
    mine, other = (ReliableQueue(client(server), spider, "q:requests") for _ in range(2))
    for n in range(3):
        mine.push(Request(f"http://h/{n}"))
    popped = [mine.pop() for _ in range(3)]
    mine.notices.hold(popped[1].meta[LEASE])  # a drop of it waits on a representative
    mine.notices.share_held()
    assert other.others_pending() == 2
    assert mine.ack_ended() == 2
    assert other.others_pending() == 0 and list(mine.inflight) == [popped[1].meta[LEASE]]


def test_an_item_settles_its_pages_lease_once_with_the_batch_middleware_installed_twice(server: RedisServer) -> None:
    """The add-on installs the batch middleware as a spider and a downloader middleware:
    one object, or each connected the item signals and an item settled its page's lease
    twice. A page yielding one item and one link dropped against a pending page (the
    drop holds the lease) was then acknowledged with the drop waiting; killed, the worker
    lost it, and nobody fetched the page again (``--redis 2 --kills 1``, coincidence seed
    2921: four documents, one run in 10 to 40)."""
    from scrapy import signals
    from scrapy.core.downloader.middleware import DownloaderMiddlewareManager
    from scrapy.core.spidermw import SpiderMiddlewareManager
    from scrapy.http import HtmlResponse

    from scrapy_urlnorm.redis_batch import RedisBatchMiddleware

    crawler, scheduler = addon_scheduler(server)
    crawler.engine = SimpleNamespace(_slot=SimpleNamespace(scheduler=scheduler))
    managers = (SpiderMiddlewareManager.from_crawler(crawler), DownloaderMiddlewareManager.from_crawler(crawler))
    batch = [mw for manager in managers for mw in manager.middlewares if isinstance(mw, RedisBatchMiddleware)]
    assert len(batch) == 2 and batch[0] is batch[1]
    queue = scheduler.queue
    assert scheduler.enqueue_request(Request("http://h/page"))
    page = scheduler.next_request()
    lease = page.meta[LEASE]
    response = HtmlResponse(page.url, body=b"<html></html>", request=page)
    link, item = Request("http://h/held"), {"url": page.url}
    list(batch[0].process_spider_output(response, [link, item]))  # what the page yields: two to settle
    queue.notices.hold(lease)  # the link is dropped against a pending page: the drop holds the lease
    link.meta.pop(PARENT)
    crawler.signals.send_catch_log(signals.item_scraped, item=item, response=response, spider=crawler.spider)
    assert lease in queue.inflight  # the drop still waits: killed now, the page is reclaimed
    queue.notices.unhold(lease)
    queue.settled(lease)  # the drop settled
    assert lease not in queue.inflight
    scheduler.close("finished")


def test_a_worker_is_told_when_a_request_it_queued_delivered_elsewhere(server: RedisServer) -> None:
    """Its claim (and what it dropped against it) settles as delivered, instead of
    being released when it goes idle and fetched a second time."""
    released: list[str] = []
    holds: list[tuple[str, str]] = []
    dedup = learned_dedup(server, released)
    dedup.ledger.on_hold = holds.append
    spider = fake_spider()
    mine, other = (ReliableQueue(client(server), spider, "q:requests") for _ in range(2))
    page = Request("http://h/c/")
    assert dedup.check(page) is None
    assert dedup.check(Request("http://h/c", meta={PARENT: "page-1"})) == "learned:trailing_slash"
    mine.push(page)
    popped = other.pop()
    other.notices.notify_delivered(popped.meta[LEASE], dedup.fingerprint(popped).value)
    mine.notices.notify_delivered(popped.meta[LEASE], 1)  # its own requests: nothing to tell
    dedup.settling.delivered_elsewhere(mine.notices.take_delivered())
    assert dedup.ledger.unsettled() == 0 and dedup.settling.release_orphans() == 0 and released == []
    assert holds == [("settled", "page-1")]
    assert mine.notices.take_delivered() == []


def test_an_entry_popped_without_an_answer_is_queued_again(server: RedisServer) -> None:
    """A pop whose reply never came (a timeout, a dropped connection) moved an entry
    into this worker's processing list that the worker never received: at a normal
    finish that list is deleted, so the request was lost. Now, whenever the shared
    queue looks empty (and at close), what the worker holds without knowing it goes back."""
    spider = fake_spider()
    queue = ReliableQueue(client(server), spider, "q:requests")
    for n in range(3):
        queue.push(Request(f"http://h/{n}"))
    received = queue.pop()
    client(server).lmove("q:requests", queue.processing, "RIGHT", "LEFT")  # what the lost reply did
    assert len(queue) == 1 and client(server).llen(queue.processing) == 2
    assert queue.recover_own() == 1  # the one it holds (received) stays
    assert len(queue) == 2 and client(server).llen(queue.processing) == 1
    assert queue.pop().url == "http://h/1"  # next to be popped, as it was
    queue.ack(received.meta[LEASE])
    client(server).lmove("q:requests", queue.processing, "RIGHT", "LEFT")
    queue.close(finished=True)  # a finish pushes it back too, instead of deleting it
    assert len(queue) == 1


def test_commands_are_sent_once(server: RedisServer) -> None:
    """redis-py retries a command on a failed connection, even one Redis already ran:
    a claim retried after its reply was lost answered "seen" for the worker's own claim."""
    settings = Settings({"REDIS_URL": server.url})
    made = redis_client(settings, server.url)
    store = RedisStore(made, "t:seen")
    queue = ReliableQueue(made, fake_spider(), "q:requests")
    for once in (store.client, queue.server):
        assert once is not made  # scrapy-redis' own client keeps its settings
        assert once.connection_pool.connection_kwargs["retry"]._retries == 0
        assert once.connection_pool.connection_kwargs["port"] == server.port


def test_a_learned_duplicate_is_not_dropped_against_another_workers_page(server: RedisServer) -> None:
    """Worker B represents a key; worker A looks it up as the learned key of a request
    whose own key A holds. Dropped, A's request would rely on B's page, which may fail
    (B's drop ledger does not know A's drop), while A's own key keeps every worker
    from fetching it: the demo web lost blog:hello that way, 1 run in 10 under load.
    The key reads as absent to A until A represents it too; a request whose *own*
    key B holds (the same URL) is still B's duplicate."""
    a, b = RedisStore(client(server), "t:seen"), RedisStore(client(server), "t:seen")
    learned, own, same_url, late = 1 << 60, 2 << 60, 3 << 60, 4 << 60
    for key in (learned, same_url, late):
        assert b.add(key, 160) is None  # B's representatives
    assert a.prefetch([(own, 0), (same_url, 0)], [learned]) == 1
    assert a.get(same_url) == 160  # found by a claim: a duplicate of B's request
    assert a.get(own) is None and a.get(learned) is None  # found by a read: not against B's page
    assert a.get(late) is None  # a read at download time (a rule learned since it was queued) too
    assert a.add(own, 0) is None and a.add(learned, 160) == 160  # A represents it too now
    assert a.get(learned) == 160  # A's own page from now on (A's ledger covers drops against it)
    assert a.prefetch([(late, 0)]) == 0 and a.get(late) == 160  # later claimed as a URL of its own: a duplicate
    assert b.prefetch([(own, 5)]) == 0 and b.get(own) == 0  # A's claims are every worker's
    # A start request (checked at download time, never claimed by the scheduler) claims its
    # own key first (RedisBatchMiddleware): B fetched it, so A skips it.
    start, looked = 5 << 60, 6 << 60
    assert b.add(start, 0) is None and b.add(looked, 0) is None
    assert a.prefetch([(start, 0)]) == 0 and a.get(start) == 0
    assert a.get(looked) is None  # read as a learned key first...
    assert a.prefetch([(looked, 0)]) == 0 and a.get(looked) == 0  # ...then claimed as a start URL: a duplicate
    # Two workers sending the same start URL at once: the claim is atomic, one of them
    # wins. (A read first and an add after let both fetch it, 1 crawl in 3.)
    both = 7 << 60
    assert a.prefetch([(both, 0)]) == 1 and b.prefetch([(both, 0)]) == 0 and b.get(both) == 0
    # A start request its filter dropped (against another key) gives the claim back.
    a.release(both)
    assert RedisStore(client(server), "t:seen").get(both) is None


def test_connection_settings_of_scrapy_redis_apply(server: RedisServer) -> None:
    settings = Settings({"REDIS_HOST": "127.0.0.1", "REDIS_PORT": server.port, "REDIS_DB": 3,
                         "REDIS_PARAMS": {"socket_timeout": 7}})  # fmt: skip
    made = redis_client(settings, "redis://127.0.0.1")
    kwargs = made.connection_pool.connection_kwargs
    assert kwargs["db"] == 3 and kwargs["socket_timeout"] == 7
    made.set("k", 1)
    assert redis.Redis(port=server.port, db=3).get("k") == b"1"
    settings.set("URLNORM_REDIS_URL", f"redis://127.0.0.1:{server.port}/5")
    kwargs = redis_client(settings, settings["URLNORM_REDIS_URL"]).connection_pool.connection_kwargs
    assert kwargs["db"] == 5 and kwargs["socket_timeout"] == 7  # its own address, scrapy-redis' parameters


@pytest.mark.parametrize(("keep", "expected"), [(False, SCHEDULER), (True, STOCK_SCHEDULER)])
def test_the_addon_installs_the_reliable_scheduler_and_the_batch_middleware(keep: bool, expected: str) -> None:
    crawler = get_crawler(
        settings_dict={
            "ADDONS": {"scrapy_urlnorm.Addon": 0},
            "SCHEDULER": STOCK_SCHEDULER,
            "REDIS_URL": "redis://127.0.0.1:1/0",
            "URLNORM_REDIS_SCHEDULER": not keep,
        }
    )
    assert crawler.settings["SCHEDULER"] == expected
    for components in ("SPIDER_MIDDLEWARES", "DOWNLOADER_MIDDLEWARES"):
        assert crawler.settings.getdict(components)[BATCH_MIDDLEWARE] == 15


# -- learned rules -----------------------------------------------------------------------


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
        adopt_rule(worker_b, json.loads(state))
    assert learned == ["trailing_slash:True"]
    assert [r.direction for r in worker_b.active_rules("h")] == ["add"]
    assert shared_b.changes() == {}  # nothing new since


def learned_dedup(server: RedisServer, released: list[str]) -> Deduplicator:
    """A worker's deduplicator on ``server`` with trailing_slash (add) learned on host h."""
    dedup = Deduplicator(
        Policy.preset("default"),
        fallback=RequestFingerprinter().fingerprint,
        learn=True,
        store=RedisStore(client(server), "t:seen"),
        reschedule=lambda request: released.append(request.url),
    )
    assert dedup.learned is not None
    dedup.learned.verify_taught = False  # no audit of the rule's first drops: they are what is looked at
    dedup.responses.observe_redirect("http://h/a", "http://h/a/")
    dedup.responses.observe_redirect("http://h/b", "http://h/b/")
    return dedup


def test_a_learned_drop_without_a_lease_to_hold_waits_for_a_page_that_delivered(server: RedisServer) -> None:
    """A worker's drop ledger dies with it (kill -9): a learned drop against a
    representative still pending would not be released if that page then fails
    where another worker fetches it. With no queue lease to hold (next test), the
    variant is fetched; once the page has delivered, its variants are dropped."""
    released: list[str] = []
    dedup = learned_dedup(server, released)
    page, tracked = Request("http://h/c/"), Request("http://h/c/?utm_source=x")
    assert dedup.check(page) is None
    assert dedup.check(tracked) == "tracking_params"  # the same URL to the static policy: in the ledger
    variant = Request("http://h/c")
    assert dedup.check(variant) is None  # its page is pending: fetched
    dedup.settling.settle(page, delivered=False, why="status")
    assert released == []  # the claims merged: the variant holds them now, and is pending
    dedup.settling.settle(variant, delivered=False, why="status")
    assert released == [tracked.url]  # neither delivered: released
    delivered = Request("http://h/d/")
    assert dedup.check(delivered) is None
    dedup.settling.settle(delivered, delivered=True)
    assert dedup.check(Request("http://h/d")) == "learned:trailing_slash"


def test_a_learned_drop_is_not_made_against_a_url_only_another_worker_claimed(server: RedisServer) -> None:
    """Worker B claims a page's links in one batch, then its filter drops one of them
    (``/c/``) and gives the claim back; worker A, in between, claimed ``/c/`` too and was
    told "seen". A then took ``/c/`` for a page B fetches, and dropped ``/c`` (the same
    page under A's learned rule) against it: nobody fetched either."""
    dedup = learned_dedup(server, [])
    other = RedisStore(client(server), "t:seen")
    target = Request("http://h/c/")
    assert other.prefetch([(dedup.fingerprint(target).value, 0)]) == 1  # B's batch claim
    variant = Request("http://h/c")
    for batch in ([variant], [target]):  # A's pages: its batch claims (and reads learned keys)
        dedup.seen.prefetch(*request_keys(dedup, batch))  # type: ignore[attr-defined]
    assert dedup.check(target) == "exact"  # the same URL as B's request: stock drops it too
    assert dedup.check(variant) is None  # but a learned drop would rest on B's request: fetched
    assert dedup.stats is None and dedup.counters.counts["urlnorm/redis/learned_fetched"] == 1


def test_a_redirect_to_a_url_only_another_worker_claimed_is_fetched(server: RedisServer) -> None:
    """``--redis 2 --kills 1``, seed 152907: worker B claimed ``/x`` (a start request's
    redirect, which holds no lease) and was killed before queueing it. Worker A's
    ``/go`` redirects to ``/x`` too: dropped as an exact duplicate of B's claim, what
    rests on ``/go`` would rest on a page nobody fetches. A redirect to a URL another
    worker claimed and is not known to have delivered is fetched; a plain link to it is
    dropped, as stock's filter drops it."""
    dedup = learned_dedup(server, [])
    other = RedisStore(client(server), "t:seen")
    target = Request("http://h/x")
    assert other.prefetch([(dedup.fingerprint(target).value, 0)]) == 1  # B's batch claim
    source = Request("http://h/go")
    assert dedup.check(source) is None
    redirect = Request("http://h/x", meta={"redirect_urls": [source.url]})
    for batch in ([target], [redirect]):
        dedup.seen.prefetch(*request_keys(dedup, batch))  # type: ignore[attr-defined]
    assert dedup.check(target) == "exact"
    assert dedup.check(redirect) is None
    assert dedup.counters.counts["urlnorm/redis/redirects_fetched"] == 1


def test_a_redirect_back_to_its_chains_first_key_another_worker_claimed_is_fetched(server: RedisServer) -> None:
    """``--redis 2 --cookies``, seed 157800: worker B fetched ``/x``, an ASP.NET page that
    asked for a cookie (302 to ``?AspxAutoDetectCookieSupport=1``, the test cookie in B's
    jar); its redirect went through the shared queue to worker A, whose jar has no such
    cookie, and the server put A's session in the path: 302 to ``/(S(...))/x``, whose key
    (``session_ids``) is ``/x``, B's claim. Dropped against it, the chain ended on nothing
    and B's claim waited on it: the page was lost about one run in four. A redirect back
    to its own chain's first key is the chain going on: fetched."""
    dedup = learned_dedup(server, [])
    other = RedisStore(client(server), "t:seen")
    first = Request("http://h/Faq.aspx")
    assert other.prefetch([(dedup.fingerprint(first).value, 0)]) == 1  # B's claim
    asked = Request("http://h/Faq.aspx?AspxAutoDetectCookieSupport=1", meta={"redirect_urls": [first.url]})
    session = Request("http://h/(S(f5wye0ydb355d22zw0x4aawx))/Faq.aspx")
    session.meta["redirect_urls"] = [first.url, asked.url]
    assert dedup.fingerprint(session).value == dedup.fingerprint(first).value
    for batch in ([asked], [session]):
        dedup.seen.prefetch(*request_keys(dedup, batch))  # type: ignore[attr-defined]
    assert dedup.check(asked) is None
    assert dedup.check(session) is None
    assert dedup.counters.counts["urlnorm/redirects_passed"] == 1


def test_a_learned_drop_is_made_against_another_workers_page_once_it_delivered(server: RedisServer) -> None:
    """Once the other worker's ``/c/`` delivered (marked in Redis with its next claim), a
    read of its key says so, and ``/c`` (the same page under the learned rule) is dropped
    against it, parked here as against a page of this worker's (released here if the
    rule is revoked). Before that, it was fetched: a second download of the page."""
    here, _, there, _ = two_workers(server)
    page, variant = Request("http://h/c/"), Request("http://h/c")
    assert there.dedup.check(page) is None
    here.dedup.seen.prefetch(*request_keys(here.dedup, [variant]))  # type: ignore[attr-defined]
    there.dedup.settling.settle(page, delivered=True)
    there.settle()  # its marks go to Redis
    here.dedup.seen.prefetch(*request_keys(here.dedup, [variant]))  # read again: shielded until delivered
    assert here.dedup.check(variant) == "learned:trailing_slash"
    assert here.dedup.ledger.parked() == 1 and here.dedup.ledger.unsettled() == 0
    assert "urlnorm/redis/learned_fetched" not in here.dedup.counters.counts


def test_a_drop_against_a_pending_page_holds_the_lease_of_the_page_that_linked_it(server: RedisServer) -> None:
    """Killed before the representative settles, the worker leaves that lease to be
    reclaimed: the linking page is fetched again and its links with it."""
    released: list[str] = []
    holds: list[tuple[str, str]] = []
    dedup = learned_dedup(server, released)
    dedup.ledger.on_hold = holds.append  # what RedisScheduler gives back to its queue
    page = Request("http://h/c/")
    assert dedup.check(page) is None
    variant, redirected = (
        Request("http://h/c", meta={PARENT: "page-1"}),
        Request("http://h/c/?utm_source=x", meta={LEASE: "source-2", PARENT: "page-0"}),
    )
    assert dedup.check(variant) == "learned:trailing_slash"
    assert dedup.check(redirected) == "tracking_params"
    assert PARENT not in variant.meta and LEASE not in redirected.meta  # the drops hold them now
    assert holds == []
    dedup.settling.settle(page, delivered=False, why="status")
    assert released == [variant.url, redirected.url]  # queued again first...
    assert holds == [("settled", "page-1"), ("ack", "source-2")]  # ...then the leases go on


def test_a_verified_drop_against_a_page_another_worker_delivered_is_fetched(server: RedisServer) -> None:
    """This worker queued ``/c/`` and dropped ``/c`` against it under a rule every drop of
    which is verified (one its redirects taught); another worker fetched ``/c/`` and told
    this one it delivered. This worker never saw that page, so it cannot compare: it
    fetches ``/c`` (as an audit) instead of parking the drop unverified.
    ``bench_differential.py --redis 2`` lost pages that way (seed 146406:
    ``/catalog.php?page=5`` under ``ignore_param:page``, 1 run in 30)."""
    released: list[str] = []
    dedup = learned_dedup(server, released)
    assert dedup.learned is not None
    dedup.learned.verify_taught = True
    dedup.ledger.on_hold = lambda hold: None  # (RedisScheduler's: the linking page's lease waits)
    page = Request("http://h/c/")
    assert dedup.check(page) is None
    variant, tracked = Request("http://h/c", meta={PARENT: "page-1"}), Request("http://h/c/?utm_source=x")
    assert dedup.check(variant) == "learned:trailing_slash"  # against a pending page: checked when it settles
    assert dedup.check(tracked) == "tracking_params"
    dedup.settling.delivered_elsewhere([dedup.fingerprint(page).value])
    assert released == [variant.url]  # the static step's drop rests on the page, wherever it was fetched
    assert dedup.counters.counts["urlnorm/audits_scheduled"] == 1


def test_a_taught_form_another_worker_queued_holds_its_claim_here(server: RedisServer) -> None:
    """This worker queued ``/c``; another popped it and sent it in its taught form ``/c/``
    (a shortcut), which went back to the shared queue, and this worker popped that. Taking
    the form's claim over (as after a crash), the worker read that claim as another
    request for ``/c/`` queued meanwhile, dropped the form against it, and nobody fetched
    ``/c/`` or ``/c``: ``bench_differential.py --redis 2 --flaky --robots --params``, seed
    146809, lost a MultiViews page that way. The form goes on, in the link's place."""
    dedup = learned_dedup(server, [])
    link = Request("http://h/c")
    assert dedup.check(link) is None  # queued here (its claim, and its key in Redis)
    form = Request("http://h/c/", dont_filter=True, meta={M.SHORTCUT_OF: link.url})
    filter_ = UrlNormDupeFilter(dedup)
    filter_.claim_foreign(form)  # what RedisScheduler does with a request another worker queued
    assert TaughtForms(dedup).in_place(form) == (None, None)
    start = Request("http://h/", dont_filter=True, meta={"is_start_request": True})
    filter_.claim_foreign(start)  # a start request claims its key when it is sent, as this worker's own do
    assert dedup.ledger.claim_of(dedup.fingerprint(start).value) is None
    assert M.RECOVERED not in start.meta  # checked when it is sent: another worker may have fetched it
    # One reclaimed from a worker that died was in flight there: it is that fetch, not a copy of it.
    reclaimed = Request("http://h/", dont_filter=True, meta={"is_start_request": True, RECLAIMED: True})
    filter_.claim_foreign(reclaimed)
    assert reclaimed.meta[M.RECOVERED]


def two_workers(server: RedisServer) -> tuple[SharedOutcomes, list[str], SharedOutcomes, list[str]]:
    """Two workers of one crawl, wired as RedisScheduler wires them: each one's outcomes and
    what its filter was given back (released drops)."""
    spider = fake_spider()
    workers: list[Any] = []
    for _ in range(2):
        released: list[str] = []
        outcomes = SharedOutcomes(ReliableQueue(client(server), spider, "q:requests"), learned_dedup(server, released))
        workers += (outcomes, released)
    return tuple(workers)  # type: ignore[return-value]


def kept_lists(server: RedisServer) -> list[bytes]:
    return sorted(client(server).scan_iter(match="t:seen:{*}:k:*"))


def test_a_static_drop_against_another_workers_page_is_released_when_that_page_fails(server: RedisServer) -> None:
    """Another worker queued ``/c/``; this one dropped ``/c/?utm_source=x`` against it, the
    same URL to the static policy. That request did not deliver (``robots.txt`` forbids
    ``/c/`` as spelled, or a 503 after every retry) where this spelling would have: told
    through Redis, this worker releases its drop, and its filter admits it now. Not kept,
    the drop was lost (``bench_differential.py --redis 2 --flaky --robots --params``,
    seed 146802: a page ``robots.txt`` allowed only as ``:80/...?fbclid=...`` spelled it)."""
    here, released, there, _ = two_workers(server)
    page, tracked = Request("http://h/c/"), Request("http://h/c/?utm_source=x")
    assert there.dedup.check(page) is None
    here.dedup.seen.prefetch(*request_keys(here.dedup, [tracked]))  # type: ignore[attr-defined]
    assert here.dedup.check(tracked) == "tracking_params"
    assert here.notices.take_failed() == ([], [])
    there.dedup.settling.settle(page, delivered=False, why="ignored")
    here.settle()
    assert released == [tracked.url]
    assert here.dedup.check(Request(tracked.url)) is None  # its representative failed: fetched
    assert here.dedup.counters.counts["urlnorm/released/failed_elsewhere"] == 1
    assert here.notices.take_failed() == ([], [])  # read once


def test_a_killed_workers_drop_against_another_workers_page_outlives_it(server: RedisServer) -> None:
    """The drop of ``/c/?utm_source=x`` against the other worker's ``/c/`` is written into
    Redis before the lease of the page that linked it is acknowledged. Killed after, this
    worker cannot release it; the worker whose ``/c/`` fails does (``--redis 2 --kills 1
    --robots``, seed 147221: the killed worker's drop, kept in its memory, was lost)."""
    here, released_here, there, released_there = two_workers(server)
    page, tracked = Request("http://h/c/"), Request("http://h/c/?utm_source=x")
    assert there.dedup.check(page) is None
    here.queue.push(Request("http://h/links"))
    linking = here.queue.pop()
    here.dedup.seen.prefetch(*request_keys(here.dedup, [tracked]))  # type: ignore[attr-defined]
    assert here.dedup.check(tracked) == "tracking_params"
    assert kept_lists(server) == []  # not written yet: the lease of /links is held
    here.queue.ack(linking.meta[LEASE])
    assert len(kept_lists(server)) == 1
    assert here.dedup.counters.counts["urlnorm/redis/foreign_kept"] == 1
    del here  # killed: its memory is gone
    there.dedup.settling.settle(page, delivered=False, why="ignored")
    there.settle()
    assert released_there == [tracked.url] and released_here == []
    assert there.dedup.check(Request(tracked.url)) is None  # its representative failed: fetched
    assert kept_lists(server) == []


def test_a_drop_that_cannot_be_kept_in_redis_is_fetched(server: RedisServer) -> None:
    """A request that does not serialize (its callback no method of the spider) could
    only be kept in this worker's memory, and die with it: it is fetched instead."""

    def elsewhere(response: Any) -> None:
        pass

    here, _, there, _ = two_workers(server)
    page = Request("http://h/c/", callback=elsewhere)
    tracked = Request("http://h/c/?utm_source=x", callback=elsewhere)
    assert there.dedup.check(page) is None
    here.dedup.seen.prefetch(*request_keys(here.dedup, [tracked]))  # type: ignore[attr-defined]
    assert here.dedup.check(tracked) is None
    assert here.dedup.counters.counts["urlnorm/redis/foreign_fetched"] == 1


def test_a_killed_workers_parked_drops_go_through_the_filter_of_the_worker_that_reclaims(
    server: RedisServer,
) -> None:
    """A learned drop against a delivered page is parked, to be released if its rule is
    revoked; killed, the worker could release none. Mirrored in Redis, they are taken by
    the worker that reclaims what it held, and go through that worker's filter again."""
    here, released_here, there, released_there = two_workers(server)
    page, variant = Request("http://h/c/"), Request("http://h/c")
    assert here.dedup.check(page) is None
    here.dedup.settling.settle(page, delivered=True)
    here.dedup.seen.prefetch(*request_keys(here.dedup, [variant]))  # type: ignore[attr-defined]
    assert here.dedup.check(variant) == "learned:trailing_slash"
    assert here.dedup.ledger.parked() == 1 and client(server).hlen(here.queue.parked) == 0
    assert here.send_kept() and client(server).hlen(here.queue.parked) == 1
    killed(server, here.queue)
    there.queue.reclaim()
    assert released_there == [variant.url] and released_here == []
    assert there.dedup.counters.counts["urlnorm/redis/parked_adopted"] == 1
    assert not client(server).exists(here.queue.parked)


def test_drops_kept_in_redis_go_when_their_page_delivers(server: RedisServer) -> None:
    """Kept in Redis until their page delivers: the worker that fetched it marks its key
    delivered and deletes the list in one step; a drop made after that is not written."""
    here, released, there, _ = two_workers(server)
    page = Request("http://h/c/")
    assert there.dedup.check(page) is None
    for url in ("http://h/c/?utm_source=x", "http://h/c/?utm_source=y"):
        here.dedup.seen.prefetch(*request_keys(here.dedup, [Request(url)]))  # type: ignore[attr-defined]
        assert here.dedup.check(Request(url)) == "tracking_params"
    assert here.send_kept() and len(kept_lists(server)) == 1
    there.dedup.settling.settle(page, delivered=True)
    there.settle()  # its next claim, or twice a second
    assert kept_lists(server) == []
    late = Request("http://h/c/?utm_source=z")
    here.dedup.seen.prefetch(*request_keys(here.dedup, [late]))  # type: ignore[attr-defined]
    assert here.dedup.check(late) == "tracking_params"
    assert here.send_kept() and kept_lists(server) == [] and len(here.kept) == 0  # type: ignore[arg-type]
    assert here.dedup.counters.counts["urlnorm/redis/foreign_kept"] == 2  # not the late one
    assert released == []
    newcomer = learned_dedup(server, [])  # a worker whose claim finds the page delivered keeps nothing
    newcomer.seen.prefetch(*request_keys(newcomer, [late]))  # type: ignore[attr-defined]
    assert newcomer.seen.delivered.get(newcomer.fingerprint(late).value) is not None  # type: ignore[attr-defined]


def test_a_drop_written_after_its_page_failed_is_released_by_the_worker_that_made_it(server: RedisServer) -> None:
    """The page failed between the drop and its writing: Redis says so (the key is in
    ``<queue>:failed:keys``), and the worker that made the drop releases it at once."""
    here, released, there, _ = two_workers(server)
    page, tracked = Request("http://h/c/"), Request("http://h/c/?utm_source=x")
    assert there.dedup.check(page) is None
    here.dedup.seen.prefetch(*request_keys(here.dedup, [tracked]))  # type: ignore[attr-defined]
    assert here.dedup.check(tracked) == "tracking_params"
    there.dedup.settling.settle(page, delivered=False, why="ignored")
    assert here.send_kept()
    assert released == [tracked.url] and kept_lists(server) == []
    assert here.dedup.check(Request(tracked.url)) is None  # failed: not dropped against it again


def test_links_of_reclaimed_pages_are_sent_unfiltered_once_each(server: RedisServer) -> None:
    """A dead worker may have claimed a reclaimed page's links without queueing them, so
    they go unfiltered; but not a link this worker holds, nor a URL already sent that way
    for another reclaimed page (seed 146602 of ``--redis 2 --kills 1``: one URL 25 times)."""
    from scrapy.http import HtmlResponse

    from scrapy_urlnorm.redis_batch import RedisBatchMiddleware

    dedup = learned_dedup(server, [])
    middleware = RedisBatchMiddleware.__new__(RedisBatchMiddleware)
    middleware.dedup, middleware.store = dedup, dedup.seen  # type: ignore[assignment]
    held = Request("http://h/held")
    assert dedup.check(held) is None  # queued here: the filter knows its fate
    dedup.seen.add(dedup.fingerprint(held).value, 0)

    def links(page: str, reclaimed: bool = True) -> list[Request]:
        request = Request(page, meta={RECLAIMED: True} if reclaimed else {})
        output: list[Any] = [Request("http://h/x"), Request("http://h/held"), Request("http://h/y")]
        middleware._reclaimed(HtmlResponse(page, body=b"", request=request), output)
        return [entry for entry in output if entry.dont_filter]

    assert [r.url for r in links("http://h/a")] == ["http://h/x", "http://h/y"]
    assert links("http://h/b") == []  # sent unfiltered once already
    assert links("http://h/c", reclaimed=False) == []
    output: list[Any] = [Request("http://h/z")]  # the end of a reclaimed request's redirect chain
    chain = Request("http://h/d", meta={RECLAIMED_CHAIN: True})
    middleware._reclaimed(HtmlResponse(chain.url, body=b"", request=chain), output)
    assert output[0].dont_filter


def test_a_redirect_of_a_reclaimed_request_is_sent_unfiltered_once(server: RedisServer) -> None:
    """The worker that died may have claimed where the reclaimed request redirects without
    queueing it (killed between the claim and the push): dropped against that claim, the
    target was lost (``bench_differential.py --redis 2 --kills 1 --refresh``, seed 148669).
    It goes unfiltered, once; the entry pushed is not marked reclaimed, but its page's links
    go unfiltered as a reclaimed page's do: the dead worker may have had that page without
    the redirect (an ASP.NET cookie probe its own cookie jar had passed) and claimed its
    links without queueing them (``--redis 2 --kills 1 --params --cookies``, seed 169707)."""
    crawler, scheduler = addon_scheduler(server)
    dedup = scheduler.df.dedup
    assert scheduler.enqueue_request(Request("http://h/old"))
    dying = ReliableQueue(client(server), crawler.spider, scheduler.queue.key)
    popped = dying.pop()
    target = dedup.fingerprint(Request("http://h/new"))
    dying_store = RedisStore(client(server), dedup.seen.key)
    assert dying_store.prefetch([(target.value, target.rank)]) == 1  # claimed, never pushed
    killed(server, dying)
    assert scheduler.queue.reclaim() == 1
    again = scheduler.next_request()
    assert again.url == popped.url and again.meta[RECLAIMED]
    redirect = again.replace(url="http://h/new")  # as RedirectMiddleware builds it: the meta copied
    assert scheduler.enqueue_request(redirect)
    assert redirect.dont_filter and RECLAIMED not in redirect.meta
    queued = scheduler.next_request()
    assert queued.url == "http://h/new" and RECLAIMED not in queued.meta and queued.meta[RECLAIMED_CHAIN]
    twice = again.replace(url="http://h/new")  # the same URL again: filtered, as any request
    assert not scheduler.enqueue_request(twice) and not twice.dont_filter
    scheduler.close("finished")


def test_with_depth_limit_a_request_shallower_than_depth_limit_is_fetched_where_another_worker_claimed_it(
    server: RedisServer,
) -> None:
    """Another worker's claim had no depth here: dropped against it, a page that worker
    fetched one level deeper had its links cut by ``DEPTH_LIMIT`` (``bench_differential.py
    --redis 2 --depth-limit 3 --offsite --callbacks``, seed 149232: ``www.h1.test/`` lost).
    The claim's depth is stored with it: a shallower request is fetched, once per depth
    on this worker; one as deep or deeper is dropped."""
    from scrapy_urlnorm.dedup import Deduplicator

    (theirs, _), (mine, _) = (addon_scheduler(server, DEPTH_LIMIT=3) for _ in range(2))
    other, here = (Deduplicator.for_crawler(crawler) for crawler in (theirs, mine))
    assert here.depths is not None and here.depths.unknown == 3

    def check(dedup: Deduplicator, url: str, depth: int) -> str | None:
        request = Request(url, meta={"depth": depth})
        dedup.seen.prefetch(*request_keys(dedup, [request]))  # type: ignore[attr-defined]  # (as the scheduler)
        return dedup.check(request)

    assert check(other, "http://h/x", 3) is None
    assert check(here, "http://h/x", 1) is None  # shallower: fetched
    assert check(here, "http://h/x", 2) == "exact"  # claimed here at 1 now
    assert check(here, "http://h/y", 3) is None
    assert check(other, "http://h/y", 3) == "exact"  # not shallower: dropped
    assert check(other, "http://h/z", 1) is None
    assert check(here, "http://h/z", 2) == "exact"  # deeper than their claim: dropped
    here.publish_counts()
    assert here.stats is not None and here.stats.get_value("urlnorm/depth_refetched") == 1


def test_a_request_that_does_not_serialize_is_fetched_by_this_worker(server: RedisServer) -> None:
    """robots.txt's request (``callback=NO_CALLBACK``, no method of the spider) reaches the
    scheduler as a redirect, or as a drop released: scrapy-redis cannot serialize it. It
    went to the spill, which could never push it, and the worker waited on that spill
    until ``CLOSESPIDER_TIMEOUT`` (``bench_differential.py --redis 2 --flaky --robots``,
    seed 146811). It is kept in this worker's memory and fetched, as Scrapy's disk
    queues keep such requests in memory."""
    from scrapy.http.request import NO_CALLBACK

    crawler, scheduler = addon_scheduler(server)
    robots = Request("http://h/robots.txt", callback=NO_CALLBACK, dont_filter=True)
    assert scheduler.enqueue_request(robots)
    assert not scheduler.spill and scheduler.has_pending_requests()
    assert scheduler.next_request() is robots
    assert not scheduler.has_pending_requests()
    assert crawler.stats.get_value("urlnorm/redis/kept_local") == 1
    scheduler.close("finished")


# -- crawls: workers in their own processes --------------------------------------------

#: Big enough that each fault lands mid-crawl (every test asserts its fault was met).
GENERATED = {"documents": 500, "hosts": 5, "seed": 14}


def generated_web(delay: float = 0.002) -> tuple[VirtualWeb, list[str], int]:
    sites, starts, total = generate(**GENERATED)
    return VirtualWeb(sites, delay=delay), starts, total


def run_worker(
    web: VirtualWeb,
    url: str,
    log: Path,
    *,
    starts: list[str] | None = None,
    scheduler: bool = True,
    extra: dict | None = None,
) -> subprocess.Popen:
    """A Scrapy worker through ``web`` sharing ``url``; each item a flushed JSON line in ``log``."""
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        "DEMOWEB_PROXY": web.address,
        "URLNORM_REDIS_URL": url,
        "URLNORM_REDIS_SYNC_INTERVAL": 0.2,
        "URLNORM_REDIS_LEASE": 5.0,
        "URLNORM_AUDIT_RATE": 0,
        "CONCURRENT_REQUESTS": 8,
        "LOG_LEVEL": "INFO",
        "ITEM_PIPELINES": {"demoweb.crawling.JsonLinesPipeline": 100},
        "ITEM_LOG": str(log),
        **(extra or {}),
    }
    if scheduler:
        settings |= {"SCHEDULER": "scrapy_redis.scheduler.Scheduler", "SCHEDULER_PERSIST": True, "REDIS_URL": url}
    return spawn(settings, starts or START_URLS, stderr=subprocess.PIPE, text=True)


def doc_ids(*logs: Path) -> list[str]:
    return [json.loads(line)["doc_id"] for log in logs if log.exists() for line in log.read_text().splitlines()]


def stat(log: str, name: str) -> int:
    """A counter from the stats a worker dumps at close (0 if absent)."""
    match = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(match.group(1)) if match else 0


def finish_reason(log: str) -> str:
    match = re.search(r"'finish_reason': '([^']+)'", log)
    return match.group(1) if match else ""


def finish(*workers: subprocess.Popen) -> list[str]:
    logs = [worker.communicate(timeout=HANG_GUARD)[1] for worker in workers]
    assert [worker.returncode for worker in workers] == [0] * len(workers), "\n".join(log[-2500:] for log in logs)
    return logs


@pytest.mark.slow
def test_two_scrapy_redis_workers_crawl_the_demo_web_together(shared: RedisServer, tmp_path: Path) -> None:
    """Two workers share the queue, the seen set and the learned rules.

    Only invariants are asserted: how the work splits between the workers, and
    how much a rule saves before it reaches the other worker, depend on timing.
    (The test used to allow one worker *with* learned rules plus 8 pages: both
    figures move with timing, 36 or 37 pages alone and 38 to 45 for the two
    workers here, which left no margin on a loaded machine. It also required
    each worker to collect something, which a worker that starts late need not.)"""
    with VirtualWeb(build_sites(), delay=0.01) as web:  # baseline: one worker, no learned rules
        alone = run_worker(web, shared.url, tmp_path / "alone.jsonl", extra={"URLNORM_LEARN": False})
        assert alone.communicate(timeout=HANG_GUARD) and alone.returncode == 0
        static_pages = sum(1 for hit in web.hits if hit.status == 200)
    client(shared).flushdb()

    with VirtualWeb(build_sites(), delay=0.01) as web:
        workers = [run_worker(web, shared.url, tmp_path / f"w{i}.jsonl") for i in range(2)]
        logs = [worker.communicate(timeout=HANG_GUARD)[1] for worker in workers]
        assert [worker.returncode for worker in workers] == [0, 0], logs[0][-2000:] + logs[1][-2000:]
        pages = sum(1 for hit in web.hits if hit.status == 200)
        urls = Counter((hit.host, hit.target) for hit in web.hits if hit.status == 200)
    ids = doc_ids(tmp_path / "w0.jsonl", tmp_path / "w1.jsonl")
    assert len(set(ids)) == sum(DOCUMENTS.values())  # every document, across the two workers
    assert all("scrapy-urlnorm shares its seen set" in log for log in logs)
    # Every page downloaded went to the spider, but for the add-on's own directory probes.
    probes = sum(stat(log, "urlnorm/twin_directory_probes") for log in logs)
    assert pages == len(ids) + probes
    # Together they download no more distinct URLs than one worker without learned
    # rules (a rule's savings may be spent while it travels between them, at most
    # 0.2 s here), plus the drops released and fetched after all (a representative
    # one worker queued may be downloaded by the other, and the first releases
    # what it dropped against it when it goes idle, unless told it delivered), plus
    # the learned drops not made against a page the worker cannot vouch for. A page
    # both fetch is one that a learned rule alone says is another worker's (each
    # sends its links' taught form): never a start URL, never the same link.
    released = sum(stat(log, "urlnorm/released") + stat(log, "urlnorm/redis/learned_fetched") for log in logs)
    assert len(urls) <= static_pages + released + probes, (len(urls), pages, static_pages, released, probes)
    assert not [url for url in START_URLS if urls[url.split("/")[2], "/"] > 1], urls
    # Rules were shared through Redis (whether the other worker adopted one before it
    # learned it itself depends on timing: test_rules_learned_by_one_worker_apply_to_the_other).
    assert client(shared).hlen("links:urlnorm:rules") > 0
    # The last worker to close reports totals over both.
    totals = {int(m) for log in logs for m in re.findall(r"'urlnorm/all_workers/requests_seen': (\d+)", log)}
    own = [int(m) for log in logs for m in re.findall(r"'urlnorm/requests_seen': (\d+)", log)]
    assert max(totals) == sum(own)


def test_two_workers_racing_one_killed_and_restarted_lose_nothing(shared: RedisServer, tmp_path: Path) -> None:
    """Two workers on one queue; one is SIGKILLed mid-crawl and started again.
    What it held is reclaimed after its lease; together they collect every document.

    Learning is off here, to keep it fast; ``..._with_learning`` (heavy) runs it
    with learned rules, whose drops against pending pages hold the lease of the
    page that linked them, so a killed worker's drops are recovered with it."""
    killed_and_restarted(shared, tmp_path, {"URLNORM_LEARN": False})


@HEAVY
def test_two_workers_racing_one_killed_and_restarted_with_learning(shared: RedisServer, tmp_path: Path) -> None:
    killed_and_restarted(shared, tmp_path, {})


def killed_and_restarted(shared: RedisServer, tmp_path: Path, extra: dict[str, Any]) -> None:
    web, starts, total = generated_web()
    redis_client = client(shared)
    with web:
        first = run_worker(web, shared.url, tmp_path / "a.jsonl", starts=starts, extra=extra)
        (survivor,) = wait_for_workers(redis_client, 1)
        second = run_worker(web, shared.url, tmp_path / "b.jsonl", starts=starts, extra=extra)
        ((queue, victim),) = wait_for_workers(redis_client, 2) - {survivor}
        web.wait_for_hits(200)
        held = kill_holding_leases(second, redis_client, f"{queue}:processing:{victim}")
        again = run_worker(web, shared.url, tmp_path / "c.jsonl", starts=starts, extra=extra)
        logs = finish(first, again)
    ids = doc_ids(tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl")
    assert len(set(ids)) == total
    assert sum(stat(log, "urlnorm/redis/reclaimed") for log in logs) == held > 0
    assert all(finish_reason(log) == "finished" for log in logs)


def wait_for_workers(redis_client: redis.Redis, count: int) -> set[tuple[str, str]]:
    """(queue key, worker id) of each worker registered, once there are ``count``."""
    for _ in range(START_POLLS):
        workers = {
            (key.decode().removesuffix(":workers"), member.decode())
            for key in redis_client.scan_iter(match="*:workers")
            for member in redis_client.smembers(key)
        }
        if len(workers) >= count:
            return workers
        time.sleep(0.01)
    raise AssertionError(f"fewer than {count} workers registered after {START_POLLS} polls")


def kill_holding_leases(worker: subprocess.Popen, redis_client: redis.Redis, processing: str) -> int:
    """SIGKILL ``worker`` at a moment it holds leases; how many it held.

    Frozen first (SIGSTOP), so what Redis shows it holding is what it holds when
    the kill lands; while it holds nothing, it is let go on a little and tried again."""
    for _ in range(FREEZE_TRIES):
        worker.send_signal(signal.SIGSTOP)
        held = redis_client.llen(processing)
        if held or worker.poll() is not None:
            break
        worker.send_signal(signal.SIGCONT)
        time.sleep(0.005)
    worker.send_signal(signal.SIGKILL)
    worker.communicate(timeout=HANG_GUARD)
    return int(held)


def test_redis_restarted_mid_crawl_loses_nothing(shared: RedisServer, tmp_path: Path) -> None:
    """Redis (append-only file on) goes away for a while: new requests wait in each
    worker's spill, are pushed when it is back, and the crawl collects every document.
    Learning off, as in the kill test (see ``..._with_learning``, heavy)."""
    restarted_mid_crawl(shared, tmp_path, {"URLNORM_LEARN": False})


@HEAVY
def test_redis_restarted_mid_crawl_with_learning(shared: RedisServer, tmp_path: Path) -> None:
    restarted_mid_crawl(shared, tmp_path, {})


def restarted_mid_crawl(shared: RedisServer, tmp_path: Path, extra: dict[str, Any]) -> None:
    web, starts, total = generated_web(delay=0.005)
    with web:
        workers = [run_worker(web, shared.url, tmp_path / f"w{i}.jsonl", starts=starts, extra=extra) for i in range(2)]
        web.wait_for_hits(150)
        shared.stop()
        hits = len(web.hits)
        web.wait_for_hits(hits + 8, timeout=3)  # responses in flight arrive meanwhile
        shared.start()
        logs = finish(*workers)
    assert len(set(doc_ids(*(tmp_path / f"w{i}.jsonl" for i in range(2))))) == total
    assert any("is unreachable" in log or "local spill" in log for log in logs)
    assert all(finish_reason(log) == "finished" for log in logs)


def test_deleted_keys_stop_the_workers_loudly_and_a_new_run_collects_the_rest(
    shared: RedisServer, tmp_path: Path
) -> None:
    web, starts, total = generated_web()
    with web:
        workers = [run_worker(web, shared.url, tmp_path / f"w{i}.jsonl", starts=starts) for i in range(2)]
        web.wait_for_hits(150)
        raw = client(shared)
        raw.delete(*raw.keys("links:*"))
        logs = finish(*workers)
        assert all(finish_reason(log) == "urlnorm_redis_state_lost" for log in logs), [
            finish_reason(log) for log in logs
        ]
        assert all("was LOST" in log for log in logs)
        leftovers = raw.keys("links:*")  # as the error says: what is left goes before the new run
        if leftovers:
            raw.delete(*leftovers)
        again = run_worker(web, shared.url, tmp_path / "again.jsonl", starts=starts)
        finish(again)
    assert len(set(doc_ids(*tmp_path.glob("*.jsonl")))) == total


@HEAVY
def test_restart_without_persistence_is_a_wipe_and_a_new_run_collects_the_rest(tmp_path: Path) -> None:
    volatile = RedisServer(tmp_path, aof=False).start()
    try:
        web, starts, total = generated_web()
        with web:
            workers = [run_worker(web, volatile.url, tmp_path / f"w{i}.jsonl", starts=starts) for i in range(2)]
            web.wait_for_hits(150)
            volatile.stop()
            volatile.start()
            logs = finish(*workers)
            assert all(finish_reason(log) == "urlnorm_redis_state_lost" for log in logs)
            finish(run_worker(web, volatile.url, tmp_path / "again.jsonl", starts=starts))
        assert len(set(doc_ids(*tmp_path.glob("*.jsonl")))) == total
    finally:
        volatile.stop()


@HEAVY
def test_long_outage_with_one_worker_and_jobdir_spill(shared: RedisServer, tmp_path: Path) -> None:
    web, starts, total = generated_web(delay=0.01)
    with web:
        worker = run_worker(
            web, shared.url, tmp_path / "w.jsonl", starts=starts, extra={"JOBDIR": str(tmp_path / "job")}
        )
        web.wait_for_hits(100)
        shared.stop()
        time.sleep(8)
        shared.start()
        log = finish(worker)[0]
    assert stat(log, "urlnorm/redis/spilled") >= 1
    assert len(set(doc_ids(tmp_path / "w.jsonl"))) == total


@HEAVY
def test_stock_run_collects_the_whole_web(tmp_path: Path) -> None:
    """The reference the crawl tests compare with: one stock Scrapy run collects all ``total``."""
    web, starts, total = generated_web()
    with web:
        settings = {
            "DEMOWEB_PROXY": web.address,
            "CONCURRENT_REQUESTS": 8,
            "ITEM_PIPELINES": {"demoweb.crawling.JsonLinesPipeline": 100},
            "ITEM_LOG": str(tmp_path / "stock.jsonl"),
        }
        worker = spawn(settings, starts, stderr=subprocess.PIPE, text=True)
        finish(worker)
    assert len(set(doc_ids(tmp_path / "stock.jsonl"))) == total


def test_a_revocation_is_never_overwritten_and_an_unsent_state_is_sent_again(server: RedisServer) -> None:
    """Two workers publish one rule at once: one found it contradicted, the other
    activated it before it heard. Last writer won, so the second never learned
    that its drops under the rule were wrong; and a state published while Redis
    was away was never sent at all."""
    host_rule = {"host": "h", "kind": "trailing_slash", "pairs": [1, 2], "negatives": 0, "sources": {}}
    revoked = json.dumps({**host_rule, "active": False, "revoked": True, "negatives": 1}, sort_keys=True)
    active = json.dumps({**host_rule, "active": True, "revoked": False}, sort_keys=True)
    first, second = (RedisRules(client(server), "t:rules", interval=0) for _ in range(2))
    first.publish("h|trailing_slash", revoked)
    second.publish("h|trailing_slash", active)
    assert json.loads(second.changes()["h|trailing_slash"])["revoked"]
    url = server.url
    server.stop()
    first.publish("k|www_alias", active.replace('"h"', '"k"'))  # Redis away: kept
    server.start()
    assert RedisRules(redis.Redis.from_url(url), "t:rules").changes() == {"h|trailing_slash": revoked}
    assert first.flush()
    assert set(RedisRules(redis.Redis.from_url(url), "t:rules").changes()) == {"h|trailing_slash", "k|www_alias"}


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
        adopt_rule(b, json.loads(state))
    b.observe_redirect("http://k/x", "http://k/x/")
    b.observe_redirect("http://k/y", "http://k/y/")
    assert [r.host for r in b.active_rules()] == ["h"]


def test_an_audit_answered_304_acknowledges_its_lease(shared: RedisServer, tmp_path: Path) -> None:
    """A conditional audit answered 304 ends without a response for the spider or an
    error for the middlewares, the two ways a lease is acknowledged: it is acknowledged
    through ``request_ended``, so no lease runs out and nothing is fetched twice."""
    from demoweb.server import EntityTagged, FunctionSite
    from test_conditional_audits import multiviews_site

    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(multiviews_site))}) as web:
        worker = run_worker(
            web, shared.url, tmp_path / "w.jsonl", starts=["http://mv.test/"], extra={"CONCURRENT_REQUESTS": 1}
        )
        log = finish(worker)[0]
        # (GET: the entity-tag canary is a HEAD answered 200, and downloads no page.)
        pages = Counter(hit.target for hit in web.hits if hit.status == 200 and hit.method == "GET" and not hit.canary)
        not_modified = sum(1 for hit in web.hits if hit.status == 304)
    assert len(set(doc_ids(tmp_path / "w.jsonl"))) == 13
    audits, twins = stat(log, "urlnorm/audits_not_modified"), stat(log, "urlnorm/twin_probes_not_modified")
    assert audits >= 5 and audits + twins == not_modified  # (twin probes: see test_twin_probes)
    assert max(pages.values()) == 1 and stat(log, "urlnorm/redis/reclaimed") == 0
    # Each request taken from the queue was acknowledged (10 of 35 were not without the hook).
    assert stat(log, "urlnorm/redis/acked") == stat(log, "scheduler/dequeued/redis")
