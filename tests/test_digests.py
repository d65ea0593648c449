"""``page_digest``: two answers of one page agree, two pages that differ in substance do not."""

from __future__ import annotations

import re

import pytest
import xxhash
from hypothesis import given
from hypothesis import strategies as st

from scrapy_urlnorm import digests
from scrapy_urlnorm.digests import page_digest, substance


def page(*, token: str = "4f1c2a9e", text: str = "Pricing", script: str = "var page = 1;") -> bytes:
    return (
        f'<html><head><meta name="csrf-token" content="{token}">'
        f'<meta name="description" content="About {text}">'
        f'<script nonce="{token}">{script}</script></head>'
        f"<body><!-- rendered in 0.0{token[:2]} s by node {token} --><h1>{text}</h1>"
        f'<form action="/search"><input type="hidden" name="csrf" value="{token}">'
        f'<input type="text" name="q" value="pricing"></form></body></html>'
    ).encode()


def test_two_answers_of_one_page_agree() -> None:
    assert page_digest(page(token="4f1c2a9e")) == page_digest(page(token="91bb03d7"))


@pytest.mark.parametrize(
    "other",
    [
        page(text="Contact"),  # visible text
        page(script="var page = 2;"),  # a script's code or data: a single-page application's pages
        page().replace(b'value="pricing"', b'value="contact"'),  # a field the reader sees
        page().replace(b"About Pricing", b"About Contact"),  # a meta that is not a token
        page().replace(b'action="/search"', b'action="/find"'),
    ],
)
def test_pages_that_differ_in_substance_differ(other: bytes) -> None:
    assert page_digest(page()) != page_digest(other)


def test_a_nonce_is_left_out_of_tags_only() -> None:
    text = page_digest(page().replace(b"<h1>", b"<h1>The nonce='9f' "))
    assert text != page_digest(page().replace(b"<h1>", b"<h1>The nonce='0a' "))
    assert page_digest(b'<link rel="preload" nonce="a1">') == page_digest(b'<link rel="preload" nonce="b2">')


def test_only_html_is_read_for_tokens() -> None:
    one, two = page(token="4f1c2a9e"), page(token="91bb03d7")
    assert page_digest(one, html=False) != page_digest(two, html=False)
    assert page_digest(one, html=False) == xxhash.xxh3_64_intdigest(one)


def test_what_is_left_out() -> None:
    kept = substance(page())
    assert b"4f1c2a9e" not in kept and b"rendered in" not in kept
    assert kept.count(b"<input") == 2 and b'name="csrf"' in kept and b'value="pricing"' in kept
    assert b'<meta name="csrf-token" >' in kept and b"About Pricing" in kept


def test_an_unterminated_comment_is_left_as_it_is() -> None:
    body = b"<html><body>A<!-- open <b>B</b></body></html>"
    assert substance(body) == body
    assert substance(b"<p>A<!-- x -->B<!-- y") == b"<p>AB<!-- y"


@given(st.binary(max_size=300))
def test_a_body_without_what_is_left_out_is_digested_as_it_is(body: bytes) -> None:
    if not any(mark in body for mark in (b"<!--", b"<input", b"<meta", b"<script", b"<link", b"<style")):
        assert page_digest(body) == xxhash.xxh3_64_intdigest(body)


@given(
    st.lists(
        st.sampled_from(["<!--", "-->", "<input type=hidden value=", "x", ">", "<meta name=csrf content="]), max_size=40
    )
)
def test_leaving_out_never_adds(parts: list[str]) -> None:
    body = "".join(parts).encode()
    assert len(substance(body)) <= len(body)


@pytest.mark.parametrize(
    "unit", [b"<!--", b"<input type=hidden ", b'<meta name="csrf" content=', b"<script nonce='", b"<link "]
)
def test_hostile_pages_cost_linear_work(unit: bytes) -> None:
    """The one pattern matched where a tag starts is bounded (the others read within
    the tag it matched), so a page of half-open constructs cannot make each of them
    read on to the end of the page."""
    body = unit * 20_000
    assert len(substance(body)) <= len(body)
    assert re.search(rb"\{0,\d+\}", digests._TAG_REST.pattern)


def test_a_response_digested_twice_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The downloader middleware and the crawl log digest the same body in turn."""
    calls: list[bytes] = []
    real = digests.substance
    monkeypatch.setattr(digests, "substance", lambda body: calls.append(body) or real(body))
    body = page(token="77aa01")
    first = page_digest(body)
    assert page_digest(body) == first and len(calls) == 1
    again = body[:10] + body[10:]  # an equal body, another object: read again
    assert again is not body and page_digest(again) == first and len(calls) == 2


def linked(session: str, *, text: str = "Pricing") -> bytes:
    return (
        f'<html><body><h1>{text}</h1><a href="/a?s={session}">a</a>'
        f'<a href="/b?n=2&amp;s={session}">b</a><a href="/c;s={session}">c</a></body></html>'
    ).encode()


def test_a_session_in_links_is_left_out_where_the_url_has_one() -> None:
    """Two sessions' answers of one page agree where the page's URL names the
    session parameter with a token; elsewhere, and for pages that differ, they do not."""
    one, two = "8f3a9c21d4e5b6a7e1", "0b1c2d3e4f5a6b7c99"
    assert page_digest(linked(one), url=f"http://h/p?s={one}") == page_digest(linked(two), url=f"http://h/p?s={two}")
    assert page_digest(linked(one)) != page_digest(linked(two))
    assert page_digest(linked(one), url="http://h/p?s=footer") != page_digest(linked(two), url="http://h/p?s=footer")
    assert page_digest(linked(one), url=f"http://h/p?t={one}") != page_digest(linked(two), url=f"http://h/p?t={two}")
    other = linked(two, text="Terms")
    assert page_digest(linked(one), url=f"http://h/p?s={one}") != page_digest(other, url=f"http://h/p?s={two}")


def test_a_sessions_answer_agrees_with_the_answer_without_a_session() -> None:
    """Differential seed 152404: a host that opened a session on its ``www.`` twin only
    answered ``www.h/help/index.html?PHPSESSID=T``, links carrying ``T``, and
    ``h/help/index.html``, links carrying none. The two are one page: its session
    parameter goes from the links, name and token, wherever it sits in the query."""
    one = "8f3a9c21d4e5b6a7e1"
    plain = b'<html><body><h1>Pricing</h1><a href="/a">a</a><a href="/b?n=2">b</a><a href="/c">c</a></body></html>'
    assert page_digest(linked(one), url=f"http://h/p?s={one}") == page_digest(plain, url="http://h/p")
    first = f'<a href="/b?s={one}&amp;n=2">b</a><a href="/d?m=1&s={one}&n=3">d</a>'.encode()
    assert page_digest(first, url=f"http://h/p?s={one}") == page_digest(
        b'<a href="/b?n=2">b</a><a href="/d?m=1&n=3">d</a>'
    )
    # A page whose links differ in more than the session still differs.
    assert page_digest(linked(one), url=f"http://h/p?s={one}") != page_digest(plain.replace(b"/c", b"/e"))
    # Names that say session whatever the value go from every page's links (a site that
    # wrote ids in its links, its twins reached with a session and without).
    written = b'<a href="/a?PHPSESSID=84ee22973e44a873">a</a><a href="/b;jsessionid=77D7F78478788EDF">b</a>'
    assert page_digest(written, url=f"http://www.h/p?PHPSESSID={one}") == page_digest(written, url="http://h/p")
    assert page_digest(written) == page_digest(b'<a href="/a">a</a><a href="/b">b</a>')
    assert page_digest(written) != page_digest(b'<a href="/a">a</a><a href="/c">b</a>')


def opened(session: str, *, text: str = "Pricing") -> bytes:
    links = "".join(f'<a href="/{page}?s={session}">{page}</a>' for page in ("a", "b", "c/d"))
    return f"<html><body><h1>{text}</h1>{links}</body></html>".encode()


def test_a_session_an_answer_opened_is_left_out() -> None:
    """A page whose URL has no session, whose links carry one token to three paths
    (the answer opened a session), agrees with another session's answer of it."""
    one, two = "8f3a9c21d4e5b6a7e1", "0b1c2d3e4f5a6b7c99"
    assert page_digest(opened(one), url="http://h/p") == page_digest(opened(two), url=f"http://h/p?s={two}")
    assert page_digest(opened(one)) != page_digest(opened(two, text="Terms"))
    # One identifier to three links of one path, or tokens that differ per link: not a session.
    same_path = "".join(f'<a href="/item?id={one}#{n}">{n}</a>' for n in range(3)).encode()
    assert page_digest(same_path) != page_digest(same_path.replace(one.encode(), two.encode()))
    assert digests.riding_sessions(opened(one)) == ["s"]
    assert digests.riding_sessions(opened("footer-and-more-words")) == []
