"""Learned drops against a catch-all page: one body a server answers at unrelated URLs.

A catch-all page (a soft 404, a login wall, an error page) says nothing of the URL it
was delivered at. A learned drop against one rests on a rule the site's other pages
taught, and where a site mixes servers that rule may not hold there: an Express
application whose routes match any case, serving static files that do not, answers
``/HELP/INSTALL.HTML`` with its soft 404 and ``/help/install.html`` with the file
(frameworks seed 579158 lost it, dropped under ``case_insensitive_path`` against the
delivered soft 404, unsampled). So a learned drop against a page already known for a
catch-all (its body served under :data:`~scrapy_urlnorm.pairs.CATCH_ALL_URLS` URLs no
rule could merge) is verified, as the strict rules' drops are
(``AuditDesk._should_audit``); and when a page becomes one after drops were parked
against it, those of the sites that served it are fetched as written
(``urlnorm/released/catch_all``), but for those whose own URL answered that very page (a
Rails product at ``/products/56`` and ``/products/56-slug``, one body under unrelated
paths, is such a page too). A body several hosts serve (a platform's one "not found"
page on every site it hosts) releases the drops of each: ``PagePairs`` keeps the hosts a
page was served by beside its URLs, so no other host's parked drops are scanned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .hostrules import twins

if TYPE_CHECKING:
    from .dedup import Deduplicator


def release_caught(dedup: Deduplicator, host: str, digest: int) -> int:
    """The page of ``digest`` turned out a catch-all on ``host``: release the learned
    drops parked on ``host``'s site against a page of that digest; how many."""
    ledger, auditor = dedup.ledger, dedup.audits.auditor
    found = []
    for name in twins(host):
        for drop in ledger.parked_of(name):
            request = drop.request
            if not any(auditor.digest(key) == digest for key in dedup.fingerprint(request).keys):
                continue
            if auditor.answer(dedup.keys.static(request).value) == digest:
                continue  # its own URL answered that page (verified, or fetched as written)
            found.append(drop)
    return ledger.release_as_written(found, "catch_all")
