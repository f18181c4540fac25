"""Debug mode's hop timestamps (``TABMCP_TRACE=1``): where a tools/call spends its time.

Each hop of the call adds its stamp (docs/architecture.md, "Where a call spends its time"); off by
default, when the call path pays one check.
"""

from __future__ import annotations

import contextvars
import os
import time

__all__ = ["ARRIVED", "TRACE", "stamp", "trace_enabled"]

TRACE: contextvars.ContextVar[list[tuple[str, float]] | None] = contextvars.ContextVar("tabmcp.trace", default=None)
"""The stamps of the tools/call being handled, in debug mode (``TABMCP_TRACE=1``): the MCP layer
starts the list, :meth:`tabmcp.wiring.BridgeCore.call_tool` sends it with ``call.start``, each hop of the extension adds
its own, and the list that comes back with ``call.result`` replaces it, plus the bridge's own."""


ARRIVED: contextvars.ContextVar[float | None] = contextvars.ContextVar("tabmcp.arrived", default=None)
"""Debug mode: when the request being handled reached the bridge's transport (epoch ms), set by
the stdio reader and the HTTP app before the MCP SDK sees the request."""


def trace_enabled() -> bool:
    """Debug mode: carry hop timestamps on every tools/call (off by default)."""
    return os.environ.get("TABMCP_TRACE", "") not in ("", "0")


def stamp(name: str) -> None:
    """Add ``(name, epoch ms)`` to the current call's trace, if it has one."""
    trace = TRACE.get()
    if trace is not None:
        trace.append((name, time.time_ns() / 1e6))
