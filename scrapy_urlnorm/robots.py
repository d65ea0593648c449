"""Twin hosts whose ``robots.txt`` answers differ are not one site.

``www.h/x`` and ``h/x`` may serve one page, but the page's relative links
resolve on the host it was fetched from, and ``RobotsTxtMiddleware`` checks
each host (and port) against that host's own ``robots.txt``. Stock Scrapy
fetches both spellings and follows each one's links under its own host's rules.
When the twins' answers differ (one forbids ``/help/``; or one failed, and
stock crawls that host as if it had no ``robots.txt``), merging the twins
(``www_alias``) would follow one host's links only, and lose pages the other
host allows.

So, with ``ROBOTSTXT_OBEY``, the answer to each host's ``robots.txt`` is
remembered (a digest of the body, or the status, or the error), and twins
whose answers differ contradict ``www_alias`` on their site: the rule never
activates, or is revoked and what it dropped is released
(``urlnorm/robots_twins_differ``). Found by ``bench_differential.py --robots
--flaky`` (seed 55285: the bare host's ``robots.txt`` failed, the ``www``
twin's forbade the page's links).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import xxhash
from scrapy import Request
from scrapy.http.request import NO_CALLBACK

from .keys import host_of
from .learning import RuleKind

if TYPE_CHECKING:
    from collections.abc import Callable

    from .dedup import Deduplicator

#: Hosts whose answer is remembered (one per host and port the crawl meets).
MAX_HOSTS = 100_000

_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def _host_of(url: str) -> str:
    """``url``'s host and port as the learner keys hosts (lower case, no default port)."""
    parts = urlsplit(url)
    return parts.netloc.lower().removesuffix(_DEFAULT_PORTS.get(parts.scheme, ""))


class RobotsTwins:
    """Remembers each host's ``robots.txt`` answer and calls ``contradict(bare_host,
    kind, url, twin_url)`` when a host's answer differs from its twin's."""

    def __init__(self, contradict: Callable[[str, str, str, str], None], count: Callable[[str], None]) -> None:
        self._contradict = contradict
        self._count = count
        self._answers: dict[str, int | str] = {}

    @staticmethod
    def is_robots_request(request: Request) -> bool:
        """``RobotsTxtMiddleware``'s own request (``NO_CALLBACK``, not obeying itself)."""
        return request.callback is NO_CALLBACK and bool(request.meta.get("dont_obey_robotstxt"))

    def answered(self, request: Request, status: int, body: bytes) -> None:
        self._observe(request, xxhash.xxh3_64_intdigest(body) if status == 200 else f"status {status}")

    def failed(self, request: Request, error: BaseException) -> None:
        self._observe(request, f"error {type(error).__name__}")

    def _observe(self, request: Request, answer: int | str) -> None:
        first = (request.meta.get("redirect_urls") or [request.url])[0]  # the host it was asked for
        if urlsplit(first).path != "/robots.txt" or len(self._answers) >= MAX_HOSTS:
            return
        host = _host_of(first)
        self._answers[host] = answer
        twin = host[4:] if host.startswith("www.") else f"www.{host}"
        other = self._answers.get(twin)
        if other is not None and other != answer:
            self._count("urlnorm/robots_twins_differ")
            bare = host.removeprefix("www.")
            self._contradict(bare, RuleKind.WWW_ALIAS.value, f"http://{host}/robots.txt", f"http://{twin}/robots.txt")


#: ``RobotsTxtMiddleware``'s ``IgnoreRequest`` message.
FORBIDDEN = "Forbidden by robots.txt"
#: Parent keys whose other spellings were sent for a forbidden link (once each).
MAX_PARENTS = 100_000


class ForbiddenSpellings:
    """A link ``robots.txt`` forbids may be allowed as another page spelled it.

    ``robots.txt`` rules name spellings (``Disallow: /Docs/x``), and a relative
    link is spelled by the page it is on: ``x`` on ``/Docs/`` is the forbidden
    ``/Docs/x``, on ``/docs/`` the allowed ``/docs/x``. Stock fetches both
    spellings of the page and reaches ``/docs/x``; the add-on fetched one and
    dropped the other under a learned rule (case, default page, slash...). So
    when a request is forbidden, the spellings of its parent page (its
    ``Referer``) that learned rules dropped, and that are still parked for
    revocation, are sent after all, past the filter: stock sent them too; and a
    spelling of such a page met later (the parse of the page that links it may
    come after the forbidden request was sent) is fetched, not dropped
    (``Admission``). Once per parent key and spelling, so it cannot feed on
    itself (``urlnorm/robots_parent_spellings``).
    Found by ``bench_differential.py`` with every condition on (seed 58289)."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup
        self._done = dedup.forbidden_parents

    def forbidden(self, request: Request) -> None:
        referer = request.headers.get(b"Referer")
        if not referer or len(self._done) >= MAX_PARENTS:
            return
        dedup = self.dedup
        try:
            parent = dedup.fingerprint(Request(referer.decode("latin-1")))
        except ValueError:  # a Referer that is no URL (a referrer policy may send anything)
            return
        if parent.learned is None or parent.url is None or parent.learned in self._done:
            return  # no learned rule merged spellings of the parent
        self._done.add(parent.learned)
        ledger = dedup.ledger
        for drop in ledger.parked_of(host_of(parent.url)):
            again = drop.request
            if dedup.fingerprint(again).learned == parent.learned:
                ledger.discharge(drop)
                dedup.count("urlnorm/robots_parent_spellings")
                dedup.reschedule_request(again.replace(dont_filter=True))  # type: ignore[misc]
