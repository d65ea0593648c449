"""Which drops are checked: verified on every drop, audited, or left to the rule.

Split from :mod:`scrapy_urlnorm.audits`, which sends audits and settles them; this
decides which drops they are for. A drop is verified whatever the budget where its
rule is one a host's redirects taught (until its site answers those verifications with
pages, not redirects: :meth:`AuditChoice.confirmed`) or of
:data:`~scrapy_urlnorm.learning.VERIFIED_FAMILIES`, or where its representative delivered a
catch-all page; not where its URL spells a
parameter all of whose spellings answered that page (``spellings``). Otherwise the
:class:`~scrapy_urlnorm.audits.Auditor` samples it within its rule's budget, counted
per site (``www`` twins one site once ``www_alias`` holds), every drop of a learned
rule until content vouched for it (:meth:`AuditChoice.vouched`).
A path rule (``case_insensitive_path``, ``trailing_slash``, ``duplicate_slashes``)
is budgeted, and vouched for, per section of its site (:mod:`scrapy_urlnorm.sections`):
a mixed site's other backend under ``/legacy/`` shows in the first drops there. So is
a host rule (``www_alias``, ``https_alias``) per top directory: ``www.h/blog/``, another
virtual host beside ``h/blog/``, shows at the first drop there, where the rest of the
site had vouched for the twins.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from . import meta as M
from .callbacks import callback_salt
from .learning import VERIFIED_FAMILIES, Rule
from .sections import HOST_FAMILIES, SCOPED_FAMILIES, directory_of, renamed_only
from .urlparts import split_url

if TYPE_CHECKING:
    from collections.abc import Collection

    from scrapy import Request

    from .audits import Auditor
    from .dedup import Deduplicator
    from .spellings import ParamSpellings

logger = logging.getLogger(__name__)

#: Drops of a learned rule audited unconditionally (when audits are on at all).
VERIFY_FIRST = 2
#: Top directories of one host rule's site with an audit budget of their own.
SECTION_BUDGETS = 32
#: Folders of one path rule's site with an audit budget of their own (a section's
#: own, and those below it: see :meth:`AuditChoice._held_in_folder`).
FOLDER_BUDGETS = 256
#: Why a drop is audited (:meth:`AuditChoice.should_audit`): every drop of its rule is
#: verified; its rule has not been vouched for where it is; the budget sampled it.
EVERY, UNTIL_VOUCHED, SAMPLED = "every", "until_vouched", "sampled"
#: Rule families whose audits are budgeted, and vouched for, by place.
_BY_SECTION = SCOPED_FAMILIES | HOST_FAMILIES
#: Verifications of a redirect-taught rule its site answered with the representative's
#: page (downloaded again), none with a redirect, before the rule is sampled instead.
PAGE_ANSWERS_TO_SAMPLE = 4


class AuditChoice:
    """Decides, for a :class:`~scrapy_urlnorm.audits.AuditDesk`, which drops to check."""

    def __init__(self, dedup: Deduplicator, auditor: Auditor, spellings: ParamSpellings) -> None:
        self.dedup = dedup
        self.auditor = auditor
        self.spellings = spellings
        #: A path rule's scope -> the sections with a budget of their own.
        self._sections: dict[str, set[str | None]] = {}
        #: (site, family) -> verifications of its redirect-taught rule answered by a page;
        #: -1 once one was answered by a redirect (see :meth:`confirmed`).
        self._page_answers: dict[tuple[str, str], int] = {}

    def verifies_every(self, host: str, reason: str) -> bool:
        """Whether every drop for ``reason`` is verified: a rule ``host``'s redirects
        taught, or a family of :data:`VERIFIED_FAMILIES` (see the module's docstring);
        never a static step's reason."""
        learned = self.dedup.learned
        if learned is None or not reason.startswith("learned:"):
            return False
        return learned.verifies_every(host, reason.removeprefix("learned:"))

    def should_audit(self, request: Request, own: int, key: int, reason: str, host: str, *, learned: bool) -> str:
        """``Auditor.should_audit`` for a drop of ``request`` for ``reason`` on ``host`` (a
        learned rule's, or a static step's), with the rule's budget and what its content showed.
        Why it is audited (empty: it is not): :data:`EVERY`, :data:`UNTIL_VOUCHED` or
        :data:`SAMPLED`."""
        every = (self.verifies_every(host, reason) or (learned and self.caught_all(key))) and not self.settled(
            request, key
        )
        scope = self.scope(host, reason, request.url) if learned else reason
        vouched = learned and not every and self.vouched(host, reason, request.url, key)
        inherited = self.inherited(request)
        if not every:
            # A sampled rule's first drops are checked on distinct URLs: a URL dropped for
            # two callbacks (each key salted with its own) shows one thing twice, and an
            # audit spent on it left /app/export, the page the rule merged wrongly,
            # unaudited (coincidence seed 527 with --callbacks).
            own ^= callback_salt(request)
        if not self.auditor.should_audit(
            scope, own, key, learned=learned, every=every, vouched=vouched, inherited=inherited
        ):
            return ""
        return EVERY if every else UNTIL_VOUCHED if learned and not vouched else SAMPLED

    def inherited(self, request: Request) -> bool:
        """Whether ``request`` is a link of an audit that confirmed its drop, under rules
        of that audit's site that still stand. Its links were taken for its representative's;
        a retraction since (a revoked ``www_alias``) may have made the two sites again, and
        the link is then the bare twin's own (coincidence seed 3995, ``fifo-c16-jobdir``, one
        run in five: ``h/app/export``, a link of the confirmed audit of ``h/app/Report``,
        released when ``www_alias`` was revoked, was dropped unaudited by the bare twin's case
        rule against ``h/app/Export``, another page, and ``/app/report`` and ``/blog/`` behind
        it were lost)."""
        mark = request.meta.get(M.NO_AUDIT)
        if not mark:
            return False
        learner = self.dedup.learner
        if mark is True or learner is None:
            return True
        host, epoch = mark
        return bool(learner.retractions_of(host) == epoch)

    def unvouched(self, request: Request, key: int, reason: str, host: str) -> bool:
        """Whether a learned drop of ``request`` against ``key`` for ``reason`` is one of its
        rule's first where it is, which a link's drop would be audited for (``UNTIL_VOUCHED``)."""
        if not reason.startswith("learned:") or self.settled(request, key):
            return False
        return not self.vouched(host, reason, request.url, key)

    def vouched_since(self, request: Request, audit: dict[str, Any]) -> bool:
        """Whether ``audit`` (of ``request``), scheduled because its learned rule had not
        been vouched for where it is, need not be sent any more: the rule has been since
        (its pairs there, a directory probe's answer, the audits sent before it), and a drop
        there now would be sampled, as any vouched drop is. Audits scheduled together when a
        representative delivered then stop at the first that vouch for the rule."""
        if audit.get("why") != UNTIL_VOUCHED:
            return False
        host, reason, key = audit["host"], audit["reason"], audit["key"]
        if self.verifies_every(host, reason) or self.caught_all(key):
            return False
        if key not in self.dedup.fingerprint(request).keys:
            # The host's rules changed since it was scheduled (a rule narrowed out of its
            # section, or revoked): its drop rests on rules no longer in force, and the
            # release that followed missed it, queued as an audit (coincidence seed 2001:
            # the case rule, narrowed out of an IIS site's /app/, kept /app/users/ dropped).
            return False
        return self.vouched(host, reason, request.url, key)

    def confirmed(self, host: str, reason: str, digest: int | None) -> None:
        """A verification of a learned drop for ``reason`` on ``host`` confirmed it: the
        site answered with the representative's page ``digest`` (downloaded), or with a
        redirect to it (``None``). A rule its site's redirects taught is verified on every
        drop because a held redirect costs no page; where the site answers
        :data:`PAGE_ANSWERS_TO_SAMPLE` of them with the page itself and none with a
        redirect, the redirects that taught it were not the site's way with these URLs
        (a loop's ``www.h/track`` to ``h/track`` on a site serving both twins): every
        verification would be a download, so the rule is sampled from then on, as its
        content would have taught it. Never a family verified on every drop for its
        traps, nor on a catch-all page (which says nothing of its URL)."""
        learned, learner = self.dedup.learned, self.dedup.learner
        family = reason.removeprefix("learned:")
        if learned is None or learner is None or family in VERIFIED_FAMILIES or not reason.startswith("learned:"):
            return
        if not learned.verifies_every(host, family):
            return
        site = (learned.site_key(host, family), family)
        answers = self._page_answers.get(site, 0)
        if answers < 0 or (digest is not None and learner.pages.is_catch_all(digest)):
            return
        if digest is None:
            self._page_answers[site] = -1  # (its redirects answer for it: verifying stays cheap)
            return
        self._page_answers[site] = answers = answers + 1
        if answers >= PAGE_ANSWERS_TO_SAMPLE:
            learned.sample(host, family)
            self.dedup.count("urlnorm/rules_sampled")
            logger.debug("Rule %s on %s is sampled: its site answers its verifications with pages", family, site[0])

    def caught_all(self, key: int) -> bool:
        """Whether ``key``'s representative delivered a catch-all page (a soft 404: one body
        under unrelated URLs), which says nothing of the URL it was delivered at: a learned
        drop against it is verified (see :mod:`scrapy_urlnorm.catch_all`)."""
        learner, digest = self.dedup.learner, self.auditor.digest(key)
        return learner is not None and digest is not None and learner.pages.is_catch_all(digest)

    def settled(self, request: Request, key: int) -> bool:
        """Whether ``request``'s URL spells a parameter of a resource whose spellings
        all answered the delivered page of ``key`` (see :mod:`scrapy_urlnorm.spellings`):
        its drop needs no verification of its own."""
        digest = self.auditor.digest(key)
        if digest is None or "?" not in request.url:
            return False
        url = self.dedup.normalize(request.url)[0]
        if url is None or not self.spellings.settles(url, digest):
            return False
        self.dedup.count("urlnorm/settled_spellings")
        return True

    def vouched(self, host: str, reason: str, url: str, key: int | None = None) -> bool:
        """Whether the learned rule behind ``reason`` on ``host``'s site matched by content
        on :data:`VERIFY_FIRST` more distinct pages than activated it (pairs downloaded
        while it was undecided or in flight, audits that found its pages): what its first
        audited drops would show, it showed already. A path rule's, in ``url``'s section:
        on :data:`VERIFY_FIRST` pages there; a host rule's, on one page of ``url``'s top
        directory too (a pair, or an audit that confirmed a drop, there). A drop against
        ``key`` that spells a section's name otherwise than a URL that delivered its page
        is vouched for by pairs that did so in the section (:meth:`_renamed`)."""
        learned, learner = self.dedup.learned, self.dedup.learner
        rule = self._rule(host, reason)
        if learned is None or learner is None or rule is None or not self._held_in(rule, url, key):
            return False
        # A learned key applies all the host's rules at once, and the drop is reported under
        # the rule that changed its own URL: the representative's may have needed another
        # (www.h/app/report against the delivered www.h/app/Report, reported under
        # www_alias, merged by a case rule that never held under /app/: coincidence seed 103).
        # Every sampled path or host rule in force at the URL must have held there too.
        if not self.others_held(host, url, key, rule.kind):
            return False
        if rule.family.value in SCOPED_FAMILIES:
            return True
        return len(rule.digests) >= max(learner.min_evidence, rule.vouch_base) + VERIFY_FIRST

    def others_held(self, host: str, url: str, key: int | None, but: str, only: Collection[Rule] | None = None) -> bool:
        """Whether every sampled path or host rule of ``host``'s site in force at ``url``,
        but the rule ``but``, held there (:meth:`_held_in`): a learned key applies them all.
        ``only``: of those, the rules that may have merged the two URLs in question."""
        learned = self.dedup.learned
        if learned is None:
            return True
        section = learned.section_of(url) or ""
        for rule in learned.rules_of(host):
            if rule.kind == but or rule.family.value not in _BY_SECTION or section in rule.excluded:
                continue
            if only is not None and rule not in only:
                continue
            if not learned.verifies_every(host, rule.kind) and not self._held_in(rule, url, key):
                return False
        return True

    def _held_in(self, rule: Rule, url: str, key: int | None) -> bool:
        """Whether ``rule``'s pairs held where ``url`` is: :data:`VERIFY_FIRST` pages in its
        section for a path rule, one in its top directory for a host rule (with its
        host-wide count, :meth:`vouched`); any other rule is not counted by place."""
        family = rule.family.value
        if family in SCOPED_FAMILIES:
            learned = self.dedup.learned
            section = (learned.section_of(url) if learned is not None else None) or ""
            if section in rule.excluded:
                return False  # (narrowed out of it: its pairs there vouch for nothing now)
            # Pairs beyond those that taught it: they may all be one section's coincidence
            # (a tag host's placeholder at /tag/Elm/ and /tag/elm/, where /tag/Web/ and
            # /tag/web/ are two tags: coincidence seed 1439 with two clean stops).
            if rule.held.get(section, 0) - rule.taught.get(section, 0) >= VERIFY_FIRST:
                return self._held_in_folder(rule, url)
            renamed = rule.renamed.get(section, 0) - rule.taught_renamed.get(section, 0)
            return renamed >= VERIFY_FIRST and self._renamed(url, key)
        if family in HOST_FAMILIES:
            return rule.held.get(directory_of(url) or "", 0) >= 1
        return True

    def _held_in_folder(self, rule: Rule, url: str) -> bool:
        """Whether path rule ``rule``, vouched for in ``url``'s section, held in its folder
        too where that lies deeper (:data:`VERIFY_FIRST` pairs there since it was learned):
        another backend mounted at ``/docs/legacy/`` serves paths as it does, whatever its
        pairs in ``/docs/`` showed (random webs with a nested mixed section: an IIS site's
        case rule, vouched for in ``/docs/``, dropped ``/Docs/legacy/results.htm`` against
        ``/Docs/legacy/RESULTS.htm``, two pages)."""
        learned = self.dedup.learned
        folder = (learned.folder_of(url) if learned is not None else None) or ""
        return "/" not in folder or rule.folders.get(folder, 0) >= VERIFY_FIRST

    def _renamed(self, url: str, key: int | None) -> bool:
        """Whether ``url`` differs in its section's name only from a URL of its host that
        delivered the page of ``key`` (``/SHOP/c.htm`` against the delivered ``/shop/c.htm``):
        what pairs renaming the section vouch for, and no more (``/app/export`` against
        ``/app/Export`` is another page behind a front that folds only ``/APP/``)."""
        learner = self.dedup.learner
        digest = None if key is None else self.auditor.digest(key)
        if learner is None or digest is None:
            return False
        normalized = self.dedup.normalize(url)[0]
        try:
            u = split_url(normalized or "")
        except ValueError:
            return False
        return any(renamed_only(u.path, path) for path in learner.pages.delivered_spellings(u, digest))

    def scope(self, host: str, reason: str, url: str) -> str:
        """What a learned drop (of ``url``) has its audit budget counted against: the rule
        on its site. Twins an active ``www_alias`` made one site share their rules, so they
        share the rules' audits too (``www_alias`` itself lives on the bare twin). A path rule
        has a budget per section of the site, a host rule per top directory (see
        :mod:`scrapy_urlnorm.sections`)."""
        learned = self.dedup.learned
        kind = reason.removeprefix("learned:")
        # (a path or host rule's kind is its family: no rule to look up for any other reason)
        by_section = kind in SCOPED_FAMILIES or kind in HOST_FAMILIES
        by_section = by_section and self._rule(host, reason) is not None
        if learned is not None:
            host = learned.site_key(host, kind)
        scope = f"{host} {reason}"
        if learned is None or not by_section:
            return scope
        # (a path rule's budget is per folder: a section's own, or one below it, which its
        # pairs do not vouch for: see _held_in_folder)
        section = learned.folder_of(url) if kind in SCOPED_FAMILIES else directory_of(url)
        sections = self._sections.setdefault(scope, set())
        cap = FOLDER_BUDGETS if kind in SCOPED_FAMILIES else SECTION_BUDGETS
        if section not in sections and len(sections) >= cap:
            return f"{scope} /*"  # (past the cap the other sections share one budget)
        sections.add(section)
        return f"{scope} /{section}"

    def _rule(self, host: str, reason: str) -> Rule | None:
        """The active rule of ``host``'s site behind learned drop ``reason``."""
        learned = self.dedup.learned
        kind = reason.removeprefix("learned:")
        return None if learned is None else next((r for r in learned.rules_of(host) if r.kind == kind), None)
