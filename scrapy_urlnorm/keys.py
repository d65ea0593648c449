"""Request keys: a request's fingerprints under the static and the learned policy.

A request's key is a 64-bit (or, with ``URLNORM_FINGERPRINT_BITS = 128``,
128-bit) xxh3 hash of its method, its policy-normalized URL and its body. With
64 bits, the chance that two different requests of a crawl share a key is
about n²/2⁶⁵: one in 37 million at a million URLs, one in 370 thousand at ten
million. Each collision loses one request, so crawls of billions of URLs
should use 128 bits.

When the crawler's ``REQUEST_FINGERPRINTER_CLASS`` is not Scrapy's default
(it may keep requests apart by a header or a meta key, as scrapy-zyte-api's
does), the key is that fingerprinter's fingerprint of the request with its
URL normalized: requests it keeps apart stay apart.

A request with ``meta["verbatim_url"]`` (Scrapy 2.17+) is keyed by its URL as
written, fragment included, as Scrapy's own fingerprint does.

Every key of a request whose callback is not the spider's default is salted
with its callback (:func:`~scrapy_urlnorm.callbacks.callback_salt`): a page is
fetched once for each callback that asks for it.

Learned rules never touch the static key. A request on a host with learned
rules gets a second, *learned* key (its URL normalized by the host's learned
policy), hashed in the namespace of the host's rule set: when a rule is
revoked or narrowed, nothing stored under it matches again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import xxhash
from scrapy.utils.request import RequestFingerprinter

from .callbacks import callback_salt
from .errors import InvalidURL, UnsupportedScheme
from .normalize import HASHBANG_STARTS, host_key, normalize_with_rank
from .sections import ScopedPolicy
from .urlparts import split_url

if TYPE_CHECKING:
    from scrapy import Request

    from .campaigns import CampaignChecks
    from .policy import Policy

logger = logging.getLogger(__name__)

_new = tuple.__new__

#: Hosts whose invalid URLs were logged (the rest are only counted).
INVALID_HOSTS_LOGGED = 10_000


class Fingerprint(NamedTuple):
    """A request's keys.

    ``value``/``rank``/``url``: under the static policy (``url`` is ``None``
    when Scrapy's own fingerprint had to stand in). ``learned``/
    ``learned_rank``/``learned_url``: under the host's learned policy, when
    the host has learned rules.
    """

    value: int
    rank: int
    url: str | None
    learned: int | None = None
    learned_rank: int = 0
    learned_url: str | None = None
    #: The namespace of the host's learned rules when this was computed (-1: none).
    namespace: int = -1

    @property
    def keys(self) -> tuple[int, ...]:
        return (self.value,) if self.learned is None else (self.value, self.learned)


def host_of(normalized_url: str) -> str:
    """The host of a URL ``normalize_url`` produced (no parsing needed)."""
    start = normalized_url.find("//") + 2
    end = normalized_url.find("/", start)
    authority = normalized_url[start : end if end >= 0 else None].rpartition("@")[2]
    if authority.startswith("["):
        return authority[: authority.find("]") + 1]
    return authority.partition(":")[0]


def is_default_fingerprinter(fingerprinter: object) -> bool:
    """Whether keys may be computed on the fast path: Scrapy's default
    fingerprinter, or ours (both key a request by method, canonical URL, body)."""
    from .fingerprinter import UrlNormFingerprinter

    return type(fingerprinter) in (RequestFingerprinter, UrlNormFingerprinter)


class RequestKeys:
    """Normalizes request URLs (with a small cache) and hashes them into keys.

    ``fallback`` is the crawler's fingerprinter: it keys URLs we cannot
    normalize, and all requests when ``custom`` is true.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        bits: int = 64,
        fallback: Callable[[Request], bytes] | None = None,
        custom: bool = False,
        cache_size: int = 4096,
        count: Callable[[str, int], None] | None = None,
    ) -> None:
        self.policy = policy
        self._hash = xxhash.xxh3_128_intdigest if bits == 128 else xxhash.xxh3_64_intdigest
        self._fallback = fallback
        self._custom = custom and fallback is not None
        self._count = count
        # Links such as navigation menus repeat on every page: remember the
        # normalization of recent URLs in two generations: when the young one
        # is full it becomes the old one, and a URL found in the old one moves
        # back to the young, so links used on every page stay while the rest
        # ages out. Keyed by the URL's hash, not the URL, and a URL already
        # normal keeps only its rank: ~80 bytes an entry instead of ~250 (two
        # URLs of the window sharing a 64-bit hash is far less likely than a
        # fingerprint collision). Each generation grows with the crawl (32
        # entries, plus one per 512 URLs normalized) up to half of
        # ``cache_size``, so a small crawl keeps a small cache.
        self._cache: dict[int, int | tuple[str | None, int]] = {}
        self._old: dict[int, int | tuple[str | None, int]] = {}
        self._cache_size = cache_size
        self._misses = 0
        self._young_size = min(cache_size >> 1, 32)  # each generation's size now (see above)
        self._drop_fragment = not policy.keep_fragment and not policy.host_policies
        self.invalid_hosts: set[str] = set()
        #: Campaign parameters kept in keys (see :mod:`scrapy_urlnorm.campaigns`).
        self.campaigns: CampaignChecks | None = None

    def normalize(self, url: str) -> tuple[str | None, int]:
        """(URL normalized by the static policy, or ``None`` if we cannot, rank)."""
        hash_at = url.find("#")
        if (
            hash_at > 0
            and self._drop_fragment
            and url[hash_at - 1] > " "
            and url[hash_at + 1 : hash_at + 2] not in HASHBANG_STARTS
        ):
            # The fragment never changes the result (it is dropped, and the
            # head does not end in what split_url strips): one entry serves
            # every in-page anchor of a page. Not a hashbang ("#!"), kept by
            # some policies, nor one behind a tab or newline parsing drops.
            head = url[:hash_at]
        else:
            head = url
        key = hash(head)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._old.pop(key, None)
            if cached is not None:
                self._remember(key, cached)
        if cached is not None:
            return (head, cached) if type(cached) is int else cached  # type: ignore[return-value]
        try:  # (normalize_with, inlined: this runs for most new URLs)
            result: tuple[str | None, int] = normalize_with_rank(url, self.policy)
        except Exception as exc:
            result = self._unnormalizable(url, exc)
        if self.campaigns is not None and result[0] is not None:
            result = (self.campaigns.keep(head, result[0]), result[1])
        self._misses += 1
        if not self._misses & 511:
            self._young_size = min(self._cache_size >> 1, 32 + (self._misses >> 9))
        if self._cache_size and result[0] is not None:
            self._remember(key, result[1] if result[0] == head else result)
        return result

    def _remember(self, key: int, value: int | tuple[str | None, int]) -> None:
        if len(self._cache) >= self._young_size:
            self._old = self._cache
            self._cache = {}
        self._cache[key] = value

    def normalize_with(self, url: str, policy: Policy) -> tuple[str | None, int]:
        """``url`` normalized under ``policy`` (a learned one: scoped by path, see
        :mod:`scrapy_urlnorm.sections`), with the rank of the riskiest step that changed it."""
        try:
            found = normalize_with_rank(url, policy)
            if isinstance(policy, ScopedPolicy):
                narrower = policy.rescope(found[0])
                if narrower is not None:
                    found = normalize_with_rank(url, narrower)
        except Exception as exc:
            return self._unnormalizable(url, exc)
        if self.campaigns is not None and found[0] is not None:
            return self.campaigns.keep(url, found[0]), found[1]
        return found

    def _unnormalizable(self, url: str, exc: Exception) -> tuple[None, int]:
        if isinstance(exc, UnsupportedScheme):
            return None, 0  # not ours to normalize (mailto:, data:...): Scrapy's fingerprint keys it
        if not isinstance(exc, InvalidURL):  # a bug of ours must cost a fallback, never the crawl
            logger.error("scrapy-urlnorm failed on %r; using Scrapy's fingerprint for it", url, exc_info=exc)
        self._invalid(url, exc)
        return None, 0

    def _invalid(self, url: str, exc: Exception) -> None:
        if self._count is not None:
            self._count("urlnorm/invalid_urls", 1)
        try:
            host = host_key(split_url(url).host)
        except (InvalidURL, ValueError):
            host = "?"
        if host not in self.invalid_hosts:
            if len(self.invalid_hosts) < INVALID_HOSTS_LOGGED:
                self.invalid_hosts.add(host)
            logger.warning(
                "Cannot normalize %r (%s); de-duplicating it with Scrapy's own fingerprint "
                "(further invalid URLs of host %r are only counted in urlnorm/invalid_urls)",
                url,
                exc,
                host,
            )

    def hash(self, request: Request, url: str, namespace: bytes = b"") -> int:
        """The key of ``request`` with its URL replaced by ``url`` (already normalized)."""
        if request.callback is not None:
            return self._hash_url(request, url, namespace) ^ callback_salt(request)
        return self._hash_url(request, url, namespace)

    def _hash_url(self, request: Request, url: str, namespace: bytes) -> int:
        if self._custom:
            assert self._fallback is not None
            probe = request if url == request.url else request.replace(url=url)
            return self._hash(b"%sfp\0%s" % (namespace, self._fallback(probe)))
        method = request.method
        body = request.body
        if method == "GET" and not body and not namespace:  # most requests: no format string to parse
            return self._hash(b"GET\0" + url.encode("utf-8", "surrogatepass") + b"\0")
        return self._hash(
            b"%s%s\0%s\0%s"
            % (
                namespace,
                b"GET" if method == "GET" else method.encode("ascii", "replace"),
                url.encode("utf-8", "surrogatepass"),
                body,
            )
        )

    def static(self, request: Request) -> Fingerprint:
        """The request's key under the static policy only."""
        if request.meta.get("verbatim_url"):
            return Fingerprint(self.hash(request, request.url, b"verbatim\0"), 0, request.url)
        normalized, rank = self.normalize(request.url)
        if normalized is None:
            if self._fallback is not None:
                value = self._hash(b"scrapy\0" + self._fallback(request))
            else:
                value = self._hash(b"scrapy\0" + request.url.encode("utf-8", "surrogatepass"))
            return Fingerprint(value ^ callback_salt(request), 0, None)
        # tuple.__new__ with every field: a NamedTuple's own __new__ (defaults) costs more.
        return _new(Fingerprint, (self.hash(request, normalized), rank, normalized, None, 0, None, -1))  # type: ignore[no-any-return]

    def learned(self, request: Request, static: Fingerprint, policy: Policy, namespace: int) -> Fingerprint:
        """``static`` plus the key under a host's learned ``policy``."""
        learned_url, learned_rank = self.normalize_with(request.url, policy)
        if learned_url is None:
            return static
        value = self.hash(request, learned_url, b"learned %d\0" % namespace)
        return static._replace(learned=value, learned_rank=learned_rank, learned_url=learned_url, namespace=namespace)

    def cache_size(self) -> int:
        return len(self._cache) + len(self._old)

    def clear(self) -> None:
        self._cache.clear()
        self._old.clear()
