"""A bounded least-recently-used mapping, for memos keyed by what pages choose.

A page decides how many names and definitions it registers, so a memo keyed by them must not
grow with it; a miss only costs the work the memo saved. :class:`IdentityMemo` keys by the object
itself, for what is replaced, never edited.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["LRU", "IdentityMemo"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class LRU(Generic[K, V]):
    """At most ``max_entries`` entries; a read or a write makes an entry the newest.

    Safe to share between the event loop and the thread that reads pages' snapshots
    (server/reader.py): every operation holds one lock (uncontended, a fraction of a microsecond)."""

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError("an LRU holds at least one entry")
        self.max_entries = max_entries
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def pop(self, key: K) -> V | None:
        with self._lock:
            return self._data.pop(key, None)

    def drop_where(self, predicate: Callable[[K], bool]) -> int:
        """Remove the entries whose key matches; how many were removed."""
        with self._lock:
            gone = [k for k in self._data if predicate(k)]
            for key in gone:
                del self._data[key]
            return len(gone)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)


class IdentityMemo(Generic[T, V]):
    """What ``build`` made of an object, kept while that very object is asked about again.

    For objects replaced, never edited: a hit costs an ``id()`` and a lookup, and a changed object
    misses by construction. It holds each key, so an ``id`` is not reused while its entry lives.
    """

    def __init__(self, build: Callable[[T], V], max_entries: int) -> None:
        self._build = build
        self._memo: LRU[int, tuple[T, V]] = LRU(max_entries)
        self.builds = 0
        """How many times ``build`` ran (a miss that raised is not counted, nor kept)."""

    def get(self, obj: T) -> V:
        hit = self._memo.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = self._build(obj)
        self.builds += 1
        self._memo[id(obj)] = (obj, value)
        return value
