"""Audits: fetch a few requests a risky step or a learned rule dropped, and compare.

An audit is a request that would have been dropped by a semantic-changing
step (``aggressive`` preset) or a learned rule, fetched anyway, so its page can
be compared with the page of the representative it was merged into. Audits
cannot run away:

- only against a representative that has delivered (its page digest is known;
  where it is not, only a learned rule's first drops, below: such an audit
  compares nothing, its page is one of its own, and it vouches for nothing);
- a learned rule's drops are all audited until its content has vouched for
  it where the drop is (:meth:`~scrapy_urlnorm.vouching.PlaceVouching.vouched`:
  matched on :data:`~scrapy_urlnorm.vouching.VERIFY_FIRST` more pages than
  taught it, in the drop's section for a path rule): a rule learned from one or
  two pairs is checked on the first pages it merges, where a site that keeps
  the forms apart shows it at once. Pairs downloaded while it was undecided,
  at concurrency 16 often several, are the same check; so are audits whose
  pages matched as a pair of the rule. An audit that showed nothing of the rule
  (its URL differed from its representative in another rule's way only, or the
  representative's page was not known) vouches for nothing: counting audits
  instead let ``/app/Report`` against its ``www.`` twin stand for the case
  rule under ``/app/``, and ``/app/export``, another page than ``/app/Export``,
  went unaudited (coincidence seed 740). After that, and for the static steps
  the user chose, at the rate ``URLNORM_AUDIT_RATE``;
- at most :data:`AUDITS_PER_SCOPE` distinct URLs per scope (a URL dropped
  against another representative after a rule change counts anew), then none;
- never a redirect target, a shortcut, or a link of an audit that confirmed
  its drop (its links are its representative's), except where every drop is
  verified: such a link is verified once, never again (an audit's link that
  is its representative's link spelled otherwise, dropped unverified, would
  take the representative's own link down with it as an exact copy). Only the
  audit's own links inherit this: a page of its own they lead to is an
  ordinary page, whose links are new. An audit that found a page of its own
  passes nothing on: its links are new, and a rule verified on every drop
  must see them (``/status`` linked only from ``/readme``, itself a page
  beside ``/readme.html``);
- at the rate ``URLNORM_AUDIT_RATE`` of the drops that qualify.

Except for rules a host's *redirects* taught (``trailing_slash``, ``www_alias``,
``https_alias``, ``case_insensitive_path`` with redirect evidence; sampled after
all where the site answers their verifications with pages, not redirects:
:meth:`~scrapy_urlnorm.audit_choice.AuditChoice.confirmed`),
``extension_alias``, ``ignore_param`` and ``default_page``: every drop they
make is verified, with no budget. The
last three because their traps are common where they hold, and no sample of
other URLs can tell where: Apache MultiViews serves ``/x`` as ``/x.html`` only
when no file ``/x`` exists, so a site may hold both as pages of their own;
articles ignore ``?page=2`` where the list it pages through does not; a
directory holding ``index.html`` serves it, not its ``index.php``. Each
verification costs what stock Scrapy pays for the link (one request; for a
redirect-taught rule the redirect is held, so no page is downloaded when the
rule holds), and it is the only way to find the one URL a consistent host
serves as a page of its own (nginx removing trailing slashes everywhere but
``/archive/``). A URL is verified once per representative, however it is
spelled (the request's static key; representatives change only when rules do,
and a revoked rule stays revoked), and audits of agreeing redirects fetch no
page, so they cannot feed on themselves.

A URL is fetched for audits once, whichever rules ask: what it answered (its
page's digest, or where it redirected) is remembered, and a URL fetched
before, as an audit or as written, is not fetched again when another rule
(or the same rule under a newer rule set) would audit it: its answer settles
that audit too (``urlnorm/audits_answered``), at check time or, for an audit
queued before its URL answered, when it is about to be sent and its
representative has delivered (:mod:`scrapy_urlnorm.audit_gate`). The server's
answer does not depend on which rule asks, and stock Scrapy fetches a URL once.
Only an answer that contradicts the drop is fetched again, as before: the
mismatch is then found and acted on the usual way.
"""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from . import meta as M
from .answers import RememberedAnswers
from .audit_choice import AuditChoice
from .audit_gate import AuditGate
from .depths import depth_of
from .recent import put_recent
from .redirect_verdicts import REDIRECT_AGREES, REDIRECT_DIFFERS, REDIRECT_UNDECIDED, RedirectVerdicts
from .spellings import ParamSpellings
from .steps import REASONS, STEP_RANKS, STEPS
from .validators import CheapAudits

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .ledger import Claim, Drop

logger = logging.getLogger(__name__)

#: Ranks from here up are the paper's semantic-changing steps and learned rules:
#: the drops audits sample.
SEMANTIC_RANK = min(STEP_RANKS[step.name] for step in STEPS if step.tier >= 3)
SEMANTIC_REASONS = frozenset(name for rank, name in REASONS.items() if rank >= SEMANTIC_RANK)
#: Distinct URLs audited per scope (one learned rule of one host, or one static step).
AUDITS_PER_SCOPE = 5
#: Distinct URLs remembered per scope verified on every drop (a redirect-taught rule, VERIFIED_FAMILIES;
#: past this, a URL linked again is verified again rather than dropped unverified).
VERIFIED_PER_SCOPE = 20_000
#: Mixes a representative's key into a URL's (:func:`asked`): odd, so no two keys mix alike.
_MIX, _MASK = 0x9E3779B97F4A7C15, (1 << 128) - 1


def asked(own: int, key: int) -> int:
    """One int for the question whether the URL of static key ``own`` is the page of ``key``."""
    return own ^ ((key * _MIX) & _MASK)


#: Scopes remembered (beyond it, no new scope is audited).
MAX_SCOPES = 10_000
#: Digests of delivered pages remembered for audits (LRU).
DIGESTS_REMEMBERED = 100_000
#: Answers remembered (LRU): of URLs fetched as audits, so none is fetched for an audit twice, of
#: files a negotiating server named, and of every page under its host's lenient key (``answered_as``).
ANSWERS_REMEMBERED = 100_000


def check_rate(value: object) -> float:
    """``URLNORM_AUDIT_RATE`` as a float in [0, 1], or a ``ValueError`` naming it."""
    try:
        rate = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"URLNORM_AUDIT_RATE must be a number between 0 and 1, not {value!r}") from None
    if math.isnan(rate) or not 0.0 <= rate <= 1.0:
        raise ValueError(f"URLNORM_AUDIT_RATE must be between 0 and 1, not {value!r}")
    return rate


class Auditor:
    """Decides which drops to audit and settles audits."""

    def __init__(self, rate: float = 0.0) -> None:
        self.rate = check_rate(rate)
        self._credit = 0.0
        self._audited: dict[str, set[int]] = {}  # scope -> the URLs audited (static keys, each mixed with its drop's)
        self._verified: dict[str, set[int]] = {}  # scope verified on every drop -> the URLs verified (likewise)
        self._digests: OrderedDict[int, int] = OrderedDict()  # key -> digest of its delivered page
        # static key of a URL fetched as an audit -> its page's digest, or where it redirected
        self._answers: OrderedDict[int, int | str] = OrderedDict()
        # static keys of the URLs an audit downloaded in full: their pages went to the spider
        self._downloaded: OrderedDict[int, None] = OrderedDict()
        # keys of a request fetched as itself (not an audit) -> where it redirected
        self._redirects: OrderedDict[int, str] = OrderedDict()
        self.audits = self.mismatches = 0

    def remember(self, keys: tuple[int, ...], digest: int) -> None:
        """The page of ``keys`` was delivered with ``digest``."""
        for key in keys:
            put_recent(self._digests, key, digest, DIGESTS_REMEMBERED)

    def answered(self, own: int, answer: int | str, *, downloaded: bool = False) -> None:
        """The URL whose static key is ``own`` was fetched as an audit and answered a
        page with this digest (``int``; ``downloaded``: in full, the spider had it, not
        a ``304`` or a ``HEAD``), or a redirect to this URL (``str``). ``own`` may also
        be a lenient key (:meth:`~scrapy_urlnorm.answers.RememberedAnswers.answered_as`): a
        page its spellings answered."""
        put_recent(self._answers, own, answer, ANSWERS_REMEMBERED)
        if downloaded:
            put_recent(self._downloaded, own, None, ANSWERS_REMEMBERED)

    def representative_redirected(self, keys: tuple[int, ...], target: str) -> None:
        """A request (not an audit) whose keys are ``keys`` answered a redirect to ``target``."""
        for key in keys:
            put_recent(self._redirects, key, target, ANSWERS_REMEMBERED)

    def redirect_of(self, key: int) -> str | None:
        """Where the representative of ``key`` redirected, if it did and it is remembered."""
        return self._redirects.get(key)

    def downloaded(self, own: int) -> bool:
        """Whether an audit downloaded the URL whose static key is ``own`` in full."""
        return own in self._downloaded

    def any_downloaded(self) -> bool:
        """Whether an audit downloaded any URL in full (else no key needs looking up)."""
        return bool(self._downloaded)

    def had(self, own: int) -> bool:
        """Whether the page at the URL whose static key is ``own`` went to the spider:
        delivered to a request for that URL (its digest remembered), or downloaded in
        full by an audit."""
        return own in self._downloaded or own in self._digests

    def answer(self, own: int) -> int | str | None:
        """What the URL whose static key is ``own`` answered when it was fetched (as an
        audit, or as written and delivered), if remembered: see :meth:`answered`."""
        answer = self._answers.get(own)
        return answer if answer is not None else self._digests.get(own)

    def digest(self, key: int) -> int | None:
        """The digest of the page ``key``'s representative delivered, if remembered."""
        return self._digests.get(key)

    def alias(self, key: int, new_key: int) -> None:
        """``new_key`` (a learned key, after a rule change) names the page of ``key`` too."""
        digest = self._digests.get(key)
        if digest is not None:
            self._digests[new_key] = digest

    def should_audit(
        self,
        scope: str,
        own: int,
        key: int,
        *,
        learned: bool = False,
        every: bool = False,
        vouched: bool = False,
        inherited: bool = False,
    ) -> bool:
        """Audit this drop of a request whose own static key is ``own``, against
        ``key``? Once per ``own`` and ``key``: spellings the static policy merges (a
        fragment, ``:80``) are one URL, audited once against one representative. Against
        another (its rules changed, and released, it met a page under another key), it is
        another question: coincidence seed 2472 (``--kills 2``) lost ``h/app/users/``,
        settled against its ``www`` twin's page, then, ``www_alias`` revoked, dropped
        unaudited against ``h/app/Users/``, another page. ``every``: a drop verified whatever
        the budget (see the module's docstring), whether or not audits are on and
        the page's digest is known. ``vouched``: the learned rule's content already
        vouched for it where the drop is; until it has, a learned rule's drops are all
        audited, within :data:`AUDITS_PER_SCOPE`, even where the representative's page
        is not known (such an audit is inconclusive). ``inherited``: a link of an audit
        that confirmed its drop, verified (where ``every``) only while its URL can be
        remembered as verified, so audits of audits' links cannot go round."""
        question = asked(own, key)
        if every:
            verified = self._verified.setdefault(scope, set())
            if question in verified:
                return False
            if len(verified) < VERIFIED_PER_SCOPE:
                verified.add(question)
            elif inherited:
                return False
            return True
        if inherited or not self.rate:
            return False
        known = key in self._digests
        first = learned and not vouched  # a rule whose drops here are all audited
        if not known and not first:
            return False
        audited = self._audited.get(scope)
        if audited is None:
            if len(self._audited) >= MAX_SCOPES:
                return False
            audited = self._audited[scope] = set()
        if len(audited) >= AUDITS_PER_SCOPE or question in audited:
            return False
        if not first:
            if not known:
                return False
            self._credit += self.rate
            if self._credit < 1.0:
                return False
            self._credit -= 1.0
        audited.add(question)
        return True

    def settle(self, key: int, digest: int) -> bool | None:
        """An audit's page arrived: ``True`` if it is the representative's page,
        ``False`` if not, ``None`` if the representative's digest is forgotten."""
        expected = self._digests.get(key)
        if expected is None:
            return None
        self.audits += 1
        if expected == digest:
            return True
        self.mismatches += 1
        return False

    def sizes(self) -> dict[str, int]:
        return {
            "page_digests_for_audits": len(self._digests),
            "audit_answers": len(self._answers),
            "representative_redirects": len(self._redirects),
            "audit_downloads": len(self._downloaded),
            "audit_scopes": len(self._audited),
            "verified_urls": sum(len(urls) for urls in self._verified.values()),
        }


def mark_audit(
    meta: dict[str, Any], key: int, reason: str, host: str, why: str = "", epoch: int = 0, rep: str | None = None
) -> None:
    """Make a request an audit of the drop it was (``why``: see ``AuditChoice.should_audit``;
    ``epoch``: its site's rules' retractions so far, ``Learner.retractions_of``; ``rep``: the
    URL that delivered its representative's page, where known).
    Its redirect, if any, is not followed: where it points is the answer (see
    ``AuditDesk.redirected``)."""
    meta[M.AUDIT] = {
        "key": key,
        "reason": reason,
        "host": host,
        "held_redirect": "dont_redirect" not in meta,
        "why": why,
        **({"epoch": epoch} if epoch else {}),
        **({"rep": rep} if rep else {}),
    }
    meta.setdefault("dont_redirect", True)


def unmarked(meta: dict[str, Any]) -> dict[str, Any]:
    """A copy of an audit's ``meta`` without what :func:`mark_audit` added: the
    request as it was dropped (its own ``dont_redirect``, if it had one, stays)."""
    added = (M.AUDIT, "dont_redirect") if meta[M.AUDIT]["held_redirect"] else (M.AUDIT,)
    return {key: value for key, value in meta.items() if key not in added}


def as_dropped(request: Request) -> Request:
    """An audit as the request it was dropped: without its marks, its condition, or
    our ``dont_filter``."""
    dropped = request.replace(dont_filter=False, meta=unmarked(request.meta))
    if request.meta[M.AUDIT].get("tag"):
        del dropped.headers[b"If-None-Match"]  # (condition's, not the spider's)
    return dropped


class AuditDesk:
    """Sends audits and settles them, for a :class:`~scrapy_urlnorm.dedup.Deduplicator`."""

    def __init__(self, dedup: Deduplicator, auditor: Auditor) -> None:
        self.dedup = dedup
        self.auditor = auditor
        #: How an audit may be settled without a download (see ``validators``).
        self.cheap = CheapAudits(self)
        #: Resources whose parameter's spellings all answered one page (see ``spellings``).
        self.spellings = ParamSpellings()
        #: Which drops are verified or audited (see ``audit_choice``).
        self.choice = AuditChoice(dedup, auditor, self.spellings)
        #: What an audit's redirect says of its drop (see ``redirect_verdicts``).
        self.verdicts = RedirectVerdicts(dedup, auditor, self.choice)
        #: What a URL answered when fetched before, and whether that settles its audit (see ``answers``).
        self.answers = RememberedAnswers(dedup, auditor, self.verdicts)
        #: Whether an audit about to be sent is needed still (see ``audit_gate``).
        self.gate = AuditGate(self)

    def fetches_redirect_target(self, request: Request, host: str, reason: str, own: int, key: int) -> bool:
        """Whether ``request`` (static key ``own``), a redirect target, is fetched rather
        than dropped against ``key`` for ``reason``: a redirect target is never audited, so
        a rule every drop of which is verified may not drop one unchecked (differential
        seed 76107: a refresh to ``/report``, dropped under ``extension_alias`` against the
        delivered ``/report.html``), unless its URL was fetched already and answered that
        page (nginx: ``/dev/authors`` verified against ``/dev/authors.html``, then reached
        again through the bare host's redirect: stock fetches it once). Fetched, it is sent
        as written: in its taught form it would download its representative's page again
        and check nothing (seed 130015: ``www.h/x/``, a redirect target, sent as ``www.h/x``,
        delivered already). Likewise where a link's drop would be audited because its rule
        has not held where it is yet (hosting seed 1754: ``https://h/cs/README.html``, the
        target of its ``http://`` spelling, dropped under ``case_insensitive_path`` learned
        elsewhere against ``/cs/Readme.html``, another file on a case-sensitive volume)."""
        if "redirect_urls" not in request.meta:
            return False
        if not self.choice.verifies_every(host, reason) and not self.choice.unvouched(request, key, reason, host):
            return False
        if self.answers.answered_before(request, own, key, reason):
            self.count_answered()
            return False
        request.meta[M.NO_SHORTCUT] = True
        self.dedup.count("urlnorm/redirect_targets_fetched")
        return True

    def audit_now(self, request: Request, own: int, key: int, reason: str, host: str) -> bool:
        """At check time, against a delivered page: fetch ``request`` as an audit instead of dropping it?"""
        meta = request.meta
        if "redirect_urls" in meta or M.SHORTCUT_OF in meta:
            return False
        why = self.choice.should_audit(request, own, key, reason, host, learned=reason.startswith("learned:"))
        if not why:
            return False
        if self.answers.answered_before(request, own, key, reason):
            self.count_answered()
            return False  # its URL was fetched before, and what it answered confirms the drop
        mark_audit(meta, key, reason, host, why, self.epoch(host))
        self.dedup.count("urlnorm/audits_scheduled")
        return True

    def verify_late(self, request: Request, own: int, key: int, reason: str, host: str) -> bool:
        """At download time, against a delivered page: fetch ``request`` rather than drop
        it, because its rule's first drops on this host are to be checked?"""
        if "redirect_urls" in request.meta:
            return False
        if not self.choice.should_audit(request, own, key, reason, host, learned=True):
            return False
        if self.answers.answered_before(request, own, key, reason):
            self.count_answered()
            return False
        return True

    def audit_drops(
        self, claim: Claim, value: int, key: int, delivered_url: str | None, *, rep: str | None = None
    ) -> None:
        """A representative (static key ``value``, its page remembered under ``key``)
        delivered at ``delivered_url``: now its risky drops can be compared with its
        page. A few are fetched again as audits. ``delivered_url`` is ``None`` where
        another worker delivered it (distributed): this worker never saw that page, so
        only the drops every one of which is verified, and a learned rule's first drops,
        are fetched (their audits find no page to compare with, and the spider has
        theirs: see ``Auditor.inconclusive``); parked unverified, a wrong
        rule's drop was lost (``bench_differential.py --redis 2``, seed 146406:
        ``/catalog.php?page=5`` under ``ignore_param:page``). ``rep``: the URL that delivered
        the page ``key`` names, where the caller knows it (a redirect's hop that landed on a
        delivered key is not it: see ``RedirectVerdicts._rests_on_unvouched``)."""
        dedup = self.dedup
        if dedup.reschedule_request is None:
            return
        for drop in claim.drops or ():
            if drop.settled or not (drop.learned or drop.reason in SEMANTIC_REASONS):
                continue
            request = drop.request
            if "redirect_urls" in request.meta or request.url == delivered_url:
                continue
            reason = drop.reason
            if drop.learned and dedup.narrow is not None:
                reason = dedup.narrow.reason(request, drop.host, reason)  # (this page delivered since)
            own = dedup.keys.static(request).value
            if own == value:
                # The URL that delivered is this drop's own up to static steps (a link's
                # rewritten or taught form, spelled as the drop normalizes): nothing to verify.
                continue
            why = self.choice.should_audit(request, own, key, reason, drop.host, learned=drop.learned)
            if why:
                if self.answers.answered_before(request, own, key, reason):
                    self.count_answered()  # kept as a learned drop, parked when the claim settles
                    continue
                self.send_drop(drop, request, key, reason, why, rep=rep)

    def send_drop(
        self, drop: Drop, request: Request, key: int, reason: str, why: str, *, rep: str | None = None
    ) -> None:
        """Take ``drop`` (of ``request``) out of the ledger and fetch it as an audit against ``key``."""
        dedup = self.dedup
        assert dedup.reschedule_request is not None
        dedup.ledger.discharge(drop)
        dedup.count("urlnorm/audits_scheduled")
        meta = dict(request.meta)
        mark_audit(meta, key, reason, drop.host, why, self.epoch(drop.host), rep=rep)
        dedup.reschedule_request(request.replace(dont_filter=True, meta=meta))

    def keep_as_drop(self, request: Request, audit: dict[str, Any]) -> bool:
        """Settle an audit without fetching it: the request, as it was dropped, is kept
        in the ledger against its delivered representative, so a revoked rule releases
        it (and released, it goes through the filter again). False: no room, or the rules
        that merged the two changed since it was scheduled (:meth:`stale`: a revocation
        already past would never release it): fetch it."""
        if self.stale(request, audit):
            return False
        dropped = as_dropped(request)
        learned = audit["reason"].startswith("learned:")
        return self.dedup.ledger.drop(dropped, audit["reason"], audit["host"], learned=learned, claim=None)

    def alias(self, key: int, new_key: int) -> None:
        """``new_key`` (a learned key, after a rule change) names the page of ``key`` too."""
        self.auditor.alias(key, new_key)
        if self.cheap.tags is not None:
            self.cheap.tags.alias(key, new_key)

    def epoch(self, host: str) -> int:
        """How many times a rule of ``host``'s site was revoked or narrowed so far."""
        learner = self.dedup.learner
        return 0 if learner is None else learner.retractions_of(host)

    def stale(self, request: Request, audit: dict[str, Any]) -> bool:
        """Whether the rules that merged ``request`` (an audit) with its representative
        may no longer be its site's: one was revoked or narrowed since the audit was
        scheduled (or in a run before this one). Its representative's page then says
        nothing of it (see :meth:`settle`)."""
        return audit.get("epoch", 0) != self.epoch(audit["host"])

    def settle(self, request: Request, digest: int) -> None:
        """An audit's page arrived: compare it with its representative's."""
        audit = request.meta[M.AUDIT]
        own = self.dedup.keys.static(request).value
        self.auditor.answered(own, digest, downloaded=True)
        if self.stale(request, audit):
            # Its representative's page says nothing of it under today's rules: the same
            # body at a twin that is no longer one site sends its links elsewhere
            # (coincidence seed 2472: h/app/users/, audited against www.h/app/users/
            # while www_alias held, answered after it was revoked; its links, taken as the
            # twin's, were never followed to h/app/report and the bare /blog/). A page of
            # its own, then, whose links are new.
            request.meta[M.AUDIT] = {**audit, "inconclusive": True}
            self.dedup.count("urlnorm/audits_inconclusive")
            self._own_page(request, own)
            return
        same = self.auditor.settle(audit["key"], digest)
        if same is None:
            # Nothing to compare with (forgotten, or another worker's representative): the
            # drop is not confirmed, so its page is one of its own (see _audit_lineage).
            request.meta[M.AUDIT] = {**audit, "inconclusive": True}
            # It vouches for nothing, so the rule's next drop there is audited too (unaudited,
            # the first www_alias drop after a resume, against a page of the killed run, lost
            # the one URL where the twins differ: --kills 2 --flaky --robots --params, seed 148366).
            self.dedup.count("urlnorm/audits_inconclusive")
            self._own_page(request, own)
            return
        self.dedup.count("urlnorm/audits")
        if same:
            self.choice.confirmed(request.url, audit, digest)
        else:
            logger.info(
                "Audit found %s is a different page than the one %s merged it into", request.url, audit["reason"]
            )
            self._mismatch(request, audit, own, digest)

    def redirected(self, request: Request, target: str) -> str:
        """An audit answered a redirect: :data:`REDIRECT_AGREES` when it points to the
        page its representative delivered; else it is followed as stock follows it, and
        the rule is contradicted (:data:`REDIRECT_DIFFERS`) unless the redirect leaves
        the question open (:data:`REDIRECT_UNDECIDED`, see below)."""
        audit = request.meta[M.AUDIT]
        own = self.dedup.keys.static(request).value
        self.auditor.answered(own, target)
        verdict = self.verdicts.verdict(request, audit["key"], target, str(audit["reason"]))
        self.dedup.count("urlnorm/audits")
        self.auditor.audits += 1
        if verdict == REDIRECT_AGREES:
            self.choice.confirmed(request.url, audit, None)
            return verdict
        if verdict == REDIRECT_UNDECIDED:
            # Its target is merged with the representative only by a rule verified on
            # every drop (frameworks seed 576468: ``http://h/list?page=3`` to
            # ``https://h/list?page=3``, merged with the delivered ``/list`` only by
            # ``ignore_param:page``), or the representative redirected too, to a URL the
            # rules merge with this target (``www.h/go/1`` and ``h/go/1`` both to
            # ``h/old/1``: such chains revoked ``www_alias`` for whole sites, seeds
            # 144427, 144523). Neither confirms nor contradicts the drop: followed as stock
            # follows it, so the filter judges where it leads.
            self.dedup.count("urlnorm/audits_redirects_followed")
            return verdict
        logger.info("Audit found %s redirects to %s, not where %s merged it", request.url, target, audit["reason"])
        self.auditor.mismatches += 1
        self._mismatch(request, audit, own)
        return REDIRECT_DIFFERS

    def count_answered(self) -> None:
        self.auditor.audits += 1
        self.dedup.count("urlnorm/audits")
        self.dedup.count("urlnorm/audits_answered")

    def _mismatch(self, request: Request, audit: dict[str, Any], own: int, digest: int | None = None) -> None:
        """``own``: the audited URL's static key; ``digest``: the page the audit found
        (``None``: it redirected elsewhere)."""
        request.meta[M.AUDIT] = {**audit, "mismatch": True}  # a page of its own: see _audit_lineage
        self.dedup.count("urlnorm/audit_mismatches")
        if audit["reason"].startswith("learned:") and self.dedup.learner is not None:
            self.dedup.rule_keeper.audit_failed(request, audit["reason"], audit["host"], digest, audit["key"])
        if self.dedup.depths is not None:
            # The page's links come at the audit's depth: a shallower drop of it goes now
            # (after the rule learned its exception, so the filter lets it through), and
            # so does a shallower link to it later.
            self.dedup.depths.release_shallower(self.dedup.ledger, audit["host"], request, depth_of(request))
            self._own_page(request, own)

    def _own_page(self, request: Request, own: int) -> None:
        """``request``'s page is one of its own, as far as its audit can tell (see ``ClaimDepths.own_page``)."""
        if self.dedup.depths is not None:
            self.dedup.depths.own_page(own, request)
