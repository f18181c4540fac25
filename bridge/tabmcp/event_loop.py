"""The event loop every command runs on (one place, so the CLI's modules need not import each other)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_loop"]

T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run the command on uvloop where it is installed (a dependency except on Windows), else on
    asyncio's own loop. Measured with a call loop through the bridge: about a fifth less time and
    CPU per call (the event loop's own work is a good part of a call's cost in the bridge).

    Where ``sniffio`` is installed (another package's dependency), anyio asks it which library
    runs on every stream, event and task group operation, and it answers by looking up the running
    task each time; this thread is said to run asyncio once instead (``sniffio.thread_local``, what
    Trio sets for itself): about a tenth of the MCP SDK's CPU per request (its dispatch is anyio)."""
    try:
        import sniffio
    except ImportError:
        sniffio = None  # type: ignore[assignment]
    said = sniffio.thread_local.name if sniffio is not None else None
    if sniffio is not None:
        sniffio.thread_local.name = "asyncio"
    try:
        try:
            import uvloop
        except ImportError:
            return asyncio.run(main)
        return uvloop.run(main)
    finally:
        if sniffio is not None:
            sniffio.thread_local.name = said
