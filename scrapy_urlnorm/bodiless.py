"""Answers that settle a request without a page for the spider.

The add-on asks hosts questions of its own (the entity-tag canary, a session
spelling probe), and sends audits and twin probes that a ``HEAD`` naming the
representative's file, or a ``304`` to the representative's entity tag,
settles. None of these answers goes on to the spider: each is handed to the
component that asked, and the request ends here, with the journal and the
queue lease told (``Deduplicator.request_ended``), since neither a response
nor an error reaches them. :class:`~scrapy_urlnorm.middlewares.NormalizeMiddleware`
calls it; what is not settled here goes on as any response does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse

from . import meta as M
from .digests import page_digest
from .keys import host_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response

    from .dedup import Deduplicator


class LateDuplicate(IgnoreRequest):
    """A request dropped at download time (already counted and settled)."""


def content_location(response: Response) -> str | None:
    """The absolute URL a response's ``Content-Location`` names, if any."""
    location = response.headers.get(b"Content-Location")
    if not location or len(location) > 2048:
        return None
    try:
        return response.urljoin(location.decode("latin-1").strip())
    except ValueError:
        return None


def _header(response: Response, name: bytes) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


class BodilessAnswers:
    """Settles the add-on's own questions, and audits and twin probes a header answers."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup

    def own_question(self, request: Request, response: Response) -> None:
        """Hands the answer to the canary or spelling probe ``request`` was, and ends it
        (raises :class:`LateDuplicate`); returns for any other request."""
        meta = request.meta
        status = response.status
        canary = meta.get(M.CANARY)
        if canary is not None:
            if status == 200:
                self.own_page(request, response, "canary")
            tags = self.dedup.audits.cheap.tags
            if tags is not None and not tags.canary_answered(canary, status):
                self.dedup.count("urlnorm/etags_distrusted")
            self.settled(request, f"entity-tag canary answered {status}")
        if M.DIRECTORY_PROBE in meta:
            if self.dedup.directory_probes is not None and status == 200:
                self.dedup.directory_probes.answered(
                    request, response, self.own_page(request, response, "directory_probe")
                )
            self.settled(request, f"directory probe answered {status}")
        probe = meta.get(M.SPELLING_PROBE)
        if probe is not None:
            digest = self.own_page(request, response, "spelling_probe") if status == 200 else None
            asked = self.dedup.normalize(request.url)[0]  # (as the resource was keyed)
            if asked is not None:
                self.dedup.audits.spellings.probed(asked, probe, digest)
            self.settled(request, f"session probe answered {status}")

    def own_page(self, request: Request, response: Response, why: str) -> int:
        """A page the add-on downloaded for its own question: counted as the download it
        is (the report, its redundancy, the crawl log), though the spider never sees it.
        Returns its digest."""
        digest = page_digest(response.body, html=isinstance(response, HtmlResponse), url=response.url)
        self.dedup.meter.page(digest, host_of(response.url).lower(), why)
        for tell in self.dedup.own_pages:
            tell(response, request)
        return digest

    def in_headers(
        self, request: Request, response: Response, audit: dict[str, Any] | None, *, held_redirect: bool
    ) -> Request | None:
        """Settles an audit or twin probe its answer's headers verify (raises
        :class:`LateDuplicate`); returns the request to send in full where they do not,
        or ``None`` for an answer that goes on as a response. A redirect answering an
        audit that holds it (``held_redirect``) is judged by the caller, not here."""
        status = response.status
        if audit is not None and audit.get("head") and not held_redirect:
            # Sent as HEAD to read which file the server negotiates.
            if status != 200 or not self.dedup.audits.cheap.head_answered(request, content_location(response)):
                return self.dedup.audits.cheap.in_full(request)
            self.dedup.settling.probe_settled(request)
            self.settled(request, "audit answered naming its representative's file (Content-Location)")
        if audit is not None and status == 304 and audit.get("tag"):
            # Sent with its representative's entity tag, and the server says it matches.
            self.dedup.settling.probe_settled(request)
            if not self.dedup.audits.cheap.not_modified(request, _header(response, b"ETag")):
                return self.dedup.audits.cheap.in_full(request)
            self.settled(request, "audit answered 304 Not Modified to its representative's entity tag")
        twins = self.dedup.twins
        if status == 304 and twins is not None and request.meta.get(M.TWIN) is not None:
            # A variant sent with its delivered twin's entity tag, and the server says it matches.
            if not twins.not_modified(request, _header(response, b"ETag"), _header(response, b"Server") or ""):
                return twins.in_full(request)
            self.settled(request, "variant answered 304 Not Modified to its twin's entity tag")
        return None

    def settled(self, request: Request, how: str) -> NoReturn:
        """Ends ``request`` with no response for the spider and no error for the
        middlewares, telling the journal and the queue lease (``request_ended``)."""
        for ended in self.dedup.request_ended:
            ended(request)
        raise LateDuplicate(f"{how}: {request.url}")
