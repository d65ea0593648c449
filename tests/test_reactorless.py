"""Reactor-less mode (``TWISTED_REACTOR_ENABLED = False``, Scrapy 2.14+), with and without ``JOBDIR``.

Each crawl runs in a process of its own (``reactorless_crawl.py``): pytest's
process has a Twisted reactor installed, and Scrapy refuses reactor-less mode
there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import scrapy
from demoweb.web import DOCUMENTS
from scrapy.settings import default_settings

from scrapy_urlnorm.frontier import _CLEAN, _DONE, _ENQ, JOURNAL_FILE, FrontierJournal

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(
    not hasattr(default_settings, "TWISTED_REACTOR_ENABLED"),
    reason=f"Scrapy {scrapy.__version__} has no reactor-less mode (TWISTED_REACTOR_ENABLED: Scrapy 2.14+)",
)


def reactorless_crawl(settings: dict[str, Any]) -> tuple[dict[str, Any], str]:
    # The checkout's own package (an editable install may point at another checkout).
    paths = [str(HERE), str(HERE.parent / "example_project"), str(HERE.parent)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    result = subprocess.run(
        [sys.executable, str(HERE / "reactorless_crawl.py"), json.dumps(settings)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1]), result.stderr


def check_crawl(outcome: dict[str, Any], log: str) -> None:
    assert outcome["reactor_installed"] is False
    assert "Traceback" not in log and "ImportError" not in log, log[-3000:]
    stats = outcome["stats"]
    assert stats["finish_reason"] == "finished"
    assert "log_count/ERROR" not in stats
    # Every document of the demo web, and the filter did its work.
    assert len(set(outcome["doc_ids"])) == sum(DOCUMENTS.values())
    assert stats["urlnorm/filtered"] > 0 and stats["urlnorm/unsettled_at_close"] == 0


def test_without_jobdir() -> None:
    check_crawl(*reactorless_crawl({}))


def test_with_jobdir_every_request_is_journaled_done(tmp_path: Path) -> None:
    """Reproduces: with ``JOBDIR``, every callback logged an ImportError (the frontier
    imported the Twisted reactor) and no DONE record was written."""
    job = tmp_path / "job"
    check_crawl(*reactorless_crawl({"JOBDIR": str(job)}))
    records = list(FrontierJournal(job / JOURNAL_FILE)._records())
    enqueued = {request_id for kind, request_id, _, _ in records if kind == _ENQ}
    done = {request_id for kind, request_id, _, _ in records if kind == _DONE}
    assert enqueued and enqueued <= done
    assert records[-1][0] == _CLEAN
