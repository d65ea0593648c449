"""Parked drops: learned drops whose representative delivered, kept for revocation.

A learned drop against a page already delivered needs no claim to wait on, but
it rests on a rule the site may contradict later; :class:`ParkedDrops` keeps it,
per host and URL, so that :meth:`~scrapy_urlnorm.ledger.DropLedger.revoke_host`
can release it. One per URL: releasing one link of a URL releases its page, and
its repeats are duplicates of it. "One URL" is told by an identity the ledger
gives (the request's key under the static policy: ``/p#top`` and
``/p?utm_source=x`` are ``/p``, and each callback has its own), so an audit
that fetched one spelling finds the drop parked under another.

Parked drops are most of what a long crawl keeps in the ledger, so each is kept
light (:meth:`~scrapy_urlnorm.ledger.Drop.lighten`) and they are bounded per host
and in all; the ledger fetches a drop that does not fit instead of keeping it
without its insurance.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from .ledger import Drop


class Parking(Enum):
    """What :meth:`ParkedDrops.put` did with a drop."""

    KEPT = "kept"
    REPEAT = "repeat"  # its URL is parked already (unsettled): nothing more to keep
    FULL = "full"  # its host's share, or all parked drops, at their cap


class ParkedDrops:
    """Learned drops against delivered pages, by host and URL identity, bounded."""

    def __init__(self, max_per_host: int, max_total: int) -> None:
        self.max_per_host = max_per_host
        self.max_total = max_total
        self._by_host: dict[str, dict[int, Drop]] = {}
        self._entries = 0  # entries of _by_host, settled ones included

    def put(self, drop: Drop, url: int) -> Parking:
        """Park ``drop``, whose URL's identity is ``url``."""
        parked = self._by_host.get(drop.host)
        if parked is None:
            parked = self._by_host[drop.host] = {}
        if url in parked and not parked[url].settled:
            return Parking.REPEAT
        if self._full(parked):
            self._sweep(parked)
            if self._full(parked):
                return Parking.FULL
        drop.lighten()
        if url not in parked:
            self._entries += 1
        parked[url] = drop
        return Parking.KEPT

    def _full(self, parked: dict[int, Drop]) -> bool:
        return len(parked) >= self.max_per_host or self._entries >= self.max_total

    def _sweep(self, parked: dict[int, Drop]) -> None:
        """Forget settled entries: of ``parked`` (a host's), and of every host when all are at the cap."""
        hosts = self._by_host.values() if self._entries >= self.max_total else (parked,)
        for entries in hosts:
            for key in [key for key, entry in entries.items() if entry.settled]:
                del entries[key]
                self._entries -= 1
        if self._entries < self.max_total:
            for host in [host for host, entries in self._by_host.items() if not entries and entries is not parked]:
                del self._by_host[host]

    def pop_host(self, host: str) -> list[Drop]:
        """Forget ``host``'s parked drops; the unsettled ones are returned (to be released)."""
        parked = self._by_host.pop(host, {})
        self._entries -= len(parked)
        return [drop for drop in parked.values() if not drop.settled]

    def of_host(self, host: str) -> list[Drop]:
        return [drop for drop in self._by_host.get(host, {}).values() if not drop.settled]

    def unsettled(self) -> Iterator[Drop]:
        for drops in self._by_host.values():
            for drop in drops.values():
                if not drop.settled:
                    yield drop

    def get(self, host: str, url: int) -> Drop | None:
        """The drop parked under the URL identity ``url`` on ``host``, if any."""
        return self._by_host.get(host, {}).get(url)

    def __len__(self) -> int:
        """Unsettled parked drops."""
        return sum(1 for _ in self.unsettled())

    def clear(self) -> None:
        self._by_host.clear()
        self._entries = 0
