"""Which of a host's learned rules a learned drop needs, so it is audited under that rule.

A host's learned key applies all its rules at once, and a drop is reported and
audited under the riskiest rule that changed the request. On a site with both
``www_alias`` and ``extension_alias``, ``www.h/x.html`` keys as ``h/x``, stripped
of ``.html`` as well as of ``www.``: a drop against the delivered ``h/x.html``
would be an ``extension_alias`` drop, verified on every drop by a download
where the host's entity tags are no evidence, though only ``www_alias`` made
the two URLs differ (on real Apache, most of a crawl's duplicate downloads).

So where a host's rules mix families verified on every drop with others
(:attr:`~scrapy_urlnorm.hostrules.LearnedPolicies.narrow_by_host`), each page it
delivers is also keyed under the others alone: its *narrow* key. A learned drop
under a verified family whose request's narrow key names a delivered page needs
only the other rules, and takes their reason, budget and audits. Only delivered
pages count, so the narrow reason is never a promise about a pending one.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from .keys import host_of
from .learning import VERIFIED_FAMILIES
from .recent import put_recent
from .steps import FIRST_LEARNED_RANK, LEARNED_KINDS, LEARNED_RANKS, learned_rank

if TYPE_CHECKING:
    from scrapy import Request

    from .hostrules import LearnedPolicies
    from .keys import RequestKeys

#: Narrow keys of delivered pages remembered (least recently delivered go first).
NARROW_KEYS_REMEMBERED = 100_000

#: The ranks of learned rule families verified on every drop.
VERIFIED_RANKS = frozenset(rank for step, rank in LEARNED_RANKS.items() if LEARNED_KINDS[step] in VERIFIED_FAMILIES)


class NarrowKeys:
    """Narrow keys of delivered pages, and the narrow rank of a learned drop."""

    def __init__(self, keys: RequestKeys, learned: LearnedPolicies) -> None:
        self.keys = keys
        self.learned = learned
        self._delivered: OrderedDict[int, int] = OrderedDict()  # narrow key -> the page's narrow rank

    def _key(self, request: Request, url: str) -> tuple[int, int] | None:
        narrow = self.learned.narrow_by_host.get(host_of(url))
        if narrow is None:
            return None
        policy, namespace = narrow
        narrow_url, rank = self.keys.normalize_with(request.url, policy)
        if narrow_url is None:
            return None
        return self.keys.hash(request, narrow_url, b"narrow %d\0" % namespace), rank

    def delivered(self, request: Request, url: str) -> None:
        """``request`` (normalized ``url``) delivered its page."""
        if self.learned.narrow_by_host:
            found = self._key(request, url)
            if found is not None:
                put_recent(self._delivered, found[0], found[1], NARROW_KEYS_REMEMBERED)

    def rank(self, request: Request, url: str, rank: int) -> int:
        """The rank a learned drop of ``request`` (normalized ``url``) is reported and
        audited under: ``rank``, or, when that is a verified family's and the request's
        narrow key names a delivered page, the narrow rules' rank."""
        if rank not in VERIFIED_RANKS or not self.learned.narrow_by_host:
            return rank
        found = self._key(request, url)
        if found is None:
            return rank
        stored = self._delivered.get(found[0])
        if stored is None:
            return rank
        narrow = learned_rank(found[1], stored)
        return narrow if narrow >= FIRST_LEARNED_RANK else rank

    def __len__(self) -> int:
        return len(self._delivered)

    def clear(self) -> None:
        self._delivered.clear()
