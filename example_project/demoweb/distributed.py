"""A generated web crawled by several scrapy-redis workers at once, some killed and restarted.

The distributed tests (``tests/test_redis.py``) check the promise of
:doc:`distributed crawls </distributed>` on the demo web and one generated
web. This checks it on random webs and crawl orders, as the other
differential conditions do: the add-on crawl is ``order.redis_workers``
workers, each a process of its own (``python -m demoweb.killed JOB_JSON``),
sharing the queue, the seen set and the learned rules through the Redis at
the settings' ``REDIS_URL`` (emptied first). With ``order.kills``, a worker
drawn from the seed is killed (``SIGKILL``) that many times, each after a
number of requests drawn from the seed, and started again on its own
``JOBDIR`` (when the order has one), as a restarted machine would be; what
it held is reclaimed after its lease. Stock is one ordinary crawl, so "lost"
means what a single stock crawl collects that all the workers together did not.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .killed import END_POLLS, spawn
from .randomweb import CrawlOrder, CrawlSummary, RandomWeb, robots_answered, serve

#: Seconds before a killed worker's leases are reclaimed, and between rule syncs:
#: short, so that a seed with kills ends in seconds, not in the default 30.
LEASE_SECONDS = 3.0
SYNC_SECONDS = 0.2


def worker_settings(redis_url: str) -> dict[str, Any]:
    """What each worker adds to the add-on's settings: scrapy-redis' scheduler on ``redis_url``."""
    return {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": redis_url,
        "URLNORM_REDIS_LEASE": LEASE_SECONDS,
        "URLNORM_REDIS_SYNC_INTERVAL": SYNC_SECONDS,
    }


def read_items(paths: list[Path]) -> list[str]:
    """The document ids in ``paths``; a line a kill cut short is skipped."""
    doc_ids = []
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                doc_ids.append(json.loads(line)["doc_id"])
            except (ValueError, KeyError):
                continue
    return doc_ids


async def crawl_distributed(
    web: RandomWeb,
    order: CrawlOrder,
    extra: Mapping[str, Any],
    jobdir: Path,
    *,
    page_guard: int,
    expected: int,
) -> CrawlSummary:
    """The add-on crawl of ``web`` by ``order.redis_workers`` workers on the Redis at ``extra["REDIS_URL"]``,
    ``order.kills`` of them killed and restarted: summed up as one crawl (its requests are
    what the server answered; its finish reason ``finished`` if every last run finished,
    else the first other; its stats, the first worker's last run's). Each worker's files are
    named after it beside ``jobdir`` (its ``JOBDIR``, where the order has one, ``jobdir.w<i>``),
    as the runs of :func:`~demoweb.killed.crawl_with_kills` are."""
    import redis
    from twisted.internet import reactor, task

    redis_url = extra.get("REDIS_URL")
    if not redis_url:
        raise ValueError("a distributed crawl needs REDIS_URL in its settings (a redis-server it may empty)")
    redis.Redis.from_url(redis_url).flushdb()
    rng = random.Random(f"{order.seed}:workers")
    workdir = jobdir.parent
    settings = {**extra, **worker_settings(redis_url)}
    started = time.perf_counter()
    items: list[Path] = []
    runs: list[int] = [0] * order.redis_workers

    def start(index: int, server_address: str) -> tuple[subprocess.Popen[bytes], Path]:
        run = runs[index]
        runs[index] += 1
        name = f"worker{index}.run{run}"
        items.append(workdir / f"killed.{name}.items.jl")
        stats = workdir / f"killed.{name}.stats.json"
        own = {  # traces (--keep-failed): one file per worker, as workers write at once
            key: f"{settings[key]}.worker{index}"
            for key in ("URLNORM_CRAWL_LOG", "URLNORM_REPORT_FILE")
            if settings.get(key)
        }
        job = {
            "order": asdict(order),
            "jobdir": f"{jobdir}.w{index}",
            "settings": {**settings, **own},
            "proxy": server_address,
            "start_urls": web.start_urls,
            "items": str(items[-1]),
            "stats": str(stats),
            "page_guard": page_guard,
            "debug_log": str(workdir / f"addon.debug.log.worker{index}") if settings.get("URLNORM_DEBUG") else "",
        }
        return spawn(job, workdir / f"killed.{name}.log"), stats

    finish_reason: str | None = "finished"
    first_stats: dict[str, Any] = {}
    with serve(web, order) as server:
        workers = [start(index, server.address) for index in range(order.redis_workers)]
        for _kill in range(order.kills):
            kill_at = len(server.hits) + rng.randint(1, max(1, expected // max(1, order.kills)))
            while len(server.hits) < kill_at and any(process.poll() is None for process, _ in workers):
                await task.deferLater(reactor, 0.02, lambda: None)  # type: ignore[arg-type]
            alive = [index for index, (process, _) in enumerate(workers) if process.poll() is None]
            if not alive:
                break
            victim = rng.choice(alive)
            workers[victim][0].send_signal(signal.SIGKILL)
            workers[victim][0].wait(timeout=60)
            workers[victim] = start(victim, server.address)
        for process, stats_path in workers:
            for _ in range(END_POLLS):
                if process.poll() is not None:
                    break
                await task.deferLater(reactor, 0.05, lambda: None)  # type: ignore[arg-type]
            else:
                process.send_signal(signal.SIGKILL)  # hung: the crawl failed
            process.wait(timeout=60)
            stats = json.loads(stats_path.read_text(encoding="utf-8")) if stats_path.exists() else {}
            first_stats = first_stats or stats
            reason = stats.get("finish_reason", "no stats (crashed or hung)")
            if reason != "finished" and finish_reason == "finished":
                finish_reason = reason
        requests = len(server.hits)
        asked, answered = robots_answered(server.hits)
    return CrawlSummary(
        read_items(items),
        requests,
        finish_reason,
        time.perf_counter() - started,
        first_stats,
        robots_asked=asked,
        robots_answered=answered,
    )
