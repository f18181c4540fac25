"""Core objects on their stores, in one step (the bridge's composition root, the CLI, tests)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.activity import DEFAULT_ROWS, ActivityLog
from ..core.switches import PersonSwitches
from ..core.telemetry.redact import Redactor
from .activity import ActivityStore
from .database import default_db_path
from .switches import SwitchesStore

if TYPE_CHECKING:
    from ..core.search.semantic import EmbeddingCache
    from ..core.stores import UseRows

__all__ = ["activity_log", "db_path", "person_controls", "search_stores"]

PathLike = str | os.PathLike[str]


def db_path(path: PathLike | None) -> PathLike:
    """The bridge's database file: ``path`` (``store.path``), or the default one."""
    return path if path is not None else default_db_path()


def activity_log(path: PathLike | None = ":memory:", *, max_rows: int = DEFAULT_ROWS,
                 redactor: Redactor | Callable[[], Redactor] | None = None,
                 on_pending: Callable[[], None] | None = None,
                 flush_soon: Callable[[], bool] | None = None) -> ActivityLog:
    """The activity log on the database file (``None``: the default file)."""
    return ActivityLog(ActivityStore(db_path(path)), max_rows=max_rows, redactor=redactor, on_pending=on_pending,
                       flush_soon=flush_soon)


def person_controls(path: PathLike | None = ":memory:") -> PersonSwitches:
    """The person's switches on the database file (``None``: the default file)."""
    return PersonSwitches(SwitchesStore(db_path(path)))


def search_stores(path: PathLike | None) -> Callable[[], tuple[EmbeddingCache, UseRows]]:
    """What opens tool search's stores on the database file (``None``: the default file), for
    :class:`~tabmcp.core.search.sync.IndexSync` (it opens them only with semantic ranking on)."""
    from .search import EmbeddingStore, UseStore  # numpy and the search core load only with search

    target = db_path(path)
    return lambda: (EmbeddingStore(target), UseStore(target))
