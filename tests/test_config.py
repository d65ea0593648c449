"""Settings are validated once, at crawl start: every bad value named before a request is sent."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import FunctionSite, Reply, VirtualWeb
from scrapy.settings import Settings

from scrapy_urlnorm.config import SETTINGS, SETTINGS_BY_NAME, validate_settings
from scrapy_urlnorm.errors import SettingsError

ADDON: dict[str, Any] = {"ADDONS": {"scrapy_urlnorm.Addon": 0}}
BY_HAND: dict[str, Any] = {
    "DUPEFILTER_CLASS": "scrapy_urlnorm.UrlNormDupeFilter",
    "DOWNLOADER_MIDDLEWARES": {"scrapy_urlnorm.NormalizeMiddleware": 50},
}
GUARD: dict[str, Any] = {"CLOSESPIDER_TIMEOUT": 60}


def two_pages(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    if path == "/":
        return Reply.page("home", ["/a", "/a?utm_source=x"])
    if path == "/a":
        return Reply.page("a", ["/"])
    return Reply.not_found()


def setting_error(exc: BaseException) -> SettingsError:
    """The SettingsError a crawl raised. Scrapy 2.13.0 masks an error raised while it
    builds its downloader (where the dupe filter set by hand is built) with an
    AttributeError; the SettingsError is then its context, printed above it."""
    seen: BaseException | None = exc
    while seen is not None and not isinstance(seen, SettingsError):
        seen = seen.__cause__ or seen.__context__
    assert seen is not None, f"no SettingsError behind {exc!r}"
    return seen


# Each bad value of issue 16, and what the error must name.
BAD = [
    ({"URLNORM_AUDIT_RATE": 2}, "URLNORM_AUDIT_RATE = 2"),
    ({"URLNORM_AUDIT_RATE": -1}, "URLNORM_AUDIT_RATE = -1"),
    ({"URLNORM_AUDIT_RATE": "nan"}, "URLNORM_AUDIT_RATE = 'nan'"),
    ({"URLNORM_LEARN_MIN_EVIDENCE": 0}, "URLNORM_LEARN_MIN_EVIDENCE = 0"),
    ({"URLNORM_CACHE_SIZE": -5}, "URLNORM_CACHE_SIZE = -5"),
    ({"URLNORM_LOWERCASE_PATH": 2}, "URLNORM_LOWERCASE_PATH = 2"),
    ({"URLNORM_LOWERCASE_PATH": "2"}, "URLNORM_LOWERCASE_PATH = '2'"),
    ({"URLNORM_ENABLED": "yes"}, "URLNORM_ENABLED = 'yes'"),
    ({"URLNORM_FINGERPRINT_BITS": 32}, "URLNORM_FINGERPRINT_BITS = 32"),
    ({"URLNORM_TRAILING_SLASH": "bad"}, "URLNORM_TRAILING_SLASH = 'bad'"),
    ({"URLNORM_POLICY": "agressive"}, "URLNORM_POLICY = 'agressive'"),
    ({"URLNORM_REMOVE_PARAMS": 5}, "URLNORM_REMOVE_PARAMS = 5"),
    ({"URLNORM_REDIS_SYNC_INTERVAL": 0}, "URLNORM_REDIS_SYNC_INTERVAL = 0"),
    (
        {"URLNORM_HOST_POLICIES": {"*.test": {"trailing_slash": "bad"}}},
        "URLNORM_HOST_POLICIES['*.test']['trailing_slash'] = 'bad'",
    ),
    ({"URLNORM_HOST_POLICIES": {"*.test": {"lowercase_paths": True}}}, "did you mean 'lowercase_path'?"),
    ({"URLNORM_HOST_POLICIES": {"*.test": 1}}, "URLNORM_HOST_POLICIES['*.test'] = 1"),
    ({"URLNORM_HOST_POLICIES": 1}, "URLNORM_HOST_POLICIES = 1"),
    ({"URLNORM_HOST_POLICIES": "{not json"}, "must be a JSON object"),
]


@pytest.mark.parametrize(("settings", "named"), BAD, ids=[named for _, named in BAD])
def test_each_bad_value_is_named(settings: dict[str, Any], named: str) -> None:
    with pytest.raises(SettingsError) as info:
        validate_settings(Settings(settings))
    assert named in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("settings", "named"), BAD, ids=[named for _, named in BAD])
@pytest.mark.parametrize("wiring", [ADDON, BY_HAND], ids=["addon", "by-hand"])
@pytest_twisted.ensureDeferred
async def test_a_bad_value_stops_a_real_crawl_before_any_request(
    settings: dict[str, Any], named: str, wiring: dict[str, Any]
) -> None:
    if wiring is BY_HAND and "URLNORM_ENABLED" in settings:
        pytest.skip("URLNORM_ENABLED is the add-on's switch")
    with VirtualWeb({"site.test": FunctionSite(two_pages)}) as web:
        with pytest.raises(Exception) as info:  # which one depends on Scrapy: see setting_error()
            await crawl(web, ["http://site.test/"], {**wiring, **GUARD, **settings})
        assert named in str(setting_error(info.value))
        assert web.hits == [], "the crawl ran"


GOOD: list[dict[str, Any]] = [
    {"URLNORM_LOWERCASE_PATH": "true", "URLNORM_LEARN": 0, "URLNORM_DEBUG": "1"},
    {"URLNORM_AUDIT_RATE": "0.5", "URLNORM_CACHE_SIZE": "0", "URLNORM_FINGERPRINT_BITS": "128"},
    {"URLNORM_REMOVE_PARAMS": "ref,src", "URLNORM_DEFAULT_PAGES": ["index.html"]},
    {"URLNORM_HOST_POLICIES": '{"*.test": {"lowercase_path": true, "trailing_slash": "add"}}'},
]


@pytest.mark.parametrize("settings", GOOD)
@pytest_twisted.ensureDeferred
async def test_values_as_given_on_the_command_line_work(settings: dict[str, Any]) -> None:
    """``-s NAME=value`` gives strings: booleans, numbers, lists and JSON dicts all parse."""
    with VirtualWeb({"site.test": FunctionSite(two_pages)}) as web:
        result = await crawl(web, ["http://site.test/"], {**ADDON, **GUARD, **settings})
    assert sorted(result.doc_ids) == ["a", "home"]


@pytest_twisted.ensureDeferred
async def test_enabled_false_as_a_string_is_a_stock_crawl() -> None:
    with VirtualWeb({"site.test": FunctionSite(two_pages)}) as web:
        result = await crawl(web, ["http://site.test/"], {**ADDON, **GUARD, "URLNORM_ENABLED": "false"})
    # Stock Scrapy: the tracking-parameter twin of /a, and / again (the start URL is dont_filter).
    assert sorted(result.doc_ids) == ["a", "a", "home", "home"]


@pytest_twisted.ensureDeferred
async def test_json_host_policies_apply(caplog: pytest.LogCaptureFixture) -> None:
    policies = '{"site.test": {"tracking_params": false}}'
    with VirtualWeb({"site.test": FunctionSite(two_pages)}) as web:
        result = await crawl(web, ["http://site.test/"], {**ADDON, **GUARD, "URLNORM_HOST_POLICIES": policies})
    # With tracking parameters kept for this host, /a?utm_source=x is a page of its own.
    assert sorted(result.doc_ids) == ["a", "a", "home"]


@pytest_twisted.ensureDeferred
async def test_a_misspelled_name_is_warned_once_with_the_nearest_name(caplog: pytest.LogCaptureFixture) -> None:
    with VirtualWeb({"site.test": FunctionSite(two_pages)}) as web, caplog.at_level(logging.WARNING):
        await crawl(web, ["http://site.test/"], {**ADDON, **GUARD, "URLNORM_LOWERCASE_PATHS": True})
    warnings = [r.getMessage() for r in caplog.records if "URLNORM_LOWERCASE_PATHS" in r.getMessage()]
    assert warnings == [
        "Unknown setting URLNORM_LOWERCASE_PATHS ignored by scrapy-urlnorm: did you mean URLNORM_LOWERCASE_PATH?"
    ]


def test_the_table_covers_every_setting_the_package_reads() -> None:
    """Every ``URLNORM_*`` name in the package's code is in the table, with a one-line doc."""
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "scrapy_urlnorm"
    read = set()
    for path in package.glob("**/*.py"):
        read |= set(re.findall(r"""get\w*\(\s*f?["'](URLNORM_[A-Z0-9_]+)["']""", path.read_text(encoding="utf-8")))
    assert read, "the pattern no longer finds the settings the package reads"
    assert read <= set(SETTINGS_BY_NAME)
    from scrapy_urlnorm.policy import _NOT_SWITCHES, SWITCHES

    assert {f"URLNORM_{s.upper()}" for s in SWITCHES if s not in _NOT_SWITCHES} <= set(SETTINGS_BY_NAME)
    for spec in SETTINGS:
        assert spec.doc and "\n" not in spec.doc and spec.kind and spec.values
        if spec.default not in (None, [], {}) and not spec.preset_switch:
            assert spec.validate(spec.default) == spec.default, spec.name
