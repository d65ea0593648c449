"""Campaign parameters: kept in keys until their value is shown to be a tag (``campaigns``)."""

from __future__ import annotations

from scrapy import Request

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
