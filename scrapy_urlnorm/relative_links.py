"""Whether a page has links relative to its directory: what makes ``/x`` and ``/x/`` two pages to a crawler.

``<a href="b.html">`` read at ``/x`` leads to ``/b.html``; the same body read at
``/x/`` leads to ``/x/b.html``. Root-relative (``/b``), absolute, protocol-relative,
query-only (``?p=2``), fragment-only and empty references resolve the same from both.
"""

from __future__ import annotations

import re

# On the lowercased body: a literal first word lets the regex engine skip ahead to it.
_REFERENCE_TAIL = r"""\s*=\s*["']?\s*(?![a-z][a-z0-9+.\-]*:|/|#|\?|["'>\s])"""
_PATTERNS = [
    re.compile(("href" + _REFERENCE_TAIL).encode()),
    re.compile(("src" + _REFERENCE_TAIL).encode()),
    # <meta http-equiv="refresh" content="0; url=next.html">, which Scrapy follows
    re.compile(("url" + _REFERENCE_TAIL).encode()),
]


def has_relative_links(body: bytes) -> bool:
    """Whether ``body`` (HTML) has an ``href``, ``src`` or refresh ``url`` relative to
    the page's directory. Errs towards yes (any attribute ending in ``href``, a
    ``<base>`` ignored): a yes costs a duplicate download at most, a wrong no a page."""
    low = body.lower()
    return any(pattern.search(low) is not None for pattern in _PATTERNS)
