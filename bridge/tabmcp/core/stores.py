"""What the core keeps across runs, said as small interfaces: each part names the few operations it needs.

The core opens no file: :mod:`tabmcp.storage` implements these on SQLite and the root hands them in,
so a core test can pass anything with these methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # only the learned uses' vectors need numpy: the CLI's stores load without it
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]

__all__ = [
    "ActivityRows",
    "FlagTable",
    "PinTable",
    "SiteTable",
    "SnapshotInfo",
    "SnapshotStore",
    "StoreUnavailable",
    "SwitchesTable",
    "UsageCounts",
    "UseRows",
]


class StoreUnavailable(Exception):
    """A store could not write now (its file is locked by another writer, or gone): nothing of
    the write was kept, so the caller keeps what it meant to write and tries again later."""


class ActivityRows(Protocol):
    """The activity log's rows (:class:`tabmcp.core.activity.ActivityLog` decides what goes in)."""

    def next_id(self) -> int:
        """The id the next row written gets (rows of this run have ids from here)."""
        ...

    def write(self, rows: Sequence[tuple[Any, ...]], keep: int) -> int:
        """Add ``rows`` (the columns after ``id``) in one transaction, the store giving each its id,
        and delete all but the newest ``keep``; the newest row's id.

        Raises:
            StoreUnavailable: nothing was written (another writer holds the file).
        """
        ...

    def latest(self, limit: int, origin: str | None, tab_id: int | None) -> list[tuple[Any, ...]]:
        """The newest rows first (``id`` then the columns), optionally of one origin and/or tab."""
        ...

    def count(self) -> int: ...

    def close(self) -> None: ...


class SwitchesTable(Protocol):
    """The person's switches as stored (:class:`tabmcp.core.switches.PersonSwitches`)."""

    def data_version(self) -> int:
        """Moves when another process changed the stored switches."""
        ...

    def values(self) -> dict[str, str]:
        """Each switch's JSON value by key."""
        ...

    def put(self, key: str, value: str) -> None: ...

    def origins_off(self) -> frozenset[str]: ...

    def set_origin_off(self, origin: str, off: bool) -> None: ...

    def close(self) -> None: ...


class PinTable(Protocol):
    """The pinned tool definitions (:class:`tabmcp.core.trust.pins.Pins` holds the rules). Every
    method but :meth:`reclaim` is called holding :attr:`lock`, so a read and the write it decides
    are one step."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    def pin_row(self, origin: str, name: str) -> tuple[str, str, str, str] | None:
        """(pinned hash, pinned definition, current hash, status), or None before the first pin."""
        ...

    def touch_pin(self, origin: str, name: str, now: float, document_url: str) -> None: ...

    def insert_pin(self, origin: str, name: str, digest: str, canon: str, document_url: str, now: float) -> None: ...

    def repin(self, origin: str, name: str, now: float, document_url: str) -> None:
        """The page offers the pinned definition again."""
        ...

    def mark_pin_changed(
        self, origin: str, name: str, digest: str, canon: str, now: float, document_url: str, *, since_now: bool
    ) -> None:
        """The page offers another definition (``since_now``: the change starts now, else it goes on)."""
        ...

    def has_kept(self, origin: str) -> bool: ...

    def pin_count(self, origin: str) -> int: ...

    def evictable(self, origin: str, n: int) -> list[str]:
        """Up to ``n`` names of ``origin`` whose pins may go: not kept, no change awaiting the person,
        the least recently seen first."""
        ...

    def evictable_all(self) -> list[tuple[str, str]]:
        """Every (origin, name) whose pin may go, the least recently seen first."""
        ...

    def delete_pins(self, keys: Sequence[tuple[str, str]]) -> None:
        """Delete these pins, unless kept."""
        ...

    def keep(self, origin: str, name: str) -> bool: ...

    def pin_origins(self) -> dict[str, tuple[int, float]]:
        """Every origin with pins: (how many, when one was last seen)."""
        ...

    def drop_unkept(self, origin: str) -> int: ...

    def forget_origin(self, origin: str) -> None:
        """Delete every pin of ``origin``, kept ones too (the person forgot the site)."""
        ...

    def accept(self, origin: str, name: str) -> bool:
        """Pin the current definition and keep it (telling other processes); whether it was changed."""
        ...

    def pin_rows(self, origin: str | None = None, name: str | None = None, *,
                 changed_only: bool = False) -> list[tuple[Any, ...]]:
        """(origin, name, status, pinned_def, current_def, document_url, first_seen, last_seen,
        changed_at), by origin and name."""
        ...

    def last_origin_of(self, name: str) -> str | None:
        """The origin that last offered a tool called ``name``."""
        ...

    def reclaim(self) -> None:
        """Give the space of deleted rows back (after many were deleted)."""
        ...


class FlagTable(Protocol):
    """Results flagged as orders to the agent (:class:`tabmcp.core.trust.lockdown.Lockdown`);
    called holding :attr:`lock`."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    def add_flag(self, origin: str, tool: str, reasons: str, at: float) -> int: ...

    def open_flags(self) -> list[tuple[int, str, str, str, float]]:
        """(id, origin, tool, reasons as JSON, flagged at), oldest first."""
        ...

    def any_open_flag(self) -> bool: ...

    def clear_flags(self, at: float) -> int:
        """Clear every open flag (telling other processes); how many."""
        ...


class SiteTable(Protocol):
    """The person's permissions and the stale marks (:class:`tabmcp.core.reachable_sites.Sites`)."""

    def allowed(self) -> set[str]: ...

    def set_allowed(self, origin: str, allowed: bool) -> bool: ...

    def stale(self, origin: str | None = None) -> dict[tuple[str, str], float]: ...

    def mark_stale(self, origin: str, name: str) -> None: ...

    def clear_stale(self, origin: str, names: Sequence[str]) -> int: ...

    def forget(self, origin: str) -> None: ...

    def changes(self) -> int:
        """A counter every writer of sites moves on."""
        ...

    def touch(self) -> int: ...

    def close(self) -> None: ...


class UsageCounts(Protocol):
    """How often each page tool was called (the hybrid profile's core tools, retention)."""

    def record(self, origin: str, name: str) -> None: ...

    def forget(self, origin: str) -> None: ...

    def origins(self) -> dict[str, float]: ...

    def top_set(self, n: int) -> set[tuple[str, str]]: ...


class UseRows(Protocol):
    """Requests that ended in a call of a tool (:class:`tabmcp.core.search.usage.UseMemory`)."""

    def load(self, model: str, limit: int = ...) -> list[tuple[str, str, Vector]]: ...

    def add(self, model: str, query: str, tool: str, vec: Vector) -> None: ...


@dataclass(frozen=True)
class SnapshotInfo:
    name: str
    created_at: float
    """Epoch seconds."""
    entries: int
    raw_bytes: int
    stored_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "createdAt": self.created_at,
            "entries": self.entries,
            "rawBytes": self.raw_bytes,
            "storedBytes": self.stored_bytes,
        }


class SnapshotStore(Protocol):
    """Named telemetry snapshots (``configure``'s save/load/list/delete); errors are
    :class:`~tabmcp.core.telemetry.errors.SessionStoreError` and its kin."""

    @property
    def path(self) -> str:
        """Where they are kept (said by ``configure(status)``)."""
        ...

    def save(self, name: str, snapshot: dict[str, Any]) -> SnapshotInfo: ...

    def load(self, name: str) -> dict[str, Any]: ...

    def list(self) -> list[SnapshotInfo]: ...

    def delete(self, name: str) -> bool: ...

    def close(self) -> None: ...
