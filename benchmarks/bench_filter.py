"""UrlNormDupeFilter vs Scrapy's RFPDupeFilter, side by side in one run.

1. Throughput: ``request_seen`` over the same stream of Request objects, in
   interleaved rounds (fresh filters each round); the stream repeats links
   the way crawled pages do (navigation, related links).
2. Memory: bytes retained per seen URL after one million distinct URLs
   (tracemalloc; the Request objects themselves are freed as we go).
3. JOBDIR: time to load one million fingerprints on resume.

    python benchmarks/bench_filter.py [--requests 200000] [--distinct 60000] [--memory-urls 1000000]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path

from scrapy import Request
from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.request import RequestFingerprinter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import make_urls

from scrapy_urlnorm import Policy, UrlNormDupeFilter
from scrapy_urlnorm.dedup import Deduplicator


def make_stream(total: int, distinct: int, seed: int = 2) -> list[Request]:
    """``total`` requests over ``distinct`` URLs: a Zipf-like mix, as when a
    crawl's pages share navigation and popular links."""
    urls = make_urls(distinct, seed=seed)
    rng = random.Random(seed)
    weights = [1 / (rank + 1) ** 0.8 for rank in range(len(urls))]
    picks = urls[: distinct // 2] + rng.choices(urls, weights=weights, k=total - distinct // 2)
    rng.shuffle(picks)
    return [Request(url) for url in picks]


def ours() -> UrlNormDupeFilter:
    return UrlNormDupeFilter(Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint))


def scrapys() -> RFPDupeFilter:
    return RFPDupeFilter(fingerprinter=RequestFingerprinter())


CONTENDERS: dict[str, Callable[[], object]] = {"Scrapy RFPDupeFilter": scrapys, "UrlNormDupeFilter": ours}


def throughput(requests: list[Request], rounds: int) -> dict[str, tuple[float, int]]:
    best: dict[str, tuple[float, int]] = {}
    names = list(CONTENDERS)
    for round_ in range(rounds):
        for name in names if round_ % 2 == 0 else reversed(names):
            # Fresh Request copies: Scrapy caches fingerprints per Request object.
            batch = [r.replace() for r in requests]
            dupefilter = CONTENDERS[name]()
            gc.collect()
            start = time.perf_counter()
            filtered = sum(dupefilter.request_seen(r) for r in batch)  # type: ignore[attr-defined]
            seconds = time.perf_counter() - start
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, filtered)
    return best


def retained_bytes(factory: Callable[[], object], urls: Iterable[str]) -> tuple[int, int, int]:
    """Bytes still allocated by the filter once every request is gone:
    (while every request is still pending, once each has delivered, count).

    Requests are built before tracing starts (tracemalloc would slow their
    construction tenfold) and freed before the final reading, so what remains
    is the filter's own state. A pending request holds a claim in the drop
    ledger (scrapy-urlnorm's promise to release what is dropped against it),
    so the first figure is the cost per request in Scrapy's queue; the second,
    once responses settled the claims, is the cost per seen URL.
    """
    requests = [Request(url) for url in urls]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    dupefilter = factory()
    for request in requests:
        dupefilter.request_seen(request)  # type: ignore[attr-defined]
    gc.collect()
    pending = tracemalloc.get_traced_memory()[0]
    dedup = getattr(dupefilter, "dedup", None)
    if dedup is not None:
        for request in requests:
            dedup.settle(request, delivered=True)
    count = len(requests)
    del requests, request
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del dupefilter
    return pending - before, after - before, count


def distinct_urls(count: int) -> Iterable[str]:
    for i in range(count):
        yield f"https://site{i % 5000}.example.com/section/{i // 5000}/item-{i}.html?id={i}"


def jobdir_load(count: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "urlnorm.seen")
        writer = Deduplicator(Policy.preset("default"), path=path)
        rng = random.Random(3)
        for _ in range(count):
            fingerprint = rng.getrandbits(64)
            writer.seen.add(fingerprint, 0)
        writer.close()
        start = time.perf_counter()
        reader = Deduplicator(Policy.preset("default"), path=path)
        seconds = time.perf_counter() - start
        loaded = len(reader.seen)
        reader.close()
    return seconds, loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--distinct", type=int, default=60_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory-urls", type=int, default=1_000_000)
    args = parser.parse_args()

    stream = make_stream(args.requests, args.distinct)
    print(f"1. request_seen over {len(stream):,} requests ({args.distinct:,} distinct URLs), best of {args.rounds}")
    best = throughput(stream, args.rounds)
    base = best["Scrapy RFPDupeFilter"][0]
    print(f"   {'':22} {'requests/s':>12} {'us/request':>11} {'filtered':>9} {'vs Scrapy':>10}")
    for name, (seconds, filtered) in best.items():
        rate = len(stream) / seconds
        print(
            f"   {name:22} {rate:>12,.0f} {seconds / len(stream) * 1e6:>11.2f} {filtered:>9,} {base / seconds:>9.2f}x"
        )

    print(f"2. retained memory after {args.memory_urls:,} distinct URLs (tracemalloc)")
    memory = {}
    for name, factory in CONTENDERS.items():
        pending, settled, count = retained_bytes(factory, distinct_urls(args.memory_urls))
        memory[name] = (pending / count, settled / count)
    base = memory["Scrapy RFPDupeFilter"][1]
    print(f"   {'':22} {'all pending':>12} {'all delivered':>14} {'vs Scrapy':>10}   (bytes per URL)")
    for name, (pending, settled) in memory.items():
        print(f"   {name:22} {pending:>12.1f} {settled:>14.1f} {base / settled:>9.2f}x")

    seconds, loaded = jobdir_load(args.memory_urls)
    print(f"3. JOBDIR resume: loaded {loaded:,} fingerprints in {seconds:.2f} s")


if __name__ == "__main__":
    main()
