"""Which learned rules an audit that found another page may blame.

An audit checks a drop under the rule its request's rank names, but the key it was
dropped under may combine several of its host's rules, and the page that key names
may have come at a URL other rules spelled (a page re-keyed when a rule was learned,
a link sent in the form its host's redirects taught). A rule whose aspect of the URL
(the ``www.`` of the host, the trailing slash, the scheme...) is the same in the
audited URL and in the URL that delivered the page did not merge the two, and is
not what the audit found wrong: the rules whose aspect differs are. A Django site
with ``PREPEND_WWW`` and ``APPEND_SLASH`` serving ``/x`` and ``/x/`` as two pages
(frameworks seed 579217): ``www.h/x/?utm_source=a`` was dropped under ``www_alias``
against the key of the delivered ``www.h/x``, which ``trailing_slash`` had merged
with ``/x/``; the audit found ``/x/``'s own page and revoked ``www_alias``, for
the whole site, though both URLs are on ``www.h``.

:func:`delivered_at` finds the URLs among the pages kept for re-keying;
:meth:`~scrapy_urlnorm.observer.RuleKeeper.audit_failed` blames.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING

from .hostrules import may_merge, twins
from .urlparts import split_url

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy import Request

    from .dedup import Deduplicator
    from .learning import Rule

#: Delivered pages of a host looked at (the latest first) for the URL that delivered an
#: audit's representative: a mismatch is rare, but a host may keep 20,000 pages.
PAGES_LOOKED_AT = 5_000


def merging_rules(rules: Iterable[Rule], audited: str, delivered: Iterable[str]) -> list[Rule] | None:
    """Of ``rules``, those that may have merged ``audited`` with one of the URLs that
    delivered its representative's page (``delivered``); ``None`` where no such URL
    is known (or one does not parse): then nothing is told apart."""
    try:
        a = split_url(audited)
        others = [split_url(url) for url in delivered]
    except ValueError:
        return None
    if not others:
        return None
    return [rule for rule in rules if any(may_merge(rule, a, b) for b in others)]


def delivered_at(dedup: Deduplicator, request: Request, key: int, host: str) -> list[str]:
    """The URLs of ``host`` and its ``www`` twin, among the pages kept for re-keying (the
    latest :data:`PAGES_LOOKED_AT`), that delivered the page ``key`` names, as the
    request ``request`` (an audit) would key them; one whose answer the audits remember
    as another page than ``key``'s is left out."""
    auditor = dedup.audits.auditor
    digest = auditor.digest(key)
    found = []
    for name in twins(host):
        pages = list(dedup.pages.of(name))
        for url, _ in islice(reversed(pages), PAGES_LOOKED_AT):
            page = request.replace(url=url)
            if key not in dedup.fingerprint(page).keys:
                continue
            answer = auditor.answer(dedup.keys.static(page).value)
            if digest is None or answer is None or answer == digest:
                found.append(url)
    return found
