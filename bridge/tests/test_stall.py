"""A bridge process stopped and resumed (SIGSTOP/SIGCONT: a laptop's sleep, a stalled loop) answers
what its clients sent before or during the stall, over HTTP and stdio (issue 39).

The stall is longer than every timer that could end a connection meanwhile: the HTTP keep-alive
(``server.keep_alive_s``, shortened here so the stall can be short) and the extension link's idle
watchdog (75 s, shortened in-process in the last test). uvicorn's WebSocket pings are off and the
extension's heartbeat waits for no pong, so no other timer is involved.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

KEEP_ALIVE_S = 0.4
STALL_S = 1.0
PAUSES = (0.0, 0.1, 0.0, 0.1)
"""Each test stalls the bridge once per entry, this long after the last answer: the stop lands
while the bridge is still busy with it or once it is idle (the two can end differently)."""
"""Longer than the keep-alive: the kept-alive connection's timer is long due when the bridge resumes."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config.toml"
    config.write_text(f'[server]\nkeep_alive_s = {KEEP_ALIVE_S}\n[store]\npath = ":memory:"\n')
    return {**os.environ, "TABMCP_CONFIG": str(config)}


@contextlib.asynccontextmanager
async def stopped(pid: int, pause: float) -> AsyncIterator[None]:
    """The process is stopped for the block (and always resumed), ``pause`` after now."""
    await asyncio.sleep(pause)
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@contextlib.asynccontextmanager
async def http_bridge(tmp_path: Path) -> AsyncIterator[tuple[int, int]]:
    """``tabmcp serve`` in a process of its own: its pid and port, once it answers."""
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "tabmcp.cli", "serve", "--port", str(port)],
                               env=_config(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        async with httpx.AsyncClient() as http:
            for _ in range(300):
                try:
                    await http.get(f"http://127.0.0.1:{port}/health")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
        yield process.pid, port
    finally:
        os.kill(process.pid, signal.SIGCONT)
        process.terminate()
        process.wait(10)


async def test_a_request_sent_on_a_kept_alive_connection_during_a_stall_is_answered(tmp_path):
    async with http_bridge(tmp_path) as (pid, port), httpx.AsyncClient(timeout=30) as http:
        url = f"http://127.0.0.1:{port}/health"
        assert (await http.get(url)).status_code == 200  # the connection is now kept alive
        for pause in PAUSES:
            async with stopped(pid, pause):
                during = asyncio.create_task(http.get(url))  # sent on it, read by nobody yet
                await asyncio.sleep(STALL_S)
            assert (await during).status_code == 200


async def test_an_mcp_session_over_http_survives_a_stall(tmp_path):
    """The MCP requests themselves, on the connection the client keeps alive (as the SDK clients'
    HTTP pools do): a tools/call sent during the stall is answered after it, in the same session."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with http_bridge(tmp_path) as (pid, port), httpx.AsyncClient(timeout=30) as http:
        url = f"http://127.0.0.1:{port}/mcp"
        init = await http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        headers = {**headers, "Mcp-Session-Id": init.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-11-25"}
        await http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

        def call(request_id: int) -> dict[str, object]:
            return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                    "params": {"name": "search_tools", "arguments": {"query": "anything"}}}

        assert '"id":2' in (await http.post(url, headers=headers, json=call(2))).text
        for request_id, pause in enumerate(PAUSES, start=3):
            async with stopped(pid, pause):
                during = asyncio.create_task(http.post(url, headers=headers, json=call(request_id)))
                await asyncio.sleep(STALL_S)
            answer = await during
            assert answer.status_code == 200 and f'"id":{request_id}' in answer.text and '"result"' in answer.text


def _child_with(marker: str) -> int:
    """The pid of this process's child whose command line has ``marker`` (the SDK's stdio client
    starts the bridge and keeps its pid to itself)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and marker in cmdline:
            return int(entry.name)
    raise AssertionError(f"no child process with {marker!r}")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_mcp_session_over_stdio_survives_a_stall(tmp_path, mode):
    port = _free_port()
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "tabmcp.cli", "serve", "--stdio", "--port", str(port)],
                                   env=_config(tmp_path))
    async with Client(params, mode=mode) as client:
        before = await client.call_tool("search_tools", {"query": "anything"})
        pid = _child_with(f"--port {port}")
        async with stopped(pid, 0.0):
            during = asyncio.create_task(client.call_tool("search_tools", {"query": "anything"}))
            await asyncio.sleep(STALL_S)
        after = await asyncio.wait_for(during, 30)
    assert not before.is_error and not after.is_error


async def test_a_frame_that_came_during_a_stall_keeps_the_extension_link(monkeypatch):
    """The extension link's idle watchdog (75 s without a frame) after a stall longer than it: the
    heartbeat that came meanwhile is read before the link is judged idle (the timer and the read
    are due together on resume, and the timer may run first)."""
    import time

    from tabmcp.server import extension

    monkeypatch.setattr(extension, "IDLE_TIMEOUT_S", 0.2)
    monkeypatch.setattr(extension, "SECOND_LOOK_S", 0.05)
    ours, peer = socket.socketpair()
    ours.setblocking(False)
    loop = asyncio.get_running_loop()

    async def link() -> tuple[bool, bytes]:
        watchdog = extension._IdleWatchdog()
        data = b""
        with watchdog.receiving():
            data = await loop.sock_recv(ours, 16)
        watchdog.stop()
        return watchdog.idle, data

    task = asyncio.create_task(link())
    await asyncio.sleep(0.05)  # the link waits for a frame

    def stall() -> None:
        peer.send(b"ping")  # the extension's heartbeat arrives while the loop is stalled
        time.sleep(0.5)  # longer than the idle timeout

    loop.call_soon(stall)
    try:
        assert await task == (False, b"ping")
    finally:
        ours.close()
        peer.close()
