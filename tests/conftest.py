"""Shared fixtures: the example project's VirtualWeb is importable from the tests."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "example_project"))
