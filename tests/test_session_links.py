"""Pages whose answer wrote the session into their links for a cookieless client."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse

from scrapy_urlnorm.session_links import (
    SESSION_LINKS_FILE,
    SessionLinkedPages,
    refetched_in,
    session_written_in,
    sessions_in,
    without_sessions,
)

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
    assert refetched_in(request) == 1
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


@pytest.mark.parametrize(
    ("url", "sessions"),
    [
        ("http://t.test/app/x.jsp;jsessionid=05E50308910A8D96?utm_source=rss", ["05E50308910A8D96"]),
        ("http://t.test/app;JSESSIONID=05E50308910A8D96/x.jsp", ["05E50308910A8D96"]),
        ("http://p.test/x.php?PHPSESSID=0a1b2c3d4e5f6a7b&page=2", ["0a1b2c3d4e5f6a7b"]),
        ("http://p.test/x?sid=3f9c2a7b1e8d4c6f5a0b", ["3f9c2a7b1e8d4c6f5a0b"]),
        ("http://p.test/x?sid=3", []),  # (a section, not a session)
        ("http://p.test/report?session=opening-keynote-day-1", []),  # (a conference session's page)
        ("http://p.test/item?id=12345678", []),
        ("http://p.test/x#;jsessionid=05E50308910A8D96", []),
    ],
)
def test_the_sessions_a_url_carries(url: str, sessions: list[str]) -> None:
    assert sessions_in(url) == sessions
    # and what a client that keeps no session asks for: the URL less exactly those
    assert sessions_in(without_sessions(url)) == []
    if not sessions:
        assert without_sessions(url) == url


@pytest.mark.parametrize(
    ("url", "plain"),
    [
        ("http://t.test/app/x.jsp;jsessionid=05E50308910A8D96?id=3", "http://t.test/app/x.jsp?id=3"),
        ("http://t.test/app;jsessionid=05E50308910A8D96;v=2/x.jsp", "http://t.test/app;v=2/x.jsp"),
        ("http://p.test/x.php?PHPSESSID=0a1b2c3d4e5f6a7b&page=2#top", "http://p.test/x.php?page=2#top"),
        ("http://p.test/x?sid=3f9c2a7b1e8d4c6f5a0b", "http://p.test/x"),
    ],
)
def test_a_url_without_its_sessions(url: str, plain: str) -> None:
    assert without_sessions(url) == plain


def test_a_body_repeating_the_session_its_url_carried_without_the_cookie_was_written_for_a_cookieless_client() -> None:
    """Tomcat answers ``;jsessionid=`` without the cookie with links spelled so, and no
    ``Set-Cookie``: the session is not new (a crawl resumed with an empty jar)."""
    url = "http://t.test/app/;jsessionid=05E50308910A8D96E2B3"
    body = b'<a href="/app/faq.html;jsessionid=05E50308910A8D96E2B3">faq</a>'
    response = HtmlResponse(url, body=body)
    assert session_written_in(response, b"", url)
    assert not session_written_in(response, b"JSESSIONID=05E50308910A8D96E2B3", url)  # (the cookie went too)
    assert not session_written_in(HtmlResponse(url, body=b'<a href="/app/faq.html">faq</a>'), b"", url)
