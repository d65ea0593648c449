"""The link variants of ``benchmarks/bench_real_servers.py`` are drawn per page, not per spelling.

A page's links are written the same whatever spelling it was fetched at. The real-server
spider draws each link's variant from its URL, so where a page's spelling leaks into its
links (a self-link ``#details`` resolves to the URL the page was fetched at), two spellings
of one page must draw alike, or a page only one spelling's draw reaches is collected only
by the crawl that fetched that spelling (seed 51 on PHP's built-in server: the ``utm``
spelling's self-link drew ``drop-html``, which the server answered with a directory index
nothing else links).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_real_servers import variant

PAGES = [f"http://ph.test/doxygen/examples/group/html/group__group{n}.html" for n in range(40)]


@pytest.mark.parametrize("seed", [51, 52])
def test_a_page_and_its_tagged_spelling_draw_the_same_variant(seed: int) -> None:
    for page in PAGES:
        tagged = f"{page}?utm_source=bench"
        plain_variant = variant(page, seed, 0.4)
        tagged_variant = variant(tagged, seed, 0.4)
        if plain_variant is None or plain_variant == tagged:
            # No variant, or the tag itself: the tagged URL is not tagged again (each
            # tagged spelling's self-link would tag it once more, for ever, on stock).
            assert tagged_variant is None
        else:
            assert tagged_variant is not None
            assert tagged_variant.split("?")[0] == plain_variant.split("?")[0]


def test_twins_and_sessions_draw_alike_too() -> None:
    page = "http://ph.test/doxygen/index.html"
    for seed in range(20):
        drawn = variant(page, seed, 0.5)
        twin = variant(page.replace("//ph.", "//www.ph."), seed, 0.5)
        assert (drawn is None) == (twin is None)
        assert (variant(f"{page}?PHPSESSID=abc", seed, 0.5) is None) == (drawn is None)


@pytest.mark.parametrize("seed", [59, 60])
def test_a_tagged_spelling_in_a_session_draws_as_its_page(seed: int) -> None:
    """Seed 59 on ``php-session``: PHP writes the session first (``x.html?PHPSESSID=a``), so the
    tagged spelling's self-link is ``x.html?PHPSESSID=a&utm_source=bench``; taking the ``?`` out
    with the session left the tag in the path, and its own draw (``drop-html``) reached a
    directory index only crawls fetching the tagged spelling could collect."""
    for page in PAGES:
        in_session = f"{page}?PHPSESSID=0a1b2c3d4e5f&utm_source=bench"
        plain_variant = variant(page, seed, 0.4)
        tagged_variant = variant(in_session, seed, 0.4)
        if plain_variant is None or plain_variant == f"{page}?utm_source=bench":
            assert tagged_variant is None
        else:
            assert tagged_variant is not None
            assert tagged_variant.split("?")[0] == plain_variant.split("?")[0]
