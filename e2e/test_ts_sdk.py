"""The official TypeScript MCP SDK's client, beside the Python one: over Streamable HTTP and over
stdio, it lists a real page's tools, calls one, and hears ``tools/list_changed`` when the page
registers another.

The TypeScript SDK is what Claude Code, Cursor and VS Code build on; e2e/ts_sdk_client.mjs drives
it and reports each step as a JSON line. Over stdio the client starts ``tabmcp serve --stdio`` as a
person's client config does, and the session's Chromium is pointed at that bridge for the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tabmcp.testing import missing_from_setup

from .conftest import Env, eventually

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "node_modules" / "node" / "bin" / "node"
SDK = ROOT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
SCRIPT = Path(__file__).with_name("ts_sdk_client.mjs")
TOOL = "test_simple_text"  # e2e/pages/conformance.html
TEXT = "This is a simple text response for testing."
ADD = ("document.modelContext.registerTool({name: 'ts_sdk_added', description: 'Added while the client listens.',"
       " inputSchema: {type: 'object', properties: {}}, execute: () => 'added'})")


class Steps:
    """The script's JSON lines, read one at a time."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def next(self, event: str) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        if not line:
            err = await self.proc.stderr.read() if self.proc.stderr else b""
            raise AssertionError(f"the TypeScript client ended before {event!r}: {err.decode()[-3000:]}")
        step: dict[str, Any] = json.loads(line)
        assert step["event"] == event, step
        return step


@contextlib.asynccontextmanager
async def ts_client(*args: str) -> AsyncIterator[Steps]:
    if not NODE.exists() or not SDK.exists():
        missing_from_setup("npm packages node@22 and @modelcontextprotocol/sdk (./dev setup installs them)")
    proc = await asyncio.create_subprocess_exec(
        str(NODE), str(SCRIPT), *args, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield Steps(proc)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def drive(steps: Steps, env: Env, page_url: str) -> None:
    """The steps both transports go through; the page is open in the bridge's browser."""
    assert (await steps.next("connected"))["server"]["name"]
    assert TOOL in (await steps.next("tools"))["names"]
    result = (await steps.next("call"))["result"]
    assert result.get("isError") is not True, result
    assert [part["text"] for part in result["content"]] == [TEXT]
    await steps.next("listening")
    page = next(p for p in env.browser.context.pages if p.url == page_url)
    await page.evaluate(ADD)
    assert "ts_sdk_added" in (await steps.next("list_changed"))["names"]


async def test_ts_sdk_over_http(env: Env) -> None:
    if env.flavour != "polyfill":
        pytest.skip("one flavour is enough: this tests the client side")
    page = await env.open("conformance.html", wait_for_tool=TOOL)
    try:
        async with ts_client("http", env.mcp_url, TOOL) as steps:
            await drive(steps, env, page.url)
    finally:
        await page.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_ts_sdk_over_stdio(env: Env, tmp_path: Path) -> None:
    if env.flavour != "polyfill":
        pytest.skip("one flavour is enough: this tests the client side")
    port = _free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[server]\nport = {port}\nreconnect_grace_s = 1.0\n[calls]\ntimeout_s = 10\n'
        f'[store]\npath = "{tmp_path / "tabmcp.db"}"\n[trust]\nframe_text = false\npin_definitions = false\n'
    )
    bridge = [sys.executable, "-m", "tabmcp.cli", "serve", "--stdio", "--config", str(config)]
    async with ts_client("stdio", TOOL, *bridge) as steps:
        async def up() -> bool:
            try:
                async with httpx.AsyncClient(timeout=2) as http:
                    return (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200
            except httpx.HTTPError:
                return False

        await eventually(up, timeout=30, interval=0.1)
        await env.browser.set_bridge_url(f"ws://127.0.0.1:{port}/extension")
        page = await env.browser.context.new_page()
        try:
            await page.goto(env.pages_url + "conformance.html")
            await drive(steps, env, page.url)
        finally:
            await page.close()
            await env.browser.set_bridge_url(f"ws://127.0.0.1:{env.bridge.port}/extension")
            assert await env.bridge.core.wait_connected(10)
