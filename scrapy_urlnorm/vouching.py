"""Where a learned rule's content vouched for it: the pairs that matched by place.

Split from :mod:`scrapy_urlnorm.audit_choice`, which decides which drops to audit; this
answers whether a drop's rule has been seen holding where the drop is. A path rule
(``case_insensitive_path``, ``trailing_slash``, ``duplicate_slashes``) is vouched for per
section of its site, and below it per folder (another backend may be mounted there); a
case rule's pairs in a folder vouch only for the segments they spelled in two cases. A
host rule (``www_alias``, ``https_alias``) is vouched for per top directory, and below it
per directory. Every such rule in force at the drop's URL must have held there, as a
learned key applies them all, unless the drop is one step from a URL that delivered its
page, in its own rule's aspect alone: no other rule merged the two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .learning import Rule, RuleKind
from .sections import HOST_FAMILIES, SCOPED_FAMILIES, cased_segments, directory_of, directory_path_of, renamed_only
from .urlparts import SplitURL, split_url

if TYPE_CHECKING:
    from collections.abc import Collection

    from .audits import Auditor
    from .dedup import Deduplicator

#: Pairs beyond those that activated a rule that vouch for it where they matched
#: (and drops of a learned rule audited unconditionally until then).
VERIFY_FIRST = 2
#: Rule families vouched for by place.
_BY_SECTION = SCOPED_FAMILIES | HOST_FAMILIES


class PlaceVouching:
    """Whether a learned rule held where a drop is (see the module's docstring)."""

    def __init__(self, dedup: Deduplicator, auditor: Auditor) -> None:
        self.dedup = dedup
        self.auditor = auditor

    def vouched(self, host: str, reason: str, url: str, key: int | None = None) -> bool:
        """Whether the learned rule behind ``reason`` on ``host``'s site matched by content
        on :data:`VERIFY_FIRST` more distinct pages than activated it (pairs downloaded
        while it was undecided or in flight, audits that found its pages): what its first
        audited drops would show, it showed already. A path rule's, in ``url``'s section:
        on :data:`VERIFY_FIRST` pages there; a host rule's, on one page of ``url``'s top
        directory too, and one of its directory where that lies deeper (a pair, or an
        audit that confirmed a drop, there). A drop against ``key`` that spells a
        section's name otherwise than a URL that delivered its page is vouched for by
        pairs that did so in the section (:meth:`_renamed`)."""
        learned, learner = self.dedup.learned, self.dedup.learner
        rule = self.rule_behind(host, reason)
        if learned is None or learner is None or rule is None or not self._held_in(rule, url, key):
            return False
        # A learned key applies all the host's rules at once, and the drop is reported under
        # the rule that changed its own URL: the representative's may have needed another
        # (www.h/app/report against the delivered www.h/app/Report, reported under
        # www_alias, merged by a case rule that never held under /app/: coincidence seed 103).
        # Every sampled path or host rule in force at the URL must have held there too.
        if not self.others_held(host, url, key, rule.kind) and not self._one_step(url, key, rule):
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
        section for a path rule, one in its top directory and one in its directory (below the
        top) for a host rule (with its host-wide count, :meth:`vouched`); any other rule is
        not counted by place."""
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
                return self._held_in_folder(rule, url, key)
            renamed = rule.renamed.get(section, 0) - rule.taught_renamed.get(section, 0)
            return renamed >= VERIFY_FIRST and self._renamed(url, key)
        if family in HOST_FAMILIES:
            if rule.held.get(directory_of(url) or "", 0) < 1:
                return False
            # Below the top, a directory of its own (another virtual host may be routed to
            # /support/blog/ on one twin, where the rest of /support/ is one site).
            directory = directory_path_of(url) or ""
            return "/" not in directory or rule.folders.get(directory, 0) >= 1
        return True

    def _one_step(self, url: str, key: int | None, rule: Rule) -> bool:
        """Whether ``url`` differs from a URL that delivered the page of ``key`` in ``rule``'s
        aspect alone, as far as remembered: then no other rule merged the two, and none need
        have held where ``url`` is (``www.h/requests/user/install.html`` against the delivered
        ``h/requests/user/install.html`` rests on ``www_alias`` alone, not on a doubled-slash
        rule that has no pair in that folder: each such folder spent its audit budget on them)."""
        learner, known = self.dedup.learner, self._delivered(url, key)
        return learner is not None and known is not None and rule.kind in learner.pages.one_step_kinds(*known)

    def _held_in_folder(self, rule: Rule, url: str, key: int | None) -> bool:
        """Whether path rule ``rule``, vouched for in ``url``'s section, held in its folder
        too where that lies deeper (:data:`VERIFY_FIRST` pairs there since it was learned):
        another backend mounted at ``/docs/legacy/`` serves paths as it does, whatever its
        pairs in ``/docs/`` showed (random webs with a nested mixed section: an IIS site's
        case rule, vouched for in ``/docs/``, dropped ``/Docs/legacy/results.htm`` against
        ``/Docs/legacy/RESULTS.htm``, two pages). A case rule's pairs there vouch only for the
        segments they spelled in two cases (:meth:`_cases_held`)."""
        learned = self.dedup.learned
        folder = (learned.folder_of(url) if learned is not None else None) or ""
        if "/" not in folder:
            return True
        if rule.folders.get(folder, 0) < VERIFY_FIRST:
            return False
        return rule.family is not RuleKind.CASE_INSENSITIVE_PATH or self._cases_held(rule, folder, url, key)

    def _cases_held(self, rule: Rule, folder: str, url: str, key: int | None) -> bool:
        """Whether ``url`` spells, in another case than a URL of its host that delivered
        the page of ``key``, only segments that :data:`VERIFY_FIRST` of case rule ``rule``'s
        pairs in ``folder`` spelled in two cases. Gitea and GitHub fold the owner's and the
        repository's names and serve the files below them as named: pairs of
        ``/NorthWind/RiverDB/src/branch/main/README.md`` and ``/northwind/riverdb/...``
        vouch for ``/northwind/riverdb/.../docs/setup.md`` against ``/NorthWind/...``, not
        for ``readme.md`` against ``README.md``, another file (community seed 79). Where no
        such URL is remembered, nothing says which segments the drop spells otherwise."""
        path, spellings = self._spellings(url, key)
        counts = rule.folder_cases
        for spelled in spellings:
            positions = cased_segments(path, spelled)
            if (positions or path == spelled) and all(
                counts.get(f"{folder}#{position}", 0) >= VERIFY_FIRST for position in positions
            ):
                return True
        return False

    def cased_positions(self, url: str, key: int | None) -> tuple[int, ...] | None:
        """The segments (by index) ``url`` spells in another case than a URL of its host that
        delivered the page of ``key``: the fewest, over those remembered; ``None`` where none
        is remembered (see :meth:`_spellings`)."""
        path, spellings = self._spellings(url, key)
        found = [positions for positions in (cased_segments(path, spelled) for spelled in spellings) if positions]
        return min(found, key=len) if found else None

    def _renamed(self, url: str, key: int | None) -> bool:
        """Whether ``url`` differs in its section's name only from a URL of its host that
        delivered the page of ``key`` (``/SHOP/c.htm`` against the delivered ``/shop/c.htm``):
        what pairs renaming the section vouch for, and no more (``/app/export`` against
        ``/app/Export`` is another page behind a front that folds only ``/APP/``)."""
        path, spellings = self._spellings(url, key)
        return any(renamed_only(path, spelled) for spelled in spellings)

    def _spellings(self, url: str, key: int | None) -> tuple[str, list[str]]:
        """``url``'s path (normalized by the static policy), and the paths that spelled it
        in another case on its host and delivered the page of ``key``, as far as remembered
        (none where that page, or ``url``, is unknown)."""
        learner, known = self.dedup.learner, self._delivered(url, key)
        if learner is None or known is None:
            return "", []
        return known[0].path, learner.pages.delivered_spellings(*known)

    def _delivered(self, url: str, key: int | None) -> tuple[SplitURL, int] | None:
        """``url`` normalized by the static policy, split, and the digest of the page ``key``
        names: what is asked of the pages delivered (``None`` where either is unknown)."""
        digest = None if key is None else self.auditor.digest(key)
        if digest is None:
            return None
        try:
            return split_url(self.dedup.normalize(url)[0] or ""), digest
        except ValueError:
            return None

    def rule_behind(self, host: str, reason: str) -> Rule | None:
        """The active rule of ``host``'s site behind learned drop ``reason``."""
        learned = self.dedup.learned
        kind = reason.removeprefix("learned:")
        return None if learned is None else next((r for r in learned.rules_of(host) if r.kind == kind), None)
