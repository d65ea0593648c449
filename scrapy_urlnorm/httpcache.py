"""Torn entries of Scrapy's filesystem HTTP cache after a ``kill -9``.

``FilesystemCacheStorage`` writes an entry as several files, ``pickled_meta``
(what makes the entry count as cached) before ``response_body`` and
``request_body`` last. A crawl killed between the two leaves an entry that is
served on the next run as the page: a ``200`` with an empty or cut body, whose
callback finds nothing, and the request is done. The request that was in flight
at the kill is the one the crash-safe frontier recovers, so before such a
request is sent its entry is checked, and removed if its last file is missing
(``urlnorm/frontier/torn_cache_entries``): it is fetched and cached again.
Differential seeds 133113 and 133133 (``--kills 2 --settings
HTTPCACHE_ENABLED=True``) each lost a page that way, served with an empty body.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.extensions.httpcache import FilesystemCacheStorage
from scrapy.utils.misc import load_object
from scrapy.utils.project import data_path

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: What ``FilesystemCacheStorage`` writes first to make an entry cached, and last.
_FIRST, _LAST = "pickled_meta", "request_body"


class TornCacheEntries:
    """Removes a recovered request's filesystem cache entry that a crash cut short."""

    def __init__(self, crawler: Crawler, cachedir: str) -> None:
        self.crawler = crawler
        self.cachedir = cachedir
        self.removed = 0

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> TornCacheEntries | None:
        """``None`` unless the HTTP cache is on, on the file system."""
        settings = crawler.settings
        if not settings.getbool("HTTPCACHE_ENABLED"):
            return None
        storage = load_object(settings["HTTPCACHE_STORAGE"])
        if not (isinstance(storage, type) and issubclass(storage, FilesystemCacheStorage)):
            return None
        return cls(crawler, data_path(settings["HTTPCACHE_DIR"]))

    def check(self, request: Request) -> None:
        spider = self.crawler.spider
        if spider is None:
            return
        # The entry's place, as FilesystemCacheStorage computes it.
        key = self.crawler.request_fingerprinter.fingerprint(request).hex()  # type: ignore[union-attr]
        entry = Path(self.cachedir, spider.name, key[0:2], key)
        if not (entry / _FIRST).exists() or (entry / _LAST).exists():
            return
        shutil.rmtree(entry, ignore_errors=True)
        self.removed += 1
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value("urlnorm/frontier/torn_cache_entries")
        if self.removed == 1:
            logger.warning(
                "Removed the HTTP cache entry of %s: its writing was cut short by the crash, and it would "
                "have been served as the page (further ones are counted in urlnorm/frontier/torn_cache_entries)",
                request.url,
            )
