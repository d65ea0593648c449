"""Campaign parameters: kept in keys until their value is shown to be a tag (``campaigns``)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from urllib.parse import parse_qs

import pytest_twisted
from demoweb.server import FunctionSite, Reply
from scrapy import Request
from test_no_loss import ADDON, ORDERED, assert_no_loss, run, stock_and_addon

from scrapy_urlnorm.campaigns import CampaignChecks
from scrapy_urlnorm.keys import RequestKeys
from scrapy_urlnorm.policy import Policy

H = "http://shop.test"


def _checks(**policy: object) -> CampaignChecks:
    return CampaignChecks(Policy(**policy))  # type: ignore[arg-type]


def test_only_campaign_parameters_are_kept() -> None:
    checks = _checks()
    assert checks.kept(f"{H}/x?utm_source=mail&utm_medium=email&gclid=1") == ""
    assert checks.kept(f"{H}/x?utm_source=mail&UTM_Campaign=spring&utm_term=shoes#top") == (
        "UTM_Campaign=spring&utm_term=shoes"
    )
    assert checks.kept(f"{H}/x?campaign=spring") == ""  # (not a tracking parameter: the policy keeps it)


def test_parameters_the_user_named_are_not_checked() -> None:
    assert _checks(keep_params=frozenset({"utm_campaign"})).kept(f"{H}/x?utm_campaign=a") == ""
    assert _checks(remove_params=frozenset({"utm_campaign"})).kept(f"{H}/x?utm_campaign=a") == ""


def test_nothing_is_checked_where_the_tracking_step_keeps_campaigns() -> None:
    assert _checks(tracking_params=False).kept(f"{H}/x?utm_campaign=a") == ""
    per_host = Policy(host_policies={"shop.test": {"tracking_params": False}})  # type: ignore[arg-type]
    checks = CampaignChecks(per_host)
    assert checks.kept(f"{H}/x?utm_campaign=a") == ""
    assert checks.kept("http://other.test/x?utm_campaign=a") == "utm_campaign=a"


def test_kept_pairs_are_put_back_where_the_policy_removed_them() -> None:
    checks = _checks()
    url = f"{H}/x?z=1&utm_source=a&utm_campaign=b"
    assert checks.keep(url, f"{H}/x?z=1") == f"{H}/x?utm_campaign=b&z=1"
    assert checks.keep(url, f"{H}/x?utm_campaign=b&z=1") == f"{H}/x?utm_campaign=b&z=1"  # (kept by a host policy)
    assert checks.keep(f"{H}/x?utm_source=a", f"{H}/x") == f"{H}/x"
    assert checks.plain(url) == f"{H}/x?z=1&utm_source=a"
    assert checks.plain(f"{H}/x?utm_campaign=b") == f"{H}/x"
    assert checks.plain(f"{H}/x?utm_source=b") is None


def test_a_value_is_kept_on_every_page_whatever_other_pages_answered() -> None:
    checks = _checks()
    for name in ("a", "b", "c"):
        checks.answered(f"{H}/{name}?utm_campaign=brand", same=True)
    assert checks.kept(f"{H}/d?utm_campaign=brand") == "utm_campaign=brand"
    assert checks.kept("http://other.test/d?utm_campaign=brand") == "utm_campaign=brand"


def _counted() -> tuple[CampaignChecks, list[str]]:
    counted: list[str] = []
    return CampaignChecks(Policy(), counted.append), counted


def test_a_parameter_read_is_counted_once_per_site() -> None:
    checks, counted = _counted()
    checks.answered(f"{H}/a?utm_campaign=brand", same=True)
    checks.answered(f"{H}/lp?utm_campaign=spring-sale", same=False)
    checks.answered("http://www.shop.test/lp?utm_campaign=autumn", same=False)  # (the www twin: one site)
    checks.answered("http://other.test/lp?utm_campaign=spring-sale&utm_term=x", same=False)
    assert [key for key in counted if key.endswith("read")] == ["urlnorm/campaign_params_read"] * 3
    assert checks.kept(f"{H}/e?utm_campaign=brand") == "utm_campaign=brand"


def test_a_campaign_page_delivered_first_waits_for_its_plain_page() -> None:
    checks, counted = _counted()
    checks.delivered(f"{H}/a?utm_campaign=x", 7, (10, 11), None)
    checks.delivered(f"{H}/b?utm_campaign=x", 8, (20,), None)
    checks.plain_delivered((99,), 7)
    checks.plain_delivered((11,), 7)
    assert "urlnorm/campaign_params_read" not in counted  # (the plain page's)
    assert checks.sizes()["campaign_waiting"] == 2  # (key 10: the same page, remembered under its other key)
    checks.plain_delivered((20,), 9)
    assert "urlnorm/campaign_params_read" in counted
    assert checks.sizes()["campaign_waiting"] == 1


def test_a_page_the_crawl_had_is_no_page_of_the_campaigns_own() -> None:
    checks, counted = _counted()
    checks.delivered(f"{H}/a?utm_campaign=x", 7, (10,), None, had=True)
    assert "urlnorm/campaign_params_read" not in counted and checks.sizes()["campaign_waiting"] == 0
    # Where the plain page is known, it decides: another page than it is read.
    checks.delivered("http://other.test/b?utm_campaign=x", 8, (20,), 9, had=True)
    assert "urlnorm/campaign_params_read" in counted


def test_keys_keep_the_campaign_apart() -> None:
    keys = RequestKeys(Policy())
    keys.campaigns = CampaignChecks(keys.policy)
    plain = keys.static(Request(f"{H}/x")).value
    assert keys.static(Request(f"{H}/x?utm_source=a")).value == plain
    spring = keys.static(Request(f"{H}/x?utm_source=a&utm_campaign=spring")).value
    assert spring != plain
    assert keys.static(Request(f"{H}/x?utm_campaign=spring#top")).value == spring
    learned = keys.normalize_with(f"{H}/x/?utm_campaign=spring", Policy(trailing_slash="add"))[0]
    assert learned == f"{H}/x/?utm_campaign=spring"
    keys.campaigns.answered(f"{H}/a?utm_campaign=spring", same=True)
    keys.campaigns.answered(f"{H}/b?utm_campaign=spring", same=True)
    assert keys.static(Request(f"{H}/y?utm_campaign=spring")).value != keys.static(Request(f"{H}/y")).value


# -- crawls -------------------------------------------------------------------------------------

PRODUCTS = [f"/p{number}" for number in range(6)]


def landing_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """A shop whose pages ignore every campaign but the landing page's own: ``/lp`` with
    ``utm_campaign=spring-sale`` is the campaign's page, linking a coupon page only it links."""
    campaign = parse_qs(query).get("utm_campaign", [""])[0]
    if path == "/":
        links = [f"{page}?utm_source=mail&utm_campaign=brand" for page in PRODUCTS]
        return Reply.page("shop:home", [*links, *PRODUCTS, "/lp?utm_campaign=brand", "/lp"])
    if path == "/lp" and campaign == "spring-sale":
        return Reply.page("shop:lp-spring-sale", ["/lp/coupon", "/"])
    if path == "/lp":
        return Reply.page("shop:lp", ["/lp?utm_campaign=spring-sale", "/"])
    if path == "/lp/coupon" or path in PRODUCTS:
        return Reply.page(f"shop:{path}", ["/"])
    return Reply.not_found()


@pytest_twisted.ensureDeferred
async def test_a_landing_page_that_reads_its_campaign_is_collected() -> None:
    sites = {"shop.test": FunctionSite(landing_site)}
    stock, addon = await stock_and_addon(sites, ["http://shop.test/"], ORDERED)
    assert {"shop:lp-spring-sale", "shop:/lp/coupon"} <= stock.docs
    assert_no_loss(stock, addon)
    assert addon.stats["urlnorm/campaign_params_read"] == 1
    assert addon.requests <= stock.requests
    # Trusted as before, the step loses the campaign's page and the coupon behind it.
    trusting = await run(sites, ["http://shop.test/"], {**ORDERED, **ADDON, "URLNORM_VERIFY_CAMPAIGNS": False})
    assert stock.docs - trusting.docs == {"shop:lp-spring-sale", "shop:/lp/coupon"}


def newsletter_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """:func:`landing_site` mailed a newsletter: the campaign's value tags links to the
    products first, then to the landing page, which alone reads it."""
    if path == "/":
        links = [f"{page}?utm_campaign=spring-sale" for page in PRODUCTS]
        return Reply.page("shop:home", [*PRODUCTS, "/lp", *links, "/lp?utm_campaign=spring-sale"])
    return landing_site(path, query, headers)


@pytest_twisted.ensureDeferred
async def test_a_campaign_value_seen_on_other_pages_first_still_reaches_its_landing_page() -> None:
    """A value that answered the plain page on every path so far says nothing of the
    next one: the landing page that reads it comes after six products that do not (an
    edge worker serving one campaign page is configured per path). Trusted per site
    after two paths, the step lost the campaign's page and the coupon behind it."""
    sites = {"shop.test": FunctionSite(newsletter_site)}
    stock, addon = await stock_and_addon(sites, ["http://shop.test/"], ORDERED)
    assert {"shop:lp-spring-sale", "shop:/lp/coupon"} <= stock.docs
    assert_no_loss(stock, addon)
    assert addon.stats["urlnorm/campaign_params_read"] == 1


def stripping_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """An edge cache that answers a campaign spelling with a redirect to the URL without it."""
    if query:
        return Reply.redirect(f"http://edge.test{path}")
    if path == "/":
        return Reply.page("edge:home", [*(f"{page}?utm_campaign=brand" for page in PRODUCTS), *PRODUCTS])
    return Reply.page(f"edge:{path}", ["/"]) if path in PRODUCTS else Reply.not_found()


@pytest_twisted.ensureDeferred
async def test_a_campaign_spelling_redirected_to_its_plain_url_costs_what_stock_pays() -> None:
    stock, addon = await stock_and_addon({"edge.test": FunctionSite(stripping_site)}, ["http://edge.test/"], ORDERED)
    assert_no_loss(stock, addon)
    assert addon.requests <= stock.requests  # (each spelling redirected once, at most)


def worker_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """:func:`landing_site` behind an edge worker that rewrites the landing page for its
    campaign but passes the origin's entity tag through, and forwards ``If-None-Match`` to the
    origin (which ignores the campaign): the campaign's page carries the plain page's tag, and
    a conditional request for it with that tag is answered ``304``. The home page links the
    plain pages before their campaign spellings."""
    if path == "/":
        links = [*PRODUCTS, "/lp", *(f"{page}?utm_campaign=brand" for page in PRODUCTS), "/lp?utm_campaign=spring-sale"]
        reply = Reply.page("shop:home", links)
    else:
        reply = landing_site(path, query, headers)
    if reply.status != 200:
        return reply
    origin = landing_site(path, "", headers)  # (what the origin served, and tagged)
    tag = f'"{hashlib.sha1(origin.body).hexdigest()[:16]}"'
    if headers.get("If-None-Match") == tag:
        return Reply(304, b"", {"ETag": tag})
    return Reply(reply.status, reply.body, {**reply.headers, "ETag": tag})


@pytest_twisted.ensureDeferred
async def test_a_campaign_page_with_its_plain_pages_entity_tag_is_fetched_in_full() -> None:
    sites = {"shop.test": FunctionSite(worker_site)}
    stock, addon = await stock_and_addon(sites, ["http://shop.test/"], ORDERED)
    assert {"shop:lp-spring-sale", "shop:/lp/coupon"} <= stock.docs
    assert_no_loss(stock, addon)  # (asked with the plain page's tag, it answered 304: lost)
    assert addon.stats["urlnorm/campaign_params_read"] == 1
