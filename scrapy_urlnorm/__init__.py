"""scrapy-urlnorm: policy-driven URL normalization and de-duplication for Scrapy."""

from __future__ import annotations

from .errors import InvalidURL, UnsupportedScheme
from .normalize import ExplainedStep, explain_url, normalize_url
from .policy import Policy

__all__ = ["ExplainedStep", "InvalidURL", "Policy", "UnsupportedScheme", "explain_url", "normalize_url"]
__version__ = "0.1.0"
