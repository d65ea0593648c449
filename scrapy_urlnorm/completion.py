"""When a journaled request is done (the crash-safe frontier's bookkeeping).

A response is done when its callback's output has ended and each request
and item in it has settled. A yielded request settles when it is scheduled
(``request_scheduled``; its own ``ENQ`` is written right after, so ``DONE``
waits one reactor turn); an item when the pipelines are through with it
(``item_scraped``, ``item_dropped``, ``item_error``). A request replaced (a
redirect, a retry) or failed is done too, unless a drop holds it
(:meth:`Completion.hold`).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy import Request

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.http import Response

#: The journal id of a request, in its meta (kept by redirects and retries,
#: which is how their originals are known to be done).
ID_META = "_urlnorm_frontier_id"
#: On a request a callback yielded: the id of the request whose response it came from.
PARENT_META = "_urlnorm_frontier_parent"


class Completion:
    """Counts what each request handed out still waits on, and reports it done
    (``on_done``) once nothing is left; ``before_done`` runs before each batch."""

    def __init__(self, on_done: Callable[[int], None], before_done: Callable[[], None]) -> None:
        self._on_done = on_done
        self._before_done = before_done
        #: Handed out and not done (at a clean stop, Scrapy's saved queue does not hold them).
        self.in_flight: set[int] = set()
        self._outputs: dict[int, list[int]] = {}  # request id -> [unsettled outputs, output ended]
        #: The request being scheduled and the page that yielded it (or the request it
        #: replaces): ``request_scheduled`` fires just before the scheduler's filter sees it
        #: (see :meth:`entry_to_hold`).
        self._scheduling: tuple[Request, int] | None = None
        self._held: dict[int, int] = {}  # request id -> drops holding it back (see hold())
        self._due: list[int] = []
        self._due_call: _SoonCall | None = None

    def handed_out(self, request: Request) -> None:
        request_id = request.meta.get(ID_META)
        if request_id is not None:
            self.in_flight.add(request_id)

    def close(self) -> None:
        """Report what is done by now; nothing is reported after."""
        if self._due_call is not None:
            self._due_call.cancel()
        self._settle_due()

    # -- a response's output ----------------------------------------------------------

    def output_started(self, response: Response) -> int | None:
        request_id = _request_id(response)
        if request_id is not None:
            self._outputs.setdefault(request_id, [0, 0])
        return request_id

    def adopt(self, request_id: int, output: Any) -> None:
        """Count an output of ``request_id``'s callback, to settle later."""
        if output is None:
            return
        if isinstance(output, Request):
            # A child inherits nothing of its parent's journal state (``meta=response.meta``).
            output.meta.pop(ID_META, None)
            output.meta[PARENT_META] = request_id
        self._outputs[request_id][0] += 1

    def output_ended(self, request_id: int) -> None:
        outputs = self._outputs.get(request_id)
        if outputs is not None:
            outputs[1] = 1
            self._settle_later(request_id)

    def request_failed(self, request: Request) -> None:
        """A request ended in an error no middleware turned into a response or retry."""
        request_id = request.meta.get(ID_META)
        if request_id is not None:
            self._outputs.setdefault(request_id, [0, 0])[1] = 1  # (a drop may hold it: see hold())
            self._settle_later(request_id)

    def on_request_scheduled(self, request: Request, spider: Spider | None = None) -> None:
        parent = request.meta.pop(PARENT_META, None)
        if parent is not None:
            self._scheduling = (request, parent)
            outputs = self._outputs.get(parent)
            if outputs is not None:
                outputs[0] -= 1
                self._settle_later(parent)
            return
        predecessor = request.meta.get(ID_META)
        self._scheduling = None if predecessor is None else (request, predecessor)
        if predecessor is not None:
            # A redirect, retry or rewrite of a queued request replaces it (so does a
            # request dropped at download time, released and queued again): it is done,
            # whatever held it.
            self._held.pop(predecessor, None)
            self._outputs[predecessor] = [0, 1]
            self._settle_later(predecessor)

    def on_item_settled(self, item: Any, response: Response | None = None, **kwargs: Any) -> None:
        request_id = _request_id(response)
        outputs = self._outputs.get(request_id) if request_id is not None else None
        if outputs is not None:
            outputs[0] -= 1
            self._settle_later(request_id)  # type: ignore[arg-type]

    # -- drops against pending requests -------------------------------------------------

    def entry_to_hold(self, request: Request) -> int | None:
        """The journal entry a drop of ``request`` holds: while the filter looks at it, the
        page that yielded it, or the request it replaces (a redirect's source); at download
        time, its own. ``None`` when it has none (a start request, an unjournaled one)."""
        scheduling = self._scheduling
        if scheduling is not None and scheduling[0] is request:
            return scheduling[1]
        own = request.meta.get(ID_META)
        return own if own in self.in_flight else None

    def hold(self, request_id: int) -> None:
        """A request was dropped against one still pending, and ``request_id``'s entry
        (see :meth:`entry_to_hold`) is not done until that drop settles. Killed meanwhile,
        it is fetched again on resume, and the dropped request checked again (the drop
        died with the process)."""
        outputs = self._outputs.setdefault(request_id, [0, 0])  # (its own: not failed yet)
        outputs[0] += 1
        self._held[request_id] = self._held.get(request_id, 0) + 1

    def unhold(self, request_id: int) -> None:
        """The drop settled (its page delivered, or it was scheduled again)."""
        held = self._held.pop(request_id, 0)
        if not held:
            return  # its entry was replaced, or journaled done at a clean stop
        if held > 1:
            self._held[request_id] = held - 1
        outputs = self._outputs.get(request_id)
        if outputs is not None:
            outputs[0] -= 1
            self._settle_later(request_id)

    def settle_held(self) -> None:
        """A clean stop saved the drops that held entries back (:mod:`scrapy_urlnorm.resume`):
        an entry waiting on nothing else is done, not fetched again on resume."""
        for request_id, held in list(self._held.items()):
            outputs = self._outputs.get(request_id)
            if outputs is not None and outputs[1] and outputs[0] == held:
                del self._outputs[request_id], self._held[request_id]
                self._done(request_id)

    # -- reporting ----------------------------------------------------------------------

    def _settle_later(self, request_id: int) -> None:
        # One event-loop turn later: a child's ENQ is written after request_scheduled returns.
        self._due.append(request_id)
        if self._due_call is None:
            self._due_call = _call_soon(self._settle_due)

    def _settle_due(self) -> None:
        self._due_call = None
        due, self._due = self._due, []
        self._before_done()
        for request_id in due:
            outputs = self._outputs.get(request_id)
            if outputs is None or outputs[0] > 0 or not outputs[1]:
                continue
            del self._outputs[request_id]
            self._done(request_id)

    def _done(self, request_id: int) -> None:
        self.in_flight.discard(request_id)
        self._on_done(request_id)


def _call_soon(func: Callable[[], None]) -> _SoonCall:
    """Call ``func`` on the next turn of the crawl's event loop: the Twisted reactor's
    if one is installed, else (``TWISTED_REACTOR_ENABLED = False``) asyncio's."""
    if "twisted.internet.reactor" in sys.modules:  # never import it: that would install one
        from twisted.internet import reactor

        twisted_reactor: Any = reactor
        delayed: Any = twisted_reactor.callLater(0, func)
        return _SoonCall(lambda: delayed.cancel() if delayed.active() else None)
    handle = asyncio.get_event_loop().call_soon(func)
    return _SoonCall(handle.cancel)


class _SoonCall:
    """A call :func:`_call_soon` scheduled; ``cancel()`` does nothing once it ran."""

    def __init__(self, cancel: Callable[[], object]) -> None:
        self._cancel = cancel

    def cancel(self) -> None:
        self._cancel()


def _request_id(response: Response | None) -> int | None:
    request = getattr(response, "request", None)
    return None if request is None else request.meta.get(ID_META)
