"""Build a crawler's :class:`~scrapy_urlnorm.dedup.Deduplicator` from its settings, once."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.job import job_dir

from .audits import check_rate
from .campaigns import CampaignChecks
from .canary import TagCanary
from .config import validate_settings
from .depths import ClaimDepths
from .holdback import HoldBack
from .keys import is_default_fingerprinter
from .persistence import ABANDONED_FILE, FAILED_FILE, RULES_FILE, SEEN_FILE
from .policy import Policy
from .resume import PENDING_FILE, PendingFile
from .session_links import SESSION_LINKS_FILE, SessionLinkedPages
from .stores import RedisRules, RedisStore, SeenStore
from .twin_dirs import DirectoryProbes
from .twins import TwinProbes
from .validators import EntityTags

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

    from .dedup import Deduplicator

logger = logging.getLogger(__name__)


def redis_url(settings: Any) -> str | None:
    """``URLNORM_REDIS_URL``, else scrapy-redis' ``REDIS_URL`` or ``REDIS_HOST``/``REDIS_PORT``."""
    url = settings.get("URLNORM_REDIS_URL") or settings.get("REDIS_URL")
    if url:
        return str(url)
    if settings.get("REDIS_HOST"):
        return f"redis://{settings.get('REDIS_HOST')}:{settings.getint('REDIS_PORT', 6379)}"
    return None


def redis_backend(crawler: Crawler, bits: int) -> tuple[SeenStore | None, RedisRules | None]:
    url = redis_url(crawler.settings)
    if url is None:
        return None, None
    from .redis_queue import STATE_LOST, close_spider
    from .redis_setup import redis_client

    settings = crawler.settings
    client = redis_client(settings, url)
    key = settings.get("URLNORM_REDIS_KEY", "%(spider)s:urlnorm") % {"spider": crawler.spidercls.name}
    stats = crawler.stats

    def count(name: str) -> None:
        if stats is not None:
            stats.inc_value(name)

    store = RedisStore(
        client,
        key + ":seen",
        bits=bits,
        count=count,
        url=url,
        bucket_bits=settings.getint("URLNORM_REDIS_BUCKET_BITS", 15),
    )
    logger.info("scrapy-urlnorm shares its seen set and learned rules through Redis at %s (key %s)", url, key)
    interval = settings.getfloat("URLNORM_REDIS_SYNC_INTERVAL", 2.0)
    rules = RedisRules(client, key + ":rules", interval=interval)

    def lost(why: str) -> None:
        rules.disable()
        close_spider(crawler, STATE_LOST)

    store.link.on_lost = lost
    return store, rules


def build_deduplicator(cls: type[Deduplicator], crawler: Crawler) -> Deduplicator:
    settings = crawler.settings
    validate_settings(settings)  # done already if the add-on is on: then it returns at once
    bits = settings.getint("URLNORM_FINGERPRINT_BITS", 64)
    if bits not in (64, 128):
        raise ValueError(f"URLNORM_FINGERPRINT_BITS must be 64 or 128, not {bits}")
    audit_rate = check_rate(settings.get("URLNORM_AUDIT_RATE", 0.02))
    jobdir = job_dir(settings)
    store, shared_rules = redis_backend(crawler, bits)
    fingerprinter = crawler.request_fingerprinter

    def reschedule(request: Request) -> None:
        crawler.engine.crawl(request)  # type: ignore[union-attr]

    dedup = cls(
        Policy.from_settings(settings),
        bits=bits,
        path=Path(jobdir, SEEN_FILE) if jobdir else None,
        failed_path=Path(jobdir, FAILED_FILE) if jobdir else None,
        abandoned_path=Path(jobdir, ABANDONED_FILE) if jobdir else None,
        debug=settings.getbool("URLNORM_DEBUG") or settings.getbool("DUPEFILTER_DEBUG"),
        stats=crawler.stats,
        fallback=fingerprinter.fingerprint,
        custom_fingerprinter=not is_default_fingerprinter(fingerprinter),
        cache_size=settings.getint("URLNORM_CACHE_SIZE", 4096),
        learn=settings.getbool("URLNORM_LEARN", True),
        min_evidence=settings.getint("URLNORM_LEARN_MIN_EVIDENCE", 2),
        audit_rate=audit_rate,
        rules_path=Path(jobdir, RULES_FILE) if jobdir else None,
        reschedule=reschedule,
        store=store,
        shared_rules=shared_rules,
    )
    crawler.signals.connect(dedup.close, signal=signals.spider_closed)
    resumed = store is None and settings.getint("DEPTH_LIMIT") > 0 and len(dedup.seen) > 0
    dedup.depths = ClaimDepths.for_crawl(settings, jobdir, resumed=resumed, bits=bits, shared=dedup.distributed)
    if dedup.depths is not None and isinstance(store, RedisStore):
        store.link.depth_of = dedup.depths.claim_depth
        store.on_depth = dedup.depths.claimed_elsewhere
    if settings.getbool("COOKIES_ENABLED"):
        # (with JOBDIR but not Redis: a worker's cookie jar is its own, and so is this)
        path = Path(jobdir, SESSION_LINKS_FILE) if jobdir and store is None else None
        dedup.session_links = SessionLinkedPages(lambda: crawler.spider, path=path, bits=bits)
    if jobdir and store is None:
        dedup.pending_file = PendingFile(Path(jobdir, PENDING_FILE), dedup.count)
    dedup.forbidden.active = settings.getbool("ROBOTSTXT_OBEY") and dedup.learner is not None
    if settings.getbool("URLNORM_VERIFY_CAMPAIGNS", True):
        dedup.keys.campaigns = CampaignChecks(dedup.policy, dedup.count)
    if dedup.learned is not None:
        dedup.learned.verify_taught = settings.getbool("URLNORM_VERIFY_REDIRECT_RULES", True)
    if dedup.learner is not None:
        dedup.audits.spellings.send = reschedule
        dedup.audits.spellings.count = dedup.count
        dedup.directory_probes = DirectoryProbes(
            dedup, reschedule, lambda: getattr(getattr(crawler, "spider", None), "allowed_domains", None)
        )
    if settings.getbool("URLNORM_CONDITIONAL_AUDITS", True) and not settings.getbool("HTTPCACHE_ENABLED"):
        dedup.audits.cheap.tags = EntityTags()  # (the cache would store the 304 as the URL's page)
        dedup.audits.cheap.tags.canary = TagCanary(reschedule, dedup.count)
        if dedup.learner is not None:
            dedup.twins = TwinProbes(dedup)
    if (
        dedup.learner is not None
        and settings.getbool("URLNORM_HOLD_BACK", True)
        and store is None  # other workers share the seen set and the rules
    ):
        # With JOBDIR a held request is journaled (kill -9 must not lose it), once the
        # crash-safe scheduler gives the journal: without one, nothing is held.
        journal = dedup.holds if jobdir else None
        dedup.holdback = HoldBack(dedup.learner, reschedule, dedup.count, dedup.is_pending_url, journal=journal)

    def release_at_idle(spider: Spider | None = None) -> None:
        # Nothing is in flight: a representative still pending can no longer
        # deliver. What was dropped against it is scheduled again; once nothing is,
        # what was dropped where no rule was vouched for is audited.
        scheduled = dedup.settling.release_orphans()
        if not scheduled and dedup.unvouched is not None:
            scheduled = dedup.unvouched.sweep()
        if scheduled:
            raise DontCloseSpider

    dedup.idle_handler = release_at_idle  # signal receivers are held weakly
    crawler.signals.connect(release_at_idle, signal=signals.spider_idle)
    return dedup
