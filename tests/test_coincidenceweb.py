"""The fourth generator (:mod:`demoweb.coincidenceweb`): deterministic, every document collected
by stock through URLs that answer ``200``, each kind's coincidences and exceptions answered as
described, and a differential crawl or two."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import pytest_twisted
from demoweb.coincidenceweb import (
    KINDS,
    CoincidenceWeb,
    CoSite,
    DeploySite,
    LegacySite,
    ProxiedSite,
    RewritesSite,
    RoutesSite,
    ShopSite,
    TagSite,
    compare_coincidence,
    generate_coincidence_web,
)
from demoweb.randomweb import CrawlOrder, doc_id_of

SEEDS = range(40)


def _fingerprint(web: CoincidenceWeb) -> list[object]:
    return [web.describe(), web.start_urls, [(page.url, page.links) for page in web.pages]]


def test_same_seed_same_web() -> None:
    for seed in (0, 5, 17):
        assert _fingerprint(generate_coincidence_web(seed)) == _fingerprint(generate_coincidence_web(seed))
    assert _fingerprint(generate_coincidence_web(1)) != _fingerprint(generate_coincidence_web(2))


@pytest.mark.parametrize("options", [{}, {"meta_refresh": True, "query_pages": True}])
def test_every_document_collected_by_stock(options: dict[str, bool]) -> None:
    for seed in SEEDS:
        web = generate_coincidence_web(seed, **options)
        assert 2 <= len(web.hosts) <= 5
        assert 10 <= len(web.documents) <= 95, (seed, len(web.documents))
        assert not web.check(), (seed, web.check(), web.describe())
        assert web.simulate_stock()[1] == web.documents, seed


def test_refresh_stubs_are_served_on_every_kind() -> None:
    kinds = set()
    for seed in SEEDS:
        web = generate_coincidence_web(seed, meta_refresh=True)
        for site in web.hosts:
            if any(move.startswith("refresh->") for move in site.loops):  # type: ignore[attr-defined]
                assert web.fetch(f"http://{site.pages[0].host}/refresh").status == 200, (seed, site.kind)  # type: ignore[attr-defined]
                kinds.add(site.kind)  # type: ignore[attr-defined]
    assert kinds == set(KINDS)


def test_every_kind_is_drawn() -> None:
    kinds = {site.kind for seed in SEEDS for site in generate_coincidence_web(seed).hosts}  # type: ignore[attr-defined]
    assert kinds == set(KINDS)


def _sites(kind: type[CoSite], seeds: range = range(300)) -> Iterator[tuple[CoincidenceWeb, CoSite]]:
    for seed in seeds:
        web = generate_coincidence_web(seed)
        for site in web.hosts:
            if isinstance(site, kind):
                yield web, site


def _site(kind: type[CoSite]) -> tuple[CoincidenceWeb, CoSite]:
    return next(_sites(kind))


def test_tags_placeholder_coincides_but_what_is_behind_it_does_not() -> None:
    web, site = _site(TagSite)
    assert isinstance(site, TagSite)
    host = site.host
    bodies = {web.fetch(f"http://{host}/tag/{spelling}/").body for spelling in site.spellings_empty}
    bodies.add(web.fetch(f"http://{host}/tag/{site.spellings_empty[0].lower()}").body)
    assert len(bodies) == 1  # one placeholder, byte for byte
    behind = {web.resolve(f"http://{host}/tag/{spelling}/suggest") for spelling in site.spellings_empty}
    assert len(behind) == len(site.spellings_empty) and None not in behind
    upper, lower = list(site.static_tags)[:2]
    assert web.resolve(f"http://{host}/tag/{upper}/") != web.resolve(f"http://{host}/tag/{lower}/")
    assert web.fetch(f"http://{host}/tag/{upper}").status in (301, 302, 303, 307, 308)


def test_shop_parameters_by_value_and_by_path() -> None:
    web, site = _site(ShopSite)
    assert isinstance(site, ShopSite)
    base = f"http://{site.host}"
    assert web.fetch(f"{base}/catalog?page=1").body == web.fetch(f"{base}/catalog").body or site.counter
    first = web.resolve(f"{base}/catalog")
    assert web.resolve(f"{base}/catalog?page=1") == first != web.resolve(f"{base}/catalog?page=2")
    colored = next(iter(site.colored))
    variant = next(page for page in site.pages if page.path == f"/item/{colored}/" and page.query)
    assert web.resolve(variant.url) != web.resolve(f"{base}/item/{colored}/")
    plain = next(item for item in site.in_stock if item not in site.colored)
    assert web.resolve(f"{base}/item/{plain}/?color=red") == web.resolve(f"{base}/item/{plain}/")
    assert web.resolve(f"{base}/item/{plain}/?s=0123456789ab") == web.resolve(f"{base}/item/{plain}/")
    saved = site.saved[0]
    assert web.resolve(saved.url) == saved.doc_id
    assert web.resolve(f"{base}/saved?s=0123456789ab") is None
    assert web.resolve(f"{base}/search?q=nothing-here") == site.no_results.doc_id
    sold = [web.resolve(f"{base}/item/{item}/") for item in site.sold_out]
    assert set(sold) == {site.placeholder.doc_id}
    reviews = {web.resolve(f"{base}/item/{item}/reviews") for item in site.sold_out}
    assert len(reviews) == len(site.sold_out) and None not in reviews


def test_legacy_rules_and_their_exceptions() -> None:
    for web, site in _sites(LegacySite):
        assert isinstance(site, LegacySite)
        base = f"http://{site.host}"
        if (site.host, f"/{site.dirs[0]}", "") not in site.routes or not site.php_dirs:
            continue
        script, directory = web.resolve(f"{base}/{site.dirs[0]}"), web.resolve(f"{base}/{site.dirs[0]}/")
        assert script is not None and directory is not None and script != directory
        assert web.fetch(f"{base}/{site.dirs[2]}").status == 301
        php = next(iter(site.php_dirs))
        assert web.resolve(f"{base}{php}index.html") != web.resolve(f"{base}{php}")
        assert web.resolve(f"{base}/{site.dirs[2]}/index.html") == web.resolve(f"{base}/{site.dirs[2]}/")
        for path in site.files:
            if (site.host, path[:-5], "") not in site.routes:
                reply = web.fetch(f"{base}{path[:-5]}")
                assert reply.status == 200 and reply.headers["Content-Location"].endswith(".html")
                assert doc_id_of(reply) == web.resolve(f"{base}{path}")
        return
    raise AssertionError("no legacy host with both exceptions")


def test_proxied_case_and_twin_except_app_and_blog() -> None:
    for web, site in _sites(ProxiedSite):
        if site.twin != "same":
            continue
        host, www = site.host, site.other_host
        page = next(page for page in site.pages if page.path.endswith(".aspx"))
        assert web.resolve(f"http://{host}{page.path.upper()}") == page.doc_id
        assert web.resolve(f"http://{www}{page.path.lower()}") == page.doc_id
        apps = [page for page in site.pages if page.path.startswith("/app/")]
        assert len({web.resolve(page.url) for page in apps}) == len(apps)
        assert web.resolve(f"http://{www}/blog/") != web.resolve(f"http://{host}/blog/")
        return
    raise AssertionError("no proxied host with a www twin")


def test_rewrites_redirect_rules_with_exceptions() -> None:
    seen: set[str] = set()
    for web, site in _sites(RewritesSite):
        assert isinstance(site, RewritesSite)
        base = f"http://{site.host}"
        if "lower" in site.rules:
            assert web.fetch(f"{base}/About").status in (301, 302, 303, 307, 308)
            assert web.resolve(f"{base}/files/README") != web.resolve(f"{base}/files/readme")
        if "html" in site.rules:
            assert web.resolve(f"{base}/legacy.html") != web.resolve(f"{base}/legacy")
        if "ref" in site.rules:
            page = site.plain[0]
            assert web.fetch(f"{page.url}?ref=nav").status in (301, 302, 303, 307, 308)
            assert web.resolve(f"{base}/invite?ref={site.invites[0]}") != web.resolve(f"{base}/invite")
        if "www" in site.rules:
            assert web.fetch(f"http://{site.other_host}/").status == 301
            assert web.resolve(f"http://{site.other_host}/shop/") is not None
        wall = web.fetch(f"{base}/members/{site.walled[0]}")
        assert wall.status == 302 and "/login?next=" in wall.headers["Location"]
        assert web.resolve(f"{base}/members/{site.public[0]}") is not None
        first, second = web.fetch(f"{base}/featured"), web.fetch(f"{base}/featured")
        assert first.headers["Location"] != second.headers["Location"]
        seen |= site.rules
        if seen >= {"lower", "html", "ref", "www"}:
            return
    raise AssertionError(f"rules drawn: {seen}")


def test_routes_one_page_two_spellings_two_sets_of_links() -> None:
    for web, site in _sites(RoutesSite):
        if site.ads or site.counter:
            continue
        index = next(page for page in site.pages if page.doc_id in site.unspanned)
        bare, slashed = web.fetch(index.url), web.fetch(index.url + "/")
        assert bare.status == slashed.status == 200 and bare.body == slashed.body
        from_bare = web.links_of(index.url, bare.body)
        from_slashed = web.links_of(index.url + "/", slashed.body)
        assert not set(from_bare) & set(from_slashed)
        behind = {web.resolve(url) for url in from_bare + from_slashed}
        assert None not in behind and len(behind) == len(from_bare) + len(from_slashed)
        assert behind <= site.hidden
        return
    raise AssertionError("no routes host without ads or a counter")


def test_deploy_answers_304_to_another_pages_tag() -> None:
    web, site = _site(DeploySite)
    events = [page for page in site.pages if page.path.startswith("/events/20")]
    first, second = events[0], events[1]
    tag = web.fetch(first.url).headers["ETag"]
    assert web.fetch(second.url).headers["ETag"] == tag
    answer = web.fetch(second.url, {"If-None-Match": tag})
    assert answer.status == 304 or site.head == "plain"
    modified = web.fetch(first.url).headers["Last-Modified"]
    assert web.fetch(site.pages[0].url).headers["Last-Modified"] == modified


def test_head_quirks() -> None:
    quirks: set[str] = set()
    for web, site in _sites(DeploySite, range(100)):
        url = site.pages[0].url
        head, get = web.fetch(url, method="HEAD"), web.fetch(url)
        assert get.status == 200
        if site.head_quirk == "redirect":
            assert head.status == 302
        elif site.head_quirk == "length":
            assert len(head.body) < len(get.body)
        elif site.head_quirk == "etag":
            assert head.headers["ETag"] != get.headers["ETag"]
        quirks.add(site.head_quirk)
    assert {"redirect", "length", "etag"} <= quirks


@pytest.mark.parametrize("seed", [0, 3])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_coincidence(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()


#: Losses this generator found in its first runs (plain webs, each seed's own crawl order), each
#: replayed alike, and fixed: seed 37, fifo-c1-prio: ``case_insensitive_path`` learned on
#: ``www.proxied0.test``, refused on the bare host (contradicted under ``/app/``), yet applied to
#: both once ``www_alias`` made them one site, so ``proxied0.test/app/report`` was filtered as
#: ``/app/Report`` (and both blogs only it links to lost with it); ``www.proxied3.test/blog/``
#: (another virtual host) filtered as the alias of the bare ``/blog/``. Seed 153, fifo-c1-jobdir:
#: the bare ``/app/report`` filtered as the alias of its ``www.`` twin, whose relative link
#: ``../blog/`` leads to the other virtual host's blog, so the bare ``/blog/`` was never linked to
#: the crawl. Seed 90, lifo-c16-jobdir: spellings of a tag placeholder (``/tag/NIM/``,
#: ``/tag/nim/``, byte-identical to ``/tag/Nim/``) neither fetched nor filtered in the debug log
#: while ``case_insensitive_path`` was pending on the host, then refused: the pages behind their
#: relative link ``suggest`` were lost. Seed 15, fifo-c16-prio-jobdir (one run in about six):
#: ``/pricing/``, a page of its own where ``trailing_slash`` redirects every other ``/x/`` to
#: ``/x``, sent as its taught form ``/pricing``, which another link delivered meanwhile: the
#: link was discharged unverified, with the three pages behind it.
LOSSES_FOUND = [37, 153, 90, 15]


@pytest.mark.parametrize("seed", LOSSES_FOUND, ids=[str(seed) for seed in LOSSES_FOUND])
@pytest_twisted.ensureDeferred
async def test_losses_found_stay_fixed(seed: int, tmp_path: Path) -> None:
    comparison = await compare_coincidence(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert not comparison.problems(), comparison.report()


@pytest_twisted.ensureDeferred
async def test_a_link_parked_under_its_taught_form_is_fetched_when_that_form_fails(tmp_path: Path) -> None:
    """Seed 3589, fifo-c1-prio with query pages, two callbacks and
    ``URLNORM_CONDITIONAL_AUDITS = False`` (without twin probes, which had masked it):
    ``www.rewrites3.test/shop/``, another virtual host, was parked while its taught form
    ``rewrites3.test/shop/`` went in its place; that form's claim joined ``/SHOP/``'s
    redirect chain, which looped and failed. Released, the link met its own key, failed,
    and was dropped as an exact duplicate of itself, a URL nothing had fetched: lost.
    Such a key is now abandoned (never sent as written), and the link is fetched."""
    order = replace(CrawlOrder.from_seed(3589), params=True, callbacks=True)
    comparison = await compare_coincidence(3589, tmp_path, {"URLNORM_CONDITIONAL_AUDITS": False}, order=order)
    assert not comparison.sanity_problems(), comparison.report()
    assert not comparison.problems(), comparison.report()
    assert "www.rewrites3.test/shop/" in comparison.addon.docs


@pytest_twisted.ensureDeferred
async def test_a_url_released_by_a_revoked_twin_rule_is_audited_against_its_new_page(tmp_path: Path) -> None:
    """Seed 2472, lifo-c1-jobdir killed twice (one run in two): ``h/app/users/`` was settled
    against its ``www`` twin's page by a directory probe; ``www_alias`` revoked (the twin's
    ``/blog/`` is another virtual host), it was released and dropped unaudited, as a URL
    audited once, against ``h/app/Users/``, another page of the case-sensitive ``/app/``:
    the bare ``/blog/`` behind it was lost."""
    order = replace(CrawlOrder.from_seed(2472), kills=2)
    comparison = await compare_coincidence(2472, tmp_path, order=order)
    assert not comparison.sanity_problems(), comparison.report()
    assert not comparison.problems(), comparison.report()
    assert "did not stop cleanly" in (tmp_path / "killed.run1.log").read_text()  # it was killed


@pytest_twisted.ensureDeferred
async def test_a_rotating_redirects_target_within_a_depth_limit_is_luck_not_a_loss(tmp_path: Path) -> None:
    """``/featured`` redirects to another page on every request, across both crawls: with
    ``DEPTH_LIMIT = 1`` stock's led to ``/guides/faq`` (reached no other way within the
    limit) and the add-on's, asked next, to ``/blog/notes`` (seed 1099, reported lost)."""
    order = replace(CrawlOrder.from_seed(1099), https=True, depth_limit=1, callbacks=True, offsite=True)
    comparison = await compare_coincidence(1099, tmp_path, order=order)
    featured = {page.doc_id for site in comparison.web.sites.values() for page in getattr(site, "featured", ())}
    assert comparison.rotation_luck <= featured
    assert not comparison.problems(), comparison.report()


@pytest_twisted.ensureDeferred
async def test_a_page_within_a_depth_limit_only_below_a_rotating_redirect_is_luck_not_a_loss(tmp_path: Path) -> None:
    """Seed 3093, ``DEPTH_LIMIT = 3``: stock's ``/featured`` led to ``/pricing/notes`` at
    depth 1, and from there to ``legacy1.test/`` at depth 3; the add-on's led elsewhere,
    and ``/pricing/notes``, linked at depth 2 from ``/blog``, is a level too deep for it.
    ``legacy1.test/`` is within the limit only through ``/featured`` (reported lost)."""
    order = replace(CrawlOrder.from_seed(3093), depth_limit=3)
    comparison = await compare_coincidence(3093, tmp_path, order=order)
    web = comparison.web
    assert isinstance(web, CoincidenceWeb)
    only_featured = web.reached_within(3, through_featured=True) - web.reached_within(3, through_featured=False)
    assert "legacy1.test/" in only_featured
    assert comparison.rotation_luck <= only_featured | {
        page.doc_id for site in web.sites.values() for page in getattr(site, "featured", ())
    }
    assert not comparison.problems(), comparison.report()
