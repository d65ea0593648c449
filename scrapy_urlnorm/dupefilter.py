"""``UrlNormDupeFilter``: Scrapy's ``DUPEFILTER_CLASS`` over policy-normalized URLs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.request import referer_str

from . import meta as M
from .dedup import Deduplicator
from .redis_setup import RECLAIMED

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from .frontier import Frontier

logger = logging.getLogger(__name__)


class UrlNormDupeFilter(BaseDupeFilter):
    """Filters requests whose method, normalized URL and body were already seen.

    Enable with ``DUPEFILTER_CLASS = "scrapy_urlnorm.UrlNormDupeFilter"`` (the
    add-on does it for you). Counts ``dupefilter/filtered`` as Scrapy does,
    plus ``urlnorm/filtered/<reason>`` saying why each request was a duplicate.
    """

    def __init__(self, dedup: Deduplicator, *, crawler: Crawler | None = None) -> None:
        self.dedup = dedup
        self.crawler = crawler
        self.logdupes = True
        self._last: tuple[Request, str] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(Deduplicator.for_crawler(crawler), crawler=crawler)

    @classmethod
    def from_spider(cls, spider: Spider) -> Self:
        """What scrapy-redis' scheduler calls."""
        return cls.from_crawler(spider.crawler)

    def request_seen(self, request: Request) -> bool:
        reason = self.dedup.check(request)
        if reason is None:
            request.meta[M.ADMITTED] = request.url
            return False
        self._last = (request, reason)
        return True

    def log(self, request: Request, spider: Spider) -> None:
        stats = self.dedup.stats or spider.crawler.stats
        if stats is not None:
            stats.inc_value("dupefilter/filtered")
        if self.dedup.debug:
            return  # Deduplicator.check already logged it, with the reason
        if self.logdupes:
            reason = self._last[1] if self._last and self._last[0] is request else "?"
            logger.debug(
                "Filtered duplicate request: %(request)s (reason: %(reason)s, referer: %(referer)s)"
                " - no more duplicates will be shown (see URLNORM_DEBUG to show all duplicates)",
                {"request": request, "reason": reason, "referer": referer_str(request)},
                extra={"spider": spider},
            )
            self.logdupes = False

    def claim_recovered(self, request: Request, keys: tuple[int, ...] = ()) -> None:
        """The crash-safe scheduler restored ``request`` from its journal, with the
        keys its claim held when the crawl stopped."""
        self.dedup.claim_recovered(request, keys)

    def claim_foreign(self, request: Request) -> None:
        """``request`` was queued by another worker and popped by this one (scrapy-redis):
        this worker holds its claim now, as after a crash, so what it drops against it
        waits on its page. Marked recovered: a taught form that comes this way holds the
        claim on its own URL itself, and took it for another request queued meanwhile
        (``bench_differential.py --redis 2`` seed 146809: the form was dropped against
        its own claim, and neither it nor its link was fetched). A start request claims
        its key when it is sent, as this worker's own do: claimed here first, it met its
        own claim there, as a copy of itself. One reclaimed from a worker that died is
        that worker's own, in flight when it died: marked recovered, it is fetched, not
        skipped against the key its first fetch claimed (``--redis 2 --kills 1``, seed
        146627: the start page and all it alone linked to were lost)."""
        if request.meta.get("is_start_request"):
            if request.meta.get(RECLAIMED):
                request.meta[M.RECOVERED] = True
            return
        self.dedup.claim_recovered(request)
        request.meta[M.RECOVERED] = True

    def restore_pages(self, pages: list[tuple[str, int]]) -> None:
        """Before the recovered requests: the pages earlier runs delivered and handled
        completely (URL, callback salt), as the journal keeps the latest."""
        self.dedup.restore_pages(pages)

    def recovered(self) -> None:
        """The crash-safe scheduler restored every request its journal held."""
        self.dedup.recovered()

    def form_claim_keys(self, request: Request) -> tuple[int, ...]:
        """The keys of the claim ``request``, a form sent in place of a link (a shortcut,
        a rewrite), takes over when it is sent (see ``ShortcutChecks.took_over``)."""
        original = request.meta.get(M.SHORTCUT_OF) or request.meta.get(M.REWRITTEN_FROM)
        if original is None:
            return ()
        dedup = self.dedup
        claim = dedup.ledger.claim_of(dedup.keys.static(request.replace(url=original)).value)
        return claim.keys if claim is not None else ()

    def hold_writes(self) -> Callable[[], None]:
        """Hold back the ``JOBDIR`` records of new fingerprints until the returned
        flush is called. The crash-safe frontier journals a request first and
        then flushes, so a crash between the two can only fetch a request
        twice, never lose it."""
        hold = getattr(self.dedup.seen, "hold_writes", None)
        flush_seen: Callable[[], None] = hold() if callable(hold) else (lambda: None)
        if self.dedup.depths is None:
            return flush_seen
        # A key's depth record must not get ahead of the claim it describes.
        flush_depths = self.dedup.depths.hold_writes()

        def flush() -> None:
            flush_seen()
            flush_depths()

        return flush

    def open(self) -> None:
        # Before the first request: the queue Scrapy saved at the last stop holds
        # requests whose claims (and the drops against them) come back here.
        self.dedup.pending_file.load(self.dedup.ledger, self._spider())

    def hold_journal(self, frontier: Frontier) -> None:
        """Drops against pending requests hold a crash-safe frontier journal
        entry until they settle (see :mod:`scrapy_urlnorm.holds`), and the
        journal keeps the keys each request claimed and the pages delivered."""
        self.dedup.holds.use_journal(frontier)
        self.dedup.on_claimed = frontier.claimed
        self.dedup.on_page = frontier.page_delivered

    def close(self, reason: str) -> None:
        if self.dedup.pending_file.save(self.dedup.ledger, self._spider()) is not None:
            self.dedup.holds.saved()
        self.dedup.close()

    def _spider(self) -> Spider | None:
        return getattr(self.crawler, "spider", None)

    def clear(self) -> None:
        self.dedup.clear()
