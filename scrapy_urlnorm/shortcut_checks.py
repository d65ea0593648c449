"""Download-time checks of shortcuts: a link sent in the form its host's redirects
taught may name a page already queued or delivered.

Such a form is dropped against that page with the promise of any drop (see
:mod:`scrapy_urlnorm.late`); the link as written is parked under the rule, to be
fetched if the rule is revoked; and a form sent in a link's place takes over the
link's claim, but for the link's own key (that URL is not fetched as written).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import meta as M
from .keys import host_of

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .keys import Fingerprint
    from .late import LateChecks
    from .ledger import Claim


class ShortcutChecks:
    """What becomes of a link sent in its taught form, checked as it is sent."""

    def __init__(self, dedup: Deduplicator, late: LateChecks) -> None:
        self.dedup = dedup
        self.late = late

    def shortcut_duplicate(self, request: Request, canonical: str) -> str | None:
        """``request`` is about to be sent as ``canonical`` (the form its host's redirects
        taught): the reason to drop it instead when ``canonical`` itself was queued or
        delivered already, else ``None``. A shortcut goes through the filter like any request."""
        dedup = self.dedup
        key = dedup.keys.static(request.replace(url=canonical)).value
        if dedup.seen.get(key) is None:
            return None
        claim = dedup.ledger.claim_of(key)
        if claim is None and (key in dedup.failed or key in dedup.abandoned):
            if key in dedup.failed and dedup.settling.sent.before(key, request.replace(url=canonical)):
                # The taught form itself was sent and answered no page. Stock sends the link
                # as written, and its filter drops the redirect to that form; so does this
                # one's (the filter drops a redirect to what a failed request sent).
                request.meta[M.NO_SHORTCUT] = True
            return None  # its representative did not deliver: this one may
        fingerprint = dedup.fingerprint(request)
        own = dedup.ledger.claim_of(fingerprint.value)
        if claim is not None and claim is own:
            return None
        return self.late.drop(request, fingerprint, key, self._shortcut_reason(fingerprint), claim, own)

    def shortcut_delivered(self, request: Request, original: str) -> str | None:
        """``request``, the taught form of ``original``, waited in the queue while that form
        delivered its page (sent for another link, or queued apart under the same claim, as
        a ``JOBDIR`` resume recovers them): the reason to drop it, else ``None``. Sent, it
        would download that page again and show nothing more about ``original``, which a
        shortcut never fetches as written. What was dropped against ``original`` rests on
        that delivery now, as it would on this one's, and is checked against its page as
        it would be against this one's (``original`` too, where its rule verifies every
        drop); else it stays parked, to be fetched if the rule is revoked. An audit that
        downloaded that very URL delivered its page too, though it claimed no key
        (differential seed 130260, ``lifo-c1``: ``h/index.php``, audited for
        ``default_page``, then sent as the taught form of ``www.h/index.php``)."""
        dedup = self.dedup
        key = dedup.keys.static(request).value
        if self.late.shallower(request, key):
            return None  # its page's links may reach below DEPTH_LIMIT (seed 131748)
        audited = dedup.audits.auditor.downloaded(key) and not dedup.ledger.is_pending(key)
        if not audited and (dedup.seen.get(key) is None or not dedup.delivered_here(key)):
            return None
        claim = dedup.ledger.claim_of(dedup.keys.static(request.replace(url=original)).value)
        if claim is not None:
            for drop in claim.drops or ():
                drop.learned = True
            # As when the form itself delivers: the drops verified on every drop are checked
            # against that page, ``original`` among them (parked under this claim). Discharged
            # unchecked, the link a redirect-taught trailing_slash sent as /pricing was lost
            # where /pricing/ was a page of its own (coincidence seed 15, fifo-c16-prio-jobdir).
            dedup.audits.audit_drops(claim, key, key, request.url, rep=request.url)
            dedup.ledger.delivered(claim)
        dedup.count("urlnorm/late_filtered")
        return self._shortcut_reason(dedup.fingerprint(request))

    def shortcut_queued(self, request: Request, original: str, *, made_here: bool = True) -> str | None:
        """``request``, the taught form of ``original``, waited in the queue while another
        request for that very URL was admitted and is pending: the reason to drop it, else
        ``None``. Sent, both would download the page (nginx: ``www.h/x`` given up at
        download time against the bare link's claim, then linked again under rules changed
        since, which that claim's keys did not follow). What rests on ``original`` joins
        the other request's claim, as it would have joined this one's: one fate for both.

        The other request may hold ``original``'s claim already: a redirect to this URL,
        admitted to verify a rule every drop of which is verified, joined the pending
        link's claim through its learned key (differential seed 130027, ``fifo-c16``:
        ``www.h/old/1`` redirected to ``www.h/x`` while ``h/x`` waited as ``www.h/x``).
        Only a form made in this run (``made_here``) is known to have claimed nothing yet;
        one the crash-safe frontier recovered holds that claim itself (seed 560025)."""
        dedup = self.dedup
        key = dedup.keys.static(request.replace(url=original)).value
        claim = dedup.ledger.claim_of(key)
        if claim is None:
            return None  # taken over already (this is a retry), or settled
        own = dedup.keys.static(request).value
        other = dedup.ledger.claim_of(own)
        if other is None or other.held_by(original):
            return None
        if not made_here and (other is claim or other.held_by(request.url)):
            # Recovered, it holds a claim itself: the one it shares with the link (a crash),
            # or its own (distributed: made by another worker and popped here, seed 146868).
            return None
        if M.sent_before(request.meta) and other.held_by(request.url):
            # Sent before (a retry, or a second chance): it took the link's claim over then
            # and holds ``other`` itself; the link, met again since under its given-up key,
            # claimed that key anew. Dropped against its own claim, the page was fetched by
            # nobody (frameworks ``--flaky --params``, seed 582439: ``/careers-summer/``
            # failed once, its retry was dropped, and the drops at idle rested on it). It
            # goes on and takes the new claim too (``took_over``); were ``other`` another
            # request's, the page is downloaded twice, which is the cheaper mistake.
            return None
        if self.late.shallower(request, own):
            return None
        self._let_go(claim, key)
        dedup.ledger.merge(claim, other)
        dedup.count("urlnorm/late_filtered")
        return self._shortcut_reason(dedup.fingerprint(request))

    def _shortcut_reason(self, fingerprint: Fingerprint) -> str:
        learned = self.dedup.learned
        rules = learned.shortcut_rules(host_of(fingerprint.url or "")) if learned else ()
        return f"learned:{rules[0].family.value}" if rules else "learned:shortcut"

    def took_over(self, request: Request, original: str) -> None:
        """``request`` (a shortcut or a rewrite) is sent in place of ``original``:
        it holds the claim, except on ``original``'s own key (that URL is not
        fetched as written), and what was dropped against it now rests on the
        learned rule that made the two equal. The claim joins the one ``request``
        makes on its own keys: one fate for both (a learned key ``original`` took
        under older rules is none of ``request``'s, and that claim, settled by
        nobody, waited for ``spider_idle``; one left without keys, for ever)."""
        dedup = self.dedup
        key = dedup.keys.static(request.replace(url=original)).value
        claim = dedup.ledger.claim_of(key)
        if claim is not None:
            self._let_go(claim, key)
            claim.hand_over(request.url)
        dedup.claim(request, dedup.fingerprint(request), claim)

    def _let_go(self, claim: Claim, key: int) -> None:
        """The link whose static key is ``key`` goes in another form: ``claim`` gives that
        key up (no request fetches it as written), and what was dropped against the link
        now rests on the learned rule that made the two forms one."""
        self.dedup.ledger.detach(claim, key)
        self.dedup.abandoned.add((key,))
        for drop in claim.drops or ():
            drop.learned = True

    def park_shortcut_original(self, request: Request, canonical: str) -> bool:
        """A link sent in its taught form is parked as written: a revoked rule fetches
        it after all. ``False`` when the ledger has no room: then it is sent as written."""
        dedup = self.dedup
        fingerprint = dedup.fingerprint(request)
        host = host_of(dedup.normalize(canonical)[0] or "")
        # Under its own claim: when the taught form delivers, the link as
        # written is the drop an audit compares with it.
        claim = dedup.ledger.claim_of(fingerprint.value) or dedup.ledger.claim_of(fingerprint.learned)
        return dedup.ledger.drop(request, self._shortcut_reason(fingerprint), host, learned=True, claim=claim)
