"""normalize_url (default policy) vs w3lib.url.canonicalize_url, side by side.

Both run over the same URLs in interleaved rounds (A B, B A, ...) so machine
noise hits both alike; the best round of each is reported, with the ratio.

    python benchmarks/bench_normalize.py [--urls 50000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from w3lib.url import canonicalize_url

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import make_urls

from scrapy_urlnorm import Policy, normalize_url


def _time(func: Callable[[str], str], urls: list[str]) -> float:
    start = time.perf_counter()
    for url in urls:
        func(url)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    urls = make_urls(args.urls)
    default = Policy.preset("default")
    aggressive = Policy.preset("aggressive")
    contenders: dict[str, Callable[[str], str]] = {
        "w3lib canonicalize_url": canonicalize_url,
        "normalize_url (default)": lambda u: normalize_url(u, default),
        "normalize_url (aggressive)": lambda u: normalize_url(u, aggressive),
    }
    for func in contenders.values():  # warm caches (IDNA, public suffixes) for all alike
        for url in urls[:2000]:
            func(url)
    best = dict.fromkeys(contenders, float("inf"))
    names = list(contenders)
    for round_ in range(args.rounds):
        for name in names if round_ % 2 == 0 else reversed(names):
            best[name] = min(best[name], _time(contenders[name], urls))

    baseline = best["w3lib canonicalize_url"]
    print(f"{len(urls):,} URLs, best of {args.rounds} interleaved rounds (Python {sys.version.split()[0]})")
    print(f"{'':28} {'URLs/s':>12} {'us/URL':>8} {'vs w3lib':>9}")
    for name, seconds in best.items():
        print(f"{name:28} {len(urls) / seconds:>12,.0f} {seconds / len(urls) * 1e6:>8.2f} {baseline / seconds:>8.2f}x")
    merged = {
        name: len({contenders[name](u) for u in urls}) for name in ("w3lib canonicalize_url", "normalize_url (default)")
    }
    print(f"distinct URLs after normalization: {merged} (of {len(set(urls)):,} distinct inputs)")


if __name__ == "__main__":
    main()
