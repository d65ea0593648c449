"""The close-time report, the crawl log, and ``analyze`` (the paper's Table 1)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import VirtualWeb
from demoweb.web import START_URLS, build_sites
from test_learning import ADDON

from scrapy_urlnorm import meta as M
from scrapy_urlnorm.analyze import analyze
from scrapy_urlnorm.report import sent_as

# Example 1 of Lee, Kim and Hong, section 3: u1..u10 with the pages they gave
# (a, b, c, d, e; u8 and u9 failed to download).
EXAMPLE_1 = [
    ("www.microsoft.com/", "a"),
    ("www.microsoft.com/default.asp", "a"),
    ("www.microsoft.com/index.htm", "b"),
    ("www.microsoft.com/index.html", "b"),
    ("nasdaq.com/asp/ownership.asp", "c"),
    ("nasdaq.com/ASP/ownership.asp", "c"),
    ("ietf.org/tao.html", "d"),
    ("ietf.org/TAO.html", None),
    ("ietf.org/Tao.html", None),
    ("www.acm.org/", "e"),
]


def example_1_log() -> list[str]:
    return [
        json.dumps({"url": f"http://{url}", "status": 200 if digest else 404, "digest": digest})
        for url, digest in EXAMPLE_1
    ]


def option(result: dict, study: str, name: str) -> dict:
    return next(o for o in result["options"] if o["study"] == study and o["option"] == name)


def test_paper_example_1_reproduced_exactly() -> None:
    result = analyze(example_1_log()).as_dict()
    # Default-page decomposition: U1 = {u1..u4}; redundancy (4-2)/4, coverage loss 1-1/2.
    keep = option(result, "default pages", "keep")
    assert (keep["candidate_urls"], keep["candidate_sets"]) == (4, 4)
    assert keep["redundancy_rate"] == 0.5
    assert option(result, "default pages", "remove")["coverage_loss_rate"] == 0.5
    assert option(result, "default pages", "remove")["candidate_sets"] == 1
    # Path-case decomposition: {u5, u6}, {u7, u8, u9}; redundancy 1/3, coverage loss 0.
    assert round(option(result, "path case", "keep")["redundancy_rate"], 2) == 0.33
    assert option(result, "path case", "lower")["coverage_loss_rate"] == 0.0
    assert option(result, "path case", "lower")["candidate_sets"] == 2
    # Upper-casing sends URLs nobody linked to: both documents lost.
    assert option(result, "path case", "upper")["coverage_loss_rate"] == 1.0


def test_plain_url_lists_give_sets_without_rates() -> None:
    result = analyze(["http://h/a", "http://h/a/", "http://h/b", "# comment", ""]).as_dict()
    slash = option(result, "last slash", "add")
    assert (slash["candidate_urls"], slash["candidate_sets"], slash["request_reduction"]) == (2, 1, 0.5)
    assert slash["redundancy_rate"] is None and slash["coverage_loss_rate"] is None


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scrapy_urlnorm", "analyze", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_table_json_and_bad_input(tmp_path: Path) -> None:
    log = tmp_path / "crawl.jsonl"
    log.write_text("\n".join([*example_1_log(), "{not json", "mailto:x@y"]) + "\n")
    table = run_cli(str(log))
    assert table.returncode == 0, table.stderr
    assert "default pages   remove" in table.stdout
    assert "2 unparseable line(s) skipped" in table.stderr
    as_json = json.loads(run_cli(str(log), "--json").stdout)
    assert as_json["invalid_lines"] == 2 and as_json["urls"] == 10

    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = run_cli(str(empty))
    assert result.returncode == 1 and "no URL found" in result.stderr
    missing = run_cli(str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert run_cli("-", stdin="http://h/a\nhttp://h/A\n").returncode == 0


@pytest_twisted.ensureDeferred
async def test_report_block_json_and_crawl_log_of_a_real_crawl(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="scrapy_urlnorm")
    report_file, crawl_log = tmp_path / "report.json", tmp_path / "logs" / "crawl.jsonl"
    settings = {**ADDON, "URLNORM_REPORT_FILE": str(report_file), "URLNORM_CRAWL_LOG": str(crawl_log)}
    with VirtualWeb(build_sites()) as web:
        result = await crawl(web, START_URLS, settings)
        responses = len([hit for hit in web.hits if hit.status == 200])

    report = json.loads(report_file.read_text())
    assert report["schema"] == 2 and report["finish_reason"] == "finished"
    # Which of a link's duplicates a rule claims, and which are plain repeats or
    # tracking and session variants, depends on Scrapy's crawl order.
    by_reason = dict(report["filtered_by_reason"])
    assert set(by_reason) <= {
        "exact",
        "session_ids",
        "tracking_params",
        "learned:case_insensitive_path",
        "learned:www_alias",
        "learned:trailing_slash",
    }
    assert sum(by_reason.values()) == report["filtered"] > 70
    assert report["requests_seen"] > report["filtered"]
    assert 0 < report["late_filtered"] <= sum(v for k, v in by_reason.items() if k.startswith("learned:"))
    # Requests dropped against a link that a learned rule then dropped at download time
    # are checked again (against the learned key); nothing else was released.
    assert set(report["released_by_reason"]) <= {"dropped"} and report["unsettled_at_close"] == 0
    # (one of them a www twin asked once, about a directory only one twin was reached in)
    assert (report["downloads"], report["duplicate_downloads"], report["redundancy_rate"]) == (37, 9, 0.2432)
    assert report["downloads"] == responses
    assert report["learned_rules"] == 6 and report["revoked_rules"] == 0
    assert report["learned_by_kind"] == {
        "case_insensitive_path": 1,
        "default_page": 1,
        "trailing_slash": 2,
        "www_alias": 2,
    }
    assert sorted(r["kind"] for r in report["rules"]["apache.test"]) == [
        "default_page:index.html",
        "trailing_slash",
        "www_alias",
    ]
    assert report["rules"]["blog.test"][0]["direction"] == "remove"
    # Whatever was audited agreed. (Usually one audit: blog.test's /post/second/,
    # dropped by the trailing_slash rule and verified. When its link comes before
    # the rule is decided, it is fetched as the rule's third pair instead, so
    # nothing is audited: which depends on the crawl order. That such drops are
    # verified is test_a_drop_is_verified_under_every_rule_it_rests_on's to show.)
    assert report["audit_mismatches"] == 0 and report["coverage_loss_estimate"] == 0.0
    assert report["memory"]["rule_states"] >= 6 and report["memory"]["seen_table_bytes"] > 0

    # The same figures are in the stats ...
    stats = result.stats
    assert stats["urlnorm/redundancy_rate"] == 0.2432
    assert stats["urlnorm/downloads"] == 37
    assert stats["urlnorm/filtered"] == sum(report["filtered_by_reason"].values())
    # ... and in one readable block in the log.
    block = next(
        r.getMessage() for r in caplog.records if r.getMessage().startswith("scrapy-urlnorm redundancy report")
    )
    share = report["filtered"] / report["requests_seen"]
    assert f"filtered as duplicates   {report['filtered']:>8} ({share:.1%} of requests seen)" in block
    assert "drops unsettled at close        0" in block
    assert "duplicate content             9  redundancy rate 0.243" in block
    # Per host: its duplicate downloads, then each rule with its scope and evidence.
    lines = block.splitlines()
    start = lines.index("  apache.test: 2 duplicate download(s)")
    apache = [line.strip() for line in lines[start + 1 :] if line.startswith("    ")][:3]
    assert {line.partition(" [")[0].partition(":")[0] for line in apache} >= {
        "www_alias (strip)",
        "trailing_slash (add)",
    }
    assert any(line.startswith("default_page:index.html") for line in apache)
    assert all("[also www.apache.test]: active; " in line and " pair(s), evidence " in line for line in apache), apache
    assert report["duplicates_by_host"]["apache.test"] == 2
    assert "    case_insensitive_path: active; 2 pair(s), evidence content 2" in lines

    # The crawl log has one line per response, and analyze reads it.
    records = [json.loads(line) for line in crawl_log.read_text().splitlines()]
    assert len([r for r in records if r["status"] == 200]) == report["downloads"] == 37
    assert {"url", "final_url", "status", "digest", "referer", "sent_as"} <= set(records[0])
    # Why the add-on sent what it sent, when not as an ordinary request: its audits among them.
    roles = Counter(r["sent_as"] for r in records)
    assert set(roles) <= {
        None,
        "audit",
        "twin_probe",
        "directory_probe",
        "shortcut",
        "rewritten",
        "as_written",
        "released",
    }
    assert roles["audit"] > 0
    # The report breaks the duplicate downloads down the same way, from the same pages.
    causes = report["duplicates_by_cause"]
    assert sum(causes.values()) == report["duplicate_downloads"] == 9
    first: dict[str, str] = {}
    logged: Counter[str] = Counter()
    for record in records:
        if record["status"] == 200:
            if record["digest"] in first:
                logged[record["sent_as"] or "ordinary"] += 1
            first.setdefault(record["digest"], record["url"])
    assert causes == dict(logged)
    assert all(stats[f"urlnorm/duplicate_downloads/{cause}"] == count for cause, count in causes.items())
    assert f"    sent {next(iter(causes)):<24}{next(iter(causes.values())):>8}" in block
    redirected = next(r for r in records if r["url"] == "http://apache.test/docs")
    assert redirected["final_url"] == "http://apache.test/docs/"
    table = json.loads(run_cli(str(crawl_log), "--json").stdout)
    assert table["urls"] == len(records)
    assert option(table, "default pages", "keep")["redundancy_rate"] == 0.5
    assert option(table, "default pages", "remove")["coverage_loss_rate"] == 0.0
    # Which www twins the log holds (a page fetched before www_alias was learned, a
    # verification's held redirect after, or an audit of a drop before pairs beyond those
    # that taught the rule vouched for it) depends on the order responses arrive in.
    assert option(table, "www", "strip")["candidate_sets"] in (2, 3, 4)


def test_the_crawl_log_says_which_requests_were_released_past_the_filter() -> None:
    assert sent_as({M.AS_WRITTEN: True}) == "released"
    assert sent_as({M.AUDIT: {}, M.AS_WRITTEN: True}) == "audit"  # an audit first
    assert sent_as({"depth": 2}) is None
