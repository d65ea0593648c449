"""An audit's held redirect: where it leads, and following it as stock Scrapy would.

An audit is sent with ``dont_redirect`` (see :func:`~scrapy_urlnorm.audits.mark_audit`):
where its redirect points is the answer. When that answer does not confirm the drop,
the redirect is followed after all. The crawler's own ``RedirectMiddleware`` (or
``MetaRefreshMiddleware``, for a refresh) builds the request for its target from the
audit as it was dropped, so headers, proxies and the redirect budget are handled as
for any redirect, and the audited URL is not fetched a second time to get there.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware, RedirectMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.utils.response import get_meta_refresh

from . import meta as M
from .audits import as_dropped, unmarked

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler
    from scrapy.http import Response


class HeldRedirects:
    """Reads and follows the redirects audits hold, for one crawler."""

    def __init__(self, crawler: Crawler | None, meta_refresh: tuple[list[str], float] | None) -> None:
        self.crawler = crawler
        #: ``MetaRefreshMiddleware``'s settings (ignored tags, longest delay it follows), if it is on.
        self.meta_refresh = meta_refresh

    def target(self, response: Response) -> str | None:
        """Where ``response`` to an audit that held redirects (``dont_redirect``) would have led."""
        return redirect_target(response, self.meta_refresh)

    @staticmethod
    def as_sent(audit: Request) -> Request:
        """``audit`` as the ordinary request it was dropped as (``GET``, never shortcut:
        its redirect goes through the filter as the link's own would)."""
        plain = as_dropped(audit)
        if plain.method == "HEAD":
            plain = plain.replace(method="GET")
        plain.meta[M.NO_SHORTCUT] = True
        return plain

    def onward(self, audit: Request, response: Response, record: Callable[[Request], None]) -> Request:
        """What follows ``audit`` whose held redirect (``response``) did not confirm its
        drop: the redirect's target, built by :meth:`follow` from the request the audit
        was, through the filter as stock's redirect goes. The audited URL represents its
        keys (``record``), as the request it was would, so the target continues that claim
        (its drop under a rule verified on every drop is then checked). Sent again as
        written instead, the URL was fetched twice, and its redirect, built from a
        ``dont_filter`` request, passed the filter: a page answered at its target again
        (seed 169824, ``--sessions``: a new session in its links each time, and the crawl
        ran away). Without a redirect middleware to build it, the audit is sent again as
        the plain request it was, as stock Scrapy would send it."""
        plain = self.as_sent(audit)
        followed = self.follow(plain, response)
        if followed is not None:
            record(plain)
            return followed
        meta = {**unmarked(audit.meta), M.NO_SHORTCUT: True}
        method = "GET" if audit.meta[M.AUDIT].get("head") else audit.method
        return audit.replace(method=method, dont_filter=True, meta=meta)

    def follow(self, plain: Request, response: Response) -> Request | None:
        """The request for where ``response`` leads, built by the crawler's redirect
        middleware from ``plain`` (:meth:`as_sent`); ``None`` when that middleware is
        off or declines (the caller then sends the audit again)."""
        kind = RedirectMiddleware if 300 <= response.status < 400 else MetaRefreshMiddleware
        redirector = self._middleware(kind)
        if redirector is None:
            return None
        try:
            if _wants_spider(redirector.process_response):  # (Scrapy before 2.14)
                assert self.crawler is not None
                followed = redirector.process_response(plain, response, self.crawler.spider)
            else:
                followed = redirector.process_response(plain, response)
        except IgnoreRequest:
            return None  # past REDIRECT_MAX_TIMES: sent again, it is ignored as stock ignores it
        return followed if isinstance(followed, Request) else None

    def _middleware(self, kind: type[Any]) -> Any:
        engine = getattr(self.crawler, "engine", None)
        downloader = getattr(engine, "downloader", None)
        manager = getattr(downloader, "middleware", None)
        return next((mw for mw in getattr(manager, "middlewares", ()) if isinstance(mw, kind)), None)


def redirect_target(response: Response, meta_refresh: tuple[list[str], float] | None) -> str | None:
    """Where Scrapy's redirect middlewares would lead from ``response``: a ``3xx``'s
    ``Location``, or a ``<meta http-equiv="refresh">`` that ``MetaRefreshMiddleware``
    (its settings ``meta_refresh``, ``None`` when it is off) would follow. For an audit,
    a stub only a refresh leads on from is not a page (seed 58253 lost the page only
    its refresh reached)."""
    if 300 <= response.status < 400 and b"Location" in response.headers:
        return response.urljoin((response.headers.get(b"Location") or b"").decode("latin-1"))
    if meta_refresh is None or response.status != 200 or not isinstance(response, HtmlResponse):
        return None
    interval, url = get_meta_refresh(response, ignore_tags=meta_refresh[0])
    return url if url and interval is not None and interval < meta_refresh[1] else None


def _wants_spider(method: Any) -> bool:
    parameter = inspect.signature(method).parameters.get("spider")
    return parameter is not None and parameter.default is inspect.Parameter.empty
