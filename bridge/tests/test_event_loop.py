"""The event loop every command runs on (tabmcp/event_loop.py)."""

from __future__ import annotations

import sniffio
from tabmcp.event_loop import run_loop


def test_the_loop_thread_tells_sniffio_it_runs_asyncio_and_forgets_it_after():
    """anyio asks sniffio on every operation of the MCP SDK's dispatch: told once per thread,
    sniffio answers without looking up the running task (bench: about a tenth of a request's CPU)."""

    async def asked() -> tuple[str | None, str]:
        return sniffio.thread_local.name, sniffio.current_async_library()

    assert run_loop(asked()) == ("asyncio", "asyncio")
    assert sniffio.thread_local.name is None
