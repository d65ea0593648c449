"""The stats reference cannot drift: every ``urlnorm/`` key the package writes is in
``scrapy_urlnorm.stats_keys.STATS`` (the table the docs are generated from), and
every key there is written somewhere."""

from __future__ import annotations

import ast
from pathlib import Path

from scrapy import Spider
from scrapy.utils.test import get_crawler

from scrapy_urlnorm import stats_keys
from scrapy_urlnorm.dupefilter import UrlNormDupeFilter
from scrapy_urlnorm.figures import memory_figures, summary

PACKAGE = Path(stats_keys.__file__).parent
PREFIX = "urlnorm/"


def key_literals() -> list[tuple[str, str, bool]]:
    """(where, key, is_prefix) for every string in the package that starts with ``urlnorm/``.
    An f-string's replacement fields become ``X``; a string that ends with ``/``, or an
    f-string whose last part is a field right after a ``/``, is a prefix: a family of keys."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "stats_keys.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inside_fstring:
                if node.value.startswith(PREFIX):
                    found.append((where, node.value, node.value.endswith("/")))
            elif isinstance(node, ast.JoinedStr):
                parts = [v.value if isinstance(v, ast.Constant) else None for v in node.values]
                if not parts or not isinstance(parts[0], str) or not parts[0].startswith(PREFIX):
                    continue
                if len(parts) == 2 and parts[1] is None and parts[0].endswith("/"):
                    found.append((where, parts[0], True))
                else:
                    found.append((where, "".join("X" if p is None else p for p in parts), False))
    return found


def test_the_scan_finds_the_keys_it_should() -> None:
    keys = {key for _, key, _ in key_literals()}
    assert {"urlnorm/requests_seen", "urlnorm/filtered/", "urlnorm/frontier/recovered"} <= keys
    assert "urlnorm/memory/" in keys  # the close-time figures: see close_time_keys()


def test_every_key_literal_in_the_source_is_documented() -> None:
    undocumented = []
    for where, key, is_prefix in key_literals():
        if is_prefix:
            ok = any(entry.key.startswith(key) for entry in stats_keys.STATS) or key == PREFIX
        else:
            ok = stats_keys.find(key) is not None
        if not ok:
            undocumented.append(f"{where}: {key}")
    assert not undocumented, "add these to scrapy_urlnorm/stats_keys.py:\n" + "\n".join(undocumented)


def close_time_keys() -> list[str]:
    """The figures written as ``urlnorm/<name>`` and ``urlnorm/memory/<name>`` at close
    (through ``f"urlnorm/{key}"``, so the scan above sees only their prefix)."""
    crawler = get_crawler(Spider, {"URLNORM_LEARN": True})
    crawler.spider = crawler._create_spider("s")
    dedup = UrlNormDupeFilter.from_crawler(crawler).dedup
    try:
        dedup.audits.auditor.audits = 1  # coverage_loss_estimate is written only when audits ran
        keys = [f"urlnorm/{name}" for name in summary(dedup)]
        keys += [f"urlnorm/memory/{name}" for name in memory_figures(dedup)]
    finally:
        dedup.close()
    return keys


def test_every_close_time_figure_is_documented() -> None:
    keys = close_time_keys()
    assert "urlnorm/memory/rule_states" in keys  # the learner's figures are there
    missing = [key for key in keys if key not in {entry.key for entry in stats_keys.STATS}]
    assert not missing, f"add these to scrapy_urlnorm/stats_keys.py: {missing}"


def test_every_documented_key_is_written() -> None:
    literals = key_literals()
    written = {key for _, key, is_prefix in literals if not is_prefix} | set(close_time_keys())
    prefixes = {key for _, key, is_prefix in literals if is_prefix} - {PREFIX}
    stale = []
    for entry in stats_keys.STATS:
        if entry.key in written or any(entry.pattern().match(key) for key in written):
            continue
        if "<" in entry.key and any(entry.key.startswith(prefix) for prefix in prefixes):
            continue  # a family written as f"prefix/{name}"
        stale.append(entry.key)
    assert not stale, f"documented in stats_keys.py but never written: {stale}"


def test_entries_are_well_formed() -> None:
    seen = set()
    for entry in stats_keys.STATS:
        assert entry.key.startswith(PREFIX), entry
        assert entry.group in stats_keys.GROUPS, entry
        assert entry.when in ("live", "close"), entry
        assert entry.doc and not entry.doc.endswith("."), entry
        assert entry.key not in seen, entry
        seen.add(entry.key)
