"""A crawl in its own process, for tests that kill it: ``python crawl_process.py SETTINGS_JSON START_URL``."""

from __future__ import annotations

import json
import sys

from demoweb.crawling import BASE_SETTINGS, PROXY_MIDDLEWARE, LinkSpider
from scrapy.crawler import CrawlerProcess


def main() -> None:
    settings = {**BASE_SETTINGS, **json.loads(sys.argv[1])}
    settings.setdefault("DOWNLOADER_MIDDLEWARES", {})[PROXY_MIDDLEWARE] = 740
    process = CrawlerProcess(settings)
    process.crawl(LinkSpider, start_urls=sys.argv[2:])
    process.start()


if __name__ == "__main__":
    main()
