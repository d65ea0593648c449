"""normalize_url vs w3lib's canonicalize_url and other normalizers, side by side.

Every contender runs over the same real links (``corpus.py``) in interleaved
rounds (A B C, C B A, ...) so machine noise hits all alike; the best round of
each is reported, with its ratio to w3lib. The optional contenders (ada_url,
yarl, url-normalize, urlcanon) run when installed (``pip install -e
'.[bench]'``); they implement other semantics (WHATWG for ada_url and yarl),
so their speed is a reference, not a like-for-like comparison. Instruction
counts (``count_instructions.py``) are the stable figure; these wall-clock
ratios swing with the machine's load.

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

import scrapy_urlnorm
from scrapy_urlnorm import Policy, normalize_url


def _time(func: Callable[[str], str], urls: list[str]) -> float:
    start = time.perf_counter()
    for url in urls:
        func(url)
    return time.perf_counter() - start


def contenders() -> dict[str, Callable[[str], str]]:
    found: dict[str, Callable[[str], str]] = {"w3lib canonicalize_url": canonicalize_url}
    for name in ("default", "aggressive", "safe"):
        policy = Policy.preset(name)
        found[f"normalize_url ({name})"] = lambda u, policy=policy: normalize_url(u, policy)
    try:
        import ada_url

        found["ada_url normalize_url"] = ada_url.normalize_url
    except ImportError:
        pass
    try:
        from yarl import URL

        found["yarl URL"] = lambda u: str(URL(u))
    except ImportError:
        pass
    try:
        from url_normalize import url_normalize

        found["url-normalize"] = url_normalize
    except ImportError:
        pass
    try:
        import urlcanon

        found["urlcanon semantic"] = lambda u: str(urlcanon.semantic(u))
    except ImportError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    urls = make_urls(args.urls)
    funcs = contenders()
    for func in funcs.values():  # warm caches (IDNA, public suffixes, authorities) for all alike
        for url in urls[:2000]:
            func(url)
    best = dict.fromkeys(funcs, float("inf"))
    names = list(funcs)
    for round_ in range(args.rounds):
        for name in names if round_ % 2 == 0 else reversed(names):
            best[name] = min(best[name], _time(funcs[name], urls))

    compiled = scrapy_urlnorm.normalize.__file__.endswith((".so", ".pyd"))
    baseline = best["w3lib canonicalize_url"]
    print(
        f"{len(urls):,} real links, best of {args.rounds} interleaved rounds "
        f"(Python {sys.version.split()[0]}, scrapy-urlnorm {'compiled' if compiled else 'plain Python'})"
    )
    print(f"{'':28} {'URLs/s':>12} {'us/URL':>8} {'vs w3lib':>9}")
    for name, seconds in best.items():
        print(f"{name:28} {len(urls) / seconds:>12,.0f} {seconds / len(urls) * 1e6:>8.2f} {baseline / seconds:>8.2f}x")
    merged = {
        name: len({funcs[name](u) for u in urls}) for name in ("w3lib canonicalize_url", "normalize_url (default)")
    }
    print(f"distinct URLs after normalization: {merged} (of {len(set(urls)):,} distinct inputs)")


if __name__ == "__main__":
    main()
