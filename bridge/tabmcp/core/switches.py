"""The person's switches: pause every agent, turn writes on or off, switch an origin's tools off.

Only the person sets them (the popup or ``tabmcp controls``), never an MCP tool, so an agent never
changes what it is allowed. Pausing leaves tools/list as it is, so clients do not churn through
notifications while the person looks. No I/O: kept through a :class:`~tabmcp.core.stores.SwitchesTable`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import Paused
from .stores import SwitchesTable

__all__ = ["ControlsState", "InvalidOrigin", "PersonSwitches", "normalize_origin"]

PAUSED_MESSAGE = (
    "the person paused all agent access in the tabmcp extension popup; calls answer PAUSED until "
    "they resume it (popup, or: tabmcp controls resume)"
)


class InvalidOrigin(ValueError):
    """Not an origin (``scheme://host[:port]``)."""


def normalize_origin(value: str) -> str:
    """``https://Shop.test:443/x`` → ``https://shop.test``; raises :class:`InvalidOrigin`."""
    text = str(value or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.hostname):
        raise InvalidOrigin(f"{text!r} is not an origin (scheme://host[:port])")
    if parts.scheme == "file":
        return "file://"
    try:
        port = parts.port
    except ValueError as exc:
        raise InvalidOrigin(f"{text!r} has an invalid port") from exc
    default = {"http": 80, "https": 443}[parts.scheme]
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


@dataclass(frozen=True)
class ControlsState:
    """The switches at one moment (``to_dict``: the JSON shape of the popup and the CLI)."""

    paused: bool
    writes: bool | None
    origins_off: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"paused": self.paused, "writes": self.writes, "originsOff": list(self.origins_off)}


class PersonSwitches:
    """The switches, in memory for the hot path and in SQLite for restarts and the CLI (thread-safe).

    :attr:`version` moves when what agents see changes (writes, origins), not on pause.
    """

    def __init__(self, table: SwitchesTable) -> None:
        self.table = table
        self._lock = threading.Lock()
        self.version = 0
        self.paused = False
        self.writes: bool | None = None
        self.origins_off: frozenset[str] = frozenset()
        self._data_version = -1
        self._load()

    # -- reading ------------------------------------------------------------------------

    def state(self) -> ControlsState:
        return ControlsState(self.paused, self.writes, tuple(sorted(self.origins_off)))

    def origin_enabled(self, origin: str) -> bool:
        return origin not in self.origins_off

    def check_not_paused(self) -> None:
        """Raises :class:`Paused` while the person has paused agent access."""
        if self.paused:
            raise Paused(PAUSED_MESSAGE, setting="the tabmcp popup's Pause switch (or: tabmcp controls resume)")

    # -- setting ------------------------------------------------------------------------

    def set_paused(self, paused: bool) -> bool:
        """Pause or resume every agent; whether anything changed."""
        return self._put("paused", bool(paused))

    def set_writes(self, writes: bool | None) -> bool:
        """Writes on, off, or back to the config's setting (``None``); whether anything changed."""
        return self._put("writes", writes)

    def set_origin(self, origin: str, enabled: bool) -> bool:
        """Switch an origin's tools on or off for agents; whether anything changed.

        Raises:
            InvalidOrigin: ``origin`` is not ``scheme://host[:port]``.
        """
        origin = normalize_origin(origin)
        with self._lock:
            self.table.set_origin_off(origin, not enabled)
            return self._reload_locked()

    def _put(self, key: str, value: Any) -> bool:
        with self._lock:
            self.table.put(key, json.dumps(value))
            return self._reload_locked()

    # -- persistence --------------------------------------------------------------------

    def sync(self) -> bool:
        """Pick up a change another process (``tabmcp controls``) wrote; whether anything changed.

        Cheap when nothing did: one ``PRAGMA data_version``.
        """
        with self._lock:
            data_version = self.table.data_version()
            if data_version == self._data_version:
                return False
            return self._reload_locked()

    def _load(self) -> None:
        with self._lock:
            self._reload_locked()

    def _reload_locked(self) -> bool:
        self._data_version = self.table.data_version()
        values = {k: json.loads(v) for k, v in self.table.values().items()}
        paused = values.get("paused") is True
        writes = values.get("writes")
        writes = writes if isinstance(writes, bool) else None
        origins = self.table.origins_off()
        listed = (writes, origins) != (self.writes, self.origins_off)
        changed = listed or paused != self.paused
        self.paused, self.writes, self.origins_off = paused, writes, origins
        if listed:
            self.version += 1
        return changed

    def close(self) -> None:
        self.table.close()
