"""Directory probes: a ``www`` twin rule content taught, checked once per top directory.

``www_alias`` learned from content (the bare host and its ``www.`` twin answer one
page) is a bet on the whole site, and a site may serve one directory of one twin from
elsewhere: ``www.h/blog/`` a WordPress virtual host beside the old ``h/blog/`` folder.
Drops there are audited (per top directory: :mod:`scrapy_urlnorm.audit_choice`), but a
crawl that meets one twin's blog only drops nothing there: it merged the twins' other
pages, whose links (``../blog/``, ``/blog/``) resolve against each twin's own host, and
the other twin's blog is never seen (coincidence webs, seed 103: ``h/app/report``
dropped against ``www.h/app/report``; the old blog, linked from it, lost).

So where a page is delivered in a top directory in which the rule has no pair yet
(or was, before the rule was learned: asked when it is), its twin URL is asked once,
privately (never shown to the spider, never retried or followed): the same page is
the rule's pair there; another page contradicts the rule, which is revoked, and what
it dropped is fetched, links and all. One request per top
directory of a twin site the crawl reaches, bounded; none where the site's redirects
taught the rule (every drop of such a rule is verified), nor where the twin URL was
requested already (its own answer is the pair). A probe's answer settles an audit of
the same URL too, as another audit's answer would.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy import Request

from . import meta as M
from .keys import host_of
from .sections import directory_of
from .taught_forms import offsite
from .urlparts import HOST, replace_field, split_url, unsplit_url

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.http import Response

    from .dedup import Deduplicator

logger = logging.getLogger(__name__)

#: Top directories asked about, in all (beyond: no more probes; audits still check drops).
DIRECTORIES_ASKED = 100_000
#: Top directories remembered per host with the first page delivered there, and hosts
#: remembered (beyond: a rule learned later asks only about directories reached after).
DIRECTORIES_PER_HOST = 32
HOSTS_REMEMBERED = 10_000


class DirectoryProbes:
    """Asks a ``www`` twin once per top directory whether it serves the other twin's page."""

    def __init__(
        self,
        dedup: Deduplicator,
        send: Callable[[Request], None],
        allowed_domains: Callable[[], object] = lambda: None,
    ) -> None:
        self.dedup = dedup
        self._send = send
        #: The spider's ``allowed_domains``: a twin they leave out is never asked.
        self.allowed_domains = allowed_domains
        self._asked: set[tuple[str, str]] = set()
        #: Host -> top directory -> the first page (normalized URL) delivered there: a rule
        #: learned later asks about the directories the crawl reached before it.
        self._reached: dict[str, dict[str, str]] = {}

    def delivered(self, request: Request, url: str) -> None:
        """``request`` (a spider's ``GET``) delivered its page at ``url`` (normalized):
        ask its twin, where that is how the rule is checked in ``url``'s directory."""
        if request.method != "GET" or M.AUDIT in request.meta:
            return
        host = host_of(url).lower()
        directory = directory_of(url)
        if directory is None:
            return
        reached = self._reached.get(host)
        if reached is None and len(self._reached) < HOSTS_REMEMBERED:
            reached = self._reached[host] = {}
        if reached is not None and directory not in reached and len(reached) < DIRECTORIES_PER_HOST:
            reached[directory] = url
        self._ask(host, directory, url)

    def learned(self, site: str) -> None:
        """``www_alias`` became active on ``site``: ask about the directories reached so far."""
        for host in (site, f"www.{site}"):
            for directory, url in list(self._reached.get(host, {}).items()):
                self._ask(host, directory, url)

    def _ask(self, host: str, directory: str, url: str) -> None:
        learned = self.dedup.learned
        asked = (host.removeprefix("www."), directory)
        if learned is None or asked in self._asked or len(self._asked) >= DIRECTORIES_ASKED:
            return
        rule = next((r for r in learned.rules_of(host) if r.kind == "www_alias"), None)
        if rule is None or rule.held.get(directory) or learned.verifies_every(host, "www_alias"):
            return
        twin = _twin(url, host)
        if twin is None or offsite(host_of(twin).lower(), self.allowed_domains()):
            return  # (a host the spider leaves out is never asked)
        if self.dedup.seen.get(self.dedup.keys.static(Request(twin)).value) is not None:
            return  # (requested already: its own answer is the pair)
        self._asked.add(asked)
        self.dedup.count("urlnorm/twin_directory_probes")
        if self.dedup.debug:
            logger.debug("Asking %s whether www_alias holds under /%s (the twin of %s)", twin, directory, url)
        self._send(
            Request(
                twin,
                dont_filter=True,
                priority=1000,  # before the drops that rest on the rule
                meta={M.DIRECTORY_PROBE: url, "dont_redirect": True, "dont_retry": True},
            )
        )

    def answered(self, request: Request, response: Response, digest: int) -> None:
        """The probe ``request`` was answered a page (``digest``): evidence for the rule
        or against it. (A redirect is learned from as any is; an error says nothing.)"""
        learner = self.dedup.learner
        asked = self.dedup.normalize(request.url)[0]
        if learner is None or asked is None:
            return
        server = (response.headers.get("Server") or b"").decode("latin-1")
        learner.observe_page(asked, digest, length=len(response.body), server=server)
        # Its answer is what an audit of the same URL would get (a drop there, queued
        # meanwhile): that audit is settled by it instead of downloading the page again
        # (random seed 171961: www.h2/products/ probed, then audited). Not "downloaded":
        # the spider never had this page.
        self.dedup.audits.auditor.answered(self.dedup.keys.static(request).value, digest)


def _twin(url: str, host: str) -> str | None:
    """``url`` on the other ``www`` twin of ``host``."""
    try:
        parts = split_url(url)
    except ValueError:
        return None
    other = host.removeprefix("www.") if host.startswith("www.") else f"www.{host}"
    return unsplit_url(replace_field(parts, HOST, other))
