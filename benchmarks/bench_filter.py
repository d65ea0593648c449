"""UrlNormDupeFilter vs Scrapy's RFPDupeFilter, side by side in one run, on real links.

1. Throughput: ``request_seen`` over the same Request objects, in
   interleaved rounds (fresh filters and fresh Request copies each round), on
   three streams of the real-link corpus (``corpus.py``): the links in page
   order (navigation repeats as on a real crawl), distinct URLs, and 50%
   duplicates (each distinct URL twice, shuffled). Our filter runs with
   learning on, with and without a Scrapy stats collector (per-request
   ``stats.inc_value`` calls are part of the cost in a crawl).
2. Memory: bytes retained per seen URL at several scales (tracemalloc, the
   filter built before tracing starts, each request settled as delivered and
   freed as in a crawl), and the seen table alone at ten million.
3. JOBDIR: time to load one million fingerprints on resume.

Wall-clock ratios swing with the machine's load; ``count_instructions.py``
gives the stable figure.

    python benchmarks/bench_filter.py [--requests 100000] [--scales 10000 200000 1000000] [--table-scale 10000000]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy import Request
from scrapy.dupefilters import RFPDupeFilter
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.request import RequestFingerprinter
from scrapy.utils.test import get_crawler

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import distinct_urls, make_urls

from scrapy_urlnorm import Policy, UrlNormDupeFilter, normalize_url
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.seen import FingerprintSet


def ours(stats: Any = None) -> UrlNormDupeFilter:
    dedup = Deduplicator(Policy.preset("default"), learn=True, stats=stats, fallback=RequestFingerprinter().fingerprint)
    return UrlNormDupeFilter(dedup)


def ours_with_stats() -> UrlNormDupeFilter:
    return ours(MemoryStatsCollector(get_crawler()))


def scrapys() -> RFPDupeFilter:
    return RFPDupeFilter(fingerprinter=RequestFingerprinter())


CONTENDERS: dict[str, Callable[[], Any]] = {
    "Scrapy RFPDupeFilter": scrapys,
    "UrlNormDupeFilter": ours,
    "UrlNormDupeFilter + stats": ours_with_stats,
}


STREAMS = ("links in page order", "distinct URLs", "50% duplicates")


def stream(name: str, total: int) -> list[str]:
    """One of the three streams of ``total`` real links (``count_instructions.py`` takes them too)."""
    if name == "links in page order":
        return make_urls(total, seed=2)
    if name == "distinct URLs":
        return distinct_urls(total, seed=2)
    half = distinct_urls(total // 2, seed=3)
    doubled = half + half
    random.Random(2).shuffle(doubled)
    return doubled


def streams(total: int) -> dict[str, list[str]]:
    return {name: stream(name, total) for name in STREAMS}


def throughput(urls: list[str], rounds: int) -> dict[str, tuple[float, int]]:
    requests = [Request(url) for url in urls]
    best: dict[str, tuple[float, int]] = {}
    names = list(CONTENDERS)
    for round_ in range(rounds):
        for name in names if round_ % 2 == 0 else reversed(names):
            # Fresh Request copies: Scrapy caches fingerprints per Request object.
            batch = [r.replace() for r in requests]
            dupefilter = CONTENDERS[name]()
            gc.collect()
            start = time.perf_counter()
            filtered = sum(dupefilter.request_seen(r) for r in batch)
            seconds = time.perf_counter() - start
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, filtered)
    return best


def _feed(dupefilter: Any, requests: list[Request]) -> None:
    dedup = getattr(dupefilter, "dedup", None)
    for request in requests:
        dupefilter.request_seen(request)
        if dedup is not None:
            dedup.settling.settle(request, delivered=True)


def retained_per_url(factory: Callable[[], Any], urls: list[str]) -> tuple[float, int]:
    """Bytes the filter retains per seen URL once each request has delivered and is gone.

    Requests are built before tracing starts (Scrapy's own URL caches grow
    while it builds them, whatever the filter), and a throwaway filter sees
    the same requests first, so the process-wide caches that grow with the
    number of *hosts*, not URLs (IDNA and public suffixes, the authority
    cache of the shared preset policy), are full before tracing starts and
    are not counted as the filter's."""
    _feed(factory(), [Request(url) for url in urls])
    requests = [Request(url) for url in urls]
    dupefilter = factory()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    _feed(dupefilter, requests)
    del requests
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    dedup = getattr(dupefilter, "dedup", None)
    stored = len(dedup.seen) if dedup is not None else len(urls)
    return (after - before) / len(urls), stored


def table_per_url(count: int) -> float:
    """Bytes of the seen table alone per fingerprint, ``count`` random fingerprints added one at a time."""
    rng = random.Random(4)
    table = FingerprintSet()
    for _ in range(count):
        table.add(rng.getrandbits(64))
    return table.nbytes / len(table)


def jobdir_load(count: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "urlnorm.seen")
        writer = Deduplicator(Policy.preset("default"), path=path)
        rng = random.Random(3)
        for _ in range(count):
            writer.seen.add(rng.getrandbits(64), 0)
        writer.close()
        start = time.perf_counter()
        reader = Deduplicator(Policy.preset("default"), path=path)
        seconds = time.perf_counter() - start
        loaded = len(reader.seen)
        reader.close()
    return seconds, loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scales", type=int, nargs="*", default=[10_000, 200_000, 1_000_000])
    parser.add_argument("--table-scale", type=int, default=10_000_000)
    parser.add_argument("--jobdir", type=int, default=1_000_000)
    args = parser.parse_args()

    if args.requests:
        print(f"1. request_seen, {args.requests:,} requests per stream, best of {args.rounds} interleaved rounds")
        print(f"   {'':28} {'requests/s':>12} {'us/request':>11} {'filtered':>9} {'vs Scrapy':>10}")
        for stream, urls in streams(args.requests).items():
            print(f"   {stream}")
            best = throughput(urls, args.rounds)
            base = best["Scrapy RFPDupeFilter"][0]
            for name, (seconds, filtered) in best.items():
                rate = len(urls) / seconds
                us = seconds / len(urls) * 1e6
                print(f"     {name:26} {rate:>12,.0f} {us:>11.2f} {filtered:>9,} {base / seconds:>9.2f}x")

    if args.scales or args.table_scale:
        print("2. bytes retained per seen URL (real links, distinct pages; each request delivered, then freed)")
        print("   (table: the seen table alone, bytes per fingerprint, random fingerprints)")
        print(f"   {'URLs':>12} {'Scrapy':>10} {'scrapy-urlnorm':>15} {'vs Scrapy':>10} {'stored':>18} {'table':>6}")
        for count in args.scales:
            urls = distinct_urls(count, seed=5, key=normalize_url)  # distinct pages for both filters
            scrapy, _ = retained_per_url(scrapys, urls)
            mine, stored = retained_per_url(ours, urls)
            table = table_per_url(count)
            print(
                f"   {count:>12,} {scrapy:>10.1f} {mine:>15.1f} {scrapy / mine:>9.1f}x {stored:>10,} fingerprints"
                f" {table:>6.1f}"
            )
            del urls
        if args.table_scale:
            table = table_per_url(args.table_scale)
            print(f"   {args.table_scale:>12,} {'':>10} {'':>15} {'':>10} {'(the table alone)':>29} {table:>6.1f}")

    if args.jobdir:
        seconds, loaded = jobdir_load(args.jobdir)
        print(f"3. JOBDIR resume: loaded {loaded:,} fingerprints in {seconds:.2f} s")


if __name__ == "__main__":
    main()
