"""What the learner's active rules mean for each host: a learned policy and redirect shortcuts.

:class:`LearnedPolicies` keeps, per host with active rules, the static policy
with the rules' switches on top and a *namespace*: a hash of the host's rule
set (kinds and directions). The same rules give the same namespace in every
run and every worker, so learned keys written to ``JOBDIR`` or Redis still
match after a restart; a revoked rule changes the namespace, so nothing keyed
under it matches again.

A ``www_alias`` rule lives on the bare host but applies to both twins, and
once it holds the twins are one *site*: each gets the union of both twins'
rules, so both have the same learned policy, namespace and shortcuts (their
variants key alike whichever twin a link names).

A host whose rules mix ``VERIFIED_FAMILIES`` with others also gets a *narrow*
policy, the others only; one whose rules mix *strict* ones (verified on every drop:
``VERIFIED_FAMILIES``, and the rules its redirects taught while
``URLNORM_VERIFY_REDIRECT_RULES`` is on) with others, a *lenient* one, the others
only (see :mod:`scrapy_urlnorm.narrow`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import xxhash

from .learning import VERIFIED_FAMILIES, Learner, Rule, RuleKind, policy_overrides
from .normalize import host_key, normalize_url
from .policy import Policy
from .sections import ScopedPolicy, folder_of, section_of
from .steps import LEARNED_FAMILY_RANKS, trailing_slash
from .urlparts import HOST, PORT, SCHEME, SplitURL, replace_field, split_url, unsplit_url

_SLASH_POLICIES = {"add": Policy(trailing_slash="add"), "remove": Policy(trailing_slash="remove")}
#: Rule kinds whose direction a host's redirects teach, and so can be shortcut.
_SHORTCUT_FAMILIES = (RuleKind.TRAILING_SLASH, RuleKind.WWW_ALIAS, RuleKind.HTTPS_ALIAS)
_SHORTCUT_DIRECTIONS = ("add", "remove", "strip", "http", "https")


def _params(query: str | None) -> dict[str, str]:
    """``query``'s values by lowercased name: ``ignore_param`` rules are named and applied so
    (``steps.ignore_params``), and Apache's listings spell theirs ``?C=M;O=A``."""
    pairs = (part.partition("=") for part in (query or "").split("&") if part)
    return {name.lower(): value for name, _, value in pairs}


def may_merge(rule: Rule, a: SplitURL, b: SplitURL) -> bool:
    """Whether ``rule`` may be what makes ``a`` and ``b`` one key: the aspect of the URL
    it merges differs between them (``True`` where the aspect is not told apart). What a
    shortcut is judged by (:func:`shortcut_held`) and an audit's blame
    (:mod:`scrapy_urlnorm.blame`)."""
    family, name = rule.family, rule.argument
    if family is RuleKind.WWW_ALIAS:
        return host_key(a.host) != host_key(b.host)
    if family is RuleKind.HTTPS_ALIAS:
        return a.scheme.lower() != b.scheme.lower()
    if family is RuleKind.TRAILING_SLASH:
        return a.path.endswith("/") != b.path.endswith("/")
    if family is RuleKind.CASE_INSENSITIVE_PATH:
        return a.path != b.path
    if family is RuleKind.DUPLICATE_SLASHES:
        return ("//" in a.path) != ("//" in b.path)
    if family is RuleKind.DEFAULT_PAGE and name:
        ending = "/" + name.lower()
        return a.path.lower().endswith(ending) != b.path.lower().endswith(ending)
    if family is RuleKind.EXTENSION_ALIAS and name:
        ending = "." + name.lower()
        return a.path.lower().endswith(ending) != b.path.lower().endswith(ending)
    if family is RuleKind.IGNORE_PARAM and name:
        return _params(a.query).get(name) != _params(b.query).get(name)
    return True


def shortcut_held(rule: Rule, sent: str, final: str) -> bool:
    """Whether the aspect of the URL ``rule`` rewrote in the shortcut ``sent`` is what
    the site delivered at ``final`` (the link as written, after its redirects): host
    for ``www_alias``, the trailing slash, the scheme."""
    if rule.family not in _SHORTCUT_FAMILIES:
        return False
    try:
        return not may_merge(rule, split_url(sent), split_url(final))
    except ValueError:
        return False


def twins(host: str) -> tuple[str, str]:
    """``host``'s bare name and its ``www.`` twin."""
    bare = host.removeprefix("www.")
    return bare, "www." + bare


def namespace_of(rules: list[Rule]) -> int:
    """A stable id of a host's rule set (63 bits, so it prints as a plain int): what
    the rules do, not which twin learned them. Twins that become one site may each
    have learned a rule of one kind; the second one activating changes nothing, so it
    must not rename every learned key of the site (queued claims would be missed)."""
    text = "|".join(sorted({f"{rule.kind} {rule.direction}{_excluded(rule)}" for rule in rules}))
    return xxhash.xxh3_64_intdigest(text.encode("utf-8", "surrogatepass")) >> 1


def _excluded(rule: Rule) -> str:
    """How the namespace spells where ``rule`` was narrowed out of (``""`` for nowhere)."""
    return " -" + ",".join(sorted(rule.excluded)) if rule.excluded else ""


def learned_policy(base: Policy, rules: list[Rule]) -> Policy:
    """``base`` with ``rules`` (active rules of one host) on top: a
    :class:`~scrapy_urlnorm.sections.ScopedPolicy` where some were narrowed."""
    policy = _with_rules(base, rules)
    sections = {section for rule in rules for section in rule.excluded}
    if not sections:
        return policy
    outside = {
        section: _with_rules(base, [rule for rule in rules if section not in rule.excluded]) for section in sections
    }
    return ScopedPolicy(**{f.name: getattr(policy, f.name) for f in fields(Policy) if f.init}, outside=outside)


def _with_rules(base: Policy, rules: list[Rule]) -> Policy:
    overrides = policy_overrides(rules)
    if "default_pages" in overrides:
        names = (*base.default_pages, *sorted(overrides["default_pages"]))
        overrides["default_pages"] = tuple(dict.fromkeys(names))
    if "alias_extensions" in overrides:
        overrides["alias_extensions"] = frozenset(base.alias_extensions | overrides["alias_extensions"])
    if "ignore_params" in overrides:
        overrides["ignore_params"] = frozenset(base.ignore_params | overrides["ignore_params"])
    return base.replace(**overrides)


def _consistent(rules: list[Rule]) -> list[Rule]:
    """``rules`` without those another one contradicts. A host that serves ``/x`` as
    ``/x.html`` (``extension_alias``) has extensionless URLs that are pages, so its
    ``/x`` -> ``/x/`` redirects only say that *some* of them are directories (Apache
    MultiViews with DirectorySlash serves both ``/status`` and ``/status/``): adding the
    slash to every extensionless URL would merge a page with a directory index."""
    if any(rule.family is RuleKind.EXTENSION_ALIAS for rule in rules):
        return [r for r in rules if not (r.family is RuleKind.TRAILING_SLASH and r.direction == "add")]
    return rules


def conflicts_with_active(rule: Rule, active: list[Rule]) -> bool:
    """Whether ``rule`` becoming active takes another active rule out of use."""
    return rule.family is RuleKind.EXTENSION_ALIAS and any(
        r.family is RuleKind.TRAILING_SLASH and r.direction == "add" for r in active
    )


@dataclass(frozen=True)
class NarrowPolicy:
    """A host's learned policy with some of its rules left out (see :mod:`scrapy_urlnorm.narrow`)."""

    policy: Policy
    namespace: int
    #: The ranks of the rules left out.
    left_out: frozenset[int]
    #: The riskiest of them: what a drop that may rest on one is reported under.
    riskiest: int


class LearnedPolicies:
    """Host -> (learned policy, namespace), and the hosts' redirect shortcuts."""

    def __init__(self, policy: Policy, learner: Learner) -> None:
        self.policy = policy
        self.learner = learner
        self.by_host: dict[str, tuple[Policy, int]] = {}
        #: Hosts whose rules mix ``VERIFIED_FAMILIES`` with others: the others' policy.
        self.narrow_by_host: dict[str, NarrowPolicy] = {}
        #: Hosts whose rules mix strict ones (:meth:`verifies_every`) with others: the others' policy.
        self.lenient_by_host: dict[str, NarrowPolicy] = {}
        self._shortcuts: dict[str, tuple[Rule, ...]] = {}
        #: Host -> the families other than the shortcuts' its redirects taught (``case_insensitive_path``,
        #: ``duplicate_slashes``): strict, as the shortcuts are.
        self._taught: dict[str, frozenset[str]] = {}
        #: ``URLNORM_VERIFY_REDIRECT_RULES``: every drop of a redirect-taught rule is verified.
        self.verify_taught = True
        #: (site, family) of redirect-taught rules whose site answers their verifications
        #: with pages, not redirects: sampled as content-taught rules are (:meth:`sample`).
        self.sampled: set[tuple[str, str]] = set()
        #: The last URL :meth:`section_of` or :meth:`folder_of` answered for, and its key
        #: under every rule (an audit's choice asks several times per drop); forgotten
        #: when rules change.
        self._last_key: tuple[str, str | None] | None = None

    def __bool__(self) -> bool:
        return bool(self.by_host)

    def get(self, host: str) -> tuple[Policy, int] | None:
        return self.by_host.get(host)

    def aliased(self, host: str) -> bool:
        """Whether ``host`` and its www twin are one site (an active ``www_alias``)."""
        return self.learner.is_active(twins(host)[0], RuleKind.WWW_ALIAS.value)

    def site_hosts(self, host: str) -> tuple[str, ...]:
        """The hosts that share ``host``'s rules: both twins once they are aliased."""
        return twins(host) if self.aliased(host) else (host,)

    def verifies_every(self, host: str, family: str) -> bool:
        """Whether every drop of rule ``family`` on ``host`` is verified (the rule is
        *strict*): a family of ``VERIFIED_FAMILIES``, or one ``host``'s redirects taught
        (a shortcut's, or any other rule with redirect evidence, such as
        ``case_insensitive_path``: see :mod:`scrapy_urlnorm.audits`)."""
        if family in VERIFIED_FAMILIES:
            return True
        if not self.verify_taught:
            return False
        if self.sampled and (self.site_key(host, family), family) in self.sampled:
            return False
        if family in self._taught.get(host, ()):
            return True
        return any(rule.family.value == family for rule in self.shortcut_rules(host))

    def rules_of(self, host: str) -> list[Rule]:
        """Active rules that apply to ``host``: its own, and its twin's once the twins are one site."""
        if not self.aliased(host):
            return _consistent(self.learner.active_rules(host))
        rules: dict[str, Rule] = {}
        pair = twins(host)
        for twin in pair:
            for rule in self.learner.active_rules(twin):
                # Not one the other twin refused: a case rule learned on www.h before the twins
                # were one site, while h's was contradicted under /app/, merged h/app/report
                # with h/app/Report (coincidence seed 37).
                if not any(self._refused(other, rule.kind) for other in pair if other != twin):
                    rules.setdefault(rule.kind, rule)
        return _consistent(list(rules.values()))

    def _refused(self, host: str, kind: str) -> bool:
        rule = self.learner.rules.get((host, kind))
        return rule is not None and rule.revoked

    def site_key(self, host: str, family: str) -> str:
        """The host a rule of ``family`` on ``host``'s site is kept under: the bare twin
        for ``www_alias``, and for any rule once the twins are one site."""
        return twins(host)[0] if family == RuleKind.WWW_ALIAS.value or self.aliased(host) else host

    def sample(self, host: str, family: str) -> None:
        """The redirect-taught rule ``family`` of ``host``'s site is checked from now on
        as a content-taught one: by sampled audits, not on every drop. Its verifications
        downloaded its pages again and again (the site serves both spellings; a redirect
        elsewhere, such as a loop's, taught the rule), and confirmed it each time."""
        site = self.site_key(host, family)
        self.sampled.add((site, family))
        self._rebuild_hosts(twins(site) if family == RuleKind.WWW_ALIAS.value else self.site_hosts(site))

    def rebuild(self, rule: Rule) -> tuple[str, ...]:
        """``rule`` changed: rebuild the hosts it applies to; returns them."""
        hosts = twins(rule.host) if rule.family is RuleKind.WWW_ALIAS else self.site_hosts(rule.host)
        self._rebuild_hosts(hosts)
        return hosts

    def _rebuild_hosts(self, hosts: tuple[str, ...]) -> None:
        self._last_key = None
        for host in hosts:
            rules = self.rules_of(host)
            shortcuts = tuple(
                r
                for r in rules
                if r.family in _SHORTCUT_FAMILIES and r.direction in _SHORTCUT_DIRECTIONS and r.sources.get("redirect")
            )
            if shortcuts:
                self._shortcuts[host] = shortcuts
            else:
                self._shortcuts.pop(host, None)
            # A server that redirects case variants (Apache's mod_speling) corrects a
            # path it has no file for: where both spellings are files, each is served
            # as itself (Debian's valgrind manual: FAQ.html and faq.html, one lost).
            taught = frozenset(
                r.family.value for r in rules if r.family not in _SHORTCUT_FAMILIES and r.sources.get("redirect")
            )
            if taught:
                self._taught[host] = taught
            else:
                self._taught.pop(host, None)
            self.narrow_by_host.pop(host, None)
            self.lenient_by_host.pop(host, None)
            if not rules:
                self.by_host.pop(host, None)
                continue
            base = self.policy.for_host(host)
            self._narrow(host, base, rules)
            self.by_host[host] = (learned_policy(base, rules), namespace_of(rules))

    def _narrow(self, host: str, base: Policy, rules: list[Rule]) -> None:
        """``host``'s narrow policies (see :mod:`scrapy_urlnorm.narrow`): its rules less
        the ``VERIFIED_FAMILIES`` ones, and its rules less the strict ones, each where
        it leaves some rules out and keeps some."""
        for table, left_out in (
            (self.narrow_by_host, lambda rule: rule.family.value in VERIFIED_FAMILIES),
            (self.lenient_by_host, lambda rule: self.verifies_every(host, rule.family.value)),
        ):
            kept: list[Rule] = []
            dropped: list[Rule] = []
            for rule in rules:
                (dropped if left_out(rule) else kept).append(rule)
            ranks = frozenset(LEARNED_FAMILY_RANKS[rule.family.value] for rule in dropped)
            if kept and ranks:
                table[host] = NarrowPolicy(learned_policy(base, kept), namespace_of(kept), ranks, max(ranks))

    def section_of(self, url: str) -> str | None:
        """The section of its site ``url`` is in: that of its key under every rule
        of its host (see :mod:`scrapy_urlnorm.sections`)."""
        key = self._full_key(url)
        return None if key is None else section_of(key)

    def folder_of(self, url: str) -> str | None:
        """The folder ``url`` is in (:func:`~scrapy_urlnorm.sections.folder_of`), read
        from its key under every rule of its host, as its section is."""
        key = self._full_key(url)
        return None if key is None else folder_of(key)

    def _full_key(self, url: str) -> str | None:
        """``url`` normalized under every rule of its host (``None``: it does not parse)."""
        last = self._last_key
        if last is not None and last[0] == url:
            return last[1]
        try:
            learned = self.by_host.get(host_key(split_url(url).host))
            key: str | None = normalize_url(url, learned[0] if learned else self.policy)
        except ValueError:
            key = None
        self._last_key = (url, key)
        return key

    def shortcut_rules(self, host: str) -> tuple[Rule, ...]:
        bare = host.removeprefix("www.")
        own = self._shortcuts.get(host, ())
        if bare == host:
            return own
        # The bare twin's www_alias shortcut applies to the www host before the twins are
        # one site too (the alias rule lives on the bare host).
        return (*own, *(r for r in self._shortcuts.get(bare, ()) if r.family is RuleKind.WWW_ALIAS and r not in own))

    def canonical_url(self, url: str) -> str | None:
        """The form of ``url`` its host's own redirects taught us to request
        (``/dir`` -> ``/dir/``, ``www.h`` -> ``h``), or ``None`` if no such rule applies.

        Only rules that came with a direction from the site's redirects count,
        and only their aspect of the URL changes: the rest is sent as written.
        """
        if not self._shortcuts:
            return None
        try:
            u = split_url(url)
        except ValueError:
            return None
        new = u
        host = host_key(u.host)
        bare = host.removeprefix("www.")
        for rule in self.shortcut_rules(host):
            if rule.family is RuleKind.WWW_ALIAS:
                if rule.direction == "strip" and host == f"www.{bare}":
                    new = replace_field(new, HOST, bare)
                elif rule.direction == "add" and host == bare:
                    new = replace_field(new, HOST, f"www.{bare}")
        for rule in self._shortcuts.get(host_key(new.host), ()):
            if rule.family is RuleKind.TRAILING_SLASH:
                # A shortcut moves the base relative links resolve against, so it must
                # only make the URL the site's own redirect would. Not after a path
                # parameter: a server that ignores ``;jsessionid=X`` serves
                # ``/;jsessionid=X/`` as its home page, whose relative links then nest
                # without end. (A name with an extension, ``/page.php/`` under path
                # info, the step itself leaves alone.)
                if ";" not in new.path and not (rule.excluded and self._left(rule, url)):
                    new = trailing_slash(new, _SLASH_POLICIES[rule.direction])
            elif (
                rule.family is RuleKind.HTTPS_ALIAS
                and new.scheme.lower() != rule.direction
                and new.port in ("", "80", "443")
            ):
                new = replace_field(replace_field(new, SCHEME, rule.direction), PORT, "")
        return None if new is u else unsplit_url(new)

    def _left(self, rule: Rule, url: str) -> bool:
        """Whether ``url`` is in a section ``rule`` was narrowed out of."""
        return self.section_of(url) in rule.excluded

    def other_twin(self, url: str) -> str | None:
        """``url`` on its other ``www`` twin where the twins are one site (an active
        ``www_alias``), unless the site's redirects lead from that twin to this one
        (a request sent there would come back here); else ``None``."""
        try:
            u = split_url(url)
        except ValueError:
            return None
        host = host_key(u.host)
        bare = host.removeprefix("www.")
        rule = self.learner.rules.get((bare, RuleKind.WWW_ALIAS.value))
        if rule is None or not rule.active:
            return None
        other = bare if host != bare else f"www.{bare}"
        if rule.sources.get("redirect") and rule.direction == ("add" if other == bare else "strip"):
            return None  # (a direction from ``rel=canonical`` alone says nothing of redirects)
        return unsplit_url(replace_field(u, HOST, other))

    def clear(self) -> None:
        self._last_key = None
        self.by_host.clear()
        self.narrow_by_host.clear()
        self.lenient_by_host.clear()
        self._shortcuts.clear()
        self._taught.clear()
        self.sampled.clear()
