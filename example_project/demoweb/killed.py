"""A generated web's ``JOBDIR`` crawl killed (``SIGKILL``) at random points and resumed.

The crash-safe frontier and the drop holds promise that ``kill -9`` loses no
page stock Scrapy collects. The hand-built cases in ``tests/test_jobdir_resume.py``
check that promise where we thought of it; this checks it on random webs and
crawl orders. Each run is a crawl in its own process (``python -m
demoweb.killed JOB_JSON``), writing each item as it comes (``JsonLinesPipeline``)
so that a kill keeps what was collected. The parent kills the run once the
server has answered a number of requests drawn from the seed, then starts
the next run on the same ``JOBDIR`` and server; the last run goes to its end.
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .crawling import crawl_settings
from .randomweb import TIMEOUT_GUARD, CrawlOrder, CrawlSummary, RandomWeb, robots_answered, serve

#: Polls of the server's request count while a run is to be killed, 20 ms apart; a run
#: that ends before its kill point ended by itself.
KILL_POLLS = 15_000
#: Polls, 50 ms apart, for the last run: TIMEOUT_GUARD ends a stalled crawl before.
END_POLLS = (TIMEOUT_GUARD + 60) * 20


async def crawl_with_kills(
    web: RandomWeb, order: CrawlOrder, extra: Mapping[str, Any], jobdir: Path, *, page_guard: int, expected: int
) -> CrawlSummary:
    """The add-on crawl of ``web`` in ``order``, killed ``order.kills`` times, each
    after 1 to ``expected // order.kills`` more requests (drawn from the seed),
    and resumed: its runs summed up as one crawl (its requests are what the
    server answered; its finish reason and stats, the last run's)."""
    from twisted.internet import reactor, task

    rng = random.Random(order.seed)
    workdir = jobdir.parent
    items, stats_path = workdir / "killed.items.jl", workdir / "killed.stats.json"
    items.unlink(missing_ok=True)
    started = time.perf_counter()
    finish_reason: str | None = None
    stats: dict[str, Any] = {}
    restarted_at: list[int] = []
    with serve(web, order) as server:
        for run in range(order.kills + 1):
            last = run == order.kills
            job = {
                "order": asdict(order),
                "jobdir": str(jobdir),
                "settings": dict(extra),
                "proxy": server.address,
                "start_urls": web.start_urls,
                "items": str(items),
                "stats": str(stats_path),
                "page_guard": page_guard if last else 0,
                # (a failing seed's trace: each run's drops, as the crawl in one process logs them)
                "debug_log": str(workdir / f"killed.run{run}.debug.log") if extra.get("URLNORM_DEBUG") else "",
            }
            stats_path.unlink(missing_ok=True)
            kill_at = len(server.hits) + rng.randint(1, max(1, expected // order.kills))
            process = spawn(job, workdir / f"killed.run{run}.log")
            for _ in range(END_POLLS if last else KILL_POLLS):
                if process.poll() is not None:
                    break
                if not last and len(server.hits) >= kill_at:
                    process.send_signal(signal.SIGKILL)
                    restarted_at.append(len(server.hits))
                    break
                await task.deferLater(reactor, 0.05 if last else 0.02, lambda: None)  # type: ignore[arg-type]
            else:
                process.send_signal(signal.SIGKILL)  # hung: the run failed
            process.wait(timeout=60)
            if stats_path.exists():
                stats = json.loads(stats_path.read_text(encoding="utf-8"))
                finish_reason = stats.get("finish_reason")
                if not last:
                    break  # it ended before its kill point
            elif last:
                finish_reason = "no stats (crashed or hung)"
        requests = len(server.hits)
        asked, answered = robots_answered(server.hits)
    doc_ids = []
    if items.exists():
        doc_ids = [json.loads(line)["doc_id"] for line in items.read_text(encoding="utf-8").splitlines() if line]
    return CrawlSummary(
        doc_ids,
        requests,
        finish_reason,
        time.perf_counter() - started,
        stats,
        robots_asked=asked,
        robots_answered=answered,
        restarted_at=tuple(restarted_at),
    )


def spawn(job: Mapping[str, Any], log: Path) -> subprocess.Popen[bytes]:
    here = Path(__file__).resolve().parent.parent  # example_project
    paths = [str(here), str(here.parent), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    with log.open("ab") as output:
        # In this checkout's root: ``-m`` puts the working directory first on the path, so
        # a crawl started from another checkout would run that checkout's add-on.
        return subprocess.Popen(
            [sys.executable, "-m", "demoweb.killed", json.dumps(job)],
            env=env,
            cwd=here.parent,
            stdout=output,
            stderr=output,
        )


def main() -> None:
    from scrapy.crawler import CrawlerProcess

    job = json.loads(sys.argv[1])
    order = CrawlOrder(**job["order"])
    settings = crawl_settings(
        {
            **order.settings(Path(job["jobdir"])),
            "CLOSESPIDER_TIMEOUT": TIMEOUT_GUARD,
            **job["settings"],
            "ITEM_PIPELINES": {"demoweb.crawling.JsonLinesPipeline": 100},
            "ITEM_LOG": job["items"],
        },
        job["proxy"],
    )
    if job["page_guard"]:
        settings["CLOSESPIDER_PAGECOUNT"] = job["page_guard"]
    if job.get("debug_log"):  # every drop with what it was dropped against (traces of a failing seed)
        handler = logging.FileHandler(job["debug_log"], encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(relativeCreated)d %(name)s %(levelname)s %(message)s"))
        logging.getLogger("scrapy_urlnorm").addHandler(handler)
        logging.getLogger("scrapy_urlnorm").setLevel(logging.DEBUG)
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(order.spider)
    process.crawl(crawler, start_urls=job["start_urls"])
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats is not None else {}
    Path(job["stats"]).write_text(json.dumps(stats, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
