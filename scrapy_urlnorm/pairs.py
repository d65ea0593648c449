"""Which pairs of URLs are evidence, and finding them among the pages a crawl delivered.

Two URLs are a pair for a rule when they differ by exactly that rule's aspect
(``/a`` and ``/a/``, ``h`` and ``www.h``, ``/x`` and ``/x.html``...). Each
delivered page is registered under one *bucket* per aspect family; two pages
in one bucket differ only in that aspect, and their *forms* say which rule
the pair is evidence for (:func:`one_step_pairs` does the same for a redirect's
two ends). :class:`PagePairs` keeps the buckets, bounded, and tells catch-all
pages (one body under many unrelated URLs: a soft 404) from evidence. What a
pair means for a rule is :class:`~scrapy_urlnorm.learning.Learner`'s business.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import xxhash

from .params import DEFAULT_PAGES
from .steps import collapsed
from .urlparts import SplitURL

#: Positive evidence from pages is only taken from bodies at least this long:
#: empty and near-empty bodies say nothing about identity.
MIN_BODY = 32
#: A digest served under this many unrelated URLs is a catch-all page
#: (soft 404, login wall, error page): it is no evidence of equivalence.
CATCH_ALL_URLS = 3
_MAX_BUCKET = 6
_MAX_PARAMS = 8
#: Extensions a server may serve its pages without (Apache MultiViews, nginx
#: ``try_files $uri $uri.html``): ``/x`` and ``/x.html`` form an ``extension_alias`` pair.
ALIAS_EXTENSIONS = frozenset({"html", "htm", "php", "asp", "aspx", "jsp", "shtml", "xhtml"})
#: Default caps (module constants, read when a PagePairs is made). A page registers
#: about six forms: 1,024 per host are its last ~170 pages; a bucket takes ~450 bytes.
MAX_BUCKETS = 16_384
MAX_BUCKETS_PER_HOST = 1_024
#: Catch-all pages (soft 404s) come back often: the digests of the last 8,192 pages catch them.
MAX_DIGESTS = 8_192


# -- the aspects a pair of URLs can differ by -------------------------------------
#
# Each URL is registered under one key per family; two URLs in the same bucket
# differ only in that family's aspect, and their "forms" say whether they are
# a valid one-step pair and which rule it is evidence for.

Form = tuple[str, ...]
#: The form of a URL registered under the one its doubled slashes collapse to (``/a//b``
#: under ``/a/b``); three fields, so no parameter's form (two) or a bare URL's (one) is it.
_DOUBLED: Form = ("", "", "//")


def _registrations(u: SplitURL) -> Iterator[tuple[tuple[Any, ...], Form, str]]:
    """(bucket key, form, rule host) for each family the URL belongs to."""
    scheme, _userinfo, host, port, path, query, _fragment = u
    segments = path.rsplit("/", 1)
    last = segments[-1]
    stripped = path.rstrip("/")
    if stripped and "." not in stripped.rsplit("/", 1)[-1]:
        yield ("slash", scheme, host, port, stripped, query), ("slash" if path.endswith("/") else "bare",), host
    if any(c.isalpha() for c in path):
        yield ("case", scheme, host, port, path.lower(), query), (path,), host
    stem, dot, extension = last.rpartition(".")
    aliased = bool(dot and stem) and extension.lower() in ALIAS_EXTENSIONS
    if aliased and last.lower() not in DEFAULT_PAGES:
        yield ("ext", scheme, host, port, path[: len(path) - len(extension) - 1], query), (extension.lower(),), host
    elif last and not aliased:
        # Without an alias extension (``ch11.en`` too): the name ``ch11.en.html`` drops to.
        yield ("ext", scheme, host, port, path, query), ("",), host
    if last.lower() in DEFAULT_PAGES:
        yield ("page", scheme, host, port, path[: len(path) - len(last)], query), (last.lower(),), host
    elif path.endswith("/"):
        yield ("page", scheme, host, port, path, query), ("",), host
    bare_host = host[4:] if host.startswith("www.") else host
    yield ("www", scheme, bare_host, port, path, query), ("www" if bare_host != host else "bare",), bare_host
    yield ("scheme", host, port, path, query), (scheme,), host
    # Parameters: register under the URL itself (bare) and, per parameter,
    # under the URL without it. A path with doubled slashes registers under the URL
    # they collapse to as well: one bucket a page is in anyway, not one more per page.
    yield ("param", scheme, host, port, path, query), ("",), host
    if "//" in path:
        yield ("param", scheme, host, port, collapsed(path), query), _DOUBLED, host
    if query:
        pairs = query.split("&")
        names = {pair.partition("=")[0].lower() for pair in pairs if pair}
        for name in sorted(names)[:_MAX_PARAMS]:
            rest = [pair for pair in pairs if pair.partition("=")[0].lower() != name]
            values = "&".join(pair for pair in pairs if pair.partition("=")[0].lower() == name)
            yield ("param", scheme, host, port, path, "&".join(rest) or None), (name, values), host


def _pair_kind(family: str, a: Form, b: Form) -> str | None:
    """The rule a pair of forms in one bucket is evidence for, if any."""
    if a == b:
        return None
    if family == "slash":
        return "trailing_slash"
    if family == "case":
        return "case_insensitive_path"
    if family == "www":
        return "www_alias"
    if family == "scheme":
        return "https_alias" if {a[0], b[0]} == {"http", "https"} else None
    if family == "ext":
        return f"extension_alias:{a[0] or b[0]}" if "" in (a[0], b[0]) else None
    if family == "page":
        if "" in (a[0], b[0]):
            return f"default_page:{a[0] or b[0]}"
        return None  # index.html vs default.htm: two steps apart
    if _DOUBLED in (a, b):
        return "duplicate_slashes" if ("",) in (a, b) else None
    if family == "param" and (a[0] == "" or b[0] == "" or a[0] == b[0]):
        return f"ignore_param:{a[0] or b[0]}"
    return None


def _direction(family: str, target: Form) -> str:
    if family == "slash":
        return "add" if target[0] == "slash" else "remove"
    if family == "www":
        return "add" if target[0] == "www" else "strip"
    if family == "scheme":
        return target[0]
    return ""


def pair_id(a: str, b: str) -> int:
    """A stable id for an unordered pair of URLs (the same in every process)."""
    first, second = (a, b) if a < b else (b, a)
    return xxhash.xxh3_64_intdigest(f"{first}\0{second}".encode("utf-8", "surrogatepass")) >> 2


def one_step_pairs(u: SplitURL, v: SplitURL) -> Iterator[tuple[str, str, str]]:
    """(rule kind, direction from ``u`` to ``v``, rule host) for each aspect in which
    ``u`` and ``v`` are one step apart: what a redirect from ``u`` to ``v`` teaches."""
    v_forms = {key: form for key, form, _host in _registrations(v)}
    for key, form, host in _registrations(u):
        target = v_forms.get(key)
        if target is None:
            continue
        kind = _pair_kind(key[0], form, target)
        if kind is not None:
            yield kind, _direction(key[0], target), host


def _merged_key(u: SplitURL) -> tuple[str, ...]:
    """The URL with every learnable aspect erased: URLs with different merged
    keys cannot be equivalent by any rule we learn."""
    path = u.path.lower().rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if last in DEFAULT_PAGES:
        path = path[: len(path) - len(last)].rstrip("/")
    elif last.rpartition(".")[2] in ALIAS_EXTENSIONS and "." in last[1:]:
        path = path[: path.rfind(".")]
    host = u.host[4:] if u.host.startswith("www.") else u.host
    return (host, u.port, path)


def _url_count(keys: tuple[int | str, ...]) -> int:
    """How many unrelated URLs a digest's entry names (its hash entries; the rest are hosts)."""
    return sum(1 for entry in keys if isinstance(entry, int))


@dataclass
class _Seen:
    url: str
    form: Form
    digest: int | None  # None: known only as a redirect source


class PagePairs:
    """The pages delivered so far, bucketed by aspect, bounded (see the module's docstring)."""

    def __init__(
        self, *, max_buckets: int | None = None, max_digests: int | None = None, max_buckets_per_host: int | None = None
    ) -> None:
        self.max_buckets = MAX_BUCKETS if max_buckets is None else max_buckets
        self.max_buckets_per_host = MAX_BUCKETS_PER_HOST if max_buckets_per_host is None else max_buckets_per_host
        self.max_digests = MAX_DIGESTS if max_digests is None else max_digests
        # host -> its buckets (least recently used first); hosts least recently used first.
        self._buckets: OrderedDict[str, OrderedDict[tuple[Any, ...], list[_Seen]]] = OrderedDict()
        self._bucket_count = 0
        # digest -> hashes of the merged keys it was served under (up to CATCH_ALL_URLS), and
        # the bare hosts that served it (each a str the host's other entries share): a small
        # flat tuple, not a set of tuples (~150 bytes a page instead of ~450).
        self._digest_urls: OrderedDict[int, tuple[int | str, ...]] = OrderedDict()
        #: Entries the caps pushed out (``urlnorm/memory/*_evicted``).
        self.evicted_buckets = 0
        self.evicted_digests = 0
        #: Pairs of one catch-all page (or a near-empty one) not taken as evidence.
        self.ignored_catch_all = 0
        #: Digests that became catch-all pages since :meth:`take_caught` last asked, with
        #: the bare hosts that served them.
        self._caught: list[tuple[int, tuple[str, ...]]] = []

    def page(self, u: SplitURL, url: str, digest: int, length: int) -> list[tuple[str, str, str, bool]]:
        """Register the page of ``url`` (split: ``u``); the pairs it forms with pages
        delivered before, as (rule host, rule kind, the other URL, same page)."""
        informative = length >= MIN_BODY and not self._is_catch_all(digest, u)
        found = []
        for key, form, host in _registrations(u):
            bucket = self._bucket(key, host)
            for seen in bucket:
                if seen.url == url or seen.digest is None:
                    continue
                kind = _pair_kind(key[0], form, seen.form)
                if kind is None:
                    continue
                if seen.digest != digest:
                    found.append((host, kind, seen.url, False))
                elif informative:
                    found.append((host, kind, seen.url, True))
                else:
                    self.ignored_catch_all += 1
            if not any(seen.url == url for seen in bucket):
                bucket.append(_Seen(url, form, digest))
                if len(bucket) > _MAX_BUCKET:
                    del bucket[0]
        return found

    def one_step_kinds(self, u: SplitURL, digest: int) -> set[str]:
        """The rule kinds by which ``u`` is one step from a URL that delivered the page of
        ``digest``, as far as remembered (read only: nothing moves)."""
        kinds: set[str] = set()
        for key, form, host in _registrations(u):
            buckets = self._buckets.get(host)
            for seen in (buckets.get(key) if buckets else None) or ():
                if seen.digest == digest:
                    kind = _pair_kind(key[0], form, seen.form)
                    if kind is not None:
                        kinds.add(kind)
        return kinds

    def delivered_spellings(self, u: SplitURL, digest: int) -> list[str]:
        """The paths that spelled ``u``'s path in another case on its host and delivered
        the page of ``digest``, as far as remembered (read only: nothing moves)."""
        scheme, _userinfo, host, port, path, query, _fragment = u
        buckets = self._buckets.get(host)
        bucket = buckets.get(("case", scheme, host, port, path.lower(), query)) if buckets else None
        return [seen.form[0] for seen in bucket or () if seen.digest == digest]

    def sizes(self) -> dict[str, int]:
        return {
            "evidence_buckets": self._bucket_count,
            "evidence_buckets_evicted": self.evicted_buckets,
            "catch_all_digests": len(self._digest_urls),
            "catch_all_digests_evicted": self.evicted_digests,
        }

    def _bucket(self, key: tuple[Any, ...], host: str) -> list[_Seen]:
        hosts = self._buckets
        buckets = hosts.get(host)
        if buckets is None:
            buckets = hosts[host] = OrderedDict()
        else:
            hosts.move_to_end(host)
        bucket = buckets.get(key)
        if bucket is not None:
            buckets.move_to_end(key)
            return bucket
        bucket = buckets[key] = []
        self._bucket_count += 1
        if len(buckets) > self.max_buckets_per_host:
            buckets.popitem(last=False)
            self._bucket_count -= 1
            self.evicted_buckets += 1
        while self._bucket_count > self.max_buckets:
            oldest_host, oldest = next(iter(hosts.items()))
            oldest.popitem(last=False)
            self._bucket_count -= 1
            self.evicted_buckets += 1
            if not oldest:
                del hosts[oldest_host]
        return bucket

    def _is_catch_all(self, digest: int, u: SplitURL) -> bool:
        digests = self._digest_urls
        keys = digests.get(digest)
        if keys is None:
            merged = _merged_key(u)
            digests[digest] = (hash(merged), merged[0])
            if len(digests) > self.max_digests:
                digests.popitem(last=False)
                self.evicted_digests += 1
            return CATCH_ALL_URLS <= 1
        urls = _url_count(keys)
        if urls < CATCH_ALL_URLS:
            merged = _merged_key(u)
            key = hash(merged)
            if key not in keys:
                keys = digests[digest] = (*keys, key) if merged[0] in keys else (*keys, key, merged[0])
                urls += 1
                if urls == CATCH_ALL_URLS:
                    self._caught.append((digest, tuple(entry for entry in keys if isinstance(entry, str))))
        return urls >= CATCH_ALL_URLS

    def is_catch_all(self, digest: int) -> bool:
        """Whether the page of ``digest`` was served under :data:`CATCH_ALL_URLS` URLs no
        rule could merge (as far as the digests remembered tell)."""
        keys = self._digest_urls.get(digest)
        return keys is not None and _url_count(keys) >= CATCH_ALL_URLS

    def take_caught(self) -> list[tuple[int, tuple[str, ...]]]:
        """The digests that became catch-all pages since the last call, each with the bare
        hosts that served it (a soft 404 a platform serves on every site it hosts)."""
        caught, self._caught = self._caught, []
        return caught
