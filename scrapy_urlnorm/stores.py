"""Where seen fingerprints live: one small interface, swappable backends.

The :class:`~scrapy_urlnorm.dedup.Deduplicator` only talks to a
:class:`SeenStore`. :class:`MemoryStore` keeps the compact in-process table
and, with ``JOBDIR``, its crash-safe file; a shared backend for distributed
crawls implements the same five methods.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from .seen import FingerprintSet, SeenFile

logger = logging.getLogger(__name__)


class SeenStore(Protocol):
    """A set of fingerprints, each stored with a one-byte rank."""

    def add(self, fingerprint: int, rank: int) -> int | None:
        """Add atomically; ``None`` if it is new, else the rank stored with it."""

    def get(self, fingerprint: int) -> int | None:
        """The stored rank, or ``None`` if absent."""

    def __len__(self) -> int: ...

    def clear(self) -> None:
        """Forget every fingerprint."""

    def close(self) -> None:
        """Flush and release resources; the store is not used afterwards."""


class MemoryStore:
    """The compact in-process table, persisted append-only in ``path`` when given."""

    def __init__(self, bits: int = 64, path: str | Path | None = None) -> None:
        self.table = FingerprintSet(bits)
        self.file = SeenFile(path, bits) if path else None
        if self.file is not None:
            loaded = self.file.load_into(self.table)
            if loaded:
                logger.info("Resumed %d seen fingerprint(s) from %s", loaded, self.file.path)
            self.file.open()

    def add(self, fingerprint: int, rank: int) -> int | None:
        stored = self.table.add(fingerprint, rank)
        if stored is None and self.file is not None:
            self.file.append(fingerprint, rank)
        return stored

    def get(self, fingerprint: int) -> int | None:
        return self.table.get(fingerprint)

    def __len__(self) -> int:
        return len(self.table)

    def __contains__(self, fingerprint: object) -> bool:
        return fingerprint in self.table

    def clear(self) -> None:
        self.table.clear()
        if self.file is not None:
            self.file.close()
            self.file.path.unlink(missing_ok=True)
            self.file.open()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
