"""What a response tells the de-duplication engine: pages, redirects, taught forms."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import Request
from scrapy.http import TextResponse

from . import meta as M
from .hostrules import twins
from .keys import host_of
from .relative_links import has_relative_links

if TYPE_CHECKING:
    from scrapy.http import Response

    from .dedup import Deduplicator


class ResponseFeed:
    """Feeds the redundancy meter, the audits and the learner from responses.

    The middlewares call it; every call is cheap when learning is off."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup

    def observe_page(
        self,
        request: Request,
        url: str,
        digest: int,
        *,
        length: int,
        server: str = "",
        canonical: str | None = None,
        tag: str | None = None,
        location: str | None = None,
        relative_links: bool = False,
    ) -> None:
        """A 200 response (entity tag ``tag``, ``Content-Location`` ``location``): count
        it, settle an audit or remember its digest (and tag), feed the learner."""
        dedup = self.dedup
        audits = dedup.audits
        host = host_of(url).lower()
        campaigns = dedup.keys.campaigns
        plain = campaigns.plain(request.url) if campaigns is not None else None  # (its keys keep a campaign)
        cause = M.sent_as(request.meta)
        if cause is None and plain is not None:
            cause = "campaign"  # (its keys kept its campaign value: fetched, as stock fetches it)
        had = dedup.meter.page(digest, host, cause)
        tags = audits.cheap.tags
        if tags is not None and tag and not tags.observe(host, tag, digest, url, length):
            dedup.count("urlnorm/etags_distrusted")
        if M.AUDIT in request.meta:
            audits.settle(request, digest)
        else:
            fingerprint = dedup.fingerprint(request)
            keys = fingerprint.keys
            audits.auditor.remember(keys, digest)
            if campaigns is not None and request.method == "GET":
                campaigns.plain_delivered(keys, digest)
                if plain is not None:
                    self._campaign_answer(request, plain, digest, had=had)
            if tags is not None and tag:
                tags.remember(keys, tag)
            if dedup.twins is not None and request.method == "GET":
                dedup.twins.delivered(request, fingerprint, digest, length)
        if request.method == "GET":
            audits.answers.answered_as(request, digest)
        negotiated = audits.cheap.negotiated(url, location, digest) if location else None
        # Only a GET's page is the page at its URL: a form's answer (POST) is not, nor is the
        # empty body of a spider's own HEAD (two such at /a and /A taught case-insensitive paths).
        if dedup.learner is not None and request.method == "GET":
            self._spelled(url, digest)
            dedup.rule_keeper.observe_page(
                request,
                url,
                digest,
                length=length,
                server=server,
                canonical=canonical,
                location=negotiated[1] if negotiated else None,
                relative_links=relative_links,
            )

    def _campaign_answer(self, request: Request, plain: str, digest: int, *, had: bool) -> None:
        """What the page of a URL whose keys keep campaign pairs says of them, against its
        plain URL's (``had``: a page the crawl downloaded before; see :mod:`scrapy_urlnorm.campaigns`)."""
        dedup = self.dedup
        campaigns = dedup.keys.campaigns
        assert campaigns is not None
        plain_keys = dedup.fingerprint(request.replace(url=plain)).keys
        auditor = dedup.audits.auditor
        known = next((seen for key in plain_keys if (seen := auditor.digest(key)) is not None), None)
        campaigns.delivered(request.url, digest, plain_keys, known, had=had)

    def _spelled(self, url: str, digest: int) -> None:
        """Tell the parameter spellings of ``url``'s resources what it answered; where a
        settled resource answered another page, release as written what was dropped
        there on its settling (see :mod:`scrapy_urlnorm.spellings`)."""
        if "?" not in url:
            return
        dedup = self.dedup
        normalized = dedup.normalize(url)[0]
        if normalized is None:
            return
        spellings = dedup.audits.spellings
        unsettled = spellings.observe(normalized, digest)
        if not unsettled:
            return
        dedup.count("urlnorm/unsettled_spellings", len(unsettled))
        ledger = dedup.ledger
        suspect = []
        for host in twins(host_of(normalized)):
            for drop in ledger.parked_of(host):
                dropped = dedup.normalize(drop.url)[0]
                if dropped is not None and spellings.resources(dropped) & unsettled:
                    suspect.append(drop)
        ledger.release_as_written(suspect, "unsettled")

    def links_by_directory(self, response: Response) -> bool:
        """Whether ``response``'s page has links relative to its directory, asked only
        while it can still teach the learner something (see ``Learner.observe_page``)."""
        learner = self.dedup.learner
        if learner is None or not isinstance(response, TextResponse):
            return False
        if learner.resolves_by_directory(host_of(response.url).lower()):
            return False
        return has_relative_links(response.body)

    def observe_redirect(self, source: str, target: str) -> None:
        if self.dedup.learner is not None:
            self.dedup.rule_keeper.observe_redirect(source, target)

    def canonical_url(self, url: str) -> str | None:
        """The form of ``url`` its host's redirects taught (see ``LearnedPolicies.canonical_url``)."""
        learned = self.dedup.learned
        return learned.canonical_url(url) if learned else None

    def other_twin(self, url: str) -> str | None:
        """``url`` on its ``www`` twin, where the twins are one site (see ``LearnedPolicies.other_twin``)."""
        learned = self.dedup.learned
        return learned.other_twin(url) if learned else None

    def shortcut_fell_back(self, link: Request) -> None:
        """``link``'s taught form failed: it is fetched as written, no longer parked."""
        if self.dedup.learner is not None:
            self.dedup.rule_keeper.shortcut_fell_back(link)

    def shortcut_contradicted(self, original: str, sent: str, final: str) -> None:
        """``original`` delivered (at ``final``) where its taught form ``sent`` failed: a rewriting rule is wrong."""
        if self.dedup.learner is not None:
            self.dedup.rule_keeper.shortcut_contradicted(original, sent, final)
