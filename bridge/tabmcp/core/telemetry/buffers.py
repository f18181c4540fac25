"""Bounded per-tab, per-kind ring buffers with byte accounting and visible drop counts.

A per-tab, per-kind count means a log flood only churns logs; under the byte ceiling kinds go in
:data:`EVICTION_ORDER`, errors last. Every drop is counted (:class:`DropReason`), and counts are
kept on every change so tools/list reads them in O(1).
"""

from __future__ import annotations

import heapq
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from ...capture.kinds import EVICTION_ORDER, BufferKind, buffer_kind_of
from ..trust.text import Captured
from .models import Event
from .settings import BufferLimits

__all__ = ["EVICTION_ORDER", "BufferKind", "DropReason", "Entry", "TelemetryBuffers", "buffer_kind_of"]


class DropReason(StrEnum):
    CAPACITY = "capacity"
    """The tab's buffer for that kind was full; its oldest entry went."""
    MEMORY = "memory"
    """The global byte ceiling was reached; a lower-priority entry went."""
    PAGE = "page"
    """The page dropped it before sending (reported in the batch's ``dropped``)."""
    REJECTED = "rejected"
    """Malformed or of an unknown kind."""
    OVERSIZE = "oversize"
    """Larger than ``max_event_bytes`` even after truncation."""
    IGNORED = "ignored"
    """Matched a noise rule (intentional, but still counted)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One buffered event and where it came from."""

    seq: int
    """Global ingest order; checkpoints and ``since`` compare against it."""
    tab_id: int
    load_id: str | None
    """The page load the event belongs to (``None`` before the first navigation seen)."""
    page_url: Captured
    """The tab's URL when the batch carrying the event arrived."""
    event: Event
    size: int
    """Serialized size in bytes (approximate: characters of the JSON form)."""


class TelemetryBuffers:
    """All buffered telemetry of every tab.

    Not thread-safe: the bridge calls it from its event loop only.
    """

    def __init__(self, limits: BufferLimits, max_bytes: int) -> None:
        self._limits = limits
        self._max_bytes = max_bytes
        self._tabs: dict[int, dict[BufferKind, deque[Entry]]] = {}
        self._count: dict[BufferKind, int] = dict.fromkeys(BufferKind, 0)
        self.total_bytes = 0
        self._drops: dict[int, dict[str, Counter[str]]] = {}

    # -- reading --------------------------------------------------------------------------

    def count(self, kind: BufferKind, tab_id: int | None = None) -> int:
        """Entries of ``kind`` for one tab, or for all tabs (O(1))."""
        if tab_id is None:
            return self._count[kind]
        tab = self._tabs.get(tab_id)
        return len(tab[kind]) if tab else 0

    def counts(self) -> dict[str, int]:
        """Entries of every kind, all tabs, by buffer name (O(kinds))."""
        return {kind.value: n for kind, n in self._count.items()}

    @property
    def total(self) -> int:
        return sum(self._count.values())

    def tab_ids(self) -> list[int]:
        return list(self._tabs)

    def entries(self, kind: BufferKind, tab_id: int | None = None) -> Iterator[Entry]:
        """Entries in ingest order, for one tab or merged across tabs."""
        if tab_id is not None:
            tab = self._tabs.get(tab_id)
            return iter(list(tab[kind])) if tab else iter(())
        queues = [list(t[kind]) for t in self._tabs.values() if t[kind]]
        if len(queues) == 1:
            return iter(queues[0])
        return heapq.merge(*queues, key=lambda e: e.seq)

    def drops(self, tab_id: int | None = None, kind: str | None = None) -> dict[str, int]:
        """Drop counts by reason, for a tab and/or kind (``None`` = all)."""
        total: Counter[str] = Counter()
        tabs = [self._drops.get(tab_id, {})] if tab_id is not None else list(self._drops.values())
        for per_kind in tabs:
            for k, reasons in per_kind.items():
                if kind is None or k == kind:
                    total.update(reasons)
        return {r: n for r, n in sorted(total.items()) if n}

    def drop_table(self) -> dict[int, dict[str, dict[str, int]]]:
        """Every drop count: tab → kind → reason → n."""
        return {
            tab: {k: dict(reasons) for k, reasons in kinds.items() if reasons}
            for tab, kinds in self._drops.items()
        }

    # -- writing --------------------------------------------------------------------------

    def note_drop(self, tab_id: int, kind: str, reason: DropReason, n: int = 1) -> None:
        if n > 0:
            self._drops.setdefault(tab_id, {}).setdefault(kind, Counter())[reason.value] += n

    def append(self, kind: BufferKind, entry: Entry) -> None:
        """Keep ``entry``, then evict until both bounds hold again."""
        queue = self._tab(entry.tab_id)[kind]
        queue.append(entry)
        self._count[kind] += 1
        self.total_bytes += entry.size
        limit = self._limits.of(kind)
        while len(queue) > limit:
            self._pop_oldest(queue, kind, DropReason.CAPACITY)
        self._enforce_ceiling()

    def restore(self, kind: BufferKind, entries: Iterable[Entry]) -> None:
        """Append entries already accepted once (a loaded snapshot), bounds still applied."""
        for entry in entries:
            self.append(kind, entry)

    def remove_where(self, predicate: Callable[[Entry], bool], kinds: Iterable[BufferKind]) -> int:
        """Drop matching entries (noise rules added later); counted as ``ignored``."""
        removed = 0
        for kind in kinds:
            for tab_id, tab in self._tabs.items():
                queue = tab[kind]
                keep = deque(e for e in queue if not predicate(e))
                gone = len(queue) - len(keep)
                if gone:
                    self.total_bytes -= sum(e.size for e in queue) - sum(e.size for e in keep)
                    self._count[kind] -= gone
                    tab[kind] = keep
                    self.note_drop(tab_id, kind.value, DropReason.IGNORED, gone)
                    removed += gone
        return removed

    def clear(self, kinds: Iterable[BufferKind] | None = None, tab_id: int | None = None) -> int:
        """Forget entries and their drop counts (an explicit request, so not a drop)."""
        chosen = list(kinds) if kinds is not None else list(BufferKind)
        tabs = [tab_id] if tab_id is not None else list(self._tabs)
        removed = 0
        for tid in tabs:
            tab = self._tabs.get(tid)
            if tab is None:
                continue
            for kind in chosen:
                queue = tab[kind]
                removed += len(queue)
                self._count[kind] -= len(queue)
                self.total_bytes -= sum(e.size for e in queue)
                queue.clear()
                self._drops.get(tid, {}).pop(kind.value, None)
            if not any(tab.values()):
                del self._tabs[tid]
        if kinds is None:
            for tid in tabs:
                self._drops.pop(tid, None)
        return removed

    def resize(self, limits: BufferLimits, max_bytes: int) -> None:
        """Apply new bounds now (shrinking evicts at once, counted as drops)."""
        self._limits = limits
        self._max_bytes = max_bytes
        for tab in self._tabs.values():
            for kind, queue in tab.items():
                limit = limits.of(kind)
                while len(queue) > limit:
                    self._pop_oldest(queue, kind, DropReason.CAPACITY)
        self._enforce_ceiling()

    # -- internals ------------------------------------------------------------------------

    def _tab(self, tab_id: int) -> dict[BufferKind, deque[Entry]]:
        tab = self._tabs.get(tab_id)
        if tab is None:
            tab = {k: deque() for k in BufferKind}
            self._tabs[tab_id] = tab
        return tab

    def _pop_oldest(self, queue: deque[Entry], kind: BufferKind, reason: DropReason) -> None:
        gone = queue.popleft()
        self._count[kind] -= 1
        self.total_bytes -= gone.size
        self.note_drop(gone.tab_id, kind.value, reason)

    def _enforce_ceiling(self) -> None:
        while self.total_bytes > self._max_bytes:
            kind = next((k for k in EVICTION_ORDER if self._count[k]), None)
            if kind is None:  # pragma: no cover - bytes without entries would be a bug
                self.total_bytes = 0
                return
            oldest = min(
                (tab[kind] for tab in self._tabs.values() if tab[kind]),
                key=lambda q: q[0].seq,
            )
            self._pop_oldest(oldest, kind, DropReason.MEMORY)
