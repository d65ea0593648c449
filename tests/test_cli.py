"""The command line, run as a user would: ``python -m scrapy_urlnorm``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest


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


def test_version_comes_from_the_package() -> None:
    from scrapy_urlnorm import __version__

    for flag in ("--version", "-V"):
        result = run(flag)
        assert result.returncode == 0, result.stderr
        assert result.stdout == f"scrapy-urlnorm {__version__}\n"


def test_usage_names_the_program_as_it_was_started(tmp_path: Path) -> None:
    assert run("--help").stdout.startswith("usage: python -m scrapy_urlnorm ")
    script = Path(sys.executable).with_name("scrapy-urlnorm")
    if not script.exists():
        pytest.skip("the console script is not installed in this environment")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.stdout.startswith("usage: scrapy-urlnorm ")


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """Reproduces: ``scrapy-urlnorm < urls | head`` printed a BrokenPipeError traceback."""
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"http://h/{n}\n" for n in range(200_000)))
    writer = subprocess.Popen(
        [sys.executable, "-m", "scrapy_urlnorm", "-f", str(urls)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert writer.stdout is not None and writer.stderr is not None
    assert writer.stdout.readline() == b"http://h/0\n"
    writer.stdout.close()  # what `head -1` does
    stderr = writer.stderr.read().decode()
    assert writer.wait(timeout=60) == 141
    assert stderr == ""


def test_files_are_read_with_dash_f_and_urls_are_arguments(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("http://H/a\n# comment\n\nhttp://h/b?utm_source=x\n")
    result = run("-f", str(urls), "http://h/c", "-f", "-", stdin="http://h/d\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["http://h/c", "http://h/a", "http://h/b", "http://h/d"]
    # A file name given as a URL: the error says how to read it.
    mistaken = run(str(urls))
    assert mistaken.returncode == 1
    assert f"-f {urls}" in mistaken.stderr
    missing = run("-f", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    # analyze reads its FILE as an argument or with -f alike.
    assert run("analyze", "-f", str(urls)).stdout == run("analyze", str(urls)).stdout


def test_analyze_progress_bar_shows_total_rate_and_eta(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"http://h/p{n}?utm_source=x\nhttp://h/p{n}\n" for n in range(30_000)))
    result = run("analyze", "--progress", str(urls))
    assert result.returncode == 0, result.stderr
    bars = result.stderr.replace("\r", "\n")
    size = urls.stat().st_size
    final = [line for line in bars.splitlines() if line.startswith("reading urls.txt: 100%")]
    assert final, bars
    # done/total in bytes, the rate, the URLs read; then a bar over the studies.
    assert re.search(r"\d+(\.\d+)?[kM]?/\d+(\.\d+)?[kM]? \[", final[-1]) and "B/s" in final[-1]
    assert "60,000 URLs" in final[-1]
    assert size > 0 and "studies: 100%" in bars
    # Not a terminal and no --progress: no bar.
    assert run("analyze", str(urls)).stderr == ""


def test_analyze_table_and_json_have_the_same_fields(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("http://h/a\nhttp://h/a/\nhttp://h/b?utm_source=1\nhttp://h/b\n")
    table = run("analyze", str(urls)).stdout.splitlines()
    header = table[1]
    records = json.loads(run("analyze", "--json", str(urls)).stdout)["options"]
    columns = {
        "candidate_urls": "candidate URLs",
        "candidate_sets": "sets",
        "requests": "requests",
        "request_reduction": "reduction",
        "redundancy_rate": "redundancy",
        "coverage_loss_rate": "coverage loss",
    }
    assert set(records[0]) == {"study", "option", *columns}
    for title in columns.values():
        assert title in header
    slash = next(r for r in records if r["study"] == "last slash" and r["option"] == "add")
    row = next(line for line in table if line.startswith("last slash      add"))
    assert row.split()[4:7] == [
        str(slash["candidate_sets"]),
        str(slash["requests"]),
        f"{slash['request_reduction']:.2f}",
    ]
