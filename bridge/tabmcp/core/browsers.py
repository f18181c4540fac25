"""Several browsers through one bridge: who each link is, and tab ids that never collide.

Each browser numbers its tabs from 1, so the bridge adds ``slot * TAB_STRIDE`` to the ids of the
browser in slot ``n`` (slot 0 keeps its own); wire ids stay below the stride, so ranges never meet.
A link is the same browser by its ``profileId``, else its pairing (docs/architecture.md). No I/O.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ..errors import MalformedMessage
from ..protocol import (
    MAX_TAB_ID,
    Hello,
    PanelQuery,
    SiteStatus,
    TabClosedMessage,
    TabsSync,
    TabUpdate,
    Telemetry,
)

__all__ = [
    "BROWSER_NAMES",
    "OTHER_BROWSER",
    "TAB_STRIDE",
    "BrowserSlots",
    "browser_key",
    "browser_name",
    "inbound",
    "qualify",
    "slot_of",
    "wire_tab_id",
]

TAB_STRIDE = 10**10
"""Slot ``n``'s tabs are ``n * TAB_STRIDE + <the browser's id>`` (above ``MAX_TAB_ID``, in decimal
so a person reading ``t10000000007.x`` can tell browser 1's tab 7)."""

assert MAX_TAB_ID < TAB_STRIDE

BROWSER_NAMES = ("chromium", "firefox")
"""What ``_meta["tabmcp/source"]["browser"]`` can say (the hello's ``browserName``, checked)."""


def qualify(slot: int, tab_id: int) -> int:
    """The bridge's id of the browser at ``slot``'s tab ``tab_id``."""
    return tab_id if slot == 0 else slot * TAB_STRIDE + tab_id


def slot_of(tab_id: int) -> int:
    """The slot of the browser that owns a (qualified) tab id; ``-1`` for a closed site's stand-in
    (negative ids: no browser holds them)."""
    return tab_id // TAB_STRIDE if tab_id >= 0 else -1


def wire_tab_id(tab_id: int) -> int:
    """What the owning browser calls a (qualified) tab id."""
    return tab_id % TAB_STRIDE if tab_id >= 0 else tab_id


def browser_key(hello: Hello, pairing_id: str | None) -> Hashable:
    """Which links are one browser (a newer link replaces the older): the profile id the
    extension keeps, else the pairing it presented, else (the pre-shared token, tests of the
    session alone) one anonymous browser."""
    if hello.profile_id:
        return ("profile", hello.profile_id)
    return ("pairing", pairing_id) if pairing_id else None


def browser_name(hello: Hello) -> str | None:
    """``chromium`` or ``firefox``, as the hello says (anything else: not known)."""
    return hello.browser_name if hello.browser_name in BROWSER_NAMES else None


OTHER_BROWSER = "another browser"
"""What the person is told of a tab whose browser did not link during this run (an older row)."""


class BrowserSlots:
    """Slot numbers for the browsers seen during a bridge run, in order; a browser that comes back
    keeps its slot (and its tabs their ids), and :meth:`labels` names a slot's browser after it left."""

    def __init__(self) -> None:
        self._slots: dict[Hashable, int] = {}
        self._names: dict[int, tuple[str, str]] = {}

    def slot(self, key: Hashable) -> int:
        return self._slots.setdefault(key, len(self._slots))

    def name(self, slot: int, browser: str, profile: str) -> None:
        """What the hello of the browser at ``slot`` said it is (``""``: not said)."""
        self._names[slot] = (browser, profile)

    def labels(self) -> dict[int, str]:
        """Each slot's name for the person: its browser (``Firefox``), with its profile when
        another slot is the same browser (``Chromium 1a2b3c4d``), else ``browser 2``."""
        browsers = [b for b, _ in self._names.values()]
        out: dict[int, str] = {}
        for slot, (browser, profile) in self._names.items():
            if not browser:
                out[slot] = f"browser {slot + 1}"
            elif browsers.count(browser) == 1:
                out[slot] = browser.capitalize()
            else:
                out[slot] = f"{browser.capitalize()} {profile or slot + 1}"
        return out


def _tab(slot: int, tab_id: int) -> int:
    if not 0 <= tab_id <= MAX_TAB_ID:
        raise MalformedMessage(f"tab id {tab_id} is out of range (0..{MAX_TAB_ID})")
    return qualify(slot, tab_id)


def inbound(message: Any, slot: int) -> Any:
    """``message`` from the browser at ``slot`` with its tab ids qualified (slot 0: unchanged).

    Raises:
        MalformedMessage: a tab id outside what a browser can send.
    """
    if slot == 0:
        return message
    if isinstance(message, TabsSync):
        return message.model_copy(
            update={"tabs": [t.model_copy(update={"tab_id": _tab(slot, t.tab_id)}) for t in message.tabs],
                    "kept": [r.model_copy(update={"tab_id": _tab(slot, r.tab_id)}) for r in message.kept]}
        )
    if isinstance(message, TabUpdate):
        return message.model_copy(
            update={"tab": message.tab.model_copy(update={"tab_id": _tab(slot, message.tab.tab_id)})}
        )
    if isinstance(message, TabClosedMessage | Telemetry):
        return message.model_copy(update={"tab_id": _tab(slot, message.tab_id)})
    if isinstance(message, SiteStatus) and message.tab_id is not None:
        return message.model_copy(update={"tab_id": _tab(slot, message.tab_id)})
    if isinstance(message, PanelQuery):
        return message.model_copy(
            update={
                "tab_id": _tab(slot, message.tab_id) if message.tab_id is not None else None,
                "expanded": [_tab(slot, t) for t in message.expanded],
            }
        )
    return message
