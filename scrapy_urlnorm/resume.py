"""What a ``JOBDIR`` crawl's drop ledger leaves for the next run: pending claims and their drops.

Scrapy saves its queue when a crawl stops cleanly. The requests in it were
admitted (their keys are in the seen set), but their claims lived in the
stopped run's memory. Without them, a variant met after the resume would be
dropped as if its page had been delivered, and lost if the queued request
then fails; and what had been dropped against them before the stop would
be lost the same way.

So at a clean stop the ledger's pending claims, and the drops written under
them, go to ``JOBDIR/urlnorm.pending``; the next run loads them before its
first request. A queued request's keys are pending again and what was
dropped against it waits on it again: released if it fails, as in one run.
Learned drops parked against delivered pages are saved too: a rule revoked
after the resume releases them, as in one run. A claim whose request does
not come back (in flight at the stop without the crash-safe frontier, which
Scrapy then forgets) never settles and is released at ``spider_idle``, like
any orphan: its drops are fetched.

The claims' holders are not kept (a claim knows only the hash of its URL,
and ``hash(str)`` changes between processes): a loaded claim is failed by
whichever request of its keys fails first. At worst that fetches its drops
needlessly, never loses them.

A crash (``kill -9``) writes nothing; the file of the last clean stop stays.
Loaded again, its claims whose requests were settled meanwhile never settle
and are released at idle: duplicates, not losses.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.utils.request import request_from_dict

from .frontier import RequestDicts
from .ledger import ANY_HOLDER

if TYPE_CHECKING:
    from scrapy import Request, Spider

    from .ledger import Drop, DropLedger

logger = logging.getLogger(__name__)

PENDING_FILE = "urlnorm.pending"
_VERSION = 1


class PendingFile:
    """The pending claims of a ``JOBDIR`` crawl's ledger, saved at a clean stop."""

    def __init__(self, path: str | Path | None, count: Callable[[str, int], None]) -> None:
        self.path = Path(path) if path else None
        self._count = count

    def save(self, ledger: DropLedger, spider: Spider | None) -> tuple[int, int] | None:
        """Write what is pending (or remove the file when nothing is): (claims, drops)
        written; ``None`` if there is no file to write, or it could not be written."""
        if self.path is None:
            return None
        unsaved: list[str] = []
        dicts = RequestDicts()  # the spider's method names looked up once, not per drop

        def saved(drops: Iterable[Drop]) -> list[dict[str, Any]]:
            entries = []
            for drop in drops:
                if drop.settled:
                    continue
                try:
                    request = dicts.to_dict(drop.request, spider)
                except (ValueError, TypeError, AttributeError) as exc:
                    unsaved.append(f"{drop.url} ({exc})")
                    continue
                entries.append({"request": request, "reason": drop.reason, "host": drop.host, "learned": drop.learned})
            return entries

        claims = [(claim.keys, saved(claim.drops or ())) for claim in ledger.pending()]
        parked = saved(ledger.parked_drops())
        drops = sum(len(entries) for _, entries in claims)
        if unsaved:
            logger.warning(
                "Cannot save %d dropped request(s) for the next run, e.g. %s: a revoked rule or a failed "
                "request cannot release them after the resume (counted in urlnorm/pending_unsaved)",
                len(unsaved),
                unsaved[0],
            )
            self._count("urlnorm/pending_unsaved", len(unsaved))
        if not claims and not parked:
            self.path.unlink(missing_ok=True)
            return 0, 0
        temporary = self.path.with_suffix(".tmp")
        try:
            temporary.write_bytes(pickle.dumps({"version": _VERSION, "claims": claims, "parked": parked}, protocol=4))
            os.replace(temporary, self.path)
        except (OSError, pickle.PicklingError) as exc:
            logger.error("Cannot save the pending requests' claims to %s: %s", self.path, exc)
            return None
        logger.info(
            "Saved %d pending claim(s) and %d drop(s) against them, and %d parked learned drop(s), to %s",
            len(claims),
            drops,
            len(parked),
            self.path,
        )
        return len(claims), drops

    def load(self, ledger: DropLedger, spider: Spider | None) -> tuple[int, int]:
        """Claim again what the last clean stop left pending: (claims, drops) loaded."""
        if self.path is None or not self.path.exists():
            return 0, 0
        try:
            data = pickle.loads(self.path.read_bytes())
            if data.get("version") != _VERSION:
                raise ValueError(f"version {data.get('version')!r}")
            claims = data["claims"]
        except Exception as exc:
            logger.error("Ignoring unreadable pending claims in %s: %s", self.path, exc)
            return 0, 0
        drops = parked = unparked = 0
        for keys, saved in claims:
            claim = ledger.claim(tuple(keys), "")
            claim.holder = ANY_HOLDER
            for entry, request in self._requests(saved, spider):
                ledger.restore(claim, request, entry["reason"], entry["host"], learned=entry["learned"])
                drops += 1
        for entry, request in self._requests(data.get("parked", ()), spider):
            if ledger.restore_parked(request, entry["reason"], entry["host"]):
                parked += 1
            else:
                unparked += 1
        if unparked:  # the caps were lowered since (counted in urlnorm/parked_overflow)
            logger.warning("No room to park %d learned drop(s) again: a revoked rule cannot release them", unparked)
        logger.info(
            "Resumed %d pending claim(s) and %d drop(s) against them, and %d parked learned drop(s), from %s",
            len(claims),
            drops,
            parked,
            self.path,
        )
        return len(claims), drops

    def _requests(
        self, entries: Iterable[dict[str, Any]], spider: Spider | None
    ) -> Iterator[tuple[dict[str, Any], Request]]:
        for entry in entries:
            try:
                request = request_from_dict(entry["request"], spider=spider)
            except Exception as exc:
                self._count("urlnorm/pending_unsaved", 1)
                logger.warning("Cannot restore a request dropped before the stop (%s); it is not crawled", exc)
                continue
            yield entry, request
