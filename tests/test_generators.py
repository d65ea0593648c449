"""The battery every seeded generator of webs of kinds passes (:mod:`generator_checks`): the same
seed makes the same web; stock Scrapy collects every document (over the data: each web's
``check()`` and a simulated stock crawl), with and without refresh stubs and query pages; every
kind is drawn, with its exceptions; and each spelling a site draws leads to its page.

Each generator's own file tests what its kinds answer. These checks guard the generators, not
the add-on, so they run on a few seeds each (16; 8 with refresh stubs and query pages; 4 and 2
with ``URLNORM_DIFFERENTIAL=quick``; each generator was checked on 200 when written): every
differential crawl (tests and ``benchmarks/bench_differential.py``) checks its web's sanity
again on the seed it crawls, and the benchmarks crawl thousands of seeds a session."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest
from demoweb.commerceweb import KINDS as COMMERCE_KINDS
from demoweb.commerceweb import CSite, generate_commerce_web
from demoweb.communityweb import KINDS as COMMUNITY_KINDS
from demoweb.communityweb import CommunitySite, generate_community_web
from demoweb.encodingweb import KINDS as ENCODING_KINDS
from demoweb.encodingweb import EncodingSite, generate_encoding_web
from demoweb.enterpriseweb import KINDS as ENTERPRISE_KINDS
from demoweb.enterpriseweb import EnterpriseSite, generate_enterprise_web
from demoweb.hostingweb import KINDS as HOSTING_KINDS
from demoweb.hostingweb import HSite, generate_hosting_web
from demoweb.pressweb import KINDS as PRESS_KINDS
from demoweb.pressweb import PressSite, generate_press_web
from demoweb.quirksweb import KINDS as QUIRKS_KINDS
from demoweb.quirksweb import QSite, generate_quirks_web
from demoweb.registryweb import KINDS as REGISTRY_KINDS
from demoweb.registryweb import RegistrySite, generate_registry_web
from demoweb.slugweb import KINDS as SLUG_KINDS
from demoweb.slugweb import SlugSite, generate_slug_web
from demoweb.staticweb import KINDS as STATIC_KINDS
from demoweb.staticweb import StaticSite, generate_static_web
from generator_checks import (
    Generate,
    assert_every_kind_drawn,
    assert_same_seed_same_web,
    assert_spellings_lead_to_their_pages,
    assert_stock_collects_every_document,
)

#: Seeds whose webs stock must collect whole (each generator was checked on 200 when written).
STOCK_SEEDS = range(16)
#: The same with refresh stubs and query pages.
CONDITION_SEEDS = range(8)
#: Seeds whose sites' spellings are followed to their pages.
SPELLING_SEEDS = range(16)


def _halves(seeds: range, quick: int) -> list[Any]:
    """``seeds`` as two parameters: the first ``quick`` seeds, and the rest for the full
    sweep only (``URLNORM_DIFFERENTIAL=quick`` leaves it out; see ``conftest.py``)."""
    first, rest = seeds[:quick], seeds[quick:]
    return [
        pytest.param(first, id=f"seeds{first[0]}-{first[-1]}"),
        pytest.param(rest, id=f"seeds{rest[0]}-{rest[-1]}", marks=pytest.mark.full_sweep),
    ]


class Generator(NamedTuple):
    generate: Generate
    site_class: type
    kinds: tuple[str, ...]
    #: Whether its sites' spellings are checked here (:func:`assert_spellings_lead_to_their_pages`).
    spelled: bool = True
    #: Whether a page hidden behind an exception may have spellings of its own.
    hidden_spelled: bool = False


GENERATORS: dict[str, Generator] = {
    "quirks": Generator(generate_quirks_web, QSite, QUIRKS_KINDS, spelled=False),
    "hosting": Generator(generate_hosting_web, HSite, HOSTING_KINDS, spelled=False),
    "commerce": Generator(generate_commerce_web, CSite, COMMERCE_KINDS, spelled=False),
    # (the community generator's exceptions are spelled nowhere: its own file checks that)
    "community": Generator(generate_community_web, CommunitySite, COMMUNITY_KINDS, spelled=False),
    "enterprise": Generator(generate_enterprise_web, EnterpriseSite, ENTERPRISE_KINDS),
    "registry": Generator(generate_registry_web, RegistrySite, REGISTRY_KINDS, hidden_spelled=True),
    "slug": Generator(generate_slug_web, SlugSite, SLUG_KINDS),
    "static": Generator(generate_static_web, StaticSite, STATIC_KINDS),
    "encoding": Generator(generate_encoding_web, EncodingSite, ENCODING_KINDS),
    "press": Generator(generate_press_web, PressSite, PRESS_KINDS),
}
SPELLED = [name for name, generator in GENERATORS.items() if generator.spelled]


@pytest.mark.parametrize("name", GENERATORS)
def test_same_seed_same_web(name: str) -> None:
    assert_same_seed_same_web(GENERATORS[name].generate)


@pytest.mark.parametrize("seeds", _halves(STOCK_SEEDS, 4))
@pytest.mark.parametrize("name", GENERATORS)
def test_every_document_collected_by_stock(name: str, seeds: range) -> None:
    assert_stock_collects_every_document(GENERATORS[name].generate, seeds)


@pytest.mark.parametrize("seeds", _halves(CONDITION_SEEDS, 2))
@pytest.mark.parametrize("name", GENERATORS)
def test_every_document_collected_by_stock_with_refreshes_and_query_pages(name: str, seeds: range) -> None:
    conditions: dict[str, Any] = {"meta_refresh": True, "query_pages": True}
    assert_stock_collects_every_document(GENERATORS[name].generate, seeds, **conditions)


@pytest.mark.parametrize("name", GENERATORS)
def test_every_kind_is_drawn_with_its_exceptions(name: str) -> None:
    generator = GENERATORS[name]
    assert_every_kind_drawn(generator.generate, generator.site_class, generator.kinds)


@pytest.mark.parametrize("seeds", _halves(SPELLING_SEEDS, 4))
@pytest.mark.parametrize("name", SPELLED)
def test_every_spelling_leads_to_its_page_and_no_exception_is_one(name: str, seeds: range) -> None:
    generator = GENERATORS[name]
    for seed in seeds:
        web = generator.generate(seed)
        hidden = generator.hidden_spelled
        assert_spellings_lead_to_their_pages(web, seed, generator.site_class, hidden_spelled=hidden)
