"""Checks every seeded generator's webs pass alike: one web per seed, every document
collected by stock Scrapy (over the data: :meth:`QuirksWeb.check` and a simulated stock
crawl), every kind drawn with its exceptions; and what a kind's spellings answer."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any
from urllib.parse import urljoin

from demoweb.randomweb import REDIRECT_STATUSES, doc_id_of

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


def assert_moves(web: Any, url: str, to: str, statuses: frozenset[int] = REDIRECT_STATUSES) -> None:
    """``url`` redirects (with a status of ``statuses``) and ends at ``to``'s document."""
    assert web.fetch(url).status in statuses, (url, web.fetch(url).status)
    assert web.resolve(url) == web.resolve(to) is not None, (url, to)


def assert_other_document(web: Any, url: str, than: str) -> None:
    """``url`` is a document of its own, not the one ``than`` leads to."""
    assert web.resolve(url) not in (None, web.resolve(than)), (url, than)


def assert_behind(web: Any, site: Any, page_url: str, href: str) -> None:
    """``href`` written on the page at ``page_url`` leads to a page linked nowhere else."""
    assert href in next(page for page in site.pages if page.url == page_url).links, (page_url, href)
    assert web.resolve(urljoin(page_url, href)) in site.hidden, (page_url, href)


# -- finding a kind's hosts and what their spellings answer ----------------------------------------


def sites_of(generate: Generate, kind: type, seeds: Iterable[int]) -> Iterator[tuple[Any, Any]]:
    """(web, host) for each host of ``kind`` in the webs of ``seeds``, in seed order."""
    for seed in seeds:
        web = generate(seed)
        for site in web.hosts:
            if isinstance(site, kind):
                yield web, site


def quiet_site(generate: Generate, kind: type, seeds: Iterable[int], nth: int = 0) -> tuple[Any, Any]:
    """The ``nth`` host of ``kind`` without a visitor counter or rotating ads (bytes that change)."""
    quiet = ((web, site) for web, site in sites_of(generate, kind, seeds) if not (site.counter or site.ads))
    return next(itertools.islice(quiet, nth, None))


def links_to(web: Any, source: Any, page: Any) -> bool:
    """Whether ``source`` links ``page``'s URL, as Scrapy resolves its links."""
    return bool(page.url in web.links_of(source.url, web.fetch(source.url).body))


def assert_same_bytes(web: Any, first: str, *others: str) -> None:
    """``first`` and ``others`` answer one page byte for byte (no counter, ads or gzip in the way)."""
    body = web.fetch(first).body
    assert doc_id_of(web.fetch(first)), first
    for url in others:
        reply = web.fetch(url)
        assert reply.status == 200 and reply.body == body, (first, url, reply.status)


def assert_in_other_bytes(web: Any, first: str, *others: str) -> None:
    """``others`` answer ``first``'s document with ``200``, in other bytes."""
    for url in others:
        reply = web.fetch(url)
        assert reply.status == 200 and reply.body != web.fetch(first).body, (first, url)
        assert web.resolve(url) == web.resolve(first) is not None, (first, url)


def assert_spellings_lead_to_their_pages(
    web: Any, seed: int, site_class: type, *, hidden_spelled: bool = False
) -> None:
    """What the evidence links and the pen's variants draw from: each spelling ends at its page's
    document; each exception is linked once (late), and what hides behind it from it alone.
    ``hidden_spelled``: a page behind an exception may have spellings of its own."""
    for site in web.hosts:
        assert isinstance(site, site_class)
        for page in site.pages:
            if page.doc_id in site.late or page.doc_id in site.hidden:
                spelled = hidden_spelled and page.doc_id in site.hidden
                assert spelled or not site.spellings(page), (site.kind, page.url)
                assert web.resolve(page.url) == page.doc_id
                linking = [other for other in site.pages if links_to(web, other, page)]
                assert len(linking) == 1, (seed, page.url, [other.url for other in linking])
                continue
            for url in site.spellings(page):
                assert url != page.url and web.resolve(url) == page.doc_id, (seed, site.kind, page.url, url)
