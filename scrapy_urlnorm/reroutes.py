"""Drops a redirect chain leaves behind: spellings the server never answered.

A static step merges ``/x/`` with ``/x/;jsessionid=A``; when ``/x/;jsessionid=A``
(the representative) redirects to ``/x``, in another directory, ``/x/`` was never
answered by the server. The server may serve that path where it is, and the
page read there has other links where they are relative to its directory
(seed 96092 lost a page that way). Such drops are released, to be fetched as
written. A spelling that only adds a query or a port has a path the server
answered, and follows it; a learned drop rests on a rule the host taught.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .ledger import Drop


def directory_of(path: str) -> str:
    """What a reference relative to the page at ``path`` resolves against."""
    return path[: path.rfind("/") + 1]


def rerouted(drops: Iterable[Drop], chain: list[str], target: str) -> list[Drop]:
    """The static drops, among ``drops`` against a representative that redirected
    through the URLs of ``chain`` to ``target``, whose path no URL of the chain had
    and whose directory is not ``target``'s."""
    answered = {urlsplit(url).path for url in chain}
    directory = directory_of(urlsplit(target).path)
    found = []
    for drop in drops:
        if drop.settled or drop.learned:
            continue
        path = urlsplit(drop.url).path
        if path not in answered and directory_of(path) != directory:
            found.append(drop)
    return found
