"""The report tells the truth: shares against what this run decided on (a resumed
``JOBDIR`` included), a clear line when another dupe filter is active, and a crawl
log of a stock crawl for ``analyze`` to compare with."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import VirtualWeb
from demoweb.web import START_URLS, build_sites

from scrapy_urlnorm.report import format_report

ADDON: dict[str, Any] = {"ADDONS": {"scrapy_urlnorm.Addon": 0}}
GUARD: dict[str, Any] = {"CLOSESPIDER_TIMEOUT": 120}


def report_block(caplog: pytest.LogCaptureFixture) -> str:
    return next(r.getMessage() for r in caplog.records if r.getMessage().startswith("scrapy-urlnorm redundancy report"))


def shares(block: str) -> list[float]:
    return [float(share) for share in re.findall(r"\((\d+(?:\.\d+)?)% of", block)]


def minimal_report(**figures: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "requests_seen": 0,
        "filtered": 0,
        "filtered_by_reason": {},
        "late_filtered": 0,
        "invalid_urls": 0,
        "downloads": 0,
        "duplicate_downloads": 0,
        "redundancy_rate": 0.0,
        "released_by_reason": {},
        "unsettled_at_close": 0,
        "audits": 0,
        "learned_rules": 0,
        "revoked_rules": 0,
        "learned_by_kind": {},
        "rules": {},
    }
    report.update(figures)
    return report


def test_the_resume_figures_of_issue_16_give_no_share_over_100_percent() -> None:
    """Reproduces: "filtered 171 (101.2% of requests seen)" after a JOBDIR resume,
    where requests queued by the earlier run were dropped at download time."""
    block = format_report(minimal_report(requests_seen=169, filtered=171, late_filtered=21, queued_at_start=40))
    assert "queued by an earlier run" in block
    assert shares(block) and all(share <= 100 for share in shares(block))
    # A queue shared with other workers (scrapy-redis): the two kinds of drops apart.
    block = format_report(minimal_report(requests_seen=169, filtered=171, late_filtered=21))
    assert all(share <= 100 for share in shares(block)) and "21 at download time" in block


@pytest_twisted.ensureDeferred
async def test_a_resumed_jobdir_reports_shares_of_what_it_decided_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scrapy_urlnorm")
    settings = {**ADDON, **GUARD, "JOBDIR": str(tmp_path / "job"), "CONCURRENT_REQUESTS": 1}
    with VirtualWeb(build_sites()) as web:
        await crawl(web, START_URLS, {**settings, "CLOSESPIDER_PAGECOUNT": 6})
        caplog.clear()
        await crawl(web, START_URLS, settings)
    block = report_block(caplog)
    assert re.search(r"\+ queued by an earlier run +[1-9]", block), block
    assert shares(block) and all(share <= 100 for share in shares(block)), block


@pytest_twisted.ensureDeferred
async def test_another_dupe_filter_winning_is_said_plainly(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """Reproduces: with the user's own DUPEFILTER_CLASS, the report said "requests
    seen 1, filtered 0" as if scrapy-urlnorm had filtered nothing."""
    caplog.set_level(logging.INFO, logger="scrapy_urlnorm")
    report_file = tmp_path / "report.json"
    settings = {
        **ADDON,
        **GUARD,
        "DUPEFILTER_CLASS": "scrapy.dupefilters.RFPDupeFilter",
        "URLNORM_REPORT_FILE": str(report_file),
    }
    with VirtualWeb(build_sites()) as web:
        await crawl(web, START_URLS, settings)
    block = report_block(caplog)
    assert "DUPEFILTER_CLASS is scrapy.dupefilters.RFPDupeFilter: requests were de-duplicated by it" in block
    report = json.loads(report_file.read_text())
    assert report["filter_active"] is False and report["dupefilter"] == "scrapy.dupefilters.RFPDupeFilter"


@pytest_twisted.ensureDeferred
async def test_a_stock_crawl_is_logged_for_analyze_with_the_filter_off(tmp_path: Path) -> None:
    """Reproduces: analyze on the add-on's own crawl log is mostly zeros (the variants
    were dropped before fetching) and a stock crawl could not be logged."""
    stock_log, addon_log = tmp_path / "stock.jsonl", tmp_path / "addon.jsonl"
    with VirtualWeb(build_sites()) as web:
        await crawl(web, START_URLS, {**ADDON, **GUARD, "URLNORM_ENABLED": False, "URLNORM_CRAWL_LOG": str(stock_log)})
        stock_hits = len([hit for hit in web.hits if not 300 <= hit.status < 400])
        await crawl(web, START_URLS, {**ADDON, **GUARD, "URLNORM_CRAWL_LOG": str(addon_log)})
    stock_lines = stock_log.read_text().splitlines()
    assert len(stock_lines) == stock_hits  # one line per final response (redirects followed)
    assert len(stock_lines) > len(addon_log.read_text().splitlines())

    def analyzed(path: Path) -> dict[str, Any]:
        result = subprocess.run(
            [sys.executable, "-m", "scrapy_urlnorm", "analyze", "--json", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    stock, addon = analyzed(stock_log), analyzed(addon_log)

    def candidates(table: dict[str, Any]) -> int:
        return sum(o["candidate_urls"] for o in table["options"] if o["option"] == "keep")

    assert candidates(stock) > candidates(addon)


def test_a_few_audits_give_counts_not_a_rate() -> None:
    """Reproduces: "0.000 (95% upper bound 0.658)" on a small crawl; a share of six
    audits says nothing, the counts do."""
    few = format_report(minimal_report(audits=6, audit_mismatches=0, coverage_loss_estimate=0.0))
    assert "mismatches 0 (share shown from 30 audits)" in few and "upper bound" not in few
    many = format_report(minimal_report(audits=40, audit_mismatches=1, coverage_loss_estimate=0.025))
    assert "mismatches 1 (share 0.025)" in many
