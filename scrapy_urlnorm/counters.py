"""Counters gathered in memory and added to ``crawler.stats`` in batches."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

#: Counts gathered before they are added to ``crawler.stats`` (also at close, and
#: whenever someone reads them through :meth:`Counters.publish`).
PUBLISH_EVERY = 1024
#: reason -> its ``urlnorm/filtered/<reason>`` counter name, made once.
_FILTERED_KEYS: dict[str, str] = {}


class Counters:
    """The ``urlnorm/*`` counters of one crawler.

    A stats call per request cost about a quarter of the filter's time, so counts
    pile up here and reach ``crawler.stats`` every :data:`PUBLISH_EVERY` counts and
    at close. The two counts every request or drop makes have attributes of their own
    (``Deduplicator.check`` adds to ``requests_seen`` in place: it runs for every request).
    """

    __slots__ = ("counts", "filtered", "filtered_by_reason", "requests_seen", "stats", "unpublished")

    def __init__(self, stats: StatsCollector | None) -> None:
        self.stats = stats
        self.counts: dict[str, int] = {}
        self.unpublished = 0
        self.requests_seen = 0
        self.filtered = 0
        self.filtered_by_reason: dict[str, int] = {}

    def count(self, key: str, count: int = 1) -> None:
        counts = self.counts
        counts[key] = counts.get(key, 0) + count
        self.unpublished += 1
        if self.unpublished >= PUBLISH_EVERY:
            self.publish()

    def filtered_as(self, reason: str) -> None:
        self.filtered += 1
        by_reason = self.filtered_by_reason
        by_reason[reason] = by_reason.get(reason, 0) + 1

    def publish(self) -> None:
        """Add the counters gathered since the last call to ``crawler.stats``."""
        stats, counts = self.stats, self.counts
        if self.requests_seen:
            counts["urlnorm/requests_seen"] = counts.get("urlnorm/requests_seen", 0) + self.requests_seen
        if self.filtered:
            counts["urlnorm/filtered"] = counts.get("urlnorm/filtered", 0) + self.filtered
            for reason, count in self.filtered_by_reason.items():
                name = _FILTERED_KEYS.get(reason)
                if name is None:
                    name = _FILTERED_KEYS[reason] = f"urlnorm/filtered/{reason}"
                counts[name] = counts.get(name, 0) + count
            self.filtered_by_reason.clear()
        if stats is not None:
            for key, value in counts.items():
                stats.inc_value(key, value)
        counts.clear()
        self.unpublished = self.requests_seen = self.filtered = 0
