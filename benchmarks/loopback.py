"""A VirtualWeb served from a child process, so the crawler's process measures only itself.

``bench_crawl.py`` (CPU seconds per 1,000 pages) and ``bench_trap.py`` (RSS
over a trap crawl) crawl through one: the server's threads then take neither
CPU time (``resource.getrusage``) nor memory (RSS) of the crawling process.
The child is forked, so ``make_sites`` may be any callable (a closure too).

    with ChildWeb(make_sites) as web:    # web.address: the proxy address for crawl()
        ...
    web.hits                              # [(host, target, status), ...] once closed
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "example_project"))

from demoweb.server import Site, VirtualWeb  # noqa: E402


def _serve(make_sites: Callable[[], Mapping[str, Site]], conn: Connection, keep_hits: bool) -> None:
    sites = make_sites()
    web = VirtualWeb({})
    web.sites = sites  # type: ignore[assignment]  # any Mapping with .get (a wildcard one too)
    web.start()
    conn.send(web.address)
    conn.recv()  # stop
    web.stop()
    conn.send([(hit.host, hit.target, hit.status) for hit in web.hits] if keep_hits else len(web.hits))
    conn.close()


class ChildWeb:
    """A VirtualWeb of ``make_sites()`` in a forked child process.

    ``keep_hits=False`` sends back only the number of requests served (a trap
    crawl's log of hits would be large)."""

    def __init__(self, make_sites: Callable[[], Mapping[str, Site]], *, keep_hits: bool = True) -> None:
        self._make_sites = make_sites
        self._keep_hits = keep_hits
        self.address = ""
        self.hits: Any = None

    def __enter__(self) -> ChildWeb:
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(self._make_sites, child, self._keep_hits), daemon=True)
        self._process.start()
        self.address = self._conn.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._conn.send("stop")
        self.hits = self._conn.recv()
        self._process.join(10)
