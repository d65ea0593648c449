"""scrapy-urlnorm: policy-driven URL normalization and de-duplication for Scrapy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import InvalidURL, UnsupportedScheme
from .normalize import ExplainedStep, explain_url, normalize_url
from .policy import Policy

if TYPE_CHECKING:
    from .addon import Addon
    from .dupefilter import UrlNormDupeFilter
    from .fingerprinter import UrlNormFingerprinter
    from .frontier import CrashSafeScheduler
    from .middlewares import NormalizeMiddleware, RedirectLearningMiddleware

__all__ = [
    "Addon",
    "CrashSafeScheduler",
    "ExplainedStep",
    "InvalidURL",
    "NormalizeMiddleware",
    "Policy",
    "RedirectLearningMiddleware",
    "UnsupportedScheme",
    "UrlNormDupeFilter",
    "UrlNormFingerprinter",
    "explain_url",
    "normalize_url",
]
__version__ = "0.1.0"

# The Scrapy components import Scrapy; load them on first use so that
# `normalize_url` and the command line start fast.
_LAZY = {
    "Addon": ".addon",
    "CrashSafeScheduler": ".frontier",
    "UrlNormDupeFilter": ".dupefilter",
    "UrlNormFingerprinter": ".fingerprinter",
    "NormalizeMiddleware": ".middlewares",
    "RedirectLearningMiddleware": ".middlewares",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_urlnorm' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
