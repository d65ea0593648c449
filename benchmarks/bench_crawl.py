"""End to end: stock Scrapy vs scrapy-urlnorm on the demo web, in one run.

Crawls the bundled demo web (and a generated web of 20,000+ documents)
three ways, one after the other in the same process and reactor:

- stock Scrapy (RFPDupeFilter);
- the add-on with its defaults (``default`` policy, learning on);
- the static ``aggressive`` preset (learning off): the paper's steps applied blindly.

For each: HTTP requests made, pages downloaded (200), unique documents
collected, redundancy rate (duplicate pages among those downloaded), coverage
loss rate (documents never collected), wall time and time per request.

    python benchmarks/bench_crawl.py [--small-only] [--documents 20000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "example_project"))

from demoweb.crawling import crawl  # noqa: E402
from demoweb.generated import generate  # noqa: E402
from demoweb.server import VirtualWeb  # noqa: E402
from demoweb.web import DOCUMENTS, START_URLS, build_sites  # noqa: E402

ADDON = {"ADDONS": {"scrapy_urlnorm.Addon": 0}}
WAYS: dict[str, dict[str, Any]] = {
    "stock Scrapy": {},
    "scrapy-urlnorm (default)": ADDON,
    "static aggressive preset": {**ADDON, "URLNORM_POLICY": "aggressive", "URLNORM_LEARN": False},
}


async def measure(sites: dict, starts: list[str], documents: int, settings: dict[str, Any]) -> dict[str, Any]:
    with VirtualWeb(sites) as web:
        started = time.perf_counter()
        result = await crawl(web, starts, {"LOG_LEVEL": "WARNING", "CONCURRENT_REQUESTS": 16, **settings})
        seconds = time.perf_counter() - started
        requests = len(web.hits)
        pages = sum(1 for hit in web.hits if hit.status == 200)
    unique = len(set(result.doc_ids))
    return {
        "requests": requests,
        "pages": pages,
        "unique": unique,
        "redundancy": (pages - unique) / pages if pages else 0.0,
        "coverage_loss": 1 - unique / documents,
        "seconds": seconds,
        "rules": result.stats.get("urlnorm/learned_rules", 0),
    }


def table(title: str, documents: int, rows: dict[str, dict[str, Any]]) -> str:
    stock = rows["stock Scrapy"]["requests"]
    lines = [
        f"{title}: {documents:,} documents",
        f"{'':26}{'requests':>10}{'vs stock':>10}{'pages':>8}{'unique docs':>12}{'redundancy':>12}"
        f"{'coverage loss':>15}{'seconds':>9}{'ms/request':>11}",
    ]
    for name, row in rows.items():
        lines.append(
            f"{name:26}{row['requests']:>10,}{row['requests'] / stock:>10.0%}{row['pages']:>8,}{row['unique']:>12,}"
            f"{row['redundancy']:>12.3f}{row['coverage_loss']:>15.3f}{row['seconds']:>9.1f}"
            f"{row['seconds'] / max(row['requests'], 1) * 1000:>11.2f}"
        )
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> None:
    webs = [("demo web", build_sites, START_URLS, sum(DOCUMENTS.values()))]
    if not args.small_only:
        sites, starts, total = generate(args.documents)
        webs.append((f"generated web ({len(starts)} hosts)", lambda: sites, starts, total))
    for title, make_sites, starts, documents in webs:
        rows = {}
        for name, settings in WAYS.items():
            rows[name] = await measure(make_sites(), starts, documents, {**settings})
        print(table(title, documents, rows), flush=True)
        print(flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small-only", action="store_true", help="only the bundled demo web (a few seconds)")
    parser.add_argument("--documents", type=int, default=20_000, help="size of the generated web")
    arguments = parser.parse_args()

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from twisted.internet import defer, reactor
    from twisted.python import failure

    def done(outcome: object) -> None:
        if isinstance(outcome, failure.Failure):
            outcome.printTraceback()
        reactor.stop()  # type: ignore[attr-defined]

    reactor.callWhenRunning(lambda: defer.ensureDeferred(main(arguments)).addBoth(done))  # type: ignore[attr-defined]
    reactor.run()  # type: ignore[attr-defined]
