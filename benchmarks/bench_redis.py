"""Distributed de-duplication through Redis, side by side with scrapy-redis' RFPDupeFilter.

Starts its own redis-server (no persistence) on a free loopback port.

1. **Bytes per fingerprint inside Redis** (``INFO memory`` used_memory delta
   over the count): scrapy-urlnorm's bucketed small hashes (claimed in
   batches, as a crawl claims them) against scrapy-redis' one set of 40-hex
   SHA-1 fingerprints (``SADD``), at ``--fingerprints`` (1M by default; add
   ``--ten-million`` for 10M too), with ``--bucket-bits`` buckets (the
   default layout, 2**17, unless given) and the server's
   ``hash-max-listpack-entries`` (``--listpack-entries``: 128 upstream, 512
   in some distributions' builds; a bucket past it grows a second hash).
2. **Requests checked per second per worker on link-heavy pages**: each
   worker (its own process, 1, 2 and 4 at once on one Redis) checks
   ``--pages`` pages of ``--links`` links (a fifth new to the crawl, the rest
   navigation links that repeat across pages). scrapy-urlnorm claims each
   page's links in one round trip (``RedisBatchMiddleware``, then the filter
   answers from the batch); scrapy-redis' ``RFPDupeFilter.request_seen`` makes
   one ``SADD`` per link.

    python benchmarks/bench_redis.py [--fingerprints 1000000] [--ten-million] [--bucket-bits 15]
                                     [--listpack-entries 128] [--memory-only] [--pages 400] [--links 50]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]
from redis_server import RedisServer  # noqa: E402

from scrapy_urlnorm.stores import RedisStore  # noqa: E402


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def bytes_per_fingerprint(
    directory: Path,
    count: int,
    bucket_bits: int | None = None,
    kinds: tuple[str, ...] = ("scrapy-urlnorm", "scrapy-redis"),
    listpack_entries: int | None = None,
) -> dict[str, float]:
    """Each filter into a fresh redis-server (no FLUSHALL of millions of keys between them)."""
    rng = random.Random(1)
    results = {}
    for kind in kinds:
        server = RedisServer(directory, aof=False).start()
        try:
            client = redis.Redis.from_url(server.url)
            if listpack_entries is not None:  # the server's default differs between builds (128 upstream)
                client.config_set("hash-max-listpack-entries", listpack_entries)
            before = used_memory(client)
            if kind == "scrapy-urlnorm":
                layout = {} if bucket_bits is None else {"bucket_bits": bucket_bits}
                store = RedisStore(redis.Redis.from_url(server.url), "bench:urlnorm:seen", url=server.url, **layout)
                for start in range(0, count, 2000):
                    batch = [(rng.getrandbits(64), rng.randrange(4)) for _ in range(min(2000, count - start))]
                    store._claim(batch)  # what prefetch sends, without this process keeping its answers
                sample = []  # buckets and the further links of their chains
                for key in client.scan_iter(match="bench:urlnorm:seen:{*", count=1000):
                    sample.append(key)
                    if len(sample) >= 2000:
                        break
                encodings = {client.object("encoding", key) for key in sample}
                results["listpack"] = float(encodings == {b"listpack"})
            else:
                for start in range(0, count, 2000):
                    pipe = client.pipeline(transaction=False)
                    for _ in range(min(2000, count - start)):
                        pipe.sadd("bench:dupefilter", hashlib.sha1(rng.randbytes(16)).hexdigest())
                    pipe.execute()
            results[kind] = (used_memory(client) - before) / count
        finally:
            server.stop()
    return results


WORKER = r"""
import json, random, sys, time
import redis
from scrapy import Request
from scrapy.utils.request import RequestFingerprinter
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_urlnorm import Policy, UrlNormDupeFilter
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.redis_batch import request_keys
from scrapy_urlnorm.stores import RedisStore

url, kind, me, pages, links = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(me)
nav = [f"http://site{n % 20}.test/section/{n}/?utm_source=nav" for n in range(2000)]
stream = []
for page in range(pages):
    fresh = [f"http://site{page % 20}.test/w{me}/p{page}/l{i}" for i in range(links // 5)]
    stream.append([Request(u) for u in fresh + rng.sample(nav, links - len(fresh))])
raw = redis.Redis.from_url(url)
if kind == "scrapy-urlnorm":
    store = RedisStore(redis.Redis.from_url(url), "bench:urlnorm:seen", url=url)
    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, store=store)
    dupefilter = UrlNormDupeFilter(dedup)
else:
    dupefilter = RFPDupeFilter(redis.Redis.from_url(url), "bench:dupefilter")
raw.sadd("bench:ready", me)
while not raw.exists("bench:go"):
    time.sleep(0.001)
start = time.perf_counter()
filtered = 0
for requests in stream:
    if kind == "scrapy-urlnorm":
        store.prefetch(*request_keys(dedup, requests))
    filtered += sum(dupefilter.request_seen(r) for r in requests)
print(json.dumps({"seconds": time.perf_counter() - start, "checked": pages * links, "filtered": filtered}))
"""


def throughput(url: str, kind: str, workers: int, pages: int, links: int) -> float:
    """Mean requests checked per second per worker."""
    client = redis.Redis.from_url(url)
    client.flushall()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, url, kind, str(n), str(pages), str(links)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for n in range(workers)
    ]
    while client.scard("bench:ready") < workers:
        time.sleep(0.01)
    client.set("bench:go", 1)
    runs = [json.loads(proc.communicate()[0]) for proc in procs]
    return sum(run["checked"] / run["seconds"] for run in runs) / workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fingerprints", type=int, default=1_000_000)
    parser.add_argument("--ten-million", action="store_true", help="also measure memory at 10M fingerprints")
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--links", type=int, default=50)
    parser.add_argument("--memory-only", action="store_true", help="skip the throughput runs")
    parser.add_argument("--bucket-bits", type=int, default=None, help="URLNORM_REDIS_BUCKET_BITS for the memory runs")
    parser.add_argument(
        "--listpack-entries",
        type=int,
        default=None,
        help="the server's hash-max-listpack-entries (its own if not given)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        sizes = [args.fingerprints] + ([10_000_000] if args.ten_million else [])
        bits = "default" if args.bucket_bits is None else str(args.bucket_bits)
        print(f"Bytes per fingerprint inside Redis (INFO memory used_memory delta / count), bucket bits: {bits}")
        print(f"{'fingerprints':>14}{'scrapy-urlnorm':>16}{'scrapy-redis':>14}{'ratio':>8}  buckets")
        for size in sizes:
            found = bytes_per_fingerprint(
                Path(directory), size, args.bucket_bits, listpack_entries=args.listpack_entries
            )
            ours, theirs = found["scrapy-urlnorm"], found["scrapy-redis"]
            kept = "listpack" if found["listpack"] else "NOT all listpack"
            print(f"{size:>14,}{ours:>16.1f}{theirs:>14.1f}{theirs / ours:>7.1f}x  {kept}", flush=True)
        if args.memory_only:
            return
        server = RedisServer(Path(directory), aof=False).start()
        try:
            print()
            print(f"Requests checked per second per worker, pages of {args.links} links ({args.pages} pages each)")
            print(f"{'workers':>8}{'scrapy-urlnorm':>16}{'scrapy-redis':>14}{'ratio':>8}")
            for workers in (1, 2, 4):
                ours = throughput(server.url, "scrapy-urlnorm", workers, args.pages, args.links)
                theirs = throughput(server.url, "scrapy-redis", workers, args.pages, args.links)
                print(f"{workers:>8}{ours:>16,.0f}{theirs:>14,.0f}{ours / theirs:>7.1f}x")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
