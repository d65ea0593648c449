"""Session tokens in links, under a name no list knows: each resource settles after three
spellings, and a parameter whose tokens name resources is verified on every drop as before."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import FunctionSite, Reply, VirtualWeb
from scrapy import Request
from test_learning import ORDERED

from scrapy_urlnorm import spellings
from scrapy_urlnorm.spellings import ParamSpellings

PAGES = ("/", "/a", "/b", "/c", "/d", "/e")
_issued = itertools.count(1)


def session_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """No cookies: every answer writes a session of its own into all its links
    (``?visit=``), and the site ignores it."""
    if path not in PAGES:
        return Reply.not_found()
    visit = f"{next(_issued) * 7919:08d}ab{next(_issued):08x}"
    links = [f"{other}?visit={visit}" for other in PAGES if other != path]
    return Reply.page(f"session:{path}", [*links, "http://items.test/", "http://repo.test/"])


LIVE = {f"{n:08x}-4e5f-9a0b-{n * 31:012x}" for n in (11, 12)}
DEAD = [f"{n:08x}-4e5f-9a0b-{n * 31:012x}" for n in (21, 22, 23, 24)]


def items_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """``/item?id=<uuid>`` names an item: dead ones all answer one soft 404 (200), the
    live ones their own page. The list links dead items first, then the live ones."""
    if path == "/":
        ids = DEAD + sorted(LIVE)
        return Reply.page("items:list", [f"/item?id={item}" for item in ids])
    if path == "/item":
        item = query.removeprefix("id=")
        return Reply.page(f"items:{item}" if item in LIVE else "items:gone", ["/"])
    return Reply.not_found()


REVISIONS = [f"{n:02x}3f2a9c21d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8" for n in range(1, 7)]


def repository_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """A repository browser: each revision's views link its tree, log and files by
    ``?id=<revision>``; LICENSE is the same in every revision, README in the first
    five, not in the sixth. A revision it never made is a 404."""
    revision = query.removeprefix("id=").partition("&")[0]
    if path == "/":
        return Reply.page("repo:home", [f"/commit?id={rev}" for rev in REVISIONS])
    if revision not in REVISIONS:
        return Reply.not_found()
    views = [f"/tree?id={revision}", f"/log?id={revision}", f"/readme?id={revision}", f"/license?id={revision}", "/"]
    if path == "/license":
        return Reply.page("repo:license", views)
    if path == "/readme":
        return Reply.page("repo:readme-new" if revision == REVISIONS[-1] else "repo:readme", views)
    if path in ("/commit", "/tree", "/log"):
        return Reply.page(f"repo:{path[1:]}-{revision[:2]}", views)
    return Reply.not_found()


def web() -> VirtualWeb:
    return VirtualWeb(
        {
            "session.test": FunctionSite(session_site),
            "items.test": FunctionSite(items_site),
            "repo.test": FunctionSite(repository_site),
        }
    )


async def _crawl(addon: bool) -> tuple[set[str], int]:
    settings = {**ORDERED, "DEPTH_LIMIT": 3}
    if addon:
        settings["ADDONS"] = {"scrapy_urlnorm.Addon": 0}
    with web() as virtual:
        result = await crawl(virtual, ["http://session.test/"], settings)
        return set(result.doc_ids), len([hit for hit in virtual.hits if hit.host == "session.test"])


@pytest_twisted.ensureDeferred
async def test_session_tokens_settle_per_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    stock_docs, stock_requests = await _crawl(addon=False)
    docs, requests = await _crawl(addon=True)
    assert docs == stock_docs  # every page, and every live item (the dead ones are one page)
    assert {f"items:{item}" for item in LIVE} | {"repo:readme", "repo:readme-new"} <= docs
    # Each resource is downloaded a few times (until two spellings agree), not once
    # per answer linking to it, as stock does and as verifying every drop would.
    monkeypatch.setattr(spellings, "SPELLINGS_TO_SETTLE", 10**6)
    _docs, verified_requests = await _crawl(addon=True)
    assert 2 * requests < verified_requests <= stock_requests


def probing() -> tuple[ParamSpellings, list[Request]]:
    """Spellings whose probes are kept in a list instead of sent."""
    found = ParamSpellings()
    sent: list[Request] = []
    found.send = sent.append
    return found, sent


def test_a_resource_settles_on_three_token_spellings_and_a_made_up_one() -> None:
    found, sent = probing()
    tokens = ["8f3a9c21d4e5b6a7", "0b1c2d3e4f5a6b7c", "9e8d7c6b5a4f3e2d", "1a2b3c4d5e6f7a8b"]
    for token in tokens[:2]:
        assert not found.observe(f"http://h/a?s={token}", 1)
    for path in ("b", "c"):
        found.observe(f"http://h/{path}?s={tokens[0]}", 2)
    # Two spellings agree, and one token rode on three paths: the add-on asks with a token of its own.
    [probe] = sent
    assert probe.url == f"http://h/a?s={tokens[1][::-1]}" and probe.dont_filter
    assert not found.settles(f"http://h/a?s={tokens[3]}", 1)  # not before its answer
    found.probed(probe.url, "s", 1)
    assert found.settles(f"http://h/a?s={tokens[3]}", 1)
    assert not found.settles(f"http://h/a?s={tokens[3]}", 2)  # another representative's page
    assert not found.settles("http://h/a?s=footer", 1)  # a word is never taken for a token
    assert not found.settles(f"http://h/a?s={tokens[3]}&n=2", 1)  # another resource
    # The resource answers another page: it unsettles, and says so once.
    assert found.observe(f"http://h/a?s={tokens[3]}", 3) == found.resources(f"http://h/a?s={tokens[3]}")
    assert not found.settles(f"http://h/a?s={tokens[0]}", 1)
    assert not found.observe(f"http://h/a?s={tokens[2]}", 1)
    assert len(sent) == 1


def test_a_value_that_selects_the_page_never_settles() -> None:
    """Three revisions of a file on a repository browser agree; a made-up one does not."""
    found, sent = probing()
    revisions = ["3f2a9c21d4e5b6a7c8d9", "0b1c2d3e4f5a6b7c8d9e", "9e8d7c6b5a4f3e2d1c0b", "1a2b3c4d5e6f7a8b9c0d"]
    for revision in revisions[:3]:
        for path in ("tree", "commit", "log"):
            found.observe(f"http://h/{path}?id={revision}", hash((path, revision)))
        found.observe(f"http://h/blob?f=README&id={revision}", 7)
    assert len(sent) == 1
    found.probed(sent[0].url, "id", None)  # a revision nobody made: an error
    assert not found.settles(f"http://h/blob?f=README&id={revisions[3]}", 7)


def test_words_and_numbers_never_settle() -> None:
    found = ParamSpellings()
    for value in ("footer", "nav", "related", "home"):
        found.observe(f"http://h/a?ref={value}", 1)
        found.observe(f"http://h/b?ref={value}", 2)
    for value in ("1", "2", "3"):
        found.observe(f"http://h/a?page={value}", 1)
    assert not found.settles("http://h/a?ref=sidebar", 1)
    assert not found.settles("http://h/a?page=4", 1)
