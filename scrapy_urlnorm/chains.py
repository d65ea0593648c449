"""Redirect chains at check time: which claim a redirect continues, and what its
source's drops become when the chain ends on a duplicate, a loop or no page.

A request Scrapy's ``RedirectMiddleware`` made (``redirect_urls`` in its meta)
continues the claim of the URL that redirected to it (its *source*). Where the
chain lands on a key someone else represents, the source's drops follow that
page; where it ends without a page, they are released (``Deduplicator.fail``),
but for what the chain sent already, which stock Scrapy would not send again.
:class:`~scrapy_urlnorm.admission.Admission` asks; this unit knows chains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import meta as M
from .reroutes import Reroutes

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .ledger import Claim


#: Redirects remembered for the filter's check of their hop (see ``RedirectChains.take_hop``).
MAX_UNCHECKED_HOPS = 4096


def _defragment(url: str) -> str:
    return url.partition("#")[0]


class RedirectChains:
    """The claims redirect chains continue, and their ends."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup
        self.ledger = dedup.ledger
        self.sent = dedup.settling.sent
        self.reroutes = Reroutes()
        # URL -> redirects it answered (seen at the downloader) whose request the filter has
        # not checked yet: a request with ``redirect_urls`` is a real hop only if the URL it
        # names last is here; a child built with ``meta=response.meta`` copies the list too.
        self._hops: dict[str, int] = {}

    def saw_redirect(self, url: str) -> None:
        """``url`` answered a redirect: Scrapy's ``RedirectMiddleware`` may build its hop."""
        hops = self._hops
        hops[url] = hops.get(url, 0) + 1
        if len(hops) > MAX_UNCHECKED_HOPS:  # redirects nobody followed (``dont_redirect``, ...)
            del hops[next(iter(hops))]

    def take_hop(self, request: Request) -> bool:
        """Whether ``request`` is the hop Scrapy built from a redirect just seen (not a
        child carrying its parent's ``redirect_urls``); each redirect vouches for one request."""
        hops = self._hops
        source = request.meta["redirect_urls"][-1]
        left = hops.get(source)
        if left is None:
            return False
        if left > 1:
            hops[source] = left - 1
        else:
            del hops[source]
        return True

    def source(self, request: Request) -> Claim | None:
        """The claim of the URL that redirected to ``request``, if it is pending."""
        chain = request.meta.get("redirect_urls")
        if not chain:
            return None
        source = self.dedup.fingerprint(request.replace(url=chain[-1]))
        return self.ledger.claim_of(source.value) or self.ledger.claim_of(source.learned)

    def release_rerouted(self, source: Claim, chain: list[str], target: str) -> None:
        """Spellings the server never answered may be served where they are (see reroutes).
        Asked only of the chain of the request holding ``source``: another request of its
        keys (a drop released as written) redirecting elsewhere leaves nothing behind, the
        claim's drops rest on its representative still (differential seed 152624: a
        released ``/help;jsessionid=X`` redirected to the ``www`` twin, and eleven
        spellings of ``/help/``, the representative waiting in the queue, were fetched)."""
        release, copies = self.reroutes.left_behind(source.drops or (), chain, target)
        for copy in copies:  # an exact duplicate of a URL fetched as written
            self.ledger.discharge(copy)
        if self.ledger.release_as_written(release, "rerouted") or copies:
            source.drops = [drop for drop in source.drops or () if not drop.settled]

    def returns_to_own_key(self, request: Request, key: int) -> bool:
        """Whether ``request`` redirects back to the key of a URL its own chain passed:
        ASP.NET's ``/x`` -> ``/x?AspxAutoDetectCookieSupport=1`` -> ``/(S(id))/x`` for a
        client without its cookie, where ``session_ids`` gives the last the key of the first."""
        for url in request.meta.get("redirect_urls", ()):
            passed = self.dedup.fingerprint(request.replace(url=url))
            if key == passed.value or key == passed.learned:
                return True
        return False

    @staticmethod
    def is_loop(request: Request) -> bool:
        """A redirect chain that comes back to a URL it passed: stock's filter stops it there too."""
        url = _defragment(request.url)
        return any(_defragment(previous) == url for previous in request.meta.get("redirect_urls", ()))

    @staticmethod
    def back_to_failed_form(request: Request) -> bool:
        """``request`` redirects a link that fell back from its taught form (which answered
        an error) to that very form: the answer is known, the form was fetched once, as
        stock Scrapy fetches it once (its filter drops the redirect)."""
        fell_back = request.meta.get(M.SHORTCUT_FELL_BACK)
        return fell_back is not None and fell_back[1] == request.url

    def sent_before(self, key: int, request: Request) -> bool:
        """``request``, a redirect to its own chain's key, is what a representative of that
        key sent already and got no page from (a page refreshing to itself, a loop): stock's
        filter drops it, and ends the chain there (differential seed 134400, ``--refresh``:
        ``/moved-0?utm_source=moved`` refreshed to ``/moved-0``, which had refreshed to
        itself, and ``/moved-0`` was downloaded again)."""
        return bool(self.sent) and key in self.dedup.failed and self.sent.before(key, request)

    @staticmethod
    def holds(source: Claim, request: Request) -> bool:
        """Whether a request of ``request``'s redirect chain holds ``source``, the claim
        on ``request``'s own key. Not so for a drop released as written: it went with its
        representative's claim, and a redirect to that representative's key (still
        queued) is a duplicate of it, as stock's filter has it (seed 130640, ``lifo-c1``:
        ``/DOWNLOAD``, released, redirected to ``/DOWNLOAD/``, and both were fetched)."""
        return any(source.held_by(url) for url in request.meta.get("redirect_urls", ()))

    def follow(self, source: Claim, claim: Claim | None, key: int, request: Request) -> None:
        """A redirect (``request``) to a duplicate: the source's drops follow its page."""
        if claim is not None:
            self.ledger.merge(source, claim)
        elif key in self.dedup.failed:
            self.fail(source, "redirect", request)
        else:
            if source.drops:
                # Delivered by the page this chain ends on: its drops are verified as a
                # delivery's are (hosting seed 359: ``/docs``, dropped under a rule every drop
                # of which is verified against ``//docs/``, which redirected to the delivered
                # ``/docs/``, was parked unverified and lost).
                self.dedup.audits.audit_drops(source, self.dedup.keys.static(request).value, key, request.url)
            self.dedup.settling.forget_failures(self.ledger.delivered(source))

    def fail(self, source: Claim, why: str, request: Request) -> None:
        """A redirect chain ends here without a page: its source's drops are released, but
        for what the chain sent already (a stock crawl would not send those again)."""
        self.dedup.fail(source, why, self.sent.record(source.keys, request))
