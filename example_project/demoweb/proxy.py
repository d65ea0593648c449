"""Route every request to the VirtualWeb through Scrapy's proxy support."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class VirtualWebProxyMiddleware:
    """Sets ``meta["proxy"]`` to the VirtualWeb's address on every request: the
    ``DEMOWEB_PROXY`` setting, or the spider's ``demoweb_proxy`` attribute (a
    spider that starts the web itself). Without either it does nothing.

    Place it before Scrapy's ``HttpProxyMiddleware`` (750), e.g. at 740.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.proxy = crawler.settings.get("DEMOWEB_PROXY")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        proxy = self.proxy or getattr(self.crawler.spider, "demoweb_proxy", None)
        if proxy:
            request.meta.setdefault("proxy", proxy)
