"""NumPy is an optional speed-up: without it every output is the same.

A subprocess blocks ``import numpy`` and normalizes URLs (long hostile ones,
which take the array path when NumPy is there, included), fills a seen table
and loads a seen file; the answers must equal this process's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scrapy_urlnorm import InvalidURL, Policy, normalize_url
from scrapy_urlnorm.seen import FingerprintSet, SeenFile

URLS = [
    "HTTP://Example.COM:80/a/../b?utm_source=x&b=2&a=1#top",
    "http://h/" + "%7e%41%2f%zz\u00e9 " * 800,
    "http://h/p?" + "q=%c3%a9&" * 1000,
    "http://h/" + "A%2f" * 1500,
]

CHILD = """
import json, sys
sys.modules["numpy"] = None  # import numpy now raises ImportError
from scrapy_urlnorm import InvalidURL, Policy, bulk_escapes, normalize_url
from scrapy_urlnorm.seen import FingerprintSet, SeenFile
assert not bulk_escapes.AVAILABLE
urls, path = json.loads(sys.stdin.read())
out = []
for name in ("safe", "default", "aggressive"):
    for url in urls:
        try:
            out.append(normalize_url(url, Policy.preset(name)))
        except InvalidURL:
            out.append(None)
table = FingerprintSet()
assert table.use_numpy is False
loaded = SeenFile(path).load_into(table)
print(json.dumps({"urls": out, "loaded": loaded, "ranks": [table.get(v * 2**40) for v in range(1, 3001, 7)]}))
"""


def test_same_answers_without_numpy(tmp_path: Path) -> None:
    path = tmp_path / "urlnorm.seen"
    writer = SeenFile(path)
    writer.open()
    for value in range(1, 3001):
        writer.append(value * 2**40, value % 5)
    writer.close()
    child = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=json.dumps([URLS, str(path)]),
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(child.stdout)
    expected = []
    for name in ("safe", "default", "aggressive"):
        for url in URLS:
            try:
                expected.append(normalize_url(url, Policy.preset(name)))
            except InvalidURL:
                expected.append(None)
    assert got["urls"] == expected
    table = FingerprintSet()
    assert got["loaded"] == SeenFile(path).load_into(table) == 3000
    assert got["ranks"] == [table.get(v * 2**40) for v in range(1, 3001, 7)]
