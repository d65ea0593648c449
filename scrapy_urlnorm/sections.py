"""Rules scoped by path: a rule a site keeps everywhere but in some sections.

Sites are mixed: an IIS front serves its paths case-insensitively and proxies
``/legacy/`` to a case-sensitive backend; an nginx removes trailing slashes
except under ``/app/``, where an application tells ``/x`` and ``/x/`` apart. A
contradiction of a *path rule* (:data:`SCOPED_FAMILIES`) in one *section* of a
site (the first segment of the path: ``legacy`` for ``/legacy/Report.htm``)
then *narrows* the rule instead of revoking it: it stops applying in that
section and stays in force where it held, so the rest of the site keeps its
merges. What the rule dropped on the host is released and checked again, as
after a revocation (the section's drops are fetched, the others are dropped
again against their delivered pages).

Which section a URL is in is read from its key under *all* the host's rules,
never from the URL as written. A URL and every spelling the rules merge it with
then fall on the same side, and a spelling kept apart in a section where a rule
does not hold cannot take the key of a page elsewhere: its key without that
rule, normalized again with every rule, is its full key, whose section is that
one. (Normalizing is idempotent, and the full policy absorbs a partial one;
``tests/test_sections.py`` checks the property on random URLs and rules.)

A path rule is checked per section even before any contradiction: its
audits are budgeted per section (the first drops of each section are
verified, unless the rule's own pairs matched there as often; past
``audit_choice.SECTION_BUDGETS`` sections the others share one budget), so
the section another backend serves shows what it is at its first drops, not
after the host-wide sample moved on (random webs with ``--mixed``: an IIS
host's case rule, learned from its own pages, lost one of ``/v1/EXPORT.htm``
and ``/v1/export.htm`` in 12 of 60 webs when the rule's first drops were
counted host-wide). Below its section, a folder (``docs/legacy``, :func:`folder_of`)
is vouched for by pairs of its own: another backend may be mounted there, and the
rule's first drops in it are audited (``PlaceVouching._held_in_folder``). It narrows at most
:data:`MAX_EXCLUDED` times, and only where it held in another section: a
contradiction past that, or on a rule seen holding in that section alone,
revokes it as before.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .policy import Policy
from .urlparts import split_url

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

#: Rule families whose every effect is on the path, so a section can be left out of
#: them (``www_alias`` and ``https_alias`` are about the host; ``VERIFIED_FAMILIES``
#: verify every drop and keep the paths that differ as exceptions).
SCOPED_FAMILIES = frozenset({"trailing_slash", "case_insensitive_path", "duplicate_slashes"})
#: Rule families about the host (``www.h`` is ``h``, ``https://h`` is ``http://h``): never
#: narrowed (a contradiction revokes them), but their drops are audited per *directory*, at
#: any depth (:func:`directory_path_of`), as a path rule's are per folder: a site may serve one
#: directory of one twin from elsewhere (``www.h/blog/`` another virtual host beside the old
#: ``h/blog/`` folder), and a rule vouched for by the rest of the site showed nothing there.
HOST_FAMILIES = frozenset({"www_alias", "https_alias"})
#: Sections a rule may be narrowed out of; the next contradiction revokes it.
MAX_EXCLUDED = 8
#: Sections (a host rule's: top directories) remembered per rule where it held (its positive
#: pairs'). Past it, a section's drops are never vouched for and each is audited (at idle, past its
#: budget: ``unvouched``), so it is well above the audit budgets' caps: a 1,000-page IIS site of 42
#: sections audited every drop of its last ten when it was 32.
MAX_HELD = 1024
#: Folders below their section remembered per path rule where it held since it was learned,
#: and directories below the top per host rule where it held (past it, a drop in another is
#: audited within its place's budget, then at idle).
MAX_FOLDERS = 512
#: (folder, segment) counts remembered per case rule (``Rule.folder_cases``).
MAX_FOLDER_CASES = 4 * MAX_FOLDERS


def section_of(url: str) -> str | None:
    """The section ``url`` is in: the first segment of its path, lower-cased, where more
    follows it (``legacy`` for ``/legacy/Report.htm``; empty segments skipped); ``""`` for
    what is in none (``/``, ``/about``, ``/legacy/`` itself); ``None`` when ``url`` does not
    parse. A URL at the top is no section's: a rule contradicted there is revoked, as a
    site that keeps ``/report`` and ``/report/`` apart may keep any two such apart."""
    try:
        path = split_url(url).path
    except ValueError:
        return None
    segments = [segment for segment in path.split("/") if segment]
    return segments[0].lower() if len(segments) > 1 else ""


def folder_of(url: str) -> str | None:
    """The folder ``url`` is in, at any depth: every segment of its path but the last,
    lower-cased (``docs/legacy`` for ``/docs/legacy/Report.htm`` and for
    ``/docs/legacy/report/``; empty segments skipped); ``""`` for what is in none;
    ``None`` when ``url`` does not parse. Where it is deeper than its section, a path
    rule's drops there are vouched for by pairs there (``AuditChoice``): another
    backend may be mounted below the top (``/docs/legacy/`` behind a front that folds
    the case of ``/docs/``), and what the rule showed in ``/docs/`` says nothing of it."""
    try:
        path = split_url(url).path
    except ValueError:
        return None
    segments = [segment for segment in path.split("/") if segment]
    return "/".join(segments[:-1]).lower()


def directory_of(url: str) -> str | None:
    """The top directory ``url`` is in, lower-cased: ``blog`` for ``/blog/`` itself as for
    ``/blog/2009/x.htm``; ``""`` for what is in none (``/``, ``/about``); ``None`` when
    ``url`` does not parse. Unlike :func:`section_of`, a directory's own page is in it:
    for a host rule the two spellings of a pair share a path, and ``www.h/blog/`` is the
    first page another virtual host serves there."""
    try:
        path = split_url(url).path
    except ValueError:
        return None
    first, slash, _ = path.lstrip("/").partition("/")
    return first.lower() if slash else ""


def directory_path_of(url: str) -> str | None:
    """The directory ``url`` is in at any depth, lower-cased, a directory's own page in it as
    in :func:`directory_of`: ``support/blog`` for ``/support/blog/`` and for
    ``/support/blog/x.htm``, ``support`` for ``/support/x.htm``; ``""`` for what is in none;
    ``None`` when ``url`` does not parse. Where it is deeper than the top directory, a host
    rule's drops there are vouched for by pairs there: another virtual host may be routed
    below the top (``www.h/support/blog/`` a WordPress beside the old folder on ``h``), and
    the rest of ``/support/`` answering alike under both names says nothing of it."""
    try:
        path = split_url(url).path
    except ValueError:
        return None
    return "/".join(segment for segment in path.split("/")[1:-1] if segment).lower()


def renamed_only(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` differ in their first segment only, with more after it
    (``/APP/Report`` and ``/app/Report``): a section's name spelled otherwise."""
    first, second = a.lstrip("/"), b.lstrip("/")
    return "/" in first and first.partition("/")[2] == second.partition("/")[2]


def cased_segments(a: str, b: str) -> tuple[int, ...]:
    """The segments (by index) in which paths ``a`` and ``b``, one path but for case,
    are spelled in two cases (``(1, 2)`` for ``/NorthWind/RiverDB/README.md`` against
    ``/northwind/riverdb/README.md``); none where they are not one path but for case."""
    first, second = a.split("/"), b.split("/")
    if len(first) != len(second):
        return ()
    positions = tuple(index for index, (x, y) in enumerate(zip(first, second, strict=True)) if x != y)
    return positions if all(first[i].lower() == second[i].lower() for i in positions) else ()


def sections_of(a: str, b: str, section: Callable[[str], str | None] = section_of) -> str | None:
    """The section a pair of URLs (``a`` against ``b``, which may be no URL: an audit names
    only one) is in, by ``section``; ``None`` when they are in two, or ``a`` in none."""
    first = section(a)
    if first is None:
        return None
    second = section(b)
    return first if second is None or second == first else None


def narrows(held: Mapping[str, int], excluded: set[str], section: str | None) -> bool:
    """Whether a rule seen holding in sections ``held``, already left out of ``excluded``,
    and contradicted in ``section`` is narrowed (rather than revoked)."""
    if not section or len(excluded) >= MAX_EXCLUDED:
        return False
    return bool(held.keys() - excluded - {section})


@dataclasses.dataclass(frozen=True, slots=True)
class ScopedPolicy(Policy):
    """A host's learned policy, with what applies in the sections some rules left.

    Normalizing under it as under any :class:`Policy` gives the URL's *full* key;
    :meth:`rescope` gives the key it really has (see the module's docstring)."""

    #: Section -> the policy without the rules narrowed out of it.
    outside: Mapping[str, Policy] = dataclasses.field(default_factory=dict, hash=False)

    def rescope(self, full: str) -> Policy | None:
        """The policy ``full`` (a URL's key under every rule) is to be normalized with
        instead, where its section is one some rule left; else ``None``."""
        section = section_of(full)
        return self.outside.get(section) if section else None
