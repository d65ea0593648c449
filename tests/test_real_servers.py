"""On real servers, the add-on loses no document stock Scrapy collects.

Runs ``benchmarks/bench_real_servers.py`` (one crawl order, LIFO at 16 concurrent
requests) in a child process: each server (Apache, nginx, lighttpd, Caddy, Python's
``http.server``, Twisted Web, the Node.js ``serve`` and ``http-server``, PHP's built-in
server, alone and with pages that write a session into their links, h2o, BusyBox
``httpd``, ``mini_httpd``, Tomcat with JSP pages that do the same, ``webfsd``, WEBrick,
aiohttp's and Tornado's static files, Jetty, Go's ``FileServer``, WhiteNoise, Express's
static middleware, uWSGI's static files, Apache as Debian configures ``/var/www`` (listings):
twenty-four ways of serving a ``www.`` twin and a directory; Django,
Flask and Starlette applications: their frameworks' own slash, host and parameter
conventions; nginx as an https site, ``http://`` redirected to ``https://``, reached through a
``CONNECT`` tunnel) crawled with stock Scrapy, the add-on and the add-on with
``URLNORM_LEARN=False``.
Skipped unless ``URLNORM_REAL_SERVERS=1`` and ``benchmarks/real_servers/setup.sh`` has
installed the servers and documentation trees; a family whose server or pip packages this
Python lacks is skipped alone; only the families whose tests are selected are crawled
(``-k tornado``). No timing assertions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from real_servers import servers  # noqa: E402

#: The families whose servers, documentation trees and pip packages are all installed.
AVAILABLE = [kind for kind in servers.FAMILIES if not servers.missing([kind])]

pytestmark = [
    pytest.mark.skipif(os.environ.get("URLNORM_REAL_SERVERS") != "1", reason="set URLNORM_REAL_SERVERS=1"),
    pytest.mark.skipif(not AVAILABLE, reason="run benchmarks/real_servers/setup.sh first"),
]


@pytest.fixture(scope="module")
def bench(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # Only the families whose tests were selected (``-k webfs``), not all of them for one.
    selected = {item.callspec.params.get("server") for item in request.session.items if hasattr(item, "callspec")}
    kinds = [kind for kind in AVAILABLE if kind in selected] or AVAILABLE
    out = tmp_path_factory.mktemp("real-servers") / "bench.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_real_servers.py"), "--orders", "lifo-c16"]
    command += ["--servers", *kinds, "--json", str(out)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert out.exists(), f"benchmark wrote no summary:\n{completed.stdout}\n{completed.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(out.read_text())
    result["output"] = completed.stdout
    return result


@pytest.mark.parametrize(
    "server",
    [
        pytest.param(
            kind,
            marks=pytest.mark.skipif(
                kind not in AVAILABLE, reason=f"missing {servers.missing([kind])}: run benchmarks/real_servers/setup.sh"
            ),
        )
        for kind in servers.FAMILIES
    ],
)
def test_no_document_lost_vs_stock(bench: dict[str, Any], server: str) -> None:
    rows = {row["mode"]: row["summary"] for row in bench["rows"] if row["server"] == server}
    assert set(rows) == {"stock", "addon", "addon-nolearn"}, bench["output"]
    stock = rows["stock"]
    assert stock["finish_reason"] == "finished"
    assert stock["documents"] > 100, "stock Scrapy should collect the documentation trees"
    for mode in ("addon", "addon-nolearn"):
        summary = rows[mode]
        assert summary["finish_reason"] == "finished", (mode, bench["output"])
        assert summary["lost"] == 0, (mode, summary["lost_urls"])
        assert summary["documents"] >= stock["documents"], (mode, bench["output"])
