"""Pages whose links were spelled for a client without the session cookie.

A site that keeps its session in a cookie, and in its links for a client that
has none yet (Tomcat's ``;jsessionid=``, PHP's ``?PHPSESSID=`` with
``use_trans_sid``), answers the first request with a ``Set-Cookie`` and every
link spelled with that session. Once the cookie is in Scrapy's jar, the same page
answers with plain links. The page is the same (its digest leaves the session out
of links), but a ``CrawlSpider`` reads the *spelling* of each link: an item rule
whose pattern matches ``/help/faq.html`` and not ``/help/faq.html;jsessionid=...``
sends only the plain spelling to its callback. Stock Scrapy fetches another
spelling of that first page later (``h:80/app/``), with the cookie, meets the
plain links, and collects the item; the add-on dropped that spelling against the
page it already had, met only the session spellings, which the follow rule took,
and lost the item (frameworks webs with ``--rules --cookies``, seeds 584112 and
584123; random webs with ``--sessions``, seed 164706).

So, with cookies on and a ``CrawlSpider``, a page whose answer set a cookie the
request did not send and whose body repeats its value (the session written into
its links) is fetched once more the next time it is linked (now with the cookie):
its page with plain links goes to the spider. So is one whose body repeats a session
its URL carried and its cookies did not: Tomcat keeps writing a session it was given
in the URL, and sets no cookie for it (not a new session), and a crawl resumed with an
empty cookie jar sends its queued ``;jsessionid=`` spellings so (frameworks seed 585214
with ``--kills 2``). It is known by the keys of every URL of its redirect chain:
links name it as they did, not as it redirected (ASP.NET's cookie probe; random seed
166918). Under any spelling, its very URL
too: stock may meet the other spelling through a page the add-on dropped, as
``h:80/y``, whose relative links spell ``h:80/x/`` where the add-on, which read
``h/y``, meets ``h/x/`` as written again (seeds 165309, 165318). That request is
sent as written and is not dropped later (at download time, or by a twin probe's
``304``). Once per page, and only for such answers, so it ends (the second
request carries the cookie, if the site ever set one).

Waiting for another link is not enough where every link of a host carries the session:
a crawl resumed with an empty jar may have queued nothing else, each answered with
session links and no cookie, so no request ever carries one (frameworks seed 585852).
A page whose links repeat the session its URL carried, answered without a cookie, is
asked for at once without that session (:meth:`SessionLinkedPages.primer`): the server
opens a new one and sets its cookie; answered so, the same request goes once more, with
the cookie (:meth:`SessionLinkedPages.with_cookie`), and its plain links reach the
spider. Once per URL and run, and the second is never followed by a third.

A ``JOBDIR`` crawl keeps these pages in ``urlnorm.session_links``: every run starts
with an empty cookie jar, so a page may open its session in one run and be linked
again only in the next. And a refetch let through in one run and answered in a later
one went out without the cookie again (random seed 166456 with ``--stops 2``, where
the queue's refetch of ``h/#section-2`` was the first request of its host after a
stop): its page waits for another, once for each restart that came between, so this
ends too.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING
from urllib.parse import unquote

from scrapy.spiders import CrawlSpider
from scrapy.utils.httpobj import urlparse_cached

from . import meta as M
from .params import is_session_param
from .persistence import RecordLog, key_of_words, key_words

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from scrapy import Request
    from scrapy.http import Response

#: Keys remembered at once (least recently noted go first): a crawl meets few such pages.
MAX_PAGES = 20_000
#: The ``JOBDIR`` file: one record per change (a run starting, a page waiting, a page refetched).
SESSION_LINKS_FILE = "urlnorm.session_links"
_RUN, _WAITING, _DONE = 0, 1, 2
#: Shorter cookie values are no evidence that the body repeats a session (``lang=en``).
MIN_SESSION_LENGTH = 8
#: What a primer does not take from the request it asks for again: where that one was
#: redirected from and how often it was retried (a primer is a request of its own).
_NOT_INHERITED = frozenset({"redirect_urls", "redirect_times", "redirect_ttl", "redirect_reasons", "retry_times"})


def session_written_in(response: Response, sent: bytes = b"", url: str = "") -> bool:
    """Whether ``response`` sets a cookie whose value its body repeats, one the request
    did not send (its ``Cookie`` header, ``sent``): a session the server wrote into the
    page's links for a client that keeps no such cookie yet. Or the request's ``url``
    carries a session its body repeats and its cookies do not: the server keeps writing
    a session it was given in the URL (Tomcat, for ``;jsessionid=`` without the cookie,
    sets none), as it does for a crawl resumed with an empty cookie jar."""
    return cookie_session_written(response, sent) or url_session_written(response, sent, url)


def cookie_session_written(response: Response, sent: bytes = b"") -> bool:
    """Whether ``response`` sets a cookie the request did not send and its body repeats."""
    body = response.body
    for header in response.headers.getlist(b"Set-Cookie"):
        value = header.partition(b";")[0].partition(b"=")[2].strip(b'" ')
        if len(value) >= MIN_SESSION_LENGTH and value not in sent and value in body:
            return True
    return False


def url_session_written(response: Response, sent: bytes, url: str) -> bool:
    """Whether ``url`` carries a session the body of ``response`` repeats and ``sent`` does not."""
    for token in sessions_in(url):
        value = token.encode("utf-8", "surrogatepass")
        if value not in sent and value in response.body:
            return True
    return False


def sessions_in(url: str) -> list[str]:
    """The session ids ``url`` carries: path parameters and query parameters that are
    well-known session ids (by name or by a token's look), of :data:`MIN_SESSION_LENGTH`
    characters or more."""
    if ";" not in url and "?" not in url:
        return []
    head, _, query = url.partition("#")[0].partition("?")
    pairs = [part.partition("=") for segment in head.split("/") for part in segment.split(";")[1:]]
    pairs += [part.partition("=") for part in query.split("&")]
    return [value for name, equals, value in pairs if equals and _is_session(name, value)]


def without_sessions(url: str) -> str:
    """``url`` less the session ids :func:`sessions_in` finds in it (path parameters, query
    pairs): what a client that keeps no session asks for, answered with a new one."""
    head, hash_, fragment = url.partition("#")
    path, question, query = head.partition("?")
    segments = []
    for segment in path.split("/"):
        name, *params = segment.split(";")
        kept = [param for param in params if not _is_session(*param.split("=", 1))] if params else []
        segments.append(";".join([name, *kept]))
    pairs = [pair for pair in query.split("&") if not _is_session(*pair.split("=", 1))] if question else []
    url = "/".join(segments) + ("?" + "&".join(pairs) if any(pairs) else "")
    return url + hash_ + fragment


def _is_session(name: str, value: str = "", *_: str) -> bool:
    return len(value) >= MIN_SESSION_LENGTH and is_session_param(unquote(name).lower(), value)


def reads_link_spellings(request: Request, spider: object) -> bool:
    """Whether ``request``'s answer goes to a ``CrawlSpider``'s rules, which send each
    link to a callback by how it is spelled (its own callback's, or, for a start
    request without one, the spider's)."""
    owner = getattr(request.callback, "__self__", None) if request.callback is not None else spider
    return isinstance(owner, CrawlSpider)


class SessionLinkedPages:
    """Keys of pages delivered with links spelled for a cookieless client, each
    fetched once more under another spelling (see the module docstring)."""

    def __init__(
        self,
        spider: Callable[[], object] = lambda: None,
        max_pages: int = MAX_PAGES,
        path: str | Path | None = None,
        bits: int = 64,
    ) -> None:
        #: The crawl's spider, when asked (a start request has no callback of its own).
        self.spider = spider
        self._waiting: OrderedDict[int, None] = OrderedDict()
        self._done: OrderedDict[int, None] = OrderedDict()
        #: URLs (hashed) asked for without their session in this run (see :meth:`primer`),
        #: and hosts that answered such a request with no cookie: they keep sessions in URLs only.
        self._primed: set[int] = set()
        self._no_cookies: set[str] = set()
        self.max_pages = max_pages
        #: This run of the crawl (1, 2, ... with ``JOBDIR``): each starts with an empty cookie jar.
        self.run = 1
        self._wide = bits == 128
        self._log = RecordLog(path, "<BQQ" if self._wide else "<BQ")
        for op, *words in self._log.open():
            key = key_of_words(tuple(words), self._wide)
            if op == _RUN:
                self.run += 1
            elif op == _WAITING:
                self._wait(key)
            elif op == _DONE:
                self._settle(key)
        self._write(_RUN, 0)

    def _write(self, op: int, key: int) -> None:
        self._log.append(op, *key_words(key, self._wide))

    def _wait(self, key: int) -> None:
        self._done.pop(key, None)
        self._waiting[key] = None
        self._waiting.move_to_end(key)
        while len(self._waiting) > self.max_pages:
            self._waiting.popitem(last=False)

    def _settle(self, key: int) -> None:
        self._waiting.pop(key, None)
        self._done[key] = None
        while len(self._done) > self.max_pages:
            self._done.popitem(last=False)

    def close(self) -> None:
        self._log.close()

    def answered(self, request: Request, response: Response, keys: Callable[[], tuple[int, ...]]) -> Request | None:
        """A page delivered to ``request``: remembered under ``keys()`` (made only then) if
        its answer goes to a ``CrawlSpider`` and its links carry a session spelled for a
        client without the cookie (one the answer set, or one its URL carried: see
        :func:`session_written_in`); and the request to send for it at once, if any
        (:meth:`primer`, :meth:`with_cookie`)."""
        sent = request.headers.get(b"Cookie") or b""
        by_cookie = cookie_session_written(response, sent)
        by_url = not by_cookie and url_session_written(response, sent, request.url)
        if (by_cookie or by_url) and reads_link_spellings(request, self.spider()):
            self.remember(keys(), request)
            if by_url:
                return self.primer(request)
        return self.with_cookie(request, by_cookie)

    def remember(self, keys: tuple[int, ...], request: Request | None = None) -> None:
        """The keys of such a page, delivered to ``request``, to be fetched once more,
        unless that was done in this run: a refetch let through in an earlier run left
        without the cookie (a restart emptied the jar), so its page waits again."""
        rearm = request is not None and 0 < refetched_in(request) < self.run
        for key in keys:
            if key in self._waiting or (key in self._done and not rearm):
                continue
            self._wait(key)
            self._write(_WAITING, key)

    def refetch(self, keys: tuple[int, ...] | int, request: Request | None = None) -> bool:
        """Whether ``request``, a spelling of the page of ``keys`` (or its very URL, linked
        again), is to be fetched rather than dropped: true once per page, then the page
        is settled as any other. The request is marked (:func:`refetching`), so that the
        filter's next check of it, under its host's learned key, lets it through too."""
        keys = (keys,) if isinstance(keys, int) else keys
        if not any(key in self._waiting for key in keys):
            return False
        for key in keys:
            if key not in self._done:
                self._settle(key)
                self._write(_DONE, key)
        if request is not None:
            # As written: its taught form may be the page's own URL, a duplicate by then.
            request.meta[M.SESSION_REFETCH] = self.run  # (the run whose jar it expects)
            request.meta[M.NO_SHORTCUT] = True
        return True

    def primer(self, request: Request) -> Request | None:
        """For a page whose links repeat the session its URL carried, answered without a
        cookie (Tomcat keeps writing a ``;jsessionid=`` it was given, and sets none), a
        request for its URL without the session: answered with a new session and its
        cookie, then fetched once more with it (:meth:`with_cookie`), so its plain links
        reach the spider. Waiting for another link is not enough there: a crawl resumed
        with an empty jar queued the host's links with that session, so each is answered
        alike, and the host may set no cookie before the crawl ends (frameworks seed
        585852, killed twice). Once per page and run; ``None`` where that was done."""
        if M.SESSION_PRIMER in request.meta:
            return None
        url = without_sessions(request.url)
        mark = hash(url)
        if url == request.url or mark in self._primed or len(self._primed) >= self.max_pages:
            return None
        if urlparse_cached(request).netloc in self._no_cookies:
            return None  # (it never sets one: every page would cost a request, for nothing)
        self._primed.add(mark)
        meta = {key: value for key, value in request.meta.items() if key not in _NOT_INHERITED}
        return self._marked(request.replace(url=url, meta=meta, dont_filter=True), 1)

    def with_cookie(self, request: Request, cookie_set: bool) -> Request | None:
        """A :meth:`primer` answered with a new session's cookie (``cookie_set``): the same
        request once more, now that the jar has the cookie (``None`` for any other answer)."""
        if request.meta.get(M.SESSION_PRIMER) != 1:
            return None
        if not cookie_set:
            if len(self._no_cookies) < self.max_pages:
                self._no_cookies.add(urlparse_cached(request).netloc)
            return None
        return self._marked(request.replace(dont_filter=True), 2)

    def _marked(self, request: Request, stage: int) -> Request:
        request.meta[M.SESSION_PRIMER] = stage
        request.meta[M.SESSION_REFETCH] = self.run  # fetched, never dropped at download time
        request.meta[M.NO_SHORTCUT] = True
        return request

    def __len__(self) -> int:
        return len(self._waiting) + len(self._done) + len(self._primed)


def refetched_in(request: Request) -> int:
    """The run that let ``request`` through to fetch its page again (0: none; see
    :meth:`SessionLinkedPages.refetch`). Marked on the request, so that it survives a
    ``JOBDIR`` queue."""
    return int(request.meta.get(M.SESSION_REFETCH) or 0)


def refetching(request: Request) -> bool:
    """Whether ``request`` was let through to fetch its page again: it is fetched, not
    dropped or held later."""
    return refetched_in(request) > 0
