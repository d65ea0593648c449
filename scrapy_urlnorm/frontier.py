"""A crash-safe frontier for ``JOBDIR`` crawls.

Scrapy saves a ``JOBDIR`` crawl's queue only when the crawl stops cleanly.
After ``kill -9`` (an OOM kill, a lost container) every request that was
queued is gone, and a queue saved by an earlier clean stop is left with a
stale size header over a file the crashed run has since truncated.

:class:`CrashSafeScheduler` (the add-on installs it when ``JOBDIR`` is set)
keeps a journal, ``JOBDIR/urlnorm.frontier``, beside Scrapy's queue:

- ``ENQ``: a request the scheduler accepted, serialized as Scrapy's disk
  queue serializes it, written before its fingerprint becomes durable in the
  seen set (so a crash in between can only fetch it twice, never lose it);
- ``KEYS``: the keys a request's claim holds, written with its ``ENQ`` and again
  when it claims more (checked again under rules learned since, sent in the
  form its host's redirects taught): a key under rules that are no longer in
  force is durable in the seen set all the same, and comes back with them;
- ``DONE``: a request whose response was handled *completely*: every link
  its callback yielded was scheduled or dropped, every item it yielded went
  through the pipelines; or that was replaced (redirect, retry) or failed;
- ``DROP``: a request the filter dropped against a representative still
  pending (serialized as an ``ENQ``'s, with an id of its own); ``DONE`` for that
  id once the drop settled (the representative delivered, or the request was
  released and queued again under an ``ENQ`` of its own);
- ``CLEAN``: the crawl stopped cleanly, with the ids of the requests still in
  flight (which Scrapy's saved queue does not hold);
- ``PAGE``: the URL (and callback salt) of a page a request delivered, written
  after that request's ``DONE``; compaction keeps the latest
  :data:`~scrapy_urlnorm.pages.PAGES_IN_ALL`. A resumed crawl remembers them for
  re-keying under rules it learns, and a recovered request checked again at
  download time is dropped against one of them its learned key names, as in one
  run; a page whose request was not done is not one of them (its links may not
  all be out).

On resume after a crash, Scrapy's saved queue is discarded and every request
enqueued but not done is scheduled again, claiming again every key it held,
and every drop not settled goes through the filter again, as the link it was
(dropped again against its representative, recovered with it, or fetched if
that representative failed). Delivery is at least once: the requests in flight at the crash (about
``CONCURRENT_REQUESTS``) are fetched again; a page whose response was
completely handled never is, and no accepted request is lost. The journal
is compacted to its pending requests each time the crawl starts.
"""

from __future__ import annotations

import inspect
import logging
import os
import pickle
import shutil
import struct
import time
import weakref
import zlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy import Request, signals
from scrapy.core.scheduler import Scheduler
from scrapy.utils.job import job_dir
from scrapy.utils.request import request_from_dict

from .completion import ID_META, Completion
from .httpcache import TornCacheEntries
from .meta import RECOVERED
from .pages import PAGES_IN_ALL

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector
    from twisted.internet.defer import Deferred
    from typing_extensions import Self

logger = logging.getLogger(__name__)

JOURNAL_FILE = "urlnorm.frontier"

#: The running crawl's journal is compacted when it has grown past
#: COMPACT_GROWTH times its size after the last compaction (and past
#: COMPACT_MIN_BYTES): disk stays within a few times what is pending, and
#: compaction costs a constant share of the writes.
COMPACT_MIN_BYTES = 64 << 20
COMPACT_GROWTH = 4

_MAGIC = b"URLNORM-FRONTIER-2\n"
#: Journals of version 1 (no ``PAGE`` records) are read too; an older release
#: refuses a version 2 journal instead of misreading it.
_MAGICS = (_MAGIC, b"URLNORM-FRONTIER-1\n")
_HEAD = struct.Struct("<BQI")  # kind, request id, payload length
_CHECK = struct.Struct("<I")
_ENQ, _DONE, _CLEAN, _KEYS, _DROP, _PAGE = 1, 2, 3, 4, 5, 6
_KINDS = frozenset((_ENQ, _DONE, _CLEAN, _KEYS, _DROP, _PAGE))
_MAX_PAYLOAD = 1 << 30


def _record(kind: int, request_id: int, payload: bytes = b"") -> bytes:
    head = _HEAD.pack(kind, request_id, len(payload))
    return head + payload + _CHECK.pack(zlib.crc32(payload, zlib.crc32(head)))


#: A request to schedule again (serialized), and the keys its claim held when it
#: stopped (a plain tuple: a resume builds hundreds of thousands).
RecoveredRequest = tuple[bytes, tuple[int, ...]]


def _keys_payload(keys: tuple[int, ...]) -> bytes:
    return pickle.dumps(keys, protocol=4)


def _page_payload(url: str, salt: int) -> bytes:
    return pickle.dumps((url, salt), protocol=4)


def _unpickled(payload: bytes) -> object:
    """What a ``KEYS`` or ``PAGE`` record holds, or ``None`` when it does not unpickle."""
    try:
        return pickle.loads(payload)
    except Exception:  # a record that passed its checksum but not pickle: not ours to crash on
        return None


def _page_of(payload: bytes) -> tuple[str, int] | None:
    """The (URL, callback salt) of a ``PAGE`` record, or ``None`` when it cannot be read."""
    page = _unpickled(payload)
    if type(page) is not tuple or len(page) != 2 or type(page[0]) is not str or type(page[1]) is not int:
        return None
    return page


def _keys_of(payload: bytes) -> tuple[int, ...]:
    """The keys of a ``KEYS`` record; none when it cannot be read (the request is
    still recovered: it claims the keys the rules of the new run give it)."""
    keys = _unpickled(payload)
    if type(keys) is not tuple or not all(type(key) is int for key in keys):
        return ()
    return keys


@dataclass
class Recovery:
    """What the journal of the previous run says at start."""

    #: The journal exists and does not end with ``CLEAN``: the run was killed.
    crashed: bool = False
    #: Requests enqueued and not done (Scrapy's saved queue holds them after a clean stop).
    pending: int = 0
    #: Serialized requests to schedule again, with the keys their claims held: all
    #: pending ones after a crash, else those that were in flight at the clean stop.
    requests: list[RecoveredRequest] = field(default_factory=list)
    #: Torn or corrupt records at the end of the journal (an interrupted write).
    dropped: int = 0
    #: (record id, serialized request) of each request dropped against a pending
    #: representative (or held back) whose drop had not settled: each goes through the
    #: filter again, and its record is then done.
    rechecks: list[tuple[int, bytes]] = field(default_factory=list)
    #: (URL, callback salt) of the latest pages delivered by requests that were done.
    pages: list[tuple[str, int]] = field(default_factory=list)


class FrontierJournal:
    """The append-only journal file: header line, then checksummed records
    ``kind, id, length, payload, crc32``. Each record is one unbuffered
    ``write``, so a killed process leaves at most one torn record, at the end."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def _records(self) -> Iterator[tuple[int, int, bytes, bytes]]:
        """Every intact record as (kind, id, payload, the record's bytes), stopping at
        the first torn or corrupt one (``self.intact_bytes`` then says where the good part ends)."""
        self.intact_bytes = 0
        with self.path.open("rb") as handle:
            if handle.read(len(_MAGIC)) not in _MAGICS:
                raise ValueError(f"{self.path} is not a scrapy-urlnorm frontier journal")
            self.intact_bytes = len(_MAGIC)
            while True:
                head = handle.read(_HEAD.size)
                if len(head) < _HEAD.size:
                    return
                kind, request_id, length = _HEAD.unpack(head)
                if kind not in _KINDS or length > _MAX_PAYLOAD:
                    return
                payload = handle.read(length)
                check = handle.read(_CHECK.size)
                if len(payload) < length or len(check) < _CHECK.size:
                    return
                if _CHECK.unpack(check)[0] != zlib.crc32(payload, zlib.crc32(head)):
                    return
                self.intact_bytes += _HEAD.size + length + _CHECK.size
                yield kind, request_id, payload, head + payload + check

    def open(self) -> tuple[Recovery, int]:
        """Read the previous run's journal, compact it to its pending requests,
        and open it for appending. Returns what to recover and the next free id."""
        recovery = Recovery()
        last_id = 0
        if self.path.exists():
            done, clean_in_flight, last_id = self._scan()
            recovery.dropped = 1 if self.path.stat().st_size > self.intact_bytes else 0
            recovery.crashed = clean_in_flight is None
            recover = None if recovery.crashed else clean_in_flight
            recovery.pending = self._rewrite(done, recovery.requests, recover, recovery.rechecks, recovery.pages)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(_MAGIC)
        self._open_for_append()
        return recovery, last_id + 1

    def compact(self) -> int:
        """Rewrite the journal of the running crawl to its pending requests;
        returns its new size in bytes."""
        done, _, _ = self._scan()
        self.close()
        self._rewrite(done)
        self._open_for_append()
        return self.path.stat().st_size

    def _open_for_append(self) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)

    def _scan(self) -> tuple[set[int], set[int] | None, int]:
        """(ids done, ids in flight at a clean stop or ``None`` if the journal
        does not end with one, the highest id)."""
        done: set[int] = set()
        clean_in_flight: set[int] | None = None
        last_id = 0
        for kind, request_id, payload, _ in self._records():
            last_id = max(last_id, request_id)
            if kind == _DONE:
                done.add(request_id)
            # Only a CLEAN record that ends the journal counts.
            clean_in_flight = set(struct.unpack(f"<{len(payload) // 8}Q", payload)) if kind == _CLEAN else None
        return done, clean_in_flight, last_id

    def _rewrite(
        self,
        done: set[int],
        recovered: list[RecoveredRequest] | None = None,
        recover: set[int] | None = None,
        rechecks: list[tuple[int, bytes]] | None = None,
        pages: list[tuple[str, int]] | None = None,
    ) -> int:
        """Keep only the ENQ and DROP records not done, the ENQs' KEYS and the latest
        PAGEs (atomically: a crash meanwhile leaves the old journal); put in ``recovered``
        the requests of those in ``recover`` (all of them when ``recover`` is ``None``),
        in ``rechecks`` every drop not settled, in ``pages`` the pages kept. Returns how
        many requests are kept."""
        kept: dict[int, int] = {}  # id -> its place in ``recovered``, or -1
        drops: set[int] = set()
        latest_pages: deque[tuple[tuple[str, int], bytes]] = deque(maxlen=PAGES_IN_ALL)  # (page, record)
        temporary = self.path.with_suffix(".compacting")
        with temporary.open("wb") as out:
            out.write(_MAGIC)
            for kind, request_id, payload, record in self._records():
                if kind == _DROP:
                    if request_id in done or request_id in drops:
                        continue
                    drops.add(request_id)
                    out.write(record)
                    if rechecks is not None:
                        rechecks.append((request_id, payload))
                elif kind == _ENQ:
                    if request_id in done or request_id in kept:
                        continue  # (the first ENQ of an id wins)
                    out.write(record)
                    if recovered is not None and (recover is None or request_id in recover):
                        kept[request_id] = len(recovered)
                        recovered.append((payload, ()))
                    else:
                        kept[request_id] = -1
                elif kind == _PAGE:
                    page = _page_of(payload)
                    if page is not None:
                        latest_pages.append((page, record))
                elif kind == _KEYS and request_id in kept:
                    out.write(record)
                    place = kept[request_id]
                    if place >= 0:
                        request, held = recovered[place]  # type: ignore[index]
                        keys = _keys_of(payload)
                        if held:
                            keys = held + tuple(key for key in keys if key not in held)
                        recovered[place] = (request, keys)  # type: ignore[index]
            for page, record in latest_pages:
                out.write(record)
                if pages is not None:
                    pages.append(page)
        os.replace(temporary, self.path)
        return len(kept)

    def append(self, kind: int, request_id: int, payload: bytes = b"") -> int:
        """Write one record; returns its size."""
        return self.write(_record(kind, request_id, payload))

    def write(self, records: bytes) -> int:
        """Write records made by ``_record`` in one ``write``; returns their size."""
        if self._fd is not None:
            os.write(self._fd, records)
        return len(records)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class RequestDicts:
    """``request.to_dict(spider=spider)``, with the spider's method names cached:
    Scrapy looks them up with ``inspect.getmembers`` on every call, which was
    most of what journaling cost."""

    def __init__(self) -> None:
        self._method_names: dict[Any, str] = {}

    def to_dict(self, request: Request, spider: Spider | None) -> dict[str, Any]:
        """``request.to_dict(spider=spider)``."""
        d = {
            "url": request.url,
            "callback": self._method_name(spider, request.callback),
            "errback": self._method_name(spider, request.errback),
            "headers": dict(request.headers),
        }
        for attr in request.attributes:
            d.setdefault(attr, getattr(request, attr))
        if type(request) is not Request:
            d["_class"] = f"{type(request).__module__}.{type(request).__name__}"
        return d

    def _method_name(self, spider: Spider | None, func: Any) -> Any:
        if not callable(func):
            return func
        function = getattr(func, "__func__", None)
        name = self._method_names.get(function)
        if name is None:
            if spider is not None and function is not None:
                for member_name, member in inspect.getmembers(spider, predicate=inspect.ismethod):
                    self._method_names.setdefault(member.__func__, member_name)
            name = self._method_names.get(function)
            if name is None:
                raise ValueError(f"Function {func} is not an instance method in: {spider}")
        return name


class Frontier:
    """The journal of one crawl: ``ENQ`` when the scheduler accepts a request, ``DONE``
    when :class:`~scrapy_urlnorm.completion.Completion` (``self.completion``) says it is done."""

    def __init__(self, path: str | os.PathLike[str], *, stats: StatsCollector | None = None) -> None:
        self.journal = FrontierJournal(path)
        self.stats = stats
        #: Called after each ``ENQ`` and before writing ``DONE``s: makes the seen
        #: set's held-back records durable (see ``UrlNormDupeFilter.hold_writes``).
        self.flush_seen: Callable[[], None] = lambda: None
        self._next_id = 1
        #: The request being enqueued (its id), and the keys it claimed on the way:
        #: they go with its ENQ record.
        self._enqueuing: int | None = None
        self._enqueuing_keys: tuple[int, ...] | None = None
        #: Request id -> the ``PAGE`` record of the page it delivered, written after its ``DONE``.
        self._pages_due: dict[int, bytes] = {}
        # What a done request's response made seen is durable before its DONE.
        self.completion = Completion(self._done, lambda: self.flush_seen())
        self._logged: set[str] = set()  # stats whose first occurrence was logged
        self._journal_bytes = self._compacted_bytes = 0
        self.dicts = RequestDicts()
        self._closed = False
        #: The crawl's spider (set when the scheduler opens): drops are serialized with it.
        self.spider: Spider | None = None

    _by_crawler: ClassVar[weakref.WeakKeyDictionary[Crawler, Frontier]] = weakref.WeakKeyDictionary()

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> Frontier | None:
        """The crawler's frontier, or ``None`` without ``JOBDIR`` or with ``URLNORM_CRASH_SAFE = False``."""
        if crawler in cls._by_crawler:
            return cls._by_crawler[crawler]
        jobdir = job_dir(crawler.settings)
        if not jobdir or not crawler.settings.getbool("URLNORM_CRASH_SAFE", True):
            return None
        frontier = cls(Path(jobdir, JOURNAL_FILE), stats=crawler.stats)
        completion = frontier.completion
        for handler, signal in (
            (completion.on_request_scheduled, signals.request_scheduled),
            (completion.on_item_settled, signals.item_scraped),
            (completion.on_item_settled, signals.item_dropped),
            (completion.on_item_settled, signals.item_error),
        ):
            crawler.signals.connect(handler, signal=signal)
        cls._by_crawler[crawler] = frontier
        return frontier

    def count(self, key: str, value: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(key, value)

    # -- the scheduler's side --------------------------------------------------------

    def open(self) -> Recovery:
        try:
            recovery, self._next_id = self.journal.open()
        except (OSError, ValueError) as exc:
            # Not a crash of ours to pass on: resume without it, as Scrapy would.
            logger.error("Cannot read the frontier journal %s (%s); starting a new one", self.journal.path, exc)
            self.journal.path.unlink(missing_ok=True)
            recovery, self._next_id = self.journal.open()
        self._journal_bytes = self._compacted_bytes = self.journal.path.stat().st_size
        if recovery.dropped:
            self.count("urlnorm/frontier/torn_records", recovery.dropped)
        return recovery

    def page_delivered(self, request: Request, salt: int) -> None:
        """``request`` delivered a page a callback reads (``salt``: its callback's, see
        :mod:`scrapy_urlnorm.callbacks`): journaled once the request is done."""
        request_id = request.meta.get(ID_META)
        if request_id is not None:
            self._pages_due[request_id] = _record(_PAGE, 0, _page_payload(request.url, salt))

    def _done(self, request_id: int) -> None:
        page = self._pages_due.pop(request_id, None)
        self._write(_record(_DONE, request_id) + (page or b""))

    def assign_id(self, request: Request) -> int:
        request_id = self._next_id
        self._next_id += 1
        request.meta[ID_META] = request_id
        self._enqueuing, self._enqueuing_keys = request_id, None
        return request_id

    def claimed(self, request: Request, keys: tuple[int, ...]) -> None:
        """``request``'s claim holds ``keys`` now (all of them, not only new ones)."""
        request_id = request.meta.get(ID_META)
        if request_id is None:
            return
        if request_id == self._enqueuing:
            self._enqueuing_keys = keys  # the filter admitted it: written with its ENQ
        else:
            self._write(_record(_KEYS, request_id, _keys_payload(keys)))

    def not_enqueued(self, request: Request) -> None:
        """The scheduler did not accept ``request`` after all."""
        request.meta.pop(ID_META, None)
        self._enqueuing = self._enqueuing_keys = None

    def enqueued(self, request: Request, spider: Spider | None) -> None:
        """Journal a request the scheduler accepted."""
        keys, self._enqueuing, self._enqueuing_keys = self._enqueuing_keys, None, None
        try:
            payload = pickle.dumps(self.dicts.to_dict(request, spider), protocol=4)
        except (ValueError, TypeError, AttributeError, pickle.PicklingError) as exc:
            # Scrapy keeps such a request in memory too; it cannot survive a crash.
            self._count_and_log_once(
                "urlnorm/frontier/unserializable",
                logging.WARNING,
                "Cannot journal %s (%s): it is crawled, but would not survive a crash "
                "(further such requests are only counted in urlnorm/frontier/unserializable)",
                request,
                exc,
            )
            return
        request_id = request.meta[ID_META]
        records = _record(_ENQ, request_id, payload)
        if keys:
            records += _record(_KEYS, request_id, _keys_payload(keys))
        self._write(records)  # one write: the keys cannot come without their request
        self.flush_seen()

    def drop_record(self, request: Request) -> tuple[int, bytes] | None:
        """An id and the serialized form for a ``DROP`` record of ``request`` (written by
        :meth:`journal_drop` once the drop is made); ``None`` if it cannot be serialized."""
        try:
            fields = self.dicts.to_dict(request, self.spider)
            if ID_META in fields["meta"]:  # a redirect's carries its source's id: not its own
                fields["meta"] = {key: value for key, value in fields["meta"].items() if key != ID_META}
            payload = pickle.dumps(fields, protocol=4)
        except (ValueError, TypeError, AttributeError, pickle.PicklingError):
            return None  # (the drop holds its parent's entry instead, see holds.py)
        drop_id = self._next_id
        self._next_id += 1
        return drop_id, payload

    def journal_drop(self, drop_id: int, payload: bytes) -> None:
        """A drop against a pending representative was made: journal it."""
        self._write(_record(_DROP, drop_id, payload))

    def drop_settled(self, drop_id: int) -> None:
        """The drop journaled as ``drop_id`` settled: its representative delivered, or it
        was released and queued again (its ``ENQ`` is written by then)."""
        self._write(_record(_DONE, drop_id))

    def _write(self, records: bytes) -> None:
        try:
            self._journal_bytes += self.journal.write(records)
            if self._journal_bytes > max(COMPACT_MIN_BYTES, COMPACT_GROWTH * self._compacted_bytes):
                self._compact()
        except OSError as exc:  # a full disk must not stop the crawl
            self._count_and_log_once(
                "urlnorm/frontier/write_errors",
                logging.ERROR,
                "Cannot write the frontier journal %s (%s): the crawl goes on, but what is not "
                "journaled would be lost to a crash (failures counted in urlnorm/frontier/write_errors)",
                self.journal.path,
                exc,
            )

    def _count_and_log_once(self, stat: str, level: int, message: str, *args: Any) -> None:
        self.count(stat)
        if stat not in self._logged:
            self._logged.add(stat)
            logger.log(level, message, *args)

    def _compact(self) -> None:
        self.flush_seen()
        started = time.perf_counter()
        size = self.journal.compact()
        self._journal_bytes = self._compacted_bytes = size
        self.count("urlnorm/frontier/compactions")
        logger.info(
            "Compacted the frontier journal to its pending requests (%d bytes) in %.2f s",
            size,
            time.perf_counter() - started,
        )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.completion.close()
        self.flush_seen()
        in_flight = sorted(self.completion.in_flight)
        self._write(_record(_CLEAN, 0, struct.pack(f"<{len(in_flight)}Q", *in_flight)))
        self.journal.close()


class CrashSafeScheduler(Scheduler):
    """Scrapy's scheduler, plus the frontier journal when ``JOBDIR`` is set.

    ``SCHEDULER = "scrapy_urlnorm.CrashSafeScheduler"``; the add-on sets it
    when ``JOBDIR`` is set, unless ``URLNORM_CRASH_SAFE = False`` or
    ``SCHEDULER`` is set to another class.
    """

    frontier: Frontier | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        scheduler = super().from_crawler(crawler)
        scheduler.frontier = Frontier.for_crawler(crawler) if scheduler.dqdir else None
        hold_writes = getattr(scheduler.df, "hold_writes", None)
        if scheduler.frontier is not None and callable(hold_writes):
            scheduler.frontier.flush_seen = hold_writes()
        hold_journal = getattr(scheduler.df, "hold_journal", None)
        if scheduler.frontier is not None and callable(hold_journal):
            hold_journal(scheduler.frontier)
        return scheduler

    def open(self, spider: Spider) -> Deferred[None] | None:
        if self.frontier is None:
            return super().open(spider)
        recovery = self.frontier.open()
        if recovery.crashed and self.dqdir:
            # Its active.json and size headers predate the crash: not to be trusted.
            shutil.rmtree(self.dqdir, ignore_errors=True)
            Path(self.dqdir).mkdir(parents=True, exist_ok=True)
        self.frontier.spider = spider
        result = super().open(spider)
        restore_pages = getattr(self.df, "restore_pages", None)
        if callable(restore_pages):
            restore_pages(recovery.pages)
        for recovered in recovery.requests:
            self._schedule_recovered(recovered, spider)
        all_recovered = getattr(self.df, "recovered", None)
        if callable(all_recovered):
            all_recovered()
        for drop_id, payload in recovery.rechecks:
            self._recheck_dropped(payload, spider)
            # Queued, or dropped or held again under a record of its own: this one is done
            # (else every later resume would check it again).
            self.frontier.drop_settled(drop_id)
        if recovery.crashed:
            logger.warning(
                "The last run of this JOBDIR did not stop cleanly: scheduled again the %d request(s) "
                "its frontier journal holds as not done, and checked again %d request(s) dropped "
                "against them",
                len(recovery.requests),
                len(recovery.rechecks),
            )
        elif recovery.requests:
            logger.info("Scheduled again %d request(s) that were in flight at the last stop", len(recovery.requests))
        return result

    def _restore(self, payload: bytes, spider: Spider, what: str) -> Request | None:
        """The journaled request ``payload`` serializes; ``None`` (counted, warned) if it
        cannot be restored."""
        try:
            return request_from_dict(pickle.loads(payload), spider=spider)
        except Exception as exc:  # a spider changed between runs: its callback is gone
            self.frontier.count("urlnorm/frontier/unrecoverable")  # type: ignore[union-attr]
            logger.warning("Cannot restore a journaled %s (%s); it is not crawled", what, exc)
            return None

    def _schedule_recovered(self, recovered: RecoveredRequest, spider: Spider) -> None:
        payload, keys = recovered
        request = self._restore(payload, spider, "request")
        if request is None:
            return
        # It holds its keys again, and is checked again under the learned rules at download time.
        claim = getattr(self.df, "claim_recovered", None)
        if callable(claim):
            claim(request, keys)
            request.meta[RECOVERED] = True  # its representative: a start request is not skipped
        if not self._dqpush(request):
            self._mqpush(request)
        self.frontier.count("urlnorm/frontier/recovered")  # type: ignore[union-attr]

    def _recheck_dropped(self, payload: bytes, spider: Spider) -> None:
        """A request dropped against a representative still pending when the last run
        ended: the filter sees it again, as the link it was (after the recovered
        requests have claimed their keys again)."""
        request = self._restore(payload, spider, "drop")
        if request is None:
            return
        self.frontier.count("urlnorm/frontier/drops_rechecked")  # type: ignore[union-attr]
        self.enqueue_request(request)

    def enqueue_request(self, request: Request) -> bool:
        if self.frontier is None:
            return super().enqueue_request(request)
        self.frontier.assign_id(request)  # before the disk queue serializes it
        if not super().enqueue_request(request):
            self.frontier.not_enqueued(request)
            return False
        held = getattr(self.df, "form_claim_keys", None)
        keys = held(request) if callable(held) else ()
        if keys:
            # A form sent in place of a link (no filter check: dont_filter) takes the
            # link's claim over when it is sent; journaled with those keys, after a crash
            # it holds them again. Without them, what was dropped against the link met
            # its key seen and claimed by nobody, and was lost (frameworks seed 560025).
            self.frontier.claimed(request, keys)
        self.frontier.enqueued(request, self.spider)
        return True

    def next_request(self) -> Request | None:
        request = super().next_request()
        if request is not None and self.frontier is not None:
            self.frontier.completion.handed_out(request)
        return request

    def close(self, reason: str) -> Deferred[None] | None:
        result = super().close(reason)
        if self.frontier is not None:
            self.frontier.close()
        return result


class FrontierMiddleware:
    """Tells the frontier when a request is done. One class, installed twice
    by the add-on, as the outermost spider middleware (it sees the final
    output of every callback) and the outermost downloader middleware (it
    sees errors no other middleware handled)."""

    def __init__(self, frontier: Frontier | None, torn_cache: TornCacheEntries | None = None) -> None:
        self.completion = frontier.completion if frontier is not None else None
        self.torn_cache = torn_cache

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        frontier = Frontier.for_crawler(crawler)
        if frontier is None:
            return cls(None)
        from .dedup import Deduplicator

        ended = Deduplicator.for_crawler(crawler).request_ended
        if frontier.completion.request_failed not in ended:  # (built once per role: told once)
            ended.append(frontier.completion.request_failed)
        return cls(frontier, TornCacheEntries.for_crawler(crawler))

    # spider middleware

    def process_spider_output(self, response: Response, result: Iterable[Any], spider: Spider | None = None) -> Any:
        request_id = self.completion.output_started(response) if self.completion is not None else None
        if request_id is None:
            yield from result
            return
        try:
            for output in result:
                self.completion.adopt(request_id, output)  # type: ignore[union-attr]
                yield output
        finally:
            self.completion.output_ended(request_id)  # type: ignore[union-attr]

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        request_id = self.completion.output_started(response) if self.completion is not None else None
        try:
            async for output in result:
                if request_id is not None:
                    self.completion.adopt(request_id, output)  # type: ignore[union-attr]
                yield output
        finally:
            if request_id is not None:
                self.completion.output_ended(request_id)  # type: ignore[union-attr]

    def process_spider_exception(self, response: Response, exception: Exception, spider: Spider | None = None) -> None:
        # The callback (or HttpErrorMiddleware) raised and nobody turned it into output.
        if self.completion is not None:
            request_id = self.completion.output_started(response)
            if request_id is not None:
                self.completion.output_ended(request_id)

    # downloader middleware

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        # A recovered request may have been in flight at a crash, its cache entry half written.
        if self.torn_cache is not None and request.meta.get(RECOVERED):
            self.torn_cache.check(request)

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> None:
        if self.completion is not None:
            self.completion.request_failed(request)
