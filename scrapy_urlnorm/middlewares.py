"""Downloader middlewares: ``NormalizeMiddleware`` (and the learner, later)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.exceptions import IgnoreRequest

from .dedup import Deduplicator

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


class NormalizeMiddleware:
    """Completes the dupe filter at download time.

    - Requests Scrapy never shows the dupe filter (``dont_filter=True``: start
      URLs, retries) are recorded as seen, so a later link back to a start URL
      is not fetched again.
    - A start request that was already seen (fetched in an earlier run of a
      ``JOBDIR`` crawl, or linked and fetched before Scrapy got to it) is
      dropped, unless ``URLNORM_REFETCH_START_URLS = True``. Retries and
      redirects are never dropped here.
    - With ``URLNORM_REWRITE = True``, a request is sent with its normalized
      URL instead of the original (off by default: a server may answer the two
      differently, e.g. when a tracking parameter is required or case matters;
      the rewritten request is rescheduled once, with ``dont_filter=True``).
    """

    def __init__(self, dedup: Deduplicator, *, rewrite: bool = False, refetch_start_urls: bool = False) -> None:
        self.dedup = dedup
        self.rewrite = rewrite
        self.refetch_start_urls = refetch_start_urls

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        return cls(
            Deduplicator.for_crawler(crawler),
            rewrite=settings.getbool("URLNORM_REWRITE"),
            refetch_start_urls=settings.getbool("URLNORM_REFETCH_START_URLS"),
        )

    def process_request(self, request: Request, spider: Spider | None = None) -> Request | None:
        if request.dont_filter:
            meta = request.meta
            if (
                meta.get("is_start_request")
                and not self.refetch_start_urls
                and "retry_times" not in meta
                and "redirect_urls" not in meta
            ):
                reason = self.dedup.check(request)
                if reason is not None:
                    self.dedup.count("urlnorm/start_requests_skipped")
                    raise IgnoreRequest(f"start request already seen ({reason}): {request.url}")
            else:
                self.dedup.record(request)
        if self.rewrite:
            normalized = self.dedup.normalize(request.url)[0]
            if normalized is not None and normalized != request.url:
                if self.dedup.stats is not None:
                    self.dedup.stats.inc_value("urlnorm/rewritten")
                return request.replace(url=normalized, dont_filter=True)
        return None
