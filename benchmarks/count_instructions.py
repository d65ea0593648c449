"""Instructions per URL: normalize_url (default) vs w3lib canonicalize_url, under callgrind.

Wall-clock ratios on a shared VM swing widely; instruction counts repeat.
Each side runs twice under ``valgrind --tool=callgrind`` (N and 2N URLs after
the same warm-up); the difference is the cost of N URLs, free of start-up
and import costs. Needs valgrind (``apt-get install valgrind``).

    python benchmarks/count_instructions.py [--urls 2000]
"""

from __future__ import annotations

import argparse
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
from w3lib.url import canonicalize_url
from scrapy_urlnorm import Policy, normalize_url
which, n, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
urls = make_urls(total)  # the same corpus in both runs: only the work differs
policy = Policy.preset("default")
func = canonicalize_url if which == "w3lib" else (lambda url: normalize_url(url, policy))
for url in urls[:2000] + urls[2000 : 2000 + n]:
    func(url)
"""


def instructions(script: Path, which: str, count: int, total: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                sys.executable,
                str(script),
                which,
                str(count),
                str(total),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))  # type: ignore[union-attr]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=2000)
    n = parser.parse_args().urls
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp, "workload.py")
        script.write_text(WORKLOAD.format(here=str(HERE)))
        total = 2000 + 2 * n
        per_url = {
            which: (instructions(script, which, 2 * n, total) - instructions(script, which, n, total)) / n
            for which in ("w3lib", "ours")
        }
    print(f"instructions per URL ({n:,} URLs, after warm-up)")
    print(f"  w3lib canonicalize_url   {per_url['w3lib']:>10,.0f}")
    print(f"  normalize_url (default)  {per_url['ours']:>10,.0f}   {per_url['w3lib'] / per_url['ours']:.2f}x fewer")


if __name__ == "__main__":
    main()
