"""``UrlNormFingerprinter``: a ``REQUEST_FINGERPRINTER_CLASS`` over the static policy."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from scrapy.utils.request import RequestFingerprinter

from .errors import InvalidURL
from .normalize import normalize_url
from .policy import Policy

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class UrlNormFingerprinter:
    """Scrapy's request fingerprint, computed over the policy-normalized URL.

    It uses the *static* policy from settings only (never learned rules), so a
    fingerprint does not change during or between crawls: use it where keys
    must stay stable, such as ``HTTPCACHE_ENABLED`` (cache entries are stored
    under the fingerprint) or your own pipelines keyed on
    ``crawler.request_fingerprinter``. The dupe filter does not need it.

    Like Scrapy's, it is a 20-byte SHA-1 of method, URL and body, cached per
    request object; URLs it cannot normalize, and requests with
    ``meta["verbatim_url"]``, get Scrapy's own fingerprint.
    """

    def __init__(self, crawler: Crawler | None = None) -> None:
        settings = crawler.settings if crawler else {}
        self.policy = Policy.from_settings(settings)
        self._scrapy = RequestFingerprinter(crawler)
        self._cache: WeakKeyDictionary[Request, bytes] = WeakKeyDictionary()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def fingerprint(self, request: Request) -> bytes:
        cached = self._cache.get(request)
        if cached is not None:
            return cached
        if request.meta.get("verbatim_url"):
            # Kept as written, fragment included, as Scrapy's own fingerprint does.
            result = self._scrapy.fingerprint(request)
            self._cache[request] = result
            return result
        try:
            url = normalize_url(request.url, self.policy)
        except InvalidURL:
            result = self._scrapy.fingerprint(request)
        else:
            data = {"method": request.method.upper(), "url": url, "body": request.body.hex()}
            result = hashlib.sha1(json.dumps(data, sort_keys=True).encode(), usedforsecurity=False).digest()
        self._cache[request] = result
        return result
