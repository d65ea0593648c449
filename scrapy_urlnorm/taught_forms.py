"""Links sent in another form than written: shortcuts and rewrites.

Once a host's own redirects taught a canonical form (``/dir`` -> ``/dir/``,
``www.h`` -> ``h``), a link in the other form is sent in that form directly,
skipping the redirect (a *shortcut*, ``urlnorm/redirects_shortcut``); with
``URLNORM_REWRITE``, every request is sent normalized (a *rewrite*). Either
way the form takes the link's place: it holds the link's claim, and the link
as written is parked, to be fetched after all if the form turns out wrong
(an error status, or a rule revoked while the form waited in the queue).

Never to a host the spider's ``allowed_domains`` leaves out (``www.h`` allowed,
``h`` not): the form is sent past Scrapy's offsite filter (``dont_filter``), and
the page's relative links, resolved at ``h``, would be filtered as offsite,
where stock reads the page at ``www.h`` and follows them (differential seed
129754, ``--kills 2 --callbacks --offsite --dynamic``, lost a page linked only
from such a page, one run in about seventy).

:class:`TaughtForms` is that concern of
:class:`~scrapy_urlnorm.middlewares.NormalizeMiddleware`: it decides, and the
middleware raises or returns what it decided.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from . import meta as M
from .completion import ID_META

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator


def offsite(host: str, allowed: object) -> bool:
    """Whether ``host`` is one a spider's ``allowed_domains`` leaves out, as Scrapy's
    offsite filter reads them (a domain and its subdomains, no port); none left out
    without a list."""
    if not allowed or not isinstance(allowed, (list, tuple, set, frozenset)):
        return False
    for domain in allowed:
        name = str(domain).lower().partition(":")[0]
        if host == name or host.endswith(f".{name}"):
            return False
    return True


#: Meta keys of requests that are to be fetched as written.
_AS_WRITTEN = (M.AUDIT, M.AS_WRITTEN, M.NO_SHORTCUT)


class TaughtForms:
    """Sends links in their taught (or normalized) form, and back as written when that fails."""

    def __init__(
        self,
        dedup: Deduplicator,
        *,
        shortcuts: bool = True,
        rewrite: bool = False,
        allowed_domains: Callable[[], object] = lambda: None,
    ) -> None:
        self.dedup = dedup
        #: The spider's ``allowed_domains`` (read when a form changes host: a spider may set them late).
        self.allowed_domains = allowed_domains
        #: ``URLNORM_SHORTCUT_REDIRECTS``.
        self.shortcuts = shortcuts
        #: ``URLNORM_REWRITE``.
        self.rewrite = rewrite

    def in_place(self, request: Request) -> tuple[Request | None, str | None]:
        """``request`` is a form sent in place of a link: ``(the link as written, None)``
        when the form is no longer the one it would be sent as; ``(None, reason)`` to drop
        it, its page delivered while it waited; else ``(None, None)``: it goes on,
        holding the link's claim."""
        meta = request.meta
        original = meta.get(M.SHORTCUT_OF) or meta.get(M.REWRITTEN_FROM)
        if original is None:
            return None, None
        if "redirect_urls" not in meta:
            if self._form_now(request, original) != request.url:
                return self._as_written(request, original), None
            if M.SHORTCUT_OF in meta:
                reason = self.dedup.shortcut_checks.shortcut_delivered(request, original)
                if reason is not None:
                    return None, f"taught form {request.url} delivered meanwhile ({reason}): {original}"
                made_here = not meta.get(M.RECOVERED)  # (a recovered form holds its claim itself)
                reason = self.dedup.shortcut_checks.shortcut_queued(request, original, made_here=made_here)
                if reason is not None:
                    return None, f"taught form {request.url} queued meanwhile ({reason}): {original}"
                if not made_here:
                    self._park_again(request, original)
        self.dedup.shortcut_checks.took_over(request, original)
        return None, None

    def _park_again(self, form: Request, original: str) -> None:
        """A shortcut the crash-safe frontier recovered: the link as written, parked when
        the form was made, died with the process that parked it (the ledger lives in
        memory). Parked again under the claim the form recovered, so that its page is
        compared with the form's when it delivers, as the rule's every drop is
        (frameworks seed 575257, ``--kills 2``: Django served ``/faq-update`` and
        ``/faq-update/`` as two pages, and the resumed crawl fetched only the form)."""
        # Without the form's journal id: the link's audit, scheduled with it, would count as
        # the form's replacement and mark it done, its page unread if killed again.
        own = (M.SHORTCUT_OF, M.RECOVERED, ID_META)
        meta = {key: value for key, value in form.meta.items() if key not in own}
        link = form.replace(url=original, dont_filter=False, meta={**meta, M.NO_SHORTCUT: True})
        if self.dedup.shortcut_checks.park_shortcut_original(link, form.url):
            self.dedup.count("urlnorm/shortcuts_parked_again")

    @staticmethod
    def sent_in_place(request: Request) -> bool:
        meta = request.meta
        return M.SHORTCUT_OF in meta or M.REWRITTEN_FROM in meta

    def shortcut(self, request: Request) -> tuple[Request | None, str | None]:
        """``(form, None)``: send ``form`` in place of ``request`` (its host's redirects
        taught it; ``request`` itself: send it as written, untouched); ``(None, reason)``:
        drop ``request``, its taught form was requested already; ``(None, None)``: no
        taught form, ``request`` goes on."""
        meta = request.meta
        if not self.shortcuts or meta.get(M.NO_SHORTCUT) or M.AUDIT in meta:
            return None, None
        if "redirect_urls" in meta:
            # The server's own answer goes as written, as stock follows it: a redirect target
            # is never audited, so the link parked under its form was never compared with it
            # (``go.h/x`` -> ``h/old``, itself a redirect to ``h/news/``, sent as ``h/old/``, a
            # catch-all's soft 404: ``/news/`` lost; ``--redis 2 --depth-limit 4``, seed 149453).
            return None, None
        dedup = self.dedup
        canonical = dedup.responses.canonical_url(request.url)
        if canonical is None or self._offsite(canonical, request.url):
            return None, None
        reason = dedup.shortcut_checks.shortcut_duplicate(request, canonical)
        if reason is not None:
            return None, f"taught form {canonical} requested already ({reason}): {request.url}"
        if meta.get(M.NO_SHORTCUT):
            return request, None  # fetched as written, to check the rule against its taught form's page
        # The link as written is parked, to be fetched after all if the rule is ever revoked.
        parked = request.replace(meta={**meta, M.NO_SHORTCUT: True})
        if not dedup.shortcut_checks.park_shortcut_original(parked, canonical):
            return request, None  # no room to keep its promise: sent as written
        dedup.count("urlnorm/redirects_shortcut")
        return request.replace(url=canonical, dont_filter=True, meta={**meta, M.SHORTCUT_OF: request.url}), None

    def rewritten(self, request: Request) -> Request | None:
        """``request`` sent normalized (``URLNORM_REWRITE``), if that differs; never a
        ``verbatim_url`` request, nor one whose point is its URL as written: an audit
        (rewritten, it fetched its representative's own URL again and compared the page
        with itself: differential seed 132200), a drop released or sent as written."""
        meta = request.meta
        if not self.rewrite or meta.get("verbatim_url") or any(meta.get(key) for key in _AS_WRITTEN):
            return None
        normalized = self.dedup.normalize(request.url)[0]
        if normalized is None or normalized == request.url or self._offsite(normalized, request.url):
            return None
        self.dedup.count("urlnorm/rewritten")
        return request.replace(url=normalized, dont_filter=True, meta={**request.meta, M.REWRITTEN_FROM: request.url})

    def _offsite(self, form: str, url: str) -> bool:
        """Whether ``form``, sent in place of ``url``, is on another host, one the spider's
        ``allowed_domains`` leaves out (as Scrapy's offsite filter reads them: a domain
        and its subdomains, no port)."""
        host, own = urlsplit(form).hostname or "", urlsplit(url).hostname or ""
        if host == own or not offsite(host, self.allowed_domains()):
            return False
        self.dedup.count("urlnorm/forms_offsite")
        return True

    def after_error(self, request: Request) -> Request | None:
        """A shortcut answered an error status: the link as written, to fetch after all.
        Whether the rule holds is known from that fetch: a page means it does not; an
        error means the link is broken. A rewritten request too (``URLNORM_REWRITE``):
        the server may need what normalization removed (a parameter, a case), and stock
        sends the link as written."""
        original = request.meta.get(M.SHORTCUT_OF)
        if original is None:
            return self._rewrite_fell_back(request)
        self.dedup.count("urlnorm/shortcut_fallbacks")
        meta = {key: value for key, value in request.meta.items() if key != M.SHORTCUT_OF}
        meta |= {M.NO_SHORTCUT: True, M.SHORTCUT_FELL_BACK: [original, request.url]}
        link = request.replace(url=original, dont_filter=True, meta=meta)
        self.dedup.responses.shortcut_fell_back(link)
        return link

    def _rewrite_fell_back(self, request: Request) -> Request | None:
        """The link as written, once, for a rewritten request that answered an error
        (never rewritten again: it goes as written, and its own error is final)."""
        original = request.meta.get(M.REWRITTEN_FROM)
        if original is None:
            return None
        self.dedup.count("urlnorm/rewrite_fallbacks")
        meta = {key: value for key, value in request.meta.items() if key != M.REWRITTEN_FROM}
        meta[M.NO_SHORTCUT] = True
        return request.replace(url=original, dont_filter=True, meta=meta)

    def after_success(self, request: Request, final_url: str) -> None:
        """A link fetched as written after its shortcut failed answered a page: the rule
        that made the shortcut does not hold for it."""
        fell_back = request.meta.get(M.SHORTCUT_FELL_BACK)
        if fell_back is not None:
            self.dedup.responses.shortcut_contradicted(fell_back[0], fell_back[1], final_url)

    def _form_now(self, request: Request, original: str) -> str | None:
        """The form ``original`` would be sent as now (shortcut or rewrite, as ``request`` was).
        Asked before the form is sent only: a redirect it led to (``/x`` -> ``/x/``) carries
        its ``meta`` on, and is the server's answer to it, whatever the rules became."""
        if M.SHORTCUT_OF in request.meta:
            return self.dedup.responses.canonical_url(original)
        return self.dedup.normalize(original)[0]

    def _as_written(self, request: Request, original: str) -> Request:
        """``request`` waited in the queue in the form a rule gave ``original``, and that
        rule changed since (revoked: seed 89071 sent ``/moved-1`` as ``/moved-1/``, a soft
        404, after ``trailing_slash`` was revoked; the link, released by the revocation,
        had been dropped against its own pending claim). The link goes as written instead,
        still holding its claim; its parked copy leaves the ledger."""
        self.dedup.count("urlnorm/taught_forms_withdrawn")
        shortcut = M.SHORTCUT_OF in request.meta
        meta = {key: value for key, value in request.meta.items() if key not in (M.SHORTCUT_OF, M.REWRITTEN_FROM)}
        if shortcut:
            meta[M.NO_SHORTCUT] = True
        link = request.replace(url=original, dont_filter=True, meta=meta)
        if shortcut:
            self.dedup.responses.shortcut_fell_back(link)
        self._take_back(request, link)
        return link

    def _take_back(self, form: Request, link: Request) -> None:
        """``form`` took ``link``'s claim over when it was sent, and comes back now (a
        retry: Scrapy's retry copies the meta): ``link`` holds the claim again, so that
        its redirect to ``form``'s URL is not a duplicate of a claim that nothing holds
        (differential seed 152003, ``--https --flaky``: the retry of ``/team/contact-3``,
        withdrawn once ``https_alias`` was learned, went as ``/team/contact-3/``, whose
        redirect back was dropped, and the page was lost). The form's own key leaves the
        claim, as the link's did when the form took over: that URL is not fetched now,
        and whatever ``link`` answers is no proof of its page (a rule revoked meanwhile
        may have made them two), so a request for it is admitted."""
        dedup = self.dedup
        key = dedup.keys.static(form).value
        claim = dedup.ledger.claim_of(key)
        if claim is None or not claim.held_by(form.url):
            return  # never sent: the form claimed nothing of its own yet
        dedup.ledger.detach(claim, key)
        dedup.abandoned.add((key,))
        claim.hand_over(link.url)
        dedup.claim(link, dedup.fingerprint(link), claim)
