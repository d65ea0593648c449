"""Cheap audits: verify a drop with ``If-None-Match``, or a ``Content-Location``, instead of a download.

An audit fetches a URL a rule dropped and compares its page with the page of
the representative it was merged into. Where the representative's response
carried an entity tag, the audit is sent with ``If-None-Match: <that tag>``:
a server answering ``304 Not Modified`` says the URL's current
representation has the representative's tag, so the audit is settled
without the page being downloaded again. Any other answer is an ordinary
audit: a ``200`` is compared by digest as before, a redirect is judged as
before.

An entity tag is only evidence of the *same page* where the host's tags
follow content. Apache and nginx derive theirs from a file's modification
time and size, so two different files of one size written in the same second
share a tag; a misconfigured server or cache may send one tag for everything.
So a host's tags are trusted only once it has delivered two pages with two
different tags, and never again once two different pages (by digest) came
with one tag (``urlnorm/etags_distrusted``). A ``304`` whose own ``ETag``
differs from the tag sent is inconclusive: the audit is fetched in full.
The residual risk is two distinct files of one size and modification time
that a rule merges, on a host where no such pair was ever delivered:
``URLNORM_CONDITIONAL_AUDITS = False`` fetches every audit in full.

Negotiating servers (Apache ``MultiViews``) answer ``/x`` with the page of
``x.html`` and say so: ``Content-Location: x.html``. They also give the
negotiated response its own entity tag (``"<file's tag>;<variant>"``), so a
conditional audit of ``/x`` never matches. Two shortcuts take the header's
word instead, only for a file the server may negotiate for the URL (``/x`` and
``/x.html``, ``/d/`` and ``/d/index.html``: ``learning.negotiated_pair``) and
only where a learned rule already merged the two (two signals agree):

- a page whose ``Content-Location`` names another URL answers for that URL
  too: an audit of it against this page is settled without a request;
- on a host that named a negotiated file before, an audit of the extensionless
  side of an ``extension_alias`` drop is sent as ``HEAD``: a ``200`` naming its
  representative's file settles it (``urlnorm/audits_negotiated``); any other
  answer is fetched in full, as a ``GET``, once.

A ``/readme`` file beside ``/readme.html`` is served as itself, with no
``Content-Location``: its audit is a download, and finds the page of its own.

Off under ``HTTPCACHE_ENABLED``: Scrapy's cache keys on the URL, not on the
conditional header, and would store the ``304`` where the page belongs.
"""

from __future__ import annotations

from collections import OrderedDict

from .recent import put_recent

#: Entity tags of delivered representatives remembered (LRU), like their digests.
TAGS_REMEMBERED = 100_000
#: (host, tag) -> digest pairs remembered to catch tags shared by different pages (LRU).
PAIRS_REMEMBERED = 100_000
#: Hosts remembered as negotiating (naming the file they served in ``Content-Location``).
HOSTS_REMEMBERED = 10_000
#: Distinct tags a host must have delivered before its tags are evidence.
TAGS_BEFORE_TRUST = 2


def same_tag(sent: str, answered: str) -> bool:
    """Weak comparison (RFC 9110, 8.8.3.2), the one ``If-None-Match`` uses."""
    return sent.removeprefix("W/") == answered.removeprefix("W/")


class EntityTags:
    """Which representatives' entity tags may verify an audit, per host, and which
    hosts negotiate (their audits may be ``HEAD`` requests)."""

    def __init__(self) -> None:
        self._tags: OrderedDict[int, str] = OrderedDict()  # representative key -> its response's tag
        self._pages: OrderedDict[tuple[str, str], int] = OrderedDict()  # (host, tag) -> digest
        self._distinct: dict[str, set[str]] = {}  # host -> its first distinct tags, until trusted
        self._trusted: set[str] = set()
        self.distrusted: set[str] = set()
        self._negotiating: OrderedDict[str, bool] = OrderedDict()  # hosts seen to negotiate (LRU)

    def observe(self, host: str, tag: str, digest: int) -> bool:
        """A page of ``host`` arrived with ``tag``; False if that made the host's tags
        no evidence (a different page came with the same tag before)."""
        if host in self.distrusted:
            return True
        pages = self._pages
        known = pages.get((host, tag))
        if known is not None and known != digest:
            self.distrusted.add(host)
            self._trusted.discard(host)
            self._distinct.pop(host, None)
            return False
        put_recent(pages, (host, tag), digest, PAIRS_REMEMBERED)
        if host not in self._trusted:
            distinct = self._distinct.setdefault(host, set())
            distinct.add(tag)
            if len(distinct) >= TAGS_BEFORE_TRUST:
                self._trusted.add(host)
                del self._distinct[host]
        return True

    def remember(self, keys: tuple[int, ...], tag: str) -> None:
        """The representative of ``keys`` delivered its page with ``tag``."""
        for key in keys:
            put_recent(self._tags, key, tag, TAGS_REMEMBERED)

    def alias(self, key: int, new_key: int) -> None:
        """``new_key`` (a learned key, after a rule change) names the page of ``key`` too."""
        tag = self._tags.get(key)
        if tag is not None:
            self._tags[new_key] = tag

    def tag_for(self, key: int, host: str) -> str | None:
        """The tag an audit against ``key`` (on ``host``) may send, if its tags are evidence."""
        if host not in self._trusted:
            return None
        return self._tags.get(key)

    def negotiates(self, host: str) -> None:
        """``host`` named, in a ``Content-Location``, the file it negotiated for a URL."""
        put_recent(self._negotiating, host, True, HOSTS_REMEMBERED)

    def is_negotiating(self, host: str) -> bool:
        return host in self._negotiating

    def sizes(self) -> dict[str, int]:
        return {"entity_tags": len(self._tags), "entity_tag_pages": len(self._pages)}
