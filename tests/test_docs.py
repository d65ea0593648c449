"""The README and the docs' generated references stay true to the code.

The docs site itself is built with ``mkdocs build --strict`` (``make docs``, in
CI), which checks links and anchors between pages; this checks what that
build does not see: the README's links, and that each reference table the
docs hook generates covers every entry of the code's table."""

from __future__ import annotations

import importlib.util
import re
import unicodedata
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


def heading_anchors(page: Path) -> set[str]:
    """The anchors ``mkdocs`` gives ``page``'s headings: an explicit ``{#id}``, else the
    heading's text as Python-Markdown's ``toc`` slugifies it."""
    found = set(re.findall(r'id="([\w-]+)"', page.read_text(encoding="utf-8")))
    for line in page.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*(?:\{#([\w-]+)\})?\s*$", line)
        if heading is None:
            continue
        if heading.group(2):
            found.add(heading.group(2))
            continue
        text = unicodedata.normalize("NFKD", heading.group(1).replace("`", "").replace("*", ""))
        text = re.sub(r"[^\w\s-]", "", text.encode("ascii", "ignore").decode()).strip().lower()
        found.add(re.sub(r"[-\s]+", "-", text))
    return found


def test_readme_links_into_the_docs_name_anchors_that_exist() -> None:
    # mkdocs checks anchors between the docs' own pages, not the README's links into them.
    links = re.findall(r"\]\((docs/[^)#\s]+\.md)#([^)\s]+)\)", README)
    assert links
    missing = [f"{page}#{anchor}" for page, anchor in links if anchor not in heading_anchors(ROOT / page)]
    assert not missing, f"README links to anchors that do not exist: {missing}"


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
