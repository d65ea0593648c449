"""Learned drops made past their place's audit budget are audited when the crawl falls idle
(:mod:`scrapy_urlnorm.unvouched`): real crawls against a server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import FunctionSite, Reply, VirtualWeb

from scrapy_urlnorm import audit_choice
from scrapy_urlnorm.audits import AUDITS_PER_SCOPE
from scrapy_urlnorm.unvouched import UnvouchedSweep

#: Folders with a budget of their own in these tests (the crawl's own cap is 256).
FOLDERS_WITH_A_BUDGET = 3
#: Folders of the site: those with a budget, those sharing the rest's, and three more.
FOLDERS = FOLDERS_WITH_A_BUDGET + AUDITS_PER_SCOPE + 3
ORDERED = {
    "CONCURRENT_REQUESTS": 1,
    "DEPTH_PRIORITY": 1,
    "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
    "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
}
ADDON = {"ADDONS": {"scrapy_urlnorm.Addon": 0}, **ORDERED}


def many_folders(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """A Windows server's site, case-insensitive (its ``/docs/`` pairs teach the case rule),
    with a folder per product, each linking its page in two cases; but the last folder is a
    share mounted from a case-sensitive server, where ``PAGE.htm`` is another page, the only
    way to ``secret.htm``."""
    last = f"/d{FOLDERS - 1}/"
    if path in (f"{last}PAGE.htm", f"{last}secret.htm"):
        return Reply.page(f"many:{path}", [f"{last}secret.htm"] if path.endswith("PAGE.htm") else [])
    folders = [f"/d{n}/" for n in range(FOLDERS)]
    pages = {
        "/": ["/docs/a.htm", "/DOCS/A.htm", "/docs/b.htm", "/Docs/B.htm", "/docs/c.htm", *folders],
        "/docs/a.htm": [],
        "/docs/b.htm": [],
        "/docs/c.htm": ["/DOCS/C.htm"],
        **{folder: [f"{folder}page.htm", f"{folder}PAGE.htm"] for folder in folders},
        **{f"{folder}page.htm": [] for folder in folders},
    }
    found = pages.get(path.lower())
    return Reply.not_found() if found is None else Reply.page(f"many:{path.lower()}", found)


@pytest.fixture
def few_folder_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit_choice, "FOLDER_BUDGETS", FOLDERS_WITH_A_BUDGET)


@pytest_twisted.ensureDeferred
async def test_a_drop_past_every_audit_budget_is_audited_at_idle(few_folder_budgets: None) -> None:
    """Past the folders with a budget of their own, the rest share one, spent on the first
    of them; the last folder's ``PAGE.htm``, another page, was dropped against ``page.htm``
    where the case rule had never held, unaudited, and lost with ``secret.htm``. Audited when
    the crawl falls idle, it is found another page, and both are collected."""
    with VirtualWeb({"many.test": FunctionSite(many_folders)}) as web:
        stock = await crawl(web, ["http://many.test/"], ORDERED)
        addon = await crawl(web, ["http://many.test/"], ADDON)
    last = f"/d{FOLDERS - 1}/"
    assert {f"many:{last}PAGE.htm", f"many:{last}secret.htm"} <= set(stock.doc_ids)
    assert set(addon.doc_ids) == set(stock.doc_ids)
    stats = addon.stats
    assert stats["urlnorm/learned/case_insensitive_path"] == 1
    # The folders no budget was left for (``/docs/`` had one of the three): audited at idle, once each.
    unbudgeted = FOLDERS - (FOLDERS_WITH_A_BUDGET - 1) - AUDITS_PER_SCOPE
    assert stats["urlnorm/idle_audits"] == stats["urlnorm/memory/idle_audit_marks"] == unbudgeted == 4
    # Each folder's variant was verified (the rule held in none by its pairs): stock's requests, no more.
    assert stats["downloader/request_count"] <= stock.stats["downloader/request_count"]


@pytest_twisted.ensureDeferred
async def test_without_the_idle_audits_that_drop_was_lost(
    few_folder_budgets: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same crawl with the sweep switched off: what the test above guards against."""
    monkeypatch.setattr(UnvouchedSweep, "sweep", lambda self: 0)
    with VirtualWeb({"many.test": FunctionSite(many_folders)}) as web:
        addon = await crawl(web, ["http://many.test/"], ADDON)
    assert f"many:/d{FOLDERS - 1}/secret.htm" not in set(addon.doc_ids)


def test_a_place_whose_audits_confirmed_its_rule_is_not_audited_again_at_idle() -> None:
    """Two audits that found their representatives' pages in a top directory of a ``www``
    twin confirm the rule there, as two pairs would; a directory past the cap, which shares
    its budget with the rest, is never confirmed that way: its drops are audited at idle."""
    from scrapy_urlnorm.dedup import Deduplicator
    from scrapy_urlnorm.policy import Policy

    dedup = Deduplicator(Policy(), learn=True, audit_rate=0.02)
    assert dedup.learner is not None
    for n in range(1, 7):
        for host in ("tw.test", "www.tw.test"):
            dedup.learner.observe_page(f"http://{host}/products/p{n}.htm", n, length=4096)
    choice, reason, url = dedup.audits.choice, "learned:www_alias", "http://www.tw.test/blog/a.htm"
    assert dedup.learner.is_active("tw.test", "www_alias")
    assert not choice.confirmed_place("www.tw.test", reason, url, 7)  # (no budget of its own yet)
    choice.scope("www.tw.test", reason, url, 7)  # (its first audit: the place gets a budget)
    for _ in range(2):
        assert not choice.confirmed_place("www.tw.test", reason, url, 7)
        audit = {"host": "www.tw.test", "reason": reason, "key": 8}
        choice.confirmed("http://www.tw.test/blog/b.htm", audit, 1)  # (an audit found its page)
    assert choice.confirmed_place("www.tw.test", reason, url, 7)
    assert not choice.confirmed_place("www.tw.test", reason, "http://www.tw.test/news/a.htm", 9)
