"""What a benchmark reads of a bridge running in its own process (``running_bridge``): one rule
each, for every benchmark that waits on it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection

from tabmcp.wiring import BridgeCore

__all__ = ["settled", "until_settled"]


def settled(core: BridgeCore, url: str, names: Collection[str]) -> bool:
    """Every tool of ``names`` is in the registry's tab at ``url``, or refused by the bridge (with
    a reason): the bridge is done with what the page registered."""
    for tab in core.registry.tabs.values():
        if tab.url == url:
            done = set(tab.tools) | {r.name for r in tab.rejected if r.kind == "tool"}
            return set(names) <= done
    return False


async def until_settled(core: BridgeCore, url: str, names: Collection[str], *, timeout_s: float,
                        poll_s: float = 0.1) -> None:
    """Wait until :func:`settled` (checked every ``poll_s``: the granularity of a time measured
    to it).

    Raises:
        RuntimeError: not within ``timeout_s``.
    """
    deadline = time.monotonic() + timeout_s
    while not settled(core, url, names):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the bridge did not take or refuse all {len(names)} tools in {timeout_s:.0f} s")
        await asyncio.sleep(poll_s)
