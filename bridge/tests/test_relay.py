"""Two clients that each launch ``tabmcp serve --stdio`` share one bridge; the second takes over."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from tabmcp.core.telemetry import TELEMETRY_TOOLS

from .conftest import eventually
from .helpers import ScriptedExtension, tab, tool


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def names(result: Any) -> list[str]:
    return [t.name for t in result.tools if t.name not in TELEMETRY_TOOLS]


async def connect_extension(port: int, label: str) -> ScriptedExtension:
    """Connect (retrying while the port has no bridge) and publish one tab with a `whoami` tool."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while True:
        ext = ScriptedExtension(port)
        try:
            welcome = await ext.connect()
            if welcome and welcome["type"] == "welcome":
                break
        except OSError:
            pass
        if loop.time() > deadline:
            raise AssertionError("no bridge to connect to")
        await asyncio.sleep(0.2)

    async def handler(msg: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0.05)
        text = f"{label}:{msg['arguments'].get('caller')}"
        return {"ok": True, "result": {"content": [{"type": "text", "text": text}]}}

    ext.handler = handler
    await ext.sync(tab(1, url="https://app.test/", tools=[tool("whoami", inputSchema={
        "type": "object", "properties": {"caller": {"type": "string"}}})]))
    return ext


@pytest.mark.slow
async def test_second_stdio_client_relays_then_takes_over(tmp_path: Path):
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text('[store]\npath = ":memory:"\n[policy]\nallow_writes = true\n'
                      '[server]\nreconnect_grace_s = 0.5\n[trust]\nframe_text = false\n')
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tabmcp.cli", "serve", "--stdio", "--port", str(port)],
        env={**os.environ, "TABMCP_CONFIG": str(config)},
    )
    async with held(Client(params)) as (first, quit_first), held(Client(params)) as (second, _):
        ext = await connect_extension(port, "before")

        # a tab's snapshot is read off the event loop (server/reader.py): listed once it is read in
        await listed_eventually(first, "whoami")
        await listed_eventually(second, "whoami")
        # Calls from the two clients run side by side and each gets its own answer.
        a, b = await asyncio.gather(
            first.call_tool("whoami", {"caller": "A"}), second.call_tool("whoami", {"caller": "B"})
        )
        assert a.content[0].text == "before:A" and b.content[0].text == "before:B"

        # The first client quits: its process (the bridge) exits; the relay takes over the port.
        await quit_first()
        await ext.close()
        ext = await connect_extension(port, "after")
        result = await eventually_call(second)
        assert result.content[0].text == "after:B"
        await ext.close()


@contextlib.asynccontextmanager
async def held(client: Client) -> Any:
    """Keep a client open in its own task (anyio scopes must be left by the task that entered
    them, in order), so one of two clients can quit while the other stays."""
    started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()

    async def hold() -> None:
        async with client:
            started.set_result(None)
            await stop.wait()

    task = asyncio.create_task(hold())

    async def quit_() -> None:
        stop.set()
        await asyncio.wait_for(task, 15)

    try:
        await asyncio.wait_for(asyncio.shield(started), 30)
        yield client, quit_
    finally:
        if not task.done():
            await quit_()


async def listed_eventually(client: Client, name: str) -> None:
    deadline = asyncio.get_running_loop().time() + 10
    while name not in names(await client.list_tools(cache_mode="bypass")):
        assert asyncio.get_running_loop().time() < deadline, f"{name} never listed"
        await asyncio.sleep(0.05)


async def eventually_call(client: Client) -> Any:
    async def attempt() -> Any:
        result = await client.call_tool("whoami", {"caller": "B"})
        return None if result.is_error else result

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while True:
        result = await attempt()
        if result is not None:
            return result
        if loop.time() > deadline:
            raise AssertionError("the relay never served the call after taking over")
        await asyncio.sleep(0.3)



@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("answer", ["accept", "decline"])
async def test_a_relayed_client_is_asked_for_approval_itself(tmp_path: Path, mode: str, answer: str):
    """Approval goes to the client behind the relay (elicitation), not to the browser."""
    import mcp_types as types
    from tabmcp.server.app import running_bridge

    from .conftest import make_config

    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text('[store]\npath = ":memory:"\n[policy]\nallow_writes = true\n')
    async with running_bridge(make_config(server={"port": port}, policy={"allow_writes": True})) as app:
        ext = ScriptedExtension(port)
        await ext.connect()
        calls: list[str] = []

        async def handler(msg: dict[str, Any]) -> dict[str, Any]:
            calls.append(msg["tool"])
            return {"ok": True, "result": {"content": [{"type": "text", "text": "deleted"}]}}

        ext.handler = handler
        await ext.sync(tab(1, url="https://shop.test/", tools=[
            tool("delete_customer", "Delete a customer.", annotations={"destructiveHint": True})]))
        await eventually(lambda: app.core.tool("delete_customer"))  # read by the bridge before the client asks
        asked: list[str] = []

        async def elicit(context: Any, params: Any) -> types.ElicitResult:
            asked.append(params.message)
            return types.ElicitResult(action=answer)

        params = StdioServerParameters(
            command=sys.executable, args=["-m", "tabmcp.cli", "serve", "--stdio", "--port", str(port)],
            env={**os.environ, "TABMCP_CONFIG": str(config)},
        )
        try:
            async with Client(params, mode=mode, elicitation_callback=elicit) as client:
                result = await client.call_tool("delete_customer", {})
        finally:
            await ext.close()
        assert len(asked) == 1 and "delete_customer" in asked[0] and "https://shop.test" in asked[0]
        if answer == "accept":
            assert not result.is_error and calls == ["delete_customer"]
        else:
            assert result.structured_content["error"]["code"] == "APPROVAL_DENIED" and calls == []
        approvals = app.mcp.get_request_handler("tools/call").handler.__self__.approvals
        assert approvals.asked["browser"] == 0  # nobody was asked on the page


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_call_in_flight_when_the_bridge_goes_ends_with_a_named_error(tmp_path: Path, mode: str):
    """The relay pipes the client to the bridge; when the bridge stops mid-call, the call ends
    with EXTENSION_DISCONNECTED (never hangs), and the relay carries on (it takes the port)."""
    from tabmcp.server.app import running_bridge

    from .conftest import make_config

    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text('[store]\npath = ":memory:"\n[policy]\nallow_writes = true\n')
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tabmcp.cli", "serve", "--stdio", "--port", str(port)],
        env={**os.environ, "TABMCP_CONFIG": str(config)},
    )
    started = asyncio.Event()
    async with running_bridge(make_config(server={"port": port})) as app:
        ext = ScriptedExtension(port)
        await ext.connect()

        async def never(msg: dict[str, Any]) -> dict[str, Any] | None:
            started.set()
            await asyncio.Event().wait()  # the page never answers
            return None

        ext.handler = never
        await ext.sync(tab(1, url="https://app.test/", tools=[tool("stuck")]))
        await eventually(lambda: app.core.tool("stuck"))  # read by the bridge before the client lists
        async with held(Client(params, mode=mode)) as (client, _):
            assert "stuck" in names(await client.list_tools(cache_mode="bypass"))
            call = asyncio.create_task(client.call_tool("stuck", {}))
            await asyncio.wait_for(started.wait(), 15)
            app.stop()  # the bridge goes away with the call in flight
            result = await asyncio.wait_for(call, 20)
            assert result.is_error
            assert result.structured_content["error"]["code"] == "EXTENSION_DISCONNECTED"
            # The relay took the port: a client call is answered (no tabs there yet), not hung.
            listed = await asyncio.wait_for(client.list_tools(cache_mode="bypass"), 20)
            assert "call_tool" in [t.name for t in listed.tools]
        await ext.close()


# -- the relay object against a real bridge: each request answered once, the handshake told once --

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "relay-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class ClientSide:
    """What the relay writes to its client's stdout, parsed, with a wait for answers."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._changed = asyncio.Event()

    async def write(self, line: bytes) -> None:
        self.messages.append(json.loads(line))
        self._changed.set()

    def answers(self, request_id: Any) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("id") == request_id and "method" not in m]

    async def answer(self, request_id: Any) -> dict[str, Any]:
        while True:
            self._changed.clear()
            if found := self.answers(request_id):
                return found[0]
            await asyncio.wait_for(self._changed.wait(), 15)


def counting(app: Any) -> list[str]:
    """Every method the bridge's MCP server receives (server middleware, outermost)."""
    seen: list[str] = []

    async def count(ctx: Any, call_next: Any) -> Any:
        seen.append(ctx.method)
        return await call_next(ctx)

    app.mcp.middleware.insert(0, count)
    return seen


async def send(relay: Any, message: dict[str, Any]) -> None:
    await relay._up(json.dumps(message).encode() + b"\n")


@contextlib.asynccontextmanager
async def relayed(closing: int = 0) -> Any:
    """A real bridge, and a relay object connected to it whose client has made its handshake."""
    from tabmcp.server.app import running_bridge
    from tabmcp.server.relay import Relay

    from .conftest import make_config

    class Closing(Relay):
        """The next ``closing`` connections it opens are closed before it uses them (the bridge
        went away between the WebSocket handshake and the replay)."""

        closing = 0

        async def _open(self) -> Any:
            upstream = await super()._open()
            if upstream is not None and self.closing:
                self.closing -= 1
                await upstream.close()
            return upstream

    port = free_port()
    config = make_config(server={"port": port})
    async with running_bridge(config) as app:
        seen = counting(app)
        relay = Closing(config)
        client = ClientSide()
        relay._out = client
        try:
            await send(relay, INITIALIZE)
            assert "result" in await client.answer(1)
            await send(relay, INITIALIZED)
            relay.closing = closing
            yield relay, client, seen
        finally:
            await relay._close_upstream()


async def lose_unnoticed(relay: Any) -> None:
    """The bridge closes the relay's connection before the relay has noticed (its reader is
    stopped first), so the next send raises ConnectionClosed."""
    relay._down.cancel()
    await asyncio.gather(relay._down, return_exceptions=True)
    await relay._upstream.close()


async def test_a_request_sent_again_after_a_lost_connection_is_answered_once():
    async with relayed() as (relay, client, seen):
        await lose_unnoticed(relay)
        await send(relay, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert "result" in await client.answer(2)
        # A later request's answer: whatever the relay wrote for id 2 is written by now.
        await send(relay, {"jsonrpc": "2.0", "id": 3, "method": "ping"})
        await client.answer(3)
        assert len(client.answers(2)) == 1, client.answers(2)
        assert seen.count("initialize") == 2  # the client's, and the replay on the new connection


async def test_a_connection_closed_during_the_handshake_replay_is_replaced():
    async with relayed(closing=1) as (relay, client, _seen):
        await lose_unnoticed(relay)
        await send(relay, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        answer = await client.answer(2)
        assert "result" in answer and "call_tool" in [t["name"] for t in answer["result"]["tools"]]
        assert relay.closing == 0  # the closed connection was opened, and replaced
        assert len(client.answers(2)) == 1


@pytest.mark.slow
async def test_the_bridge_sees_one_initialize_per_relayed_session(tmp_path: Path):
    from tabmcp.server.app import running_bridge

    from .conftest import make_config

    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text('[store]\npath = ":memory:"\n')
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tabmcp.cli", "serve", "--stdio", "--port", str(port)],
        env={**os.environ, "TABMCP_CONFIG": str(config)},
    )
    async with running_bridge(make_config(server={"port": port})) as app:
        seen = counting(app)
        for _ in range(2):  # two relayed sessions, one after the other
            async with Client(params, mode="legacy") as client:
                assert "call_tool" in [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
        assert seen.count("initialize") == 2, seen
        assert seen.count("tools/list") == 2
