"""Print a digest of normalize_with_rank over every test vector and corpus URL.

Run under two installs (plain Python and the mypyc-compiled wheel): the
digests must be equal. ``--show`` prints the outputs themselves.

    python benchmarks/dump_outputs.py TESTS_DIR [--limit 20000] [--real] [--show]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import make_urls, synthetic_urls

import scrapy_urlnorm
from scrapy_urlnorm import InvalidURL, Policy
from scrapy_urlnorm.normalize import explain_url, normalize_with_rank


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def inputs(tests: Path, limit: int, real: bool) -> list[str]:
    found: list[str] = []
    for path in sorted((tests / "vectors").glob("*.json")):
        found += [s for s in _strings(json.loads(path.read_text(encoding="utf-8"))) if ":" in s]
    return found + synthetic_urls(limit) + (make_urls(limit) if real else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tests", type=Path)
    parser.add_argument("--limit", type=int, default=20_000)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--real", action="store_true", help="add the real-link corpus (builds it if needed)")
    args = parser.parse_args()
    policies = {name: Policy.preset(name) for name in ("safe", "default", "aggressive")}
    digest = hashlib.sha256()
    urls = inputs(args.tests, args.limit, args.real)
    for url in urls:
        for name, policy in policies.items():
            try:
                line = f"{name}\t{url}\t{normalize_with_rank(url, policy)}\t{len(explain_url(url, policy))}"
            except InvalidURL as exc:
                line = f"{name}\t{url}\tInvalidURL {type(exc).__name__}"
            digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
            if args.show:
                print(line)
    compiled = scrapy_urlnorm.normalize.__file__.endswith((".so", ".pyd"))
    print(f"{digest.hexdigest()}  {len(urls)} URLs x {len(policies)} policies ({'compiled' if compiled else 'plain'})")


if __name__ == "__main__":
    main()
