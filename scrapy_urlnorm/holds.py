"""What a drop rests on in a distributed crawl, where another worker may hold the representative.

Other workers share the seen set, and this worker's drop ledger dies with it
(``kill -9``): no other worker can release what it holds. So a drop against a
representative still pending holds the queue lease of the page that yielded it
(or its own) until the representative settles (``DropLedger.on_hold``): killed
meanwhile, that page is fetched again by another worker, and its links with it.
A learned drop with no lease to hold is not made: the request is fetched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .redis_setup import LEASE, PARENT

if TYPE_CHECKING:
    from scrapy import Request

    from .ledger import DropLedger
    from .stores import SeenStore

#: What a drop holds: ``("ack", lease)``, its own queue entry, or ``("settled", lease)``,
#: the entry of the page that yielded it.
Hold = tuple[str, str]


class LeaseHolds:
    """The distributed crawl's side of a drop (all answers are trivial on one machine)."""

    def __init__(self, seen: SeenStore, ledger: DropLedger, *, distributed: bool) -> None:
        self.distributed = distributed
        self._ledger = ledger
        self._represented_here = getattr(seen, "represented_here", None) if distributed else None

    def foreign(self, key: int) -> bool:
        """``key`` is another worker's only: a learned drop against it could rest on a
        request that worker's filter dropped after claiming its URL, so on a page
        nobody fetches; and that worker's ledger could not release it."""
        represented_here = self._represented_here
        return represented_here is not None and not represented_here(key)

    def hold_for(self, request: Request) -> Hold | None:
        """What a drop of ``request`` against a pending representative holds: its own
        queue lease (a popped request, or a redirect, which carries its source's), else
        the lease of the page that yielded it."""
        if self._ledger.on_hold is None:
            return None
        meta = request.meta
        lease = meta.get(LEASE)
        if lease is not None:
            return ("ack", lease)
        parent = meta.get(PARENT)
        return None if parent is None else ("settled", parent)

    @staticmethod
    def take(request: Request, hold: Hold) -> None:
        """The drop holds it now: the scheduler and the middlewares must not give it back."""
        request.meta.pop(LEASE if hold[0] == "ack" else PARENT, None)
