"""The docs' reference tables, generated from the code's own tables.

An MkDocs hook (``hooks:`` in ``mkdocs.yml``): a page line that is exactly
``<!-- reference: NAME -->`` is replaced with the Markdown that ``NAME``
generates, so the reference pages cannot drift from the code:

- ``steps``, ``step-details``: ``scrapy_urlnorm.steps.STEPS`` (order, family from
  the step's tier, on/off in each of ``scrapy_urlnorm.policy.PRESETS``, summary,
  and the step function's docstring);
- ``presets``: the steps each preset runs;
- ``params``: the tracking and session parameter lists and the default pages
  (``scrapy_urlnorm.params``);
- ``settings``, ``switches``: ``scrapy_urlnorm.config.SETTINGS`` (name, default,
  values, doc; the switches with their value in each preset);
- ``stats``: ``scrapy_urlnorm.stats_keys.STATS``.

An unknown name fails the build. Run it by hand to see one table:

    python docs/gen_reference.py steps
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- reference: ([a-z-]+) -->$", re.MULTILINE)

#: What each step tier means (``Step.tier`` in scrapy_urlnorm/steps.py).
FAMILIES = {
    0: "stock Scrapy too",
    1: "RFC 3986",
    2: "crawler",
    3: "semantic-changing",
    4: "learned only",
}
FAMILY_NOTES = {
    0: "equivalences stock Scrapy's fingerprint (`canonicalize_url`) also applies: duplicates they find are "
    "reported as `exact`",
    1: "RFC 3986 §6.2.2-6.2.3 and host canonicalization: the same resource by the standard",
    2: "crawler conventions: parameters that never select content (tracking, session ids)",
    3: "the paper's steps that change what a URL may mean on some servers: audited, and learned per host",
    4: "switched on per host by the learner only",
}
PRESET_NAMES = ("safe", "default", "aggressive")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _rst_to_md(text: str) -> str:
    """The bits of reStructuredText the package's docstrings use, as Markdown."""
    text = re.sub(r":(?:func|class|data|mod|meth|attr):`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (tuple, list, frozenset, set)):
        return "on" if value else "off"
    return f"`{value}`"


# -- steps ------------------------------------------------------------------------------------------


def _step_rows() -> list[tuple[int, Any, dict[str, str]]]:
    from scrapy_urlnorm.policy import PRESETS
    from scrapy_urlnorm.steps import STEPS

    rows = []
    number = 0
    for step in STEPS:
        learned_only = step.tier == 4
        if not learned_only:
            number += 1
        presets = {}
        for name in PRESET_NAMES:
            policy = PRESETS[name]
            if learned_only:
                presets[name] = "learned"
            elif not step.enabled(policy):
                presets[name] = "–"
            elif step.name in ("www", "trailing_slash"):
                presets[name] = f"`{getattr(policy, step.name)}`"
            else:
                presets[name] = "✓"
        rows.append((0 if learned_only else number, step, presets))
    return rows


def steps() -> str:
    lines = [
        "| # | step | family | safe | default | aggressive | what it does |",
        "|---|---|---|:-:|:-:|:-:|---|",
    ]
    for number, step, presets in _step_rows():
        lines.append(
            f"| {number or '—'} | [`{step.name}`](#{step.name.replace('_', '-')}) | {FAMILIES[step.tier]} | "
            f"{presets['safe']} | {presets['default']} | {presets['aggressive']} | {_cell(step.summary)} |"
        )
    lines += ["", "Families:", ""]
    lines += [f"- **{FAMILIES[tier]}**: {note}." for tier, note in FAMILY_NOTES.items()]
    return "\n".join(lines)


def step_details() -> str:
    out = []
    for number, step, presets in _step_rows():
        doc = inspect.getdoc(step.apply) or (step.summary[:1].upper() + step.summary[1:] + ".")
        on = [name for name in PRESET_NAMES if presets[name] not in ("–", "learned")]
        where = f"on in {', '.join(f'`{n}`' for n in on)}" if on else "off in every preset"
        if step.tier == 4:
            where = "never set by users: the learner switches it on per host"
        heading = f"{number}. `{step.name}`" if number else f"`{step.name}` (learned)"
        out += [
            f"### {heading} {{#{step.name.replace('_', '-')}}}",
            "",
            f"*{FAMILIES[step.tier]}; {where}.* {_rst_to_md(doc)}",
            "",
        ]
    return "\n".join(out).rstrip()


def presets() -> str:
    from scrapy_urlnorm.policy import PRESETS
    from scrapy_urlnorm.steps import enabled_steps

    lines = ["| preset | steps it runs, in order |", "|---|---|"]
    previous: set[str] = set()
    for name in PRESET_NAMES:
        names = enabled_steps(PRESETS[name])
        shown = ", ".join(f"**`{n}`**" if previous and n not in previous else f"`{n}`" for n in names)
        lines.append(f"| `{name}` | {shown} |")
        previous = set(names)
    lines += ["", "In bold: the steps a preset adds to the one before it."]
    return "\n".join(lines)


def params() -> str:
    from scrapy_urlnorm import params as p

    def names(values: Any) -> str:
        return ", ".join(f"`{v}`" for v in sorted(values))

    return "\n".join(
        [
            f"- **Tracking parameters** (`tracking_params`): {names(p.TRACKING_PARAMS)}, and every name "
            f"starting with {names(p.TRACKING_PREFIXES)}.",
            f"- **Session ids** (`session_ids`): {names(p.SESSION_PARAMS)} and names starting with "
            f"{names(p.SESSION_PREFIXES)}; {names(p.SESSION_PARAMS_IF_TOKEN)} only when the value looks like a "
            "token (16+ letters, digits, `_` or `-`, at least one digit and one letter, and no word such as "
            "`keynote` between separators: slugs and long numbers stay); `;jsessionid=` (and `;phpsessid=`, "
            "`;sessionid=`, `;sid=`) "
            "path parameters; ASP.NET cookieless `/(S(...))/` segments.",
            f"- **Default pages** (`default_pages = True`): {', '.join(f'`{v}`' for v in p.DEFAULT_PAGES)} "
            "(matched case-insensitively).",
            "",
            "Parameter names are matched case-insensitively. The lists live in one data module, "
            "`scrapy_urlnorm/params.py`.",
        ]
    )


# -- settings ---------------------------------------------------------------------------------------


def _settings_specs() -> list[Any]:
    from scrapy_urlnorm.config import SETTINGS

    return list(SETTINGS)


def _values(spec: Any) -> str:
    """What works, short: booleans are explained once, under the table."""
    if getattr(spec, "kind", "") == "bool":
        return "bool"
    return getattr(spec, "values", "") or getattr(spec, "kind", "")


def _bool_note() -> str:
    from scrapy_urlnorm.config import BOOL_VALUES

    return f"*bool*: {BOOL_VALUES}."


def _default(spec: Any) -> str:
    value = spec.default
    if value is None:
        return "`None`"
    if value == {}:
        return "`{}`"
    if value == []:
        return "`[]`"
    return f"`{value!r}`"


def settings() -> str:
    lines = ["| setting | default | values | what it does |", "|---|---|---|---|"]
    for spec in _settings_specs():
        if getattr(spec, "preset_switch", False):
            continue
        lines.append(
            f"| <span id='{spec.name.lower()}'></span>`{spec.name}` | {_cell(_default(spec))} | "
            f"{_cell(_values(spec))} | {_cell(spec.doc)} |"
        )
    lines += ["", _bool_note()]
    return "\n".join(lines)


def switches() -> str:
    from scrapy_urlnorm.policy import PRESETS

    lines = [
        "| setting | safe | default | aggressive | values | what it does |",
        "|---|:-:|:-:|:-:|---|---|",
    ]
    for spec in _settings_specs():
        if not getattr(spec, "preset_switch", False):
            continue
        switch = spec.name.removeprefix("URLNORM_").lower()
        cells = []
        for name in PRESET_NAMES:
            value = getattr(PRESETS[name], switch)
            if isinstance(value, (frozenset, set, tuple, list)) and switch != "default_pages":
                cells.append(", ".join(f"`{v}`" for v in sorted(value)) or "–")
            else:
                cells.append(_value(value))
        lines.append(
            f"| <span id='{spec.name.lower()}'></span>`{spec.name}` | {' | '.join(cells)} | "
            f"{_cell(_values(spec))} | {_cell(spec.doc)} |"
        )
    lines += ["", _bool_note()]
    return "\n".join(lines)


# -- stats ------------------------------------------------------------------------------------------


def stats() -> str:
    from scrapy_urlnorm.stats_keys import GROUPS, STATS

    out = []
    for group, title in GROUPS.items():
        entries = [entry for entry in STATS if entry.group == group]
        if not entries:
            continue
        out += [f"### {title}", "", "| key | when | meaning |", "|---|---|---|"]
        for entry in entries:
            when = "at close" if entry.when == "close" else "live"
            out.append(f"| `{entry.key}` | {when} | {_cell(entry.doc)} |")
        out.append("")
    return "\n".join(out).rstrip()


GENERATORS: dict[str, Callable[[], str]] = {
    "steps": steps,
    "step-details": step_details,
    "presets": presets,
    "params": params,
    "settings": settings,
    "switches": switches,
    "stats": stats,
}


def expand(markdown: str, where: str = "page") -> str:
    """``markdown`` with every reference marker replaced by its table."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"{where}: unknown reference {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(replace, markdown)


# -- the MkDocs hook ----------------------------------------------------------------------------------


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    return expand(markdown, page.file.src_uri)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    for name in sys.argv[1:] or list(GENERATORS):
        print(expand(f"<!-- reference: {name} -->", "command line"))
        print()
