"""Twin probes: a variant of an undecided rule is sent with its delivered twin's
entity tag, and a ``304`` is the learner's evidence instead of a second download.

Real crawls against VirtualWeb sites wrapped in :class:`EntityTagged`."""

from __future__ import annotations

from collections.abc import Mapping

import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import EntityTagged, FunctionSite, Reply, VirtualWeb
from test_conditional_audits import crawl_untagged_and_tagged
from test_learning import ADDON, shadowed_page_site

ONE_AT_A_TIME = {**ADDON, "CONCURRENT_REQUESTS": 1}
DIRECTORIES = [f"/d{n}/" for n in range(1, 9)]


def index_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """nginx ``index index.html``: ``/dN/`` serves ``/dN/index.html``; the home page links both."""
    links = [link for d in DIRECTORIES for link in (d, d + "index.html")]
    if path == "/":
        return Reply.page("ix:/", links)
    directory = path.removesuffix("index.html")
    if directory in DIRECTORIES:
        return Reply.page(f"ix:{directory}", [])
    return Reply.not_found()


@pytest_twisted.ensureDeferred
async def test_a_variant_answered_304_to_its_twins_tag_is_evidence_and_no_download() -> None:
    """``default_page`` is undecided while its first pairs come in: its first pair is
    downloaded (see ``test_a_twin_probe_waits_for_a_pair_that_was_downloaded``), the
    next variant goes with its twin's tag, and the 304 teaches the rule."""
    untagged, untagged_downloads, tagged, tagged_downloads, _ = await crawl_untagged_and_tagged("ix.test", index_site)
    assert set(tagged.doc_ids) == set(untagged.doc_ids) and len(set(tagged.doc_ids)) == 9
    probes = tagged.stats["urlnorm/twin_probes_not_modified"]
    assert probes >= 1 and tagged.stats["urlnorm/learned/default_page"] == 1
    assert tagged_downloads == 10  # every document once, and the first pair's variant
    assert tagged_downloads < untagged_downloads
    assert "httperror/response_ignored_status_count/304" not in tagged.stats  # no 304 reaches the spider


@pytest_twisted.ensureDeferred
async def test_a_file_beside_its_twin_answers_its_own_page_to_a_twin_probe() -> None:
    """``/status`` is a file of its own beside ``/status.html``: its tag differs, so its
    twin probe gets its page (a 200), and both are collected."""
    site = EntityTagged(FunctionSite(shadowed_page_site))
    with VirtualWeb({"mv.test": site}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
    assert {"mv:/status", "mv:/status.html"} <= set(result.doc_ids)
    assert result.stats.get("urlnorm/twin_probes", 0) >= 1


@pytest_twisted.ensureDeferred
async def test_a_twin_probe_that_redirects_is_followed_unconditionally() -> None:
    """``/dN/index.html`` redirects to ``/dN/`` here: the redirect Scrapy builds from a
    twin probe must not carry its condition (the target would answer 304 to a tag
    that is its own page's, and the page would be lost)."""

    def redirecting_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
        if path.endswith("/index.html") and path.removesuffix("index.html") in DIRECTORIES:
            return Reply.redirect(path.removesuffix("index.html"))
        return index_site(path, query, headers)

    site = EntityTagged(FunctionSite(redirecting_site))
    with VirtualWeb({"ix.test": site}) as web:
        result = await crawl(web, ["http://ix.test/"], ONE_AT_A_TIME)
    assert len(set(result.doc_ids)) == 9
    assert site.not_modified == result.stats.get("urlnorm/audits_not_modified", 0) + result.stats.get(
        "urlnorm/twin_probes_not_modified", 0
    )


@pytest_twisted.ensureDeferred
async def test_off_without_conditional_audits() -> None:
    with VirtualWeb({"ix.test": EntityTagged(FunctionSite(index_site))}) as web:
        result = await crawl(web, ["http://ix.test/"], {**ONE_AT_A_TIME, "URLNORM_CONDITIONAL_AUDITS": False})
    assert len(set(result.doc_ids)) == 9 and "urlnorm/twin_probes" not in result.stats


def tracked_index_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """As ``index_site``, but the home page links each directory with a tracking parameter."""
    if path == "/":
        return Reply.page("ix:/", [link for d in DIRECTORIES for link in (d + "?utm_source=feed", d + "index.html")])
    return index_site(path, query, headers)


@pytest_twisted.ensureDeferred
async def test_a_twin_delivered_under_a_tracked_link_is_found_by_its_normalized_url() -> None:
    """The twin page arrived as ``/dN/?utm_source=feed``; its variant ``/dN/index.html``
    is matched against the twin's normalized URL (``/dN/``), not the spelling it came by."""
    site = EntityTagged(FunctionSite(tracked_index_site))
    with VirtualWeb({"ix.test": site}) as web:
        result = await crawl(web, ["http://ix.test/"], ONE_AT_A_TIME)
    assert len(set(result.doc_ids)) == 9
    assert result.stats.get("urlnorm/twin_probes_not_modified", 0) >= 1


def same_size_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """``/view`` and ``/view.html`` are two files of one size installed in the same
    second: tagged by modification time and size, as Apache and nginx tag files, they
    share one tag (differential seed 20525). Nothing on the site pairs URLs yet."""
    pages: dict[str, list[str]] = {"/": ["/view.html", "/view"], "/view.html": [], "/view": []}
    if path not in pages:
        return Reply.not_found()
    reply = Reply.page(f"sz:{path}", pages[path])
    if path == "/":
        return reply
    return Reply(200, reply.body.ljust(2000), reply.headers)


@pytest_twisted.ensureDeferred
async def test_a_twin_probe_waits_for_a_pair_that_was_downloaded() -> None:
    """A ``304`` to a tag of modification time and size says the two files are of one
    size, not that they are one page. A probe is sent only for a rule some downloaded
    pair already supports, so the first variant of a kind is fetched in full: here it
    is a page of its own, and collected."""
    site = EntityTagged(FunctionSite(same_size_site), tag=lambda path, reply: f'"5f3e2a10-{len(reply.body):x}"')
    with VirtualWeb({"sz.test": site}) as web:
        result = await crawl(web, ["http://sz.test/"], ONE_AT_A_TIME)
    assert {"sz:/view", "sz:/view.html"} <= set(result.doc_ids)
    assert site.not_modified == 0
