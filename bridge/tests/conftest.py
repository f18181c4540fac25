from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from tabmcp.config import Config
from tabmcp.server.app import BridgeApp, running_bridge

from .helpers import ScriptedExtension


def make_config(**sections: dict[str, Any]) -> Config:
    base: dict[str, dict[str, Any]] = {
        "server": {"port": 0, "reconnect_grace_s": 0.2},
        "calls": {"timeout_s": 5},
        "policy": {"allow_writes": True},
        "store": {"path": ":memory:"},
        # Most tests compare result texts exactly; the trust framing is tested in test_trust_bridge.py.
        "trust": {"frame_text": False},
    }
    for key, values in sections.items():
        base.setdefault(key, {}).update(values)
    return Config().with_overrides(base)


@pytest.fixture
async def bridge() -> AsyncIterator[BridgeApp]:
    async with running_bridge(make_config()) as app:
        yield app


@pytest.fixture
async def extension(bridge: BridgeApp) -> AsyncIterator[ScriptedExtension]:
    assert bridge.port is not None
    ext = ScriptedExtension(bridge.port)
    welcome = await ext.connect()
    assert welcome is not None and welcome["type"] == "welcome"
    yield ext
    await ext.close()


async def eventually(check: Callable[[], Any], timeout: float = 5.0, interval: float = 0.02) -> Any:
    """Poll until ``check()`` is truthy; return its value (fail the test on timeout)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(interval)
