"""Conditional audits: a verification answered ``304 Not Modified`` downloads no page.

Real crawls against VirtualWeb sites wrapped in :class:`EntityTagged`, which tags
its 200 replies and honours ``If-None-Match`` as Apache and nginx do."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest_twisted
from demoweb.crawling import CrawlResult, crawl
from demoweb.server import EntityTagged, FunctionSite, Reply, VirtualWeb
from test_learning import ADDON, multiviews_reply, shadowed_page_site

from scrapy_urlnorm.validators import EntityTags, same_tag, without_size

ONE_AT_A_TIME = {**ADDON, "CONCURRENT_REQUESTS": 1}


def multiviews_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Apache MultiViews: ``/pN`` serves ``/pN.html``, every page links both forms of the next ones."""
    pairs = [f"/p{n}" for n in range(1, 13)]
    pages: dict[str, list[str]] = {"/": [link for p in pairs for link in (p + ".html", p)]}
    pages |= {p + ".html": [] for p in pairs}
    return multiviews_reply("mv", pages, path)


def downloads(web: VirtualWeb) -> int:
    """Pages downloaded for the spider: 200 answers to GET, but the entity-tag canary's
    (the add-on's own question, asked once per host with tags)."""
    return sum(1 for hit in web.hits if hit.status == 200 and hit.method == "GET" and not hit.canary)


async def crawl_untagged_and_tagged(
    host: str, handler: Callable[[str, str, Mapping[str, str]], Reply]
) -> tuple[CrawlResult, int, CrawlResult, int, EntityTagged]:
    """One page at a time, the site as is and with entity tags: each result, its page
    downloads, and the tagged site (which counts the 304s it sent)."""
    with VirtualWeb({host: FunctionSite(handler)}) as web:
        untagged = await crawl(web, [f"http://{host}/"], ONE_AT_A_TIME)
        untagged_downloads = downloads(web)
    site = EntityTagged(FunctionSite(handler))
    with VirtualWeb({host: site}) as web:
        tagged = await crawl(web, [f"http://{host}/"], ONE_AT_A_TIME)
        return untagged, untagged_downloads, tagged, downloads(web), site


@pytest_twisted.ensureDeferred
async def test_verifications_answered_304_download_no_page() -> None:
    """``extension_alias`` drops are all verified; with entity tags each verification
    is answered 304 instead of a second copy of the page, and nothing is lost."""
    plain, plain_downloads, tagged, tagged_downloads, tagged_site = await crawl_untagged_and_tagged(
        "mv.test", multiviews_site
    )
    assert set(tagged.doc_ids) == set(plain.doc_ids) and len(set(plain.doc_ids)) == 13
    # The learning pairs' variants go with their twin's tag too (see test_twin_probes).
    not_modified = tagged.stats["urlnorm/audits_not_modified"] + tagged.stats.get("urlnorm/twin_probes_not_modified", 0)
    assert tagged.stats["urlnorm/audits_not_modified"] >= 5 and tagged_site.not_modified == not_modified
    assert tagged_downloads == plain_downloads - not_modified
    # Each 304 is a verified audit; none reaches the spider as a response.
    assert tagged.stats["urlnorm/audits"] >= tagged.stats["urlnorm/audits_not_modified"]
    assert "downloader/response_status_count/304" in tagged.stats
    assert "httperror/response_ignored_status_count/304" not in tagged.stats
    assert tagged.stats["urlnorm/memory/entity_tags"] > 0


@pytest_twisted.ensureDeferred
async def test_with_jobdir_a_304_settles_its_journal_entry(tmp_path: Path) -> None:
    """The journal settles a request by its response or its error; a 304 audit has
    neither, and is settled through ``request_ended``: a second run of the finished
    job has nothing in flight to fetch again."""
    settings = {**ONE_AT_A_TIME, "JOBDIR": str(tmp_path / "job")}
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(multiviews_site))}) as web:
        first = await crawl(web, ["http://mv.test/"], settings)
        fetched = len(web.hits)
        again = await crawl(web, ["http://mv.test/"], settings)
        assert len(web.hits) == fetched  # the start URL is skipped; nothing was left in flight
    assert len(set(first.doc_ids)) == 13 and first.stats["urlnorm/audits_not_modified"] >= 5
    assert again.stats.get("urlnorm/frontier/recovered", 0) == 0


@pytest_twisted.ensureDeferred
async def test_a_file_beside_its_twin_is_still_found_with_content_tags() -> None:
    """``/status`` is a file of its own beside ``/status.html``: its tag differs, so the
    conditional audit gets the page, the mismatch revokes the rule, both are collected."""
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(shadowed_page_site))}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
    assert {"mv:/status", "mv:/status.html"} <= set(result.doc_ids)
    assert result.stats["urlnorm/audit_mismatches"] >= 1


@pytest_twisted.ensureDeferred
async def test_a_server_that_answers_304_to_any_tag_is_found_out_before_its_tags_are_used() -> None:
    """A naive cache layer answers 304 whenever ``If-None-Match`` is there: its 304
    to ``/status``'s audit would say ``/status`` is ``/status.html``. The host is first
    asked about a tag it never gave (the canary), answers 304, and its tags are never
    used (differential seed 46057, with such hosts: a page lost)."""

    class AnyTagNotModified(EntityTagged):
        def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
            if any(name.lower() == "if-none-match" for name in headers):
                self.not_modified += 1
                return Reply(304, b"", {})
            return super().handle(path, query, headers)

    site = AnyTagNotModified(FunctionSite(shadowed_page_site))
    with VirtualWeb({"mv.test": site}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
    assert {"mv:/status", "mv:/status.html"} <= set(result.doc_ids)
    assert result.stats["urlnorm/etag_canaries"] == 1 and site.not_modified == 1  # the canary's, only
    assert result.stats["urlnorm/etags_distrusted"] == 1
    assert "urlnorm/audits_not_modified" not in result.stats


def record_pages_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """A Rails app: ``/p/N`` is record N's page 1 (``?page=1`` too), ``?page=2`` its
    page 2. The home links both spellings of page 1 of records 1-4 (so ``ignore_param:page``
    is learned from content) and page 2 of record 5, whose page links page 1."""
    if path == "/":
        links = [link for n in range(1, 5) for link in (f"/p/{n}?page=1", f"/p/{n}")]
        return Reply.page("rails:/", [*links, "/p/5?page=2"])
    if path.startswith("/p/") and path[3:].isdigit():
        if query == "page=2":
            return Reply.page(f"rails:{path}?page=2", [path])
        if query in ("", "page=1"):
            return Reply.page(f"rails:{path}", [])
    return Reply.not_found()


@pytest_twisted.ensureDeferred
async def test_a_tag_keyed_on_the_record_says_nothing_between_two_query_spellings() -> None:
    """Rails' ``fresh_when(@article)`` tags every ``?page=`` of an article alike and
    answers ``304`` for page 1 to page 2's tag. ``ignore_param`` drops are all
    verified, but a conditional verification of ``/p/5`` against ``/p/5?page=2``
    was settled by that ``304``, and page 1 was lost (wild seed 608): between two
    query spellings of a path, a verification is a download."""
    site = EntityTagged(FunctionSite(record_pages_site), tag=lambda path, reply: f'W/"record-{path}"')
    with VirtualWeb({"rails.test": site}) as web:
        result = await crawl(web, ["http://rails.test/"], ONE_AT_A_TIME)
    assert result.stats["urlnorm/learned_rules"] >= 1  # (ignore_param:page, from records 1-4)
    assert {"rails:/p/5", "rails:/p/5?page=2"} <= set(result.doc_ids)
    assert "urlnorm/audits_not_modified" not in result.stats


@pytest_twisted.ensureDeferred
async def test_one_tag_for_every_page_is_no_evidence() -> None:
    """A server that sends one tag for everything would answer 304 for ``/status``
    too: two different pages with one tag make the host's tags no evidence first."""
    site = EntityTagged(FunctionSite(shadowed_page_site), tag=lambda path, reply: '"static"')
    with VirtualWeb({"mv.test": site}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
    assert {"mv:/status", "mv:/status.html"} <= set(result.doc_ids)
    assert result.stats["urlnorm/etags_distrusted"] == 1
    assert "urlnorm/audits_not_modified" not in result.stats and site.not_modified == 0


@pytest_twisted.ensureDeferred
async def test_a_304_naming_another_tag_is_fetched_in_full_once() -> None:
    """A 304 whose own ``ETag`` is not the one sent settles nothing: the audit is sent
    again without the condition (once: never conditionally again), and compared."""

    class OddNotModified(EntityTagged):
        def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
            reply = super().handle(path, query, headers)
            return Reply(304, b"", {"ETag": '"other"'}) if reply.status == 304 else reply

    site = OddNotModified(FunctionSite(multiviews_site))
    with VirtualWeb({"mv.test": site}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
        refetched = [hit.target for hit in web.hits if hit.status == 200 and hit.method == "GET" and not hit.canary]
    assert len(set(result.doc_ids)) == 13
    assert site.not_modified >= 5 and "urlnorm/audits_not_modified" not in result.stats
    assert result.stats["downloader/response_status_count/304"] == site.not_modified
    assert len(refetched) == len(set(refetched))  # each URL downloaded once: no loop


@pytest_twisted.ensureDeferred
async def test_off_with_the_http_cache_and_on_request() -> None:
    """``HTTPCACHE_ENABLED`` would store a 304 as the URL's page; and the switch works."""
    for settings in (
        {"HTTPCACHE_ENABLED": True, "HTTPCACHE_STORAGE": "test_conditional_audits.NoStorage"},
        {"URLNORM_CONDITIONAL_AUDITS": False},
    ):
        site = EntityTagged(FunctionSite(multiviews_site))
        with VirtualWeb({"mv.test": site}) as web:
            result = await crawl(web, ["http://mv.test/"], {**ONE_AT_A_TIME, **settings})
        assert len(set(result.doc_ids)) == 13
        assert site.not_modified == 0 and "urlnorm/audits_not_modified" not in result.stats


class NoStorage:
    """An HTTP cache storage that never stores: the setting alone is what is tested."""

    def __init__(self, settings: object) -> None:
        pass

    def open_spider(self, spider: object) -> None:
        pass

    def close_spider(self, spider: object) -> None:
        pass

    def retrieve_response(self, spider: object, request: object) -> None:
        return None

    def store_response(self, spider: object, request: object, response: object) -> None:
        pass


def test_tags_are_evidence_only_once_a_host_showed_two_and_never_after_a_clash() -> None:
    tags = EntityTags()
    tags.remember((1,), '"a"')
    assert tags.observe("h", '"a"', 10) and tags.tag_for(1, "h") is None  # one tag seen: not yet
    assert tags.observe("h", '"b"', 20) and tags.tag_for(1, "h") == '"a"'
    assert tags.observe("h", '"a"', 10)  # the same page again: fine
    assert not tags.observe("h", '"a"', 30)  # another page with that tag
    assert tags.tag_for(1, "h") is None and tags.observe("h", '"c"', 40) and tags.tag_for(1, "h") is None
    assert same_tag('W/"x"', '"x"') and not same_tag('"x"', '"y"')


def test_tags_of_size_and_a_shared_date_are_no_evidence() -> None:
    """Differential seed 74124: nginx-like tags (``"<mtime>-<size>"``) on a tree of one
    modification time; ``/view/`` beside ``/view``, another page of the same 619 bytes,
    answered a twin probe's ``304`` and was lost. Two pages whose tags differ only in
    their size show the rest is a date they share: the host's tags are no evidence."""
    assert without_size('"5f3e2a10-26b"', 0x26B) == "5f3e2a10-#"
    assert without_size('W/"26b-5f3e2a10a1b2c-gzip"', 0x26B) == "#-5f3e2a10a1b2c-gzip"  # Apache
    assert without_size('"5f3e2a10-26b;1f"', 0x26B) == "5f3e2a10-#;1f"  # a negotiated variant's
    assert without_size('"5f3e2a10"', 0x26B) is None and without_size('"26c-1"', 0x26B) is None
    nginx = EntityTags()
    assert nginx.observe("h", '"5f3e2a10-26b"', 10, length=0x26B)
    assert not nginx.observe("h", '"5f3e2a10-2a0"', 20, length=0x2A0)  # another page, the same date
    assert nginx.tag_for(1, "h") is None and nginx.observe("h", '"5f3e2a10-2a1"', 30, length=0x2A1)
    # Dates of their own (a site edited file by file), or a digest beside the size: evidence.
    edited = EntityTags()
    edited.remember((1,), '"5f3e2a10-26b"')
    assert edited.observe("h", '"5f3e2a10-26b"', 10, length=0x26B)
    assert edited.observe("h", '"5f3e2b77-2a0"', 20, length=0x2A0)
    assert edited.observe("h", '"5f3e2a10-26b"', 10, length=0x26B)  # the same page again
    assert edited.tag_for(1, "h") == '"5f3e2a10-26b"'


def test_a_file_tag_made_weak_on_a_changed_body_is_no_evidence() -> None:
    """Differential seed 150322 (``--dynamic``): an application kept its files' tags,
    made weak, on bodies it filled in with a token of each answer; no field was the
    body's size, so ``/catalog.htm?page=4`` answered ``304`` to page 3's tag of the
    same size and was lost. Such a host's tags are never used."""
    weak = EntityTags()
    assert not weak.observe("h", 'W/"5f3e2a10-26b"', 10, length=0x26B + 54)
    assert weak.tag_for(1, "h") is None and "h" in weak.distrusted
    # Weak tags whose size field is the body's, or of no file's shape, are as before.
    assert EntityTags().observe("h", 'W/"5f3e2a10-26b"', 10, length=0x26B)
    assert EntityTags().observe("h", 'W/"a1b2c3d4e5"', 10, length=0x26B + 54)


def queued_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """nginx ``try_files $uri.html``-like: ``/pN`` serves ``/pN.html`` (same tag), naming
    nothing; the files are linked first, their extensionless links one page deeper."""
    pairs = [f"/p{n}" for n in range(1, 9)]
    pages: dict[str, list[str]] = {"/": [p + ".html" for p in pairs] + ["/more.html"], "/more.html": pairs}
    pages |= {p + ".html": [] for p in pairs}
    return multiviews_reply("mv", pages, path)


@pytest_twisted.ensureDeferred
async def test_with_jobdir_variants_queued_before_the_rule_are_verified_conditionally(tmp_path: Path) -> None:
    """Variants queued before their rule was learned are verified at download time: as
    conditional audits, answered 304, not as second downloads of the page."""
    settings = {**ONE_AT_A_TIME, "JOBDIR": str(tmp_path / "job")}
    site = EntityTagged(FunctionSite(queued_site))
    with VirtualWeb({"mv.test": site}) as web:
        result = await crawl(web, ["http://mv.test/"], settings)
    assert len(set(result.doc_ids)) == 10
    audits = result.stats["urlnorm/audits_not_modified"]
    assert audits >= 4 and audits + result.stats.get("urlnorm/twin_probes_not_modified", 0) == site.not_modified
    assert len(result.doc_ids) <= 10 + 8 - site.not_modified
