"""Two spellings of a page requested for different callbacks are not one request.

Stock Scrapy's fingerprint ignores the callback, so an exact copy of a request
is dropped whatever its callback, and the add-on drops it too. But stock fetches
each *spelling* of a page, each with its own callback: ``/product/1?utm_source=menu``
for ``parse`` (a navigation link) and ``/product/1`` for ``parse_product`` (a
listing's link). Dropping the second against the first (``tracking_params``)
would run ``parse`` on the page and never ``parse_product``: its item is lost.

So a drop that is more than stock's (rank above 0: a static step stock does not
take, or a learned rule) is made only against a key some request of the same
callback claimed. A callback is told by its name; ``parse`` (and ``None``, which
means ``parse``) is the default, and so are ``CrawlSpider``'s own ``_parse`` and
``_callback`` (its rules are not told apart). Keys claimed by the default callback
only are not stored: a crawl with one callback pays nothing, and a crawl with
several pays one entry per key a non-default callback claimed (no cap, as the
seen set; ``urlnorm/memory/callback_keys``).

Not told apart: ``cb_kwargs``, ``meta`` and ``CrawlSpider`` rules. In a
distributed crawl and across a ``JOBDIR`` resume, a key claimed elsewhere (or
before) counts as claimed by the default callback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http.request import NO_CALLBACK

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy import Request

#: Callback names that mean "the spider's default" (``CrawlSpider`` routes every request through its own two).
DEFAULT_CALLBACKS = frozenset({"parse", "_parse", "_callback"})
#: Bit of the default callback in a key's mask.
DEFAULT = 1
#: Distinct non-default callbacks given a bit; beyond, a callback matches no other claim (fetch).
MAX_CALLBACKS = 62


def callback_name(request: Request) -> str | None:
    """The name of ``request``'s callback; ``None`` for the default."""
    callback = request.callback
    if callback is None or callback is NO_CALLBACK:
        return None
    name = getattr(callback, "__name__", None) or type(callback).__qualname__
    return None if name in DEFAULT_CALLBACKS else name


class CallbackClaims:
    """Which callbacks claimed each key, kept for keys a non-default callback claimed."""

    def __init__(self) -> None:
        self._bits: dict[str, int] = {}
        self._by_key: dict[int, int] = {}

    def bit(self, request: Request) -> int:
        """``request``'s callback as a bit (0: one too many to tell apart)."""
        name = callback_name(request)
        if name is None:
            return DEFAULT
        bit = self._bits.get(name)
        if bit is None:
            if len(self._bits) >= MAX_CALLBACKS:
                return 0
            bit = self._bits[name] = 2 << len(self._bits)
        return bit

    def claimed(self, request: Request, keys: Iterable[tuple[int, bool]]) -> None:
        """``request`` claimed ``keys`` (each with whether it was new to the seen set)."""
        bit = self.bit(request)
        by_key = self._by_key
        if bit == DEFAULT and not by_key:
            return  # (only the default callback so far: nothing to keep)
        for key, new in keys:
            mask = by_key.get(key)
            if mask is not None:
                by_key[key] = mask | bit
            elif bit != DEFAULT:
                by_key[key] = bit if new else bit | DEFAULT  # a key not kept was the default's

    def same(self, key: int, request: Request) -> bool:
        """Whether a request of ``request``'s callback claimed ``key``."""
        by_key = self._by_key
        if not by_key and request.callback is None:
            return True  # (the usual case, first and cheap)
        return bool(by_key.get(key, DEFAULT) & self.bit(request))

    def alias(self, key: int, new_key: int) -> None:
        """``new_key`` now stands for ``key``'s page too (re-keyed under new rules)."""
        mask = self._by_key.get(key)
        if mask is not None:
            self._by_key[new_key] = self._by_key.get(new_key, 0) | mask  # (unsure of the rest: fetch)

    def __len__(self) -> int:
        return len(self._by_key)
