"""One round trip per page: claim every request a response yields at once.

:class:`RedisBatchMiddleware` is a spider middleware near the engine (after
offsite, depth and the others have filtered the callback's output): it
collects what a callback yields, computes each request's keys and claims all
of them in Redis with one atomic script call
(:meth:`~scrapy_urlnorm.stores.RedisStore.prefetch`); the dupe filter then
answers each request from that batch without a round trip.

It is also the downloader middleware that acknowledges a
:class:`~scrapy_urlnorm.redis_queue.ReliableQueue` lease when a request is
done: after its callback's output went to the scheduler, when the callback
raised, or when the download failed and no middleware retried it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar
from weakref import WeakKeyDictionary

from scrapy import Request, signals
from scrapy.exceptions import NotConfigured

from .dedup import Deduplicator
from .depths import depth_of
from .redis_link import with_depth
from .redis_setup import LEASE, PARENT, RECLAIMED, RECLAIMED_CHAIN
from .stores import RedisStore

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: URLs a worker remembers sending unfiltered as links of reclaimed pages (beyond it,
#: each such link is sent unfiltered again).
MAX_REFETCHED = 100_000


def request_keys(dedup: Deduplicator, output: Iterable[Any]) -> tuple[list[tuple[int, int]], list[int]]:
    """What the filter will look up for each request of ``output``: its exact key
    (with its rank), claimed; its learned keys, only read (the filter claims
    those itself if it keeps the request)."""
    claims: list[tuple[int, int]] = []
    reads: list[int] = []
    depths = dedup.depths is not None  # (DEPTH_LIMIT: the claim says how deep, see depths.py)
    for entry in output:
        if not isinstance(entry, Request) or entry.dont_filter:
            continue
        try:
            fingerprint = dedup.fingerprint(entry)
        except Exception:  # the filter itself reports what it cannot key
            continue
        rank = with_depth(fingerprint.rank, depth_of(entry)) if depths else fingerprint.rank
        claims.append((fingerprint.value, rank))
        if fingerprint.learned is not None:
            reads.append(fingerprint.learned)
            if fingerprint.learned_url is not None and fingerprint.learned_url != fingerprint.url:
                reads.append(dedup.keys.hash(entry, fingerprint.learned_url))
    return claims, reads


def own_key(dedup: Deduplicator, request: Request) -> tuple[int, int] | None:
    """``request``'s exact key and rank, or None where the filter cannot key it (the
    filter itself reports that)."""
    try:
        fingerprint = dedup.fingerprint(request)
    except Exception:
        return None
    return fingerprint.value, fingerprint.rank


def unfilter_reclaimed(dedup: Deduplicator, store: RedisStore, request: Request) -> None:
    """``request`` may have been claimed by a worker that died without queueing it: a
    link of a page reclaimed from it, or where a reclaimed request redirected
    (``bench_differential.py --redis 2 --kills 1 --refresh``, seed 148669: dropped
    against the dead worker's claim, the target was lost). It goes unfiltered
    (at-least-once: some are fetched twice). Not a request whose key this worker holds
    (queued or delivered here: the filter knows what became of it), nor a URL sent
    unfiltered this way already: the dead worker's pages link the same URLs, and each
    copy was fetched (``--redis 2 --kills 1``, seed 146602: 886 requests where stock
    made 201, one URL 25 times)."""
    key = own_key(dedup, request)
    if key is not None and store.represented_here(key[0]):
        return
    try:
        stock = dedup.settling.sent.fingerprint(request)  # the crawler's own: stock's idea of one URL
    except Exception:  # not for us to judge: unfiltered, as before
        request.dont_filter = True
        return
    refetched = store.refetched
    if stock in refetched:
        return
    if len(refetched) < MAX_REFETCHED:
        refetched.add(stock)
    request.dont_filter = True


class RedisBatchMiddleware:
    """Claims a page's requests in one round trip; acknowledges queue leases.

    Installed as a spider and a downloader middleware, it is one object per crawler
    (:meth:`from_crawler`): two would each count an item out of its page's lease. An
    item then settled the lease twice, and a page with one item and a link dropped
    against a pending page (which holds the lease) was acknowledged with the drop
    still waiting: killed then, nobody fetched that page again, and the drop was lost
    with the worker (``--redis 2 --kills 1``, coincidence seed 2921, 1 run in 10 to 40).
    """

    _by_crawler: ClassVar[WeakKeyDictionary[Crawler, RedisBatchMiddleware]] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.dedup = Deduplicator.for_crawler(crawler)
        if not isinstance(self.dedup.seen, RedisStore):
            raise NotConfigured("no Redis store")
        self.store: RedisStore = self.dedup.seen
        self.dedup.request_ended.append(self._done)
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(self._item_settled, signal=signal)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisBatchMiddleware:
        """The crawler's one batch middleware, whichever manager asks first."""
        existing = cls._by_crawler.get(crawler)
        if existing is None:
            existing = cls._by_crawler[crawler] = cls(crawler)
        return existing

    # -- one round trip per page --------------------------------------------------------

    def _reclaimed(self, response: Response, output: list[Any]) -> None:
        """A page reclaimed from a worker that died, or reached by a redirect of such a
        request: that worker may have claimed its links without queueing them, so they
        are queued unfiltered (see :func:`unfilter_reclaimed`)."""
        request = response.request
        if request is None or not (request.meta.get(RECLAIMED) or request.meta.get(RECLAIMED_CHAIN)):
            return
        for entry in output:
            if isinstance(entry, Request) and not entry.dont_filter:
                unfilter_reclaimed(self.dedup, self.store, entry)

    def _prefetch(self, output: list[Any]) -> None:
        claims, reads = request_keys(self.dedup, output)
        if claims:
            self.store.prefetch(claims, reads)

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Spider | None = None
    ) -> Iterator[Any]:
        output = list(result)
        self._reclaimed(response, output)
        self._prefetch(output)
        self._expect(response, output)
        yield from output

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        output = [entry async for entry in result]
        self._reclaimed(response, output)
        self._prefetch(output)
        self._expect(response, output)
        for entry in output:
            yield entry

    def process_spider_exception(self, response: Response, exception: Exception, spider: Spider | None = None) -> None:
        self._done(response.request)

    # -- leases ---------------------------------------------------------------------------
    #
    # Scrapy hands a callback's output to up to CONCURRENT_ITEMS tasks: the
    # output is all taken before it is all processed. So the lease waits for
    # each request to reach RedisScheduler (queued, spilled or filtered) and
    # each item to leave the pipelines.

    def _queue(self) -> Any:
        slot = getattr(self.crawler.engine, "_slot", None)
        queue = getattr(getattr(slot, "scheduler", None), "queue", None)
        return queue if hasattr(queue, "expect") else None

    def _expect(self, response: Response, output: list[Any]) -> None:
        request = response.request
        lease = request.meta.get(LEASE) if request is not None else None
        queue = self._queue()
        if lease is None or queue is None:
            return
        count = 0
        for entry in output:
            if isinstance(entry, Request):
                entry.meta[PARENT] = lease
                count += 1
            elif entry is not None:
                count += 1
        queue.expect(lease, count)

    def _item_settled(self, item: Any = None, response: Response | None = None, **kwargs: Any) -> None:
        request = getattr(response, "request", None)
        queue = self._queue()
        if request is not None and queue is not None:
            queue.settled(request.meta.get(LEASE))

    def _done(self, request: Request | None) -> None:
        lease = request.meta.get(LEASE) if request is not None else None
        queue = self._queue()
        if lease is not None and queue is not None:
            queue.ack(lease)

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        """A start request is checked at download time (it skips the scheduler's
        filter): its own key is claimed first, atomically, so when two workers
        send the same start URL at once one of them reads it as a duplicate."""
        if request.dont_filter and request.meta.get("is_start_request"):
            key = own_key(self.dedup, request)
            if key is not None:
                self.store.prefetch([key])

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        """A download error no other middleware turned into a retry: the request is done.
        A start request dropped at download time gives back the claim it took."""
        if request.dont_filter and request.meta.get("is_start_request"):
            key = own_key(self.dedup, request)
            if key is not None:
                self.store.release(key[0])  # nothing once the filter kept it (add() confirmed it)
        self._done(request)
