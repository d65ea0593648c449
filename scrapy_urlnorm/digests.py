"""A page's digest: its bytes, less what an application renders anew on every answer.

Content is evidence. Two URLs answered with the same page teach a rule; an audit
compares a dropped URL's page with its representative's; the redundancy meter
counts a page downloaded twice. An application that puts a token of each
answer's own in its pages (a CSRF field in a form, a nonce on its scripts, a
"generated in 0.02 s" comment) makes no two answers byte-identical: content
taught nothing on such a host, and every audit downloaded in full disagreed
and revoked the rule it checked.

So the digest of an HTML page leaves out what no reader takes for the page's
substance, and only that:

- HTML comments;
- the value of a hidden form field (``<input type="hidden" value="...">``);
- the content of a ``<meta>`` whose name says CSRF (``csrf-token``, ``_csrf``);
- ``nonce`` attributes (of ``<script>``, ``<link>`` and ``<style>``).

A session written into links when the client keeps no cookie
(``/a?s=8f3a...``) is left out too: such a site writes the session into every
link of an answer, so no two sessions' answers of one page would agree, and
the session parameter could never be learned (see
:mod:`scrapy_urlnorm.spellings`). A parameter is taken for a session where the
page's own URL spells it with a random token, or where the page's links carry
one token value of it to three paths or more (an answer that opened a
session: an identifier names one resource); then that parameter goes from the
links, name and token, and the links themselves stay. So a session's answer
agrees with another session's, and with the answer of the page at its URL
without a session, whose links carry none (the ``www.`` twin of a host that
opened a session on one twin only). The parameters whose names say session
whatever their value (``PHPSESSID``, ``jsessionid``: those the ``session_ids``
step removes from URLs) go from every page's links where their value is a
token (found by the scan for riding sessions: no pass more): a page reached at
``?PHPSESSID=T`` and its twin reached without one, both of whose links carry
the ids the site wrote in them, are one page (differential seed 152404: the
two twins of a host never merged).

Everything else stays: visible text, links, attributes, the code and data of
scripts (a single-page application's pages may differ only there). Two pages
that differ in any of it have different digests. Other bodies (and HTML
without any of these) are digested as they are.

The work is one pass of a pattern that starts with ``<`` over the body, plus
bounded patterns where a tag of these is found: linear, whatever a hostile
page holds.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import unquote

import xxhash

from .params import SESSION_PARAMS, looks_like_token

#: Where something to leave out may start: a comment, or a tag that may carry a
#: per-answer value (lower case only, see :func:`substance`).
_PIECE = re.compile(rb"<(?:!--|input|meta|script|link|style)")
#: The rest of such a tag, after its name (bounded: a hostile page cannot make it
#: read on to the end of the page).
_TAG_REST = re.compile(rb"[\s/][^<>]{0,4096}>")
_HIDDEN = re.compile(rb"""\btype\s*=\s*["']?hidden\b""", re.IGNORECASE)
_CSRF_NAME = re.compile(rb"""\bname\s*=\s*["']?[\w.-]{0,64}csrf""", re.IGNORECASE)
_VALUE = re.compile(rb"""\bvalue\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)""", re.IGNORECASE)
_CONTENT = re.compile(rb"""\bcontent\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)""", re.IGNORECASE)
_NONCE = re.compile(rb"""\snonce\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)""", re.IGNORECASE)


#: A token's characters, as ``SESSION_TOKEN`` has them (what follows a session
#: parameter's ``=`` in a link of a page whose URL spells it with a token).
_TOKEN_VALUE = rb"[0-9A-Za-z_\-]{16,}"
_TOKEN_CHARS = re.compile(_TOKEN_VALUE)
_TOKEN_AFTER_EQUALS = re.compile(rb"=[0-9A-Za-z_\-]{16}")
#: A parameter's name, as read back from its ``=``; how far back; a link's path, how long.
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NAME_LONGEST = 64
_PATH_LONGEST = 2048
#: Paths one token value of a parameter must reach in a page's links to be taken for a session.
SESSION_PATHS = 3
#: Names that say session whatever the value (see ``params.SESSION_PARAMS``), lower case.
_KNOWN_NAMES = frozenset(name.encode() for name in SESSION_PARAMS)

#: The last HTML body digested, the page's URL, and its digest: the downloader
#: middleware and, with ``URLNORM_CRAWL_LOG``, the report digest the same
#: response one after the other.
_last: tuple[bytes, str, int] = (b"", "", xxhash.xxh3_64_intdigest(b""))


def page_digest(body: bytes, *, html: bool = True, url: str = "") -> int:
    """The 64-bit digest of a page's ``body`` (``html``: leave out its per-answer
    tokens, and the session tokens in its links of the parameters ``url`` carries)."""
    global _last
    if not html:
        return xxhash.xxh3_64_intdigest(body)
    if body is _last[0] and url == _last[1]:  # (bytes never change: the same object has the same digest)
        return _last[2]
    kept = substance(body)
    names = session_names(url)
    for name in riding_sessions(kept):
        if name not in names:
            names.append(name)
    if names:
        kept = _session_values(tuple(names)).sub(_without_session, kept)
    digest = xxhash.xxh3_64_intdigest(kept)
    _last = (body, url, digest)
    return digest


def session_names(url: str) -> list[str]:
    """The names of ``url``'s query parameters whose values look like random tokens."""
    query = url.partition("?")[2].partition("#")[0]
    if not query:
        return []
    names = []
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if name and value and name not in names and looks_like_token(unquote(value)):
            names.append(name)
    return names


def riding_sessions(body: bytes) -> list[str]:
    """Names of parameters whose links in ``body`` carry one random token to
    :data:`SESSION_PATHS` paths or more (a session the answer opened), and of those
    whose names say session whatever the value (``PHPSESSID``, ``jsessionid``...)
    carrying one (the ids a site wrote into its links)."""
    paths: dict[tuple[bytes, bytes], set[bytes]] = {}
    names: list[str] = []
    # Each "=" followed by a token's characters (few in most pages, and found by a
    # pattern that starts with a literal), read back to its name and its link's path.
    for found in _TOKEN_AFTER_EQUALS.finditer(body):
        equals = found.start()
        start = equals
        while start > 0 and equals - start < _NAME_LONGEST and body[start - 1] in _NAME_BYTES:
            start -= 1
        if start == equals or start == 0 or body[start - 1] not in b"?&;":
            continue  # not a query's parameter
        name = body[start:equals]
        if name.lower() in _KNOWN_NAMES:
            known = name.decode("latin-1")
            if known not in names:
                names.append(known)
            continue
        mark = body.rfind(b"?", max(0, start - _PATH_LONGEST), start)
        if mark < 0:
            continue
        opening = max(body.rfind(quote, max(0, mark - _PATH_LONGEST), mark) for quote in (b'"', b"'", b" ", b"="))
        token = _TOKEN_CHARS.match(body, equals + 1)
        if token is None:  # (the search found sixteen of its characters)
            continue
        seen = paths.setdefault((name, token.group()), set())
        if len(seen) < SESSION_PATHS:
            seen.add(body[opening + 1 : mark])
    for (riding, value), where in paths.items():
        if len(where) >= SESSION_PATHS and looks_like_token(value.decode("ascii")):
            decoded = riding.decode("latin-1")
            if decoded not in names:
                names.append(decoded)
    return names


@functools.lru_cache(maxsize=64)
def _session_values(names: tuple[str, ...]) -> re.Pattern[bytes]:
    """Where a link spells a token value of parameters ``names`` (``?s=<token>``,
    ``&s=``, ``&amp;s=``, ``;s=``): the separator before it is group 1, the one
    after it (if another parameter follows) group 2."""
    alternatives = b"|".join(re.escape(name.encode("latin-1", "replace")) for name in names)
    pattern = rb"(\?|&amp;|&|;)(?:" + alternatives + rb")=" + _TOKEN_VALUE + rb"(&amp;|&)?"
    return re.compile(pattern, re.IGNORECASE)


def _without_session(found: re.Match[bytes]) -> bytes:
    """The link as if it had no session parameter: ``/a?s=T`` -> ``/a``,
    ``/a?s=T&n=2`` -> ``/a?n=2``, ``/a?n=2&amp;s=T`` -> ``/a?n=2``, ``/c;s=T`` -> ``/c``."""
    after = found.group(2)
    if found.group(1) == b"?":
        return b"?" if after else b""
    return after or b""


def substance(body: bytes) -> bytes:
    """``body`` without its comments, hidden fields' values, CSRF metas' contents and
    nonces, in one pass. Tags are found written in lower case, as nearly every page
    writes them: one in capitals is kept, which can keep two answers of a page
    apart, never merge two pages."""
    parts: list[bytes] = []
    kept = position = 0
    while (found := _PIECE.search(body, position)) is not None:
        start = found.start()
        if body[start + 1] == 0x21:  # "<!--"
            end = body.find(b"-->", found.end())
            if end < 0:
                break  # unterminated: what follows stays as it is
            parts.append(body[kept:start])
            kept = position = end + 3
            continue
        rest = _TAG_REST.match(body, found.end())
        if rest is None:
            position = found.end()
            continue
        end = position = rest.end()
        tag = body[start:end]
        steady = _steady(tag, body[start + 1])
        if steady != tag:
            parts.append(body[kept:start])
            parts.append(steady)
            kept = end
    if not parts:
        return body
    parts.append(body[kept:])
    return b"".join(parts)


def _steady(tag: bytes, initial: int) -> bytes:
    """``tag`` without its per-answer value, if it has one."""
    if initial == 0x69:  # <input
        return _VALUE.sub(b"", tag) if _HIDDEN.search(tag) else tag
    if initial == 0x6D:  # <meta
        return _CONTENT.sub(b"", tag) if _CSRF_NAME.search(tag) else tag
    return _NONCE.sub(b"", tag) if b"nonce" in tag else tag  # <script, <link, <style
