"""Which of a host's learned rules a learned drop needs, so it is audited under that rule.

A host's learned key applies all its rules at once, and the rank a fingerprint
carries is that of the riskiest rule that changed *its own* URL. A drop rests as
well on every rule that changed its representative's, which that rank does not
show, and on fewer rules than the riskiest when another explains the match.
Two ways this goes wrong, both seen:

- *Too lenient* (differential seed 17104, a page lost): on a site with
  ``www_alias`` (taught by content, audited by sample) and ``trailing_slash``
  (taught by its redirects, so every drop is verified: the site may serve
  ``/readme`` and ``/readme/`` as two pages), ``www.h/readme/`` and the delivered
  ``www.h/readme`` both key as ``h/readme/``. The request's own rank says
  ``www_alias``, but only ``trailing_slash`` made the two URLs equal.
- *Too strict* (real Apache, most of a crawl's duplicate downloads): under
  ``www_alias`` and ``extension_alias``, ``www.h/x.html`` keys as ``h/x``; against
  the delivered ``h/x.html`` it would be an ``extension_alias`` drop, verified by a
  download where the host's entity tags are no evidence, though only ``www_alias``
  made the two URLs differ.

So a host whose rules mix *strict* ones (verified on every drop,
:meth:`~scrapy_urlnorm.hostrules.LearnedPolicies.verifies_every`) with others has
a *lenient* policy (the others alone), and one whose rules mix
``VERIFIED_FAMILIES`` with others a *narrow* one (the others alone); each page it
delivers is also keyed under them. A learned drop whose request's lenient key
names a delivered page needs no strict rule, and takes the reason, budget and
audits of the rules it does need; any other learned drop on that host may rest
on a strict rule and is reported under one (its own, when it has one). Among
strict reasons, a ``VERIFIED_FAMILIES`` drop whose narrow key names a delivered
page takes the narrow rules' strict reason (a redirect-taught rule, whose
verification is a held redirect). Only delivered pages count, so a lenient
reason is never a promise about a pending one: a drop against a pending
representative is reported under a strict rule, and looked at again when the
representative delivers (:meth:`NarrowKeys.reason`), before its audit is decided.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from .keys import host_of
from .recent import put_recent
from .steps import FIRST_LEARNED_RANK, REASONS, learned_rank

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .hostrules import LearnedPolicies, NarrowPolicy
    from .keys import Fingerprint, RequestKeys

#: Narrow keys of delivered pages remembered (least recently delivered go first).
NARROW_KEYS_REMEMBERED = 100_000

_RANK_OF_REASON = {reason: rank for rank, reason in REASONS.items()}


def learned_match(dedup: Deduplicator, request: Request, fingerprint: Fingerprint) -> tuple[int, int | None]:
    """The key ``request`` matches under its host's learned rules, and its stored
    rank: its learned key, or its learned form seen as a URL of its own."""
    assert fingerprint.learned is not None and fingerprint.learned_url is not None
    stored = dedup.seen.get(fingerprint.learned)
    if stored is not None or fingerprint.learned_url == fingerprint.url:
        return fingerprint.learned, stored
    plain = dedup.keys.hash(request, fingerprint.learned_url)
    return plain, dedup.seen.get(plain)


def learned_drop_rank(dedup: Deduplicator, request: Request, fingerprint: Fingerprint, stored: int) -> int:
    """The rank (reason) a learned match of ``request`` against a key stored with
    rank ``stored`` is dropped and audited under: the rule it needs."""
    rank = learned_rank(fingerprint.learned_rank, stored)
    if dedup.narrow is not None:
        rank = dedup.narrow.rank(request, host_of(fingerprint.url or ""), rank)
    return rank


class NarrowKeys:
    """Narrow keys of delivered pages, and the narrow rank of a learned drop."""

    def __init__(self, keys: RequestKeys, learned: LearnedPolicies) -> None:
        self.keys = keys
        self.learned = learned
        self._delivered: OrderedDict[int, int] = OrderedDict()  # narrow key -> the page's narrow rank

    def _key(self, request: Request, narrow: NarrowPolicy) -> tuple[int, int] | None:
        narrow_url, rank = self.keys.normalize_with(request.url, narrow.policy)
        if narrow_url is None:
            return None
        return self.keys.hash(request, narrow_url, b"narrow %d\0" % narrow.namespace), rank

    def _needed(self, request: Request, narrow: NarrowPolicy) -> int | None:
        """The learned rank ``request`` matches a delivered page at under ``narrow``, if it does."""
        found = self._key(request, narrow)
        stored = self._delivered.get(found[0]) if found is not None else None
        if found is None or stored is None:
            return None
        needed = learned_rank(found[1], stored)
        return needed if needed >= FIRST_LEARNED_RANK else None

    def delivered(self, request: Request, url: str, salt: int = 0) -> None:
        """``request`` (normalized ``url``) delivered its page; ``salt``: the callback
        salt of the request that read it, when ``request`` stands in for that one."""
        learned = self.learned
        if not (learned.lenient_by_host or learned.narrow_by_host):
            return
        host = host_of(url)
        namespaces = set()
        for narrow in (learned.lenient_by_host.get(host), learned.narrow_by_host.get(host)):
            if narrow is not None and narrow.namespace not in namespaces:
                namespaces.add(narrow.namespace)
                found = self._key(request, narrow)
                if found is not None:
                    put_recent(self._delivered, found[0] ^ salt, found[1], NARROW_KEYS_REMEMBERED)

    def lenient_key(self, request: Request, url: str) -> int | None:
        """``request``'s key (normalized ``url``) under its host's lenient policy (its
        rules but the strict ones), where the host has one: URLs whose lenient keys
        are equal differ only by rules whose drops are sampled."""
        lenient = self.learned.lenient_by_host.get(host_of(url))
        found = self._key(request, lenient) if lenient is not None else None
        return None if found is None else found[0]

    def names_delivered_leniently(self, request: Request, url: str) -> bool:
        """Whether ``request``'s key (normalized ``url``) under its host's lenient policy
        (its rules but the strict ones) names a delivered page."""
        key = self.lenient_key(request, url)
        return key is not None and key in self._delivered

    def rank(self, request: Request, host: str, rank: int) -> int:
        """The rank a learned drop of ``request`` on ``host`` (at ``rank``, the riskier
        of its own and its key's) is reported and audited under (see the module's docstring)."""
        learned = self.learned
        if not (learned.lenient_by_host or learned.narrow_by_host):
            return rank
        lenient = learned.lenient_by_host.get(host)
        if lenient is not None:
            needed = self._needed(request, lenient)
            if needed is not None:
                return needed  # it holds under the host's lenient rules alone
            if rank not in lenient.left_out:
                rank = lenient.riskiest  # it may rest on a strict rule
        narrow = learned.narrow_by_host.get(host)
        if narrow is not None and rank in narrow.left_out:
            needed = self._needed(request, narrow)
            if needed is not None and (lenient is None or needed in lenient.left_out):
                return needed
        return rank

    def reason(self, request: Request, host: str, reason: str) -> str:
        """:meth:`rank` for a learned drop made under ``reason``, looked at again now
        (its representative has delivered since)."""
        rank = _RANK_OF_REASON.get(reason)
        return reason if rank is None or rank < FIRST_LEARNED_RANK else REASONS[self.rank(request, host, rank)]

    def __len__(self) -> int:
        return len(self._delivered)

    def clear(self) -> None:
        self._delivered.clear()
