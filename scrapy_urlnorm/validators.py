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
time and size (``"26b-5f3e2a10"``, ``"5f3e2a10-26b"``), so two different files
of one size written in the same second share a tag: a tree a package
installed has one modification time, and two look-alike pages of one
template are often of one size (differential seed 74124 lost ``/view/``
beside ``/view``, 619 bytes each, to a twin probe's ``304``). A misconfigured
server or cache may send one tag for everything. So a host's tags are trusted
only once it has delivered two pages with two different tags, and never again
once two different pages (by digest) came with one tag, or, where its tags
name the page's size (a field is the body's length in hex), with one tag but
for the size: the rest is then a date the pages share, not a digest
(``urlnorm/etags_distrusted``). A tree with a date per file keeps its tags. Before its tags are first used,
the host is asked once about a tag it never gave (:mod:`scrapy_urlnorm.canary`):
one that answers ``304`` does not compare tags, and its tags are never used. A ``304`` whose own ``ETag``
differs from the tag sent is inconclusive: the audit is fetched in full.
An entity tag is never evidence between two query spellings of one path (an
``ignore_param`` drop, or a tracking parameter's): applications key their tags
on the record the path names, not on the query (Rails' ``fresh_when(@article)``
gives every ``?page=`` of an article the article's tag, and answers ``304`` for
page 1 to page 2's tag: the third generator's seed 608 lost page 1 so). Such an
audit is a download.
The residual risk is two distinct files of one size and modification time
that a rule merges, on a host whose other pages all have dates of their own
(or whose tags hide size and date in a hash):
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

import re
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from scrapy import Request as ScrapyRequest

from . import meta as M
from .keys import host_of
from .learning import VERIFIED_FAMILIES, negotiated_pair
from .pairs import ALIAS_EXTENSIONS
from .recent import put_recent

if TYPE_CHECKING:
    from scrapy import Request

    from .audits import AuditDesk
    from .canary import TagCanary

#: Drop reasons whose URLs differ from their representative's in the query only: a tag
#: says nothing between them (see the module's docstring).
QUERY_REASONS = frozenset({"learned:ignore_param", "tracking_params"})
#: Entity tags of delivered representatives remembered (LRU), like their digests.
TAGS_REMEMBERED = 100_000
#: (host, tag) -> digest pairs remembered to catch tags shared by different pages (LRU).
PAIRS_REMEMBERED = 100_000
#: Hosts remembered as negotiating (naming the file they served in ``Content-Location``).
HOSTS_REMEMBERED = 10_000
#: Distinct tags a host must have delivered before its tags are evidence.
TAGS_BEFORE_TRUST = 2


#: A weak tag of a file's shape: two or more hex fields (a date and a size).
_FILE_TAG = re.compile(r'W/"[0-9a-fA-F]+(?:[-;:][0-9a-fA-F]+)+"')


def without_size(tag: str, length: int) -> str | None:
    """``tag`` less the field that is the page's size, ``length`` in hex, as in
    Apache's ``"26b-5f3e2a10a1b2c"`` and nginx's ``"5f3e2a10-26b"`` (fields split at
    ``-``, ``;`` and ``:``); ``None`` if no field is."""
    size = f"{length:x}"
    fields = re.split(r"([-;:])", tag.removeprefix("W/").strip('"'))
    for at in range(0, len(fields), 2):
        if fields[at].lower() == size:
            return "".join([*fields[:at], "#", *fields[at + 1 :]])
    return None


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
        #: Set by ``wiring``: a host's tags are used only once it refused a tag it never gave.
        self.canary: TagCanary | None = None

    def observe(self, host: str, tag: str, digest: int, url: str = "", length: int | None = None) -> bool:
        """A page of ``host`` (at ``url``, ``length`` bytes) arrived with ``tag``; False if
        that made the host's tags no evidence (a different page came with the same tag
        before, or with the same tag but for its size)."""
        if host in self.distrusted:
            return True
        pages = self._pages
        known = pages.get((host, tag))
        stem = without_size(tag, length) if length is not None else None
        if stem is None and length is not None and _FILE_TAG.fullmatch(tag):
            # A file's tag (date and size, made weak: W/"5f3e2a10-26b") on a body the
            # server changed (filled in, per-answer tokens): no field is this body's
            # size, so two pages of one size cannot be told from one page (differential
            # seed 150322, --dynamic: /catalog.htm?page=4 answered 304 to page 3's tag).
            self._distrust(host)
            return False
        shared = pages.get((host, f"size-less {stem}")) if stem is not None else None  # (no tag has a space)
        if (known is not None and known != digest) or (shared is not None and shared != digest):
            self._distrust(host)
            return False
        put_recent(pages, (host, tag), digest, PAIRS_REMEMBERED)
        if stem is not None:
            put_recent(pages, (host, f"size-less {stem}"), digest, PAIRS_REMEMBERED)
        if host not in self._trusted:
            distinct = self._distinct.setdefault(host, set())
            distinct.add(tag)
            if len(distinct) >= TAGS_BEFORE_TRUST:
                self._trusted.add(host)
                del self._distinct[host]
                if self.canary is not None and url:
                    self.canary.ask(host, url)
        return True

    def _distrust(self, host: str) -> None:
        """``host``'s tags are no evidence, from now on."""
        self.distrusted.add(host)
        self._trusted.discard(host)
        self._distinct.pop(host, None)

    def canary_answered(self, host: str, status: int) -> bool:
        """``host``'s canary (see :mod:`scrapy_urlnorm.canary`) was answered ``status``;
        False if that made its tags no evidence."""
        if self.canary is None or self.canary.answered(host, status):
            return True
        self._distrust(host)
        return False

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
        if host not in self._trusted or (self.canary is not None and not self.canary.honest(host)):
            return None
        return self._tags.get(key)

    def negotiates(self, host: str) -> None:
        """``host`` named, in a ``Content-Location``, the file it negotiated for a URL."""
        put_recent(self._negotiating, host, True, HOSTS_REMEMBERED)

    def is_negotiating(self, host: str) -> bool:
        return host in self._negotiating

    def sizes(self) -> dict[str, int]:
        return {"entity_tags": len(self._tags), "entity_tag_pages": len(self._pages)}


class CheapAudits:
    """How an :class:`~scrapy_urlnorm.audits.AuditDesk`'s audits are settled without
    downloading the page: ``If-None-Match`` with the representative's entity tag, or
    the file a negotiating server names (see the module's docstring). ``tags`` is set
    by ``wiring`` when that is allowed (``URLNORM_CONDITIONAL_AUDITS``, no HTTP cache)."""

    def __init__(self, desk: AuditDesk) -> None:
        self.desk = desk
        self.tags: EntityTags | None = None

    def condition(self, request: Request) -> None:
        """At download time: send this audit with ``If-None-Match`` and its
        representative's entity tag, where that tag is evidence (see the module's docstring)."""
        tags = self.tags
        if tags is None:
            return
        audit = request.meta[M.AUDIT]
        headers = request.headers
        if "tag" in audit:
            return  # sent conditionally once already: fetched in full now
        if self.desk.stale(request, audit):
            return  # merged under rules since changed: its page is to be read (see AuditDesk.settle)
        if has_conditions(request):
            return  # the request's own conditions: its answer is the spider's business
        if self._links_differ(request, audit["reason"]) or audit["reason"] in QUERY_REASONS:
            return
        if "head" not in audit and self._ask_head(request, audit):
            request.method = "HEAD"  # in place, as the header below: the same request goes on
            request.meta[M.AUDIT] = {**audit, "head": True}
            return
        tag = tags.tag_for(audit["key"], host_of(request.url).lower())
        if tag is None or not self.desk.dedup.delivered_here(audit["key"]):
            return  # no tag to compare with, or no delivered page to keep the drop against
        headers[b"If-None-Match"] = tag
        request.meta[M.AUDIT] = {**audit, "tag": tag}

    def _links_differ(self, request: Request, reason: str) -> bool:
        """A ``trailing_slash`` drop on a site whose links are relative to their directory:
        the page read at either form has links of its own (see ``Learner.observe_page``),
        so its audit is a download the spider reads, never settled by a ``304``."""
        learner = self.desk.dedup.learner
        if learner is None or not reason.startswith("learned:"):
            return False
        return learner.moves_links(host_of(request.url).lower(), reason.removeprefix("learned:"))

    def may_settle(self, request: Request, key: int, reason: str) -> bool:
        """Whether an audit of ``request`` against ``key`` (delivered) could be settled
        without a download: by its representative's entity tag, or as a negotiated file.
        Only for the families verified on every drop (two pages that may be one): a
        redirect-taught rule's check is a redirect, which downloads nothing anyway; and
        never between two query spellings of a path (``QUERY_REASONS``)."""
        tags = self.tags
        if tags is None or reason.removeprefix("learned:") not in VERIFIED_FAMILIES or reason in QUERY_REASONS:
            return False
        if request.method != "GET" or request.body or has_conditions(request):
            return False
        if tags.tag_for(key, host_of(request.url).lower()) is not None:
            return True
        return self._negotiable(request, key, reason)

    def _ask_head(self, request: Request, audit: dict[str, Any]) -> bool:
        """Whether to send this audit as ``HEAD``: see :meth:`_negotiable`."""
        if request.method != "GET" or request.body:
            return False
        return self._negotiable(request, audit["key"], audit["reason"]) and self.desk.dedup.delivered_here(audit["key"])

    def _negotiable(self, request: Request, key: int, reason: str) -> bool:
        """The extensionless side of an ``extension_alias`` drop, on a host that names
        the files it negotiates: the answer's ``Content-Location`` is all that is needed."""
        tags = self.tags
        if tags is None or reason != "learned:extension_alias":
            return False
        url = self.desk.dedup.normalize(request.url)[0]
        if url is None or not tags.is_negotiating(host_of(url).lower()):
            return False
        last = url.partition("?")[0].rpartition("/")[2]
        if last.rpartition(".")[2].lower() in ALIAS_EXTENSIONS:
            return False  # a file's own name: served as itself, with no Content-Location
        return self.desk.auditor.digest(key) is not None

    def negotiated(self, url: str, location: str, digest: int | None) -> tuple[str, str] | None:
        """A response for ``url`` named ``location`` (absolute) in its ``Content-Location``:
        both normalized if it is a file the server may negotiate for the URL
        (``learning.negotiated_pair``), else None. A page's ``digest`` is then remembered
        as that URL's answer, so an audit of it against this page needs no request."""
        normalize = self.desk.dedup.normalize
        source, target = normalize(url)[0], normalize(location)[0]
        if source is None or target is None or not negotiated_pair(source, target):
            return None
        if self.tags is not None:
            self.tags.negotiates(host_of(source).lower())
            if digest is not None:
                named = ScrapyRequest(target)
                self.desk.auditor.answered(self.desk.dedup.keys.static(named).value, digest)
                self.desk.answers.named(named, digest)
        return source, target

    def head_answered(self, request: Request, location: str | None) -> bool:
        """A ``HEAD`` audit answered ``200`` naming ``location`` in its ``Content-Location``:
        whether that settles it (the file named is its representative's page). Then it
        is kept as a learned drop; else it is to be fetched in full (:meth:`in_full`)."""
        audit = request.meta[M.AUDIT]
        pair = self.negotiated(request.url, location, None) if location else None
        if pair is None:
            return False
        target = pair[1]
        learner = self.desk.dedup.learner
        if learner is not None:
            learner.observe_content_location(*pair)
        auditor = self.desk.auditor
        expected = auditor.digest(audit["key"])
        named = ScrapyRequest(target)
        # What the file named answered, or a spelling of it under the site's sampled rules
        # (the other www twin): not its key, which folds in the verified rules too (the
        # case rule a host's redirects taught: /faq names faq.html, beside FAQ.html).
        answer = self.desk.answers.answer(named, self.desk.dedup.keys.static(named).value, audit["reason"])
        digest = answer if isinstance(answer, int) else None
        if digest is None or digest != expected or not self.desk.dedup.delivered_here(audit["key"]):
            return False
        dropped = request.replace(method="GET")
        if not self.desk.keep_as_drop(dropped, audit):
            return False
        auditor.answered(self.desk.dedup.keys.static(dropped).value, digest)
        auditor.audits += 1
        self.desk.dedup.count("urlnorm/audits")
        self.desk.dedup.count("urlnorm/audits_negotiated")
        return True

    def not_modified(self, request: Request, answered_tag: str | None) -> bool:
        """A conditional audit answered ``304 Not Modified``: whether that settles it.
        Then its URL serves the representative's page, and it is kept as a learned
        drop against it (a revoked rule releases it); else it is to be fetched in full."""
        audit = request.meta[M.AUDIT]
        if answered_tag is not None and not same_tag(audit["tag"], answered_tag):
            return False  # the server named another tag than the one it matched: no evidence
        if not self.desk.dedup.delivered_here(audit["key"]) or not self.desk.keep_as_drop(request, audit):
            return False  # no delivered page to keep the drop against, or no room: fetched
        digest = self.desk.auditor.digest(audit["key"])
        if digest is not None:
            self.desk.auditor.answered(self.desk.dedup.keys.static(request).value, digest)
        self.desk.auditor.audits += 1
        self.desk.dedup.count("urlnorm/audits")
        self.desk.dedup.count("urlnorm/audits_not_modified")
        return True

    @staticmethod
    def in_full(request: Request) -> Request:
        """A conditional or ``HEAD`` audit whose answer settled nothing, to be fetched
        again as it was dropped (a ``HEAD`` audit may still go conditionally, a
        conditional one goes in full: see :meth:`condition`). With ``dont_filter``: it
        goes back through the scheduler, and an audit admitted by the filter (at check
        time) would be dropped there as a duplicate of itself, and its page lost."""
        audit = request.meta[M.AUDIT]
        if audit.get("head"):
            meta = {**request.meta, M.AUDIT: {**audit, "head": False}}
            return request.replace(method="GET", dont_filter=True, meta=meta)
        again = request.replace(dont_filter=True, meta={**request.meta, M.AUDIT: {**audit, "tag": None}})
        del again.headers[b"If-None-Match"]
        return again


def has_conditions(request: Request) -> bool:
    """Whether the request carries conditions of its own."""
    headers = request.headers
    return b"If-None-Match" in headers or b"If-Modified-Since" in headers or b"Range" in headers
