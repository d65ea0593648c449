"""What the add-on does with each response, against what a link-following spider does anyway.

With learning on, every 200 HTML response costs the add-on: a 64-bit digest of
the body less its per-answer tokens (:func:`scrapy_urlnorm.digests.page_digest`),
the ``<link rel="canonical">`` and entity-tag lookups, and, until the site is
known to link relative to its directories, a scan for such links
(:func:`scrapy_urlnorm.relative_links.has_relative_links`). The scan is the
part that grows with the page: on a site whose pages only ever link by
absolute or root-relative URLs it reads every page to the end.

Side by side, on the same responses, in interleaved rounds: that work, and the
link extraction every crawl that follows links pays per page (Scrapy's
``LinkExtractor``, and the cheaper ``response.css("a::attr(href)")`` most
spiders write). Pages: the HTML documentation Debian installs (the same trees
as ``corpus.py``: ``python3-doc``, else ``debian-reference-en``...), each read
twice, as written (relative links: the scan stops at the first) and with every
link made absolute (no relative link: the scan reads it all, the worst case).

    python benchmarks/bench_responses.py [--pages 300] [--rounds 5]

Wall-clock ratios move with the machine's load; run it on an idle machine.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin

import xxhash
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import _find_root

from scrapy_urlnorm.digests import page_digest
from scrapy_urlnorm.middlewares import _entity_tag, canonical_link, content_location
from scrapy_urlnorm.relative_links import has_relative_links

_HREF = re.compile(rb"""(href|src)\s*=\s*(["'])(.*?)\2""", re.IGNORECASE)


def pages(count: int) -> list[tuple[HtmlResponse, HtmlResponse]]:
    """``count`` documentation pages (seeded choice), each as written and made absolute."""
    found = _find_root()
    if found is None:
        sys.exit("bench_responses: no HTML documentation found (apt-get install python3-doc)")
    root, base = found
    files = sorted(path for path in root.rglob("*.html") if not path.relative_to(root).as_posix().startswith("_"))
    random.Random(1).shuffle(files)
    out = []
    for path in files[:count]:
        url = urljoin(base, path.relative_to(root).as_posix())
        body = path.read_bytes()

        def absolute(match: re.Match[bytes], url: str = url) -> bytes:
            target = urljoin(url, match.group(3).decode("utf-8", "replace")).encode()
            return match.group(1) + b"=" + match.group(2) + target + match.group(2)

        out.append((HtmlResponse(url, body=body), HtmlResponse(url, body=_HREF.sub(absolute, body))))
    return out


def addon_work(response: HtmlResponse) -> None:
    """The add-on's own reading of a delivered page (``DownloaderMiddleware.process_response``)."""
    page_digest(response.body, html=True)
    canonical_link(response)
    _entity_tag(response)
    content_location(response)
    has_relative_links(response.body)


def css_links(response: HtmlResponse) -> None:
    response.css("a::attr(href)").getall()


def link_extractor(response: HtmlResponse) -> None:
    LinkExtractor().extract_links(response)


def timed(work: Callable[[HtmlResponse], object], responses: list[HtmlResponse]) -> float:
    started = time.perf_counter()
    for response in responses:
        work(response)
    return time.perf_counter() - started


def fresh(responses: list[HtmlResponse]) -> list[HtmlResponse]:
    """New response objects: Scrapy caches the parsed tree on a response."""
    return [response.replace() for response in responses]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    pairs = pages(args.pages)
    written = [pair[0] for pair in pairs]
    absolute = [pair[1] for pair in pairs]
    mean_kb = statistics.mean(len(response.body) for response in written) / 1024
    relative = sum(has_relative_links(response.body) for response in written)
    print(f"{len(pairs)} pages, {mean_kb:.1f} KB on average; {relative} with links relative to their directory")
    works = {
        "add-on (as written)": (addon_work, written),
        "add-on (all links absolute)": (addon_work, absolute),
        "scan only (all links absolute)": (lambda response: has_relative_links(response.body), absolute),
        "digest only (page_digest)": (lambda response: page_digest(response.body, html=True), written),
        "digest only (xxh3 of the bytes)": (lambda response: xxhash.xxh3_64_intdigest(response.body), written),
        'response.css("a::attr(href)")': (css_links, written),
        "LinkExtractor().extract_links": (link_extractor, written),
    }
    seconds: dict[str, list[float]] = {name: [] for name in works}
    for _ in range(args.rounds):
        for name, (work, responses) in works.items():
            seconds[name].append(timed(work, fresh(responses)))
    per_page = {name: min(values) / len(pairs) * 1e6 for name, values in seconds.items()}
    extractor = per_page["LinkExtractor().extract_links"]
    css = per_page['response.css("a::attr(href)")']
    print(f"{'per page':32} {'µs':>9} {'/ css':>7} {'/ LinkExtractor':>16}")
    for name, micros in per_page.items():
        print(f"{name:32} {micros:9.1f} {micros / css:7.3f} {micros / extractor:16.3f}")


if __name__ == "__main__":
    main()
