"""The close-time figures of a crawl's de-duplication (``urlnorm/*`` stats and the report)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

    from .dedup import Deduplicator


def summary(dedup: Deduplicator) -> dict[str, Any]:
    """Downloads and redundancy, audits, and what the ledger released or still holds."""
    auditor = dedup.audits.auditor
    figures: dict[str, Any] = {
        "unique_fingerprints": len(dedup.seen),
        "downloads": dedup.meter.downloads,
        "duplicate_downloads": dedup.meter.duplicate_downloads,
        "redundancy_rate": dedup.meter.redundancy_rate,
        "audits": auditor.audits,
        "audit_mismatches": auditor.mismatches,
        "released": dedup.ledger.released,
        "unsettled_at_close": dedup.ledger.unsettled(),
    }
    if auditor.audits:
        figures["coverage_loss_estimate"] = round(auditor.mismatches / auditor.audits, 4)
    return figures


def memory_figures(dedup: Deduplicator) -> dict[str, int]:
    """How full each bounded structure is, at close in ``urlnorm/memory/*``
    (entries; ``seen_table_bytes`` and ``page_digest_bytes`` in bytes)."""
    table = getattr(dedup.seen, "table", None)
    figures = {
        "seen_table_bytes": table.nbytes if table is not None else 0,
        "page_digest_bytes": dedup.meter.page_digests.nbytes,
        "normalization_cache": dedup.keys.cache_size(),
        "parked_requests": dedup.ledger.parked(),
        "ledger_drops": dedup.ledger.held,
        "failed_keys": len(dedup.failed),
        "failed_sent_keys": len(dedup.settling.sent),
        "abandoned_keys": len(dedup.abandoned),
        "claim_depths": len(dedup.depths) if dedup.depths is not None else 0,
        "session_linked_pages": len(dedup.session_links) if dedup.session_links is not None else 0,
        "hosts_with_pages_for_rekeying": len(dedup.pages.hosts()),
        "invalid_hosts_logged": len(dedup.keys.invalid_hosts),
        **dedup.forbidden.sizes(),
        **dedup.audits.auditor.sizes(),
        "param_spellings": len(dedup.audits.spellings),
        "negotiated_files": len(dedup.audits.answers),
        "audit_confirmed_places": dedup.audits.choice.confirmed_places(),
        **(dedup.audits.cheap.tags.sizes() if dedup.audits.cheap.tags is not None else {}),
        **(dedup.twins.sizes() if dedup.twins is not None else {}),
        **(dedup.keys.campaigns.sizes() if dedup.keys.campaigns is not None else {}),
        **(dedup.unvouched.sizes() if dedup.unvouched is not None else {}),
    }
    if dedup.narrow is not None:
        figures["narrow_keys"] = len(dedup.narrow)
    foreign = dedup.holds.foreign_drops
    figures["foreign_drops"] = len(foreign) if foreign is not None else 0  # (distributed only)
    if dedup.learner is not None:
        figures.update(dedup.learner.sizes())
    return figures


def publish(dedup: Deduplicator, stats: StatsCollector) -> None:
    """Writes the crawl's figures into Scrapy's stats at its close (the counts
    ``urlnorm/audits`` and ``urlnorm/audit_mismatches`` are counted as they happen)."""
    for key, value in summary(dedup).items():
        if key not in ("audits", "audit_mismatches"):
            stats.set_value(f"urlnorm/{key}", value)
    for key, value in memory_figures(dedup).items():
        stats.set_value(f"urlnorm/memory/{key}", value)
    for cause, value in dedup.meter.duplicates_by_cause.items():
        stats.set_value(f"urlnorm/duplicate_downloads/{cause}", value)
