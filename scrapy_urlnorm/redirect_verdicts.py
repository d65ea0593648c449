"""What an audit's held redirect says of its drop.

An audit is sent with ``dont_redirect``: where its redirect points is the answer.
It *agrees* when the target is the representative (its key), delivered the
representative's page, or is the audited URL itself under today's rules; it
*leaves the question open* when the target matches the representative only through
a rule verified on every drop (a family of ``VERIFIED_FAMILIES``, or a rule its
host's redirects taught) or where the representative redirected too, to a URL the
rules merge with the target (found under the audited URL's spelling under today's
rules when the key of its drop has gone stale). Anything else contradicts the drop. The
:class:`~scrapy_urlnorm.audits.AuditDesk` counts and settles; this unit decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import meta as M
from .blame import merging_rules
from .keys import host_of

if TYPE_CHECKING:
    from scrapy import Request

    from .audit_choice import AuditChoice
    from .audits import Auditor
    from .dedup import Deduplicator
    from .keys import Fingerprint
    from .learning import Rule


#: What :meth:`RedirectVerdicts.verdict` finds of an audit's redirect.
REDIRECT_AGREES, REDIRECT_UNDECIDED, REDIRECT_DIFFERS = "agrees", "undecided", "differs"


class RedirectVerdicts:
    """Whether an audit's redirect agrees with its drop, leaves it open, or differs."""

    def __init__(self, dedup: Deduplicator, auditor: Auditor, choice: AuditChoice) -> None:
        self.dedup = dedup
        self.auditor = auditor
        self.choice = choice

    def verdict(self, request: Request, key: int, target: str, reason: str) -> str:
        """What ``request`` redirecting to ``target`` says of its drop against ``key`` for
        ``reason``: an audit's, or a drop's whose URL an earlier fetch saw redirect.
        It agrees where ``target`` has the representative's key, or (when a rule change
        on the host has since renamed learned keys) a key of the audited URL under
        today's rules; through a learned key only where that match rests on no rule
        verified on every drop (see :meth:`_rests_on_exceptions`): that rule is what the
        audit is there to check, and then the question is left open."""
        fingerprint = self.dedup.fingerprint
        aimed = fingerprint(request.replace(url=target))
        own = fingerprint(request).keys
        if key == aimed.value or aimed.value in own:
            return REDIRECT_AGREES
        expected = self.auditor.digest(key)
        if expected is not None and self.auditor.answer(aimed.value) == expected:
            # The target delivered the representative's very page, whatever the keys say
            # now: a rule revoked since the audit was sent renamed them (frameworks seed
            # 579217: Django's ``/x`` -> ``/x/``, audited under ``www_alias`` while
            # ``trailing_slash`` held, judged after it was revoked, revoked ``www_alias``).
            return REDIRECT_AGREES
        if aimed.learned is not None and (key == aimed.learned or aimed.learned in own):
            rep = (request.meta.get(M.AUDIT) or {}).get("rep")
            if self._rests_on_exceptions(request, aimed) or self._rests_on_unvouched(aimed, reason, rep):
                return REDIRECT_UNDECIDED
            return REDIRECT_AGREES
        return REDIRECT_UNDECIDED if self._redirected_alike(request, key, aimed) else REDIRECT_DIFFERS

    def _rests_on_exceptions(self, request: Request, aimed: Fingerprint) -> bool:
        """Whether the learned key of ``aimed`` (a redirect target of the audit ``request``)
        may rest on a rule every drop of which is verified (a family of
        :data:`~scrapy_urlnorm.learning.VERIFIED_FAMILIES`, or one its host's redirects
        taught: it has one active) while nothing else says its page was had: its URL as it
        is (same callback) delivered, or its key under the host's sampled rules alone naming
        a delivered page. A Laravel host removes trailing slashes but serves a directory of
        its ``public/`` with one; the link ``http://h/d/``, sent as ``https://h/d`` (the
        soft 404), was checked as written, redirected to ``https://h/d/``, and that target,
        one key with the soft 404 through ``trailing_slash``, was taken for a confirmation
        (frameworks seed 579325 with ``--sitemaps``: a page only the sitemap named, lost)."""
        learner, learned, url = self.dedup.learner, self.dedup.learned, aimed.url
        if learner is None or learned is None or url is None:
            return False
        host = host_of(url)
        families = {rule.family.value for rule in learner.active_rules(learner.site_of(host))}
        if not any(learned.verifies_every(host, family) for family in families):
            return False
        if self.auditor.had(aimed.value):
            return False
        narrow = self.dedup.narrow
        return narrow is None or not narrow.names_delivered_leniently(request.replace(url=url), url)

    def _rests_on_unvouched(self, aimed: Fingerprint, reason: str, rep: str | None = None) -> bool:
        """Whether the learned key of ``aimed`` (a redirect target) may rest on a sampled
        path or host rule that has not held where ``aimed`` is, other than the rule of the
        drop's ``reason`` (its redirect answers for that one). An S3 bucket
        under ``/files/`` keeps ``/files//notes.md`` apart from ``/files/notes.md`` where the
        rest of the site merges doubled slashes: ``http://h/files//notes.md``, checked for
        ``https_alias``, redirected to ``https://h/files//notes.md``, one key with the
        delivered ``/files/notes.md`` through ``duplicate_slashes`` alone, and was taken
        for a confirmation (quirks seed 569 with ``--https``). Left open, the redirect is
        followed and the filter judges its target: a drop there is audited as any other.
        Where the URL that delivered the representative's page (``rep``) is known, only the
        rules whose aspect differs between it and the target may have merged them
        (:func:`~scrapy_urlnorm.blame.merging_rules`): Vercel's ``serve`` redirects
        ``www.h/d/x.html`` to ``www.h/d/x``, against the delivered ``h/d/x``, and a doubled-slash
        rule not yet held under ``/d/`` left every such audit open, its target downloaded
        again (115 of 862 requests on the real server, ``fifo-c1``)."""
        url = aimed.url
        if url is None:
            return False
        host = host_of(url)
        only = self._merging(host, url, rep) if rep else None
        return not self.choice.vouching.others_held(host, url, None, reason.removeprefix("learned:"), only)

    def _merging(self, host: str, url: str, rep: str) -> list[Rule] | None:
        """Which of ``host``'s rules may have merged normalized ``url`` with the delivered
        ``rep`` (as an audit's blame is told apart); ``None``: any."""
        learned = self.dedup.learned
        normalized = self.dedup.normalize(rep)[0]
        if learned is None or normalized is None:
            return None
        return merging_rules(learned.rules_of(host), url, [normalized])

    def _redirected_alike(self, request: Request, key: int, aimed: Fingerprint) -> bool:
        """Whether ``key``'s representative redirected to a URL sharing a key with ``aimed``."""
        elsewhere = self.auditor.redirect_of(key)
        if elsewhere is None:
            elsewhere = self._canonical_redirect(request)
        if elsewhere is None:
            return False
        theirs = self.dedup.fingerprint(request.replace(url=elsewhere)).keys
        return not set(theirs).isdisjoint(aimed.keys)

    def _canonical_redirect(self, request: Request) -> str | None:
        """Where the audited URL's spelling under its host's rules now redirected, if it
        was fetched and did. A redirect is remembered under the keys of its request when
        it answered, and a learned key names its host's rule set: ``h/go/0``, claimed
        under ``www_alias``, redirected to ``h/old/0`` after its host's rules had changed
        again, and the audit of ``www.h/go/0`` (to ``www.h/old/0``) found no redirect
        under the key of its drop and revoked ``www_alias`` for the whole site (random
        seeds 171960, 171961). Its static key names it under any rules."""
        spelled = self.dedup.fingerprint(request).learned_url
        if spelled is None or spelled == request.url:
            return None
        for key in self.dedup.fingerprint(request.replace(url=spelled)).keys:
            target = self.auditor.redirect_of(key)
            if target is not None:
                return target
        return None
