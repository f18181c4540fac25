"""Helpers for tests that drive tabmcp through an MCP client (ours, and yours).

Notifications are coalesced and some come from things a test did not do, so :class:`ListChanges`
waits for the state the test caused: a listing that shows it, then a notification at least that
listing's revision.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any, NoReturn

import mcp_types as types

from .core.disclosure import META_EXPANDED, META_REVISION, read_category_marker

__all__ = ["ListChanges", "category_size", "in_ci", "listed", "listing_revision", "missing_from_setup", "unlisted"]


def in_ci() -> bool:
    """``CI`` is set to a true value (``true``, ``1``, ``yes``), as CI services set it."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def missing_from_setup(what: str, *, opted_out: str | None = None) -> NoReturn:
    """A test cannot run because something ``./dev setup`` installs is missing: skip it on a
    developer's machine, but fail it under ``CI=true``, where a skip would hide a broken setup.

    ``opted_out`` names the variable with which the person told setup to leave the part out
    (``TABMCP_NO_SEMANTIC=1``): then it skips even in CI. ``bridge/tests/test_ci_skips.py``
    checks every such skip goes through here.
    """
    import pytest

    if in_ci() and not (opted_out and os.environ.get(opted_out) == "1"):
        pytest.fail(f"{what} (CI=true: ./dev setup must install it; a skip would hide a broken setup)",
                    pytrace=False)
    pytest.skip(what)


def listing_revision(result: types.ListToolsResult) -> int:
    """The bridge revision a tools/list result reflects."""
    meta = result.meta or {}
    value = meta.get(META_REVISION)
    if not isinstance(value, int):
        raise AssertionError(f"tools/list carries no {META_REVISION}: {meta!r}")
    return value


class ListChanges:
    """A ``message_handler`` for :class:`mcp.Client` that records list-changed notifications.

    Use it on handshake-era (``mode="legacy"``) clients, which receive
    ``notifications/tools/list_changed`` directly.
    """

    def __init__(self) -> None:
        self.revisions: list[int] = []
        self.expanded: list[str] = []
        self._arrived = asyncio.Event()

    async def __call__(self, message: Any) -> None:
        if not isinstance(message, types.ToolListChangedNotification):
            return
        meta = (message.params.meta if message.params else None) or {}
        revision = meta.get(META_REVISION)
        self.revisions.append(revision if isinstance(revision, int) else -1)
        expanded = meta.get(META_EXPANDED)
        if isinstance(expanded, str):
            self.expanded.append(expanded)
        self._arrived.set()

    async def notified_since(self, revision: int, timeout: float = 10.0) -> int:
        """Wait for a notification reporting ``revision`` or newer; return its revision."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            newer = [r for r in self.revisions if r >= revision]
            if newer:
                return newer[0]
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"no tools/list_changed with revision >= {revision} within {timeout}s (got {self.revisions})"
                )
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except TimeoutError:
                pass

    async def until_listed(
        self,
        client: Any,
        condition: Callable[[types.ListToolsResult], bool],
        timeout: float = 10.0,
        interval: float = 0.05,
    ) -> types.ListToolsResult:
        """Poll tools/list (bypassing the client's cache) until ``condition(result)`` holds, then
        wait for the notification that reports that listing or a newer one; returns the listing.

        A listing may carry a newer revision than any notification (a change it does not show),
        so a notification newer than the last poll before the change counts."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        before: int | None = None
        while True:
            result = await client.list_tools(cache_mode="bypass")
            if condition(result):
                since = listing_revision(result) if before is None else min(before + 1, listing_revision(result))
                await self.notified_since(since, max(0.1, deadline - loop.time()))
                return result  # type: ignore[no-any-return]
            before = listing_revision(result)
            if loop.time() > deadline:
                names = [t.name for t in result.tools]
                raise AssertionError(f"tools/list never met the condition within {timeout}s: {names}")
            await asyncio.sleep(interval)


def listed(name: str) -> Callable[[types.ListToolsResult], bool]:
    """Condition for :meth:`ListChanges.until_listed`: ``name`` is in the listing."""
    return lambda result: any(t.name == name for t in result.tools)


def unlisted(name: str) -> Callable[[types.ListToolsResult], bool]:
    """Condition for :meth:`ListChanges.until_listed`: ``name`` is not in the listing."""
    return lambda result: all(t.name != name for t in result.tools)


def category_size(result: types.ListToolsResult, category: str) -> int | None:
    """How many tools a listed category announces (the count in its description's bracket), or
    ``None`` if ``category`` is not listed as one. Its member names come from calling it."""
    for tool in result.tools:
        if tool.name == category:
            marker = read_category_marker(tool.description or "")
            return marker[1] if marker else None
    return None
