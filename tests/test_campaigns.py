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


def test_a_value_that_answered_the_plain_page_on_two_paths_is_a_tag_from_then_on() -> None:
    checks = _checks()
    first, second, third = (f"{H}/{name}?utm_campaign=brand" for name in ("a", "b", "c"))
    checks.answered(first, 1, same=True)
    checks.answered(first, 1, same=True)  # (one path, however often)
    assert checks.kept(third) == "utm_campaign=brand"
    checks.answered(second, 2, same=True)
    assert checks.kept(f"{H}/d?utm_campaign=brand") == ""
    assert checks.kept("http://other.test/d?utm_campaign=brand") == "utm_campaign=brand"
    assert checks.kept(f"{H}/d?utm_campaign=spring") == "utm_campaign=spring"
    # A URL decided before keeps its decision: a pending request's keys do not change.
    assert checks.kept(third) == "utm_campaign=brand"


def test_a_value_that_answered_another_page_keeps_every_value_of_its_parameter() -> None:
    checks = _checks()
    checks.answered(f"{H}/a?utm_campaign=brand", 1, same=True)
    checks.answered(f"{H}/b?utm_campaign=brand", 2, same=True)
    checks.answered(f"{H}/lp?utm_campaign=spring-sale", 3, same=False)
    assert checks.kept(f"{H}/e?utm_campaign=brand") == "utm_campaign=brand"
    assert checks.kept(f"{H}/e?utm_content=banner") == "utm_content=banner"


def test_a_campaign_page_delivered_first_waits_for_its_plain_page() -> None:
    checks = _checks()
    checks.delivered(f"{H}/a?utm_campaign=x", 7, (10, 11), None)
    checks.delivered(f"{H}/b?utm_campaign=x", 8, (20,), None)
    checks.plain_delivered((99,), 7)
    checks.plain_delivered((11,), 7)
    checks.plain_delivered((20,), 8)
    assert checks.kept(f"{H}/c?utm_campaign=x") == ""
    assert checks.sizes()["campaign_waiting"] == 1  # (key 10: the same page, remembered under its other key)


def test_a_page_the_crawl_had_answers_for_a_plain_page_not_known() -> None:
    checks = _checks()
    queued = f"{H}/q?utm_campaign=x"
    assert checks.kept(queued) == "utm_campaign=x"  # (decided when it was linked)
    assert checks.tagged_since(queued) is None
    checks.delivered(f"{H}/a?utm_campaign=x", 7, (10,), None, had=True)
    assert checks.kept(f"{H}/c?utm_campaign=x") == "utm_campaign=x"
    checks.delivered(f"{H}/d?utm_campaign=x", 9, (30,), None, had=True)
    assert checks.kept(f"{H}/e?utm_campaign=x") == ""
    assert checks.kept(queued) == "utm_campaign=x"  # (its keys stay)
    assert checks.tagged_since(queued) == f"{H}/q"
    # Where the plain page is known, it decides: another page than it is read.
    checks.delivered("http://other.test/b?utm_campaign=x", 8, (20,), 9, had=True)
    assert checks.kept("http://other.test/c?utm_campaign=x") == "utm_campaign=x"
    checks.delivered("http://other.test/e?utm_campaign=x", 8, (40,), None, had=True)
    assert checks.kept("http://other.test/f?utm_campaign=x") == "utm_campaign=x"


def test_keys_keep_the_campaign_apart_until_trusted() -> None:
    keys = RequestKeys(Policy())
    keys.campaigns = CampaignChecks(keys.policy)
    plain = keys.static(Request(f"{H}/x")).value
    assert keys.static(Request(f"{H}/x?utm_source=a")).value == plain
    spring = keys.static(Request(f"{H}/x?utm_source=a&utm_campaign=spring")).value
    assert spring != plain
    assert keys.static(Request(f"{H}/x?utm_campaign=spring#top")).value == spring
    learned = keys.normalize_with(f"{H}/x/?utm_campaign=spring", Policy(trailing_slash="add"))[0]
    assert learned == f"{H}/x/?utm_campaign=spring"
    keys.campaigns.answered(f"{H}/a?utm_campaign=spring", 1, same=True)
    keys.campaigns.answered(f"{H}/b?utm_campaign=spring", 2, same=True)
    assert keys.static(Request(f"{H}/y?utm_campaign=spring")).value == keys.static(Request(f"{H}/y")).value


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
    assert addon.stats["urlnorm/campaign_values_trusted"] == 1  # (brand: a tag after two products)
    assert addon.stats["urlnorm/campaign_params_read"] == 1
    assert addon.requests < stock.requests
    # Trusted as before, the step loses the campaign's page and the coupon behind it.
    trusting = await run(sites, ["http://shop.test/"], {**ORDERED, **ADDON, "URLNORM_VERIFY_CAMPAIGNS": False})
    assert stock.docs - trusting.docs == {"shop:lp-spring-sale", "shop:/lp/coupon"}


def stripping_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """An edge cache that answers a campaign spelling with a redirect to the URL without it."""
    if query:
        return Reply.redirect(f"http://edge.test{path}")
    if path == "/":
        return Reply.page("edge:home", [*(f"{page}?utm_campaign=brand" for page in PRODUCTS), *PRODUCTS])
    return Reply.page(f"edge:{path}", ["/"]) if path in PRODUCTS else Reply.not_found()


@pytest_twisted.ensureDeferred
async def test_a_redirect_to_the_plain_url_shows_a_tag() -> None:
    stock, addon = await stock_and_addon({"edge.test": FunctionSite(stripping_site)}, ["http://edge.test/"], ORDERED)
    assert_no_loss(stock, addon)
    assert addon.stats["urlnorm/campaign_values_trusted"] == 1
    assert addon.requests < stock.requests


def tagged_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """:func:`landing_site` with an entity tag per page, answering ``304`` to a matching one,
    whose home page links the plain pages before their campaign spellings."""
    if path == "/":
        links = [*PRODUCTS, "/lp", *(f"{page}?utm_campaign=brand" for page in PRODUCTS), "/lp?utm_campaign=brand"]
        reply = Reply.page("shop:home", links)
    else:
        reply = landing_site(path, query, headers)
    if reply.status != 200:
        return reply
    tag = f'"{hashlib.sha1(reply.body).hexdigest()[:16]}"'
    if headers.get("If-None-Match") == tag:
        return Reply(304, b"", {"ETag": tag})
    return Reply(reply.status, reply.body, {**reply.headers, "ETag": tag})


@pytest_twisted.ensureDeferred
async def test_a_campaign_spelling_is_asked_with_its_plain_pages_entity_tag() -> None:
    sites = {"shop.test": FunctionSite(tagged_site)}
    stock, addon = await stock_and_addon(sites, ["http://shop.test/"], ORDERED)
    assert_no_loss(stock, addon)
    assert addon.stats["urlnorm/campaign_probes_not_modified"] >= 1  # (brand's checks, not downloaded)
    assert addon.stats["urlnorm/campaign_params_read"] == 1  # (the landing page's own tag: its page)
