"""Audits: fetch a few requests a risky step or a learned rule dropped, and compare.

An audit is a request that would have been dropped by a semantic-changing
step (``aggressive`` preset) or a learned rule, fetched anyway, so its page can
be compared with the page of the representative it was merged into. Audits
cannot run away:

- only against a representative that has delivered (its page digest is known);
- the first :data:`VERIFY_FIRST` drops of each learned rule of a host are
  all audited: a rule learned from two pairs is checked on the first pages it
  merges, where a site that keeps the forms apart shows it at once; after
  that, and for the static steps the user chose, at the rate
  ``URLNORM_AUDIT_RATE``;
- at most :data:`AUDITS_PER_SCOPE` distinct URLs per scope, then none;
- never an audit's descendant, a redirect target, or a shortcut;
- at the rate ``URLNORM_AUDIT_RATE`` of the drops that qualify.
"""

from __future__ import annotations

import math
from collections import OrderedDict

#: Drops of a learned rule audited unconditionally (when audits are on at all).
VERIFY_FIRST = 2
#: Distinct URLs audited per scope (one learned rule of one host, or one static step).
AUDITS_PER_SCOPE = 5
#: Scopes remembered (beyond it, no new scope is audited).
MAX_SCOPES = 10_000
#: Digests of delivered pages remembered for audits (LRU).
DIGESTS_REMEMBERED = 100_000


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
        self._audited: dict[str, set[str]] = {}  # scope -> URLs audited
        self._digests: OrderedDict[int, int] = OrderedDict()  # key -> digest of its delivered page
        self.audits = self.mismatches = 0

    def remember(self, keys: tuple[int, ...], digest: int) -> None:
        """The page of ``keys`` was delivered with ``digest``."""
        digests = self._digests
        for key in keys:
            digests[key] = digest
            digests.move_to_end(key)
        while len(digests) > DIGESTS_REMEMBERED:
            digests.popitem(last=False)

    def should_audit(self, scope: str, url: str, key: int, *, learned: bool = False) -> bool:
        if not self.rate or key not in self._digests:
            return False
        audited = self._audited.get(scope)
        if audited is None:
            if len(self._audited) >= MAX_SCOPES:
                return False
            audited = self._audited[scope] = set()
        if len(audited) >= AUDITS_PER_SCOPE or url in audited:
            return False
        if not learned or len(audited) >= VERIFY_FIRST:
            self._credit += self.rate
            if self._credit < 1.0:
                return False
            self._credit -= 1.0
        audited.add(url)
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
        return {"page_digests_for_audits": len(self._digests), "audit_scopes": len(self._audited)}
