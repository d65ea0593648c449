"""Scale: the seen set from ten thousand to ten million, and a hundred thousand hosts with learned rules.

1. The seen set: N distinct 64-bit fingerprints added one at a time (as the
   dupe filter does), then looked up again: throughput and bytes per URL, at
   each scale, with NumPy growing the table and without (stdlib ``array``
   only: NumPy is optional).
2. JOBDIR: a seen file (written in bulk, same format) loaded on resume, with
   and without NumPy.
3. Learning: two redirect pairs on each of 100,000 hosts, so each host gets an
   active rule and a learned policy: time, memory, and the caps.

    python benchmarks/bench_scale.py [--scales 10000 200000 1000000 10000000] [--plain-up-to 1000000] [--hosts 100000]
"""

from __future__ import annotations

import argparse
import gc
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

from scrapy_urlnorm import Policy
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.seen import _MAGIC, _RECORD_64, FingerprintSet, SeenFile, _check_word


def seen_set(count: int, use_numpy: bool) -> None:
    rng = random.Random(1)
    values = [rng.getrandbits(64) for _ in range(count)]
    table = FingerprintSet()
    table.use_numpy = use_numpy
    start = time.perf_counter()
    for value in values:
        table.add(value, 0)
    added = time.perf_counter() - start
    start = time.perf_counter()
    found = sum(table.get(value) is not None for value in values)
    looked = time.perf_counter() - start
    way = "NumPy growth " if use_numpy else "stdlib only  "
    print(
        f"   {count:>12,} {way} add {count / added:>10,.0f}/s  lookup {count / looked:>10,.0f}/s"
        f"  {table.nbytes / count:>5.1f} bytes/URL  ({table.nbytes / 2**20:,.1f} MiB, all found: {found == count})"
    )


def jobdir(count: int, use_numpy: bool) -> None:
    from scrapy_urlnorm import seen

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "urlnorm.seen")
        rng = random.Random(2)
        with path.open("wb") as handle:
            handle.write(_MAGIC + b"bits=64\n")
            for _ in range(count):
                key = rng.getrandbits(64) or 1
                handle.write(_RECORD_64.pack(key, 0, _check_word(key, 0, 0)))
        saved = seen.np
        if not use_numpy:
            seen.np = None  # type: ignore[assignment]
        try:
            table = FingerprintSet()
            start = time.perf_counter()
            SeenFile(path).load_into(table)
            seconds = time.perf_counter() - start
        finally:
            seen.np = saved
        way = "NumPy" if use_numpy else "stdlib only"
        print(f"   {count:>12,} records ({path.stat().st_size / 2**20:,.0f} MiB) loaded in {seconds:6.2f} s ({way})")


def learned_hosts(hosts: int) -> None:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    dedup = Deduplicator(Policy.preset("default"), learn=True)
    assert dedup.learner is not None
    start = time.perf_counter()
    for i in range(hosts):
        for path in ("a", "b"):
            dedup.learner.observe_redirect(f"http://site{i}.test/{path}", f"http://site{i}.test/{path}/")
    seconds = time.perf_counter() - start
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    active = len(dedup.learner.active_rules())
    print(f"3. learning: {hosts:,} hosts, two redirect pairs each, in {seconds:.1f} s")
    print(
        f"   active rules {active:,} (cap {dedup.learner.max_rules:,}), learned policies {len(dedup._learned):,},"
        f" memory {used / 2**20:,.0f} MiB ({used / hosts:,.0f} bytes per host)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", type=int, nargs="*", default=[10_000, 200_000, 1_000_000, 10_000_000])
    parser.add_argument("--plain-up-to", type=int, default=1_000_000, help="largest scale run without NumPy too")
    parser.add_argument("--hosts", type=int, default=100_000)
    args = parser.parse_args()
    print("1. seen set: fingerprints added one at a time, then looked up")
    for count in args.scales:
        seen_set(count, use_numpy=True)
        if count <= args.plain_up_to:
            seen_set(count, use_numpy=False)
    print("2. JOBDIR resume")
    for count in args.scales[-2:]:
        jobdir(count, use_numpy=True)
        if count <= args.plain_up_to:
            jobdir(count, use_numpy=False)
    if args.hosts:
        learned_hosts(args.hosts)


if __name__ == "__main__":
    main()
