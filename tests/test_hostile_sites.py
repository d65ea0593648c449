"""Hostile sites: the learner makes no wrong rule, loses no real page, and nothing crashes."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import FunctionSite, Reply, VirtualWeb
from demoweb.sites import ApacheSite, Doc
from test_learning import ORDERED

from scrapy_urlnorm import audits, learning, ledger, pages, pairs

REAL = ApacheSite(
    "real.test",
    {
        "/": Doc("real:home", ["/docs", "/news", "http://soft404.test/", "http://redirector.test/p0",
                               "http://lookalike.test/docs/", "http://calendar.test/2026/1/1", "http://token.test/"]),
        "/docs/": Doc("real:docs", ["/docs/a.html", "/news", "/docs/index.html"]),
        "/docs/a.html": Doc("real:a", ["/docs", "/"]),
        "/news/": Doc("real:news", ["/news/index.html", "/docs/a.html", "/news/b.html"]),
        "/news/b.html": Doc("real:b", ["/news"]),
    },
)  # fmt: skip


def soft404(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Every URL answers 200 with the same page, linking to variants of itself."""
    n = sum(map(ord, path)) % 50
    return Reply.page("soft404:page", [f"/x{n}", f"/x{n}/", f"/X{n}", f"/x{n}/index.html", f"/x{n + 1}"])


_rng = random.Random(5)


def redirector(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Every URL redirects to a random other one (some loop)."""
    if path.startswith("/p") and path[2:].isdigit() and int(path[2:]) % 5 == 4:
        return Reply.page(f"redirector:{path}", [f"/p{int(path[2:]) + 1}"])
    return Reply.redirect(f"/p{_rng.randrange(40)}" + ("/" if _rng.random() < 0.3 else ""))


def lookalike(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Redirects to the same path on another site."""
    return Reply.redirect(f"http://real.test{path}")


def calendar(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Endless unique URLs: each day links to the next (a crawler trap)."""
    match = re.fullmatch(r"/(\d+)/(\d+)/(\d+)/?", path)
    if not match:
        return Reply.not_found()
    year, month, day = map(int, match.groups())
    following = f"/{year + (month == 12 and day == 28)}/{month % 12 + (day == 28)}/{day % 28 + 1}"
    return Reply.page(f"calendar:{path}", [following, following + "/"])


def token(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Each response carries a fresh token; /a and /a/ are different pages."""
    pages = {"/": ["/a", "/a/", "/b", "/b/"], "/a": [], "/a/": [], "/b": [], "/b/": []}
    if path not in pages:
        return Reply.not_found()
    reply = Reply.page(f"token:{path}", pages[path])
    reply.body = reply.body.replace(b"</body>", f"<p>token {random.getrandbits(64):x}</p></body>".encode())
    return reply


def hostile_web() -> VirtualWeb:
    """The real site among the hostile ones."""
    hostile = (soft404, redirector, lookalike, calendar, token)
    return VirtualWeb({"real.test": REAL} | {f"{site.__name__}.test": FunctionSite(site) for site in hostile})


REAL_DOCS = {f"real:{n}" for n in ("home", "docs", "a", "news", "b")}


@pytest_twisted.ensureDeferred
async def test_mixed_web_of_hostile_sites(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG", logger="scrapy_urlnorm")
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        **ORDERED,
        "URLNORM_AUDIT_RATE": 0.1,
        "DEPTH_LIMIT": 12,
        "REDIRECT_MAX_TIMES": 5,
    }
    with hostile_web() as web:
        result = await crawl(web, ["http://real.test/"], settings)
    stats = result.stats
    found = set(result.doc_ids)
    # Every real page is collected, and every token page (they all differ).
    assert {doc for doc in found if doc.startswith("real:")} == REAL_DOCS
    assert {doc for doc in found if doc.startswith("token:")} == {f"token:{p}" for p in ("/", "/a", "/a/", "/b", "/b/")}
    # No rule on any hostile host; on the real one, what it taught.
    learned = sorted(r.getMessage() for r in caplog.records if r.getMessage().startswith("Learned rule"))
    assert learned == [
        "Learned rule default_page:index.html on real.test from 2 pair(s) (content: 2)",
        "Learned rule trailing_slash (add) on real.test from 2 pair(s) (redirect: 2)",
    ]
    assert stats["urlnorm/learned_rules"] == 2
    assert stats.get("log_count/ERROR", 0) == 0
    assert stats["finish_reason"] == "finished"


@pytest_twisted.ensureDeferred
async def test_memory_caps_hold_through_a_long_hostile_crawl(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The bounded structures, with their caps lowered so a test-sized crawl
    overruns them: each stays within its cap (and the busy ones reach it), and
    the real site still loses nothing."""
    caplog.set_level("DEBUG", logger="scrapy_urlnorm")
    caps = {
        (audits, "DIGESTS_REMEMBERED"): ("page_digests_for_audits", 40),
        (pages, "PAGE_HOSTS"): ("hosts_with_pages_for_rekeying", 2),
        (ledger, "MAX_DROPS"): ("ledger_drops", 3),
        (pairs, "MAX_BUCKETS"): ("evidence_buckets", 60),
        (pairs, "MAX_DIGESTS"): ("catch_all_digests", 30),
        (learning, "MAX_RULES"): ("rule_states", 6),
    }
    for (module, name), (_, cap) in caps.items():
        monkeypatch.setattr(module, name, cap)
    monkeypatch.setattr(pages, "PAGES_PER_HOST", 5)
    settings = {
        "ADDONS": {"scrapy_urlnorm.Addon": 0},
        "CONCURRENT_REQUESTS": 16,  # no order to keep here
        "DEPTH_LIMIT": 25,
        "REDIRECT_MAX_TIMES": 5,
        "URLNORM_CACHE_SIZE": 32,
    }
    with hostile_web() as web:
        # Several years of the calendar trap at once: its days link one to the next.
        trap = [f"http://calendar.test/{year}/1/1" for year in range(2026, 2032)]
        result = await crawl(web, ["http://real.test/", *trap], settings)
    stats = result.stats
    figures = {key.removeprefix("urlnorm/memory/"): value for key, value in stats.items() if "/memory/" in key}
    for name, cap in caps.values():
        assert figures[name] <= cap, (name, figures)
    assert figures["normalization_cache"] <= 32
    # The trap made the busy structures overflow: the caps were tested, not just unreached.
    assert stats["downloader/request_count"] > 200
    for name in ("page_digests_for_audits", "evidence_buckets", "catch_all_digests"):
        assert figures[name] == dict(caps.values())[name], (name, figures)
    assert figures["seen_table_bytes"] > 0 and figures["page_digest_bytes"] > 0
    # No page of the real site lost, no rule on a hostile host, no error.
    assert {doc for doc in result.doc_ids if doc.startswith("real:")} == REAL_DOCS
    learned_on = {m.split(" on ")[1].split()[0] for m in caplog.messages if m.startswith("Learned rule")}
    assert learned_on <= {"real.test"}
    assert stats.get("log_count/ERROR", 0) == 0
    assert stats["finish_reason"] == "finished"
