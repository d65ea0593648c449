"""The drop ledger on its own: promises kept, and nothing it does feeds on itself."""

from __future__ import annotations

from collections import Counter

from scrapy import Request

from scrapy_urlnorm.ledger import DropLedger


def test_a_revoked_drop_dropped_again_by_another_rule_is_released_once() -> None:
    """Reproduces the differential seed 27 runaway: a revocation released a learned drop;
    the request went back through the filter and was dropped again, under the host's other
    rule, into the claim list being walked; the walk never ended and memory grew to GBs."""
    counts: Counter[str] = Counter()
    released: list[str] = []

    def reschedule(request: Request, why: str) -> None:
        released.append(request.url)
        ledger.drop(request, "learned:case", "a.test", learned=True, claim=claim)

    ledger = DropLedger(reschedule, lambda key, n: counts.update({key: n}))
    claim = ledger.claim((1, 2), "http://a.test/x")
    assert ledger.drop(Request("http://a.test/X/"), "learned:slash", "a.test", learned=True, claim=claim)

    assert ledger.revoke_host("a.test") == 1
    assert released == ["http://a.test/X/"]
    assert counts["urlnorm/released/revoked"] == 1
    # The new drop waits on the claim again, and a later revocation releases it once more.
    assert ledger.unsettled() == 1
    assert ledger.revoke_host("a.test") == 1
    assert len(released) == 2


def test_a_revocation_releases_parked_drops_of_that_host_only() -> None:
    released: list[str] = []
    ledger = DropLedger(lambda request, why: released.append(request.url), lambda key, n: None)
    ledger.drop(Request("http://a.test/p/"), "learned:slash", "a.test", learned=True, claim=None)
    ledger.drop(Request("http://b.test/p/"), "learned:slash", "b.test", learned=True, claim=None)
    assert ledger.parked() == 2
    assert ledger.revoke_host("a.test") == 1
    assert released == ["http://a.test/p/"]
    assert ledger.parked() == 1
