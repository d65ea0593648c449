"""Run real Scrapy crawls against a VirtualWeb on 127.0.0.1, in-process.

Shared by the tests (under pytest-twisted), the end-to-end benchmark and
anything else that needs "crawl this simulated web with these settings".
"""

from __future__ import annotations

import inspect
import json
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import scrapy
from scrapy.crawler import CrawlerRunner
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from .server import VirtualWeb

PROXY_MIDDLEWARE = "demoweb.proxy.VirtualWebProxyMiddleware"
ROBOTS_MIDDLEWARE = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"

BASE_SETTINGS: dict[str, Any] = {
    "LOG_LEVEL": "INFO",
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
    "COOKIES_ENABLED": False,
    "CONCURRENT_REQUESTS": 4,
    "RETRY_ENABLED": False,
    "DOWNLOAD_TIMEOUT": 20,
    # Scrapy starts this many asyncio tasks for each response's output; the spiders here
    # yield one item a page, and 100 tasks a response were an eighth of a test crawl's time.
    "CONCURRENT_ITEMS": 4,
}


class LinkSpider(scrapy.Spider):
    """Follows every link, yields one item per page with its document id.

    With the ``DEMOWEB_CALLBACKS_SEED`` setting, two callbacks, as a shop spider
    has: the links of a *listing* (about half the documents, drawn from the seed
    and the document id) go to ``parse_listed``, which yields the item; every
    other link goes to ``parse``, which only follows. Stock then collects a
    document only where some spelling of it was linked from a listing.

    With ``DEMOWEB_MANUAL_REDIRECTS``, the spider follows redirects itself, as
    spiders that record redirect chains do: its ``handle_httpstatus_list`` names
    the redirect statuses, so ``RedirectMiddleware`` hands them to the callback,
    which follows ``Location`` with the same callback (the new request goes
    through the scheduler and its filter, as any link)."""

    name = "links"
    callbacks_seed: str | None = None
    #: Redirect statuses the spider reads itself (``DEMOWEB_MANUAL_REDIRECTS``).
    REDIRECTS: ClassVar[list[int]] = [301, 302, 303, 307, 308]

    def __init__(self, start_urls: list[str] = (), **kwargs: Any) -> None:  # type: ignore[assignment]
        super().__init__(**kwargs)
        self.start_urls = list(start_urls)

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> LinkSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        allowed = crawler.settings.getlist("DEMOWEB_ALLOWED_DOMAINS")
        if allowed:  # (a setting, so a crawl in a process of its own gets it too)
            spider.allowed_domains = allowed
        spider.callbacks_seed = crawler.settings.get("DEMOWEB_CALLBACKS_SEED")
        if crawler.settings.getbool("DEMOWEB_MANUAL_REDIRECTS"):
            spider.handle_httpstatus_list = cls.REDIRECTS
        return spider

    def parse(self, response: scrapy.http.Response) -> Iterator[Any]:
        return self.page(response, item=self.callbacks_seed is None)

    def parse_listed(self, response: scrapy.http.Response) -> Iterator[Any]:
        return self.page(response, item=True)

    def page(self, response: scrapy.http.Response, *, item: bool) -> Iterator[Any]:
        if response.status in self.REDIRECTS:
            location = response.headers.get("Location")
            if location:
                callback = response.request.callback if response.request is not None else None
                yield self.follow(response, location.decode("latin-1"), callback or self.parse)
            return
        doc_id = response.css('meta[name="doc-id"]::attr(content)').get()
        if doc_id and item:
            yield {"url": response.url, "doc_id": doc_id}
        callback = self.parse
        if self.callbacks_seed is not None and random.Random(f"{self.callbacks_seed}:{doc_id}").random() < 0.5:
            callback = self.parse_listed
        for href in response.css("a::attr(href)").getall():
            yield self.follow(response, href, callback)

    def follow(self, response: scrapy.http.Response, href: str, callback: Any) -> scrapy.Request:
        return response.follow(href, callback=callback)


#: Item-rule patterns a ``RulesSpider`` draws from: each matches some spellings of a
#: document's URL and not others (a query, a session id, no extension, a trailing slash).
ITEM_PATTERNS = (
    r"\.html?$",  # files as written, nothing after the extension
    r"/[a-z]+-\d+(\.\w+)?$",  # the generator's document files, lowercase only
    r"^[^?;]*$",  # no query, no path parameter
    r"/[^/?;]+/?$",  # any last segment, no query
    r"[A-Z]",  # some capital letter (IIS spellings, menus)
)


class RulesSpider(CrawlSpider):
    """A ``CrawlSpider`` as most projects write one: an item rule (``parse_item``,
    with or without ``follow``) whose pattern, drawn from ``DEMOWEB_RULES_SEED``,
    matches some spellings of a page and not others, then a follow-only rule for
    every other link. Stock collects a document where some spelling of it matches
    the item rule; every ``CrawlSpider`` request has the callback ``_callback``.
    With ``RANDOMWEB_PRIORITY_SEED`` and ``DEMOWEB_RULES_PRIORITIES``, followed links
    get random seeded priorities (the rules' ``process_request``)."""

    name = "links-rules"

    def __init__(self, start_urls: list[str] = (), **kwargs: Any) -> None:  # type: ignore[assignment]
        super().__init__(**kwargs)
        self.start_urls = list(start_urls)
        self._priorities: random.Random | None = None

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> RulesSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        allowed = settings.getlist("DEMOWEB_ALLOWED_DOMAINS")
        if allowed:
            spider.allowed_domains = allowed
        rng = random.Random(f"rules:{settings.get('DEMOWEB_RULES_SEED')}")
        pattern, follow = rng.choice(ITEM_PATTERNS), rng.random() < 0.5
        if settings.getbool("DEMOWEB_RULES_PRIORITIES"):
            spider._priorities = random.Random(settings.getint("RANDOMWEB_PRIORITY_SEED"))
        spider.rules = (
            Rule(LinkExtractor(allow=pattern), callback="parse_item", follow=follow, process_request="prioritize"),
            Rule(LinkExtractor(), follow=True, process_request="prioritize"),
        )
        spider._compile_rules()
        return spider

    def parse_start_url(self, response: scrapy.http.Response, **kwargs: Any) -> Iterator[Any]:
        return self.parse_item(response)

    def parse_item(self, response: scrapy.http.Response) -> Iterator[Any]:
        doc_id = response.css('meta[name="doc-id"]::attr(content)').get()
        if doc_id:
            yield {"url": response.url, "doc_id": doc_id}

    def prioritize(self, request: scrapy.Request, response: scrapy.http.Response) -> scrapy.Request:
        if self._priorities is None:
            return request
        return request.replace(priority=self._priorities.randint(-5, 5))


if inspect.iscoroutinefunction(RobotsTxtMiddleware.robot_parser):

    class SettledRobotsTxtMiddleware(RobotsTxtMiddleware):
        """Scrapy's ``RobotsTxtMiddleware``, with every request that waits for a pending
        ``robots.txt`` given its parser. Scrapy's own (since ``robot_parser`` became
        ``async``) turns the one pending Deferred into a future per waiter, and a
        Deferred hands its result to the first only: the others get ``None`` and are
        let through unchecked. Which requests wait depends on timing, so two crawls of
        one web would obey different rules; the differential compares the add-on, not
        that race, so both of its crawls use this one."""

        async def robot_parser(self, request: scrapy.Request) -> Any:
            pending = self._parsers.get(urlparse_cached(request).netloc)
            if not isinstance(pending, Deferred):
                return await super().robot_parser(request)
            waiter: Deferred[Any] = Deferred()

            def hand_on(parser: Any) -> Any:
                waiter.callback(parser)
                return parser

            pending.addCallback(hand_on)
            return await maybe_deferred_to_future(waiter)

else:  # older Scrapy gives each waiter a Deferred of its own
    SettledRobotsTxtMiddleware = RobotsTxtMiddleware  # type: ignore[misc]


class JsonLinesPipeline:
    """Appends each item to the file ``ITEM_LOG`` names, one flushed JSON line
    per item, so a crawl killed at any moment keeps every item it collected."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close_spider

    @classmethod
    def from_crawler(cls, crawler: Any) -> JsonLinesPipeline:
        return cls(crawler.settings["ITEM_LOG"])

    def process_item(self, item: Any, spider: Any = None) -> Any:
        self.file.write(json.dumps(dict(item)) + "\n")
        self.file.flush()
        return item

    def close_spider(self, spider: Any = None) -> None:
        self.file.close()


class CookieJarResets:
    """Empties Scrapy's cookie jars once the crawl has had as many responses as each
    number in ``DEMOWEB_COOKIE_RESETS`` says: what a kill or a stop does to a crawl's
    cookies (a crawl run again starts with an empty jar, stock's as the add-on's),
    without the restart, for a stock crawl to compare a restarted add-on crawl with (see
    :func:`~demoweb.randomweb.stock_misses_in_other_orders`)."""

    def __init__(self, crawler: Any, resets: list[int]) -> None:
        self.crawler = crawler
        self.resets = sorted(resets)
        self.responses = 0

    @classmethod
    def from_crawler(cls, crawler: Any) -> CookieJarResets:
        return cls(crawler, [int(n) for n in crawler.settings.getlist("DEMOWEB_COOKIE_RESETS")])

    def process_response(self, request: Any, response: Any, spider: Any = None) -> Any:
        self.responses += 1
        while self.resets and self.responses >= self.resets[0]:
            self.resets.pop(0)
            for middleware in self.crawler.engine.downloader.middleware.middlewares:
                if isinstance(middleware, CookiesMiddleware):
                    middleware.jars.clear()
        return response


def crawl_settings(settings: Mapping[str, Any], proxy: str | None = None) -> dict[str, Any]:
    """BASE_SETTINGS with ``settings`` on top, every request sent through the
    VirtualWeb at ``proxy`` (else the one ``settings`` names in ``DEMOWEB_PROXY``)."""
    merged = {**BASE_SETTINGS, **settings}
    if proxy is not None:
        merged["DEMOWEB_PROXY"] = proxy
    middlewares = dict(merged.get("DOWNLOADER_MIDDLEWARES", {}))
    middlewares.setdefault(PROXY_MIDDLEWARE, 740)
    if merged.get("ROBOTSTXT_OBEY"):  # (see SettledRobotsTxtMiddleware)
        middlewares.setdefault(ROBOTS_MIDDLEWARE, None)
        middlewares.setdefault("demoweb.crawling.SettledRobotsTxtMiddleware", 100)
    if merged.get("DEMOWEB_COOKIE_RESETS"):
        middlewares.setdefault("demoweb.crawling.CookieJarResets", 950)  # (answers come to it first)
    merged["DOWNLOADER_MIDDLEWARES"] = middlewares
    return merged


@dataclass
class CrawlResult:
    stats: dict[str, Any]
    items: list[dict[str, Any]] = field(default_factory=list)

    @property
    def doc_ids(self) -> list[str]:
        return [item["doc_id"] for item in self.items]


async def crawl(
    web: VirtualWeb, start_urls: list[str], settings: dict[str, Any] | None = None, spider: type = LinkSpider
) -> CrawlResult:
    """Crawl ``start_urls`` through ``web`` with ``settings`` on top of BASE_SETTINGS."""
    runner = CrawlerRunner(crawl_settings({"DEMOWEB_PROXY": web.address, **(settings or {})}))
    crawler = runner.create_crawler(spider)
    items: list[dict[str, Any]] = []

    def on_item(item: Any) -> None:
        items.append(dict(item))

    # Signal receivers are held weakly: `on_item` stays alive until the crawl ends.
    crawler.signals.connect(on_item, signal=scrapy.signals.item_scraped)
    await runner.crawl(crawler, start_urls=start_urls)
    return CrawlResult(dict(crawler.stats.get_stats()), items)
