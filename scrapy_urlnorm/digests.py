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

Everything else stays: visible text, links, attributes, the code and data of
scripts (a single-page application's pages may differ only there). Two pages
that differ in any of it have different digests. Other bodies (and HTML
without any of these) are digested as they are.

The work is one pass of a pattern that starts with ``<`` over the body, plus
bounded patterns where a tag of these is found: linear, whatever a hostile
page holds.
"""

from __future__ import annotations

import re

import xxhash

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


#: The last HTML body digested and its digest: the downloader middleware and, with
#: ``URLNORM_CRAWL_LOG``, the report digest the same response one after the other.
_last: tuple[bytes, int] = (b"", xxhash.xxh3_64_intdigest(b""))


def page_digest(body: bytes, *, html: bool = True) -> int:
    """The 64-bit digest of a page's ``body`` (``html``: leave out its per-answer tokens)."""
    global _last
    if not html:
        return xxhash.xxh3_64_intdigest(body)
    if body is _last[0]:  # (bytes never change: the same object has the same digest)
        return _last[1]
    digest = xxhash.xxh3_64_intdigest(substance(body))
    _last = (body, digest)
    return digest


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
