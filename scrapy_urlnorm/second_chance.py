"""A second round of retries for a request whose page a flaky server kept back.

Stock Scrapy fetches every spelling of a page it meets, and on a flaky server
each spelling is one more try at the page: ``/a`` failed three times with a
``503``, ``/a:80`` (linked from a page fetched under a spelling of its own)
came later and got through. The add-on fetches one spelling, so what was a
page for stock can be a failure for it, though nothing it dropped was dropped
against the failure (the ledger releases those): the other spellings were
never met, because the pages linking them were duplicates.

So a request that still fails transiently after Scrapy's own retries (a status
of ``RETRY_HTTP_CODES`` or an error of ``RETRY_EXCEPTIONS``, as
``RetryMiddleware`` decides) is sent once more in its place, with a fresh
retry budget and ``RETRY_PRIORITY_ADJUST`` (as a retry is): the request is
replaced, not failed, so what was dropped against it stays dropped until the
second round settles. Where Scrapy's retries are off (``RETRY_ENABLED = False``)
or fewer (``RETRY_TIMES`` under 2), the second chance sends rounds until the URL had
``MIN_TRIES`` requests from it: a single request was one try where stock, meeting
the page under more spellings, had more (with query pages and retries off, seeds
161916-161996 lost pages that failed three times, which stock got at a third
spelling; with ``RETRY_TIMES = 0``, seed 162706).
An audit gets one too: where every drop of its rule is
verified, the audit is the only fetch of what may be a page of its own. Once per
URL as stock tells URLs apart (its request fingerprint: each spelling stock would
fetch gets its own, as a spelling released after its key failed did not while the
key had had one, and a page that failed once was lost: seed 161023, retries off,
``contact-4`` after ``contact-4?PHPSESSID=...``) and never for a request
marked ``dont_retry``, so it cannot feed on itself, nor for a component's own
request (``callback=NO_CALLBACK``: ``robots.txt``, which stock gives up on). ``URLNORM_SECOND_CHANCE =
False`` turns it off.

An ordinary request on a host whose ``www`` twin is the same site (an active
``www_alias``) whose second round failed too gets one more on that twin
(``respell``), unless the site's redirects lead from there back here: the spelling
stock met on the pages of that twin, which the add-on merged and never read (with
Scrapy's retries off, differential seed 159801 lost ``www.h1.test/help/item-11.html``,
which failed twice while stock got it at ``h1.test``). Its own URL first: with
retries off, seed 161906 lost ``h2.test/list?page=4``, whose second round went to
the twin and failed there, while stock got it by asking the same URL once more.
Not an audit, probe or shortcut: each is about its own URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http.request import NO_CALLBACK
from scrapy.utils.misc import load_object

from .meta import sent_as

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request
    from scrapy.settings import BaseSettings

#: Second chances remembered (URL keys); past this, none is given (counted).
MAX_SECOND_CHANCES = 100_000
#: Requests a second chance spends on a URL at least (Scrapy's default budget, a try
#: and two retries), in rounds of one where Scrapy's retries are off or none.
MIN_TRIES = 3


class SecondChances:
    """Which failures get a second round, and the request sent for it."""

    def __init__(
        self,
        *,
        retry_codes: frozenset[int],
        retry_exceptions: tuple[type[BaseException], ...],
        priority_adjust: int,
        key_of: Callable[[Request], int | None],
        count: Callable[[str], None],
        respell: Callable[[str], str | None] = lambda url: None,
        tries: int = 1,
    ) -> None:
        self.retry_codes = retry_codes
        self.retry_exceptions = retry_exceptions
        self.priority_adjust = priority_adjust
        self._key_of = key_of  # a request's stock fingerprint: asked only of a failure that qualifies
        self._count = count
        self._respell = respell  # (see the module's docstring)
        #: Rounds sent for a URL itself: one, which Scrapy's ``RetryMiddleware``
        #: retries; more where it retries less than ``MIN_TRIES`` in all.
        self.tries = max(1, tries)
        self._given: dict[int, int] = {}  # URL key -> rounds sent for it

    @classmethod
    def from_settings(
        cls,
        settings: BaseSettings,
        key_of: Callable[[Request], int | None],
        count: Callable[[str], None],
        respell: Callable[[str], str | None] = lambda url: None,
    ) -> SecondChances | None:
        if not settings.getbool("URLNORM_SECOND_CHANCE", True):
            return None
        exceptions = tuple(
            load_object(item) if isinstance(item, str) else item for item in settings.getlist("RETRY_EXCEPTIONS")
        )
        # Requests a round is, as RetryMiddleware retries it; rounds enough for MIN_TRIES.
        per_round = 1 + max(0, settings.getint("RETRY_TIMES")) if settings.getbool("RETRY_ENABLED") else 1
        return cls(
            tries=-(-MIN_TRIES // per_round),
            retry_codes=frozenset(int(code) for code in settings.getlist("RETRY_HTTP_CODES")),
            retry_exceptions=exceptions,
            priority_adjust=settings.getint("RETRY_PRIORITY_ADJUST"),
            key_of=key_of,
            count=count,
            respell=respell,
        )

    def after_status(self, request: Request, status: int) -> Request | None:
        """The request to send in place of ``request``, whose final answer was ``status``."""
        return self._second_round(request) if status in self.retry_codes else None

    def after_error(self, request: Request, error: BaseException) -> Request | None:
        """The request to send in place of ``request``, which ended in ``error``."""
        return self._second_round(request) if isinstance(error, self.retry_exceptions) else None

    def _second_round(self, request: Request) -> Request | None:
        if request.meta.get("dont_retry") or request.callback is NO_CALLBACK:
            # NO_CALLBACK: a component's own request (``engine.download``), such as a
            # ``robots.txt``: stock gives up on it after its retries, and so do we.
            # A robots.txt a second round got through would forbid what stock,
            # having none, fetched.
            return None
        key = self._key_of(request)
        if key is None:
            return None
        url = request.url
        rounds = self._given.get(key, 0)
        if rounds >= self.tries:
            # Its own rounds failed too: more on the other twin, where there is one.
            url = self._twin_of(request) or url
            if url == request.url:
                return None
        if len(self._given) >= MAX_SECOND_CHANCES:
            self._count("urlnorm/second_chances_refused")
            return None
        meta = dict(request.meta)
        # A fresh budget for RetryMiddleware; present (at 0), so the request is known
        # for one sent before (``meta.sent_before``), not checked again as new.
        meta["retry_times"] = 0
        again = request.replace(url=url, dont_filter=True, meta=meta, priority=request.priority + self.priority_adjust)
        if url != request.url:
            twin_key = self._key_of(again)
            if twin_key is None or twin_key in self._given:
                return None  # the twin had its rounds: it ends there, not back and forth
            self._given[twin_key] = 1  # (its own failures go on there, then end: the URL had its rounds)
            self._count("urlnorm/second_chances_on_twin")
        else:
            self._given[key] = rounds + 1
        self._count("urlnorm/second_chances")
        return again

    def _twin_of(self, request: Request) -> str | None:
        """The other ``www`` twin's URL for an ordinary ``GET`` (see the module's docstring)."""
        meta = request.meta
        if request.method != "GET" or sent_as(meta) is not None or meta.get("verbatim_url"):
            return None
        return self._respell(request.url)
