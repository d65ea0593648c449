"""Shared fixtures: the example project's VirtualWeb is importable from the tests."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "example_project"))

from hypothesis import HealthCheck, settings  # noqa: E402

# No wall-clock limits in the suite: Hypothesis' per-example deadline and its
# "too slow" health check are timings, and the CI machines are shared and noisy
# (a 262 ms example on Python 3.10 failed a run once). Tests that need fewer or
# more examples still set their own ``@settings``.
settings.register_profile("urlnorm", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("urlnorm")
