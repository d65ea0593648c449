"""Plot ``bench_differential.py --json`` output: requests and redundancy, stock vs add-on, per seed.

    python benchmarks/bench_differential.py --seeds 48 --json docs/data/differential.jsonl
    python benchmarks/plot_differential.py docs/data/differential.jsonl -o docs/img/differential.svg

Three panels over the generator's seeds (each seed is a different small web,
crawled in the crawl order the seed picks): HTTP requests, redundancy (share of
200 pages that repeat a document already downloaded), and documents collected
(the no-loss property: the add-on's bars must reach stock's). Needs matplotlib
(``pip install -e '.[docs]'``). The SVG is written without a date or random ids,
so the same data gives the same file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

STOCK_COLOR = "#9e9e9e"
ADDON_COLOR = "#3f51b5"


def load(paths: list[Path]) -> list[dict[str, Any]]:
    """The result rows of one or more JSON-lines files, one per seed (a later file's row wins), by seed."""
    rows: dict[int, dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if "seed" in row and (("stock" in row and "addon" in row) or "hung" in row or "error" in row):
                rows[row["seed"]] = row
    return [rows[seed] for seed in sorted(rows)]


def plot(rows: list[dict[str, Any]], out: Path) -> str:
    """Draw the figure into ``out`` (format from its suffix); return a one-line summary."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "scrapy-urlnorm"  # stable ids: the same data, the same file
    plt.rcParams["svg.fonttype"] = "none"  # text stays text (smaller, searchable)

    seeds = [row["seed"] for row in rows]
    x = list(range(len(rows)))
    width = 0.42
    left = [i - width / 2 for i in x]
    right = [i + width / 2 for i in x]
    # A seed without a result (hung, or an error) is drawn as a red cross on every panel, never left out.
    failed = [i for i, row in enumerate(rows) if "stock" not in row]

    def figure(side: str, name: str) -> list[float]:
        return [row[side][name] if "stock" in row else 0 for row in rows]

    stock_req, addon_req = figure("stock", "requests"), figure("addon", "requests")
    lost = sum(len(row.get("lost") or []) for row in rows)
    unfinished = len(failed) + sum(
        1 for row in rows if "addon" in row and row["addon"].get("finish_reason") != "finished"
    )

    fig, (ax_req, ax_red, ax_docs) = plt.subplots(
        3, 1, figsize=(max(8.0, 0.22 * len(rows) + 3), 8.2), sharex=True, height_ratios=[3, 2, 2]
    )
    ax_req.bar(left, stock_req, width, color=STOCK_COLOR, label="stock Scrapy")
    ax_req.bar(right, addon_req, width, color=ADDON_COLOR, label="scrapy-urlnorm (defaults)")
    ax_req.set_ylabel("HTTP requests")
    share = sum(addon_req) / sum(stock_req) if sum(stock_req) else 0.0
    fig.suptitle(
        f"Stock Scrapy vs scrapy-urlnorm on {len(rows)} generated webs\n"
        f"the add-on makes {share:.0%} of stock's requests and loses {lost} documents"
        + (f"; {unfinished} crawls did not finish (red crosses)" if unfinished else ""),
        fontsize=10,
    )
    fig.legend(loc="upper center", bbox_to_anchor=(0.5, 0.935), ncol=2, fontsize=8, frameon=False)

    ax_red.bar(left, figure("stock", "redundancy"), width, color=STOCK_COLOR)
    ax_red.bar(right, figure("addon", "redundancy"), width, color=ADDON_COLOR)
    ax_red.set_ylabel("redundancy\n(duplicate 200 pages)")
    ax_red.set_ylim(0, 1)

    ax_docs.bar(left, figure("stock", "docs"), width, color=STOCK_COLOR)
    ax_docs.bar(right, figure("addon", "docs"), width, color=ADDON_COLOR)
    ax_docs.set_ylabel("documents\ncollected")
    ax_docs.set_xticks(x, [str(seed) for seed in seeds], fontsize=7)
    ax_docs.set_xlabel("seed (one generated web and crawl order each)")

    for ax in (ax_req, ax_red, ax_docs):
        if failed:
            ax.plot(failed, [0] * len(failed), "x", color="#d32f2f", markersize=9, clip_on=False)
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.grid(axis="y", color="#e0e0e0", linewidth=0.6)
        ax.set_axisbelow(True)
    fig.tight_layout(rect=(0, 0, 1, 0.925))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, metadata={"Date": None} if out.suffix == ".svg" else None)
    plt.close(fig)
    return (
        f"{out}: {len(rows)} seeds, stock {sum(stock_req):,} requests, add-on {sum(addon_req):,} ({share:.0%}), "
        f"{lost} documents lost, {unfinished} unfinished"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", type=Path, nargs="+", help="JSON-lines files written by bench_differential.py --json")
    parser.add_argument("-o", "--output", type=Path, default=Path("docs/img/differential.svg"), help="SVG or PNG")
    args = parser.parse_args(argv)
    rows = load(args.json)
    if not rows:
        print(f"no result rows in {', '.join(map(str, args.json))}", file=sys.stderr)
        return 1
    print(plot(rows, args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
