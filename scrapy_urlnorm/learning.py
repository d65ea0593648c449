"""Learn each site's own URL equivalences from redirects and identical content.

A *rule* is an equivalence one host keeps (or not): ``trailing_slash``,
``www_alias`` (only between ``h`` and ``www.h``), ``case_insensitive_path``,
``default_page:<name>``, ``ignore_param:<name>``, ``https_alias``,
``extension_alias:<ext>`` (``/x`` = ``/x.html``). Evidence
comes in pairs of URLs that differ by exactly that one aspect:

- *positive*: a redirect from one to the other (the canonical side is the
  target), a ``rel=canonical`` link from one to the other, or two 200
  responses with the same body digest;
- *negative*: two 200 responses with different digests, a redirect against
  the rule's direction, or a failed audit (a ``rel=canonical`` link against
  the direction redirects taught is neither: it still says the two are one page).

A rule applies to a host after ``min_evidence`` agreeing observations from
distinct pairs, at least one of them a redirect or identical content (a
``rel=canonical`` link alone never activates a rule: pages may name any URL
canonical), and no negative one; the first negative one revokes it for good
(but a path rule's in one section of a site where it held in another, which
narrows it out of that section: :mod:`scrapy_urlnorm.sections`).
Everything here is pure bookkeeping on already-normalized URL strings:
the Scrapy side lives in :mod:`scrapy_urlnorm.dedup` and the middlewares.

Which pairs of URLs are evidence, and finding them among the pages delivered,
is :mod:`scrapy_urlnorm.pairs`; this module is what pairs mean for rules.

Memory is bounded by what learning can still use: each page registers a
handful of URL forms (evidence buckets), and a pair is almost always found
among the recent pages of its own host, so at most ``max_buckets_per_host``
forms are remembered per host (LRU) and ``max_buckets`` in all (the host
least recently seen gives up its oldest first); at most ``max_digests`` body
digests are tracked for catch-all detection (LRU) and at most ``max_rules``
rule states (the oldest inactive ones are forgotten; when all are active, a
new rule gathers no evidence). :meth:`Learner.sizes` says how full each is
and how many entries the caps evicted. A form forgotten costs at most a rule
learned later (a duplicate fetched), never a page.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .pairs import MIN_BODY, PagePairs, one_step_pairs, pair_id
from .sections import (
    HOST_FAMILIES,
    MAX_FOLDER_CASES,
    MAX_FOLDERS,
    MAX_HELD,
    SCOPED_FAMILIES,
    cased_segments,
    directory_of,
    directory_path_of,
    folder_of,
    narrows,
    renamed_only,
    sections_of,
)
from .site_traits import SiteTraits
from .urlparts import split_url

logger = logging.getLogger(__name__)

_MAX_PAIRS = 32
MAX_RULES = 100_000


class RuleKind(str, Enum):
    """The families of rules; a rule's ``kind`` is the family, plus ``:<name>``
    for ``default_page`` and ``ignore_param``."""

    TRAILING_SLASH = "trailing_slash"
    WWW_ALIAS = "www_alias"
    CASE_INSENSITIVE_PATH = "case_insensitive_path"
    DEFAULT_PAGE = "default_page"
    IGNORE_PARAM = "ignore_param"
    HTTPS_ALIAS = "https_alias"
    EXTENSION_ALIAS = "extension_alias"
    DUPLICATE_SLASHES = "duplicate_slashes"


#: Evidence that can activate a rule on its own; ``canonical`` (a page's
#: ``rel=canonical``) only adds to it: a page may name any URL canonical.
#: ``content-location`` is the server naming the file it negotiated, and is only
#: taken for :data:`NEGOTIATED_FAMILIES`, whose every drop is verified.
CONFIRMING_SOURCES = ("redirect", "content", "shortcut_ok", "content-location")
#: Evidence of ``trailing_slash`` that holds on a site whose links are relative to
#: their directory: the server sends one form to the other, so a page is read at one.
_DIRECTORY_SAFE_SOURCES = frozenset({"redirect", "shortcut_ok"})
#: Rules whose two URLs resolve a page's directory-relative links differently.
_DIRECTORY_KINDS = frozenset({"trailing_slash"})
#: Rule families whose every drop is verified, however they were taught: their
#: traps are common where they hold (see ``audits``). A contradiction is then a
#: URL of its own (``/status`` beside ``/status.html``), not a reason to stop
#: merging the others: verified, a wrong merge costs the request stock pays.
VERIFIED_FAMILIES = frozenset({"extension_alias", "ignore_param", "default_page"})
#: What a 200 response's ``Content-Location`` may teach: the file the server chose
#: for the URL (Apache MultiViews serving ``/x`` as ``x.html``, a negotiated
#: ``DirectoryIndex``). Other uses of the header (naming a canonical URL, a query
#: variant) are claims a site makes, not a file it served: not evidence here.
NEGOTIATED_FAMILIES = frozenset({"extension_alias", "default_page"})


@dataclass
class Rule:
    """Evidence and state of one rule on one host."""

    host: str
    kind: str
    direction: str = ""
    pairs: set[int] = field(default_factory=set)
    negatives: int = 0
    active: bool = False
    revoked: bool = False
    sources: dict[str, int] = field(default_factory=dict)
    #: Body digests that already gave this rule a pair: a page served under
    #: many URLs (a catch-all) counts once, however many pairs it forms.
    digests: set[int] = field(default_factory=set)
    #: Paths where a rule verified on every drop met a URL of its own (see
    #: VERIFIED_FAMILIES): a mismatch there is that URL's, whichever rule it is
    #: blamed on (an audit names one rule of the several its key may combine).
    exceptions: set[str] = field(default_factory=set, repr=False, compare=False)
    #: Sections of the site (:mod:`scrapy_urlnorm.sections`; top directories for
    #: ``HOST_FAMILIES``) where its pairs held (how many), and those a contradiction
    #: narrowed it out of (``SCOPED_FAMILIES`` only).
    held: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    excluded: set[str] = field(default_factory=set, compare=False)
    #: ``case_insensitive_path`` only: sections where pairs that differ in the section's
    #: own name only held (``/APP/Report`` = ``/app/Report``: a front folds the name), how
    #: many. They vouch for drops that differ there only, not for the rest of the path.
    renamed: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    #: ``held`` when the rule was learned: the pairs that taught it. In a section they
    #: may all be one coincidence (a tag host's placeholder at ``/tag/Elm/`` and
    #: ``/tag/elm/``, where ``/tag/Web/`` and ``/tag/web/`` are two tags), so only pairs
    #: beyond them vouch for it there (``PlaceVouching.vouched``).
    taught: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    #: ``renamed`` when the rule was learned: likewise, only pairs beyond them vouch.
    taught_renamed: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    #: ``SCOPED_FAMILIES`` only: folders deeper than their section (``docs/legacy``) where
    #: its pairs held since it was learned, how many (see :func:`~scrapy_urlnorm.sections.folder_of`).
    folders: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    #: ``case_insensitive_path`` only: of those pairs, how many spelled each segment in two
    #: cases (``"<folder>#<index>"``). A router that folds an owner's and a repository's
    #: names passes the file path below them on as it is (Gitea, GitHub): pairs that differ
    #: in the names vouch for no drop that differs in the file's (``PlaceVouching``).
    folder_cases: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    #: Distinct pages (``digests``) that vouch for nothing more by themselves: those
    #: gathered from both twins while they were one site, once ``www_alias`` is revoked.
    vouch_base: int = field(default=0, repr=False, compare=False)
    #: ``kind`` parsed once: its family and the page or parameter name it names.
    family: RuleKind = field(init=False, repr=False, compare=False)
    argument: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        family, _, self.argument = self.kind.partition(":")
        self.family = RuleKind(family)

    def note_exception(self, *urls: str) -> None:
        """``urls`` (normalized) differ though this rule merges them: remember their paths."""
        for url in urls:
            if len(self.exceptions) >= _MAX_PAIRS:
                return
            try:
                self.exceptions.add(split_url(url).path)
            except ValueError:
                continue

    def excepts(self, url: str) -> bool:
        """Whether ``url``'s path is where this rule met a URL of its own."""
        try:
            return split_url(url).path in self.exceptions
        except ValueError:
            return False

    @property
    def positives(self) -> int:
        return len(self.pairs)

    @property
    def confirmed(self) -> bool:
        """Whether evidence other than ``rel=canonical`` links supports the rule."""
        return any(self.sources.get(source) for source in CONFIRMING_SOURCES)

    def as_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "kind": self.kind,
            "direction": self.direction,
            "pairs": sorted(self.pairs),
            "negatives": self.negatives,
            "active": self.active,
            "revoked": self.revoked,
            "sources": dict(self.sources),
            **({"held": dict(sorted(self.held.items()))} if self.held else {}),
            **({"excluded": sorted(self.excluded)} if self.excluded else {}),
            **({"renamed": dict(sorted(self.renamed.items()))} if self.renamed else {}),
            **({"taught": dict(sorted(self.taught.items()))} if self.taught else {}),
            **({"taught_renamed": dict(sorted(self.taught_renamed.items()))} if self.taught_renamed else {}),
            **({"folders": dict(sorted(self.folders.items()))} if self.folders else {}),
            **({"folder_cases": dict(sorted(self.folder_cases.items()))} if self.folder_cases else {}),
            **({"vouch_base": self.vouch_base} if self.vouch_base else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        return cls(
            host=data["host"],
            kind=data["kind"],
            direction=data.get("direction", ""),
            pairs=set(data.get("pairs", ())),
            negatives=int(data.get("negatives", 0)),
            active=bool(data.get("active")),
            revoked=bool(data.get("revoked")),
            sources=dict(data.get("sources", {})),
            held=dict(data.get("held", {})),
            excluded=set(data.get("excluded", ())),
            renamed=dict(data.get("renamed", {})),
            taught=dict(data.get("taught", {})),
            taught_renamed=dict(data.get("taught_renamed", {})),
            folders=dict(data.get("folders", {})),
            folder_cases=dict(data.get("folder_cases", {})),
            vouch_base=int(data.get("vouch_base", 0)),
        )


def negotiated_pair(url: str, location: str) -> bool:
    """Whether ``location`` is a file a server may negotiate for ``url`` (both
    normalized): one step apart, in :data:`NEGOTIATED_FAMILIES` only."""
    try:
        kinds = [kind for kind, _direction, _host in one_step_pairs(split_url(url), split_url(location))]
    except ValueError:
        return False
    return bool(kinds) and all(kind.partition(":")[0] in NEGOTIATED_FAMILIES for kind in kinds)


def _count_cased(counts: dict[str, int], folder: str, a: str, b: str) -> None:
    """Count, for ``folder``, each segment URLs ``a`` and ``b`` spell in two cases."""
    try:
        positions = cased_segments(split_url(a).path, split_url(b).path)
    except ValueError:
        return
    for position in positions:
        name = f"{folder}#{position}"
        if name in counts or len(counts) < MAX_FOLDER_CASES:
            counts[name] = counts.get(name, 0) + 1


def _count_place(rule: Rule, a: str, b: str, section: str | None, folder_of: Callable[[str, str], str | None]) -> None:
    """Where the positive pair ``a``, ``b`` of ``rule`` held: its top directory (host-wide rules)
    or section (``held``); below the top directory, a host rule's directory (``folders``); below
    a section, once the rule is active, a path rule's folder (``folders``) and, for the case
    rule, the folder's segments it spelled in two cases. What these vouch for is
    :class:`~scrapy_urlnorm.vouching.PlaceVouching`'s business."""
    if rule.family.value in HOST_FAMILIES:
        _count_directory(rule, a)
        return
    held = section
    if rule.family is RuleKind.CASE_INSENSITIVE_PATH and _first_segment_only(a, b):
        # /APP/Report = /app/Report says the front folds the section's name, not that the
        # application behind it folds the rest (/app/report is another page there):
        # such a pair vouches only for drops that differ in the name too (coincidence
        # seeds 115, 527).
        if section is not None and (section in rule.renamed or len(rule.renamed) < MAX_HELD):
            rule.renamed[section] = rule.renamed.get(section, 0) + 1
        return
    if held is None:
        return
    if held in rule.held or len(rule.held) < MAX_HELD:
        rule.held[held] = rule.held.get(held, 0) + 1
    if section is not None and rule.active:
        folder = folder_of(a, b)
        if folder and "/" in folder and (folder in rule.folders or len(rule.folders) < MAX_FOLDERS):
            rule.folders[folder] = rule.folders.get(folder, 0) + 1
            if rule.family is RuleKind.CASE_INSENSITIVE_PATH:
                _count_cased(rule.folder_cases, folder, a, b)


def _count_directory(rule: Rule, url: str) -> None:
    """Count a positive pair of host rule ``rule`` at ``url``: in its top directory, and in
    its directory where that lies deeper (both twins of a pair share the path)."""
    top, directory = directory_of(url), directory_path_of(url)
    if top is None:
        return
    if top in rule.held or len(rule.held) < MAX_HELD:
        rule.held[top] = rule.held.get(top, 0) + 1
    if directory and "/" in directory and (directory in rule.folders or len(rule.folders) < MAX_FOLDERS):
        rule.folders[directory] = rule.folders.get(directory, 0) + 1


def _first_segment_only(a: str, b: str) -> bool:
    """Whether the paths of URLs ``a`` and ``b`` differ in their first segment only."""
    try:
        return renamed_only(split_url(a).path, split_url(b).path)
    except ValueError:
        return False


class RuleBook:
    """Every rule's state, in the order first seen, and an index of the active ones by
    host. At most ``max_rules`` states: the oldest inactive one makes room for a new one."""

    def __init__(self, max_rules: int) -> None:
        self.max_rules = max_rules
        self.rules: OrderedDict[tuple[str, str], Rule] = OrderedDict()
        self._active: dict[str, dict[str, Rule]] = {}  # host -> kind -> active rule
        #: Site (bare name, both twins) -> how many times an active rule of it was revoked
        #: or narrowed: a decision taken under its rules before that may rest on one gone.
        self._retractions: dict[str, int] = {}

    def active_rules(self, host: str | None = None) -> list[Rule]:
        if host is not None:
            return list(self._active.get(host, {}).values())
        return [rule for rules in self._active.values() for rule in rules.values()]

    def is_active(self, host: str, kind: str) -> bool:
        return kind in self._active.get(host, {})

    def site_of(self, host: str) -> str:
        """Where rules of ``host`` are kept: the bare twin once the twins are one
        site (an active ``www_alias``), so evidence from both twins adds up."""
        if host.startswith("www.") and self.is_active(host[4:], RuleKind.WWW_ALIAS.value):
            return host[4:]
        return host

    def set_active(self, rule: Rule, active: bool) -> None:
        rule.active = active
        if active:
            self._active.setdefault(rule.host, {})[rule.kind] = rule
        else:
            rules = self._active.get(rule.host, {})
            rules.pop(rule.kind, None)
            if not rules:
                self._active.pop(rule.host, None)

    def rule(self, host: str, kind: str) -> Rule | None:
        """The state of a rule, made on first use; ``None`` when the rule cap
        is reached and every rule kept is active (a new rule is not kept then)."""
        rule = self.rules.get((host, kind))
        if rule is None:
            if len(self.rules) >= self.max_rules:
                oldest_inactive = next((key for key, old in self.rules.items() if not old.active), None)
                if oldest_inactive is None:
                    return None
                del self.rules[oldest_inactive]
            rule = self.rules[(host, kind)] = Rule(host, kind)
        return rule

    def retracted(self, host: str) -> None:
        """An active rule of ``host``'s site was revoked or narrowed."""
        site, retractions = host.removeprefix("www."), self._retractions
        if site in retractions or len(retractions) < self.max_rules:
            retractions[site] = retractions.get(site, 0) + 1

    def retractions_of(self, host: str) -> int:
        """How many times an active rule of ``host``'s site (either twin) was revoked or narrowed."""
        return self._retractions.get(host.removeprefix("www."), 0)


def _unshare(rules: Iterable[Rule], site: str) -> None:
    """The twins of ``site`` (its bare name) are no longer one site: the evidence its
    rules gathered from both while they were vouches for neither by place any more
    (``PlaceVouching.vouched``); what held in the ``www`` twin's ``/app/`` said nothing of
    the bare twin's, where the first drops are verified again. Coincidence seed 2472
    (``--kills 2``): ``h/app/users/``, released when ``www_alias`` was revoked, was
    dropped unverified against ``h/app/Users/``, another page, by the bare twin's case
    rule, vouched for under ``/app/`` by pairs of the ``www`` twin's."""
    for rule in [rule for rule in rules if rule.host == site]:  # (rare: no index needed)
        rule.taught = dict(rule.held) if rule.family.value in SCOPED_FAMILIES else {}
        if rule.family.value in HOST_FAMILIES:
            rule.held.clear()
        rule.taught_renamed = dict(rule.renamed)
        rule.folders.clear()
        rule.folder_cases.clear()
        rule.vouch_base = len(rule.digests)


def _needed(rule: Rule, min_evidence: int, traits: SiteTraits) -> int:
    """How many distinct pairs activate ``rule``."""
    if rule.kind == "case_insensitive_path" and traits.is_iis(rule.host):
        return max(1, min_evidence - 1)  # IIS serves paths case-insensitively
    if rule.family is RuleKind.DEFAULT_PAGE and rule.sources.get("redirect"):
        # A server that redirects /index.html to / says so for its directory
        # convention: small hosts never show a second pair. Audits check its drops.
        return 1
    return min_evidence


class Learner:
    """Collects evidence and keeps the rules; calls ``on_change(rule)`` when a
    rule becomes active or is revoked."""

    def __init__(
        self,
        *,
        min_evidence: int = 2,
        on_change: Callable[[Rule], None] | None = None,
        share: Callable[[Rule, int | None], int] | None = None,
        max_buckets: int | None = None,
        max_digests: int | None = None,
        max_rules: int | None = None,
        max_buckets_per_host: int | None = None,
    ) -> None:
        self.min_evidence = max(1, min_evidence)
        self.on_change = on_change
        # Distributed crawls: share(rule, pair) records a positive pair for all
        # workers and returns how many distinct pairs they found together;
        # share(rule, None) tells them a rule not yet active was contradicted.
        self.share = share
        self.pages = PagePairs(
            max_buckets=max_buckets, max_digests=max_digests, max_buckets_per_host=max_buckets_per_host
        )
        self.max_rules = MAX_RULES if max_rules is None else max_rules
        self.book = RuleBook(self.max_rules)
        self.rules = self.book.rules  # (host, kind) -> rule state, oldest first
        #: IIS hosts, and sites that link relatively (past ``max_rules`` of them: every site).
        self.traits = SiteTraits(self.max_rules)
        #: The section of the site a pair of URLs is in, read from their learned keys
        #: (:meth:`~scrapy_urlnorm.hostrules.LearnedPolicies.section_of`); ``None``: not one.
        self.section_of: Callable[[str, str], str | None] = sections_of
        #: Likewise, the folder (:func:`~scrapy_urlnorm.sections.folder_of`).
        self.folder_of: Callable[[str, str], str | None] = lambda a, b: sections_of(a, b, folder_of)
        #: How many times an active rule of a host's site was revoked or narrowed.
        self.retractions_of = self.book.retractions_of

    # -- observations -------------------------------------------------------------

    def observe_redirect(self, source: str, target: str, *, via: str = "redirect") -> None:
        """``source`` redirected to ``target`` (both normalized by the static policy)."""
        try:
            u, v = split_url(source), split_url(target)
        except ValueError:
            return
        if source == target:
            return
        for kind, direction, host in one_step_pairs(u, v):
            self._evidence(host, kind, source, target, positive=True, via=via, direction=direction)

    def observe_content_location(self, url: str, location: str) -> None:
        """A 200 response for ``url`` named ``location`` as the file it served (both
        normalized by the static policy): like a redirect to it, for the pairs
        :func:`negotiated_pair` accepts."""
        if negotiated_pair(url, location):
            self.observe_redirect(url, location, via="content-location")

    def observe_canonical(self, url: str, canonical: str) -> None:
        """A page names another form of its URL as canonical: like a redirect to it."""
        self.observe_redirect(url, canonical, via="canonical")

    def observe_page(
        self, url: str, digest: int, *, length: int = MIN_BODY, server: str = "", relative_links: bool = False
    ) -> bool:
        """A 200 response for ``url`` (normalized by the static policy) with body ``digest``;
        ``relative_links``: the page has links relative to its directory (``a.html``, ``../b``).
        True if it differs from the page of a URL some rule would merge it with."""
        try:
            u = split_url(url)
        except ValueError:
            return False
        self.traits.saw_server(u.host, server)
        if relative_links:
            self._relative_links(u.host)
        differs = False
        for host, kind, other, same in self.pages.page(u, url, digest, length):
            self._evidence(host, kind, other, url, positive=same, via="content", digest=digest if same else None)
            differs = differs or not same
        return differs

    def _relative_links(self, host: str) -> None:
        """``host`` serves a page whose links are relative to its directory. ``/x`` and
        ``/x/`` are then two pages to a crawler even where the server answers both with
        one body: their links lead to different URLs (``b.html`` is ``/b.html`` from
        ``/x``, ``/x/b.html`` from ``/x/``), and the links of the one dropped would never
        be seen. Such a site's ``trailing_slash`` holds only as its redirects teach it (the
        page is then only ever read at the form it redirects to, and every such drop is
        verified): a rule content or ``rel=canonical`` taught is revoked, and that
        evidence no longer counts."""
        if not self.traits.links_relatively(host):
            return
        site = host.removeprefix("www.")
        for rule in [self.rules.get((name, kind)) for name in (site, f"www.{site}") for kind in _DIRECTORY_KINDS]:
            if rule is not None and not rule.revoked and not rule.sources.get("redirect"):
                rule.sources["relative_links"] = rule.sources.get("relative_links", 0) + 1
                rule.negatives += 1
                self.revoke(rule, f"{host} serves pages with links relative to their directory")

    def resolves_by_directory(self, host: str) -> bool:
        """Whether ``host``'s site was seen serving pages with links relative to their directory."""
        return self.traits.resolves_by_directory(host)

    def moves_links(self, host: str, kind: str) -> bool:
        """Whether the two URLs rule ``kind`` merges on ``host`` read one body with links
        that lead to different URLs: ``trailing_slash`` where the site links relatively
        (see :meth:`_relative_links`). Nothing of such a pair may settle the other.
        Not ``duplicate_slashes``: ``urljoin`` (Scrapy's) drops empty segments as it
        resolves ``..``, so ``/x//y/z`` and ``/x/y/z`` send every link to one page."""
        return kind in _DIRECTORY_KINDS and self.resolves_by_directory(host)

    def contradict(self, host: str, kind: str, source: str, target: str, *, via: str = "audit") -> None:
        """Negative evidence from outside (a failed audit)."""
        self._evidence(host, kind, source, target, positive=False, via=via)

    # -- state --------------------------------------------------------------------

    def active_rules(self, host: str | None = None) -> list[Rule]:
        """Active rules of ``host`` (indexed: no scan), or of every host."""
        return self.book.active_rules(host)

    def is_active(self, host: str, kind: str) -> bool:
        return self.book.is_active(host, kind)

    def site_of(self, host: str) -> str:
        """Where rules of ``host`` are kept (see :meth:`RuleBook.site_of`)."""
        return self.book.site_of(host)

    def sizes(self) -> dict[str, int]:
        """How full each bounded structure is (entries, not bytes)."""
        return {
            **self.pages.sizes(),
            "rule_states": len(self.rules),
            **self.traits.sizes(),
        }

    def _evidence(
        self,
        host: str,
        kind: str,
        a: str,
        b: str,
        *,
        positive: bool,
        via: str,
        direction: str = "",
        digest: int | None = None,
    ) -> None:
        if kind != RuleKind.WWW_ALIAS.value:
            host = self.site_of(host)
        rule = self.book.rule(host, kind)
        if rule is None:
            return
        if positive and via not in _DIRECTORY_SAFE_SOURCES and self.moves_links(host, kind):
            return  # (see _relative_links)
        rule.sources[via] = rule.sources.get(via, 0) + 1
        if rule.revoked:
            return
        section = self.section_of(a, b) if rule.family.value in SCOPED_FAMILIES else None
        if section is not None and section in rule.excluded:
            return  # (a section the rule was narrowed out of: nothing there bears on it)
        if positive and digest is not None:
            if digest in rule.digests:
                return
            if len(rule.digests) < _MAX_PAIRS:
                rule.digests.add(digest)
        if positive:
            _count_place(rule, a, b, section, self.folder_of)
        if positive and direction and rule.direction and direction != rule.direction:
            if via == "canonical" and rule.sources.get("redirect"):
                # The server's redirects say which form it serves; a page naming the
                # other one canonical still says the two are one page (a site moved to
                # https:// whose pages name http://): no evidence either way.
                return
            positive = False  # redirects both ways: a loop, or no canonical form
        if not positive:
            rule.negatives += 1
            if rule.family.value in VERIFIED_FAMILIES and not direction:
                logger.debug("Rule %s on %s keeps merging other URLs (%s: %s vs %s differ)", kind, host, via, a, b)
                rule.note_exception(a, b)
                return
            if not direction and narrows(rule.held, rule.excluded, section):
                assert section is not None
                self._narrow(rule, section, f"{via}: {a} vs {b}")
                return
            self.revoke(rule, f"contradicted by {via}: {a} vs {b}")
            return
        if direction and not rule.direction:
            rule.direction = direction
        pair = pair_id(a, b)
        if len(rule.pairs) < _MAX_PAIRS:
            rule.pairs.add(pair)
        pairs = len(rule.pairs)
        if self.share is not None and not rule.active:
            pairs = max(pairs, self.share(rule, pair))
        if not rule.active and pairs >= _needed(rule, self.min_evidence, self.traits) and rule.confirmed:
            rule.taught = dict(rule.held)  # (the pairs that taught it vouch for nothing more)
            rule.taught_renamed = dict(rule.renamed)
            self.book.set_active(rule, True)
            logger.debug(
                "Learned rule %s%s on %s from %d pair(s) (%s)",
                kind,
                f" ({rule.direction})" if rule.direction else "",
                host,
                pairs,
                ", ".join(f"{k}: {v}" for k, v in sorted(rule.sources.items())),
            )
            self.changed(rule)

    def revoke(self, rule: Rule, why: str) -> None:
        rule.revoked = True
        if not rule.active and self.share is not None:
            self.share(rule, None)
        if rule.active and rule.family is RuleKind.WWW_ALIAS:
            _unshare(self.rules.values(), rule.host)
        if rule.active:
            self.book.retracted(rule.host)
            self.book.set_active(rule, False)
            logger.debug("Revoked rule %s on %s (%s)", rule.kind, rule.host, why)
            self.changed(rule)
        else:
            logger.debug("Rule %s on %s will not be learned (%s)", rule.kind, rule.host, why)

    def _narrow(self, rule: Rule, section: str, why: str) -> None:
        """``rule`` no longer applies in ``section`` (see :mod:`scrapy_urlnorm.sections`)."""
        rule.excluded.add(section)
        logger.debug(
            "Rule %s on %s no longer applies under /%s/ (contradicted by %s)", rule.kind, rule.host, section, why
        )
        if rule.active:
            self.book.retracted(rule.host)
            self.changed(rule)
        elif self.share is not None:
            self.share(rule, None)

    def changed(self, rule: Rule) -> None:
        if self.on_change is not None:
            self.on_change(rule)

    # -- persistence --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "rules": [rule.as_dict() for rule in self.rules.values()]}


def policy_overrides(rules: list[Rule]) -> dict[str, Any]:
    """The per-host policy switches that implement ``rules`` (active rules of one host)."""
    overrides: dict[str, Any] = {}
    learned: set[str] = set()
    for rule in rules:
        family = rule.family
        if family is RuleKind.TRAILING_SLASH:
            overrides["trailing_slash"] = rule.direction or "add"
            learned.add("trailing_slash")
        elif family is RuleKind.WWW_ALIAS:
            # Both twins map to the bare name: that keys them alike whichever
            # one the site prefers (the direction is kept for the report).
            overrides["www"] = "strip"
            learned.add("www")
        elif family is RuleKind.CASE_INSENSITIVE_PATH:
            overrides["lowercase_path"] = True
            learned.add("lowercase_path")
        elif family is RuleKind.DEFAULT_PAGE:
            overrides.setdefault("default_pages", set()).add(rule.argument)
            learned.add("default_pages")
        elif family is RuleKind.IGNORE_PARAM:
            overrides.setdefault("ignore_params", set()).add(rule.argument)
            learned.add("ignore_params")
        elif family is RuleKind.HTTPS_ALIAS:
            overrides["https_to_http"] = True
            learned.add("https_to_http")
        elif family is RuleKind.EXTENSION_ALIAS:
            overrides.setdefault("alias_extensions", set()).add(rule.argument)
            learned.add("extension_alias")
        elif family is RuleKind.DUPLICATE_SLASHES:
            overrides["collapse_slashes"] = True
            learned.add("collapse_slashes")
    overrides["learned_steps"] = frozenset(learned)
    return overrides
