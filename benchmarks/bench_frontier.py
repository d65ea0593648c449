"""What crash safety costs: Scrapy's JOBDIR scheduler vs CrashSafeScheduler, side by side.

Both schedulers get the same distinct requests through ``enqueue_request``
(the add-on's dupe filter, a JOBDIR disk queue) and hand them all out with
``next_request``; the crash-safe one also journals each request and the keys
it claimed (``ENQ``, ``KEYS``) and marks it done (``DONE``). Interleaved rounds, best of each; then what
journaling a drop against a queued request costs (``DROP``, then its ``DONE``: stock Scrapy's filter only
drops it), and the time to read the journal back on resume after a crash.

    python benchmarks/bench_frontier.py [--requests 20000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import pickle
import sys
import tempfile
import time
from pathlib import Path

import scrapy
from scrapy.core.scheduler import Scheduler
from scrapy.utils.test import get_crawler

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import make_urls

from scrapy_urlnorm.frontier import _ENQ, _KEYS, CrashSafeScheduler, Frontier, FrontierJournal


class BenchSpider(scrapy.Spider):
    name = "bench"

    def parse(self, response: scrapy.http.Response) -> None:
        pass


def run(scheduler_cls: type[Scheduler], urls: list[str], jobdir: str) -> float:
    crawler = get_crawler(
        BenchSpider,
        {
            "JOBDIR": jobdir,
            "DUPEFILTER_CLASS": "scrapy_urlnorm.UrlNormDupeFilter",
            "LOG_LEVEL": "ERROR",
            # The default (downloader-aware) queue needs a running engine; both use the same one.
            "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue",
        },
    )
    spider = crawler.spider = crawler._create_spider()
    scheduler = scheduler_cls.from_crawler(crawler)
    scheduler.open(spider)
    frontier = getattr(scheduler, "frontier", None)
    completion = frontier.completion if frontier is not None else None
    requests = [scrapy.Request(url, callback=spider.parse) for url in urls]
    start = time.perf_counter()
    for request in requests:
        scheduler.enqueue_request(request)
    while (request := scheduler.next_request()) is not None:
        if completion is not None:
            completion.request_failed(request)  # the cheapest path to DONE: no callback output to track
    if completion is not None:
        completion._settle_due()  # what the reactor would call
    elapsed = time.perf_counter() - start
    scheduler.close("finished")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    urls = make_urls(args.requests, seed=5)
    contenders = {"Scrapy Scheduler + JOBDIR": Scheduler, "CrashSafeScheduler": CrashSafeScheduler}
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(args.rounds):
        for name, cls in contenders.items():
            with tempfile.TemporaryDirectory() as jobdir:
                best[name] = min(best[name], run(cls, urls, jobdir))
    print(f"{args.requests:,} distinct requests enqueued and handed out, best of {args.rounds} interleaved rounds:")
    for name, seconds in best.items():
        print(f"  {name:28s} {seconds * 1e6 / args.requests:7.1f} us per request")
    stock, safe = best["Scrapy Scheduler + JOBDIR"], best["CrashSafeScheduler"]
    extra = (safe - stock) * 1e6 / args.requests
    print(f"  crash safety costs {safe / stock:.2f}x the stock scheduler's time (+{extra:.1f} us per request)")

    # A drop against a queued request: serialized and journaled, then marked done when it settles.
    spider = BenchSpider()
    drops = [scrapy.Request(url, callback=spider.parse) for url in urls]
    best_drop = float("inf")
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as directory:
            frontier = Frontier(Path(directory, "urlnorm.frontier"))
            frontier.open()
            frontier.spider = spider
            start = time.perf_counter()
            for request in drops:
                record = frontier.drop_record(request)
                assert record is not None
                frontier.journal_drop(*record)
                frontier.drop_settled(record[0])
            best_drop = min(best_drop, time.perf_counter() - start)
            frontier.close()
    print(f"a drop against a queued request journaled and settled: {best_drop * 1e6 / len(drops):.1f} us per drop")

    # Resume after a crash: every request journaled, none done.
    with tempfile.TemporaryDirectory() as directory:
        journal_path = Path(directory, "urlnorm.frontier")
        journal = FrontierJournal(journal_path)
        journal.open()
        payload = b"x" * 300  # a pickled request of a typical size
        for request_id in range(1, args.requests * 10 + 1):
            journal.append(_ENQ, request_id, payload)
            journal.append(_KEYS, request_id, pickle.dumps((request_id, request_id << 32), protocol=4))
        start = time.perf_counter()
        recovery, _ = FrontierJournal(journal_path).open()
        elapsed = time.perf_counter() - start
        print(f"resume after a crash: {recovery.pending:,} pending requests read and compacted in {elapsed:.2f} s")


if __name__ == "__main__":
    main()
