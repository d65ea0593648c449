"""Shared fixtures: the example project's VirtualWeb is importable from the tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "example_project"))

from hypothesis import HealthCheck, settings  # noqa: E402

# No wall-clock limits in the suite: Hypothesis' per-example deadline and its
# "too slow" health check are timings, and the CI machines are shared and noisy
# (a 262 ms example on Python 3.10 failed a run once). Tests that need fewer or
# more examples still set their own ``@settings``.
settings.register_profile("urlnorm", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("urlnorm")


#: ``URLNORM_DIFFERENTIAL=quick`` (``make test``, ``make test-min``) leaves out the crawls
#: marked ``full_sweep``: the differential seeds and regression orders beyond a sample
#: that covers every crawl order and condition, and the generators' battery beyond a few
#: seeds. Unset (``make test-newest``, which CI runs on every change), everything runs.
QUICK = os.environ.get("URLNORM_DIFFERENTIAL") == "quick"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not QUICK:
        return
    left_out = [item for item in items if item.get_closest_marker("full_sweep") is not None]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        ids = set(map(id, left_out))
        items[:] = [item for item in items if id(item) not in ids]
