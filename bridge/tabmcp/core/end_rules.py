"""The rules that end a pending request before its answer: one table for the bridge and the worker.

Both sides end pending requests by the same rules, so this is their one source (each rule's name,
error code, and which side applies it); ``python -m tabmcp.protocol_js`` writes it for the worker.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from ..errors import ErrorCode

__all__ = ["END_RULES", "EndRule", "EndRuleSpec"]


class EndRule(enum.Enum):
    """A rule that ends a pending request; the value is its name in the worker."""

    TIMEOUT = "timeout"
    CANCELLED = "cancel"
    TAB_CLOSED = "tabClosed"
    TAB_NAVIGATED = "navigated"
    DISCONNECTED = "bridgeGone"
    REPLACED = "replaced"
    LEFT_ORIGIN = "leftOrigin"


Side = Literal["bridge", "worker"]


@dataclass(frozen=True, slots=True)
class EndRuleSpec:
    code: ErrorCode
    """What the request ends with."""
    reported: bool
    """The worker tells the bridge how the request ended (not when the bridge ended it itself,
    nor when the link is gone)."""
    sides: frozenset[Side]
    """Who applies it: the bridge's session, the worker's table, or both."""
    doc: str


_BOTH: frozenset[Side] = frozenset({"bridge", "worker"})

END_RULES: dict[EndRule, EndRuleSpec] = {
    EndRule.TIMEOUT: EndRuleSpec(ErrorCode.TIMEOUT, True, _BOTH, "its deadline passed"),
    EndRule.CANCELLED: EndRuleSpec(ErrorCode.CANCELLED, False, _BOTH,
                                   "the asker gave up (the MCP client; for the worker, the bridge's call.cancel or "
                                   "approval.withdraw)"),
    EndRule.TAB_CLOSED: EndRuleSpec(ErrorCode.TAB_CLOSED, True, _BOTH, "its tab closed"),
    EndRule.TAB_NAVIGATED: EndRuleSpec(ErrorCode.TAB_NAVIGATED, True, _BOTH,
                                       "its page or frame unloaded or was replaced by another document"),
    EndRule.DISCONNECTED: EndRuleSpec(ErrorCode.EXTENSION_DISCONNECTED, False, _BOTH,
                                      "the link between the bridge and the extension dropped"),
    EndRule.REPLACED: EndRuleSpec(ErrorCode.EXTENSION_DISCONNECTED, False, frozenset({"bridge"}),
                                  "the extension connected again, replacing the link the request was made on"),
    EndRule.LEFT_ORIGIN: EndRuleSpec(ErrorCode.SITE_REDIRECTED, True, frozenset({"worker"}),
                                     "its tab is an agent tab that left the origin it was opened for (closed)"),
}
"""Every rule, in the order the worker lists them."""
