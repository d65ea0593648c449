"""A crawl in its own process, for tests that kill it: ``python crawl_process.py SETTINGS_JSON START_URL...``.

Tests start it with :func:`spawn`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from demoweb.crawling import LinkSpider, crawl_settings
from scrapy.crawler import CrawlerProcess

HERE = Path(__file__).resolve().parent


def spawn(settings: Mapping[str, Any], start_urls: Sequence[str], **popen: Any) -> subprocess.Popen:
    """Run this crawl (LinkSpider through the demo web's proxy) in a new process."""
    # The checkout's own package first: an editable install may point at another checkout (a git worktree).
    paths = [str(HERE), str(HERE.parent / "example_project"), str(HERE.parent)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    command = [sys.executable, str(HERE / "crawl_process.py"), json.dumps(dict(settings)), *start_urls]
    return subprocess.Popen(command, env=env, **popen)


def main() -> None:
    process = CrawlerProcess(crawl_settings(json.loads(sys.argv[1])))
    process.crawl(LinkSpider, start_urls=sys.argv[2:])
    process.start()


if __name__ == "__main__":
    main()
