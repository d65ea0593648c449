"""Downloader middlewares: ``NormalizeMiddleware`` and ``RedirectLearningMiddleware``."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import xxhash
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response

from .dedup import Deduplicator
from .frontier import RECOVERED_META

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

_LINK_CANONICAL = re.compile(rb"""<link\b[^>]*\brel\s*=\s*["']?canonical\b[^>]*>""", re.IGNORECASE)
_HREF = re.compile(rb"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_HEADER_CANONICAL = re.compile(r"<([^>]*)>\s*;\s*rel\s*=\s*\"?canonical\"?", re.IGNORECASE)
_HEAD_BYTES = 65536
#: On a request sent in the form its host's redirects taught: the URL as written.
SHORTCUT_META = "urlnorm_shortcut_of"
NO_SHORTCUT_META = "urlnorm_no_shortcut"


def canonical_link(response: Response) -> str | None:
    """The URL a ``Link: <...>; rel=canonical`` header or ``<link rel="canonical">`` names."""
    header = response.headers.get("Link")
    if header:
        match = _HEADER_CANONICAL.search(header.decode("latin-1"))
        if match:
            return response.urljoin(match.group(1))
    content_type = response.headers.get("Content-Type", b"")
    if b"html" not in content_type.lower():
        return None
    tag = _LINK_CANONICAL.search(response.body[:_HEAD_BYTES])
    if tag is None:
        return None
    href = _HREF.search(tag.group())
    if href is None:
        return None
    value = next(group for group in href.groups() if group is not None)
    try:
        return response.urljoin(value.decode(response.encoding if hasattr(response, "encoding") else "utf-8"))
    except (UnicodeDecodeError, LookupError, ValueError):
        return None


class NormalizeMiddleware:
    """Completes the dupe filter at download time.

    - Requests Scrapy never shows the dupe filter (``dont_filter=True``: start
      URLs, retries) are recorded as seen, so a later link back to a start URL
      is not fetched again.
    - A start request that was already seen (fetched in an earlier run of a
      ``JOBDIR`` crawl, or linked and fetched before Scrapy got to it) is
      dropped, unless ``URLNORM_REFETCH_START_URLS = True``. Retries and
      redirects are never dropped here.
    - A request queued before its host's learned rules changed is checked
      again against them (``urlnorm/late_filtered``).
    - A request the crash-safe frontier scheduled again after a crash passes:
      it was checked, and found new, by the run that queued it.
    - Every 200 response's body digest (taken here, after decompression) and
      ``rel=canonical`` link go to the learner, and settle audits.
    - Once a host's own redirects taught a canonical form (``/dir`` -> ``/dir/``,
      ``www.h`` -> ``h``), links in the other form are sent in that form
      directly, skipping the redirect (``urlnorm/redirects_shortcut``); if
      that form answers an error, the link is fetched as written after all
      and the rule revoked. ``URLNORM_SHORTCUT_REDIRECTS = False`` turns it off.
    - With ``URLNORM_REWRITE = True``, a request is sent with its normalized
      URL instead of the original (off by default: a server may answer the two
      differently, e.g. when a tracking parameter is required or case matters;
      the rewritten request is rescheduled once, with ``dont_filter=True``).
    """

    def __init__(
        self,
        dedup: Deduplicator,
        *,
        rewrite: bool = False,
        refetch_start_urls: bool = False,
        shortcut_redirects: bool = True,
    ) -> None:
        self.dedup = dedup
        self.rewrite = rewrite
        self.refetch_start_urls = refetch_start_urls
        self.shortcut_redirects = shortcut_redirects

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        return cls(
            Deduplicator.for_crawler(crawler),
            rewrite=settings.getbool("URLNORM_REWRITE"),
            refetch_start_urls=settings.getbool("URLNORM_REFETCH_START_URLS"),
            shortcut_redirects=settings.getbool("URLNORM_SHORTCUT_REDIRECTS", True),
        )

    def process_request(self, request: Request, spider: Spider | None = None) -> Request | None:
        meta = request.meta
        if SHORTCUT_META in meta:
            self.dedup.record(request)  # the taught form is seen: a redirect to it later is a duplicate
            return None
        if meta.get(RECOVERED_META):
            # Scheduled again after a crash: checked (and seen) in the run that queued it.
            self.dedup.record(request)
            return None
        if request.dont_filter:
            if (
                meta.get("is_start_request")
                and not self.refetch_start_urls
                and "retry_times" not in meta
                and "redirect_urls" not in meta
            ):
                reason = self.dedup.check(request)
                if reason is not None:
                    self.dedup.count("urlnorm/start_requests_skipped")
                    raise IgnoreRequest(f"start request already seen ({reason}): {request.url}")
            else:
                self.dedup.record(request)
        else:
            reason = self.dedup.recheck(request)
            if reason is not None:
                raise IgnoreRequest(f"duplicate under rules learned since it was queued ({reason}): {request.url}")
            if self.shortcut_redirects and not meta.get(NO_SHORTCUT_META):
                canonical = self.dedup.canonical_url(request.url)
                if canonical is not None and not self.dedup.audit_shortcut():
                    # The host redirects this form to that one: skip the round
                    # trip. Like a learned drop, the link as written is parked,
                    # to be fetched after all if the rule is ever revoked.
                    self.dedup.park_original(request.replace(meta={**meta, NO_SHORTCUT_META: True}), canonical)
                    self.dedup.count("urlnorm/redirects_shortcut")
                    return request.replace(url=canonical, dont_filter=True, meta={**meta, SHORTCUT_META: request.url})
        if self.rewrite:
            normalized = self.dedup.normalize(request.url)[0]
            if normalized is not None and normalized != request.url:
                self.dedup.count("urlnorm/rewritten")
                return request.replace(url=normalized, dont_filter=True)
        return None

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Request | Response:
        original = request.meta.get(SHORTCUT_META)
        if original is not None and response.status >= 400:
            # The taught form does not exist for this URL: fetch the link as
            # written after all, and tell the learner the rule does not hold.
            self.dedup.count("urlnorm/shortcut_fallbacks")
            self.dedup.shortcut_failed(original, request.url)
            meta = {key: value for key, value in request.meta.items() if key != SHORTCUT_META}
            return request.replace(url=original, dont_filter=True, meta={**meta, NO_SHORTCUT_META: True})
        if response.status == 200:
            try:
                self.dedup.observe_page(
                    request,
                    response.url,
                    xxhash.xxh3_64_intdigest(response.body),
                    length=len(response.body),
                    server=response.headers.get("Server", b"").decode("latin-1"),
                    canonical=canonical_link(response),
                )
            except Exception:  # learning must never cost the response
                logger.exception("scrapy-urlnorm could not learn from %s", response)
        return response


class RedirectLearningMiddleware:
    """Shows every raw redirect (3xx with a ``Location``) to the learner.

    It must sit between Scrapy's ``RedirectMiddleware`` (600) and the
    downloader, so it sees redirects before they are followed, including
    those whose target the dupe filter will drop. The add-on puts it at 650.
    """

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(Deduplicator.for_crawler(crawler))

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        if 300 <= response.status < 400 and b"Location" in response.headers:
            try:
                location = response.headers[b"Location"].decode("latin-1")
                self.dedup.observe_redirect(request.url, response.urljoin(location))
            except Exception:  # learning must never cost the response
                logger.exception("scrapy-urlnorm could not learn from redirect %s", response)
        return response
