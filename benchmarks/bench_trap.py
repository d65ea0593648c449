"""RSS over a trap crawl, stock Scrapy vs scrapy-urlnorm, side by side.

A loopback web of endless URL spaces (served from a child process, see
``loopback.py``): calendar hosts whose every page links to the next
month, to a view of the month that is a page of its own (``?view=``), and to
variants the learner sees and learns: the next month without its trailing
slash, with ``index.html``, with a ``?ref=nav`` that changes nothing, with a
``;jsessionid=`` (the host's session), and on the ``www.`` twin: pages that
are the same serve the same body, so the learner learns what they have in
common. One more host is a session trap: the same calendar, but every
response hands out a fresh session id in its links (so no two bodies are
alike and stock Scrapy never sees the end of one month). With
``--new-host-every N``, every Nth month also links to a new calendar host,
so hosts grow without bound too (then the caps in all, not per host, bound
the add-on). Nothing ends: the crawls run for ``--minutes``
(``CLOSESPIDER_TIMEOUT``).

Both crawls run at once, each in its own process with its own server, so
they share the machine alike. Each samples its resident set size
(``/proc/self/statm``) and how many URLs its dupe filter has seen (requests
shown to it: ``scheduler/enqueued`` + ``dupefilter/filtered``) and let
through as new (``scheduler/enqueued``) every two seconds, and reports the
growth in bytes per seen URL (and per new one) between the sample at a fifth
of the run (start-up and warm-up excluded) and the last. The add-on's
``urlnorm/memory/*`` figures and cap counters at close say what its bounded
structures hold.

    python benchmarks/bench_trap.py [--minutes 5] [--concurrency 16] [--new-host-every 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "example_project"))

from demoweb.server import Reply  # noqa: E402
from loopback import ChildWeb  # noqa: E402

#: Calendar hosts, and the session trap, crawled from the start.
START_URLS = ("http://h0.trap.test/cal/0/", "http://h1.trap.test/cal/0/", "http://s0.trap.test/cal/0/")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


class CalendarTrap:
    """Any host ``*.trap.test`` (and its ``www.`` twin): an endless calendar;
    ``s*.trap.test`` hand out a fresh session id on every response."""

    def __init__(self, new_host_every: int = 0) -> None:
        self.new_host_every = new_host_every
        self._rng = random.Random(11)

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", "")
        bare = host.removeprefix("www.")
        path = path.split(";", 1)[0]  # the session id changes nothing
        if path in ("", "/"):
            return Reply.redirect(f"http://{host}/cal/0/")
        parts = path.strip("/").split("/")
        if len(parts) < 2 or parts[0] != "cal" or not parts[1].isdigit() or parts[2:] not in ([], ["index.html"]):
            return Reply.not_found()
        month = int(parts[1])
        view = ""
        for pair in query.split("&"):
            name, _, value = pair.partition("=")
            if name == "view":
                view = value  # a page of its own; ref= changes nothing
        nxt = f"/cal/{month + 1}/"
        if bare.startswith("s"):
            session = f"{self._rng.getrandbits(128):032X}"  # a fresh one on every response
        else:
            session = f"{random.Random(bare).getrandbits(128):032X}"  # the host's session
        links = [
            nxt,
            nxt.rstrip("/"),
            nxt + "index.html",
            nxt + "?ref=nav",
            f"{nxt};jsessionid={session}",
            f"http://www.{bare}{nxt}",
            f"{nxt}?view={month % 4}",
            f"/cal/{max(month - 1, 0)}/",
        ]
        every = self.new_host_every
        if every and month % every == every - 1:
            number = int(bare.split(".")[0].lstrip("hs") or 0)
            links.append(f"http://h{number + 1 + month // every}.trap.test/cal/0/")
        doc = f"{bare}:cal:{month}" + (f":view{view}" if view else "")
        return Reply.page(doc, links, title=f"Calendar {month} {view}")


class AnyTrapHost(Mapping[str, Any]):
    """Every host name maps to the one trap site."""

    def __init__(self, new_host_every: int = 0) -> None:
        self.site = CalendarTrap(new_host_every)

    def __getitem__(self, host: str) -> CalendarTrap:
        return self.site

    def get(self, host: str, default: Any = None) -> Any:  # type: ignore[override]
        return self.site if host.endswith(".trap.test") else default

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE_SIZE


def run_one(role: str, minutes: float, concurrency: int, new_host_every: int, out: Path) -> None:
    """One crawl in this process (``role``: stock or addon); samples written to ``out`` as JSON."""
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    import scrapy
    from scrapy.crawler import CrawlerRunner
    from twisted.internet import defer, reactor, task

    class TrapSpider(scrapy.Spider):
        name = "trap"
        start_urls = START_URLS

        def parse(self, response: scrapy.http.Response) -> Iterator[Any]:
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, callback=self.parse)

    settings: dict[str, Any] = {
        "LOG_LEVEL": "WARNING",
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "RETRY_ENABLED": False,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
        "CLOSESPIDER_TIMEOUT": minutes * 60,
        "DOWNLOADER_MIDDLEWARES": {"demoweb.proxy.VirtualWebProxyMiddleware": 740},
    }
    if role == "addon":
        settings["ADDONS"] = {"scrapy_urlnorm.Addon": 0}
    samples: list[tuple[float, int, int, int]] = []  # (seconds, rss, new, seen by the filter)
    result: dict[str, Any] = {"role": role, "samples": samples}

    with ChildWeb(lambda: AnyTrapHost(new_host_every), keep_hits=False) as web:
        settings["DEMOWEB_PROXY"] = web.address
        runner = CrawlerRunner(settings)
        crawler = runner.create_crawler(TrapSpider)
        started = time.monotonic()

        def sample() -> None:
            try:
                stats = crawler.stats
            except RuntimeError:  # not set before the crawl starts
                return
            if stats is None:
                return
            seen = stats.get_value("scheduler/enqueued", 0)
            shown = seen + stats.get_value("dupefilter/filtered", 0)
            samples.append((time.monotonic() - started, rss(), seen, shown))

        sampler = task.LoopingCall(sample)

        async def go() -> None:
            sampler.start(2.0, now=False)
            await runner.crawl(crawler)
            if sampler.running:
                sampler.stop()
            sample()
            stats = crawler.stats.get_stats() if crawler.stats else {}
            result["memory"] = {k: v for k, v in stats.items() if k.startswith("urlnorm/memory/")}
            result["caps"] = {
                k: v
                for k, v in stats.items()
                if k.startswith("urlnorm/") and ("overflow" in k or "full" in k or "forgotten" in k)
            }
            result["rules"] = stats.get("urlnorm/learned_rules", 0)
            result["pages"] = stats.get("downloader/response_status_count/200", 0)
            result["requests"] = stats.get("downloader/request_count", 0)

        def done(outcome: object) -> None:
            reactor.stop()  # type: ignore[attr-defined]
            return outcome  # type: ignore[return-value]

        reactor.callWhenRunning(lambda: defer.ensureDeferred(go()).addBoth(done))  # type: ignore[attr-defined]
        reactor.run()  # type: ignore[attr-defined]
    result["served"] = web.hits
    out.write_text(json.dumps(result))


def growth(samples: list[list[float]]) -> tuple[float, float, int, int, float]:
    """(bytes per URL seen, bytes per new URL, RSS at the end, URLs seen at the end, RSS growth)
    between the sample at a fifth of the run and the last one."""
    last = samples[-1]
    first = next(s for s in samples if s[0] >= last[0] / 5)
    grown = last[1] - first[1]
    return grown / max(last[3] - first[3], 1), grown / max(last[2] - first[2], 1), int(last[1]), int(last[3]), grown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--new-host-every", type=int, default=0, help="months between links to a new host (0: never)")
    parser.add_argument("--role", choices=("stock", "addon"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        run_one(args.role, args.minutes, args.concurrency, args.new_host_every, args.out)
        return

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        outs = {role: Path(tmp, f"{role}.json") for role in ("stock", "addon")}
        command = [sys.executable, __file__, "--minutes", str(args.minutes), "--concurrency", str(args.concurrency)]
        command += ["--new-host-every", str(args.new_host_every)]
        children = [subprocess.Popen([*command, "--role", role, "--out", str(out)]) for role, out in outs.items()]
        for child in children:
            child.wait()
        results = {role: json.loads(out.read_text()) for role, out in outs.items()}

    hosts = f", a new host every {args.new_host_every} months" if args.new_host_every else ""
    print(f"trap crawl, {args.minutes:g} minutes, both crawls at once (concurrency {args.concurrency}{hosts})")
    print(
        f"  {'':16}{'pages':>9}{'URLs seen':>11}{'RSS at end':>12}{'RSS growth':>12}"
        f"{'bytes/URL seen':>16}{'bytes/new URL':>15}"
    )
    for role, result in results.items():
        per_seen, per_new, end, seen, grown = growth(result["samples"])
        name = "stock Scrapy" if role == "stock" else "scrapy-urlnorm"
        print(
            f"  {name:16}{result['pages']:>9,}{seen:>11,}{end / 2**20:>10.1f}MB{grown / 2**20:>10.1f}MB"
            f"{per_seen:>16.0f}{per_new:>15.0f}"
        )
    print("  (growth from the sample at a fifth of the run to the last; URLs seen: requests shown to the filter)")
    addon = results["addon"]
    print(f"  scrapy-urlnorm at close ({addon.get('rules', 0)} learned rules active):")
    for key, value in sorted({**addon.get("memory", {}), **addon.get("caps", {})}.items()):
        print(f"    {key:48} {value:>12,}")


if __name__ == "__main__":
    main()
