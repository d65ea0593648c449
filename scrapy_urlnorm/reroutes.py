"""Drops a redirect chain leaves behind: spellings the server never answered.

A static step merges ``/x/`` with ``/x/;jsessionid=A``; when ``/x/;jsessionid=A``
(the representative) redirects to ``/x``, in another directory, ``/x/`` was never
answered by the server. The server may serve that path where it is, and the
page read there has other links where they are relative to its directory
(seed 96092 lost a page that way). Such drops are released, to be fetched as
written. A spelling that only adds a query or a port has a path the server
answered, and follows it; so does one whose path differs from an answered one
only in a path parameter's value (``/x/;jsessionid=B``: a servlet container
routes it as it routed ``A``); a learned drop rests on a rule the host taught.

A URL is released this way once: fetched as written, it is what stock Scrapy
fetches, and a later copy of it is an exact duplicate, dropped as stock drops
it (without this, each of five representatives ``/x/;jsessionid=...`` released
its own copy of ``/x/``, and each was fetched).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .ledger import Drop

#: URLs remembered as released (beyond: a copy is released again, fetched twice).
MAX_RELEASED = 100_000

_PARAM_VALUE = re.compile(r";([^/;=]*)=[^/;]*")


def directory_of(path: str) -> str:
    """What a reference relative to the page at ``path`` resolves against."""
    return path[: path.rfind("/") + 1]


def routed(path: str) -> str:
    """``path`` as a server routes it whatever its path parameters' values."""
    return _PARAM_VALUE.sub(r";\1=", path) if ";" in path else path


class Reroutes:
    """Which drops a redirect chain leaves behind, each URL once."""

    def __init__(self) -> None:
        self._released: set[int] = set()  # hash() of each URL released, without its fragment

    def left_behind(self, drops: Iterable[Drop], chain: list[str], target: str) -> tuple[list[Drop], list[Drop]]:
        """(to release, copies of URLs released already) among the static drops against
        a representative that redirected through the URLs of ``chain`` to ``target``:
        those whose path no URL of the chain had, routed, outside ``target``'s directory."""
        answered = {routed(urlsplit(url).path) for url in chain}
        directory = directory_of(urlsplit(target).path)
        release: list[Drop] = []
        copies: list[Drop] = []
        for drop in drops:
            if drop.settled or drop.learned:
                continue
            path = urlsplit(drop.url).path
            if routed(path) in answered or directory_of(path) == directory:
                continue
            written = hash(drop.url.partition("#")[0])
            if written in self._released:
                copies.append(drop)
                continue
            if len(self._released) < MAX_RELEASED:
                self._released.add(written)
            release.append(drop)
        return release, copies
