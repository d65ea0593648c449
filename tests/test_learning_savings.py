"""``benchmarks/learning_savings.py``: stock, the add-on and the add-on without learning, side by side."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from learning_savings import compare, read_rows, saved, table


def crawl(requests: int, pages: int, docs: int, **causes: int) -> dict[str, Any]:
    summary: dict[str, Any] = {"requests": requests, "pages": pages, "docs": docs, "redundancy": 1 - docs / pages}
    if causes:
        summary["duplicates_by_cause"] = causes
    return summary


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_the_three_sides_over_the_seeds_both_runs_finished(tmp_path: Path) -> None:
    stock = crawl(100, 80, 20)
    learning = write(
        tmp_path / "learning.json",
        [
            {"seed": 1, "stock": stock, "addon": crawl(40, 25, 20, audit=2, ordinary=3), "lost": []},
            {"seed": 2, "stock": stock, "addon": crawl(30, 20, 20), "lost": []},
            {"seed": 3, "error": "RuntimeError: broken"},
        ],
    )
    static = write(
        tmp_path / "static.json",
        [
            {"seed": 1, "stock": stock, "addon": crawl(50, 30, 20, ordinary=10), "lost": []},
            {"seed": 2, "stock": stock, "addon": crawl(35, 30, 20), "lost": ["h.test/x"]},
            {"seed": 4, "stock": stock, "addon": crawl(35, 30, 20), "lost": []},
        ],
    )
    figures = compare(read_rows(learning), read_rows(static))
    assert figures["seeds"] == [1, 2]
    assert figures["stock"]["requests"] == 200
    assert figures["learning"]["duplicates"] == 5 and figures["static"]["duplicates"] == 20
    assert figures["learning"]["spent_on_learning"] == 2  # (an ordinary duplicate is not learning's own check)
    assert figures["static"]["lost"] == 1
    assert saved(figures) == 0.75
    assert "learning saves 75% of what the static policy downloads twice" in table(figures)
