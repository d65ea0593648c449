"""Pages whose cookieless answer wrote the session into their links, across ``JOBDIR`` runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy import Request

from scrapy_urlnorm.session_links import SESSION_LINKS_FILE, SessionLinkedPages

PAGE = (11, 12)


@pytest.mark.parametrize("bits", [64, 128])
def test_a_page_waiting_for_its_refetch_still_waits_in_the_next_run(tmp_path: Path, bits: int) -> None:
    path = tmp_path / SESSION_LINKS_FILE
    key = (1 << 100) + 5 if bits == 128 else 5
    first = SessionLinkedPages(path=path, bits=bits)
    first.remember((key,))
    first.close()
    second = SessionLinkedPages(path=path, bits=bits)
    assert second.run == 2
    assert second.refetch(key)
    assert not second.refetch(key)  # once
    second.close()
    assert not SessionLinkedPages(path=path, bits=bits).refetch(key)  # (and not again in a third run)


def test_a_refetch_answered_in_a_later_run_waits_again_once(tmp_path: Path) -> None:
    """A refetch let through in one run and answered, without the cookie, in the next
    (a stop emptied the jar; random seed 166456 with ``--stops 2``) waits for another."""
    path = tmp_path / SESSION_LINKS_FILE
    first = SessionLinkedPages(path=path)
    first.remember(PAGE)
    request = Request("http://s.test/#section-2")
    assert first.refetch(PAGE, request)
    assert SessionLinkedPages.refetched_in(request) == 1
    first.close()  # (the stop came while it waited in the queue)
    second = SessionLinkedPages(path=path)
    second.remember(PAGE, request)  # its answer carried session links again
    again = Request("http://s.test/")
    assert second.refetch(PAGE, again)
    second.remember(PAGE, again)  # answered in the run that let it through: no more
    assert not second.refetch(PAGE, Request("http://s.test/?x"))


def test_without_jobdir_a_refetch_is_one_per_page() -> None:
    pages = SessionLinkedPages()
    pages.remember(PAGE)
    request = Request("http://s.test/")
    assert pages.refetch(PAGE, request)
    pages.remember(PAGE, request)  # (the cookie did not stick: stock never met plain links either)
    assert not pages.refetch(PAGE)
    assert len(pages) == 2
