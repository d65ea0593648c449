"""request_seen through UrlNormDupeFilter: in-memory store vs Redis on loopback, one run.

Starts its own redis-server on a free loopback port. The stream is the same
as bench_filter.py's (links repeat as across crawled pages).

    python benchmarks/bench_redis.py [--requests 100000] [--distinct 30000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import redis
from scrapy.utils.request import RequestFingerprinter

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]
from bench_filter import make_stream  # noqa: E402
from redis_server import RedisServer  # noqa: E402

from scrapy_urlnorm import Policy, UrlNormDupeFilter  # noqa: E402
from scrapy_urlnorm.dedup import Deduplicator  # noqa: E402
from scrapy_urlnorm.stores import RedisStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=30_000)
    args = parser.parse_args()
    stream = make_stream(args.requests, args.distinct)
    with tempfile.TemporaryDirectory() as directory:
        server = RedisServer(Path(directory)).start()
        try:
            client = redis.Redis.from_url(server.url)
            results = {}
            for name in ("in-memory", "Redis (loopback)", "Redis, 2nd worker"):
                if name == "in-memory":
                    store = None
                else:
                    if name == "Redis (loopback)":
                        client.flushdb()
                    store = RedisStore(redis.Redis.from_url(server.url), "bench:seen", url=server.url)
                dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, store=store)
                dupefilter = UrlNormDupeFilter(dedup)
                batch = [r.replace() for r in stream]
                start = time.perf_counter()
                filtered = sum(dupefilter.request_seen(r) for r in batch)
                results[name] = (time.perf_counter() - start, filtered)
        finally:
            server.stop()
    base = results["in-memory"][0]
    print(f"request_seen over {len(stream):,} requests ({args.distinct:,} distinct URLs)")
    print(f"{'':22}{'requests/s':>12}{'us/request':>12}{'filtered':>10}{'vs in-memory':>14}")
    for name, (seconds, filtered) in results.items():
        rate, micros = len(stream) / seconds, seconds / len(stream) * 1e6
        print(f"{name:22}{rate:>12,.0f}{micros:>12.2f}{filtered:>10,}{base / seconds:>13.2f}x")
    print("('2nd worker' finds every URL already seen by the first: one round trip per new-to-it fingerprint)")


if __name__ == "__main__":
    main()
