"""Test helpers: a scripted extension peer speaking the real wire protocol over a real WebSocket.

Bridge-level tests use it where a browser would only slow things down; the e2e suite drives
the real extension in Chromium.
"""

from __future__ import annotations

import asyncio
import filecmp
import json
import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import websockets
from hypothesis import HealthCheck, settings
from tabmcp.control_key import ControlClient
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import PROTOCOL_VERSION
from tabmcp.testing import missing_from_setup

ORIGIN = f"chrome-extension://{EXTENSION_ID}"


def tool(name: str, description: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description or f"The {name} tool.",
        "inputSchema": extra.pop("inputSchema", {"type": "object", "properties": {}}),
        **extra,
    }


def tab(tab_id: int, *, url: str = "", tools: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "tabId": tab_id,
        "url": url or f"http://site{tab_id}.test/",
        "title": f"Site {tab_id}",
        "documentId": extra.pop("documentId", f"doc-{tab_id}"),
        "tools": tools or [],
        "categories": extra.pop("categories", []),
        "states": extra.pop("states", []),
        **extra,
    }


Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


class ScriptedExtension:
    """Connects like the extension, answers call.start with a handler you supply."""

    def __init__(
        self, port: int, *, origin: str = ORIGIN, token: str | None = None, paired: bool = True,
        pairing: dict[str, str] | None = None, profile: str | None = "scripted-profile",
        browser: str | None = None,
    ) -> None:
        """``paired``: ask the bridge for a pairing over its control API first (as the launcher
        does for the real extension) and present it in ``hello``; ``pairing``: present this one.
        ``profile``: the ``profileId`` the hello carries (scripted extensions are one browser
        unless given another; ``None``: none); ``browser``: its ``browserName``."""
        self.port = port
        self.url = f"ws://127.0.0.1:{port}/extension"
        self.origin = origin
        self.token = token
        self.paired = paired
        self.pairing = pairing
        self.profile = profile
        self.browser = browser
        self.ws: Any = None
        self.received: list[dict[str, Any]] = []
        self.handler: Handler | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiters: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[dict[str, Any]]]] = []
        self.cancelled: list[str] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.frames: list[int] = []
        """How many messages each frame from the bridge held (more than one only with ``batch``)."""

    async def connect(
        self, *, hello: bool = True, protocol: int = PROTOCOL_VERSION, batch: bool = False,
        fields: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        self.ws = await websockets.connect(self.url, origin=self.origin, max_size=None)  # type: ignore[arg-type]
        self._reader = asyncio.create_task(self._read())
        if not hello:
            return None
        return await self.hello(protocol=protocol, batch=batch, fields=fields)

    async def hello(
        self, *, protocol: int = PROTOCOL_VERSION, batch: bool = False, fields: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Say hello (with the pairing, if any, and ``fields``); the bridge's answer (``welcome``,
        ``pair.required``, ``error``)."""
        if self.paired and self.pairing is None:
            pairing_id, secret = await ControlClient(self.port).create_pairing("scripted extension")
            self.pairing = {"id": pairing_id, "secret": secret}
        await self.send(
            {"type": "hello", "protocol": protocol, "extensionVersion": "test", "extensionId": EXTENSION_ID,
             "instanceId": "test", **({"token": self.token} if self.token else {}),
             **({"pairing": self.pairing} if self.pairing else {}),
             **({"profileId": self.profile} if self.profile else {}),
             **({"browserName": self.browser} if self.browser else {}),
             **({"batch": True} if batch else {}), **(fields or {})}
        )
        return await self.wait_for(lambda m: m["type"] in ("welcome", "error", "pair.required"))

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                lines = frame.split("\n")  # one message a line, as the bridge batches (JSON holds no newline)
                self.frames.append(len(lines))
                for line in lines:
                    await self._on_message(json.loads(line))
        except websockets.ConnectionClosed:
            pass

    async def _on_message(self, msg: dict[str, Any]) -> None:
        self.received.append(msg)
        for pred, fut in list(self._waiters):
            if not fut.done() and pred(msg):
                fut.set_result(msg)
        if msg["type"] == "call.start":
            task = asyncio.create_task(self._answer(msg))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif msg["type"] == "call.cancel":
            self.cancelled.append(msg["callId"])
        elif msg["type"] == "ping":
            await self.send({"type": "pong", "ts": msg.get("ts")})

    async def _answer(self, msg: dict[str, Any]) -> None:
        if self.handler is None:
            return
        reply = await self.handler(msg)
        if reply is not None:
            await self.send({"type": "call.result", "callId": msg["callId"], **reply})

    async def send(self, msg: dict[str, Any] | str) -> None:
        await self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    async def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 5) -> dict[str, Any]:
        for msg in self.received:
            if pred(msg):
                self.received.remove(msg)
                return msg
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((pred, fut))
        try:
            msg = await asyncio.wait_for(fut, timeout)
            if msg in self.received:
                self.received.remove(msg)
            return msg
        finally:
            self._waiters.remove((pred, fut))

    async def sync(self, *tabs: dict[str, Any]) -> None:
        await self.send({"type": "tabs.sync", "tabs": list(tabs)})

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)


def changed_files(left: Path, right: Path) -> set[str]:
    """The files (relative paths) that differ, or exist on one side only, between two trees: what a
    recipe test's scratch copy changed by hand or by its generator."""
    found: set[str] = set()

    def walk(cmp: filecmp.dircmp[str], where: Path) -> None:
        found.update(str(where / n) for n in (*cmp.diff_files, *cmp.left_only, *cmp.right_only))
        for name, sub in cmp.subdirs.items():
            walk(sub, where / name)

    walk(filecmp.dircmp(left, right, ignore=["__pycache__", "_model"]), Path())
    return found


FUZZ_DEEP = os.environ.get("TABMCP_FUZZ") == "deep"
"""``TABMCP_FUZZ=deep`` (``./dev fuzz``): 20 times the examples, random instead of derandomized."""


def fuzz(examples: int, **overrides: Any) -> settings:
    """Hypothesis settings for one property of the fuzz tests: derandomized in the suite, no example
    database, no deadline (a loaded machine is slow, not wrong)."""
    return settings(
        max_examples=examples * (20 if FUZZ_DEEP else 1),
        derandomize=not FUZZ_DEEP,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                               HealthCheck.large_base_example, HealthCheck.function_scoped_fixture],
        **overrides,
    )


def node_scenario(script: Path, name: str, what: str) -> Any:
    """Runs scenario ``name`` of a node script that loads the extension's own modules (``what``
    says which, for the skip message) and returns the JSON it prints."""
    node = shutil.which("node")
    if node is None:
        missing_from_setup(f"node is not installed: cannot run {what}")
    done = subprocess.run([node, str(script), name], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
