"""``UrlNormReport``: the redundancy report at spider close, and the crawl log.

At ``spider_closed`` (so it works under Scrapy's and scrapy-redis' schedulers
alike) it writes one INFO block to the crawl log, puts the figures into
``crawler.stats`` under ``urlnorm/*``, and with ``URLNORM_REPORT_FILE`` writes
them as JSON. With ``URLNORM_CRAWL_LOG`` it streams one JSON line per
response (url, final url after redirects, status, body digest, referer), the
input ``python -m scrapy_urlnorm analyze`` reads.

JSON report schema (``"schema": 2``)::

    {
      "schema": 2, "spider": str, "finish_reason": str, "policy": {switch: value},
      "dupefilter": str,                        # the crawl's dupe filter class (module.Name)
      "filter_active": bool,                    # False when another DUPEFILTER_CLASS won
      "requests_seen": int, "filtered": int, "filtered_by_reason": {reason: int},
      "queued_at_start": int,                   # requests queued by an earlier run of the JOBDIR
      "late_filtered": int, "unique_fingerprints": int, "invalid_urls": int,
      "downloads": int, "duplicate_downloads": int, "redundancy_rate": float,
      "audits": int, "audit_mismatches": int,
      "coverage_loss_estimate": float | null,   # audit mismatches / audits, when audits ran
      "released_by_reason": {why: int},         # drops released: their representative did not deliver
      "unsettled_at_close": int,                # drops still waiting on a representative (0 after a normal finish)
      "learned_rules": int, "revoked_rules": int, "learned_by_kind": {kind: int},
      "rules": {host: [{"kind", "direction", "active", "revoked", "pairs", "negatives",
                        "sources": {via: int},   # evidence: redirect, content, content-location, canonical, ...
                        "scope": [host],         # the hosts the rule applies to (both www twins once aliased)
                        "not_under": [path]}]},  # sections of the site a contradiction narrowed it out of
      "duplicates_by_host": {host: int},        # duplicate downloads per host (www twins with their
                                                # bare host once aliased), most first (top 50)
      "duplicates_by_cause": {cause: int},      # duplicate downloads by why they were sent: "ordinary"
                                                # (learning's pairs, what no rule merges), or the crawl
                                                # log's sent_as (audit, as_written, shortcut, released, ...)
      "memory": {structure: int}   # how full each bounded structure is (urlnorm/memory/*)
    }
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from scrapy import signals
from scrapy.http import HtmlResponse
from scrapy.utils.job import job_dir
from scrapy.utils.request import referer_str

from . import figures
from . import meta as M
from .dedup import Deduplicator
from .digests import page_digest
from .dupefilter import UrlNormDupeFilter
from .wiring import redis_url

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Below this many audits the report gives their mismatches, not a share of them.
MIN_AUDITS_FOR_SHARE = 30


#: (kept importable from here: the crawl log's field)
sent_as = M.sent_as


class UrlNormReport:
    """Enabled by the add-on (``EXTENSIONS``); reads ``URLNORM_REPORT_FILE`` and ``URLNORM_CRAWL_LOG``."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        settings = crawler.settings
        self.report_file = settings.get("URLNORM_REPORT_FILE")
        crawl_log = settings.get("URLNORM_CRAWL_LOG")
        self._log: IO[str] | None = None
        self.dupefilter: type | None = None  # the scheduler's, seen at spider_opened
        self.queued_at_start = 0
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        if crawl_log:
            Path(crawl_log).parent.mkdir(parents=True, exist_ok=True)
            self._log = open(crawl_log, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - closed at spider close
            crawler.signals.connect(self.response_received, signal=signals.response_received)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def spider_opened(self, spider: Spider | None = None) -> None:
        """What the scheduler holds before this run has scheduled anything (a resumed
        ``JOBDIR``'s queue), and which dupe filter it asks."""
        scheduler = getattr(getattr(self.crawler.engine, "_slot", None), "scheduler", None)
        df = getattr(scheduler, "df", None)
        if df is not None:
            self.dupefilter = type(df)
        dedup = Deduplicator._by_crawler.get(self.crawler)
        if dedup is not None and self._log is not None:
            dedup.own_pages.append(self.response_received)  # (its own questions' pages)
        # Only a JOBDIR's own queue was filled by an earlier run of this crawl (a queue
        # in Redis holds what the other workers push).
        if scheduler is not None and job_dir(self.crawler.settings) and not redis_url(self.crawler.settings):
            try:
                self.queued_at_start = len(scheduler)
            except Exception:  # a scheduler without a length: no figure rather than no crawl
                self.queued_at_start = 0

    def response_received(self, response: Response, request: Request, spider: Spider | None = None) -> None:
        if self._log is None:
            return
        chain = request.meta.get("redirect_urls") or [request.url]
        record = {
            "url": chain[0],
            "final_url": response.url,
            "status": response.status,
            "digest": f"{page_digest(response.body, html=isinstance(response, HtmlResponse), url=response.url):016x}"
            if response.status == 200
            else None,
            "referer": referer_str(request),
            "sent_as": sent_as(request.meta),
        }
        self._log.write(json.dumps(record) + "\n")

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
        dedup = Deduplicator._by_crawler.get(self.crawler)
        if dedup is None:
            return
        dedup.close()  # puts its close-time figures into stats (idempotent)
        report = build_report(
            dedup,
            self.crawler.stats.get_stats(),
            spider.name,
            reason,
            dupefilter=self.dupefilter,
            queued_at_start=self.queued_at_start,
        )
        logger.info("%s", format_report(report), extra={"spider": spider})
        if self.report_file:
            path = Path(self.report_file)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def build_report(
    dedup: Deduplicator,
    stats: dict[str, Any],
    spider: str,
    reason: str,
    *,
    dupefilter: type | None = None,
    queued_at_start: int = 0,
) -> dict[str, Any]:
    summary = figures.summary(dedup)
    by_reason = {
        key.removeprefix("urlnorm/filtered/"): value
        for key, value in stats.items()
        if key.startswith("urlnorm/filtered/")
    }
    rules: dict[str, list[dict[str, Any]]] = {}
    learned_by_kind: Counter[str] = Counter()
    revoked = 0
    if dedup.learner is not None:
        for rule in dedup.learner.rules.values():
            if not (rule.active or (rule.revoked and rule.pairs)):
                continue  # only rules that were ever more than a single observation
            rules.setdefault(rule.host, []).append(
                {
                    "kind": rule.kind,
                    "direction": rule.direction,
                    "active": rule.active,
                    "revoked": rule.revoked,
                    "pairs": rule.positives,
                    "negatives": rule.negatives,
                    "sources": dict(rule.sources),
                    "scope": list(dedup.learned.site_hosts(rule.host)) if dedup.learned else [rule.host],
                    "not_under": [f"/{section}/" if section else "/" for section in sorted(rule.excluded)],
                }
            )
            if rule.active:
                learned_by_kind[rule.kind.partition(":")[0]] += 1
        revoked = stats.get("urlnorm/revoked_rules", 0)
    return {
        "schema": 2,
        "spider": spider,
        "finish_reason": reason,
        "policy": dedup.policy.switches(),
        "dupefilter": f"{dupefilter.__module__}.{dupefilter.__qualname__}" if dupefilter else None,
        "filter_active": dupefilter is None or issubclass(dupefilter, UrlNormDupeFilter),
        "requests_seen": stats.get("urlnorm/requests_seen", 0),
        "queued_at_start": queued_at_start,
        "filtered": stats.get("urlnorm/filtered", 0),
        "filtered_by_reason": dict(sorted(by_reason.items(), key=lambda kv: -kv[1])),
        "late_filtered": stats.get("urlnorm/late_filtered", 0),
        "unique_fingerprints": summary["unique_fingerprints"],
        "invalid_urls": stats.get("urlnorm/invalid_urls", 0),
        "downloads": summary["downloads"],
        "duplicate_downloads": summary["duplicate_downloads"],
        "redundancy_rate": summary["redundancy_rate"],
        "audits": summary["audits"],
        "audit_mismatches": summary["audit_mismatches"],
        "coverage_loss_estimate": summary.get("coverage_loss_estimate"),
        "released_by_reason": {
            key.removeprefix("urlnorm/released/"): value
            for key, value in sorted(stats.items())
            if key.startswith("urlnorm/released/")
        },
        "unsettled_at_close": summary["unsettled_at_close"],
        "learned_rules": sum(learned_by_kind.values()),
        "revoked_rules": revoked,
        "learned_by_kind": dict(learned_by_kind),
        "rules": dict(sorted(rules.items())),
        "duplicates_by_host": _duplicates_by_site(dedup),
        "duplicates_by_cause": dict(sorted(dedup.meter.duplicates_by_cause.items(), key=lambda kv: -kv[1])),
        "memory": figures.memory_figures(dedup),
    }


def _duplicates_by_site(dedup: Deduplicator, top: int = 50) -> dict[str, int]:
    """Duplicate downloads per host, the www twin counted with its bare host once they are one site."""
    by_site: Counter[str] = Counter()
    for host, count in dedup.meter.duplicates_by_host.items():
        site = dedup.learned.site_hosts(host)[0] if dedup.learned is not None else host
        by_site[site] += count
    return dict(by_site.most_common(top))


#: What each cause of a duplicate download means, for the readable report.
_CAUSES = {
    "ordinary": "(learning's pairs, spellings no rule merges)",
    "audit": "(a drop verified by fetching it)",
    "as_written": "(a learned drop fetched to check its rule)",
    "twin_probe": "(a www twin asked with its entity tag, answered in full)",
    "directory_probe": "(a www twin asked once per top directory, never shown to the spider)",
    "canary": "(a host asked once whether its 304s compare entity tags)",
    "spelling_probe": "(a resource asked with a session token nobody issued)",
    "shortcut": "(a link sent in its taught form)",
    "rewritten": "(sent normalized)",
    "released": "(a drop released past the filter)",
    "campaign": "(a page checked with a campaign value its links carried)",
}


def format_report(report: dict[str, Any], top_hosts: int = 10) -> str:
    """The report as the readable block logged at spider close."""
    lines = ["scrapy-urlnorm redundancy report", "-" * 60]
    if not report.get("filter_active", True):
        lines.append(
            f"DUPEFILTER_CLASS is {report['dupefilter']}: requests were de-duplicated by it, not by "
            "scrapy-urlnorm; the figures below count only what scrapy-urlnorm's middleware saw"
        )
    seen, filtered, late = report["requests_seen"], report["filtered"], report["late_filtered"]
    queued = report.get("queued_at_start", 0)
    lines.append(f"requests seen            {seen:>8}")
    if queued:
        lines.append(f"  + queued by an earlier run {queued:>6}  (resumed JOBDIR: checked at download time only)")
    lines.append(f"filtered as duplicates   {filtered:>8}{_share(filtered, seen, queued, late)}")
    for reason, count in report["filtered_by_reason"].items():
        lines.append(f"  {reason:<31}{count:>8}")
    if late:
        lines.append(f"  (of which at download time, under rules learned later: {late})")
    if report["invalid_urls"]:
        lines.append(f"invalid URLs (Scrapy's fingerprint used) {report['invalid_urls']}")
    lines.append(f"pages downloaded (200)   {report['downloads']:>8}")
    lines.append(
        f"  duplicate content      {report['duplicate_downloads']:>8}  redundancy rate {report['redundancy_rate']:.3f}"
    )
    for cause, count in report.get("duplicates_by_cause", {}).items():
        lines.append(f"    sent {cause:<24}{count:>8}  {_CAUSES.get(cause, '')}")
    released = report.get("released_by_reason", {})
    lines.append(
        f"drops released           {sum(released.values()):>8}  (representative did not deliver: fetched after all)"
    )
    for why, count in released.items():
        lines.append(f"  {why:<31}{count:>8}")
    lines.append(f"drops unsettled at close {report['unsettled_at_close']:>8}")
    if report["audits"]:
        # A mismatch share says little below a few dozen audits: the ledger's figures
        # above are what a small crawl's losses are read from.
        share = (
            f" (share {report['coverage_loss_estimate']:.3f})"
            if report["audits"] >= MIN_AUDITS_FOR_SHARE
            else f" (share shown from {MIN_AUDITS_FOR_SHARE} audits)"
        )
        lines.append(f"audits                   {report['audits']:>8}  mismatches {report['audit_mismatches']}{share}")
    lines.append(f"rules learned            {report['learned_rules']:>8}  revoked {report['revoked_rules']}")
    for kind, count in sorted(report["learned_by_kind"].items()):
        lines.append(f"  {kind:<31}{count:>8}")
    duplicates = report.get("duplicates_by_host", {})
    hosts = sorted(
        set(report["rules"]) | set(duplicates),
        key=lambda host: (-sum(r["active"] for r in report["rules"].get(host, [])), -duplicates.get(host, 0), host),
    )
    if hosts:
        lines.append("per host: rules (scope; evidence), duplicate downloads")
    for host in hosts[:top_hosts]:
        lines.append(f"  {host}: {duplicates.get(host, 0)} duplicate download(s)")
        lines.extend(f"    {_describe_rule(host, rule)}" for rule in report["rules"].get(host, []))
    if len(hosts) > top_hosts:
        lines.append(f"  ... and {len(hosts) - top_hosts} more host(s) (URLNORM_REPORT_FILE has them all)")
    return "\n".join(lines)


def _describe_rule(host: str, rule: dict[str, Any]) -> str:
    """One rule: what it is, where it applies, what taught it (and what revoked it)."""
    name = rule["kind"] + (f" ({rule['direction']})" if rule["direction"] else "")
    scope = [h for h in rule.get("scope", [host]) if h != host]
    where = f" [also {', '.join(scope)}]" if scope else ""
    if rule.get("not_under"):
        where += f" [not under {', '.join(rule['not_under'])}]"
    evidence = ", ".join(f"{via} {count}" for via, count in sorted(rule["sources"].items())) or "none"
    if not rule["active"]:
        state = f"revoked ({rule['negatives']} against)"
    elif rule.get("not_under"):
        state = f"active where it held ({rule['negatives']} against)"
    elif rule["negatives"]:  # a rule verified on every drop: those URLs were fetched as pages
        state = f"active ({rule['negatives']} URL(s) of their own, fetched)"
    else:
        state = "active"
    return f"{name}{where}: {state}; {rule['pairs']} pair(s), evidence {evidence}"


def _share(filtered: int, seen: int, queued: int, late: int) -> str:
    """``filtered`` as a share of the requests the filter decided on in this run.

    Each request seen is dropped at most once when scheduled, so ``filtered - late``
    never exceeds ``seen``; a late drop is of a request seen in this run or queued by
    an earlier one. With a queue shared by other workers (scrapy-redis), late drops
    may be of requests another worker saw: then the two are given apart.
    """
    decided = seen + queued
    if not decided:
        return ""
    if filtered <= decided:
        of = "requests seen" if not queued else f"the {decided} requests seen or queued before"
        return f" ({filtered / decided:.1%} of {of})"
    when_scheduled = f"{(filtered - late) / seen:.1%} of requests seen when scheduled, " if seen else ""
    return f" ({when_scheduled}{late} at download time)"
