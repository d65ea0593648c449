"""Every ``URLNORM_*`` setting, as data, and their validation at crawl start.

:data:`SETTINGS` is the one table of the settings scrapy-urlnorm reads: name,
default, kind, the values that work and a one-line description. The docs'
settings reference is generated from it, and :func:`validate_settings`
checks a crawl's settings against it once, when the crawl starts (from
:class:`~scrapy_urlnorm.Addon`, or when the dupe filter is built for a
project that sets ``DUPEFILTER_CLASS`` by hand):

- a value of the wrong type or out of range raises
  :class:`~scrapy_urlnorm.errors.SettingsError`, naming the setting, the
  value and what works, before any request is sent;
- ``URLNORM_HOST_POLICIES`` entries are checked the same way, each error
  naming the host pattern and the switch;
- booleans are read as Scrapy's own ``settings.getbool`` reads them
  (``True``/``False``, ``"true"``/``"false"``, ``1``/``0``); anything else,
  ``2`` or ``"yes"`` included, is an error rather than a guess;
- dict settings also accept a JSON object in a string, as Scrapy's own do
  (``-s URLNORM_HOST_POLICIES='{"*.example.com": {"lowercase_path": true}}'``);
- an unknown ``URLNORM_*`` name (a typo) is logged as a warning with the
  nearest known name.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import logging
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import SettingsError

logger = logging.getLogger(__name__)

#: The values Scrapy's ``settings.getbool`` reads, as strings.
_TRUE_STRINGS = frozenset({"1", "True", "true"})
_FALSE_STRINGS = frozenset({"0", "False", "false"})
BOOL_VALUES = "True or False (also 'true'/'false' and 1/0, as Scrapy's settings.getbool reads them)"

Check = Callable[[Any, str], Any]


@dataclass(frozen=True)
class SettingSpec:
    """One ``URLNORM_*`` setting.

    ``name``, ``default`` and ``doc`` (one line) describe it; ``kind`` is its
    type in words (``bool``, ``int``, ``float``, ``str``, ``list``, ``dict``,
    ``path``, ``choice``) and ``values`` the values that work, both for
    humans. ``preset_switch`` marks the switches whose default comes from
    ``URLNORM_POLICY`` (``default`` is then the ``default`` preset's value).
    """

    name: str
    default: Any
    kind: str
    values: str
    doc: str
    check: Check
    preset_switch: bool = False

    @property
    def default_text(self) -> str:
        """The default as the docs show it."""
        if self.preset_switch:
            return f"from the preset ({self.default!r} in 'default')"
        return repr(self.default)

    def validate(self, value: Any) -> Any:
        """``value`` as the package reads it, or a :class:`SettingsError` naming this setting."""
        return self.check(value, self.name)


# -- checks: (value, label) -> value, or SettingsError(label, value, what works) -------------------------


def check_bool(value: Any, label: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip() in _TRUE_STRINGS | _FALSE_STRINGS:
        return value.strip() in _TRUE_STRINGS
    raise SettingsError(label, value, f"expected {BOOL_VALUES}")


def int_check(minimum: int | None = None, choices: tuple[int, ...] = ()) -> Check:
    def check(value: Any, label: str) -> int:
        expected = (
            f"expected one of {', '.join(map(str, choices))}"
            if choices
            else f"expected a whole number >= {minimum}"
            if minimum is not None
            else "expected a whole number"
        )
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise SettingsError(label, value, expected)
        try:
            number = int(value)
        except ValueError:
            raise SettingsError(label, value, expected) from None
        if (choices and number not in choices) or (minimum is not None and number < minimum):
            raise SettingsError(label, value, expected)
        return number

    return check


def float_check(minimum: float, maximum: float | None = None, *, open_minimum: bool = False) -> Check:
    low = f"> {minimum:g}" if open_minimum else f">= {minimum:g}"
    expected = (
        f"expected a number from {minimum:g} to {maximum:g}" if maximum is not None else f"expected a number {low}"
    )

    def check(value: Any, label: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise SettingsError(label, value, expected)
        try:
            number = float(value)
        except ValueError:
            raise SettingsError(label, value, expected) from None
        if (
            not math.isfinite(number)
            or number < minimum
            or (open_minimum and number == minimum)
            or (maximum is not None and number > maximum)
        ):
            raise SettingsError(label, value, expected)
        return number

    return check


def choice_check(choices: tuple[str, ...]) -> Check:
    def check(value: Any, label: str) -> str:
        if not isinstance(value, str) or value not in choices:
            raise SettingsError(label, value, f"expected one of {', '.join(repr(c) for c in choices)}")
        return value

    return check


def check_names(value: Any, label: str) -> list[str]:
    """A list of names: a list/tuple/set of strings, or one string of comma-separated names."""
    expected = "expected a list of names, or one string of comma-separated names"
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in value):
        raise SettingsError(label, value, expected)
    return [name.strip() for name in value if name.strip()]


def check_default_pages(value: Any, label: str) -> bool | list[str]:
    """``True`` (the built-in list), ``False`` (none) or a list of page names."""
    try:
        return check_bool(value, label)
    except SettingsError:
        pass
    try:
        return check_names(value, label)
    except SettingsError:
        raise SettingsError(label, value, f"expected {BOOL_VALUES}, or a list of page names") from None


def check_path(value: Any, label: str) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(label, value, "expected a file path (a string)")
    return value


def check_redis_url(value: Any, label: str) -> str:
    if not isinstance(value, str) or not value.startswith(("redis://", "rediss://", "unix://")):
        raise SettingsError(label, value, "expected a URL starting with redis://, rediss:// or unix://")
    return value


def check_redis_key(value: Any, label: str) -> str:
    expected = "expected a string, where %(spider)s stands for the spider's name"
    if not isinstance(value, str) or not value:
        raise SettingsError(label, value, expected)
    try:
        value % {"spider": "spider"}
    except (KeyError, ValueError, TypeError):
        raise SettingsError(label, value, expected) from None
    return value


def check_host_policies(value: Any, label: str) -> dict[str, dict[str, Any]]:
    """``{host pattern: {switch: value}}``, or the same as a JSON object in a string."""
    expected = 'expected a dict of host pattern -> switches, e.g. {"*.example.com": {"lowercase_path": True}}'
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise SettingsError(label, value, f"{expected}; as a string it must be a JSON object ({exc})") from None
    if not isinstance(value, Mapping):
        raise SettingsError(label, value, expected)
    result: dict[str, dict[str, Any]] = {}
    for pattern, switches in value.items():
        where = f"{label}[{pattern!r}]"
        if not isinstance(pattern, str) or not pattern:
            raise SettingsError(label, value, f"{expected}; a host pattern must be a non-empty string, not {pattern!r}")
        if not isinstance(switches, Mapping):
            raise SettingsError(where, switches, 'expected a dict of switches, e.g. {"trailing_slash": "add"}')
        checked: dict[str, Any] = {}
        for switch, switch_value in switches.items():
            spec = _SWITCH_SPECS.get(str(switch).lower()) if isinstance(switch, str) else None
            if spec is None:
                hint = _nearest(str(switch).lower(), _SWITCH_SPECS)
                raise SettingsError(
                    where,
                    switches,
                    f"unknown switch {switch!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                    + f"; known switches: {', '.join(_SWITCH_SPECS)}",
                )  # fmt: skip
            checked[switch] = spec.check(switch_value, f"{where}[{switch!r}]")
        result[pattern] = checked
    return result


# -- the table ---------------------------------------------------------------------------------------------

_B = "bool"


def _switch(name: str, default: Any, kind: str, values: str, doc: str, check: Check = check_bool) -> SettingSpec:
    return SettingSpec(f"URLNORM_{name.upper()}", default, kind, values, doc, check, preset_switch=True)


#: The policy switches a user may set, one setting each (``URLNORM_<SWITCH>``), in step order.
SWITCH_SETTINGS: tuple[SettingSpec, ...] = (
    _switch("lowercase_scheme", True, _B, BOOL_VALUES, "lower-case the scheme"),
    _switch("https_to_http", False, _B, BOOL_VALUES, "treat https as http (one key for both)"),
    _switch("lowercase_host", True, _B, BOOL_VALUES, "lower-case the host"),
    _switch("idna_host", True, _B, BOOL_VALUES, "percent-decode the host, IDN to punycode"),
    _switch("strip_host_dot", True, _B, BOOL_VALUES, "drop the host's trailing dot"),
    _switch("canonical_ip", True, _B, BOOL_VALUES, "dotted-quad IPv4, compressed IPv6"),
    _switch(
        "www", "keep", "choice", "'keep', 'strip' or 'add'", "strip or add www.", choice_check(("keep", "strip", "add"))
    ),
    _switch("default_port", True, _B, BOOL_VALUES, "drop the scheme's default port"),
    _switch("empty_userinfo", True, _B, BOOL_VALUES, "drop empty user info and password"),
    _switch("percent_encode", True, _B, BOOL_VALUES, "percent-encode non-ASCII characters, spaces and stray %"),
    _switch("uppercase_escapes", True, _B, BOOL_VALUES, "upper-case the hex digits of percent-escapes"),
    _switch("decode_unreserved", True, _B, BOOL_VALUES, "decode escaped unreserved characters"),
    _switch("session_ids", True, _B, BOOL_VALUES, "remove well-known session ids (PHPSESSID, ;jsessionid=...)"),
    _switch("remove_dot_segments", True, _B, BOOL_VALUES, "remove . and .. path segments"),
    _switch("collapse_slashes", False, _B, BOOL_VALUES, "collapse duplicate slashes in the path"),
    _switch("lowercase_path", False, _B, BOOL_VALUES, "lower-case the path (for case-insensitive servers)"),
    _switch(
        "default_pages",
        [],
        "bool or list",
        f"{BOOL_VALUES}, or a list of page names",
        "remove default pages (index.html...): True for the built-in list",
        check_default_pages,
    ),
    _switch(
        "trailing_slash",
        "keep",
        "choice",
        "'keep', 'add' or 'remove'",
        "add or remove the trailing slash of directory-like paths",
        choice_check(("keep", "add", "remove")),
    ),
    _switch("empty_path_slash", True, _B, BOOL_VALUES, "empty path to /"),
    _switch("tracking_params", True, _B, BOOL_VALUES, "remove tracking parameters (utm_*, fbclid, gclid...)"),
    _switch(
        "remove_params",
        [],
        "list",
        "a list of names, or comma-separated names",
        "more query parameters to remove (case-insensitive)",
        check_names,
    ),
    _switch(
        "keep_params",
        [],
        "list",
        "a list of names, or comma-separated names",
        "query parameters never removed, even if tracking or session ids",
        check_names,
    ),
    _switch("sort_query", True, _B, BOOL_VALUES, "sort query parameters by name (stable for repeated names)"),
    _switch("drop_empty_query", True, _B, BOOL_VALUES, "drop an empty ? and stray &"),
    _switch("keep_fragment", False, _B, BOOL_VALUES, "keep the #fragment (dropped by default: never sent)"),
    _switch("keep_hashbang", False, _B, BOOL_VALUES, "keep #! fragments (AJAX routes)"),
)

_SWITCH_SPECS: dict[str, SettingSpec] = {spec.name.removeprefix("URLNORM_").lower(): spec for spec in SWITCH_SETTINGS}

#: Every ``URLNORM_*`` setting scrapy-urlnorm reads.
SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec("URLNORM_ENABLED", True, _B, BOOL_VALUES, "master switch for the add-on", check_bool),
    SettingSpec(
        "URLNORM_POLICY",
        "default",
        "choice",
        "'safe', 'default' or 'aggressive'",
        "the preset the switches start from",
        choice_check(("safe", "default", "aggressive")),
    ),
    *SWITCH_SETTINGS,
    SettingSpec(
        "URLNORM_HOST_POLICIES",
        {},
        "dict",
        "{host glob pattern: {switch: value}}, or the same as a JSON string",
        'per-host switch overrides: {"*.example.com": {"lowercase_path": True}}',
        check_host_policies,
    ),
    SettingSpec(
        "URLNORM_DEBUG",
        False,
        _B,
        BOOL_VALUES,
        "log every filtered request with its reason, the URL it collided with and the referer",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_FINGERPRINT_BITS", 64, "int", "64 or 128", "bits of each request key", int_check(choices=(64, 128))
    ),
    SettingSpec(
        "URLNORM_CACHE_SIZE",
        4096,
        "int",
        "a whole number >= 0",
        "recent URLs whose normal form is remembered (0: none)",
        int_check(minimum=0),
    ),
    SettingSpec(
        "URLNORM_REFETCH_START_URLS", False, _B, BOOL_VALUES, "send start requests even when already seen", check_bool
    ),
    SettingSpec(
        "URLNORM_REWRITE", False, _B, BOOL_VALUES, "send the normalized URL instead of the original", check_bool
    ),
    SettingSpec(
        "URLNORM_LEARN", True, _B, BOOL_VALUES, "learn per-host equivalences from redirects and content", check_bool
    ),
    SettingSpec(
        "URLNORM_LEARN_MIN_EVIDENCE",
        2,
        "int",
        "a whole number >= 1",
        "agreeing observations before a learned rule applies",
        int_check(minimum=1),
    ),
    SettingSpec(
        "URLNORM_AUDIT_RATE",
        0.02,
        "float",
        "a number from 0 to 1",
        "share of rule-filtered requests fetched anyway to verify the rule",
        float_check(0.0, 1.0),
    ),
    SettingSpec(
        "URLNORM_VERIFY_REDIRECT_RULES",
        True,
        _B,
        BOOL_VALUES,
        "verify every drop of a rule a host's redirects taught (one request each, as stock pays; "
        "False: sample them like other learned drops, fewer requests, a trap page may be lost)",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_VERIFY_CAMPAIGNS",
        True,
        _B,
        BOOL_VALUES,
        "keep campaign parameters (utm_campaign, utm_content, utm_term...) the tracking step removes in a "
        "link's key: each page is fetched once with each campaign value its links carry, as stock fetches it "
        "(False: trust the step, fewer requests, a campaign's landing page may be lost)",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_CONDITIONAL_AUDITS",
        True,
        _B,
        BOOL_VALUES,
        "send audits with If-None-Match and the representative's ETag: a 304 verifies the drop without "
        "a download (off with HTTPCACHE_ENABLED)",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_HOLD_BACK",
        True,
        _B,
        BOOL_VALUES,
        "while a rule is undecided on a site, fetch its variants one at a time (off with Redis)",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_SECOND_CHANCE",
        True,
        _B,
        BOOL_VALUES,
        "a request still failing after Scrapy's retries (RETRY_HTTP_CODES, RETRY_EXCEPTIONS) is sent once "
        "more with a fresh retry budget (at least three requests, sent by the add-on itself where Scrapy's "
        "retries are off or fewer), then on its www twin "
        "where the twins are one site: stock Scrapy's duplicate spellings would have been more tries",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_SHORTCUT_REDIRECTS",
        True,
        _B,
        BOOL_VALUES,
        "send links straight to the form a host's redirects taught",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_REDIS_URL",
        None,
        "str",
        "redis://, rediss:// or unix:// URL",
        "share the seen set and learned rules through Redis (falls back to REDIS_URL)",
        check_redis_url,
    ),
    SettingSpec(
        "URLNORM_REDIS_KEY",
        "%(spider)s:urlnorm",
        "str",
        "a string; %(spider)s is the spider's name",
        "key prefix in Redis",
        check_redis_key,
    ),
    SettingSpec(
        "URLNORM_REDIS_SYNC_INTERVAL",
        2.0,
        "float",
        "a number > 0 (seconds)",
        "seconds between checks for rules learned by other workers",
        float_check(0.0, open_minimum=True),
    ),
    SettingSpec(
        "URLNORM_REDIS_LEASE",
        30.0,
        "float",
        "a number > 0 (seconds)",
        "heartbeat lease of a worker: what a dead worker held is queued again after it",
        float_check(0.0, open_minimum=True),
    ),
    SettingSpec(
        "URLNORM_REDIS_SPILL_LIMIT",
        100_000,
        "int",
        "a whole number >= 1",
        "requests kept locally while Redis is away before downloads pause",
        int_check(minimum=1),
    ),
    SettingSpec(
        "URLNORM_REDIS_BUCKET_BITS",
        15,
        "int",
        "a whole number from 8 to 24",
        "2**N small hashes hold the seen set in Redis (the first worker's value wins)",
        int_check(minimum=8, choices=tuple(range(8, 25))),
    ),
    SettingSpec(
        "URLNORM_REDIS_SCHEDULER",
        True,
        _B,
        BOOL_VALUES,
        "replace scrapy-redis' scheduler with scrapy-urlnorm's reliable one",
        check_bool,
    ),
    SettingSpec(
        "URLNORM_CRASH_SAFE",
        True,
        _B,
        BOOL_VALUES,
        "with JOBDIR: journal the frontier so the crawl survives kill -9",
        check_bool,
    ),
    SettingSpec("URLNORM_REPORT_FILE", None, "path", "a file path", "write the close-time report as JSON", check_path),
    SettingSpec(
        "URLNORM_CRAWL_LOG",
        None,
        "path",
        "a file path",
        "stream one JSON line per response, for analyze (works with URLNORM_ENABLED = False too)",
        check_path,
    ),
)

SETTINGS_BY_NAME: dict[str, SettingSpec] = {spec.name: spec for spec in SETTINGS}


def _nearest(name: str, known: Mapping[str, Any] | tuple[str, ...]) -> str | None:
    matches = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return matches[0] if matches else None


_VALIDATED = "_urlnorm_validated"


def validate_settings(settings: Any) -> None:
    """Check every ``URLNORM_*`` value in ``settings`` (a Scrapy ``Settings`` or a
    mapping): raise :class:`SettingsError` on the first bad one; warn, once,
    about each unknown ``URLNORM_*`` name with the nearest known name.

    Cheap, and done once per settings object: a second call with the same
    values returns at once.
    """
    names = sorted(str(name) for name in settings if str(name).startswith("URLNORM_"))
    snapshot = tuple((name, repr(settings.get(name))) for name in names)
    if getattr(settings, _VALIDATED, None) == snapshot:
        return
    for spec in SETTINGS:
        value = settings.get(spec.name)
        if value is not None:
            spec.validate(value)
    _build_policy(settings)
    for name in names:
        if name not in SETTINGS_BY_NAME:
            hint = _nearest(name, tuple(SETTINGS_BY_NAME))
            logger.warning(
                "Unknown setting %s ignored by scrapy-urlnorm%s",
                name,
                f": did you mean {hint}?" if hint else " (see the settings reference for the known names)",
            )
    with contextlib.suppress(AttributeError):  # a plain mapping: validated again next time (it is cheap)
        setattr(settings, _VALIDATED, snapshot)


def _build_policy(settings: Any) -> None:
    """The policy the settings make: what the filter will build, so any error shows now."""
    from .policy import Policy

    try:
        Policy.from_settings(settings)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, SettingsError):
            raise
        raise SettingsError("URLNORM_*", "(the policy settings)", str(exc)) from exc
