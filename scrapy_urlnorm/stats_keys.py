"""Every ``urlnorm/...`` key the add-on writes into ``crawler.stats``, with what it means.

This table is the single source of the stats reference in the docs
(``docs/gen_reference.py``), and ``tests/test_stats_keys.py`` checks it
against the source: every ``urlnorm/`` literal the package writes must be
listed here, and every key listed here must be written somewhere. A key
with a ``<placeholder>`` is a family (``urlnorm/filtered/<reason>``).

``when`` says when the value is there: ``live`` counters grow during the
crawl; ``close`` values are set once, when the spider closes.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .steps import LEARNED_KINDS


class StatKey(NamedTuple):
    """One stats key (or a family of keys, with a ``<placeholder>``)."""

    key: str
    group: str
    when: str  # "live" or "close"
    doc: str

    def pattern(self) -> re.Pattern[str]:
        """A regular expression matching the keys of this entry (a placeholder matches any non-empty text)."""
        parts = re.split(r"<[a-z_]+>", self.key)
        return re.compile(".+".join(re.escape(part) for part in parts) + r"\Z")


#: Sections of the stats reference, in order.
GROUPS: dict[str, str] = {
    "filter": "The filter: what was checked and dropped, and why",
    "ledger": "The drop ledger: drops released, and what is still waiting",
    "redirects": "Redirects and shortcuts",
    "learning": "Learning",
    "audits": "Audits",
    "redundancy": "Downloads and redundancy",
    "frontier": "Crash-safe JOBDIR (the frontier journal)",
    "memory": "Memory: how full each bounded structure is, at close",
    "redis": "Distributed crawls (Redis)",
}

_LEARNED_KINDS = ", ".join(f"`{kind}`" for kind in dict.fromkeys(LEARNED_KINDS.values()))

STATS: tuple[StatKey, ...] = (
    # -- filter
    StatKey(
        "urlnorm/requests_seen", "filter", "live",
        "requests checked against the seen set (links, plus start requests)",
    ),
    StatKey(
        "urlnorm/filtered", "filter", "live",
        "requests dropped as duplicates (also in Scrapy's `dupefilter/filtered`)",
    ),
    StatKey(
        "urlnorm/filtered/<reason>", "filter", "live",
        "the same, by reason: `exact` (stock Scrapy would have dropped it too), the name of the riskiest "
        "step that made the two URLs equal (`default_port`, `tracking_params`, `session_ids`, "
        "`lowercase_path`, ...), or `learned:<kind>` for a learned rule",
    ),
    StatKey(
        "urlnorm/late_filtered", "filter", "live",
        "queued requests dropped at download time under rules learned since",
    ),
    StatKey("urlnorm/unique_fingerprints", "filter", "close", "distinct fingerprints in the seen set"),
    StatKey(
        "urlnorm/invalid_urls", "filter", "live",
        "URLs that could not be normalized (Scrapy's own fingerprint used instead)",
    ),
    StatKey("urlnorm/recorded_unfiltered", "filter", "live", "`dont_filter` requests recorded as representatives"),
    StatKey(
        "urlnorm/start_requests_skipped", "filter", "live",
        "start requests dropped because already seen (a resumed `JOBDIR` crawl)",
    ),
    StatKey(
        "urlnorm/failing_key_fetched", "filter", "live",
        "requests fetched rather than dropped against a pending spelling of a key whose last "
        "representatives all failed (three or more): each is fetched as stock fetches it, instead of "
        "being released and dropped again at each failure",
    ),
    StatKey(
        "urlnorm/depth_refetched", "filter", "live",
        "with `DEPTH_LIMIT`: requests fetched although their key was claimed, because they are shallower "
        "than every request that claimed it (their page's links may reach documents the deeper one's cannot)",
    ),
    StatKey(
        "urlnorm/redirect_targets_fetched", "filter", "live",
        "redirect targets fetched although a learned rule merges them with a page, because that rule's "
        "drops are all verified and a redirect target is never audited",
    ),
    StatKey(
        "urlnorm/callbacks_kept_apart", "filter", "live",
        "requests of a non-default callback fetched for a page the default callback (`parse`) had claimed: "
        "keys are each callback's own, so a page is fetched once for each callback that asks for it",
    ),
    StatKey(
        "urlnorm/session_links_refetched", "filter", "live",
        "with cookies on and a `CrawlSpider`: pages delivered with the session their answer opened written "
        "into their links (a client without the cookie) fetched once more the next time they are linked "
        "(under any spelling, their own URL too), now with the cookie: an item rule may match only the plain links",
    ),
    StatKey(
        "urlnorm/session_links_primed", "filter", "live",
        "with cookies on and a `CrawlSpider`: requests sent for a page whose links repeat the session its "
        "URL carried, answered without a cookie (a crawl resumed with an empty jar): its URL without the "
        "session, then once more with the cookie that answer set, for the plain links",
    ),
    StatKey(
        "urlnorm/campaign_links_kept_apart", "filter", "live",
        "distinct URLs whose campaign parameters (`utm_campaign`, `utm_content`, `utm_term`, ...) their keys "
        "kept although the tracking step removes them: each page is fetched once with each campaign value, "
        "as stock fetches it (`URLNORM_VERIFY_CAMPAIGNS`)",
    ),
    StatKey(
        "urlnorm/campaign_params_read", "filter", "live",
        "campaign parameters a site served another page for (a landing page reading `utm_campaign`), "
        "once per site and parameter",
    ),
    StatKey("urlnorm/rewritten", "filter", "live", "requests sent with their normalized URL (`URLNORM_REWRITE`)"),
    StatKey(
        "urlnorm/internal_errors", "filter", "live",
        "responses and failures whose bookkeeping raised (logged with the traceback, the response passed on "
        "untouched): a bug of the add-on's, which may leave drops unsettled; please report it",
    ),
    StatKey(
        "urlnorm/rewrite_fallbacks", "filter", "live",
        "rewritten requests answered with an error, sent once more as written (`URLNORM_REWRITE`)",
    ),
    # -- ledger
    StatKey(
        "urlnorm/released/<why>", "ledger", "live",
        "drops scheduled again because their representative did not deliver (`status`, `redirect`, "
        "`error`, `ignored`, `loop`, `dropped`, `idle`; `shallower`: with `DEPTH_LIMIT`, an audit found the URL a "
        "page of its own at a greater depth; `rerouted`: dropped by a static step under a path the server "
        "never answered, against a representative that redirected to another directory; `failed_elsewhere`: "
        "distributed, dropped against a request that did not deliver where another worker fetched it), "
        "because their rule "
        "was revoked (`revoked`), "
        "or because the learned drop could not be parked for revocation (`parked_overflow`); `unsettled`: "
        "dropped unverified as a session-token spelling of a resource that later answered another page; "
        "`catch_all`: a learned drop parked against a page the server then answered at unrelated URLs too "
        "(a soft 404); `session_links`: see `urlnorm/session_links_refetched`",
    ),
    StatKey("urlnorm/released", "ledger", "close", "drops released in all"),
    StatKey(
        "urlnorm/release_skipped_sent", "ledger", "live",
        "drops not released because their representative, which did not deliver, had sent them already "
        "as written (stock Scrapy fetches a URL once)",
    ),
    StatKey(
        "urlnorm/second_chances", "ledger", "live",
        "requests still failing after Scrapy's retries sent once more with a fresh retry budget "
        "(`URLNORM_SECOND_CHANCE`: stock's duplicate spellings would have been more tries)",
    ),
    StatKey(
        "urlnorm/second_chances_on_twin", "ledger", "live",
        "rounds sent on the `www` twin of a URL whose own second rounds failed too (an active "
        "`www_alias`): the spelling stock met on that twin's pages",
    ),
    StatKey(
        "urlnorm/second_chances_refused", "ledger", "live",
        "failures given no second round because 100,000 URLs had one already",
    ),
    StatKey(
        "urlnorm/unsettled_at_close", "ledger", "close",
        "drops still waiting on a representative when the spider closed: 0 after a normal finish",
    ),
    StatKey(
        "urlnorm/ledger_full", "ledger", "live",
        "requests fetched instead of dropped because the drop ledger was full",
    ),
    StatKey(
        "urlnorm/parked_overflow", "ledger", "live",
        "learned-rule drops that did not fit their host's share of the parked drops, or all of them "
        "(fetched instead)",
    ),
    StatKey(
        "urlnorm/pending_unsaved", "ledger", "live",
        "with `JOBDIR`: requests dropped against a pending request that could not be saved at a clean "
        "stop, or restored at the resume (a callback that is not a spider method; logged)",
    ),
    StatKey(
        "urlnorm/taught_forms_withdrawn", "filter", "live",
        "links queued in a form a learned rule gave them (a shortcut, a rewrite) sent as written instead, "
        "because that rule changed while they waited",
    ),
    StatKey(
        "urlnorm/pages_keyed_on_delivery", "ledger", "live",
        "pages whose learned key was stored when they delivered, because their host's rules changed "
        "while they were in flight: their variants are found as those of pages delivered before",
    ),
    StatKey(
        "urlnorm/pages_for_rekeying_forgotten", "ledger", "live",
        "fetched URLs no longer kept for re-keying under new rules (caps: 20,000 per host, 1,000 hosts, "
        "100,000 in all): a rule learned later fetches their variants once",
    ),
    # -- redirects
    StatKey(
        "urlnorm/redirects_passed", "redirects", "live",
        "redirect targets let through because they normalize to their own source",
    ),
    StatKey(
        "urlnorm/redirect_loops", "redirects", "live",
        "redirect targets dropped because their chain passed that URL already",
    ),
    StatKey(
        "urlnorm/redirects_shortcut", "redirects", "live",
        "links sent straight to the form the host's redirects taught",
    ),
    StatKey(
        "urlnorm/forms_offsite", "redirects", "live",
        "links sent as written, not in a taught (or rewritten) form on a host allowed_domains leaves out",
    ),
    StatKey(
        "urlnorm/shortcuts_parked_again", "redirects", "live",
        "shortcut links parked again as written when the crash-safe frontier recovered their taught form",
    ),
    StatKey(
        "urlnorm/shortcut_fallbacks", "redirects", "live",
        "shortcut links whose taught form failed, fetched as written after all (a page there revokes the rule)",
    ),
    StatKey(
        "urlnorm/held_back", "learning", "live",
        "variants of a rule still undecided on their site, held while another variant tests it (URLNORM_HOLD_BACK)",
    ),
    StatKey(
        "urlnorm/held_back_released", "learning", "live",
        "held variants scheduled again: the rule was decided, the next probe, or the crawl went idle",
    ),
    StatKey(
        "urlnorm/twin_probes", "learning", "live",
        "variants of an undecided rule sent with their delivered twin's entity tag (If-None-Match)",
    ),
    StatKey(
        "urlnorm/twin_probes_not_modified", "learning", "live",
        "twin probes answered 304: the pair is evidence, and the variant's page is its twin's (no download)",
    ),
    # -- learning
    StatKey("urlnorm/learned_rules", "learning", "live", "learned rules active now"),
    StatKey("urlnorm/learned/<kind>", "learning", "live", f"active rules by kind: {_LEARNED_KINDS}"),
    StatKey("urlnorm/revoked_rules", "learning", "live", "rules revoked after a contradiction"),
    StatKey(
        "urlnorm/narrowed_rules", "learning", "live",
        "times a path rule contradicted in one section of its site (`/legacy/`) was narrowed out of that "
        "section instead of revoked: it still applies where it held",
    ),
    StatKey(
        "urlnorm/rules_sampled", "learning", "live",
        "rules a site's redirects taught whose verifications the site answered with the page itself "
        "(a download each), never a redirect, four times: sampled from then on, as content-taught rules are",
    ),
    StatKey(
        "urlnorm/robots_parent_spellings", "learning", "live",
        "with `ROBOTSTXT_OBEY`: spellings of a page learned rules dropped (or the static `default_port` "
        "step: `h:80/p`, whose host and port has a `robots.txt` of its own), sent after all because a link "
        "on the page was forbidden by `robots.txt` as the fetched spelling spelled it",
    ),
    StatKey(
        "urlnorm/robots_twins_differ", "learning", "live",
        "with `ROBOTSTXT_OBEY`: twin hosts (`h`, `www.h`) whose `robots.txt` answers differ, so `www_alias` is "
        "contradicted on their site (each follows its own rules in stock Scrapy)",
    ),
    # -- audits
    StatKey(
        "urlnorm/audits_scheduled", "audits", "live",
        "audits sent: dropped requests fetched anyway to check the rule or step that dropped them",
    ),
    StatKey(
        "urlnorm/idle_audits", "audits", "live",
        "audits sent when the crawl fell idle: learned drops made where their rule had not held yet, "
        "past that place's audit budget (also counted in `urlnorm/audits_scheduled`)",
    ),
    StatKey(
        "urlnorm/idle_audits_overflow", "audits", "live",
        "learned drops not vouched for left unaudited at idle because 100,000 had been audited then",
    ),
    StatKey("urlnorm/audits", "audits", "live", "audits completed"),
    StatKey(
        "urlnorm/audit_mismatches", "audits", "live",
        "audits that found a different page (the learned rule is revoked)",
    ),
    StatKey(
        "urlnorm/audits_inconclusive",
        "audits",
        "live",
        "audits whose reference page was unknown, or whose site had a rule revoked or narrowed "
        "since they were scheduled",
    ),
    StatKey(
        "urlnorm/settled_spellings", "audits", "live",
        "drops under a rule verified on every drop not verified, because the URL spells a session-like "
        "parameter with a token on a resource whose two token spellings and a made-up one answered the "
        "representative's page",
    ),
    StatKey(
        "urlnorm/spelling_probes", "audits", "live",
        "requests for a resource with a session token nobody issued, once two of its token spellings agreed "
        "(it settles only if the probe answers the same page; never shown to the spider)",
    ),
    StatKey(
        "urlnorm/twin_directory_probes", "audits", "live",
        "requests for a delivered page's www twin, once per top directory where a www_alias rule content "
        "taught has no pair yet (a page of its own there revokes the rule; never shown to the spider)",
    ),
    StatKey(
        "urlnorm/unsettled_spellings", "audits", "live",
        "settled resources that answered another page later (their unverified drops are released as written)",
    ),
    StatKey(
        "urlnorm/audits_answered", "audits", "live",
        "audits settled by what their URL answered when fetched before (for another rule, or as written): "
        "not fetched again",
    ),
    StatKey(
        "urlnorm/audits_vouched_since", "audits", "live",
        "audits scheduled until their learned rule was vouched for where they are, not sent: it was "
        "vouched for there before they went (kept as learned drops)",
    ),
    StatKey(
        "urlnorm/audits_in_flight_twice", "audits", "live",
        "audits not sent because another audit of the very URL and callback was in flight (kept as drops)",
    ),
    StatKey(
        "urlnorm/audits_no_page", "audits", "live",
        "audits not sent because an earlier audit of the very URL and callback found no page there "
        "(404, 410, 300; kept as drops)",
    ),
    StatKey(
        "urlnorm/audits_redirects_followed", "audits", "live",
        "audits whose redirect neither confirms nor contradicts their drop (a target merged with the "
        "representative only by a rule verified on every drop, or a representative that redirected alike): "
        "followed as stock follows them, through the filter",
    ),
    StatKey(
        "urlnorm/audits_pending_as_written", "audits", "live",
        "audits not sent because their very URL was pending as an ordinary request (kept as exact drops against it)",
    ),
    StatKey(
        "urlnorm/audits_delivered_as_written", "audits", "live",
        "audits not sent because the page at their very URL went to the spider while they were queued "
        "(delivered to an ordinary request, or downloaded by another audit; kept as exact drops)",
    ),
    StatKey(
        "urlnorm/audited_already", "audits", "live",
        "requests dropped because an audit downloaded that very URL in full (the spider had its page)",
    ),
    StatKey(
        "urlnorm/audits_not_modified", "audits", "live",
        "audits sent with their representative's ETag (If-None-Match) and answered 304: verified without a download",
    ),
    StatKey(
        "urlnorm/audits_negotiated", "audits", "live",
        "audits settled by the Content-Location a negotiating server (Apache MultiViews) named: "
        "the representative's own response named the URL, or a HEAD request answered naming the representative",
    ),
    StatKey(
        "urlnorm/etags_distrusted", "audits", "live",
        "hosts whose entity tags stopped counting as evidence (a tag named its page's size, as Apache's and "
        "nginx's do; two different pages came with one tag; or the host answered 304 to a tag it never gave)",
    ),
    StatKey(
        "urlnorm/etag_canaries", "audits", "live",
        "HEAD requests asking a host with entity tags about a tag it never gave, once per host, before its "
        "tags are used (a 304 means it does not compare them)",
    ),
    StatKey("urlnorm/coverage_loss_estimate", "audits", "close", "mismatch rate of the audits (only when audits ran)"),
    # -- redundancy
    StatKey("urlnorm/downloads", "redundancy", "close", "pages downloaded (200 responses)"),
    StatKey(
        "urlnorm/duplicate_downloads", "redundancy", "close",
        "pages downloaded whose body repeated one already downloaded",
    ),
    StatKey(
        "urlnorm/duplicate_downloads/<cause>", "redundancy", "close",
        "the same by why the duplicate was sent: `ordinary` (as any request: a pair learning needed, a "
        "spelling no rule merges) or the crawl log's `sent_as` (`audit`, `as_written`, `twin_probe`, "
        "`shortcut`, `rewritten`, `released`), or `campaign` (a link whose campaign parameters its keys "
        "kept: see `urlnorm/campaign_links_kept_apart`): what de-duplication chose to spend",
    ),
    StatKey(
        "urlnorm/redundancy_rate", "redundancy", "close",
        "their share: the observed redundancy rate, what the crawl still paid for",
    ),
    # -- frontier
    StatKey(
        "urlnorm/frontier/recovered", "frontier", "live",
        "requests scheduled again from the journal after a crash, or from a clean stop's in-flight list",
    ),
    StatKey(
        "urlnorm/frontier/drops_rechecked", "frontier", "live",
        "requests dropped against a representative still pending when the last run was killed, "
        "put through the filter again from the journal",
    ),
    StatKey(
        "urlnorm/frontier/unserializable", "frontier", "live",
        "requests that could not be journaled (their callback is not a spider method)",
    ),
    StatKey(
        "urlnorm/frontier/unrecoverable", "frontier", "live",
        "journaled requests that could not be restored (their callback is gone)",
    ),
    StatKey(
        "urlnorm/frontier/torn_records", "frontier", "live",
        "torn records cut from the end of the journal on resume",
    ),
    StatKey(
        "urlnorm/frontier/torn_cache_entries", "frontier", "live",
        "HTTP cache entries a crash cut short, removed before their recovered request was sent",
    ),
    StatKey(
        "urlnorm/frontier/compactions", "frontier", "live",
        "times the running crawl's journal was rewritten to its pending requests",
    ),
    StatKey(
        "urlnorm/frontier/write_errors", "frontier", "live",
        "journal writes that failed (a full disk): the crawl goes on, those requests are not crash-safe",
    ),
    # -- memory (caps in docs/how-it-works.md, "Memory is bounded")
    StatKey(
        "urlnorm/memory/seen_table_bytes", "memory", "close",
        "bytes of the seen set's hash table (no cap: 9.7 to 11.1 bytes per URL)",
    ),
    StatKey(
        "urlnorm/memory/page_digest_bytes", "memory", "close",
        "bytes of the digests of 200 bodies (no cap: ~9 bytes per page)",
    ),
    StatKey(
        "urlnorm/memory/normalization_cache", "memory", "close",
        "URLs in the normalization cache (cap `URLNORM_CACHE_SIZE`)",
    ),
    StatKey(
        "urlnorm/memory/parked_requests", "memory", "close",
        "learned drops whose representative delivered, kept for revocation, light (20,000 per host, "
        "100,000 in all)",
    ),
    StatKey(
        "urlnorm/memory/audit_confirmed_places", "memory", "close",
        "places (audit scopes) whose audits that found their representatives' pages are counted (10,000)",
    ),
    StatKey(
        "urlnorm/memory/idle_audit_marks", "memory", "close",
        "learned drops audited at idle, remembered so none is audited there twice (100,000)",
    ),
    StatKey(
        "urlnorm/memory/ledger_drops", "memory", "close",
        "drops waiting on a representative or kept for revocation (cap 100,000)",
    ),
    StatKey(
        "urlnorm/memory/failed_keys", "memory", "close",
        "keys whose representative did not deliver (no cap; usually few)",
    ),
    StatKey(
        "urlnorm/memory/failed_sent_keys", "memory", "close",
        "failed keys with the stock fingerprints of what their representatives sent, so exact copies are "
        "not fetched again (cap 100,000)",
    ),
    StatKey(
        "urlnorm/memory/abandoned_keys", "memory", "close",
        "keys whose representative was never sent as written (no cap; usually few)",
    ),
    StatKey(
        "urlnorm/memory/robots_parents", "memory", "close",
        "with `ROBOTSTXT_OBEY`: pages that spelled a link `robots.txt` forbade, whose other spellings are "
        "fetched (cap 100,000)",
    ),
    StatKey(
        "urlnorm/memory/robots_copy_keys", "memory", "close",
        "with `ROBOTSTXT_OBEY`: pending keys with the `Referer` of exact copies dropped against them "
        "(cap 100,000 keys, 8 each; forgotten when the key settles)",
    ),
    StatKey(
        "urlnorm/memory/robots_port_spellings", "memory", "close",
        "with `ROBOTSTXT_OBEY`: pages one of whose spellings with the default port written (`h:80/p`) "
        "was dropped, sent after all if a link of the page is forbidden (cap 100,000)",
    ),
    StatKey(
        "urlnorm/memory/claim_depths", "memory", "close",
        "with `DEPTH_LIMIT`: keys with the shallowest depth they were claimed at (no cap: two per fetched "
        "request deeper than the start requests)",
    ),
    StatKey(
        "urlnorm/memory/hosts_with_pages_for_rekeying", "memory", "close",
        "hosts whose fetched URLs are kept for re-keying under new rules (cap 1,000 hosts, 20,000 URLs "
        "each, 100,000 in all)",
    ),
    StatKey(
        "urlnorm/memory/invalid_hosts_logged", "memory", "close",
        "hosts named in the once-per-host invalid-URL warning (cap 10,000)",
    ),
    StatKey(
        "urlnorm/memory/page_digests_for_audits", "memory", "close",
        "digests of fetched pages kept for audits (cap 100,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/param_spellings", "memory", "close",
        "resources and token values remembered for session-like parameters (20,000 each, LRU)",
    ),
    StatKey(
        "urlnorm/memory/negotiated_files", "memory", "close",
        "files a negotiating server named, answered again under their hosts' rules when those change "
        "(cap 20,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/audit_answers", "memory", "close",
        "what URLs fetched as audits answered, kept so none is fetched for an audit twice (cap 100,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/representative_redirects", "memory", "close",
        "where requests (not audits) redirected, under their keys, so an audit that redirects alike "
        "contradicts nothing (cap 100,000 keys, LRU)",
    ),
    StatKey(
        "urlnorm/memory/audit_downloads", "memory", "close",
        "URLs an audit downloaded in full, kept so a taught form is not sent to them again (cap 100,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/campaign_urls", "memory", "close",
        "URLs with campaign parameters whose keys' decision is remembered (cap 100,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/campaign_waiting", "memory", "close",
        "plain pages awaited by a campaign spelling delivered first (cap 10,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/twin_pages", "memory", "close",
        "delivered pages kept by their variant-free form, for twin probes (cap 50,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/foreign_drops", "memory", "close",
        "distributed: static drops against other workers' pages not written into Redis yet "
        "(`urlnorm/redis/foreign_kept`; cap 100,000, beyond which they are fetched: "
        "`urlnorm/redis/foreign_fetched`)",
    ),
    StatKey(
        "urlnorm/memory/narrow_keys", "memory", "close",
        "delivered pages keyed under their host's rules that are not verified on every drop, "
        "so a drop is audited under the rule it needs (cap 100,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/entity_tags", "memory", "close",
        "entity tags of delivered pages kept for conditional audits (cap 100,000, LRU)",
    ),
    StatKey(
        "urlnorm/memory/entity_tag_pages", "memory", "close",
        "(host, tag) -> digest pairs kept to catch a tag two pages share (cap 100,000, LRU)",
    ),
    StatKey("urlnorm/memory/audit_scopes", "memory", "close", "rules and steps with an audit budget (cap 10,000)"),
    StatKey(
        "urlnorm/memory/verified_urls", "memory", "close",
        "URLs verified for redirect-taught rules, kept so each is verified once (cap 20,000 per rule and host)",
    ),
    StatKey(
        "urlnorm/memory/evidence_buckets", "memory", "close",
        "URL forms remembered as evidence for learning (cap 1,024 per host, 16,384 in all, LRU)",
    ),
    StatKey(
        "urlnorm/memory/evidence_buckets_evicted", "memory", "close",
        "URL forms the evidence caps pushed out (least recently used first)",
    ),
    StatKey(
        "urlnorm/memory/catch_all_digests", "memory", "close",
        "body digests kept for soft-404 detection (cap 8,192, oldest first)",
    ),
    StatKey(
        "urlnorm/memory/catch_all_digests_evicted", "memory", "close",
        "body digests the soft-404 cap pushed out (oldest first)",
    ),
    StatKey("urlnorm/memory/rule_states", "memory", "close", "rule states, active or gathering evidence (cap 100,000)"),
    StatKey(
        "urlnorm/memory/session_linked_pages", "memory", "close",
        "with cookies on: keys of pages whose links carried the session their answer opened, to be fetched "
        "once more or fetched so (cap 20,000 each)",
    ),
    StatKey("urlnorm/memory/iis_hosts", "memory", "close", "hosts seen to be IIS (cap 100,000)"),
    StatKey(
        "urlnorm/memory/sites_with_relative_links", "memory", "close",
        "sites seen serving pages with links relative to their directory (cap 100,000; past it, every site)",
    ),
    # -- redis
    StatKey(
        "urlnorm/redis_errors", "redis", "live",
        "failed Redis calls (the crawl went on locally, retrying with backoff)",
    ),
    StatKey("urlnorm/redis/round_trips", "redis", "live", "claim/look-up round trips to Redis (one per page batch)"),
    StatKey(
        "urlnorm/redis/claimed_twice", "redis", "live",
        "fingerprints kept during an outage that another worker had claimed meanwhile (fetched twice)",
    ),
    StatKey(
        "urlnorm/redis/state_lost", "redis", "live",
        "the crawl's state in Redis was wiped (epoch key gone): the worker stopped with `urlnorm_redis_state_lost`",
    ),
    StatKey("urlnorm/redis/acked", "redis", "live", "queue leases acknowledged (requests done)"),
    StatKey(
        "urlnorm/redis/acked_ended", "redis", "live",
        "leases acknowledged when the worker had nothing left in its downloader or scraper: their requests "
        "ended where no middleware saw it (an exception in a downloader middleware's `process_response`, "
        "such as `RedirectMiddleware`'s \"max redirections reached\")",
    ),
    StatKey(
        "urlnorm/redis/reclaimed", "redis", "live",
        "requests a dead worker held, queued again after its lease ran out",
    ),
    StatKey("urlnorm/redis/spilled", "redis", "live", "requests kept in the local spill while Redis was away"),
    StatKey(
        "urlnorm/redis/delivered_elsewhere", "redis", "live",
        "pending pages this worker queued that another worker fetched and that delivered: "
        "what was dropped against them here is settled, not released at idle",
    ),
    StatKey(
        "urlnorm/redis/kept_local", "redis", "live",
        "requests that do not serialize for Redis (a callback that is no method of the spider, such as "
        "robots.txt's `NO_CALLBACK`): queued in this worker's memory and fetched by it",
    ),
    StatKey(
        "urlnorm/redis/foreign_kept", "redis", "live",
        "static drops against other workers' pages written into Redis, where they outlive this "
        "worker: released by whichever worker hears first that such a page failed, deleted when it delivers",
    ),
    StatKey(
        "urlnorm/redis/parked_shared", "redis", "live",
        "learned drops parked here (against delivered pages, for revocation) mirrored into Redis, "
        "one entry per URL: taken by the worker that reclaims what this one held if it dies",
    ),
    StatKey(
        "urlnorm/redis/parked_adopted", "redis", "live",
        "drops a dead worker had parked, taken with what it held and put through this worker's filter again",
    ),
    StatKey(
        "urlnorm/redis/parked_unshared", "redis", "live",
        "parked drops not mirrored into Redis: they do not serialize (kept in this worker's memory only)",
    ),
    StatKey(
        "urlnorm/redis/parked_unreadable", "redis", "live",
        "drops a dead worker had parked that this worker could not rebuild into requests (logged as errors)",
    ),
    StatKey(
        "urlnorm/redis/foreign_unreadable", "redis", "live",
        "drops kept in Redis against a page that failed which this worker could not rebuild into "
        "requests (logged as errors; a spider whose callbacks differ between workers)",
    ),
    StatKey(
        "urlnorm/redis/foreign_fetched", "redis", "live",
        "requests a static step would have dropped against another worker's page, fetched instead: "
        "they do not serialize for Redis, where such drops are kept, or 100,000 waited to be written there",
    ),
    StatKey(
        "urlnorm/redis/learned_fetched", "redis", "live",
        "requests a learned rule would have dropped, fetched instead: their page is another worker's, "
        "or still pending with no queue lease to hold until it settles",
    ),
    StatKey(
        "urlnorm/redis/redirects_fetched", "redis", "live",
        "redirect targets another worker claimed and is not known to have delivered, fetched instead of "
        "dropped as exact duplicates: that worker may have died before queueing them",
    ),
    StatKey(
        "urlnorm/all_workers/<name>", "redis", "close",
        "every worker's `urlnorm/<name>` counter added up, as of this worker's close: "
        "the last worker to close reports the whole crawl",
    ),
)  # fmt: skip


def find(key: str) -> StatKey | None:
    """The entry documenting ``key`` (a concrete key, or a family written with a placeholder), if any."""
    for entry in STATS:
        if entry.key == key or entry.pattern().match(key):
            return entry
    return None
