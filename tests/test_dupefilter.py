"""The dupe filter, middleware and add-on in real crawls against a loopback server."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import FunctionSite, Reply, VirtualWeb

ADDON = {"ADDONS": {"scrapy_urlnorm.Addon": 0}}
HOST = "variants.test"
ROOT = f"http://{HOST}/"

# Links on the home page, in order, with the reason each one is filtered
# (None: the first time its document is seen, so it is fetched).
HOME_LINKS: list[tuple[str, str | None]] = [
    ("/doc/1", None),
    ("/doc/1", "exact"),
    ("/doc/1#part-2", "exact"),
    ("/doc/2", None),
    (f"http://{HOST}:80/doc/2", "default_port"),
    ("/doc/3", None),
    ("/doc/3?utm_source=news&utm_medium=mail", "tracking_params"),
    ("/doc/3?fbclid=IwAR0abc", "tracking_params"),
    ("/doc/4", None),
    ("/doc/4;jsessionid=0A1B2C3D4E5F", "session_ids"),
    ("/doc/4?PHPSESSID=9f8e7d6c5b4a", "session_ids"),
    ("/doc/5", None),
    (f"http://{HOST}./doc/5", "strip_host_dot"),
    ("/doc/6?b=2&a=1", None),
    ("/doc/6?a=1&b=2", "exact"),
    ("/doc/7", None),
    ("/doc/7?", "exact"),
    ("/", "exact"),  # the start URL, linked back
    ("/?utm_source=footer", "tracking_params"),
]
DOCS = sorted({m.group(1) for href, _ in HOME_LINKS if (m := re.search(r"/doc/(\d+)", href))})


def variants_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Like most real servers: ignores session ids, tracking parameters and the order of the query."""
    path = unquote(path.split(";")[0])
    if path == "/":
        return Reply.page("home", [href for href, _ in HOME_LINKS])
    match = re.fullmatch(r"/doc/(\d+)", path)
    if match:
        return Reply.page(f"doc-{match.group(1)}", ["/"])
    return Reply.not_found()


@pytest.fixture
def web():
    with VirtualWeb({HOST: FunctionSite(variants_site)}) as server:
        yield server


def doc_fetches(web: VirtualWeb) -> Counter[str]:
    counts: Counter[str] = Counter()
    for target in web.fetched(HOST):
        path = unquote(target.split("?")[0].split(";")[0])
        counts["home" if path == "/" else path] += 1
    return counts


@pytest_twisted.ensureDeferred
async def test_each_variant_is_fetched_once_under_the_addon(web: VirtualWeb) -> None:
    result = await crawl(web, [ROOT], ADDON)

    assert doc_fetches(web) == Counter({"home": 1, **{f"/doc/{d}": 1 for d in DOCS}})
    assert sorted(result.doc_ids) == sorted(["home", *(f"doc-{d}" for d in DOCS)])

    expected = Counter(reason for _, reason in HOME_LINKS if reason)
    expected["exact"] += len(DOCS)  # every document page links back home
    stats = result.stats
    filtered = {key.split("/", 2)[2]: value for key, value in stats.items() if key.startswith("urlnorm/filtered/")}
    assert filtered == dict(expected)
    assert stats["urlnorm/filtered"] == sum(expected.values())
    assert stats["dupefilter/filtered"] == sum(expected.values())
    assert stats["urlnorm/requests_seen"] == 1 + len(HOME_LINKS) + len(DOCS)  # start URL, links
    assert stats["urlnorm/unique_fingerprints"] == 1 + len(DOCS)


@pytest_twisted.ensureDeferred
async def test_stock_scrapy_fetches_variants_several_times(web: VirtualWeb) -> None:
    result = await crawl(web, [ROOT])

    # Each variant is fetched, and so are the pages its relative links lead to
    # (``http://variants.test:80/doc/2`` links to ``http://variants.test:80/``...).
    fetches = doc_fetches(web)
    assert fetches["home"] >= 3  # start URL + linked back + tracking variant
    assert fetches["/doc/2"] >= 2
    assert fetches["/doc/3"] >= 3
    assert fetches["/doc/4"] >= 3
    assert fetches["/doc/5"] >= 2
    assert sum(fetches.values()) > 2 * (1 + len(DOCS))
    assert "urlnorm/filtered" not in result.stats


@pytest_twisted.ensureDeferred
async def test_redirect_to_its_own_normal_form_is_fetched() -> None:
    """``/pubs`` -> 301 -> ``/pubs/`` under trailing_slash=add: both normalize
    alike, yet the target must be fetched (Scrapy issue #1225)."""

    def site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
        if path == "/":
            return Reply.page("home", ["/pubs", "/about/"])
        if path == "/pubs":
            return Reply.redirect("/pubs/")
        if path == "/about":
            return Reply.redirect("/about/")
        if path in ("/pubs/", "/about/"):
            return Reply.page(path.strip("/"), ["/pubs/", "/about"])
        return Reply.not_found()

    with VirtualWeb({"apache.test": FunctionSite(site)}) as web:
        result = await crawl(web, ["http://apache.test/"], {**ADDON, "URLNORM_POLICY": "aggressive"})
        assert sorted(result.doc_ids) == ["about", "home", "pubs"]
        assert sorted(web.fetched()) == ["/", "/about/", "/pubs", "/pubs/"]
        assert result.stats["urlnorm/redirects_passed"] == 1
        # the two pages' links to /pubs/ and /about are duplicates
        assert result.stats["urlnorm/filtered/trailing_slash"] == 4


@pytest_twisted.ensureDeferred
async def test_disabled_addon_changes_nothing(web: VirtualWeb) -> None:
    result = await crawl(web, [ROOT], {**ADDON, "URLNORM_ENABLED": False})
    assert "urlnorm/requests_seen" not in result.stats
    assert doc_fetches(web)["/doc/3"] >= 3


@pytest_twisted.ensureDeferred
async def test_policy_settings_take_effect(web: VirtualWeb) -> None:
    settings = {**ADDON, "URLNORM_POLICY": "safe", "URLNORM_TRACKING_PARAMS": True}
    result = await crawl(web, [ROOT], settings)
    fetches = doc_fetches(web)
    assert fetches["/doc/3"] == 1  # tracking_params switched on over "safe"
    assert fetches["/doc/4"] >= 3  # session ids are not in "safe"
    assert "urlnorm/filtered/session_ids" not in result.stats


@pytest_twisted.ensureDeferred
async def test_host_policies_take_effect(web: VirtualWeb) -> None:
    settings = {**ADDON, "URLNORM_HOST_POLICIES": {HOST: {"tracking_params": False}}}
    await crawl(web, [ROOT], settings)
    assert doc_fetches(web)["/doc/3"] == 3  # the other steps still apply: no cascade


@pytest_twisted.ensureDeferred
async def test_user_dupefilter_wins_with_a_warning(web: VirtualWeb, caplog: pytest.LogCaptureFixture) -> None:
    settings = {**ADDON, "DUPEFILTER_CLASS": "scrapy.dupefilters.RFPDupeFilter"}
    await crawl(web, [ROOT], settings)
    assert "overrides scrapy-urlnorm's filter" in caplog.text
    assert doc_fetches(web)["/doc/3"] >= 3


@pytest_twisted.ensureDeferred
async def test_debug_logs_each_drop_with_reason_and_collision(
    web: VirtualWeb, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG", logger="scrapy_urlnorm")
    await crawl(web, [ROOT], {**ADDON, "URLNORM_DEBUG": True})
    drops = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Filtered duplicate")]
    assert len(drops) == sum(1 for _, reason in HOME_LINKS if reason) + len(DOCS)
    tracking = next(m for m in drops if "utm_source=news" in m)
    assert "reason: tracking_params" in tracking
    assert f"same as {ROOT}doc/3" in tracking
    assert f"referer: {ROOT}" in tracking


@pytest_twisted.ensureDeferred
async def test_jobdir_clean_stop_and_resume(web: VirtualWeb, tmp_path: Path) -> None:
    jobdir = str(tmp_path / "job")
    settings = {**ADDON, "JOBDIR": jobdir, "CONCURRENT_REQUESTS": 1}
    first = await crawl(web, [ROOT], {**settings, "CLOSESPIDER_PAGECOUNT": 3})
    assert first.stats["finish_reason"] == "closespider_pagecount"
    fetched_first = set(web.fetched(HOST))
    second = await crawl(web, [ROOT], settings)
    assert second.stats["finish_reason"] == "finished"

    fetches = doc_fetches(web)
    assert fetches == Counter({"home": 1, **{f"/doc/{d}": 1 for d in DOCS}}), "nothing fetched twice"
    assert set(web.fetched(HOST)) >= fetched_first
    assert second.stats.get("urlnorm/start_requests_skipped") == 1
    assert (Path(jobdir) / "urlnorm.seen").exists()


@pytest_twisted.ensureDeferred
async def test_refetch_start_urls_setting(web: VirtualWeb, tmp_path: Path) -> None:
    settings = {**ADDON, "JOBDIR": str(tmp_path / "job"), "URLNORM_REFETCH_START_URLS": True}
    await crawl(web, [ROOT], settings)
    await crawl(web, [ROOT], settings)
    assert doc_fetches(web)["home"] == 2


@pytest_twisted.ensureDeferred
async def test_fingerprinter_for_http_cache(web: VirtualWeb, tmp_path: Path) -> None:
    """UrlNormFingerprinter keys the HTTP cache by normalized URL: the second
    crawl of a tracking variant is served from the cache."""
    settings = {
        "REQUEST_FINGERPRINTER_CLASS": "scrapy_urlnorm.UrlNormFingerprinter",
        "HTTPCACHE_ENABLED": True,
        "HTTPCACHE_DIR": str(tmp_path / "cache"),
    }
    await crawl(web, [f"{ROOT}doc/3"], settings)
    await crawl(web, [f"{ROOT}doc/3?utm_source=again"], settings)
    assert doc_fetches(web)["/doc/3"] == 1
