"""The de-duplication engine shared by the dupe filter and the middlewares.

One :class:`Deduplicator` per crawler (``Deduplicator.for_crawler``) holds what
the Scrapy components have in common: the policy, the seen set and its
``JOBDIR`` file, the learner and the rules it learned, and the counters.
:class:`~scrapy_urlnorm.UrlNormDupeFilter` and the middlewares only adapt
Scrapy's interfaces onto it.

A request's fingerprint is a 64-bit (or, with ``URLNORM_FINGERPRINT_BITS =
128``, 128-bit) xxh3 hash of its method, its policy-normalized URL and its
body. With 64 bits, the chance that two different requests of a crawl share a
fingerprint is about n²/2⁶⁵: one in 37 million at a million URLs, one in 370
thousand at ten million. Each collision loses one request, so crawls of
billions of URLs should use 128 bits.

Learned rules never touch the static fingerprint. A request on a host with
learned rules gets a second, *learned* fingerprint (its URL normalized by the
host's learned policy), hashed in a namespace that changes whenever the
host's rules change: when a rule is revoked, nothing stored under it can
match again, and the requests it dropped are scheduled again.
"""

from __future__ import annotations

import json
import logging
import math
import os
import weakref
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import xxhash
from scrapy import signals
from scrapy.utils.job import job_dir
from scrapy.utils.request import referer_str

from .errors import InvalidURL, UnsupportedScheme
from .learning import Learner, Rule, policy_overrides
from .normalize import host_key, normalize_with_rank
from .policy import Policy
from .seen import FingerprintSet
from .steps import REASONS, STEP_RANKS, STEPS, trailing_slash
from .stores import MemoryStore, RedisRules, RedisStore, SeenStore, aggregate_counters
from .urlparts import HOST, PORT, SCHEME, replace_field, split_url, unsplit_url

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

SEEN_FILE = "urlnorm.seen"
RULES_FILE = "urlnorm.rules.json"
#: Requests dropped because of learned rules, kept to be scheduled again if a
#: rule is revoked: at most this many per host and in all.
PARKED_PER_HOST = 1000
PARKED_TOTAL = 50_000
#: Digests of downloaded pages remembered for audits (LRU).
DIGESTS_REMEMBERED = 100_000
#: Fetched page URLs remembered per host (for hosts, LRU) to re-key when rules change.
PAGES_PER_HOST = 2000
PAGE_HOSTS = 1000
#: Ranks from here up are the paper's semantic-changing steps and learned rules:
#: the drops that audits sample.
SEMANTIC_RANK = min(STEP_RANKS[step.name] for step in STEPS if step.tier >= 3)
_VERSION_META = "_urlnorm_rules_version"
_RELEASED_META = "_urlnorm_shortcut_original"
_SHORTCUT_KINDS = ("trailing_slash", "www_alias", "https_alias")
_SHORTCUT_DIRECTIONS = ("add", "remove", "strip", "http", "https")
_DIRECTIONS = {"add": Policy(trailing_slash="add"), "remove": Policy(trailing_slash="remove")}
AUDIT_META = "urlnorm_audit"


class Fingerprint(NamedTuple):
    """A request's fingerprint(s).

    ``value``/``rank``/``url``: under the static policy (``url`` is ``None``
    when Scrapy's own fingerprint had to stand in). ``learned``/
    ``learned_rank``/``learned_url``: under the host's learned policy, when it
    gives a different URL.
    """

    value: int
    rank: int
    url: str | None
    learned: int | None = None
    learned_rank: int = 0
    learned_url: str | None = None
    #: The host's learned-rules namespace when this was computed (-1: none).
    namespace: int = -1


def host_of(normalized_url: str) -> str:
    """The host of a URL ``normalize_url`` produced (no parsing needed)."""
    start = normalized_url.find("//") + 2
    end = normalized_url.find("/", start)
    authority = normalized_url[start : end if end >= 0 else None].rpartition("@")[2]
    if authority.startswith("["):
        return authority[: authority.find("]") + 1]
    return authority.partition(":")[0]


def wilson_upper(failures: int, trials: int, z: float = 1.96) -> float:
    """Upper bound of the 95% Wilson score interval for a rate ``failures/trials``."""
    if trials == 0:
        return 1.0
    p = failures / trials
    denominator = 1 + z * z / trials
    centre = p + z * z / (2 * trials)
    margin = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return min(1.0, (centre + margin) / denominator)


def redis_url(settings: Any) -> str | None:
    """``URLNORM_REDIS_URL``, else scrapy-redis' ``REDIS_URL`` or ``REDIS_HOST``/``REDIS_PORT``."""
    url = settings.get("URLNORM_REDIS_URL") or settings.get("REDIS_URL")
    if url:
        return str(url)
    if settings.get("REDIS_HOST"):
        return f"redis://{settings.get('REDIS_HOST')}:{settings.getint('REDIS_PORT', 6379)}"
    return None


def _redis_backend(crawler: Crawler, bits: int) -> tuple[SeenStore | None, RedisRules | None]:
    url = redis_url(crawler.settings)
    if url is None:
        return None, None
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    key = crawler.settings.get("URLNORM_REDIS_KEY", "%(spider)s:urlnorm") % {"spider": crawler.spidercls.name}
    stats = crawler.stats

    def count(name: str) -> None:
        if stats is not None:
            stats.inc_value(name)

    store = RedisStore(client, key + ":seen", bits=bits, count=count, url=url)
    logger.info("scrapy-urlnorm shares its seen set and learned rules through Redis at %s (key %s)", url, key)
    interval = crawler.settings.getfloat("URLNORM_REDIS_SYNC_INTERVAL", 2.0)
    return store, RedisRules(client, key + ":rules", interval=interval)


class Deduplicator:
    """Fingerprints requests, remembers which were seen and why duplicates were,
    and applies what the learner learns."""

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
        learn: bool = False,
        min_evidence: int = 2,
        audit_rate: float = 0.0,
        rules_path: str | Path | None = None,
        reschedule: Callable[[Request], None] | None = None,
        store: SeenStore | None = None,
        shared_rules: RedisRules | None = None,
    ) -> None:
        self.policy = policy
        self.bits = bits
        self.debug = debug
        self.stats = stats
        self._fallback = fallback
        self._hash = xxhash.xxh3_128_intdigest if bits == 128 else xxhash.xxh3_64_intdigest
        self.seen: SeenStore = store if store is not None else MemoryStore(bits, path)
        self.shared_rules = shared_rules
        self._closed = False
        # Links such as navigation menus repeat on every page: remember the
        # normalization of the most recent URLs (cleared when full).
        self._cache: dict[str, tuple[str | None, int]] = {}
        self._cache_size = cache_size
        self._first_urls: dict[int, str] = {}  # fingerprint -> first URL, only with debug
        self._invalid_hosts: set[str] = set()
        self.reschedule = reschedule
        # learning
        self.learner = (
            Learner(
                min_evidence=min_evidence,
                on_change=self._rule_changed,
                share=self._share_evidence if shared_rules is not None else None,
            )
            if learn
            else None
        )
        self.version = 0
        self._learned: dict[str, tuple[Policy, int]] = {}  # host -> (learned policy, namespace)
        self._shortcuts: dict[str, tuple[Rule, ...]] = {}  # host -> rules its redirects taught
        self._active_families: Counter[str] = Counter()
        self._parked: dict[str, deque[Request]] = {}
        self._parked_count = 0
        self.audit_rate = max(0.0, min(1.0, audit_rate))
        self._audit_credit = 0.0
        self._digests: OrderedDict[int, int] = OrderedDict()
        # Recently fetched page URLs per host, re-keyed when the host's rules change.
        self._host_pages: OrderedDict[str, deque[str]] = OrderedDict()
        self.audits = self.audit_mismatches = 0
        # Every 200 body digest, to count duplicate downloads (the redundancy
        # the crawl still paid for) in 9 bytes per page.
        self.page_digests = FingerprintSet(64)
        self.downloads = self.duplicate_downloads = 0
        self.rules_path = Path(rules_path) if rules_path else None
        if self.learner is not None and self.rules_path is not None and self.rules_path.exists():
            self._load_rules()

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
        store, shared_rules = _redis_backend(crawler, bits)

        def reschedule(request: Request) -> None:
            crawler.engine.crawl(request)  # type: ignore[union-attr]

        dedup = cls(
            Policy.from_settings(settings),
            bits=bits,
            path=Path(jobdir, SEEN_FILE) if jobdir else None,
            debug=settings.getbool("URLNORM_DEBUG"),
            stats=crawler.stats,
            fallback=crawler.request_fingerprinter.fingerprint,
            cache_size=settings.getint("URLNORM_CACHE_SIZE", 4096),
            learn=settings.getbool("URLNORM_LEARN", True),
            min_evidence=settings.getint("URLNORM_LEARN_MIN_EVIDENCE", 2),
            audit_rate=settings.getfloat("URLNORM_AUDIT_RATE", 0.02),
            rules_path=Path(jobdir, RULES_FILE) if jobdir else None,
            reschedule=reschedule,
            store=store,
            shared_rules=shared_rules,
        )
        cls._by_crawler[crawler] = dedup
        crawler.signals.connect(dedup.close, signal=signals.spider_closed)
        return dedup

    # -- fingerprints ---------------------------------------------------------------

    def normalize(self, url: str) -> tuple[str | None, int]:
        """(URL normalized by the static policy, or ``None`` if we cannot, rank)."""
        cached = self._cache.get(url)
        if cached is not None:
            return cached
        result = self._normalize(url, self.policy)
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        if self._cache_size and result[0] is not None:
            self._cache[url] = result
        return result

    def _normalize(self, url: str, policy: Policy) -> tuple[str | None, int]:
        try:
            return normalize_with_rank(url, policy)
        except UnsupportedScheme:
            return None, 0
        except InvalidURL as exc:
            self._invalid(url, exc)
        except Exception as exc:  # a bug of ours must cost a fallback, never the crawl
            logger.exception("scrapy-urlnorm failed on %r; using Scrapy's fingerprint for it", url)
            self._invalid(url, exc)
        return None, 0

    def _invalid(self, url: str, exc: Exception) -> None:
        self.count("urlnorm/invalid_urls")
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

    def _hash_request(self, request: Request, url: str, namespace: bytes = b"") -> int:
        return self._hash(
            b"%s%s\0%s\0%s"
            % (namespace, request.method.encode("ascii", "replace"), url.encode("utf-8", "surrogatepass"), request.body)
        )

    def fingerprint(self, request: Request) -> Fingerprint:
        normalized, rank = self.normalize(request.url)
        if normalized is None:
            fallback = self._fallback(request) if self._fallback else request.url.encode("utf-8", "surrogatepass")
            return Fingerprint(self._hash(b"scrapy\0" + fallback), 0, None)
        value = self._hash_request(request, normalized)
        if self._learned:
            learned = self._learned.get(host_of(normalized))
            if learned is not None:
                policy, namespace = learned
                learned_url, learned_rank = self._normalize(request.url, policy)
                if learned_url is not None:
                    learned_value = self._hash_request(request, learned_url, b"learned %d\0" % namespace)
                    return Fingerprint(value, rank, normalized, learned_value, learned_rank, learned_url, namespace)
        return Fingerprint(value, rank, normalized)

    # -- the seen set -----------------------------------------------------------------

    def check(self, request: Request) -> str | None:
        """Add ``request`` to the seen set; ``None`` if new (or let through),
        else the reason it is a duplicate."""
        if self.shared_rules is not None and self.learner is not None:
            for state in self.shared_rules.changes().values():
                self.learner.adopt(json.loads(state))
        fingerprint = self.fingerprint(request)
        self.count("urlnorm/requests_seen")
        if self.learner is not None:
            request.meta[_VERSION_META] = fingerprint.namespace
        # A released shortcut original was stored when first checked: not a duplicate of itself.
        stored = None if request.meta.pop(_RELEASED_META, False) else self.seen.get(fingerprint.value)
        if stored is not None:
            return self._duplicate(request, fingerprint, max(fingerprint.rank, stored), learned=False)
        stored = self._learned_match(request, fingerprint)
        if stored is not None:
            return self._duplicate(request, fingerprint, max(fingerprint.learned_rank, stored), learned=True)
        self._store(fingerprint, request)
        return None

    def _learned_match(self, request: Request, fingerprint: Fingerprint) -> int | None:
        """The stored rank if ``request`` is a duplicate under its host's learned
        rules: its learned form was stored under the current rules, or was
        itself seen as a URL."""
        if fingerprint.learned is None:
            return None
        stored = self.seen.get(fingerprint.learned)
        if stored is None and fingerprint.learned_url != fingerprint.url:
            stored = self.seen.get(self._hash_request(request, fingerprint.learned_url))  # type: ignore[arg-type]
        return stored

    def recheck(self, request: Request) -> str | None:
        """At download time: re-check a request queued before its host's rules
        last changed against what those rules now merge."""
        checked_under = request.meta.get(_VERSION_META)
        if checked_under is None or not self._learned:
            return None
        fingerprint = self.fingerprint(request)
        if fingerprint.namespace == checked_under:
            return None
        request.meta[_VERSION_META] = fingerprint.namespace
        stored = self._learned_match(request, fingerprint)
        if stored is None:
            self._store(fingerprint, request)
            return None
        if self._redirected_to_itself(request, fingerprint, learned=True):
            return None
        reason = REASONS.get(max(fingerprint.learned_rank, stored), "exact")
        self.count("urlnorm/late_filtered")
        self.count("urlnorm/filtered")
        self.count(f"urlnorm/filtered/{reason}")
        self._log_drop(request, fingerprint, reason, learned=True)
        self._park(request, fingerprint)
        return reason

    def record(self, request: Request) -> None:
        """Mark a request Scrapy never shows the filter (``dont_filter``) as seen."""
        fingerprint = self.fingerprint(request)
        if self.seen.get(fingerprint.value) is None:
            self._store(fingerprint, request)
            self.count("urlnorm/recorded_unfiltered")

    def _store(self, fingerprint: Fingerprint, request: Request) -> None:
        for value, rank in ((fingerprint.value, fingerprint.rank), (fingerprint.learned, fingerprint.learned_rank)):
            if value is None:
                continue
            self.seen.add(value, rank)
            if self.debug:
                self._first_urls.setdefault(value, request.url)

    def _duplicate(self, request: Request, fingerprint: Fingerprint, rank: int, *, learned: bool) -> str | None:
        if self._redirected_to_itself(request, fingerprint, learned=learned):
            self.count("urlnorm/redirects_passed")
            self._store(fingerprint, request)
            return None
        reason = REASONS.get(rank, "exact")
        if rank >= SEMANTIC_RANK and self._audit_now():
            # Fetch it anyway and compare with the page it was merged into.
            collided = fingerprint.learned if learned else fingerprint.value
            request.meta[AUDIT_META] = {"fingerprint": collided, "reason": reason}
            self.count("urlnorm/audits_scheduled")
            return None
        self.count("urlnorm/filtered")
        self.count(f"urlnorm/filtered/{reason}")
        self._log_drop(request, fingerprint, reason, learned=learned)
        if learned:
            self._park(request, fingerprint)
        return reason

    def _log_drop(self, request: Request, fingerprint: Fingerprint, reason: str, *, learned: bool) -> None:
        """With URLNORM_DEBUG: the dropped request, why, and what it collided with."""
        if not self.debug:
            return
        collided = fingerprint.learned if learned else fingerprint.value
        logger.debug(
            "Filtered duplicate %s (reason: %s; same as %s; normalized: %s; referer: %s)",
            request,
            reason,
            self._first_urls.get(collided, "?"),  # type: ignore[arg-type]
            fingerprint.learned_url if learned else fingerprint.url,
            referer_str(request),
        )

    def _audit_now(self) -> bool:
        if not self.audit_rate:
            return False
        self._audit_credit += self.audit_rate
        if self._audit_credit >= 1.0:
            self._audit_credit -= 1.0
            return True
        return False

    def _redirected_to_itself(self, request: Request, fingerprint: Fingerprint, *, learned: bool) -> bool:
        """A redirect whose target normalizes like a URL of its own chain
        (``/pubs`` -> 301 -> ``/pubs/``) must be fetched: the server just told
        us the first form is not the page (Scrapy issue #1225)."""
        chain: list[str] | None = request.meta.get("redirect_urls")
        if not chain or fingerprint.url is None:
            return False
        if learned and fingerprint.learned_url is not None:
            learned_policy = self._learned.get(host_of(fingerprint.url))
            if learned_policy is not None:
                policy = learned_policy[0]
                return any(self._normalize(url, policy)[0] == fingerprint.learned_url for url in chain)
        return any(self.normalize(url)[0] == fingerprint.url for url in chain)

    # -- learning ------------------------------------------------------------------------

    def observe_redirect(self, source: str, target: str) -> None:
        if self.learner is None:
            return
        source_url, target_url = self._learning_form(source), self._learning_form(target)
        if source_url and target_url:
            self.learner.observe_redirect(source_url, target_url)

    def observe_page(
        self,
        request: Request,
        url: str,
        digest: int,
        *,
        length: int,
        server: str = "",
        canonical: str | None = None,
    ) -> None:
        """A 200 response: feed the learner, remember the digest, settle an audit."""
        self.downloads += 1
        if self.page_digests.add(digest) is not None:
            self.duplicate_downloads += 1
        audit = request.meta.get(AUDIT_META)
        if audit:
            # An audited page is compared with, never stored as, the representative.
            self._settle_audit(request, audit, digest)
        else:
            fingerprint = self.fingerprint(request)
            for value in (fingerprint.value, fingerprint.learned):
                if value is not None:
                    self._digests[value] = digest
                    self._digests.move_to_end(value)
            while len(self._digests) > DIGESTS_REMEMBERED:
                self._digests.popitem(last=False)
        if self.learner is None:
            return
        observed = self._learning_form(url)
        if observed is None:
            return
        if request.method == "GET" and not audit:
            self._remember_page(host_of(observed), request.url)
        self.learner.observe_page(observed, digest, length=length, server=server)
        if canonical:
            canonical_url = self._learning_form(canonical)
            if canonical_url and canonical_url != observed:
                self.learner.observe_canonical(observed, canonical_url)

    def _learning_form(self, url: str) -> str | None:
        """``url`` as the learner sees it: normalized by its host's current
        policy, learned rules included, so evidence for one rule is not hidden
        behind another already known (``/PRODUCTS/default.htm`` on a
        case-insensitive host pairs with ``/products/``)."""
        normalized = self.normalize(url)[0]
        if normalized is None or not self._learned:
            return normalized
        learned = self._learned.get(host_of(normalized))
        return normalized if learned is None else self._normalize(url, learned[0])[0]

    def _settle_audit(self, request: Request, audit: dict[str, Any], digest: int) -> None:
        representative = self._digests.get(audit["fingerprint"])
        if representative is None:
            self.count("urlnorm/audits_inconclusive")
            return
        self.audits += 1
        self.count("urlnorm/audits")
        if representative == digest:
            return
        self.audit_mismatches += 1
        self.count("urlnorm/audit_mismatches")
        reason: str = audit["reason"]
        logger.info("Audit found %s is a different page than the one %s merged it into", request.url, reason)
        if reason.startswith("learned:") and self.learner is not None:
            family = reason.removeprefix("learned:")
            normalized = self.normalize(request.url)[0]
            host = host_of(normalized) if normalized else ""
            rules = self.learner.active_rules(host) + self.learner.active_rules(host.removeprefix("www."))
            for rule in rules:
                if rule.kind.partition(":")[0] == family and host in (rule.host, "www." + rule.host):
                    self.learner.contradict(rule.host, rule.kind, request.url, "?")

    def _rule_changed(self, rule: Rule) -> None:
        hosts = [rule.host, "www." + rule.host] if rule.kind == "www_alias" else [rule.host]
        self.version += 1
        for host in hosts:
            self._rebuild_host(host)
            if rule.active:
                self._rekey(host)
        self._rebuild_shortcuts(rule.host)
        if self.shared_rules is not None:
            self.shared_rules.publish(f"{rule.host}|{rule.kind}", json.dumps(rule.as_dict(), sort_keys=True))
        self._update_rule_stats(rule)
        if not rule.active:
            self.count("urlnorm/revoked_rules")
            for host in hosts:
                self._release(host)
        self._save_rules()

    def _share_evidence(self, rule: Rule, pair: int | None) -> int:
        """Learner hook for distributed crawls (see ``Learner.share``)."""
        assert self.shared_rules is not None
        field = f"{rule.host}|{rule.kind}"
        if pair is None:
            self.shared_rules.publish(field, json.dumps(rule.as_dict(), sort_keys=True))
            return 0
        return self.shared_rules.add_pair(field, pair)

    def _rebuild_shortcuts(self, host: str) -> None:
        assert self.learner is not None
        rules = tuple(
            rule
            for rule in self.learner.active_rules(host)
            if rule.kind in _SHORTCUT_KINDS and rule.direction in _SHORTCUT_DIRECTIONS and rule.sources.get("redirect")
        )
        if rules:
            self._shortcuts[host] = rules
        else:
            self._shortcuts.pop(host, None)

    def _rebuild_host(self, host: str) -> None:
        assert self.learner is not None
        rules = self.learner.active_rules(host)
        bare = host[4:] if host.startswith("www.") else None
        if bare is not None:
            rules += [r for r in self.learner.active_rules(bare) if r.kind == "www_alias"]
        if not rules:
            self._learned.pop(host, None)
            return
        base = self.policy.for_host(host)
        overrides = policy_overrides(rules)
        if "default_pages" in overrides:
            names = (*base.default_pages, *sorted(overrides["default_pages"]))
            overrides["default_pages"] = tuple(dict.fromkeys(names))
        if "ignore_params" in overrides:
            overrides["ignore_params"] = frozenset(base.ignore_params | overrides["ignore_params"])
        self._learned[host] = (base.replace(**overrides), self.version)

    def _remember_page(self, host: str, url: str) -> None:
        pages = self._host_pages.get(host)
        if pages is None:
            pages = self._host_pages[host] = deque(maxlen=PAGES_PER_HOST)
            if len(self._host_pages) > PAGE_HOSTS:
                self._host_pages.popitem(last=False)
        pages.append(url)

    def _rekey(self, host: str) -> None:
        """Store the learned fingerprints, under the host's new rules, of the
        pages already fetched from it, so their variants are found."""
        from scrapy import Request

        for url in self._host_pages.get(host, ()):
            fingerprint = self.fingerprint(Request(url))
            if fingerprint.learned is not None:
                self.seen.add(fingerprint.learned, fingerprint.learned_rank)

    def canonical_url(self, url: str) -> str | None:
        """The form of ``url`` its host's own redirects taught us to request
        (``/dir`` -> ``/dir/``, ``www.h`` -> ``h``), or ``None`` if no such rule applies.

        Only rules that came with a direction from the site's redirects count,
        and only their aspect of the URL changes: the rest is sent as written.
        """
        if not self._shortcuts:
            return None
        try:
            u = split_url(url)
        except InvalidURL:
            return None
        new = u
        host = host_key(u.host)
        bare = host.removeprefix("www.")
        for rule in self._shortcuts.get(bare, ()):
            if rule.kind == "www_alias":
                if rule.direction == "strip" and host == f"www.{bare}":
                    new = replace_field(new, HOST, bare)
                elif rule.direction == "add" and host == bare:
                    new = replace_field(new, HOST, f"www.{bare}")
        for rule in self._shortcuts.get(host_key(new.host), ()):
            if rule.kind == "trailing_slash":
                new = trailing_slash(new, _DIRECTIONS[rule.direction])
            elif rule.kind == "https_alias" and new.scheme.lower() != rule.direction and new.port in ("", "80", "443"):
                new = replace_field(replace_field(new, SCHEME, rule.direction), PORT, "")
        return None if new is u else unsplit_url(new)

    def audit_shortcut(self) -> bool:
        """Whether to send this shortcut candidate as written instead, as an audit
        (its response then shows the learner whether the rule holds)."""
        if self._audit_now():
            self.count("urlnorm/audits_scheduled")
            return True
        return False

    def park_original(self, request: Request, canonical: str) -> None:
        """Keep a link sent in its taught form, to fetch it as written if the rule
        is revoked (a revoked ``www_alias`` releases both twins' requests)."""
        request.meta[_RELEASED_META] = True
        self._park_for(host_key(split_url(canonical).host), request)

    def shortcut_failed(self, original: str, sent: str) -> None:
        """A URL sent in its taught form answered an error: the rules that
        rewrote it do not hold for this host."""
        if self.learner is None:
            return
        parked = self._parked.get(host_key(split_url(sent).host))
        if parked:  # the link is being fetched as written now: not again on release
            kept = deque(request for request in parked if request.url != original)
            self._parked_count -= len(parked) - len(kept)
            self._parked[host_key(split_url(sent).host)] = kept
        host = host_key(split_url(original).host)
        bare = host.removeprefix("www.")
        for rule in (*self._shortcuts.get(host, ()), *self._shortcuts.get(bare, ())):
            self.learner.contradict(rule.host, rule.kind, original, sent, via="shortcut")

    def _update_rule_stats(self, rule: Rule) -> None:
        """Count a rule that just became active (or stopped being), by kind."""
        family = rule.kind.partition(":")[0]
        self._active_families[family] += 1 if rule.active else -1
        if self.stats is not None:
            self.stats.set_value("urlnorm/learned_rules", sum(self._active_families.values()))
            self.stats.set_value(f"urlnorm/learned/{family}", self._active_families[family])

    def _park(self, request: Request, fingerprint: Fingerprint) -> None:
        self._park_for(host_of(fingerprint.url or ""), request)

    def _park_for(self, host: str, request: Request) -> None:
        parked = self._parked.setdefault(host, deque())
        if len(parked) >= PARKED_PER_HOST or self._parked_count >= PARKED_TOTAL:
            self.count("urlnorm/parked_overflow")
            return
        parked.append(request)
        self._parked_count += 1

    def _release(self, host: str) -> None:
        """A rule of ``host`` was revoked: schedule again what learned rules dropped."""
        parked = self._parked.pop(host, None)
        if not parked:
            return
        self._parked_count -= len(parked)
        if self.reschedule is None:
            return
        for request in parked:
            request.meta.pop(_VERSION_META, None)
            self.count("urlnorm/rescheduled")
            self.reschedule(request)

    def _save_rules(self) -> None:
        if self.rules_path is None or self.learner is None:
            return
        temporary = self.rules_path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.learner.to_dict(), indent=1), encoding="utf-8")
        os.replace(temporary, self.rules_path)

    def _load_rules(self) -> None:
        assert self.learner is not None and self.rules_path is not None
        try:
            data = json.loads(self.rules_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            logger.warning("Ignoring unreadable learned rules in %s: %s", self.rules_path, exc)
            return
        self.learner.load_dict(data)
        logger.info("Resumed %d learned rule(s) from %s", len(self.learner.active_rules()), self.rules_path)

    # -- lifecycle ----------------------------------------------------------------------

    def count(self, key: str, count: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(key, count)

    def summary(self) -> dict[str, Any]:
        """The close-time figures (also written to stats by :meth:`close`)."""
        figures: dict[str, Any] = {
            "unique_fingerprints": len(self.seen),
            "downloads": self.downloads,
            "duplicate_downloads": self.duplicate_downloads,
            "redundancy_rate": round(self.duplicate_downloads / self.downloads, 4) if self.downloads else 0.0,
            "audits": self.audits,
            "audit_mismatches": self.audit_mismatches,
        }
        if self.audits:
            figures["coverage_loss_estimate"] = round(self.audit_mismatches / self.audits, 4)
            figures["coverage_loss_upper"] = round(wilson_upper(self.audit_mismatches, self.audits), 4)
        return figures

    def memory_figures(self) -> dict[str, int]:
        """How full each bounded structure is, at close in ``urlnorm/memory/*``
        (entries; ``seen_table_bytes`` and ``page_digest_bytes`` in bytes)."""
        table = getattr(self.seen, "table", None)
        figures = {
            "seen_table_bytes": table.nbytes if table is not None else 0,
            "page_digest_bytes": self.page_digests.nbytes,
            "normalization_cache": len(self._cache),
            "parked_requests": self._parked_count,
            "page_digests_for_audits": len(self._digests),
            "hosts_with_pages_for_rekeying": len(self._host_pages),
            "invalid_hosts_logged": len(self._invalid_hosts),
        }
        if self.learner is not None:
            figures.update(self.learner.sizes())
        return figures

    def close(self, *args: Any, **kwargs: Any) -> None:
        if self._closed:
            return
        self._closed = True
        if self.stats is not None:
            for key, value in self.summary().items():
                if key not in ("audits", "audit_mismatches"):  # counted as they happen
                    self.stats.set_value(f"urlnorm/{key}", value)
            for key, value in self.memory_figures().items():
                self.stats.set_value(f"urlnorm/memory/{key}", value)
        self._save_rules()
        self.seen.close()
        if self.shared_rules is not None and self.stats is not None:
            self._aggregate_stats()

    def _aggregate_stats(self) -> None:
        """Add this worker's counters to the crawl's totals in Redis, and put
        the totals so far in ``urlnorm/all_workers/*``."""
        assert self.shared_rules is not None and self.stats is not None
        counters = {
            key.removeprefix("urlnorm/"): value
            for key, value in self.stats.get_stats().items()
            if key.startswith("urlnorm/") and isinstance(value, int) and not key.startswith("urlnorm/all_workers/")
        }
        try:
            totals = aggregate_counters(
                self.shared_rules.client, self.shared_rules.key.removesuffix(":rules") + ":stats", counters
            )
        except Exception as exc:
            logger.warning("Could not add this worker's counters to the totals in Redis: %s", exc)
            return
        for name, value in totals.items():
            self.stats.set_value(f"urlnorm/all_workers/{name}", value)

    def clear(self) -> None:
        """Forget every fingerprint (scrapy-redis calls this to reset a crawl)."""
        self.seen.clear()
        self._cache.clear()
        self._first_urls.clear()
        if self.shared_rules is not None:
            self.shared_rules.clear()
