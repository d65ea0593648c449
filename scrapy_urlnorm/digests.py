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
- ``nonce`` attributes.

Everything else stays: visible text, links, attributes, the code and data of
scripts (a single-page application's pages may differ only there). Two pages
that differ in any of it have different digests. Other bodies (and HTML
without any of these) are digested as they are.

The work is a few ``find`` scans of the body, plus bounded patterns where one
of these is found: linear, whatever a hostile page holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import xxhash

#: The rest of a tag that may carry a volatile value, from its name on (bounded:
#: a hostile page cannot make it read on to the end of the page).
_TAG_REST = re.compile(rb"[\s/][^<>]{0,4096}>")
_HIDDEN = re.compile(rb"""\btype\s*=\s*["']?hidden\b""", re.IGNORECASE)
_CSRF_NAME = re.compile(rb"""\bname\s*=\s*["']?[\w.-]{0,64}csrf""", re.IGNORECASE)
_VALUE = re.compile(rb"""\bvalue\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)""", re.IGNORECASE)
_CONTENT = re.compile(rb"""\bcontent\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)""", re.IGNORECASE)
#: A nonce attribute's value, quoted as in a tag (in a page's text, `` nonce = 5`` stays).
_NONCE_VALUE = re.compile(rb"""=(?:"[^"<>]{0,512}"|'[^'<>]{0,512}')""")


def page_digest(body: bytes, *, html: bool = True) -> int:
    """The 64-bit digest of a page's ``body`` (``html``: leave out its per-answer tokens)."""
    return xxhash.xxh3_64_intdigest(substance(body) if html else body)


def substance(body: bytes) -> bytes:
    """``body`` without its comments, hidden fields' values, CSRF metas' contents and
    nonces. Each is found with ``find`` (tags and attributes written in lower case,
    as nearly every page writes them; one in capitals is only kept, which can keep
    two answers of a page apart, never merge two pages)."""
    body = _replace_each(body, b"<!--", _comment_end, _gone)
    body = _replace_each(body, b"<input", _tag_end, _steady_input)
    body = _replace_each(body, b"<meta", _tag_end, _steady_meta)
    return _replace_each(body, b" nonce", _nonce_end, _gone)


def _replace_each(
    body: bytes, opener: bytes, end_of: Callable[[bytes, int], int | None], replace: Callable[[bytes], bytes]
) -> bytes:
    """``body`` with each piece that starts with ``opener`` and ends where ``end_of(body,
    the opener's end)`` says replaced by ``replace(piece)``. ``end_of`` answers ``None``
    for an opener that starts no such piece, ``-1`` when none can end any more."""
    start = body.find(opener)
    if start < 0:
        return body
    parts = []
    kept = 0
    while start >= 0:
        end = end_of(body, start + len(opener))
        if end is None:
            start = body.find(opener, start + len(opener))
            continue
        if end < 0:
            break
        parts.append(body[kept:start])
        parts.append(replace(body[start:end]))
        kept = end
        start = body.find(opener, end)
    parts.append(body[kept:])
    return b"".join(parts)


def _gone(piece: bytes) -> bytes:
    return b""


def _comment_end(body: bytes, after: int) -> int:
    end = body.find(b"-->", after)
    return end + 3 if end >= 0 else -1  # unterminated: what follows stays as it is


def _tag_end(body: bytes, after: int) -> int | None:
    rest = _TAG_REST.match(body, after)
    return rest.end() if rest is not None else None


def _nonce_end(body: bytes, after: int) -> int | None:
    value = _NONCE_VALUE.match(body, after)
    return value.end() if value is not None else None


def _steady_input(tag: bytes) -> bytes:
    return _VALUE.sub(b"", tag) if _HIDDEN.search(tag) else tag


def _steady_meta(tag: bytes) -> bytes:
    return _CONTENT.sub(b"", tag) if _CSRF_NAME.search(tag) else tag
