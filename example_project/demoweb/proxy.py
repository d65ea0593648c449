"""Route every request to the VirtualWeb through Scrapy's proxy support."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class VirtualWebProxyMiddleware:
    """Sets ``meta["proxy"]`` to ``DEMOWEB_PROXY`` (the VirtualWeb's address) on every request.

    Place it before Scrapy's ``HttpProxyMiddleware`` (750), e.g. at 740.
    """

    def __init__(self, proxy: str) -> None:
        self.proxy = proxy

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler.settings["DEMOWEB_PROXY"])

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        if self.proxy:
            request.meta.setdefault("proxy", self.proxy)
