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
rule until content vouched for it (:meth:`~scrapy_urlnorm.vouching.PlaceVouching.vouched`).
A path rule (``case_insensitive_path``, ``trailing_slash``, ``duplicate_slashes``)
is budgeted, and vouched for, per section of its site (:mod:`scrapy_urlnorm.sections`):
a mixed site's other backend under ``/legacy/`` shows in the first drops there. So is
a host rule (``www_alias``, ``https_alias``) per directory, at any depth: ``www.h/blog/``
(or ``www.h/support/blog/``), another virtual host beside ``h/blog/``, shows at the first
drop there, where the rest of the site had vouched for the twins.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from . import meta as M
from .callbacks import callback_salt
from .learning import VERIFIED_FAMILIES, RuleKind
from .sections import HOST_FAMILIES, SCOPED_FAMILIES, directory_path_of
from .vouching import VERIFY_FIRST, PlaceVouching

if TYPE_CHECKING:
    from scrapy import Request

    from .audits import Auditor
    from .dedup import Deduplicator
    from .spellings import ParamSpellings

logger = logging.getLogger(__name__)

#: Directories of one host rule's site with an audit budget of their own (past them
#: the rest share one, and a drop there not vouched for by a pair is audited at idle: a
#: site of 42 top directories audited 395 drops at idle with 32).
SECTION_BUDGETS = 256
#: Folders of one path rule's site with an audit budget of their own (a section's
#: own, and those below it: see :meth:`~scrapy_urlnorm.vouching.PlaceVouching._held_in_folder`).
FOLDER_BUDGETS = 256
#: Why a drop is audited (:meth:`AuditChoice.should_audit`): every drop of its rule is
#: verified; its rule has not been vouched for where it is; the budget sampled it.
EVERY, UNTIL_VOUCHED, SAMPLED = "every", "until_vouched", "sampled"
#: Verifications of a redirect-taught rule its site answered with the representative's
#: page (downloaded again), none with a redirect, before the rule is sampled instead.
PAGE_ANSWERS_TO_SAMPLE = 4
#: Places (audit scopes) whose confirmed audits are counted (beyond: not counted, so audited).
CONFIRMED_PLACES = 10_000


class AuditChoice:
    """Decides, for a :class:`~scrapy_urlnorm.audits.AuditDesk`, which drops to check."""

    def __init__(self, dedup: Deduplicator, auditor: Auditor, spellings: ParamSpellings) -> None:
        self.dedup = dedup
        self.auditor = auditor
        self.spellings = spellings
        self.vouching = PlaceVouching(dedup, auditor)
        #: A path rule's scope -> the sections with a budget of their own.
        self._sections: dict[str, set[str | None]] = {}
        #: (site, family) -> verifications of its redirect-taught rule answered by a page;
        #: -1 once one was answered by a redirect (see :meth:`confirmed`).
        self._page_answers: dict[tuple[str, str], int] = {}
        #: A place's audit scope -> the audits there that found the representative's page
        #: (see :meth:`confirmed_place`).
        self._confirmations: dict[str, int] = {}

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
        scope = self.scope(host, reason, request.url, key) if learned else reason
        vouched = learned and not every and self.vouching.vouched(host, reason, request.url, key)
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
        return not self.vouching.vouched(host, reason, request.url, key)

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
        return self.vouching.vouched(host, reason, request.url, key)

    def _confirm_place(self, host: str, reason: str, url: str, key: int) -> None:
        """An audit of a learned drop of ``url`` against ``key`` found the representative's page."""
        scope = self.place(host, reason, url, key) if reason.startswith("learned:") else None
        if scope is None:
            return
        confirmations = self._confirmations
        if scope in confirmations or len(confirmations) < CONFIRMED_PLACES:
            confirmations[scope] = confirmations.get(scope, 0) + 1

    def confirmed_places(self) -> int:
        """How many places' confirmed audits are counted (a memory figure)."""
        return len(self._confirmations)

    def confirmed_place(self, host: str, reason: str, url: str, key: int) -> bool:
        """Whether :data:`~scrapy_urlnorm.vouching.VERIFY_FIRST` audits in the place of a
        learned drop of ``url`` against ``key`` (its audit budget's scope, never one shared past
        a cap) found their representatives' pages: a place whose budget went to audits that
        confirmed the rule, as before the idle sweep (``unvouched``), which audits the drops of
        places that had none. Pairs there may not show it on a large site: ``PagePairs`` keeps
        a host's last ~170 pages, and an audit of a page delivered long before makes no pair
        (a generated site of 20,996 pages audited 4,975 drops at idle without this)."""
        scope = self.place(host, reason, url, key) if reason.startswith("learned:") else None
        return scope is not None and self._confirmations.get(scope, 0) >= VERIFY_FIRST

    def confirmed(self, url: str, audit: dict[str, Any], digest: int | None) -> None:
        """A verification (``audit``) of a learned drop of ``url`` confirmed it: the site
        answered with the representative's page ``digest`` (downloaded), or with a redirect
        to it (``None``). It counts for its place (:meth:`confirmed_place`). Besides, a rule
        its site's redirects taught is verified on every drop because a held redirect costs
        no page; where the site answers
        :data:`PAGE_ANSWERS_TO_SAMPLE` of them with the page itself and none with a
        redirect, the redirects that taught it were not the site's way with these URLs
        (a loop's ``www.h/track`` to ``h/track`` on a site serving both twins): every
        verification would be a download, so the rule is sampled from then on, as its
        content would have taught it. Never a family verified on every drop for its
        traps, nor on a catch-all page (which says nothing of its URL)."""
        host, reason = audit["host"], audit["reason"]
        self._confirm_place(host, reason, url, audit["key"])
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

    def scope(self, host: str, reason: str, url: str, key: int | None = None) -> str:
        """What a learned drop (of ``url``, against ``key``) has its audit budget counted
        against: the rule on its site. Twins an active ``www_alias`` made one site share their
        rules, so they share the rules' audits too (``www_alias`` itself lives on the bare
        twin). A path rule has a budget per section of the site, a host rule per directory
        at any depth (see :mod:`scrapy_urlnorm.sections`). Below a section, a case rule's
        drops have a budget per set of segments they spell otherwise than a URL that
        delivered the page (``PlaceVouching.cased_positions``): what its pairs vouch for
        there, segment by segment. Community seed 663 (cookies off, one run in six): the Gitea host's five
        audits in the folder of ``README.md`` had gone to drops that spelled the owner and
        the repository otherwise when ``readme.md``, another file, was dropped against
        ``README.md``: not vouched for (no pair there spelled a file's name otherwise), and
        not audited either, the folder's budget spent; it was lost with the page only it linked."""
        scope, by_place, section = self._place(host, reason, url, key)
        if not by_place:
            return scope
        kind = reason.removeprefix("learned:")
        sections = self._sections.setdefault(scope, set())
        cap = FOLDER_BUDGETS if kind in SCOPED_FAMILIES else SECTION_BUDGETS
        if section not in sections and len(sections) >= cap:
            return f"{scope} /*"  # (past the cap the other sections share one budget)
        sections.add(section)
        return f"{scope} /{section}"

    def place(self, host: str, reason: str, url: str, key: int | None = None) -> str | None:
        """:meth:`scope`, where it is a place with a budget of its own already; else ``None``
        (none is made: past the cap, or never audited)."""
        scope, by_place, section = self._place(host, reason, url, key)
        if not by_place:
            return scope
        return f"{scope} /{section}" if section in self._sections.get(scope, ()) else None

    def _place(self, host: str, reason: str, url: str, key: int | None) -> tuple[str, bool, str | None]:
        """The rule's scope on its site; whether its audits are budgeted by place; and if so
        the drop's section, folder or directory (``None``: the top of the site)."""
        learned = self.dedup.learned
        kind = reason.removeprefix("learned:")
        # (a path or host rule's kind is its family: no rule to look up for any other reason)
        by_section = kind in SCOPED_FAMILIES or kind in HOST_FAMILIES
        by_section = by_section and self.vouching.rule_behind(host, reason) is not None
        if learned is not None:
            host = learned.site_key(host, kind)
        scope = f"{host} {reason}"
        if learned is None or not by_section:
            return scope, False, None
        # (a path rule's budget is per folder: a section's own, or one below it, which its
        # pairs do not vouch for: see _held_in_folder)
        section = learned.folder_of(url) if kind in SCOPED_FAMILIES else directory_path_of(url)
        if kind == RuleKind.CASE_INSENSITIVE_PATH.value and section and "/" in section:
            positions = self.vouching.cased_positions(url, key)
            section = f"{section} #{','.join(map(str, positions)) if positions is not None else '?'}"
        return scope, True, section
