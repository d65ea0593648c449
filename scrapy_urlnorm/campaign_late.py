"""Campaign links settled when they are about to be sent (see :mod:`scrapy_urlnorm.campaigns`).

A link whose keys kept a campaign value waits in the queue while the crawl shows the
value is a tag on its site; sent, it would download its plain page again. The
download-time half of the campaign checks, beside :class:`~scrapy_urlnorm.late.LateChecks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import meta as M
from .keys import host_of
from .session_links import refetching

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator


def settle_tagged(dedup: Deduplicator, request: Request) -> str | None:
    """Drop ``request``, about to be sent, when the campaign pairs its keys kept (see
    :mod:`scrapy_urlnorm.campaigns`) have since been shown to be tags on its site and its
    plain URL was admitted: that is its page. Queued before its campaign's second answer
    came, it would download the page again (LIFO queues keep many such). Against a
    delivered page its claim is settled as delivered by that page; against a pending one
    its claim joins that one, whose fate it shares (a failure releases it, as written)."""
    campaigns = dedup.keys.campaigns
    meta = request.meta
    if (
        campaigns is None
        or dedup.distributed
        or dedup.depths is not None
        or M.AUDIT in meta
        or "redirect_urls" in meta
        or meta.get("verbatim_url")
    ):
        return None
    plain = campaigns.tagged_since(request.url)
    if plain is None or refetching(request):
        return None
    fingerprint = dedup.fingerprint(request)
    ledger = dedup.ledger
    own = ledger.claim_of(fingerprint.value)
    if own is not None and not own.held_by(request.url):
        return None
    plain_request = request.replace(url=plain)
    plain_fingerprint = dedup.fingerprint(plain_request)
    if own is not None and all(dedup.seen.get(key) is None for key in plain_fingerprint.keys):
        # Its plain URL is not linked yet: sent, it stands for that URL too, as it would
        # had its campaign been a tag when it was linked (the plain link is dropped against it).
        seen = dedup.seen
        seen.add(plain_fingerprint.value, plain_fingerprint.rank)
        if plain_fingerprint.learned is not None:
            seen.add(plain_fingerprint.learned, plain_fingerprint.learned_rank)
        ledger.merge(ledger.claim(plain_fingerprint.keys, request.url), own)
        if dedup.on_claimed is not None:
            dedup.on_claimed(request, own.keys)  # (the crash-safe journal: all its keys now)
        dedup.count("urlnorm/campaign_links_stand_for_plain")
        return None
    for key in plain_fingerprint.keys:
        if dedup.seen.get(key) is None:
            continue
        pending = ledger.claim_of(key)
        if pending is None and dedup.delivered_here(key):
            if own is not None:
                held = (*fingerprint.keys, *own.keys)
                if dedup.forbidden.active:
                    dedup.forbidden.settled(held, delivered=True)
                for held_key in held:
                    dedup.audits.alias(key, held_key)
                ledger.delivered(own)
        elif pending is None or pending is own or dedup.on_claimed is not None:
            continue  # (the crash-safe journal knows claims by their request: not joined there)
        elif ledger.drop(request, "tracking_params", host_of(fingerprint.url or ""), learned=False, claim=pending):
            if own is not None:
                ledger.merge(own, pending)
        else:
            return None  # (the ledger is full: fetched)
        dedup.count("urlnorm/campaign_links_late_filtered")
        return dedup.dropped(request, fingerprint, "tracking_params", learned=False, key=key)
    return None
