"""What a ``JOBDIR`` crawl keeps besides the seen set: learned rules, failed and abandoned keys."""

from __future__ import annotations

import json
import logging
import os
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .learning import Learner
from .rule_exchange import load_rules

logger = logging.getLogger(__name__)

SEEN_FILE = "urlnorm.seen"
RULES_FILE = "urlnorm.rules.json"
FAILED_FILE = "urlnorm.failed"
ABANDONED_FILE = "urlnorm.abandoned"


class RulesFile:
    """The learner's rules as JSON, replaced atomically on every change."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None

    def save(self, learner: Learner) -> None:
        if self.path is None:
            return
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(learner.to_dict(), indent=1), encoding="utf-8")
        os.replace(temporary, self.path)

    def load(self, learner: Learner) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            logger.warning("Ignoring unreadable learned rules in %s: %s", self.path, exc)
            return
        load_rules(learner, data)
        logger.info("Resumed %d learned rule(s) from %s", len(learner.active_rules()), self.path)


_LOW_64 = (1 << 64) - 1


def key_words(key: int, wide: bool) -> tuple[int, ...]:
    """``key`` as the 64-bit words a ``JOBDIR`` record stores (two for 128-bit keys)."""
    return (key >> 64, key & _LOW_64) if wide else (key,)


def key_of_words(words: tuple[int, ...], wide: bool) -> int:
    """The key :func:`key_words` stored as the first words of a record."""
    return (words[0] << 64 | words[1]) if wide else words[0]


class RecordLog:
    """An append-only ``JOBDIR`` file of fixed-size records (``struct`` format ``fmt``):
    what earlier runs wrote is read back once, then every record is written as it comes
    (unbuffered, so a ``kill -9`` keeps all but a torn last one, which is left out), or
    held back between :meth:`hold` and :meth:`flush` to be written in one go."""

    def __init__(self, path: str | Path | None, fmt: str) -> None:
        self.path = Path(path) if path else None
        self.record = struct.Struct(fmt)
        self._file: BinaryIO | None = None
        self._held: bytearray | None = None

    def open(self) -> Iterator[tuple[Any, ...]]:
        """The records earlier runs wrote; from now on :meth:`append` writes to the file."""
        if self.path is None:
            return iter(())
        data = self.path.read_bytes() if self.path.exists() else b""
        self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - closed in close()
        return self.record.iter_unpack(data[: len(data) - len(data) % self.record.size])

    def rewrite(self, records: Iterable[tuple[int, ...]]) -> None:
        """Replace the file with ``records`` (atomically), then go on appending to it:
        an earlier run's superseded records are not read again at every resume."""
        if self.path is None:
            return
        self.close()
        pack = self.record.pack
        temporary = self.path.with_name(self.path.name + ".tmp")  # (not with_suffix: urlnorm.tmp is shared)
        temporary.write_bytes(b"".join(pack(*fields) for fields in records))
        os.replace(temporary, self.path)
        self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - closed in close()

    def append(self, *fields: int) -> None:
        if self._file is None:
            return
        if self._held is not None:
            self._held += self.record.pack(*fields)
        else:
            self._file.write(self.record.pack(*fields))

    def hold(self) -> None:
        """Keep new records in memory until :meth:`flush`."""
        if self._held is None:
            self._held = bytearray()

    def flush(self) -> None:
        """Write the held records, in one write."""
        if self._held and self._file is not None:
            self._file.write(self._held)
            self._held.clear()

    def close(self) -> None:
        if self._file is not None:
            self.flush()
            self._file.close()
            self._file = None


class DurableKeys:
    """A set of keys whose requests did not deliver the page their key stands for:

    - *failed*: their representative settled without delivering it;
    - *abandoned*: their representative was replaced before it was sent (a
      shortcut, a late drop), so nothing was fetched as written under them.

    A later request with such a key is fetched (a failed key's exact
    duplicate excepted): nothing delivered the page it would be dropped
    against. With ``JOBDIR`` the set is appended to a file, so a resumed crawl
    knows them too (a key delivered later stays listed there: at worst one
    more fetch).
    """

    def __init__(self, path: str | Path | None = None, bits: int = 64) -> None:
        self._wide = bits == 128
        self._log = RecordLog(path, "<QQ" if self._wide else "<Q")
        self._keys: set[int] = {key_of_words(words, self._wide) for words in self._log.open()}

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def add(self, keys: tuple[int, ...]) -> None:
        for key in keys:
            if key in self._keys:
                continue
            self._keys.add(key)
            self._log.append(*key_words(key, self._wide))

    def discard(self, keys: tuple[int, ...]) -> None:
        for key in keys:
            self._keys.discard(key)

    def clear(self) -> None:
        self._keys.clear()

    def close(self) -> None:
        self._log.close()
