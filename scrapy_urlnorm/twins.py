"""Twin probes: learn from a ``304`` where a variant's page would be a second download.

While a rule is undecided on a site, the crawl fetches variants of pages it has
(``/docs`` beside ``/docs/index.html``, ``www.h/a`` beside ``h/a``, ``/A`` beside
``/a``): their pages are the evidence the rule is learned from, and each is a
duplicate download when the rule holds. Where the site's entity tags are evidence
(see :mod:`scrapy_urlnorm.validators`), such a variant is sent with
``If-None-Match`` and the tag of its delivered twin:

- ``304 Not Modified`` (and no other tag named): the server says the variant's
  current representation is the twin's. That is the learner's evidence (as if the
  twin's page had been downloaded again), and the variant counts as delivered:
  the spider has its page, under the twin's URL. ``urlnorm/twin_probes_not_modified``;
- any other answer is the variant's own, handled as always: a ``200`` is its page
  (the tags differ, so the pages may too), a redirect is followed;
- a ``304`` naming another tag is inconclusive: the variant is fetched again in full.

Only for a plain ``GET`` with no conditions of its own, when its twin was
delivered on this worker, and only while a rule that would merge the two is
undecided: once a rule decides, the filter drops or admits variants itself.

And only for a rule that a downloaded pair supports already: two signals, as for
the other bets on tags (see :mod:`scrapy_urlnorm.validators`). A tag made of a
file's modification time and size says the variant's file is of the twin's size
and age, not that it is the twin's page: two files of one size installed in one
second share a tag (differential seed 20525 lost ``/view`` beside ``/view.html``
that way, settled as delivered by a probe while nothing yet said the site served
one as the other; seed 74124 lost ``/view/`` beside ``/view`` even after a pair,
so a host whose tags name the page's size has no probes at all). The first pair
of each rule on a site is downloaded in full; the probes save the downloads after it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, NamedTuple

from . import meta as M
from .callbacks import callback_salt
from .holdback import loose_key, rule_of, undecided_rules
from .keys import host_of
from .recent import put_recent
from .session_links import refetching
from .validators import has_conditions, same_tag

if TYPE_CHECKING:
    from scrapy import Request

    from .dedup import Deduplicator
    from .keys import Fingerprint
    from .learning import Learner

#: Delivered pages remembered by loose key (least recently delivered go first).
TWINS_REMEMBERED = 50_000


class _Twin(NamedTuple):
    url: str  # normalized
    key: int  # static key
    digest: int
    length: int
    salt: int  # its callback's (see :mod:`scrapy_urlnorm.callbacks`)


def _has_pair(learner: Learner, site: str, host: str, kind: str) -> bool:
    """Whether the rule ``kind`` of ``site`` (or of ``host``) has an agreeing pair: the
    first is never a probe's, as a rule without one gets no probe."""
    rule = rule_of(learner, site, host, kind)
    return rule is not None and bool(rule.pairs)


def _base(url: str) -> str:
    """What relative links on the page at ``url`` resolve against: all but its last path segment."""
    return url.partition("?")[0].rpartition("/")[0]


class TwinProbes:
    """Sends learning-phase variants conditionally on their twin's entity tag."""

    def __init__(self, dedup: Deduplicator) -> None:
        self.dedup = dedup
        self._twins: OrderedDict[str, _Twin] = OrderedDict()

    def delivered(self, request: Request, fingerprint: Fingerprint, digest: int, length: int) -> None:
        """A ``GET`` (not an audit) with these keys delivered a page, which its variants' may
        equal. Kept under its normalized URL, the form ``condition`` looks its variants up by."""
        url = fingerprint.url
        if url is not None:
            twin = _Twin(url, fingerprint.value, digest, length, callback_salt(request))
            put_recent(self._twins, loose_key(url), twin, TWINS_REMEMBERED)

    def condition(self, request: Request) -> None:
        """At download time: send ``request`` with its delivered twin's entity tag,
        where a ``304`` would be evidence (see the module's docstring)."""
        dedup = self.dedup
        tags, learner = dedup.audits.cheap.tags, dedup.learner
        if tags is None or learner is None or request.method != "GET" or request.body:
            return
        if has_conditions(request):
            return  # the request's own conditions: its answer is the spider's business
        if dedup.keys.campaigns is not None and dedup.keys.campaigns.plain(request.url) is not None:
            # A campaign spelling is never asked with its plain page's tag: an edge worker that
            # rewrites the campaign's page passes the origin's tag through and forwards the
            # condition to the origin, which answers 304 (hosting webs, ``edge``).
            return
        url = dedup.normalize(request.url)[0]
        if url is None:
            return
        twin = self._twins.get(loose_key(url))
        if twin is None or twin.url == url:
            return
        host = host_of(url)
        tag = tags.tag_for(twin.key, host.lower())
        if tag is None or not dedup.delivered_here(twin.key):
            return
        if twin.salt != callback_salt(request):
            return  # a 304 would leave the page unread by this request's callback
        if dedup.depths is not None and dedup.depths.kept(request, twin.key):
            return  # a 304 would leave its links unread, and they come higher than the twin's
        if refetching(request):
            return  # a 304 would leave unread the plain links it is fetched for
        undecided = undecided_rules(learner, twin.url, url, host)
        if not undecided or not all(_has_pair(learner, site, host, kind) for site, kind in undecided):
            return
        if _base(url) != _base(twin.url):
            # A 304 would leave its links unread, and they resolve elsewhere than the twin's:
            # relative ones against another directory (/x/ beside /x; /tag/nim/suggest is not
            # /tag/Nim/suggest on a case-sensitive server), any against another host
            # (www.h/app/report's ../blog/ is another virtual host's blog). Were the rule then
            # refused, nothing would fetch it again (coincidence seed 90, lifo-c16-jobdir).
            return
        request.headers[b"If-None-Match"] = tag
        request.meta[M.TWIN] = {"key": twin.key, "tag": tag}
        dedup.count("urlnorm/twin_probes")

    @staticmethod
    def unmark(request: Request) -> None:
        """The conditional request leads elsewhere (a redirect): what follows it is unconditional."""
        if request.meta.pop(M.TWIN, None) is not None:
            del request.headers[b"If-None-Match"]

    def not_modified(self, request: Request, answered_tag: str | None, server: str) -> bool:
        """``request`` answered ``304`` to its twin's tag: whether that settles it (then
        the learner has the pair and the request counts as delivered; else fetch it)."""
        dedup = self.dedup
        probe = request.meta[M.TWIN]
        if answered_tag is not None and not same_tag(probe["tag"], answered_tag):
            return False
        url = dedup.normalize(request.url)[0]
        twin = self._twins.get(loose_key(url)) if url is not None else None
        if url is None or twin is None or twin.key != probe["key"] or not dedup.delivered_here(twin.key):
            return False
        keys = dedup.fingerprint(request).keys
        dedup.audits.auditor.remember(keys, twin.digest)
        if dedup.audits.cheap.tags is not None:
            dedup.audits.cheap.tags.remember(keys, probe["tag"])
        if dedup.learner is not None:
            dedup.rule_keeper.observe_page(
                request, request.url, twin.digest, length=twin.length, server=server, canonical=None
            )
        dedup.settling.settle(request, delivered=True)
        dedup.count("urlnorm/twin_probes_not_modified")
        return True

    @staticmethod
    def in_full(request: Request) -> Request:
        """A twin probe whose ``304`` settled nothing, fetched again without the condition."""
        # NO_SHORTCUT: as written; and a redirect of it goes through the filter (see
        # RedirectLearningMiddleware), as the request's own would have.
        meta = {key: value for key, value in request.meta.items() if key != M.TWIN} | {M.NO_SHORTCUT: True}
        again = request.replace(dont_filter=True, meta=meta)
        del again.headers[b"If-None-Match"]
        return again

    def sizes(self) -> dict[str, int]:
        return {"twin_pages": len(self._twins)}
