"""Checks every seeded generator's webs pass alike: one web per seed, every document
collected by stock Scrapy (over the data: :meth:`QuirksWeb.check` and a simulated stock
crawl), every kind drawn with its exceptions."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

Generate = Callable[..., Any]


def _fingerprint(web: Any) -> list[object]:
    return [web.describe(), web.start_urls, [(page.url, page.links) for page in web.pages]]


def assert_same_seed_same_web(generate: Generate) -> None:
    for seed in (0, 5, 17):
        assert _fingerprint(generate(seed)) == _fingerprint(generate(seed))
    assert _fingerprint(generate(1)) != _fingerprint(generate(2))


def assert_stock_collects_every_document(generate: Generate, seeds: Iterable[int], **conditions: bool) -> None:
    for seed in seeds:
        web = generate(seed, **conditions)
        if not conditions:
            assert 3 <= len(web.hosts) <= 5
            assert 20 <= len(web.documents) <= 90, (seed, len(web.documents))
        assert not web.check(), (seed, web.check(), web.describe())
        assert web.simulate_stock()[1] == web.documents, seed


def assert_every_kind_drawn(generate: Generate, site_class: type, kinds: Collection[str]) -> None:
    drawn: set[str] = set()
    for seed in range(40):
        for site in generate(seed).hosts:
            assert isinstance(site, site_class)
            assert site.late and site.traps, site.kind
            drawn.add(site.kind)
    assert drawn == set(kinds)
