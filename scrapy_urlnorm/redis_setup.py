"""Settings glue for distributed crawls: the Redis client, and what the add-on installs."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.settings import BaseSettings
from scrapy.utils.misc import load_object

logger = logging.getLogger(__name__)

STOCK_SCHEDULER = "scrapy_redis.scheduler.Scheduler"
SCHEDULER = "scrapy_urlnorm.redis_queue.RedisScheduler"
BATCH_MIDDLEWARE = "scrapy_urlnorm.redis_batch.RedisBatchMiddleware"
#: Spider and downloader middleware priority of RedisBatchMiddleware: near the
#: engine, so it claims only what offsite, depth and the others let through,
#: and sees only the download errors no other middleware turned into a retry.
BATCH_PRIORITY = 15
#: Request meta key: the lease id of the queue entry a request came from (a
#: redirect or retry keeps its original's; queueing it acknowledges that entry).
LEASE = "_urlnorm_lease"
#: Request meta key: the lease of the response whose callback yielded the request
#: (that lease is acknowledged once all it yielded is queued or settled).
PARENT = "_urlnorm_parent"
#: Request meta key: the request was reclaimed from a worker that died.
RECLAIMED = "_urlnorm_reclaimed"
#: Request meta key: a redirect (or retry) of a request reclaimed from a worker that died:
#: the page its chain ends at may be the one that worker fetched (without the redirect:
#: its cookie jar was its own), whose links it claimed without queueing them.
RECLAIMED_CHAIN = "_urlnorm_reclaimed_chain"
#: Request meta key (between pop and the scheduler): queued by another worker.
FOREIGN = "_urlnorm_foreign"


def redis_client(settings: BaseSettings, url: str) -> Any:
    """A client through scrapy-redis' own helper, so ``REDIS_PARAMS``,
    ``REDIS_HOST``/``REDIS_PORT``, ``REDIS_DB`` and ``REDIS_URL`` apply as they
    do for its scheduler; ``URLNORM_REDIS_URL`` overrides the address."""
    try:
        from scrapy_redis import connection, defaults
    except ImportError:  # plain redis-py: URLNORM_REDIS_URL or REDIS_URL only
        import redis

        return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    own = settings.get("URLNORM_REDIS_URL")
    if not own:
        return connection.get_redis_from_settings(settings)
    params = {**defaults.REDIS_PARAMS, **settings.getdict("REDIS_PARAMS"), "url": own}
    if isinstance(params.get("redis_cls"), str):
        params["redis_cls"] = load_object(params["redis_cls"])
    return connection.get_redis(**params)


def install(settings: BaseSettings, redis_url: str | None) -> None:
    """With Redis: the batching/acknowledging middleware, and our scheduler in
    place of scrapy-redis' (unless ``URLNORM_REDIS_SCHEDULER = False``)."""
    if redis_url is None:
        return
    for components in ("SPIDER_MIDDLEWARES", "DOWNLOADER_MIDDLEWARES"):
        # Scrapy's stubs want a class; an import path works (and is what settings hold).
        settings.setdefault_in_component_priority_dict(components, BATCH_MIDDLEWARE, BATCH_PRIORITY)  # type: ignore[arg-type]
    scheduler = settings.get("SCHEDULER")
    name = scheduler if isinstance(scheduler, str) else f"{scheduler.__module__}.{scheduler.__qualname__}"
    if name == STOCK_SCHEDULER and settings.getbool("URLNORM_REDIS_SCHEDULER", True):
        settings.set("SCHEDULER", SCHEDULER, settings.getpriority("SCHEDULER") or 0)
        logger.info(
            "scrapy-urlnorm replaces %s with %s (reliable queue, local spill during outages); "
            "URLNORM_REDIS_SCHEDULER = False keeps the stock one",
            STOCK_SCHEDULER,
            SCHEDULER,
        )
