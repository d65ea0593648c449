"""The redundancy meter: how many downloads were pages the crawl already had."""

from __future__ import annotations

from .seen import FingerprintSet

#: Hosts whose duplicate downloads are counted apart (the report names the
#: first ones); later hosts count only in the total.
MAX_HOSTS = 10_000


class RedundancyMeter:
    """Counts 200 downloads and those whose body was already downloaded, in 9 bytes per page."""

    def __init__(self) -> None:
        self.page_digests = FingerprintSet(64)
        self.downloads = 0
        self.duplicate_downloads = 0
        #: Duplicate downloads per host: what de-duplication (and learning) missed there.
        self.duplicates_by_host: dict[str, int] = {}
        #: Duplicate downloads by why they were sent (``meta.sent_as``; ``ordinary``: as any request).
        self.duplicates_by_cause: dict[str, int] = {}

    def page(self, digest: int, host: str = "", cause: str | None = None) -> bool:
        """Count a downloaded page (sent for ``cause``, see ``meta.sent_as``); whether its
        body was downloaded before."""
        self.downloads += 1
        if self.page_digests.add(digest) is not None:
            self.duplicate_downloads += 1
            cause = cause or "ordinary"
            self.duplicates_by_cause[cause] = self.duplicates_by_cause.get(cause, 0) + 1
            by_host = self.duplicates_by_host
            if host in by_host or len(by_host) < MAX_HOSTS:
                by_host[host] = by_host.get(host, 0) + 1
            return True
        return False

    @property
    def redundancy_rate(self) -> float:
        return round(self.duplicate_downloads / self.downloads, 4) if self.downloads else 0.0
