"""The demo spider: crawls the bundled demo web (or a real site) and collects one item per page."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit

import scrapy
from demoweb.server import VirtualWeb
from demoweb.web import DOCUMENTS, START_URLS, build_sites
from scrapy import signals


class DemoSpider(scrapy.Spider):
    """``scrapy crawl demo`` crawls five simulated sites, one per server family
    (Apache, IIS, a news mirror, a blog, a trap site), served in-process on
    127.0.0.1. ``-a start_url=https://...`` crawls that site instead (politely:
    one request at a time, half a second apart)."""

    name = "demo"

    def __init__(self, start_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_url = start_url
        self.web: VirtualWeb | None = None
        self.doc_ids: set[str] = set()
        if start_url:
            self.allowed_domains = [urlsplit(start_url).hostname or ""]
            self.download_delay = 0.5

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> DemoSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if not spider.start_url:
            spider.web = VirtualWeb(build_sites()).start()
            spider.demoweb_proxy = spider.web.address
            crawler.signals.connect(spider.closed_demo, signal=signals.spider_closed)
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in [self.start_url] if self.start_url else START_URLS:
            yield scrapy.Request(url)

    def parse(self, response: scrapy.http.Response) -> Iterator[Any]:
        if not hasattr(response, "css"):
            return
        doc_id = response.css('meta[name="doc-id"]::attr(content)').get() or response.url
        self.doc_ids.add(doc_id)
        yield {"url": response.url, "doc_id": doc_id}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)

    def closed_demo(self, spider: scrapy.Spider, reason: str) -> None:
        assert self.web is not None
        expected = sum(DOCUMENTS.values())
        self.logger.info(
            "Demo crawl collected %d of the demo web's %d documents with %d HTTP requests",
            len(self.doc_ids),
            expected,
            len(self.web.hits),
        )
        self.web.stop()
