"""The de-duplication engine shared by the dupe filter and the middlewares.

One :class:`Deduplicator` per crawler (``Deduplicator.for_crawler``) holds what
the Scrapy components have in common: the policy, the seen set, its
``JOBDIR`` file, and the counters. :class:`~scrapy_urlnorm.UrlNormDupeFilter`
and :class:`~scrapy_urlnorm.NormalizeMiddleware` only adapt Scrapy's
interfaces onto it.

A request's fingerprint is a 64-bit (or, with ``URLNORM_FINGERPRINT_BITS =
128``, 128-bit) xxh3 hash of its method, its policy-normalized URL and its
body. With 64 bits, the chance that two different requests of a crawl share a
fingerprint is about n²/2⁶⁵: one in 37 million at a million URLs, one in 370
thousand at ten million. Each collision loses one request, so crawls of
billions of URLs should use 128 bits.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import xxhash
from scrapy import signals
from scrapy.utils.job import job_dir
from scrapy.utils.request import referer_str

from .errors import InvalidURL, UnsupportedScheme
from .normalize import host_key, normalize_with_rank
from .policy import Policy
from .seen import FingerprintSet, SeenFile
from .steps import REASONS
from .urlparts import split_url

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

SEEN_FILE = "urlnorm.seen"


class Fingerprint(NamedTuple):
    """A request's fingerprint, the rank of the riskiest step that changed its
    URL, and the normalized URL (``None`` when Scrapy's own fingerprint had to
    stand in: another scheme, or a URL we could not parse)."""

    value: int
    rank: int
    url: str | None


class Deduplicator:
    """Fingerprints requests and remembers which were seen, and why duplicates were."""

    def __init__(
        self,
        policy: Policy,
        *,
        bits: int = 64,
        path: str | Path | None = None,
        debug: bool = False,
        stats: StatsCollector | None = None,
        fallback: Callable[[Request], bytes] | None = None,
        cache_size: int = 4096,
    ) -> None:
        self.policy = policy
        self.bits = bits
        self.debug = debug
        self.stats = stats
        self._fallback = fallback
        self._hash = xxhash.xxh3_128_intdigest if bits == 128 else xxhash.xxh3_64_intdigest
        self.seen = FingerprintSet(bits)
        # Links such as navigation menus repeat on every page: remember the
        # normalization of the most recent URLs (cleared when full).
        self._cache: dict[str, tuple[str | None, int]] = {}
        self._cache_size = cache_size
        self._first_urls: dict[int, str] = {}  # fingerprint -> first URL, only with debug
        self._invalid_hosts: set[str] = set()
        self.file = SeenFile(path, bits) if path else None
        if self.file is not None:
            loaded = self.file.load_into(self.seen)
            if loaded:
                logger.info("Resumed %d seen fingerprint(s) from %s", loaded, self.file.path)
            self.file.open()

    # -- construction from a crawler ---------------------------------------------

    _by_crawler: ClassVar[weakref.WeakKeyDictionary[Crawler, Deduplicator]] = weakref.WeakKeyDictionary()

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> Deduplicator:
        """The crawler's one deduplicator, built from its settings on first use."""
        existing = cls._by_crawler.get(crawler)
        if existing is not None:
            return existing
        settings = crawler.settings
        bits = settings.getint("URLNORM_FINGERPRINT_BITS", 64)
        if bits not in (64, 128):
            raise ValueError(f"URLNORM_FINGERPRINT_BITS must be 64 or 128, not {bits}")
        jobdir = job_dir(settings)
        dedup = cls(
            Policy.from_settings(settings),
            bits=bits,
            path=Path(jobdir, SEEN_FILE) if jobdir else None,
            debug=settings.getbool("URLNORM_DEBUG"),
            stats=crawler.stats,
            fallback=crawler.request_fingerprinter.fingerprint,
            cache_size=settings.getint("URLNORM_CACHE_SIZE", 4096),
        )
        cls._by_crawler[crawler] = dedup
        crawler.signals.connect(dedup.close, signal=signals.spider_closed)
        return dedup

    # -- fingerprints ---------------------------------------------------------------

    def normalize(self, url: str) -> tuple[str | None, int]:
        """(normalized URL or ``None`` if we cannot normalize it, rank)."""
        cached = self._cache.get(url)
        if cached is not None:
            return cached
        try:
            result: tuple[str | None, int] = normalize_with_rank(url, self.policy)
        except UnsupportedScheme:
            result = (None, 0)
        except InvalidURL as exc:
            self._invalid(url, exc)
            return None, 0
        except Exception as exc:  # a bug of ours must cost a fallback, never the crawl
            logger.exception("scrapy-urlnorm failed on %r; using Scrapy's fingerprint for it", url)
            self._invalid(url, exc)
            return None, 0
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        if self._cache_size:
            self._cache[url] = result
        return result

    def _invalid(self, url: str, exc: Exception) -> None:
        if self.stats is not None:
            self.stats.inc_value("urlnorm/invalid_urls")
        try:
            host = host_key(split_url(url).host)
        except (InvalidURL, ValueError):
            host = "?"
        if host not in self._invalid_hosts:
            if len(self._invalid_hosts) < 10_000:
                self._invalid_hosts.add(host)
            logger.warning(
                "Cannot normalize %r (%s); de-duplicating it with Scrapy's own fingerprint "
                "(further invalid URLs of host %r are only counted in urlnorm/invalid_urls)",
                url,
                exc,
                host,
            )

    def fingerprint(self, request: Request) -> Fingerprint:
        normalized, rank = self.normalize(request.url)
        if normalized is None:
            fallback = self._fallback(request) if self._fallback else request.url.encode("utf-8", "surrogatepass")
            return Fingerprint(self._hash(b"scrapy\0" + fallback), 0, None)
        data = b"%s\0%s\0%s" % (
            request.method.encode("ascii", "replace"),
            normalized.encode("utf-8", "surrogatepass"),
            request.body,
        )
        return Fingerprint(self._hash(data), rank, normalized)

    # -- the seen set -----------------------------------------------------------------

    def check(self, request: Request) -> str | None:
        """Add ``request`` to the seen set; ``None`` if new, else the reason it is a duplicate."""
        fingerprint = self.fingerprint(request)
        stats = self.stats
        if stats is not None:
            stats.inc_value("urlnorm/requests_seen")
        stored_rank = self.seen.add(fingerprint.value, fingerprint.rank)
        if stored_rank is None:
            self._stored(fingerprint, request)
            return None
        if self._redirected_to_itself(request, fingerprint):
            if stats is not None:
                stats.inc_value("urlnorm/redirects_passed")
            return None
        reason = REASONS.get(max(fingerprint.rank, stored_rank), "exact")
        if stats is not None:
            stats.inc_value("urlnorm/filtered")
            stats.inc_value(f"urlnorm/filtered/{reason}")
        if self.debug:
            logger.debug(
                "Filtered duplicate %s (reason: %s; same as %s; normalized: %s; referer: %s)",
                request,
                reason,
                self._first_urls.get(fingerprint.value, "?"),
                fingerprint.url,
                referer_str(request),
            )
        return reason

    def record(self, request: Request) -> None:
        """Mark a request Scrapy never shows the filter (``dont_filter``) as seen."""
        fingerprint = self.fingerprint(request)
        if self.seen.add(fingerprint.value, fingerprint.rank) is None:
            self._stored(fingerprint, request)
            if self.stats is not None:
                self.stats.inc_value("urlnorm/recorded_unfiltered")

    def _stored(self, fingerprint: Fingerprint, request: Request) -> None:
        if self.file is not None:
            self.file.append(fingerprint.value, fingerprint.rank)
        if self.debug:
            self._first_urls[fingerprint.value] = request.url

    def _redirected_to_itself(self, request: Request, fingerprint: Fingerprint) -> bool:
        """A redirect whose target normalizes like a URL of its own chain
        (``/pubs`` -> 301 -> ``/pubs/``) must be fetched: the server just told
        us the first form is not the page (Scrapy issue #1225)."""
        chain: list[str] | None = request.meta.get("redirect_urls")
        if not chain or fingerprint.url is None:
            return False
        return any(self.normalize(url)[0] == fingerprint.url for url in chain)

    def count(self, key: str, count: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(key, count)

    # -- lifecycle ----------------------------------------------------------------------

    def close(self, *args: Any, **kwargs: Any) -> None:
        if self.stats is not None:
            self.stats.set_value("urlnorm/unique_fingerprints", len(self.seen))
        if self.file is not None:
            self.file.close()

    def clear(self) -> None:
        """Forget every fingerprint (scrapy-redis calls this to reset a crawl)."""
        self.seen.clear()
        self._cache.clear()
        self._first_urls.clear()
        if self.file is not None:
            self.file.close()
            self.file.path.unlink(missing_ok=True)
            self.file.open()
