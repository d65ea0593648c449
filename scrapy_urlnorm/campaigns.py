"""Campaign parameters: kept in a link's key, each page checked with each value.

The default policy removes tracking parameters. Click ids (``gclid``, ``fbclid``...) and
``utm_source``/``utm_medium`` say where a visitor came from, and no site serves another page
for them. Campaign parameters (``utm_campaign``, ``utm_content``, ``utm_term``...) say what
the visitor was promised, and a landing page may read them: an edge worker in front of a
static site serves ``/lp/spring?utm_campaign=spring-sale`` as the campaign's own page (and its
coupon link), ``/lp/spring?utm_campaign=brand`` as the plain page. Stock Scrapy fetches that
link; dropped against ``/lp/spring``, the campaign's page and what it links were lost
(``bench_differential.py --web hosting``, the ``edge`` kind).

So where the policy removes a campaign parameter, a link's keys (static, learned and a
section's alike) keep it, with its value: each page is fetched once with each campaign
value its links carry, as stock fetches it (the spellings of its other tracking
parameters, its fragment and the rest of the policy still merge). A value is never
trusted on one page because it answered the plain page on others: a newsletter tags its
links to six products and the landing page with one campaign, and only the landing page
reads it (a value trusted on its site after two such answers lost the campaign's page,
``tests/test_campaigns.py``). Where the plain page delivered with an entity tag, the check
is a conditional request (:mod:`scrapy_urlnorm.twins`): a ``304`` costs no download.

What the checks' pages show is kept for the report: a value that answered another page
than the plain one counts its parameter as read on that site (``urlnorm/campaign_params_read``).
The decision is made once per URL and remembered (:data:`URLS_REMEMBERED`), so the keys of a
request never change while it is pending.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from .normalize import host_key
from .recent import put_recent
from .urlparts import split_url

if TYPE_CHECKING:
    from .policy import Policy

logger = logging.getLogger(__name__)

#: Tracking parameters that may name content: a campaign, its variant, its keyword.
CAMPAIGN_PARAMS: frozenset[str] = frozenset(
    {
        "utm_campaign", "utm_content", "utm_term", "utm_id",
        "mtm_campaign", "mtm_content", "mtm_kwd", "mtm_keyword", "mtm_cid",
        "matomo_campaign", "matomo_content", "matomo_kwd", "matomo_keyword",
        "pk_campaign", "pk_cpn", "pk_content", "pk_kwd", "pk_keyword",
    }
)  # fmt: skip
#: Decisions remembered, by URL (beyond: the oldest are made again, and counted again).
URLS_REMEMBERED = 100_000
#: Plain pages a campaign spelling delivered first waits for, and spellings per plain page.
WAITING_REMEMBERED = 10_000
WAITING_PER_PAGE = 8
#: Parameters of sites seen reading them, for the report.
READ_REMEMBERED = 10_000

_HINT = re.compile(r"[?&;](?:" + "|".join(sorted(CAMPAIGN_PARAMS)) + ")", re.IGNORECASE)


def _site(url: str) -> str:
    """``url``'s host, ``www.`` twins as one: a campaign's tags are the site's, whichever twin shows them."""
    try:
        return host_key(split_url(url).host).removeprefix("www.")
    except ValueError:
        return ""


def _checked(policy: Policy) -> frozenset[str]:
    """The campaign parameters ``policy``'s tracking step removes and the user named nowhere
    (a name kept, or listed for removal, is the user's decision)."""
    named = policy.keep_params | policy.remove_params | policy.ignore_params
    return CAMPAIGN_PARAMS - {name.lower() for name in named}


def _query_pairs(url: str) -> list[str]:
    query = url.partition("#")[0].partition("?")[2]
    return [pair for pair in query.split("&") if pair]


def _name(pair: str) -> str:
    return pair.partition("=")[0].lower()


class CampaignChecks:
    """Which campaign parameters a link's keys keep, and which sites were seen reading them."""

    def __init__(self, policy: Policy, count: Callable[[str], None] | None = None) -> None:
        self.policy = policy
        self.names = _checked(policy) if policy.tracking_params or policy.remove_params else frozenset()
        if policy.host_policies:
            # (Checked per host then: one may switch the step off or keep a parameter.)
            self.names = CAMPAIGN_PARAMS
        self.sort = policy.sort_query
        self.count = count
        self._decided: OrderedDict[str, str] = OrderedDict()  # URL -> the pairs its keys keep ("&"-joined)
        self._read: set[tuple[str, str]] = set()  # (site, name): a value answered another page
        self._waiting: OrderedDict[int, list[tuple[str, int]]] = OrderedDict()  # plain key -> (URL, digest)

    # -- keys ---------------------------------------------------------------------------------

    def kept(self, url: str) -> str:
        """The campaign pairs (``"&"``-joined, sorted) ``url``'s keys keep, or ``""``."""
        if not self.names or _HINT.search(url) is None:
            return ""
        url = url.partition("#")[0]
        decided = self._decided.get(url)
        if decided is not None:
            return decided
        names = self.names
        if self.policy.host_policies:
            try:
                policy = self.policy.for_host(host_key(split_url(url).host))
            except ValueError:
                policy = self.policy
            names = _checked(policy) if policy.tracking_params or policy.remove_params else frozenset()
        kept = sorted(pair for pair in _query_pairs(url) if _name(pair) in names)
        decided = "&".join(kept)
        put_recent(self._decided, url, decided, URLS_REMEMBERED)
        if decided and self.count is not None:
            self.count("urlnorm/campaign_links_kept_apart")
        return decided

    def keep(self, url: str, normalized: str) -> str:
        """``normalized`` (``url`` under a policy) with the campaign pairs ``url``'s keys keep
        that the policy removed put back, in query order."""
        kept = self.kept(url)
        if not kept:
            return normalized
        head, hash_mark, fragment = normalized.partition("#")
        base, _, query = head.partition("?")
        pairs = [pair for pair in query.split("&") if pair]
        present = {_name(pair) for pair in pairs}
        added = [pair for pair in kept.split("&") if _name(pair) not in present]
        if not added:
            return normalized
        pairs += added
        if self.sort:
            pairs.sort(key=lambda pair: pair.partition("=")[0])
        return f"{base}?{'&'.join(pairs)}{hash_mark}{fragment}"

    def plain(self, url: str) -> str | None:
        """``url`` without the campaign pairs its keys keep (``None``: it keeps none)."""
        kept = self.kept(url)
        if not kept:
            return None
        dropped = set(kept.split("&"))
        head, hash_mark, fragment = url.partition("#")
        base, _, query = head.partition("?")
        rest = "&".join(pair for pair in query.split("&") if pair and pair not in dropped)
        return f"{base}{'?' if rest else ''}{rest}{hash_mark}{fragment}"

    # -- evidence -----------------------------------------------------------------------------

    def delivered(
        self, url: str, digest: int, plain_keys: tuple[int, ...], plain_digest: int | None, *, had: bool = False
    ) -> None:
        """``url``, whose keys keep campaign pairs, delivered a page with ``digest``; its
        plain URL's keys are ``plain_keys``, whose page had ``plain_digest``. Not known yet:
        a page the crawl had already (``had``: another URL's, byte for byte) says the value
        selected nothing new there; else ``url`` waits for its plain page
        (:meth:`plain_delivered`), which may never be linked as such."""
        if plain_digest is not None or had:
            self.answered(url, same=digest == plain_digest if plain_digest is not None else True)
            return
        for key in plain_keys:
            waiting = self._waiting.get(key)
            if waiting is None:
                put_recent(self._waiting, key, [(url, digest)], WAITING_REMEMBERED)
            elif len(waiting) < WAITING_PER_PAGE:
                waiting.append((url, digest))

    def plain_delivered(self, keys: tuple[int, ...], digest: int) -> None:
        """A page with ``keys`` delivered ``digest``: settle the campaign spellings waiting for it."""
        if not self._waiting:
            return
        for key in keys:
            for url, seen in self._waiting.pop(key, ()):
                self.answered(url, same=seen == digest)

    def answered(self, url: str, *, same: bool) -> None:
        """``url``'s page is (``same``) or is not the page of its plain URL: a parameter
        read is reported (its values are kept apart as every campaign value is)."""
        kept = self.kept(url)
        if same or not kept:
            return
        site = _site(url)
        for name in sorted({_name(pair) for pair in kept.split("&")}):
            if (site, name) not in self._read and len(self._read) < READ_REMEMBERED:
                self._read.add((site, name))
                logger.info("%s serves another page than without %s", url, name)
                if self.count is not None:
                    self.count("urlnorm/campaign_params_read")

    def sizes(self) -> dict[str, int]:
        return {
            "campaign_urls": len(self._decided),
            "campaign_waiting": len(self._waiting),
        }
