"""An audit about to be sent: whether it is needed still.

Audits are scheduled when their representative delivers (or when a drop meets a
delivered page) and wait in the queue with the crawl's other requests. By the time
one is sent, its question may have been answered: its URL was fetched meanwhile (an
audit for another rule, a twin's directory probe, the URL as written), and what it
answered confirms the drop; or the rule it checks, audited there only because it had
not been vouched for where the drop is, has been since (the audits sent before it
found their pages). Either way it is kept as the learned drop it was, against its
delivered representative, so a revoked rule still releases it, instead of being
downloaded. While the representative is pending (or failed) it is sent: a drop then
would have no claim to be released by if the representative fails. An audit of a URL
another audit is fetching (the same link met on two pages, each drop picked for an
audit while the first was in flight) is kept as its drop too: the URL is being fetched;
so is one whose URL an earlier audit found no page at (``404``, ``410``, Apache's ``300
Multiple Choices``): stock fetches a URL once, and the answer does not depend on which
rule asks.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import TYPE_CHECKING

from . import meta as M
from .ledger import same_url_and_callback
from .recent import put_recent

if TYPE_CHECKING:
    from scrapy import Request

    from .audits import AuditDesk


#: Audits in flight remembered at most (a bound: ones whose answer never came back age out).
_IN_FLIGHT_REMEMBERED = 4096
#: What an audit's ``GET`` may answer that says for good there is no page at its URL: gone,
#: or ``300 Multiple Choices``, which Scrapy's redirect middleware does not follow. A server
#: error or a refusal may pass: that URL is audited again when asked again.
NO_PAGE_STATUSES = frozenset({300, 404, 410})
#: URLs whose audit found no page there, remembered at most (least recently found go first).
_NO_PAGE_REMEMBERED = 20_000


class AuditGate:
    """For an :class:`~scrapy_urlnorm.audits.AuditDesk`: audits that need not go."""

    def __init__(self, desk: AuditDesk) -> None:
        self.desk = desk
        #: The audits sent and not answered yet: their URL and callback, and their serial.
        self._in_flight: OrderedDict[int, int] = OrderedDict()
        self._serials = itertools.count(1)
        #: The URLs and callbacks whose ``GET`` audit found no page there (:meth:`no_page`).
        self._no_page: OrderedDict[int, None] = OrderedDict()

    def needless(self, request: Request) -> str | None:
        """Why the audit ``request``, about to be sent, is not (then kept as a drop), or ``None``."""
        if self.answered_since(request):
            return "audit settled by an earlier fetch of the same URL"
        if self.vouched_since(request):
            return "audit no longer needed, its rule held where it is since"
        if self.fetched_by_another(request):
            return "audit of a URL another audit is fetching or found no page at"
        return None

    def fetched_by_another(self, request: Request) -> bool:
        """Whether another audit of this very URL and callback is in flight (``lifo-c16`` on
        the real servers' trees: one to three URLs a crawl audited twice at once); else the
        audit is entered as in flight, under a serial its retries and re-sends carry.
        Excluded as in :meth:`vouched_since`. A first audit whose answer never comes back
        (a component swallowed it) leaves its URL's later audits kept as drops, against a
        delivered page and released if the rule is revoked, as an unaudited drop is. Also
        kept: an audit of a URL and callback an earlier audit found no page at
        (:meth:`no_page`; ``urlnorm/audits_no_page``)."""
        audit = request.meta[M.AUDIT]
        if audit.get("serial") is not None:
            return False  # this audit, sent again (retried, or its HEAD followed by a GET)
        desk = self.desk
        dedup = desk.dedup
        same = same_url_and_callback(request)
        # The stat a kept audit counts under: its URL in flight, or found no page at.
        kept_as = (
            "urlnorm/audits_in_flight_twice"
            if same in self._in_flight
            else "urlnorm/audits_no_page"
            if same in self._no_page
            else None
        )
        if (
            kept_as is not None
            and dedup.depths is None
            and not dedup.forbidden.active
            and not dedup.distributed
            and dedup.delivered_here(audit["key"])
            and desk.keep_as_drop(request, audit)
        ):
            dedup.count(kept_as)
            return True
        serial = next(self._serials)
        request.meta[M.AUDIT] = {**audit, "serial": serial}
        self._in_flight[same] = serial
        if len(self._in_flight) > _IN_FLIGHT_REMEMBERED:
            self._in_flight.popitem(last=False)
        return False

    def done(self, request: Request) -> None:
        """A response or an error came back for ``request``: if an audit in flight, it is no more."""
        audit = request.meta.get(M.AUDIT)
        serial = audit.get("serial") if audit is not None else None
        if serial is not None:
            same = same_url_and_callback(request)
            if self._in_flight.get(same) == serial:
                del self._in_flight[same]

    def no_page(self, request: Request) -> None:
        """The audit ``request`` answered, for good, that there is no page at its URL
        (:data:`NO_PAGE_STATUSES`, no redirect held): a later audit of that URL and
        callback is kept as its drop (:meth:`fetched_by_another`). The real servers'
        crawls audited such a URL once per rule scope that dropped it (Apache's ``300``
        for ``/vim/Cmdline``, nginx's ``404`` for ``Index.html``: two or three fetches
        where stock makes one). Not a ``HEAD`` audit's answer: a server may refuse ``HEAD``."""
        if request.method != "GET":
            return
        put_recent(self._no_page, same_url_and_callback(request), None, _NO_PAGE_REMEMBERED)

    def answered_since(self, request: Request) -> bool:
        """Whether this audit's URL was fetched since it was scheduled (another rule's
        audit of it, queued at the same time) and what it answered confirms the drop
        (``urlnorm/audits_answered``)."""
        desk = self.desk
        audit = request.meta[M.AUDIT]
        if not desk.dedup.delivered_here(audit["key"]):
            return False
        own = desk.dedup.keys.static(request).value
        if not desk.answers.answered_before(request, own, audit["key"], audit["reason"]):
            return False
        if not desk.keep_as_drop(request, audit):
            return False  # no room to keep its promise: fetched
        desk.count_answered()
        return True

    def vouched_since(self, request: Request) -> bool:
        """Whether this audit, scheduled until its rule was vouched for where it is, is
        needed no more: it has been since (see ``AuditChoice.vouched_since``;
        ``urlnorm/audits_vouched_since``). Not where depths or ``robots.txt`` copies keep
        books per key, nor distributed, as for the other settlements of a request without
        its own page (``LateChecks.pending_as_written``): an audit sent hands its page to
        the spider at its own depth, and a spelling ``robots.txt`` allows may stand for one
        it forbids. Kept as drops there, such audits lost ``/Docs/Pricing-7.aspx`` of an
        IIS host (differential seed 58289, ``fifo-c1`` with flaky servers, ``DEPTH_LIMIT``,
        ``ROBOTSTXT_OBEY``, ``allowed_domains`` and refresh pages; either exclusion alone
        keeps it)."""
        desk = self.desk
        dedup = desk.dedup
        if dedup.depths is not None or dedup.forbidden.active or dedup.distributed:
            return False
        audit = request.meta[M.AUDIT]
        if not dedup.delivered_here(audit["key"]) or not desk.choice.vouched_since(request, audit):
            return False
        if not desk.keep_as_drop(request, audit):
            return False  # no room to keep its promise: fetched
        dedup.count("urlnorm/audits_vouched_since")
        return True
