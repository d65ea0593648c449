"""The README and the docs' generated references stay true to the code.

The docs site itself is built with ``mkdocs build --strict`` (``make docs``, in
CI), which checks links and anchors between pages; this checks what that
build does not see: the README's links, and that each reference table the
docs hook generates covers every entry of the code's table."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from scrapy_urlnorm.config import SETTINGS, SETTINGS_BY_NAME
from scrapy_urlnorm.stats_keys import STATS
from scrapy_urlnorm.steps import STEP_NAMES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def gen_reference():
    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "docs" / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_links_point_at_files_that_exist() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert "docs/settings.md" in local
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_readme_settings_are_real_settings() -> None:
    names = set(re.findall(r"^\| `(URLNORM_[A-Z_]+)` \|", README, re.MULTILINE))
    assert 5 <= len(names) <= 7, names  # a few screens: the settings people change, not all
    assert names <= set(SETTINGS_BY_NAME), names - set(SETTINGS_BY_NAME)


@pytest.mark.parametrize("name", ["steps", "step-details", "presets", "params", "settings", "switches", "stats"])
def test_every_reference_generates(name: str) -> None:
    text = gen_reference().expand(f"<!-- reference: {name} -->")
    assert text.strip() and "<!-- reference" not in text


def test_references_cover_the_code_tables() -> None:
    module = gen_reference()
    settings = module.settings() + module.switches()
    assert [spec.name for spec in SETTINGS if f"`{spec.name}`" not in settings] == []
    stats = module.stats()
    assert [entry.key for entry in STATS if f"`{entry.key}`" not in stats] == []
    steps = module.steps()
    assert [name for name in STEP_NAMES if f"`{name}`" not in steps] == []


def test_an_unknown_reference_fails_the_build() -> None:
    with pytest.raises(ValueError, match="unknown reference"):
        gen_reference().expand("<!-- reference: nope -->")
