"""What a drop against a pending representative holds, so that a ``kill -9`` does not lose it.

The drop ledger lives in memory and dies with the process.

- In a distributed crawl other workers share the seen set, and no other
  worker can release what this one dropped. So a drop against a
  representative still pending holds the queue lease of the page that
  yielded it (or its own) until the representative settles
  (``DropLedger.on_hold``): killed meanwhile, that page is fetched again by
  another worker, and its links with it. A learned drop with no lease to hold
  is not made: the request is fetched.
- In a ``JOBDIR`` crawl with the crash-safe frontier, such a drop is journaled
  itself (a ``DROP`` record, done when the drop settles): after a kill the
  dropped request goes through the filter again on resume, against the
  representative recovered with it. A request that cannot be serialized holds
  a journal entry instead: that of the page that yielded it, of the request a
  redirect replaces, or (a drop at download time) its own, not journaled done
  until the drop settles, so fetched again on resume with its links. (Holding
  the page was the only way before: a resume fetched again every page with a
  link dropped against a request still queued, ~50 of ~570 in
  ``test_kill_9_and_resume_refetches_only_what_was_in_flight``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .ledger import Parked, lighten, rebuilt
from .redis_setup import LEASE, PARENT

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy import Request

    from .completion import Completion
    from .frontier import Frontier
    from .ledger import DropLedger
    from .stores import SeenStore

#: What a drop holds: ``("ack", lease)``, its own queue entry, or ``("settled", lease)``,
#: the entry of the page that yielded it; ``("journal", request id)``, the frontier's;
#: ``("drop", (id, payload))``, a ``DROP`` record of its own in the frontier's journal.
Hold = tuple[str, Any]

#: Requests kept against pages only other workers represent (see :class:`ForeignDrops`);
#: past it, such a request is fetched.
MAX_FOREIGN_DROPS = 100_000


class ForeignDrops:
    """Requests a static step dropped against a page only another worker represents
    (distributed crawls): ``/x?utm_source=a`` against the ``/x`` another worker
    queued. That request may not deliver (an error after every retry, a page
    ``robots.txt`` forbids as spelled) where this spelling would, and that worker's
    ledger cannot release a drop made here. So each is kept, light, under the key it
    was dropped against, until a worker says that key failed (``failed_elsewhere``);
    then it is released. Bounded: past ``limit`` a request is fetched instead."""

    def __init__(self, limit: int = MAX_FOREIGN_DROPS) -> None:
        self.limit = limit
        self._by_key: dict[int, list[Request | Parked]] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def keep(self, key: int, request: Request) -> bool:
        """Keep ``request``, dropped against ``key``; False when full: fetch it."""
        if self._count >= self.limit:
            return False
        self._by_key.setdefault(key, []).append(lighten(request))
        self._count += 1
        return True

    def take(self, keys: Iterable[int]) -> list[Request]:
        """What was kept against ``keys``, which did not deliver: to be released."""
        requests: list[Request] = []
        for key in keys:
            kept = self._by_key.pop(key, ())
            self._count -= len(kept)
            requests += (rebuilt(request) for request in kept)
        return requests


class LeaseHolds:
    """The distributed crawl's side of a drop (all answers are trivial on one machine)."""

    def __init__(self, seen: SeenStore, ledger: DropLedger, *, distributed: bool) -> None:
        self.distributed = distributed
        self._ledger = ledger
        self._represented_here = getattr(seen, "represented_here", None) if distributed else None
        self._delivered = getattr(seen, "delivered", None)  # (what claims found delivered elsewhere)
        #: Static drops against other workers' pages (distributed only).
        self.foreign_drops = ForeignDrops() if distributed else None
        self._journal: Completion | None = None
        self._frontier: Frontier | None = None
        #: Ids of the ``DROP`` records whose drops have not settled.
        self._journaled: set[int] = set()

    def use_journal(self, frontier: Frontier) -> None:
        """Drops hold the frontier's journal entries (``JOBDIR``, one process)."""
        if self.distributed:
            return
        self._journal = frontier.completion
        self._frontier = frontier
        self._ledger.on_take = self._take_journaled
        self._ledger.on_hold = self._settle_journaled

    def _take_journaled(self, hold: Hold) -> None:
        if hold[0] == "drop":
            drop_id, payload = hold[1]
            self._journaled.add(drop_id)
            self._frontier.journal_drop(drop_id, payload)  # type: ignore[union-attr]
        else:
            self._journal.hold(hold[1])  # type: ignore[union-attr]

    def _settle_journaled(self, hold: Hold) -> None:
        if hold[0] == "drop":
            drop_id = hold[1][0]
            if drop_id in self._journaled:
                self._journaled.discard(drop_id)
                self._frontier.drop_settled(drop_id)  # type: ignore[union-attr]
        else:
            self._journal.unhold(hold[1])  # type: ignore[union-attr]

    def journal_held(self, request: Request) -> int | None:
        """Journal ``request``, held back (see :mod:`scrapy_urlnorm.holdback`), as a ``DROP``
        record of its own (``JOBDIR``): killed or stopped while it waits, it goes through
        the filter again on resume. Returns the record's id for :meth:`held_released`;
        ``None`` without a journal or for a request that cannot be serialized (not held)."""
        frontier = self._frontier
        if frontier is None:
            return None
        record = frontier.drop_record(request)
        if record is None:
            return None
        frontier.journal_drop(*record)
        return record[0]

    def held_released(self, drop_id: int) -> None:
        """The held request journaled as ``drop_id`` was scheduled again: its record is done.
        (Unlike a drop's, it stays open at a clean stop: the request is nowhere else.)"""
        if self._frontier is not None:
            self._frontier.drop_settled(drop_id)

    def foreign(self, key: int) -> bool:
        """``key`` is another worker's only, and not known to have delivered: a learned
        drop against it could rest on a request that worker's filter dropped after
        claiming its URL, so on a page nobody fetches; and that worker's ledger could
        not release it. Once a claim found its page delivered, a drop against it rests
        on a page the crawl has (parked here, released here if its rule is revoked)."""
        represented_here = self._represented_here
        return (
            represented_here is not None
            and not represented_here(key)
            and (self._delivered is None or self._delivered.get(key) is None)
        )

    @property
    def active(self) -> bool:
        """Whether drops against pending representatives hold anything."""
        return self.distributed or self._journal is not None

    def saved(self) -> None:
        """The ledger's pending drops were saved at a clean stop: what they held is free."""
        if self._journal is not None:
            self._journal.settle_held()
            for drop_id in self._journaled:  # (saved with the ledger: not checked again on resume)
                self._frontier.drop_settled(drop_id)  # type: ignore[union-attr]
            self._journaled.clear()

    def hold_for(self, request: Request) -> Hold | None:
        """What a drop of ``request`` against a pending representative holds: its own
        queue lease (a popped request, or a redirect, which carries its source's), else
        the lease of the page that yielded it."""
        if self._ledger.on_hold is None:
            return None
        if self._journal is not None:
            record = self._frontier.drop_record(request)  # type: ignore[union-attr]
            if record is not None:
                return ("drop", record)
            entry = self._journal.entry_to_hold(request)
            return None if entry is None else ("journal", entry)
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
