"""The page URLs delivered per host, kept to store their learned keys when the host's rules change.

A page read by a callback other than the default is kept with that callback's
salt (see :mod:`scrapy_urlnorm.callbacks`), so its learned keys are its callback's."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

#: Fetched page URLs remembered per host, and in all (the hosts first remembered go
#: first). A page forgotten costs at most a duplicate fetched under a rule learned
#: later (``urlnorm/pages_for_rekeying_forgotten``).
PAGES_PER_HOST = 20_000
PAGE_HOSTS = 1000
PAGES_IN_ALL = 100_000


class DeliveredPages:
    """Bounded per-host lists of delivered page URLs (see ``RuleKeeper.changed``)."""

    def __init__(self, count: Callable[[str, int], None]) -> None:
        self._count = count
        #: A URL, or (URL, salt) for a page a non-default callback read.
        self._by_host: dict[str, list[str | tuple[str, int]]] = {}
        self._kept = 0

    def remember(self, host: str, url: str, salt: int = 0) -> None:
        by_host = self._by_host
        pages = by_host.get(host)
        if pages is None:
            if len(by_host) >= PAGE_HOSTS:
                self._forget(next(iter(by_host)))
            pages = by_host[host] = []
        pages.append((url, salt) if salt else url)
        self._kept += 1
        if len(pages) > PAGES_PER_HOST:
            forgotten = len(pages) - PAGES_PER_HOST
            del pages[:forgotten]
            self._kept -= forgotten
            self._count("urlnorm/pages_for_rekeying_forgotten", forgotten)
        while self._kept > PAGES_IN_ALL and len(by_host) > 1:
            self._forget(next(iter(by_host)))

    def _forget(self, host: str) -> None:
        forgotten = len(self._by_host.pop(host))
        self._kept -= forgotten
        self._count("urlnorm/pages_for_rekeying_forgotten", forgotten)

    def of(self, host: str) -> Iterator[tuple[str, int]]:
        """(URL, callback salt) of each page delivered from ``host``."""
        for page in self._by_host.get(host, ()):
            yield (page, 0) if type(page) is str else page  # type: ignore[misc]

    def hosts(self) -> list[str]:
        return list(self._by_host)
