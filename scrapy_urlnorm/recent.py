"""Bounded tables that forget their least recently written entries first."""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def put_recent(table: OrderedDict[K, V], key: K, value: V, cap: int) -> None:
    """``table[key] = value`` as its newest entry; past ``cap`` entries the oldest go."""
    table[key] = value
    table.move_to_end(key)
    while len(table) > cap:
        table.popitem(last=False)
