"""``CallbackClaims``: which callbacks claimed a key, kept only where a non-default one did."""

from __future__ import annotations

from typing import Any

from scrapy import Request, Spider
from scrapy.http.request import NO_CALLBACK

from scrapy_urlnorm import callbacks
from scrapy_urlnorm.callbacks import CallbackClaims, callback_name


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


def test_a_crawl_with_one_callback_keeps_nothing() -> None:
    claims = CallbackClaims()
    claims.claimed(request(), ((1, True), (2, True)))
    claims.claimed(request(SPIDER.parse), ((3, True),))
    assert len(claims) == 0
    assert claims.same(1, request()) and claims.same(99, request(SPIDER.parse))


def test_a_key_is_the_same_only_for_a_callback_that_claimed_it() -> None:
    claims = CallbackClaims()
    claims.claimed(request(), ((1, True),))  # before any other callback: not kept
    claims.claimed(request(SPIDER.parse_product), ((1, False), (2, True)))
    assert claims.same(1, request()) and claims.same(1, request(SPIDER.parse_product))
    assert claims.same(2, request(SPIDER.parse_product))
    assert not claims.same(2, request()) and not claims.same(2, request(SPIDER.parse_review))
    claims.claimed(request(SPIDER.parse_review), ((2, False),))
    assert claims.same(2, request(SPIDER.parse_review))
    assert not claims.same(3, request(SPIDER.parse_product))  # claimed by the default only (or never)


def test_a_re_keyed_page_keeps_its_callbacks_and_no_more() -> None:
    claims = CallbackClaims()
    claims.claimed(request(SPIDER.parse_product), ((1, True),))
    claims.alias(1, 2)
    assert claims.same(2, request(SPIDER.parse_product))
    assert not claims.same(2, request())  # unsure what claimed the new key before: fetch


def test_too_many_callbacks_are_never_the_same_as_another(monkeypatch: Any) -> None:
    monkeypatch.setattr(callbacks, "MAX_CALLBACKS", 1)
    claims = CallbackClaims()
    claims.claimed(request(SPIDER.parse_product), ((1, True),))
    claims.claimed(request(SPIDER.parse_review), ((1, False),))
    assert not claims.same(1, request(SPIDER.parse_review))
