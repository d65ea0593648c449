"""``DEPTH_LIMIT``: a request is never dropped against a representative deeper than itself.

Scrapy's ``DepthMiddleware`` gives a link its page's depth plus one and drops
links deeper than ``DEPTH_LIMIT``, so the depth a page is fetched at decides
which of its links are followed. Stock Scrapy fetches every spelling of a page,
so it reaches the page's links from the shallowest spelling it meets. The
add-on fetches one: if that one came by a longer path (``/support`` linked
``/view/?utm_source=x`` at depth 3, the home page links ``/view/`` at depth 1),
the page's links are one level too deep and some are cut, though stock follows
them (differential ``--depth-limit``, seed 41000: ``/view/index.html`` lost).

So with ``DEPTH_LIMIT`` set, each key remembers the shallowest depth a request
claiming it had, and a request shallower than that is fetched, not dropped: its
page's links come one level or more higher. A key can be fetched again at most
``DEPTH_LIMIT`` times (each time shallower), so this cannot feed on itself.
Without ``DEPTH_LIMIT`` nothing is kept.

Once a key's page is delivered, its depth is the depth it was delivered at,
whatever shallower claim came before: a copy sent past the filter (a released
drop, a second chance, and the redirects they follow) may deliver the page
deeper while the shallower representative is still queued (LIFO), and that
one must then be fetched, not dropped against the deeper page (differential,
every condition on, seed 65088: a host's home page was fetched one level too
deep, and its links were cut).

The same holds wherever a request could be settled without its own page: a
request let through for being shallower is marked (``meta.SHALLOWER``) and
never dropped at download time nor sent as a twin probe; a page re-keyed under
new rules passes its depth to its new key; an audit that finds its URL a page
of its own releases a shallower drop of that URL, past the filter, whichever
spelling of it the audit and the drop had (``#top``, a tracking parameter: seed
76107 again, its audit of ``/report.html#top`` did not find ``/report.html``).

With ``JOBDIR`` the depths are saved at a clean stop (``urlnorm.depths``) and
loaded at the resume. Each change of a key's depth is also appended to
``urlnorm.depth_log`` as it happens, held back and written with the seen set's
records (after the crash-safe frontier journaled the request that claimed the
key, so no depth gets ahead of a claim a kill could lose). A resume that finds
no saved depths (the last run was killed) takes the journal's last depth of each
key, and a key it has none for as claimed at ``DEPTH_LIMIT``: when unsure,
fetch. Before the journal, every key of a killed run counted as claimed at the
limit, and each kill cost a crawl its start pages and every link shallower than
the limit again (frameworks and quirks webs with ``DEPTH_LIMIT``, killed twice:
137-153% of stock's requests, against 101-105% uninterrupted). Pages of their own (:meth:`ClaimDepths.own_page`)
are rare and the key they are merged into may be claimed shallower again in the
resumed run, so they are appended to ``urlnorm.own_pages`` as they are found: a
resume after a stop or a kill still fetches a link shallower than such a page.

In a distributed crawl each key's shallowest claim depth is stored beside its
rank in Redis (``redis_link.DEPTH_UNIT``): a claim carries its request's depth,
a worker that claims a key shallower (let through for that) lowers it, and
every claim or read answers it, so another worker's key counts as claimed at
that depth here. Counted as claimed at depth 0 before, such a key's page was
followed one level too deep on the other worker and links below it were cut
(``bench_differential.py --redis 2 --depth-limit 3 --offsite --callbacks``, seed
149232: ``www.h1.test/``, linked from a lowercase spelling of a page the other
worker fetched one level deeper under its own spelling). A key whose depth is
not stored yet (claimed before its depth was known) counts as claimed at
``DEPTH_LIMIT``, as after a kill: when unsure, fetch.
"""

from __future__ import annotations

import logging
import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING

from . import meta as M
from .persistence import RecordLog, key_of_words, key_words

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scrapy import Request
    from scrapy.settings import BaseSettings

    from .ledger import DropLedger

logger = logging.getLogger(__name__)

DEPTHS_FILE = "urlnorm.depths"
DEPTH_LOG_FILE = "urlnorm.depth_log"
OWN_PAGES_FILE = "urlnorm.own_pages"
#: URLs found pages of their own whose depth is kept (see ``ClaimDepths.own_page``).
MAX_OWN_PAGES = 100_000


def depth_of(request: Request) -> int:
    """The depth ``DepthMiddleware`` gave ``request`` (a start request has none: 0)."""
    return request.meta.get("depth", 0)


class ClaimDepths:
    """The shallowest depth each key was claimed at; ``unknown`` for a key not seen claimed."""

    def __init__(
        self,
        *,
        unknown: int = 0,
        path: Path | None = None,
        bits: int = 64,
        own_path: Path | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.unknown = unknown
        self.path = path
        fmt = "<QQH" if bits == 128 else "<QH"
        self._record = struct.Struct(fmt)
        self._wide = bits == 128
        self._depths: dict[int, int] = {}
        #: Keys a page was delivered for: their depth is the shallowest delivery's.
        self._delivered: set[int] = set()
        #: URLs (static keys) found pages of their own where a rule merges them with
        #: another, and the depth that page came at (see :meth:`own_page`).
        self._own_pages: dict[int, int] = {}
        #: Every change of a key's depth, as it happens (see the module's docstring).
        self._log = RecordLog(log_path, fmt)
        self._own_log = RecordLog(own_path, fmt)
        for words in self._own_log.open():
            own, depth = key_of_words(words, self._wide), words[-1]
            if depth < self._own_pages.get(own, depth + 1) and len(self._own_pages) < MAX_OWN_PAGES:
                self._own_pages[own] = depth

    @classmethod
    def for_crawl(
        cls, settings: BaseSettings, jobdir: str | None, *, resumed: bool, bits: int, shared: bool = False
    ) -> ClaimDepths | None:
        """``None`` without ``DEPTH_LIMIT``; ``resumed``: the seen set holds keys of an earlier
        run; ``shared``: it holds other workers' keys (distributed), some of whose depths
        may not be stored yet."""
        limit = settings.getint("DEPTH_LIMIT")
        if limit <= 0:
            return None
        depths = cls(
            path=Path(jobdir, DEPTHS_FILE) if jobdir else None,
            own_path=Path(jobdir, OWN_PAGES_FILE) if jobdir else None,
            log_path=Path(jobdir, DEPTH_LOG_FILE) if jobdir and not shared else None,
            bits=bits,
        )
        loaded = depths.load()
        journaled = depths.open_log(replay=not loaded)
        if shared:
            depths.unknown = limit  # (a key another worker claimed before its depth was stored)
        elif not loaded and resumed:
            depths.unknown = limit
            logger.info(
                "No %s from the last run (it did not stop cleanly): %d key(s) take their depth from %s, "
                "and requests shallower than DEPTH_LIMIT=%d are fetched where a key of that run has none",
                DEPTHS_FILE,
                journaled,
                DEPTH_LOG_FILE,
                limit,
            )
        return depths

    def claimed(self, request: Request, keys: Iterable[int]) -> None:
        """``request`` claims ``keys``: remember its depth where it is the shallowest yet."""
        depth = depth_of(request)
        depths = self._depths
        # A key never claimed in this crawl (nor in the saved runs) counts as claimed
        # at ``unknown`` when that is set, else it was not claimed at all.
        before = self.unknown or depth + 1
        for key in keys:
            if depth < depths.get(key, before):
                self._set(key, depth)

    def own_page(self, own: int, request: Request) -> None:
        """``request``, whose URL's static key is ``own``, delivered a page of its own (an
        audit that found it so or could not tell, or a page that differs from one a rule
        merges it with): its links come at its depth. A rule verified on every drop may
        still merge the URL with another page, whose key was claimed shallower; a later
        link to the URL shallower than this page is then fetched, not dropped against that
        key (:meth:`below_own_page`): stock follows the page's links from the shallower
        link (hosting seed 952, killed, ``DEPTH_LIMIT`` 4: ``/api-docs?v=2``, audited at
        depth 4 and merged by ``ignore_param:v`` with ``/api-docs`` at depth 1, was
        dropped when linked at depth 2, and a page it links was cut; ``/blog/?page=2``
        likewise, fetched at depth 4 and found to differ from ``/blog/``)."""
        pages = self._own_pages
        depth = depth_of(request)
        if depth < pages.get(own, depth + 1) and (own in pages or len(pages) < MAX_OWN_PAGES):
            self._set_own_page(own, depth)

    def below_own_page(self, request: Request, own: int) -> bool:
        """Whether ``request``'s URL (static key ``own``) is a page of its own fetched deeper
        than ``request``: it is to be fetched, and its depth is now the page's."""
        depth = self._own_pages.get(own)
        if depth is None or depth_of(request) >= depth:
            return False
        self._set_own_page(own, depth_of(request))
        return True

    def _set_own_page(self, own: int, depth: int) -> None:
        self._own_pages[own] = depth
        self._own_log.append(*key_words(own, self._wide), min(depth, 0xFFFF))

    def claim_depth(self, key: int) -> int | None:
        """The shallowest depth ``key`` was claimed at, if known (stored with it in Redis)."""
        return self._depths.get(key)

    def claimed_elsewhere(self, key: int, depth: int) -> None:
        """Another worker claimed ``key`` at ``depth`` (distributed): no request as deep or
        deeper is fetched here for it, as if claimed here."""
        if depth < self._depths.get(key, depth + 1):
            self._set(key, depth)

    def delivered(self, request: Request, keys: Iterable[int]) -> None:
        """``request`` delivered ``keys``' page: its links are followed from its depth.

        The first delivery sets the depth, whatever shallower claim came before: a
        shallower request still queued (a copy that came through a redirect past the
        filter delivered first) must be fetched, not dropped against this page
        (differential, every condition on, seed 65088)."""
        depth = depth_of(request)
        depths, delivered = self._depths, self._delivered
        for key in keys:
            if key not in delivered:
                delivered.add(key)
                if depths.get(key) != depth:
                    self._set(key, depth)
            elif depth < depths.get(key, depth + 1):
                self._set(key, depth)

    def alias(self, key: int, new_key: int) -> None:
        """``new_key`` now stands for ``key``'s page too (a page re-keyed under new rules)."""
        depths = self._depths
        depth = depths.get(key)
        if depth is None:
            return
        if key in self._delivered and new_key not in self._delivered:
            self._delivered.add(new_key)
            if depths.get(new_key) != depth:
                self._set(new_key, depth)
        elif depth < depths.get(new_key, depth + 1):
            self._set(new_key, depth)

    def _set(self, key: int, depth: int) -> None:
        self._depths[key] = depth
        self._log.append(*key_words(key, self._wide), min(depth, 0xFFFF))

    def shallower(self, request: Request, key: int) -> bool:
        """Whether ``request`` is shallower than every request that claimed ``key``."""
        return depth_of(request) < self._depths.get(key, self.unknown)

    def kept(self, request: Request, key: int) -> bool:
        """Whether ``request``, about to be sent, must be fetched rather than settled
        against ``key``'s page: it is shallower, or it was let through at check time
        for being shallower (``meta.SHALLOWER``; its claim has joined theirs since)."""
        return bool(request.meta.get(M.SHALLOWER)) or self.shallower(request, key)

    # -- JOBDIR -------------------------------------------------------------------------

    @staticmethod
    def release_shallower(ledger: DropLedger, host: str, request: Request, depth: int) -> bool:
        """``request``'s URL was fetched at ``depth`` as a page of its own (an audit that
        found one): release its parked drop if that was shallower, past the filter: the
        URL is known for a page of its own, which a rule verified on every drop may still
        merge until its exception is learned. The parked drop may be another spelling of
        the URL (``/p`` for an audit of ``/p#top``; see :mod:`scrapy_urlnorm.parking`)."""
        drop = ledger.parked_drop(host, request)
        if drop is None or drop.settled or depth_of(drop.request) >= depth:
            return False
        return ledger.release_as_written([drop], "shallower") > 0

    def open_log(self, *, replay: bool) -> int:
        """Open the depth journal; with ``replay`` (no depths saved at a clean stop: the
        last run was killed), take each key's last journaled depth. The journal is then
        rewritten with the depths known now, one record per key. Returns how many keys
        the replay gave a depth."""
        depths, wide = self._depths, self._wide
        replayed = 0
        for words in self._log.open():
            if replay:
                depths[key_of_words(words, wide)] = words[-1]
                replayed += 1
        if self._log.path is not None:
            self._log.rewrite((*key_words(key, wide), min(depth, 0xFFFF)) for key, depth in depths.items())
        return len(depths) if replay and replayed else 0

    def hold_writes(self) -> Callable[[], None]:
        """Hold the journal's records back until the returned flush is called (with the
        seen set's: see ``UrlNormDupeFilter.hold_writes``)."""
        self._log.hold()
        return self._log.flush

    def load(self) -> bool:
        """Load (and remove, so a run killed later leaves none) the depths a clean stop saved."""
        if self.path is None or not self.path.exists():
            return False
        data = self.path.read_bytes()
        self.path.unlink()
        record = self._record
        usable = len(data) - len(data) % record.size
        for words in record.iter_unpack(data[:usable]):
            self._depths[key_of_words(words, self._wide)] = words[-1]
        return True

    def save(self) -> None:
        """At a clean stop: every remembered depth, written atomically (pages of their own
        are in their own file already)."""
        self._own_log.close()
        self._log.close()
        if self.path is None:
            return
        pack, wide = self._record.pack, self._wide
        data = b"".join(pack(*key_words(key, wide), min(depth, 0xFFFF)) for key, depth in self._depths.items())
        temporary = self.path.with_suffix(".tmp")
        temporary.write_bytes(data)
        os.replace(temporary, self.path)

    def __len__(self) -> int:
        return len(self._depths) + len(self._own_pages)

    def clear(self) -> None:
        self._depths.clear()
        self._delivered.clear()
        self._own_pages.clear()
