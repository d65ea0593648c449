"""The demo web crawled with the add-on and no Twisted reactor (``TWISTED_REACTOR_ENABLED = False``).

``python reactorless_crawl.py SETTINGS_JSON``: prints one JSON object (the
documents collected, the stats, and the Twisted reactor's state) on the last
line of standard output. Tests run it in a process of its own, since pytest's
process has a reactor installed.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from demoweb.crawling import BASE_SETTINGS, PROXY_MIDDLEWARE, LinkSpider
from demoweb.server import VirtualWeb
from demoweb.web import START_URLS, build_sites
from scrapy import signals
from scrapy.crawler import AsyncCrawlerProcess


def main() -> None:
    items: list[str] = []
    with VirtualWeb(build_sites()) as web:
        settings: dict[str, Any] = {
            **BASE_SETTINGS,
            "ADDONS": {"scrapy_urlnorm.Addon": 0},
            "TWISTED_REACTOR_ENABLED": False,
            "DEMOWEB_PROXY": web.address,
            "DOWNLOADER_MIDDLEWARES": {PROXY_MIDDLEWARE: 740},
            "CLOSESPIDER_TIMEOUT": 120,
            **json.loads(sys.argv[1]),
        }
        process = AsyncCrawlerProcess(settings)
        crawler = process.create_crawler(LinkSpider)

        def on_item(item: Any) -> None:
            items.append(item["doc_id"])

        crawler.signals.connect(on_item, signal=signals.item_scraped)
        process.crawl(crawler, start_urls=START_URLS)
        process.start()
    print(
        json.dumps(
            {
                "doc_ids": items,
                "stats": {k: v for k, v in crawler.stats.get_stats().items() if isinstance(v, (int, float, str))},
                "reactor_installed": "twisted.internet.reactor" in sys.modules,
            }
        )
    )


if __name__ == "__main__":
    main()
