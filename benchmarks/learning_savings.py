"""What learning saves: stock, the add-on, and the add-on with ``URLNORM_LEARN = False``, side by side.

Reads two ``bench_differential.py --json`` files of the same seeds (each seed's crawl
order is drawn from the seed, so the two runs crawl the same webs in the same orders):
one of the add-on with its defaults, one with ``--addon-settings URLNORM_LEARN=False``.
Both hold stock's crawls too; stock's figures are the first file's. Prints, per side:
requests, pages downloaded (200 responses with a document), duplicate pages (those
less the documents), redundancy (median, 90th percentile, worst), documents lost
against stock, and the downloads spent on learning's own checks (the report's
``duplicates_by_cause``: audits, directory and twin probes, shortcuts and links
sent as written). Then the share of what the static policy
downloads twice that learning saves, the issue's figure of merit.

    python benchmarks/bench_differential.py --seeds 100 --start S --json learning.json
    python benchmarks/bench_differential.py --seeds 100 --start S --json static.json \\
        --addon-settings URLNORM_LEARN=False
    python benchmarks/learning_savings.py learning.json static.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

#: The duplicate downloads learning's own checks chose (``urlnorm/duplicate_downloads/<cause>``);
#: ``ordinary`` (a pair learning needed, a spelling no rule merges), ``campaign`` (a campaign
#: value checked), ``canary`` (a host's entity tags tested, with or without learning) and
#: ``released`` (a drop fetched when its promise failed) are not.
LEARNING_CAUSES = ("audit", "directory_probe", "twin_probe", "shortcut", "rewritten", "as_written")


def read_rows(path: Path) -> dict[int, dict[str, Any]]:
    """The seeds of a ``--json`` file that ran to the end (no error, not hung), by seed."""
    rows = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        if not text.strip():
            continue
        row = json.loads(text)
        if "stock" in row and "addon" in row:
            rows[row["seed"]] = row
    return rows


def _quantile(values: list[float], share: float) -> float:
    """As ``bench_differential.percentiles`` takes them (the median of an even count: the upper one)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def side_figures(crawls: Iterable[Mapping[str, Any]], lost: Iterable[int]) -> dict[str, Any]:
    """Totals and spreads of one side's crawls (``summarize`` rows), with each web's lost count."""
    crawls = list(crawls)
    redundancy = [crawl["redundancy"] for crawl in crawls]
    spent = sum(crawl.get("duplicates_by_cause", {}).get(cause, 0) for crawl in crawls for cause in LEARNING_CAUSES)
    lost = list(lost)
    return {
        "requests": sum(crawl["requests"] for crawl in crawls),
        "requests_worst": max((crawl["requests"] for crawl in crawls), default=0),
        "pages": sum(crawl["pages"] for crawl in crawls),
        "duplicates": sum(crawl["pages"] - crawl["docs"] for crawl in crawls),
        "redundancy_median": _quantile(redundancy, 0.5),
        "redundancy_p90": _quantile(redundancy, 0.9),
        "redundancy_worst": max(redundancy, default=0.0),
        "lost": sum(lost),
        "lost_worst": max(lost, default=0),
        "spent_on_learning": spent,
    }


def compare(learning: Mapping[int, Mapping[str, Any]], static: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
    """The three sides over the seeds both runs have."""
    seeds = sorted(set(learning) & set(static))
    return {
        "seeds": seeds,
        "stock": side_figures((learning[s]["stock"] for s in seeds), (0 for _ in seeds)),
        "learning": side_figures((learning[s]["addon"] for s in seeds), (len(learning[s]["lost"]) for s in seeds)),
        "static": side_figures((static[s]["addon"] for s in seeds), (len(static[s]["lost"]) for s in seeds)),
    }


def saved(figures: Mapping[str, Any]) -> float:
    """The share of the static policy's duplicate pages that learning does not download."""
    static = figures["static"]["duplicates"]
    return 1 - figures["learning"]["duplicates"] / static if static else 0.0


def table(figures: Mapping[str, Any]) -> str:
    sides = {"stock": "stock", "learning": "add-on", "static": "add-on, LEARN=False"}
    rows = [
        ("requests", "requests", "{:,}"),
        ("requests, worst web", "requests_worst", "{:,}"),
        ("pages with a document", "pages", "{:,}"),
        ("duplicate pages", "duplicates", "{:,}"),
        ("redundancy, median", "redundancy_median", "{:.3f}"),
        ("redundancy, 90th percentile", "redundancy_p90", "{:.3f}"),
        ("redundancy, worst web", "redundancy_worst", "{:.3f}"),
        ("documents lost against stock", "lost", "{:,}"),
        ("downloads spent on learning", "spent_on_learning", "{:,}"),
    ]
    lines = [f"{len(figures['seeds'])} webs", f"{'':30}" + "".join(f"{name:>22}" for name in sides.values())]
    for label, key, form in rows:
        lines.append(f"{label:30}" + "".join(f"{form.format(figures[side][key]):>22}" for side in sides))
    lines.append(
        f"learning saves {saved(figures):.0%} of what the static policy downloads twice "
        f"({figures['learning']['duplicates']:,} duplicate pages against {figures['static']['duplicates']:,})"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("learning", type=Path, help="bench_differential.py --json of the add-on with its defaults")
    parser.add_argument("static", type=Path, help="the same seeds with --addon-settings URLNORM_LEARN=False")
    arguments = parser.parse_args()
    print(table(compare(read_rows(arguments.learning), read_rows(arguments.static))))


if __name__ == "__main__":
    main()
