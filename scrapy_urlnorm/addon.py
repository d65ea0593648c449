"""``Addon``: one line in ``settings.py`` enables everything.

ADDONS = {"scrapy_urlnorm.Addon": 0}
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object

from .config import validate_settings
from .dupefilter import UrlNormDupeFilter
from .frontier import CrashSafeScheduler, FrontierMiddleware
from .middlewares import NormalizeMiddleware, RedirectLearningMiddleware, ScrubMetaMiddleware
from .redis_setup import install as install_redis
from .report import UrlNormReport
from .wiring import redis_url

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: Downloader middleware priorities. NormalizeMiddleware runs first on the
#: way out (before anything sends or caches the request) and last on the way
#: in (after decompression).
NORMALIZE_MIDDLEWARE_PRIORITY = 50
#: Between RedirectMiddleware (600) and the downloader: sees raw redirects.
REDIRECT_LEARNING_PRIORITY = 650
#: Outermost on both sides (below StartSpiderMiddleware's 25 and OffsiteMiddleware's 50):
#: it must see the final output of callbacks and the errors nobody handled.
FRONTIER_MIDDLEWARE_PRIORITY = 10
#: Nearest the spider: children are scrubbed before any other spider middleware sees them.
SCRUB_META_PRIORITY = 1000


class Addon:
    """Sets ``DUPEFILTER_CLASS`` and the middlewares, unless ``URLNORM_ENABLED = False``."""

    def update_settings(self, settings: BaseSettings) -> None:
        # Every URLNORM_* value is checked here, before anything is built: an error
        # raised while Scrapy builds its downloader is masked by an AttributeError on
        # Scrapy 2.13.0. (The filter checks again, for projects without the add-on.)
        validate_settings(settings)
        if not settings.getbool("URLNORM_ENABLED", True):
            logger.info("scrapy-urlnorm is disabled (URLNORM_ENABLED = False)")
            if settings.get("URLNORM_CRAWL_LOG"):
                # A stock crawl, logged for `analyze` to compare with.
                settings.setdefault_in_component_priority_dict("EXTENSIONS", UrlNormReport, 500)
            return
        user_priority = settings.getpriority("DUPEFILTER_CLASS") or 0
        if user_priority > SETTINGS_PRIORITIES["addon"]:
            current = settings.get("DUPEFILTER_CLASS")
            if not _is(current, UrlNormDupeFilter):
                logger.warning(
                    "DUPEFILTER_CLASS = %r in your settings overrides scrapy-urlnorm's filter: "
                    "requests are de-duplicated by %s, not by normalized URL. Remove the setting "
                    "(or set it to 'scrapy_urlnorm.UrlNormDupeFilter') to use scrapy-urlnorm.",
                    current,
                    getattr(current, "__name__", current),
                )
        settings.set("DUPEFILTER_CLASS", UrlNormDupeFilter, "addon")
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", NormalizeMiddleware, NORMALIZE_MIDDLEWARE_PRIORITY
        )
        settings.setdefault_in_component_priority_dict("SPIDER_MIDDLEWARES", ScrubMetaMiddleware, SCRUB_META_PRIORITY)
        settings.setdefault_in_component_priority_dict("EXTENSIONS", UrlNormReport, 500)
        if settings.getbool("URLNORM_LEARN", True):
            settings.setdefault_in_component_priority_dict(
                "DOWNLOADER_MIDDLEWARES", RedirectLearningMiddleware, REDIRECT_LEARNING_PRIORITY
            )
        if settings.get("JOBDIR") and settings.getbool("URLNORM_CRASH_SAFE", True):
            self._install_frontier(settings)
        install_redis(settings, redis_url(settings))

    def _install_frontier(self, settings: BaseSettings) -> None:
        """With ``JOBDIR``: the crash-safe scheduler, unless the user chose another one."""
        if (settings.getpriority("SCHEDULER") or 0) > SETTINGS_PRIORITIES["addon"] and not _is(
            settings.get("SCHEDULER"), CrashSafeScheduler
        ):
            logger.info(
                "SCHEDULER = %r in your settings: the JOBDIR queue is not made crash-safe by scrapy-urlnorm",
                settings.get("SCHEDULER"),
            )
            return
        settings.set("SCHEDULER", CrashSafeScheduler, "addon")
        for components in ("SPIDER_MIDDLEWARES", "DOWNLOADER_MIDDLEWARES"):
            settings.setdefault_in_component_priority_dict(components, FrontierMiddleware, FRONTIER_MIDDLEWARE_PRIORITY)


def _is(value: object, cls: type) -> bool:
    try:
        return (load_object(value) if isinstance(value, str) else value) is cls
    except (ImportError, NameError, ValueError):
        return False
