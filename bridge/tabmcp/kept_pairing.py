"""The pairing ``tabmcp browser`` keeps for its profile: a stored pairing, made as ``tabmcp pair``
makes one, so the person sees it in ``tabmcp pair --list`` and revokes it with ``--forget``.

Made through the running bridge's control API, else straight in its SQLite table. A pairing the
person forgot is never brought back behind their back: starting ``tabmcp browser`` again makes a new one.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .control_key import ControlClient, port_listening
from .core.pairing import LAUNCHER_PREFIX, Pairings, secret_matches
from .errors import ControlError

__all__ = ["KeptPairing", "browser_label", "keep_pairing"]


@dataclass(frozen=True)
class KeptPairing:
    id: str
    secret: str
    label: str
    reused: bool
    """The extension already held it and the bridge still knows it (False: made now)."""

    def credential(self) -> dict[str, str]:
        """What the extension keeps under the bridge's URL and presents in its ``hello``."""
        return {"id": self.id, "secret": self.secret}


def browser_label(profile: Path) -> str:
    """``tabmcp browser (profile ~/.local/state/tabmcp/browser-profile)``: what ``pair --list`` shows."""
    where = str(profile)
    home = str(Path.home())
    if where == home or where.startswith(home.rstrip("/") + "/"):
        where = "~" + where[len(home):]
    return f"tabmcp browser (profile {where})"


def _held(held: Any) -> tuple[str, str] | None:
    """The stored pairing the extension presents (id, secret); None for nothing, junk, or a
    launcher's pairing (older versions of ``tabmcp browser`` wrote one: it is replaced)."""
    if not isinstance(held, dict):
        return None
    pid, secret = held.get("id"), held.get("secret")
    if not (isinstance(pid, str) and isinstance(secret, str)) or not pid or pid.startswith(LAUNCHER_PREFIX):
        return None
    return pid, secret


async def keep_pairing(held: Any, *, label: str, port: int, store_path: str | Path | None = None) -> KeptPairing:
    """The pairing the extension in the kept profile should hold for the bridge on ``port``:
    ``held`` (what it holds now) when that bridge still knows it, else a new stored one.

    Args:
        held: the extension's pairing for the bridge's URL (``chrome.storage.local``), or None.
        store_path: the bridge's SQLite file (the config's ``store.path``; None: the default),
            used only when no bridge of this user answers on ``port``.
    """
    control = ControlClient(port)
    try:
        listed = await control.pairings()
    except ControlError:
        if await asyncio.to_thread(port_listening, port):
            raise  # something holds the port and is not this user's bridge: no pairing for it
        # No bridge yet: the table the next one reads when it starts.
        return await asyncio.to_thread(_keep_in_store, held, label, store_path)
    rows = {str(p.get("id")): p for p in listed.get("pairings") or [] if isinstance(p, dict) and not p.get("ephemeral")}
    kept = _held(held)
    if kept is not None and kept[0] in rows:
        return KeptPairing(kept[0], kept[1], str(rows[kept[0]].get("label") or label), reused=True)
    pairing_id, secret = await control.create_pairing(label, ephemeral=False)
    return KeptPairing(pairing_id, secret, label, reused=False)


def _keep_in_store(held: Any, label: str, store_path: str | Path | None) -> KeptPairing:
    from .storage.database import SqlitePairings

    store = SqlitePairings(store_path)
    try:
        kept = _held(held)
        known = store.get(kept[0]) if kept is not None else None
        if kept is not None and known is not None and secret_matches(kept[1], known.secret_hash):
            return KeptPairing(kept[0], kept[1], known.label, reused=True)
        pairing, secret = Pairings(store).create(label)
        return KeptPairing(pairing.id, secret, pairing.label, reused=False)
    finally:
        store.close()
