"""Instructions per URL under callgrind: the stable figure of the speed benchmarks.

Wall-clock ratios on a shared VM swing widely; instruction counts repeat.
Each contender runs twice under ``valgrind --tool=callgrind`` (N and 2N URLs
of the real-link corpus, after the same warm-up); the difference is the cost
of N URLs, free of start-up and import costs. Needs valgrind (``apt-get
install valgrind``).

Contenders: ``normalize_url`` under each preset (plain Python from this
checkout, and compiled with mypyc when ``--compiled-python`` names the
interpreter of a virtualenv where the compiled wheel is installed, see
``docs/performance.md``), w3lib's ``canonicalize_url`` and, when installed
(``pip install -e '.[bench]'``), ada_url, yarl, url-normalize and urlcanon;
``request_seen`` of ``UrlNormDupeFilter`` (learning on, a Scrapy
``MemoryStatsCollector`` attached as in a crawl) and of Scrapy's
``RFPDupeFilter`` over the three streams of ``bench_filter.py``: the corpus'
links in page order (``filter:...``), distinct URLs (``filter:...:distinct``)
and 50% duplicates (``filter:...:dup50``).

    python benchmarks/count_instructions.py [--urls 2000] [--compiled-python PATH] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOAD = """
import sys
sys.path.insert(0, {here!r})
from corpus import make_urls
which, n, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
urls = make_urls(total)  # the same corpus in both runs: only the work differs
if which.startswith("filter:"):
    from scrapy import Request
    from scrapy.utils.request import RequestFingerprinter
    _, who, stream = (which + ":").split(":")[:3]
    if stream:
        from bench_filter import stream as make_stream
        urls = make_stream({{"distinct": "distinct URLs", "dup50": "50% duplicates"}}[stream], total)
    if who == "scrapy":
        from scrapy.dupefilters import RFPDupeFilter
        dupefilter = RFPDupeFilter(fingerprinter=RequestFingerprinter())
    else:
        from scrapy.statscollectors import MemoryStatsCollector
        from scrapy.utils.test import get_crawler
        from scrapy_urlnorm import Policy, UrlNormDupeFilter
        from scrapy_urlnorm.dedup import Deduplicator
        stats = MemoryStatsCollector(get_crawler())  # attached as in a crawl
        dedup = Deduplicator(
            Policy.preset("default"), learn=True, stats=stats, fallback=RequestFingerprinter().fingerprint
        )
        dupefilter = UrlNormDupeFilter(dedup)
    requests = [Request(url) for url in urls]  # built in both runs alike: only the checks differ
    for request in requests[: 2000 + n]:
        dupefilter.request_seen(request)
    raise SystemExit(0)
if which == "w3lib":
    from w3lib.url import canonicalize_url as func
elif which == "ada_url":
    from ada_url import normalize_url as func
elif which == "yarl":
    from yarl import URL
    func = lambda url: str(URL(url))
elif which == "url-normalize":
    from url_normalize import url_normalize as func
elif which == "urlcanon":
    import urlcanon
    func = lambda url: str(urlcanon.semantic(url))
else:
    from scrapy_urlnorm import Policy, normalize_url
    policy = Policy.preset(which.split(":")[1])
    func = lambda url: normalize_url(url, policy)
for url in urls[:2000] + urls[2000 : 2000 + n]:
    func(url)
"""

NORMALIZERS = ["w3lib", "ours:default", "ours:aggressive", "ours:safe", "ada_url", "yarl", "url-normalize", "urlcanon"]
FILTERS = [f"filter:{who}{stream}" for stream in ("", ":distinct", ":dup50") for who in ("scrapy", "ours")]


def instructions(python: str, script: Path, which: str, count: int, total: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", python, str(script)]
        result = subprocess.run(
            [*command, which, str(count), str(total)],
            # PYTHONHASHSEED: the same dict and set layouts in every run.
            # OPENBLAS_NUM_THREADS: NumPy (imported by bulk_escapes) starts
            # OpenBLAS threads that spin while idle, adding some ten million
            # instructions at random to each run; one thread starts none.
            env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"},
            capture_output=True,
            text=True,
            check=True,
        )
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))  # type: ignore[union-attr]


def available(python: str, which: str) -> bool:
    module = {"ada_url": "ada_url", "yarl": "yarl", "url-normalize": "url_normalize", "urlcanon": "urlcanon"}.get(which)
    if module is None:
        return True
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def per_url(python: str, script: Path, which: str, n: int) -> float:
    total = 2000 + 2 * n
    return (instructions(python, script, which, 2 * n, total) - instructions(python, script, which, n, total)) / n


def _baseline(name: str) -> str:
    """The contender ``name`` is compared with: w3lib, or Scrapy's filter on the same stream."""
    if not name.startswith("filter:"):
        return "w3lib"
    stream = name.split(" ")[0].split(":")[2:]
    return ":".join(["filter", "scrapy", *stream])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=2000)
    parser.add_argument("--compiled-python", help="interpreter of a venv with the mypyc-compiled wheel installed")
    parser.add_argument("--only", nargs="*", help=f"contenders: {' '.join(NORMALIZERS + FILTERS)}")
    args = parser.parse_args()
    n = args.urls
    wanted = args.only or NORMALIZERS + FILTERS
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp, "workload.py")
        script.write_text(WORKLOAD.format(here=str(HERE)))
        for which in wanted:
            if not available(sys.executable, which):
                print(f"  ({which} not installed: pip install -e '.[bench]')", file=sys.stderr)
                continue
            rows.append((which, per_url(sys.executable, script, which, n)))
            if args.compiled_python and which.startswith(("ours:", "filter:ours")):
                rows.append((f"{which} (mypyc)", per_url(args.compiled_python, script, which, n)))
            print(f"  ({rows[-1][0]}: {rows[-1][1]:,.0f})", file=sys.stderr, flush=True)
    counts = dict(rows)
    print(f"instructions per URL ({n:,} URLs of the real-link corpus, after a 2,000-URL warm-up)")
    for name, count in rows:
        base = counts.get(_baseline(name))
        ratio = f"{base / count:>6.2f}x" if base else ""
        print(f"  {name:34} {count:>10,.0f}  {ratio}")
    print("  (ratio: the baseline's instructions / the contender's; w3lib canonicalize_url, Scrapy RFPDupeFilter)")


if __name__ == "__main__":
    main()
