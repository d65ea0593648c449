"""Callbacks: a request's keys are its callback's own (salted), the default's as before."""

from __future__ import annotations

from typing import Any

from scrapy import Request, Spider
from scrapy.http.request import NO_CALLBACK
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from scrapy_urlnorm import Policy
from scrapy_urlnorm.callbacks import callback_name, callback_salt
from scrapy_urlnorm.keys import RequestKeys


class ShopSpider(Spider):
    name = "shop"

    def parse(self, response: Any) -> None: ...

    def parse_product(self, response: Any) -> None: ...

    def parse_review(self, response: Any) -> None: ...


SPIDER = ShopSpider()


def request(callback: Any = None) -> Request:
    return Request("http://shop.test/", callback=callback)


def test_the_default_callback_is_none_parse_and_crawlspiders_own() -> None:
    assert callback_name(request()) is None
    assert callback_name(request(SPIDER.parse)) is None
    assert callback_name(request(NO_CALLBACK)) is None
    assert callback_name(request(SPIDER.parse_product)) == "parse_product"


class ShopCrawlSpider(CrawlSpider):
    name = "shop-rules"
    rules = (
        Rule(LinkExtractor(allow="/product/"), callback="parse_item"),
        Rule(LinkExtractor(allow="/review/"), callback="parse_item", follow=True),
        Rule(LinkExtractor(allow="/list/"), callback="parse_item"),
        Rule(LinkExtractor()),
    )

    def parse_item(self, response: Any) -> None: ...


def test_a_crawlspider_request_is_named_by_what_its_rule_does() -> None:
    spider = ShopCrawlSpider()

    def rule_request(rule: object) -> Request:
        return Request("http://shop.test/", callback=spider._callback, meta={"rule": rule})

    assert callback_name(rule_request(0)) == callback_name(rule_request(2)) == "rule:parse_item"
    assert callback_name(rule_request(1)) == "rule:parse_item+follow"
    assert callback_name(rule_request(3)) is None  # a follow-only rule: as the start pages (``_parse``)
    assert callback_name(Request("http://shop.test/", callback=spider._parse)) is None
    for unknown in (None, 9, -1, "0"):  # a rule the spider does not have: the default
        assert callback_name(rule_request(unknown)) is None


class ShopWithStartItems(ShopCrawlSpider):
    def parse_start_url(self, response: Any, **kwargs: Any) -> Any:
        return self.parse_item(response)


def test_a_follow_only_rule_is_not_the_default_when_start_pages_are_read() -> None:
    """``_parse`` runs ``parse_start_url``: a start page fetched through a
    follow-only link would go unread (differential seed 67216 lost a home page)."""
    spider = ShopWithStartItems()
    follow_only = Request("http://shop.test/", callback=spider._callback, meta={"rule": 3})
    assert callback_name(follow_only) == "rule:+follow"
    assert callback_name(Request("http://shop.test/")) is None


def test_the_default_callback_keys_as_before_and_every_other_its_own() -> None:
    assert callback_salt(request()) == callback_salt(request(SPIDER.parse)) == 0
    assert callback_salt(request(NO_CALLBACK)) == 0
    product, review = callback_salt(request(SPIDER.parse_product)), callback_salt(request(SPIDER.parse_review))
    assert product and review and product != review
    assert callback_salt(request(ShopSpider().parse_product)) == product  # by name: the same in every process


def test_keys_are_salted_with_the_callback_static_learned_and_fallback() -> None:
    keys = RequestKeys(Policy.preset("default"))
    plain = keys.static(request())
    product = keys.static(request(SPIDER.parse_product))
    salt = callback_salt(request(SPIDER.parse_product))
    assert product.value == plain.value ^ salt and product.url == plain.url
    aggressive = Policy.preset("aggressive")
    learned = keys.learned(request(SPIDER.parse_product), product, aggressive, 3)
    assert learned.learned == keys.learned(request(), plain, aggressive, 3).learned ^ salt  # type: ignore[operator]
    odd = Request("s3://shop-bucket/price-list", callback=SPIDER.parse_product)  # keyed by Scrapy's fingerprint
    assert keys.static(odd).value == keys.static(Request("s3://shop-bucket/price-list")).value ^ salt
