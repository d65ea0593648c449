"""The README's main command: ``scrapy crawl demo`` in the example project, as a user runs it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_scrapy_crawl_demo_collects_every_document(tmp_path: Path) -> None:
    project = tmp_path / "example_project"
    shutil.copytree(ROOT / "example_project", project, ignore=shutil.ignore_patterns("__pycache__", ".scrapy"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("SCRAPY_")}
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "demo"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    log = result.stderr
    assert result.returncode == 0, log[-3000:]
    assert "Demo crawl collected 28 of the demo web's 28 documents" in log
    assert "scrapy-urlnorm redundancy report" in log
    learned = re.search(r"rules learned\s+(\d+)\s+revoked (\d+)", log)
    # Some crawl orders meet a trap pair only after the rule it contradicts was learned:
    # then the rule is revoked (and what it dropped released), which is learning working.
    assert learned is not None and int(learned.group(1)) >= 4
    assert re.search(r"drops unsettled at close\s+0\b", log)
    assert "trap.test" not in log.split("scrapy-urlnorm redundancy report")[1].split("Dumping Scrapy stats")[0]
    assert "'urlnorm/requests_seen'" in log  # the urlnorm stats are in Scrapy's stats dump


@pytest_twisted.ensureDeferred
async def test_benchmark_figures_on_the_demo_web() -> None:
    """bench_crawl's three ways on the small demo web, crawled in a fixed order: exact counts."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_crawl import WAYS, measure
    from demoweb.web import DOCUMENTS, START_URLS, build_sites
    from test_learning import ORDERED

    documents = sum(DOCUMENTS.values())
    rows = {name: await measure(build_sites(), START_URLS, documents, {**ORDERED, **way}) for name, way in WAYS.items()}
    figures = {name: (row["requests"], row["pages"], row["unique"]) for name, row in rows.items()}
    assert figures == {
        "stock Scrapy": (62, 54, 28),
        "scrapy-urlnorm (default)": (45, 37, 28),  # (one a twin directory probe)
        "static aggressive preset": (29, 24, 24),
    }
    assert rows["scrapy-urlnorm (default)"]["coverage_loss"] == 0
    assert rows["static aggressive preset"]["coverage_loss"] == pytest.approx(4 / 28)
    assert rows["scrapy-urlnorm (default)"]["rules"] == 6
