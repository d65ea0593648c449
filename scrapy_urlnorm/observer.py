"""What responses teach, and what the filter does when a rule changes.

:class:`RuleKeeper` sits between the learner and the filter:

- it feeds the learner redirects and 200 pages, always as the URLs were
  fetched (normalized by the static policy only): evidence judged through the
  active rules would hide the very pairs that contradict them;
- it settles audits;
- when a rule becomes active it rebuilds the host's learned policy and stores
  the learned keys of the host's delivered pages; when a rule is revoked the
  ledger releases what learned rules dropped on that host;
- it shares rules and evidence with the other workers of a Redis crawl.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from typing import TYPE_CHECKING, Any

from . import meta as M
from .blame import delivered_at, merging_rules
from .callbacks import callback_salt
from .catch_all import release_caught
from .hostrules import conflicts_with_active, shortcut_held
from .keys import host_of
from .learning import VERIFIED_FAMILIES, Rule
from .rule_exchange import adopt_rule
from .sections import sections_of
from .stores import aggregate_counters

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy import Request

    from .dedup import Deduplicator

logger = logging.getLogger(__name__)


class RuleKeeper:
    def __init__(self, dedup: Deduplicator) -> None:
        assert dedup.learner is not None and dedup.learned is not None
        self.dedup = dedup
        self.learner = dedup.learner
        self.learned = dedup.learned
        self._active_families: Counter[str] = Counter()
        #: Each rule as last rebuilt for: whether active, how many sections it was narrowed out of.
        self._rebuilt_for: dict[tuple[str, str], tuple[bool, int]] = {}
        self.learner.section_of = lambda a, b: sections_of(a, b, self.learned.section_of)
        self.learner.folder_of = lambda a, b: sections_of(a, b, self.learned.folder_of)

    # -- observations -------------------------------------------------------------------

    def observe_redirect(self, source: str, target: str) -> None:
        source_url, target_url = self.dedup.normalize(source)[0], self.dedup.normalize(target)[0]
        if source_url and target_url:
            self.learner.observe_redirect(source_url, target_url)

    def observe_page(
        self,
        request: Request,
        url: str,
        digest: int,
        *,
        length: int,
        server: str,
        canonical: str | None,
        location: str | None = None,
        relative_links: bool = False,
    ) -> None:
        """A 200 page; ``location``: the file its ``Content-Location`` named (normalized);
        ``relative_links``: it has links relative to its directory."""
        observed = self.dedup.normalize(url)[0]
        if observed is None:
            return
        if request.method == "GET" and M.AUDIT not in request.meta:
            salt = callback_salt(request)
            self.dedup.pages.remember(host_of(observed), request.url, salt)
            if self.dedup.on_page is not None:
                self.dedup.on_page(request, salt)
            if self.dedup.narrow is not None:
                self.dedup.narrow.delivered(request, observed)
        differs = self.learner.observe_page(
            observed, digest, length=length, server=server, relative_links=relative_links
        )
        if differs and self.dedup.depths is not None and request.method == "GET":
            # A page of its own beside a URL a rule merges it with: a later link to it,
            # shallower, is fetched though that rule drops it (see ``ClaimDepths.own_page``).
            self.dedup.depths.own_page(self.dedup.keys.static(request).value, request)
        if self.dedup.directory_probes is not None:
            self.dedup.directory_probes.delivered(request, observed)
        for caught, hosts in self.learner.pages.take_caught():
            for host in hosts:
                release_caught(self.dedup, host, caught)
        if location:
            self.learner.observe_content_location(observed, location)
        if canonical:
            canonical_url = self.dedup.normalize(canonical)[0]
            if canonical_url and canonical_url != observed:
                self.learner.observe_canonical(observed, canonical_url)

    def audit_failed(
        self, request: Request, reason: str, host: str, digest: int | None = None, key: int | None = None
    ) -> None:
        """An audit found another page than its representative's (of ``key``): the rule
        that merged them is wrong, unless a rule verified on every drop is to blame: it
        already met a URL of its own at that path (``/readme`` beside ``/readme.html``),
        or the audit's page (``digest``) is the one the host's other rules alone merge it
        with. A key may combine several rules (``www.h/readme`` = ``h/readme.html``) and
        the audit names only one: where the URL that delivered the representative's page
        is known, and that rule's aspect of it is the audited URL's, the rules whose
        aspect differs are blamed instead (see :mod:`scrapy_urlnorm.blame`)."""
        family = reason.removeprefix("learned:")
        rules = self.learned.rules_of(host)
        url = self.dedup.normalize(request.url)[0]
        verified = [rule for rule in rules if rule.family.value in VERIFIED_FAMILIES]
        known = [rule for rule in verified if url is not None and rule.excepts(url)]
        if not known and digest is not None and self._held_without_verified(request, host, digest):
            known = verified
        blamed = known or [rule for rule in rules if rule.family.value == family]
        if not known and key is not None:
            merging = merging_rules(rules, request.url, delivered_at(self.dedup, request, key, host))
            if merging and not any(rule in merging for rule in blamed):
                blamed = merging
        for rule in blamed:
            self.learner.contradict(rule.host, rule.kind, url or request.url, "?")

    def _held_without_verified(self, request: Request, host: str, digest: int) -> bool:
        """Whether ``request``'s URL under ``host``'s rules less the ``VERIFIED_FAMILIES``
        ones (its narrow policy) is another URL, fetched before, that answered ``digest``:
        then those rules held (``www.h/readme`` is ``h/readme``) and what merged it with
        another page is a verified rule (``/readme`` with ``/readme.html``)."""
        narrow = self.learned.narrow_by_host.get(host)
        if narrow is None:
            return False
        keys = self.dedup.keys
        narrow_url = keys.normalize_with(request.url, narrow.policy)[0]
        if narrow_url is None:
            return False
        there = keys.static(request.replace(url=narrow_url)).value
        return there != keys.static(request).value and self.dedup.audits.auditor.answer(there) == digest

    def shortcut_fell_back(self, link: Request) -> None:
        """A URL sent in its taught form answered an error; ``link``, as written, is
        fetched now, so it leaves the ledger where it was parked."""
        url = self.dedup.normalize(link.url)[0]
        if url is None:
            return
        host = host_of(url)
        self.dedup.ledger.forget_request(host, link)
        self.dedup.ledger.forget_request(host.removeprefix("www."), link)

    def shortcut_contradicted(self, original: str, sent: str, final: str) -> None:
        """A link delivered as written (at ``final``, after its redirects) where its
        taught form ``sent`` failed: a rule that rewrote it does not hold. Those
        whose part of the rewrite the site confirmed (``/x`` -> ``www.h/x``, where
        the shortcut also added a slash) stand, even when every rule in force did:
        the part that failed was then rewritten by a rule revoked since."""
        url = self.dedup.normalize(original)[0]
        if url is None:
            return
        rules = self.learned.shortcut_rules(host_of(url))
        wrong = [rule for rule in rules if not shortcut_held(rule, sent, final)]
        for rule in wrong:
            self.learner.contradict(rule.host, rule.kind, original, sent, via="shortcut")

    # -- rule changes -------------------------------------------------------------------

    def changed(self, rule: Rule) -> None:
        # Before the rebuild: whether this rule takes an active one out of use.
        displaces = rule.active and conflicts_with_active(rule, self.learner.active_rules(rule.host))
        hosts = self.learned.rebuild(rule)
        # Under its rules now, revoked or not: a revocation leaves the host's other
        # rules active, and what it releases is checked again against its pages.
        for host in hosts:
            self._rekey(host)
        self.dedup.audits.answers.rekey(hosts)
        if self.dedup.shared_rules is not None:
            self.dedup.shared_rules.publish(f"{rule.host}|{rule.kind}", json.dumps(rule.as_dict(), sort_keys=True))
        was_active, was_excluded = self._rebuilt_for.get((rule.host, rule.kind), (False, 0))
        self._rebuilt_for[(rule.host, rule.kind)] = (rule.active, len(rule.excluded))
        if rule.active != was_active:
            self._count_rule(rule)
        if not rule.active:
            self.dedup.count("urlnorm/revoked_rules")
        # A rule narrowed out of a section released what it dropped there, as a revoked
        # one does: every learned drop of the host is checked again under its rules now.
        narrowed = was_active and rule.active and len(rule.excluded) > was_excluded
        if narrowed:
            self.dedup.count("urlnorm/narrowed_rules")
        if not rule.active or displaces or narrowed:
            for host in hosts:
                self.dedup.ledger.revoke_host(host)
        if rule.active and not was_active and rule.kind == "www_alias" and self.dedup.directory_probes is not None:
            self.dedup.directory_probes.learned(rule.host.removeprefix("www."))
        self.dedup.rules_file.save(self.learner)

    def _rekey(self, host: str) -> None:
        """Store the learned keys, under the host's new rules, of the pages
        already delivered from it, so their variants are found."""
        self._store_learned_keys(self.dedup.pages.of(host))

    def restore_pages(self, pages: Iterable[tuple[str, int]]) -> set[int]:
        """Pages earlier runs of a ``JOBDIR`` crawl delivered, each handled completely
        (URL, callback salt): remembered again, their learned keys under the rules now
        stored; returns those keys. A recovered request does not take one for its own:
        its check at download time drops it against that page, as in one run."""
        restored = []
        for url, salt in pages:
            normalized = self.dedup.normalize(url)[0]
            if normalized is not None:
                self.dedup.pages.remember(host_of(normalized), url, salt)
                restored.append((url, salt))
        return set(self._store_learned_keys(restored))

    def _store_learned_keys(self, pages: Iterable[tuple[str, int]]) -> list[int]:
        """Store the learned key of each page (URL, callback salt) under its host's rules
        now; returns them."""
        from scrapy import Request

        dedup = self.dedup
        stored = []
        for url, salt in list(pages):
            request = Request(url)  # (its callback's keys are its salt away: see callbacks.py)
            fingerprint = dedup.fingerprint(request)
            if salt:
                learned = None if fingerprint.learned is None else fingerprint.learned ^ salt
                fingerprint = fingerprint._replace(value=fingerprint.value ^ salt, learned=learned)
            if dedup.narrow is not None and fingerprint.url is not None:
                dedup.narrow.delivered(request, fingerprint.url, salt)
            if fingerprint.learned is not None:
                dedup.seen.add(fingerprint.learned, fingerprint.learned_rank)
                # Drops matched under the new key can be checked against the page.
                dedup.audits.alias(fingerprint.value, fingerprint.learned)
                if dedup.depths is not None:
                    dedup.depths.alias(fingerprint.value, fingerprint.learned)
                stored.append(fingerprint.learned)
        return stored

    def _count_rule(self, rule: Rule) -> None:
        """Count a rule that just became active (or stopped being), by kind."""
        family = rule.family.value
        self._active_families[family] += 1 if rule.active else -1
        stats = self.dedup.stats
        if stats is not None:
            stats.set_value("urlnorm/learned_rules", sum(self._active_families.values()))
            stats.set_value(f"urlnorm/learned/{family}", self._active_families[family])

    # -- distributed crawls -------------------------------------------------------------

    def adopt_shared(self, *, now: bool = False) -> None:
        shared = self.dedup.shared_rules
        assert shared is not None
        for state in shared.changes(now=now).values():
            adopt_rule(self.learner, json.loads(state))

    def share_evidence(self, rule: Rule, pair: int | None) -> int:
        """Learner hook: record a pair for all workers (or a contradiction); the pairs found together."""
        shared = self.dedup.shared_rules
        assert shared is not None
        field = f"{rule.host}|{rule.kind}"
        if pair is None:
            shared.publish(field, json.dumps(rule.as_dict(), sort_keys=True))
            return 0
        return shared.add_pair(field, pair)

    def aggregate_stats(self) -> None:
        """Add this worker's counters to the crawl's totals in Redis, and put
        the totals so far in ``urlnorm/all_workers/*``."""
        shared, stats = self.dedup.shared_rules, self.dedup.stats
        assert shared is not None and stats is not None
        self.dedup.publish_counts()
        counters: dict[str, Any] = {
            key.removeprefix("urlnorm/"): value
            for key, value in stats.get_stats().items()
            if key.startswith("urlnorm/") and isinstance(value, int) and not key.startswith("urlnorm/all_workers/")
        }
        try:
            totals = aggregate_counters(shared.client, shared.key.removesuffix(":rules") + ":stats", counters)
        except Exception as exc:
            logger.warning("Could not add this worker's counters to the totals in Redis: %s", exc)
            return
        for name, value in totals.items():
            stats.set_value(f"urlnorm/all_workers/{name}", value)
