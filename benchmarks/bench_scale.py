"""Scale: ten million fingerprints, and a hundred thousand hosts with learned rules.

1. The seen set: 10M distinct 64-bit fingerprints added one at a time (as the
   dupe filter does), then looked up again: throughput and bytes per URL.
2. JOBDIR: a 10M-record seen file (written in bulk, same format) loaded on resume.
3. Learning: two redirect pairs on each of 100,000 hosts, so each host gets an
   active rule and a learned policy: time, memory, and the caps.

    python benchmarks/bench_scale.py [--fingerprints 10000000] [--hosts 100000]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from scrapy_urlnorm import Policy
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.seen import _MAGIC, FingerprintSet, _check_words, _record_dtype
from scrapy_urlnorm.stores import MemoryStore


def seen_set(count: int) -> None:
    values = np.random.default_rng(1).integers(1, 2**63, size=count, dtype=np.uint64).tolist()
    table = FingerprintSet()
    start = time.perf_counter()
    for value in values:
        table.add(value, 0)
    added = time.perf_counter() - start
    start = time.perf_counter()
    found = sum(table.get(value) is not None for value in values)
    looked = time.perf_counter() - start
    print(f"1. seen set: {count:,} fingerprints")
    print(f"   add    {count / added:>12,.0f}/s   lookup {count / looked:>12,.0f}/s   all found: {found == count}")
    print(f"   memory {table.nbytes / count:>8.1f} bytes per URL ({table.nbytes / 2**20:,.0f} MiB)")


def jobdir(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "urlnorm.seen")
        records = np.zeros(count, dtype=_record_dtype(64))
        records["key"] = np.random.default_rng(2).integers(1, 2**63, size=count, dtype=np.uint64)
        records["check"] = _check_words(records["key"], None, records["rank"])
        path.write_bytes(_MAGIC + b"bits=64\n" + records.tobytes())
        start = time.perf_counter()
        store = MemoryStore(64, path)
        seconds = time.perf_counter() - start
        print(
            f"2. JOBDIR: loaded {len(store):,} fingerprints ({path.stat().st_size / 2**20:,.0f} MiB) in {seconds:.2f} s"
        )
        store.close()


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
    parser.add_argument("--fingerprints", type=int, default=10_000_000)
    parser.add_argument("--hosts", type=int, default=100_000)
    args = parser.parse_args()
    seen_set(args.fingerprints)
    jobdir(args.fingerprints)
    learned_hosts(args.hosts)


if __name__ == "__main__":
    main()
