"""One source of truth for the person's decisions: a running bridge follows what another process
(the ``tabmcp`` CLI) changes in the bridge's SQLite file, within a second.

:class:`SharedStateWatch` polls ``PRAGMA data_version`` twice a second and reloads only the topics
another writer changed (docs/architecture.md). A file rather than a socket, so the CLI works the
same with or without a bridge and needs no port or token; the price is one cheap statement a poll.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable

from ..storage.database import ChangeCounters

__all__ = ["FOLLOW_EVERY_S", "SharedStateWatch"]

log = logging.getLogger("tabmcp.shared_state")

FOLLOW_EVERY_S = 0.5
"""How often the bridge looks for another process's writes (the promise is one second)."""


class SharedStateWatch:
    """Calls ``follow(counters)`` when another connection wrote the file since the last look.

    Args:
        path: the bridge's SQLite file (``":memory:"``: no other process can write it; never armed).
        follow: the bridge core's reload, given every topic's change counter (``person_changes``).
    """

    def __init__(self, path: str | os.PathLike[str], follow: Callable[[dict[str, int]], None], *,
                 every_s: float = FOLLOW_EVERY_S) -> None:
        self.path = str(path)
        self.every_s = every_s
        self._follow = follow
        self._db: ChangeCounters | None = None
        self._data_version: int | None = None
        self._timer: asyncio.TimerHandle | None = None
        self.baseline: dict[str, int] = {}
        """The change counters when the watch started (what the bridge loaded already)."""
        self.looks = 0
        self.follows = 0

    def start(self) -> None:
        """Look every ``every_s`` on the running loop until :meth:`stop`."""
        if self.path == ":memory:" or self._timer is not None:
            return
        self._db = ChangeCounters(self.path)
        self._data_version = self._version()
        self.baseline = self._db.read()
        self._arm()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._db is not None:
            self._db.close()
            self._db = None

    def _version(self) -> int:
        assert self._db is not None
        return self._db.data_version()

    def _arm(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(self.every_s, self._look)

    def _look(self) -> None:
        self._timer = None
        try:
            self.look()
        except Exception:  # a locked or vanished file: keep looking
            log.warning("could not follow the database's changes", exc_info=True)
        if self._db is not None:
            self._arm()

    def look(self) -> bool:
        """One look: whether another connection wrote since the last (``follow`` ran then)."""
        if self._db is None:
            return False
        self.looks += 1
        version = self._version()
        if version == self._data_version:
            return False
        self._data_version = version
        self.follows += 1
        self._follow(self._db.read())
        return True
