"""What a URL answered when it was fetched, and whether that settles an audit due now.

An audit asks whether a dropped URL answers its representative's page. Where the URL
was fetched before (an audit for another rule, or sent as written), its answer then is
the answer now: the question does not depend on which rule asks. Answers are kept by
:class:`~scrapy_urlnorm.audits.Auditor`, under the URL's static key and, for the
families verified on every drop, under its spelling by its host's sampled rules alone.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from scrapy import Request

from .keys import host_of
from .learning import VERIFIED_FAMILIES
from .redirect_verdicts import REDIRECT_AGREES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .audits import Auditor
    from .dedup import Deduplicator
    from .redirect_verdicts import RedirectVerdicts


#: Files named by negotiating servers kept to be answered again under new rules (the latest).
NAMED_FILES_REMEMBERED = 20_000


class RememberedAnswers:
    """Answers remembered for audits, for an :class:`~scrapy_urlnorm.audits.AuditDesk`."""

    def __init__(self, dedup: Deduplicator, auditor: Auditor, verdicts: RedirectVerdicts) -> None:
        self.dedup = dedup
        self.auditor = auditor
        self.verdicts = verdicts
        #: Files a negotiating server named (URL -> (host, digest of the page it answered)),
        #: answered again under their hosts' sampled rules each time those change (:meth:`rekey`),
        #: and the same URLs by host (a rule change walks its hosts' files only).
        self._named: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._named_by_host: dict[str, set[str]] = {}

    def answered_before(self, request: Request, own: int, key: int, reason: str) -> bool:
        """An audit of ``request`` (static key ``own``) against ``key`` is due: whether its
        URL was fetched before (an audit for another rule, or as written) and what it
        answered then confirms the drop. That settles the audit without fetching the URL
        again: the answer does not depend on which rule asks. An unknown answer, or one
        that contradicts the drop, is fetched as before."""
        if not reason.startswith("learned:") or own == key:
            # A static step's drop: ``own`` is the representative's own key, so what is
            # remembered under it is the representative's page, not this URL's.
            return False
        answer = self.answer(request, own, reason)
        if answer is None:
            return False
        if isinstance(answer, str):
            # (``request`` may be a drop, not yet an audit: the reason is the caller's.)
            return self.verdicts.verdict(request, key, answer, reason) == REDIRECT_AGREES
        return answer == self.auditor.digest(key)

    def answer(self, request: Request, own: int, reason: str) -> int | str | None:
        """What ``request``'s URL (static key ``own``) answered when it was fetched, if
        remembered (see :meth:`~scrapy_urlnorm.audits.Auditor.answer`); else, for a drop of a family verified
        on every drop (``reason``), the page a spelling of it under its host's sampled
        rules alone answered (:meth:`answered_as`). The drop then rests on those rules
        alone for the step between the spellings, as any drop of theirs does: the rest
        was fetched (real Apache, ``www.h/x.html`` against the delivered ``h/x``, which
        negotiated ``h/x.html``: every such drop of ``extension_alias`` was a download).
        Never for an audit of a sampled rule itself, which another spelling's answer
        would only repeat."""
        answer = self.auditor.answer(own)
        if answer is not None or reason.removeprefix("learned:") not in VERIFIED_FAMILIES:
            return answer
        key = self._lenient_key(request)
        answer = self.auditor.answer(key) if key is not None else None
        return answer if isinstance(answer, int) else None  # (a redirect is that spelling's own business)

    def answered_as(self, request: Request, digest: int) -> None:
        """``request``'s URL answered a page with ``digest`` (delivered, an audit's, or
        the file a negotiating server named): remembered for its spellings under its
        host's sampled rules too (see :meth:`answer`)."""
        key = self._lenient_key(request)
        if key is not None:
            self.auditor.answered(key, digest)

    def _lenient_key(self, request: Request) -> int | None:
        narrow = self.dedup.narrow
        if narrow is None or request.method != "GET":
            return None
        url = self.dedup.normalize(request.url)[0]
        return narrow.lenient_key(request, url) if url is not None else None

    def named(self, request: Request, digest: int) -> None:
        """A negotiating server named the file ``request`` asks for (its URL normalized) as what answered a page
        with ``digest``: its answer, for its spellings under its host's sampled rules now and
        under those its host learns later (:meth:`rekey`). A spelling's key is its host's rules
        of the moment: where ``www_alias`` was learned after ``www.h/x`` named ``x.html``, the
        drop of ``h/x.html`` found no answer, and was downloaded to verify ``extension_alias``
        (Debian's handbook on Apache with ``MultiViews``, both twins)."""
        self.answered_as(request, digest)
        url = request.url
        host, named = host_of(url), self._named
        named[url] = (host, digest)
        named.move_to_end(url)
        self._named_by_host.setdefault(host, set()).add(url)
        while len(named) > NAMED_FILES_REMEMBERED:
            old, (old_host, _) = named.popitem(last=False)
            files = self._named_by_host[old_host]
            files.discard(old)
            if not files:
                del self._named_by_host[old_host]

    def rekey(self, hosts: Iterable[str]) -> None:
        """The rules of ``hosts`` changed: the files they named answer under their keys now."""
        for host in set(hosts):
            for url in list(self._named_by_host.get(host, ())):
                self.answered_as(Request(url), self._named[url][1])

    def __len__(self) -> int:
        return len(self._named)
