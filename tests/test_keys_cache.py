"""The normalization cache of request keys answers exactly what normalizing would."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import POLICIES, urls

from scrapy_urlnorm import InvalidURL, Policy
from scrapy_urlnorm.keys import RequestKeys
from scrapy_urlnorm.normalize import normalize_with_rank


def _expected(url: str, policy: Policy) -> tuple[str | None, int]:
    try:
        return normalize_with_rank(url, policy)
    except InvalidURL:
        return None, 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(urls(), min_size=1, max_size=6), st.sampled_from(POLICIES))
def test_cached_answers_equal_normalizing(batch: list[str], policy: Policy) -> None:
    keys = RequestKeys(policy, cache_size=8)
    variants = [v for url in batch for v in (url, url + "#a", url + "#!b", url + " #c", url.partition("#")[0])]
    for _ in range(2):  # the second pass answers from the cache
        for url in variants:
            assert keys.normalize(url) == _expected(url, policy), url


def test_a_hashbang_behind_a_tab_is_a_hashbang_cached_or_not() -> None:
    """Parsing drops tabs and newlines, so ``#\t!`` is ``#!``, kept where the policy keeps
    hashbangs. The cache and the normalizer's fast check took it for a fragment to drop
    (found by the property test above, in CI): the cache then answered the page's own
    URL with the hashbang form, and the normalizer answered ``#\t!`` both ways."""
    policy = Policy(keep_hashbang=True)
    keys = RequestKeys(policy, cache_size=8)
    for url in ("http://example.com/a#\t!p", "http://example.com/a", "http://example.com/a#\n!p"):
        for _ in range(2):
            assert keys.normalize(url) == _expected(url, policy) == _expected(url, policy), url
    assert keys.normalize("http://example.com/a#\t!p")[0] == "http://example.com/a#!p"


def test_anchors_of_a_page_share_an_entry_and_navigation_stays_cached() -> None:
    keys = RequestKeys(Policy.preset("default"), cache_size=4096)
    menu = [f"https://docs.example.org/3/{name}.html" for name in ("index", "genindex", "modindex", "search")]
    rng = random.Random(1)
    for page in range(3000):
        for link in menu:
            keys.normalize(link)
        for _ in range(5):
            keys.normalize(f"https://docs.example.org/3/library/m{page}.html#anchor-{rng.randrange(10**6)}")
    # every anchor of a page normalized once; the menu, used on every page, stayed cached
    assert keys._misses == 3000 + len(menu)
    assert keys.cache_size() <= 4096
