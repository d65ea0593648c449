"""Hostile URLs: the time of one call, normalize_url against w3lib's canonicalize_url.

Each shape is built at about 100,000 characters (plus 10,000 query
parameters and 10,000 dot segments), and each function runs on it a few
times, best kept. tests/test_hostile_input.py checks the cost grows linearly;
this says what one call costs.

    python benchmarks/bench_hostile.py
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

from w3lib.url import canonicalize_url

from scrapy_urlnorm import InvalidURL, Policy, normalize_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_hostile_input import GROWING

SIZE = 100_000
SHAPES: dict[str, str] = {name: make(SIZE) for name, make in sorted(GROWING.items())}
SHAPES["10k parameters"] = "http://h/?" + "&".join(f"p{i}=v" for i in range(10_000))
SHAPES["10k dot segments"] = "http://h/" + "a/../" * 10_000 + "b"


def best_ms(function: Callable[[str], object], url: str, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        with contextlib.suppress(InvalidURL, ValueError, UnicodeError):
            function(url)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    default, aggressive = Policy.preset("default"), Policy.preset("aggressive")
    print(f"one call on a hostile URL, best of 5, milliseconds (URLs of ~{SIZE:,} characters)")
    print(f"{'shape':18s} {'chars':>8s} {'w3lib':>8s} {'default':>8s} {'aggr.':>8s}  default vs w3lib")
    for name, url in SHAPES.items():
        w3lib = best_ms(canonicalize_url, url)
        ours = best_ms(lambda u: normalize_url(u, default), url)
        ours_aggressive = best_ms(lambda u: normalize_url(u, aggressive), url)
        print(f"{name:18s} {len(url):8,d} {w3lib:8.2f} {ours:8.2f} {ours_aggressive:8.2f}  {w3lib / ours:6.1f}x")


if __name__ == "__main__":
    main()
