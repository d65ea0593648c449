"""Downloader middlewares: ``NormalizeMiddleware`` and ``RedirectLearningMiddleware``."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

from scrapy import Request as ScrapyRequest
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Response
from scrapy.http.request import NO_CALLBACK

from . import meta as M
from .audit_gate import NO_PAGE_STATUSES
from .bodiless import BodilessAnswers, LateDuplicate, content_location
from .dedup import Deduplicator
from .digests import page_digest
from .held_redirects import HeldRedirects, redirect_target
from .redirect_verdicts import REDIRECT_AGREES
from .robots import FORBIDDEN, ForbiddenSpellings, RobotsTwins
from .second_chance import SecondChances
from .taught_forms import TaughtForms

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

_LINK_CANONICAL = re.compile(rb"""<link\b[^>]*\brel\s*=\s*["']?canonical\b[^>]*>""", re.IGNORECASE)
_HREF = re.compile(rb"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_HEADER_CANONICAL = re.compile(r"<([^>]*)>\s*;\s*rel\s*=\s*\"?canonical\"?", re.IGNORECASE)
_HEAD_BYTES = 65536


def canonical_link(response: Response) -> str | None:
    """The URL a ``Link: <...>; rel=canonical`` header or ``<link rel="canonical">`` names."""
    header = response.headers.get("Link")
    if header:
        match = _HEADER_CANONICAL.search(header.decode("latin-1"))
        if match:
            return response.urljoin(match.group(1))
    content_type = response.headers.get("Content-Type") or b""
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


def _entity_tag(response: Response) -> str | None:
    """The response's ``ETag``, if it has a plausible one (bounded: it is remembered)."""
    tag = response.headers.get(b"ETag")
    if not tag or len(tag) > 200:
        return None
    return tag.decode("latin-1")


class NormalizeMiddleware:
    """Completes the dupe filter at download time, and settles what was dropped.

    - Requests Scrapy never shows the dupe filter (``dont_filter=True``: start
      URLs, retries) represent their keys, so a later link back to a start URL
      is not fetched again.
    - A start request that was already seen (fetched in an earlier run of a
      ``JOBDIR`` crawl, or linked and fetched before Scrapy got to it) is
      dropped, unless ``URLNORM_REFETCH_START_URLS = True``. Retries and
      redirects are never dropped here.
    - A request queued before its host's learned rules changed is checked
      again against them (``urlnorm/late_filtered``). An audit whose URL was
      fetched since it was queued (another rule's audit of it) is settled by
      that answer when it confirms the drop, not fetched again
      (``urlnorm/audits_answered``).
    - Every final response or error settles the claim its request holds: a
      2xx delivers it; anything else releases what was dropped against it.
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
      Requests with ``meta["verbatim_url"]`` are never rewritten.
    """

    def __init__(
        self,
        dedup: Deduplicator,
        *,
        rewrite: bool = False,
        refetch_start_urls: bool = False,
        shortcut_redirects: bool = True,
        second_chances: SecondChances | None = None,
        robots_twins: RobotsTwins | None = None,
        forbidden_spellings: ForbiddenSpellings | None = None,
        meta_refresh: tuple[list[str], float] | None = None,
        allowed_domains: Callable[[], object] = lambda: None,
        crawler: Crawler | None = None,
    ) -> None:
        self.dedup = dedup
        self.refetch_start_urls = refetch_start_urls
        self.forms = TaughtForms(dedup, shortcuts=shortcut_redirects, rewrite=rewrite, allowed_domains=allowed_domains)
        self.second_chances = second_chances
        self.robots_twins = robots_twins
        self.forbidden_spellings = forbidden_spellings
        self.held = HeldRedirects(crawler, meta_refresh)
        self.answers = BodilessAnswers(dedup)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        dedup = Deduplicator.for_crawler(crawler)
        robots = settings.getbool("ROBOTSTXT_OBEY")
        return cls(
            dedup,
            rewrite=settings.getbool("URLNORM_REWRITE"),
            refetch_start_urls=settings.getbool("URLNORM_REFETCH_START_URLS"),
            shortcut_redirects=settings.getbool("URLNORM_SHORTCUT_REDIRECTS", True),
            second_chances=SecondChances.from_settings(
                settings,
                lambda r: int.from_bytes(dedup.stock_fingerprint(r)[:8], "big"),
                dedup.count,
                dedup.responses.other_twin,
            ),
            robots_twins=robots_twins_for(dedup) if robots else None,
            forbidden_spellings=dedup.forbidden if dedup.forbidden.active else None,
            meta_refresh=(settings.getlist("METAREFRESH_IGNORE_TAGS"), settings.getfloat("METAREFRESH_MAXDELAY"))
            if settings.getbool("METAREFRESH_ENABLED")
            else None,
            allowed_domains=lambda: getattr(getattr(crawler, "spider", None), "allowed_domains", None),
            crawler=crawler,
        )

    def process_request(self, request: Request, spider: Spider | None = None) -> Request | None:
        meta = request.meta
        if M.own_question(meta):
            return None  # our own question to the host: no claim, no check
        if request.callback is NO_CALLBACK:
            # A component's own download (robots.txt, a media pipeline's file), outside the
            # scheduler, whose answer (and redirects) never reach the spider: stock's filter
            # never sees it, nor do we. Taken for a page, a robots.txt redirected to the home
            # page had the spider's link to it dropped (wild seed 1412).
            return None
        if M.AUDIT in meta:
            needless = self.dedup.audits.gate.needless(request)
            if needless is not None:
                raise LateDuplicate(f"{needless}: {request.url}")
            if self.dedup.late.pending_as_written(request):
                raise LateDuplicate(f"audit of a URL pending or delivered as an ordinary request: {request.url}")
            self.dedup.audits.cheap.condition(request)
        if TaughtForms.sent_in_place(request):
            written, reason = self.forms.in_place(request)
            if reason is not None:
                raise LateDuplicate(reason)
            return written
        if request.dont_filter:
            if (
                meta.get("is_start_request")
                and not meta.get(M.RECOVERED)  # the representative itself, in flight at a crash
                and not self.refetch_start_urls
                and not M.sent_before(meta)
                and "redirect_urls" not in meta
            ):
                reason = self.dedup.check(request)
                if reason is not None:
                    self.dedup.count("urlnorm/start_requests_skipped")
                    raise LateDuplicate(f"start request already seen ({reason}): {request.url}")
            elif meta.get(M.AS_WRITTEN) and "redirect_urls" in meta:
                # Our own release went past the filter, not where it redirects (/x/ -> /x,
                # delivered already): that is checked as any redirect target is.
                reason = self.dedup.check(request)
                if reason is not None:
                    raise LateDuplicate(f"redirect of a request released as written ({reason}): {request.url}")
            else:
                self.dedup.record(request)
        else:
            reason = self.dedup.late.recheck(request)
            if reason is not None:
                raise LateDuplicate(f"duplicate under rules learned since it was queued ({reason}): {request.url}")
            if M.AUDIT not in meta and self.dedup.late.audited_meanwhile(request):
                raise LateDuplicate(f"downloaded by an audit while it was queued: {request.url}")
            if M.AUDIT in meta:  # its drop is to be verified, and can be cheaply
                self.dedup.audits.cheap.condition(request)
            form, reason = self.forms.shortcut(request)
            if reason is not None:
                raise LateDuplicate(reason)
            if form is not None:
                return None if form is request else form
            if (
                self.dedup.twins is not None
                and M.AUDIT not in meta
                and "redirect_urls" not in meta
                and not self.forms.rewrite
            ):
                self.dedup.twins.condition(request)
        return self.forms.rewritten(request)

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Request | Response:
        status = response.status
        if self.robots_twins is not None and RobotsTwins.is_robots_request(request):
            self.robots_twins.answered(request, status, response.body)
        if request.callback is NO_CALLBACK:
            return response  # not the spider's page (see process_request)
        self.answers.own_question(request, response)
        audit = request.meta.get(M.AUDIT)
        if audit is not None:
            self.dedup.audits.gate.done(request)
        if self.second_chances is not None and status >= 400:
            # Before a shortcut's fallback: its taught form was only unlucky. An audit too:
            # where every drop is verified, it is the only fetch of what may be a page.
            again = self.second_chances.after_status(request, status)
            if again is not None:
                return again  # in its place: what was dropped against it waits on
        if status >= 400:
            fallback = self.forms.after_error(request)
            if fallback is not None:
                return fallback  # the taught form does not exist for this URL: the link as written
        elif status < 300:
            self.forms.after_success(request, response.url)
        held_target = self.held.target(response) if audit is not None and audit["held_redirect"] else None
        if audit is not None and held_target is None and status in NO_PAGE_STATUSES:
            self.dedup.audits.gate.no_page(request)
        in_full = self.answers.in_headers(request, response, audit, held_redirect=held_target is not None)
        if in_full is not None:
            return in_full
        if held_target is not None and audit is not None:
            verdict = self.dedup.audits.redirected(request, held_target)
            if verdict == REDIRECT_AGREES:
                return response
            return self.held.onward(request, response, self.dedup.record)
        try:
            # (keys are made only for such a page: cookies are on in most crawls)
            session_links = self.dedup.session_links
            if status == 200 and session_links is not None and audit is None:
                again = session_links.answered(request, response, lambda: self._page_keys(request))
                if again is not None and self.dedup.reschedule_request is not None:
                    self.dedup.count("urlnorm/session_links_primed")
                    self.dedup.reschedule_request(again)
            if status == 200:
                self.dedup.responses.observe_page(
                    request,
                    response.url,
                    page_digest(response.body, html=isinstance(response, HtmlResponse), url=response.url),
                    length=len(response.body),
                    server=(response.headers.get("Server") or b"").decode("latin-1"),
                    canonical=canonical_link(response),
                    tag=_entity_tag(response),
                    location=content_location(response),
                    relative_links=self.dedup.responses.links_by_directory(response),
                )
            if 200 <= status < 300:
                self.dedup.settling.settle(request, delivered=True)
            else:
                self.dedup.settling.settle(
                    request, delivered=False, why="redirect" if 300 <= status < 400 else "status"
                )
        except Exception:  # our bookkeeping must never cost the response
            logger.exception("scrapy-urlnorm could not settle %s", response)
            self.dedup.count("urlnorm/internal_errors")
        return response

    def _page_keys(self, request: Request) -> tuple[int, ...]:
        """The keys of the page delivered to ``request``, and of its redirect chain's first
        URLs: links name the page as they did, not as it redirected (ASP.NET's cookie
        probe, ``&AspxAutoDetectCookieSupport=1``)."""
        keys = self.dedup.fingerprint(request).keys
        for url in request.meta.get("redirect_urls", ()):
            keys += self.dedup.fingerprint(request.replace(url=url)).keys
        return keys

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> Request | None:
        self.dedup.audits.gate.done(request)
        if isinstance(exception, LateDuplicate):
            if self.dedup.debug:  # (URLNORM_DEBUG: every drop is logged, at download time too)
                logger.debug("Dropped at download time: %s", exception)
            self.dedup.settling.probe_settled(request)
            return None
        if M.own_question(request.meta):
            return None  # unanswered: the host's tags stay unused, the resource unsettled, the rule unchecked
        why = "ignored" if isinstance(exception, IgnoreRequest) else "error"
        try:
            if self.robots_twins is not None and RobotsTwins.is_robots_request(request):
                self.robots_twins.failed(request, exception)
            if request.callback is NO_CALLBACK:
                return None  # not the spider's request (see process_request)
            if self.forbidden_spellings is not None and why == "ignored" and str(exception) == FORBIDDEN:
                self.forbidden_spellings.forbidden(request)
            if self.second_chances is not None:
                again = self.second_chances.after_error(request, exception)
                if again is not None:
                    return again  # in its place: what was dropped against it waits on
            self.dedup.settling.settle(request, delivered=False, why=why)
        except Exception:
            logger.exception("scrapy-urlnorm could not settle %s", request)
            self.dedup.count("urlnorm/internal_errors")
        return None


def robots_twins_for(dedup: Deduplicator) -> RobotsTwins | None:
    """With learning: twins whose ``robots.txt`` answers differ contradict ``www_alias``."""
    learner = dedup.learner
    if learner is None:
        return None
    return RobotsTwins(
        lambda *urls: learner.contradict(*urls, via="robots"), dedup.count, dedup.forbidden.robots_answered_at
    )


class ScrubMetaMiddleware:
    """Spider middleware: requests a callback yields inherit none of
    scrapy-urlnorm's request meta (``meta=response.meta`` would copy it), and
    the descendants of an audit are marked never to be audited themselves."""

    def process_spider_output(self, response: Response, result: Iterable[Any], spider: Spider | None = None) -> Any:
        lineage = _audit_lineage(response)
        for output in result:
            if isinstance(output, ScrapyRequest):
                _scrub(output, lineage)
            yield output

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        lineage = _audit_lineage(response)
        async for output in result:
            if isinstance(output, ScrapyRequest):
                _scrub(output, lineage)
            yield output


def _audit_lineage(response: Response) -> list[Any] | None:
    """Whether ``response``'s links are an audit's that confirmed its drop (see
    :mod:`~scrapy_urlnorm.audits`): that audit's host and its site's retractions when it
    was scheduled (the same when it answered, or it would not have confirmed anything:
    ``AuditDesk.stale``), for ``AuditChoice.inherited``. Only its own: a page one of them
    leads to that was fetched as a page of its own claimed a key no request had, so its
    links are new (they were never audited on behalf of another page)."""
    request = getattr(response, "request", None)
    if request is None:
        return None
    audit = request.meta.get(M.AUDIT)
    # An audit that found a page of its own, or could not tell, is an ordinary page: its links are new.
    if audit is None or audit.get("mismatch") or audit.get("inconclusive"):
        return None
    return [audit["host"], audit.get("epoch", 0)]


def _scrub(request: Request, lineage: list[Any] | None) -> None:
    meta = request.meta
    M.scrub(meta)
    if lineage is not None:
        meta[M.NO_AUDIT] = lineage


def _not_the_users(request: Request) -> bool:
    """Whether ``request``'s ``dont_filter`` is ours or a retry's, not the user's: a
    shortcut or rewrite sent in place of a filtered request, a link fetched as written
    after its shortcut failed, an audit followed as the request it was; or the copy
    Scrapy's ``RetryMiddleware`` made of a request this filter admitted (sent past the
    filter, its redirect to a page delivered already downloaded that page again: on a
    flaky site that drops a link's session on its way from ``www.h`` to ``h``, each such
    download opened a new session in every link, and random seed 173830 with ``--flaky
    --sessions --mixed`` never ended, 40,000 requests)."""
    meta = request.meta
    if M.SHORTCUT_OF in meta or M.REWRITTEN_FROM in meta or M.NO_SHORTCUT in meta:
        return True
    return "retry_times" in meta and meta.get(M.ADMITTED) == request.url


class RedirectLearningMiddleware:
    """Shows every raw redirect (3xx with a ``Location``) to the learner.

    It must sit between Scrapy's ``RedirectMiddleware`` (600) and the
    downloader, so it sees redirects before they are followed, including
    those whose target the dupe filter will drop. The add-on puts it at 650.
    """

    def __init__(self, dedup: Deduplicator, meta_refresh: tuple[list[str], float] | None = None) -> None:
        self.dedup = dedup
        #: ``(METAREFRESH_IGNORE_TAGS, METAREFRESH_MAXDELAY)``, or ``None`` with that middleware off.
        self.meta_refresh = meta_refresh

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        refresh = (settings.getlist("METAREFRESH_IGNORE_TAGS"), settings.getfloat("METAREFRESH_MAXDELAY"))
        return cls(Deduplicator.for_crawler(crawler), refresh if settings.getbool("METAREFRESH_ENABLED") else None)

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        meta = request.meta
        if request.dont_filter and _not_the_users(request) and self._redirects(response):
            # The redirect Scrapy builds from this request must go through the filter as the
            # link's own redirect would (a self-redirect is followed 20 times otherwise; so is
            # a page refreshing to itself: seed 131029, ``/moved-1``, 21 downloads).
            request.dont_filter = False
        if 300 <= response.status < 400 and b"Location" in response.headers and M.CANARY not in meta:
            if M.TWIN in meta and self.dedup.twins is not None:
                self.dedup.twins.unmark(request)  # (before RedirectMiddleware copies it)
            try:
                self.dedup.admission.chains.saw_redirect(request.url)
                location = response.urljoin((response.headers.get(b"Location") or b"").decode("latin-1"))
                if request.method in ("GET", "HEAD"):  # (a form's redirect is the action's answer)
                    self.dedup.responses.observe_redirect(request.url, location)
                if M.AUDIT not in meta and self.dedup.learner is not None:
                    # What an audit of a drop against this request compares its own redirect with.
                    self.dedup.audits.auditor.representative_redirected(self.dedup.fingerprint(request).keys, location)
            except Exception:  # learning must never cost the response
                logger.exception("scrapy-urlnorm could not learn from redirect %s", response)
                self.dedup.count("urlnorm/internal_errors")
        return response

    def _redirects(self, response: Response) -> bool:
        """Whether Scrapy's redirect or meta-refresh middleware builds a request from ``response``."""
        return redirect_target(response, self.meta_refresh) is not None
