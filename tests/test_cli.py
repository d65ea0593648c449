"""The command line, run as a user would: ``python -m scrapy_urlnorm``."""

from __future__ import annotations

import json
import subprocess
import sys


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scrapy_urlnorm", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_normalizes_arguments() -> None:
    result = run("HTTP://Example.COM:80/a/../b?utm_source=x&b=1&a=2#top")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "http://example.com/b?a=2&b=1\n"


def test_reads_stdin_and_reports_invalid_lines() -> None:
    result = run(
        "--policy", "aggressive", stdin="http://www.acm.org/index.htm\n# comment\nnot a url\n\nhttp://acm.org/pubs\n"
    )
    assert result.stdout.splitlines() == ["http://acm.org/", "http://acm.org/pubs/"]
    assert "error: not an absolute URL" in result.stderr
    assert "1 invalid URL(s)" in result.stderr
    assert result.returncode == 1


def test_explain_shows_each_step() -> None:
    result = run("explain", "-p", "aggressive", "-s", "www=keep", "http://www.acm.org/Pubs/index.HTML")
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert lines == [
        ["http://www.acm.org/Pubs/index.HTML"],
        ["lowercase_path", "http://www.acm.org/pubs/index.html"],
        ["default_pages", "http://www.acm.org/pubs/"],
        ["=", "http://www.acm.org/pubs/"],
    ]


def test_json_output() -> None:
    result = run("normalize", "--explain", "--json", "http://h:80/", "mailto:x@y")
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[0] == {
        "url": "http://h:80/",
        "normalized": "http://h/",
        "steps": [{"step": "default_port", "url": "http://h/"}],
    }
    assert "unsupported scheme 'mailto'" in records[1]["error"]


def test_bad_switch_is_a_usage_error() -> None:
    result = run("-s", "nope=1", "http://h/")
    assert result.returncode == 2
    assert "--set takes SWITCH=VALUE" in result.stderr
