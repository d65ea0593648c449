"""A host's ``304 Not Modified`` is evidence only once the host refused a tag it never gave.

Conditional audits and twin probes take a ``304`` to the representative's entity
tag as "the same page". A server that compares the tag honours that; a naive
cache layer that answers ``304`` to any ``If-None-Match`` (some hand-written
ones check only that the header is there) would have every drop confirmed, and
pages lost (differential, seeds 46000-46063 with such hosts: one crawl).

So before a host's tags are used, it is asked once, with a conditional ``GET`` for a
page it delivered and ``If-None-Match`` naming a tag no server issues: a ``200``
shows it compares tags (its tags may then be used, as before); a ``304`` shows it
does not (its tags are never used: ``urlnorm/etags_distrusted``); any other answer,
or none, leaves its tags unused. A ``GET``, as the audits and twin probes it vouches
for are: a cache in front of a server may compare tags for ``HEAD`` and answer every
conditional ``GET`` with ``304`` (a ``HEAD`` canary was answered ``200`` by such a
host, and a conditional audit of ``/app/export`` against ``/app/Export``'s tag was
"confirmed": coincidence seed 527 lost the page). An honest answer downloads that page
again, counted as the download it is. One request per host with tags, never retried,
never followed, never shown to the spider. In a distributed crawl each worker asks
on its own, and a canary another worker pops tells that worker: a host whose
answer never reaches a worker keeps its tags unused there (more downloads, no loss).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy import Request

from . import meta as M

if TYPE_CHECKING:
    from collections.abc import Callable

logger = logging.getLogger(__name__)

#: The tag a canary names: no server issues it.
CANARY_TAG = '"urlnorm-canary-0"'
#: Hosts remembered as asked (beyond: no more canaries, so no tags used on new hosts).
HOSTS_ASKED = 10_000


class TagCanary:
    """Per host: whether its ``304`` answers compare the tag (asked once, by ``send``)."""

    def __init__(self, send: Callable[[Request], None], count: Callable[[str], None]) -> None:
        self._send = send
        self._count = count
        self._asked: set[str] = set()
        self._honest: set[str] = set()

    def ask(self, host: str, url: str) -> None:
        """``host``'s tags are about to count as evidence: ask it once, about ``url``."""
        if host in self._asked or len(self._asked) >= HOSTS_ASKED:
            return
        self._asked.add(host)
        self._count("urlnorm/etag_canaries")
        self._send(
            Request(
                url,
                headers={"If-None-Match": CANARY_TAG},
                dont_filter=True,
                priority=1000,  # before the audits that wait for its answer
                meta={M.CANARY: host, "dont_redirect": True, "dont_retry": True},
            )
        )

    def answered(self, host: str, status: int) -> bool:
        """The canary of ``host`` was answered ``status``; False if the host lies (a ``304``)."""
        if status == 200:
            self._honest.add(host)
        elif status == 304:
            logger.warning("%s answers 304 Not Modified to an entity tag it never gave: its tags are not used", host)
            return False
        return True

    def honest(self, host: str) -> bool:
        return host in self._honest
