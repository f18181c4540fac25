"""Bad input over real sockets (issue 5): the bridge answers it with a named error or closes
that one connection, and keeps serving everyone else.

A real bridge (the ``bridge`` fixture or :func:`running_bridge`), a scripted extension on the
WebSocket, the official MCP client on ``/mcp``. "Everyone else" means the MCP clients and
the extension connection that is (or becomes) current: only one extension link is active at a
time, so a misbehaving socket is either a stranger that never said hello, or the current
extension, which is then replaced by a reconnecting one.

Tests whose docstring says "used to" pin bugs found while writing this file, since fixed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import tabmcp.server.extension as extension_module
import websockets
from mcp import Client
from tabmcp.control_key import control_headers
from tabmcp.protocol import MAX_FRAME_BYTES
from tabmcp.server.app import BridgeApp, running_bridge

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

FRAME_ERROR_CODES = {
    "MALFORMED_MESSAGE",
    "UNKNOWN_TYPE",
    "NOT_READY",
    "PROTOCOL_MISMATCH",
    "UNAUTHORIZED",
    "INVALID_TOOL",
    "FLOODED",
}
"""docs/protocol.md's frame errors, plus FLOODED (extension.py; not yet in the docs)."""

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def mcp_url(app: BridgeApp) -> str:
    return f"http://127.0.0.1:{app.port}/mcp"


def echo_handler():
    async def handler(msg: dict[str, Any]) -> dict[str, Any]:
        text = f"{msg['tabId']}:{msg['tool']}:{json.dumps(msg['arguments'], sort_keys=True)}"
        return {"ok": True, "result": {"content": [{"type": "text", "text": text}]}}

    return handler


async def health(app: BridgeApp) -> dict[str, Any]:
    async with httpx.AsyncClient(headers=control_headers()) as http:  # the full status wants the control key
        response = await http.get(f"http://127.0.0.1:{app.port}/health", timeout=5)
    assert response.status_code == 200
    return response.json()


async def send_raw(ext: ScriptedExtension, frame: str | bytes) -> None:
    """Send a frame as is: ``str`` as a text frame, ``bytes`` as a binary frame."""
    await ext.ws.send(frame)


_pings = iter(range(1, 1_000_000))


async def assert_alive(ext: ScriptedExtension) -> None:
    """The connection is open and the bridge still reads it: a ping gets its pong."""
    ts = float(next(_pings))
    await ext.send({"type": "ping", "ts": ts})
    await ext.wait_for(lambda m: m["type"] == "pong" and m.get("ts") == ts)
    assert ext.ws.close_code is None


async def error_or_close(ext: ScriptedExtension, timeout: float = 5) -> dict[str, Any] | None:
    """The next ``error`` frame, or ``None`` if the bridge closed the socket first."""
    error = asyncio.ensure_future(ext.wait_for(lambda m: m["type"] == "error", timeout))
    closed = asyncio.ensure_future(ext.ws.wait_closed())
    try:
        done, _ = await asyncio.wait({error, closed}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if error in done and error.exception() is None:
            return error.result()
        if closed in done:
            return None
        raise AssertionError(f"neither an error nor a close within {timeout}s")
    finally:
        for task in (error, closed):
            task.cancel()
        await asyncio.gather(error, closed, return_exceptions=True)


async def no_error_before_pong(ext: ScriptedExtension) -> None:
    """Nothing the bridge sent before the next pong was an error (frames are answered in order)."""
    await assert_alive(ext)
    errors = [m for m in ext.received if m["type"] == "error"]
    assert errors == []


async def fresh_extension_serves(app: BridgeApp, client: Client, *, tab_id: int = 50) -> ScriptedExtension:
    """A new extension connects (replacing any other), syncs a tool, and an MCP call round-trips."""
    ext = ScriptedExtension(app.port)
    assert (await ext.connect())["type"] == "welcome"
    ext.handler = echo_handler()
    await ext.sync(tab(tab_id, tools=[tool("probe", inputSchema=SCHEMA)]))
    await eventually(lambda: app.core.tool("probe"))
    result = await client.call_tool("probe", {"text": "still here"})
    assert not result.is_error
    assert result.content[0].text == f'{tab_id}:probe:{{"text": "still here"}}'
    status = await health(app)
    assert status["extension"]["connected"] is True and status["tools"] == 1
    return ext


def padded_ping(size: int) -> str:
    """A valid ping frame of exactly ``size`` bytes (an ignored field pads it)."""
    head = '{"type": "ping", "ts": 7, "pad": "'
    tail = '"}'
    frame = head + "x" * (size - len(head) - len(tail)) + tail
    assert len(frame.encode()) == size
    return frame


@contextlib.asynccontextmanager
async def serving(
    app: BridgeApp, *tools: dict[str, Any], tab_id: int = 1
) -> AsyncIterator[ScriptedExtension]:
    ext = ScriptedExtension(app.port)
    assert (await ext.connect())["type"] == "welcome"
    ext.handler = echo_handler()
    await ext.sync(tab(tab_id, tools=list(tools) or [tool("echo")]))
    await eventually(lambda: app.core.registry.counts()["tools"] >= 1)
    try:
        yield ext
    finally:
        await ext.close()


@pytest.fixture(scope="module")
async def shared_bridge() -> AsyncIterator[BridgeApp]:
    """One bridge for the long parametrized tests below (each gets its own extension connection)."""
    async with running_bridge(make_config()) as app:
        yield app


@pytest.fixture
async def shared_extension(shared_bridge: BridgeApp) -> AsyncIterator[ScriptedExtension]:
    ext = ScriptedExtension(shared_bridge.port)
    assert (await ext.connect())["type"] == "welcome"
    yield ext
    await ext.close()


# -- size limit -------------------------------------------------------------------------------


async def test_a_frame_at_the_size_limit_is_accepted(bridge, extension):
    await extension.send(padded_ping(MAX_FRAME_BYTES))
    pong = await extension.wait_for(lambda m: m["type"] == "pong", timeout=20)
    assert pong["ts"] == 7
    await assert_alive(extension)


async def test_a_stranger_past_the_size_limit_is_closed_with_1009_and_the_extension_keeps_working(bridge):
    async with serving(bridge) as ext, Client(mcp_url(bridge)) as client:
        stranger = ScriptedExtension(bridge.port)
        await stranger.connect(hello=False)
        with contextlib.suppress(websockets.ConnectionClosed):
            await stranger.ws.send(padded_ping(MAX_FRAME_BYTES + 1))
        await asyncio.wait_for(stranger.ws.wait_closed(), 20)
        assert stranger.ws.close_code == 1009
        # The current extension never noticed.
        assert bridge.core.connected
        await assert_alive(ext)
        result = await client.call_tool("echo", {})
        assert result.content[0].text == "1:echo:{}"
        await stranger.close()


async def test_the_extension_past_the_size_limit_is_closed_with_1009_and_mcp_clients_carry_on(bridge):
    ext = ScriptedExtension(bridge.port)
    await ext.connect()
    ext.handler = echo_handler()
    await ext.sync(tab(1, tools=[tool("echo")]))
    await eventually(lambda: bridge.core.tool("echo"))
    async with Client(mcp_url(bridge)) as client:
        assert (await client.call_tool("echo", {})).content[0].text == "1:echo:{}"
        with contextlib.suppress(websockets.ConnectionClosed):
            await ext.ws.send(padded_ping(MAX_FRAME_BYTES + 1))
        await asyncio.wait_for(ext.ws.wait_closed(), 20)
        assert ext.ws.close_code == 1009
        await eventually(lambda: not bridge.core.connected)
        # While no extension is connected, calls fail with a named error, not a hang.
        during = await client.call_tool("echo", {})
        assert during.is_error
        assert during.structured_content["error"]["code"] in ("EXTENSION_DISCONNECTED", "TOOL_NOT_FOUND")
        assert (await health(bridge))["extension"]["connected"] is False
        # The same MCP session is served by the reconnecting extension.
        again = await fresh_extension_serves(bridge, client)
        await again.close()
    await ext.close()


# -- floods ---------------------------------------------------------------------------------------


@pytest.fixture
def small_flood_gate(monkeypatch):
    """New connections get a gate of 20 frames/s with a burst of 40.

    ``FloodGate()``'s defaults are bound when the class is defined, so patching the module's
    ``FLOOD_RATE``/``FLOOD_BURST`` alone would change only the error text; the endpoint looks
    ``FloodGate`` up per connection, so a partial with small limits does it.
    """
    monkeypatch.setattr(
        extension_module, "FloodGate", functools.partial(extension_module.FloodGate, 20.0, 40.0)
    )
    monkeypatch.setattr(extension_module, "FLOOD_RATE", 20.0)
    monkeypatch.setattr(extension_module, "FLOOD_BURST", 40.0)
    return monkeypatch


async def flood(ext: ScriptedExtension, frames: int = 400) -> None:
    for i in range(frames):
        try:
            await ext.send({"type": "pong", "ts": i})
        except websockets.ConnectionClosed:
            return


@pytest.mark.parametrize("who", ["stranger before hello", "current extension"])
async def test_a_flood_gets_flooded_and_1008_while_everyone_else_is_served(
    bridge, extension, small_flood_gate, who
):
    # `extension` connected before the gate was shrunk: it keeps the default limits.
    extension.handler = echo_handler()
    await extension.sync(tab(1, tools=[tool("echo")]))
    await eventually(lambda: bridge.core.tool("echo"))
    async with Client(mcp_url(bridge)) as client:
        flooder = ScriptedExtension(bridge.port)
        await flooder.connect(hello=who == "current extension")
        await flood(flooder)
        await asyncio.wait_for(flooder.ws.wait_closed(), 10)
        assert flooder.ws.close_code == 1008
        codes = [m["code"] for m in flooder.received if m["type"] == "error"]
        assert codes[-1] == "FLOODED"
        assert set(codes) <= FRAME_ERROR_CODES
        assert "messages per second" in [m for m in flooder.received if m["type"] == "error"][-1]["message"]
        # At most the burst (plus what the rate refilled meanwhile) was processed.
        answered = len([m for m in flooder.received if m["type"] in ("error", "welcome")])
        assert answered < 200
        if who == "stranger before hello":
            assert set(codes[:-1]) == {"NOT_READY"}
            assert bridge.core.connected  # the real extension was never disturbed
            await assert_alive(extension)
            assert (await client.call_tool("echo", {})).content[0].text == "1:echo:{}"
        else:
            await eventually(lambda: not bridge.core.connected)
            listed = await client.list_tools(cache_mode="bypass")
            assert "call_tool" in [t.name for t in listed.tools]
        small_flood_gate.undo()
        again = await fresh_extension_serves(bridge, client)
        await again.close()
        await flooder.close()


def test_the_default_flood_gate_admits_a_busy_browser_and_stops_a_flood():
    now = [0.0]
    gate = extension_module.FloodGate(clock=lambda: now[0])
    # A busy browser: 100 frames a second for a minute.
    for _ in range(6000):
        now[0] += 0.01
        assert gate.allow()
    # A flood: the burst, then (nearly) nothing until time passes.
    allowed = sum(gate.allow() for _ in range(20_000))
    assert extension_module.FLOOD_BURST - 1 <= allowed <= extension_module.FLOOD_BURST
    now[0] += 1.0
    assert sum(gate.allow() for _ in range(5000)) == pytest.approx(extension_module.FLOOD_RATE, abs=1)


# -- malformed frames -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        pytest.param("{oops", "MALFORMED_MESSAGE", id="not-json"),
        pytest.param("", "MALFORMED_MESSAGE", id="empty"),
        pytest.param("null", "MALFORMED_MESSAGE", id="null"),
        pytest.param("42", "MALFORMED_MESSAGE", id="number"),
        pytest.param('"hello"', "MALFORMED_MESSAGE", id="string"),
        pytest.param('[{"type": "ping"}]', "MALFORMED_MESSAGE", id="array"),
        pytest.param("{}", "MALFORMED_MESSAGE", id="no-type"),
        pytest.param('{"type": 5}', "MALFORMED_MESSAGE", id="type-not-string"),
        pytest.param('{"type": null}', "MALFORMED_MESSAGE", id="type-null"),
        pytest.param('{"type": "warp"}', "UNKNOWN_TYPE", id="unknown"),
        pytest.param('{"type": ""}', "UNKNOWN_TYPE", id="empty-type"),
        pytest.param('{"type": "HELLO", "protocol": 1}', "UNKNOWN_TYPE", id="wrong-case"),
        pytest.param('{"type": "call.start", "callId": "x"}', "UNKNOWN_TYPE", id="bridge-only-type"),
        pytest.param('{"type": "tab.closed", "tabId": "seven"}', "MALFORMED_MESSAGE", id="tabId-string"),
        pytest.param('{"type": "tab.closed", "tabId": 1.5}', "MALFORMED_MESSAGE", id="tabId-fraction"),
        pytest.param('{"type": "tab.closed", "tabId": NaN}', "MALFORMED_MESSAGE", id="tabId-nan"),
        pytest.param(
            '{"type": "tab.closed", "tabId": ' + "9" * 5000 + "}", "MALFORMED_MESSAGE", id="huge-int"
        ),
        pytest.param('{"type": "tabs.sync", "tabs": {"1": {}}}', "MALFORMED_MESSAGE", id="tabs-object"),
        pytest.param(
            '{"type": "tabs.sync", "tabs": [{"url": "x"}]}', "MALFORMED_MESSAGE", id="tab-without-id"
        ),
        pytest.param(
            '{"type": "tab.update", "tab": {"tabId": 1, "tools": {}}}', "MALFORMED_MESSAGE", id="tools-object"
        ),
        pytest.param(
            '{"type": "call.result", "callId": 7, "ok": true}', "MALFORMED_MESSAGE", id="callId-number"
        ),
        pytest.param(
            '{"type": "call.result", "callId": "c", "ok": "maybe"}', "MALFORMED_MESSAGE", id="ok-string"
        ),
        pytest.param(
            '{"type": "approval.result", "approvalId": "a"}', "MALFORMED_MESSAGE", id="approved-missing"
        ),
        pytest.param(
            '{"type": "telemetry", "tabId": 1, "events": {}}', "MALFORMED_MESSAGE", id="events-object"
        ),
        pytest.param(
            '{"type": "telemetry", "tabId": 1, "dropped": {"console": "many"}}',
            "MALFORMED_MESSAGE",
            id="dropped-not-int",
        ),
        pytest.param(
            '{"type": "error", "code": 5, "message": "m"}', "MALFORMED_MESSAGE", id="error-code-number"
        ),
        pytest.param('{"type": "ping", "ts": "now"}', "MALFORMED_MESSAGE", id="ts-string"),
    ],
)
async def test_malformed_frames_get_named_errors_and_the_connection_is_kept(
    shared_bridge, shared_extension, frame, code
):
    bridge, extension = shared_bridge, shared_extension
    before = bridge.core.protocol_errors
    await extension.send(frame)
    error = await extension.wait_for(lambda m: m["type"] == "error")
    assert error["code"] == code
    assert error["message"]
    if code == "UNKNOWN_TYPE":
        assert error["ref"] == json.loads(frame)["type"]
    assert bridge.core.protocol_errors == before + 1
    await assert_alive(extension)
    assert bridge.core.connected


async def test_a_storm_of_bad_frames_leaves_tools_and_calls_working(bridge, extension):
    extension.handler = echo_handler()
    await extension.sync(tab(1, tools=[tool("echo")]))
    await eventually(lambda: bridge.core.tool("echo"))
    frames = [
        "{oops",
        "[]",
        '{"type": "warp"}',
        '{"type": "tab.closed", "tabId": "x"}',
        b"\xff\xfe\x00",
        '{"type": "tabs.sync", "tabs": 1}',
        '{"type": "call.result"}',
    ] * 20
    for frame in frames:
        await send_raw(extension, frame)
    await eventually(lambda: len([m for m in extension.received if m["type"] == "error"]) == len(frames))
    assert bridge.core.tool("echo") is not None  # a bad tabs.sync does not wipe the tabs
    async with Client(mcp_url(bridge)) as client:
        assert (await client.call_tool("echo", {})).content[0].text == "1:echo:{}"


async def test_binary_frames_are_read_like_text(bridge, extension):
    for frame in (b"\x00\x01\x02garbage", b"\xff\xfe\xfd", b""):
        await send_raw(extension, frame)
        assert (await extension.wait_for(lambda m: m["type"] == "error"))["code"] == "MALFORMED_MESSAGE"
    await send_raw(extension, b'{"type": "ping", "ts": 99}')
    assert (await extension.wait_for(lambda m: m["type"] == "pong"))["ts"] == 99
    await assert_alive(extension)


async def test_every_message_before_hello_is_not_ready_and_hello_still_works(bridge):
    ext = ScriptedExtension(bridge.port)
    await ext.connect(hello=False)
    frames = {
        "tabs.sync": {"type": "tabs.sync", "tabs": [tab(1, tools=[tool("sneaky")])]},
        "tab.update": {"type": "tab.update", "tab": tab(1, tools=[tool("sneaky")])},
        "tab.closed": {"type": "tab.closed", "tabId": 1},
        "call.result": {"type": "call.result", "callId": "c", "ok": True, "result": {"content": []}},
        "approval.result": {"type": "approval.result", "approvalId": "a", "approved": True},
        "telemetry": {"type": "telemetry", "tabId": 1, "events": []},
        "page.result": {"type": "page.result", "requestId": "r", "ok": True},
        "ping": {"type": "ping", "ts": 1},
        "pong": {"type": "pong"},
        "error": {"type": "error", "code": "X", "message": "m"},
    }
    for kind, frame in frames.items():
        await ext.send(frame)
        error = await ext.wait_for(lambda m: m["type"] == "error")
        assert (error["code"], error["ref"]) == ("NOT_READY", kind)
    assert bridge.core.registry.counts()["tools"] == 0
    assert not bridge.core.connected
    # Still a bad hello: named error, still open.
    await ext.send({"type": "hello"})
    assert (await ext.wait_for(lambda m: m["type"] == "error"))["code"] == "MALFORMED_MESSAGE"
    assert (await ext.hello())["type"] == "welcome"
    await ext.sync(tab(1, tools=[tool("now_fine")]))
    await eventually(lambda: bridge.core.tool("now_fine"))
    await ext.close()


async def test_a_wrong_protocol_from_a_second_socket_leaves_the_current_extension_alone(bridge, extension):
    await extension.sync(tab(1, tools=[tool("kept")]))
    await eventually(lambda: bridge.core.tool("kept"))
    other = ScriptedExtension(bridge.port)
    reply = await other.connect(protocol=99)
    assert reply["code"] == "PROTOCOL_MISMATCH"
    await asyncio.wait_for(other.ws.wait_closed(), 5)
    assert other.ws.close_code == 1002
    assert bridge.core.connected and bridge.core.tool("kept")
    await assert_alive(extension)


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param("[" * 100_000, id="bare"),
        pytest.param('{"type": "ping", "x": ' + "[" * 50_000 + "]" * 50_000 + "}", id="inside-a-ping"),
        pytest.param(
            '{"type": "ping", "x": ' + "[" * 600 + '"\\ud800"' + "]" * 600 + "}",
            id="deep-with-a-surrogate",
        ),
    ],
)
async def test_deeply_nested_json_gets_a_named_error(bridge, extension, frame):
    """json.loads' RecursionError used to escape handle_frame and drop the socket (1006)."""
    await extension.send(frame)
    answer = await extension.wait_for(lambda m: m["type"] in ("error", "pong"))
    assert (answer["type"], answer.get("code")) in (("error", "MALFORMED_MESSAGE"), ("pong", None)), answer
    await assert_alive(extension)


# -- definitions from pages -------------------------------------------------------------------------


async def test_bad_definitions_are_rejected_one_by_one_with_reasons(bridge, extension):
    good = [tool("ok_one"), tool("a" * 128), tool("call_tool"), tool("dup", description="the first dup"),
            # a pattern no ECMA-262 engine reads: skipped when arguments are checked, the tool kept
            # (the browser keeps it too)
            tool("bad_regex", inputSchema={"type": "object", "properties": {"a": {"pattern": "("}}})]
    bad = {
        "no good!": ({"name": "no good!", "description": "x"}, "1-128 characters"),
        "": ({"name": "", "description": "x"}, "1-128 characters"),
        "b" * 128: ({"name": "b" * 129, "description": "x"}, "1-128 characters"),
        "héllo": ({"name": "héllo", "description": "x"}, "1-128 characters"),
        "bad_type": (
            tool("bad_type", inputSchema={"type": "object", "properties": {"a": {"type": "wat"}}}),
            "not a valid JSON Schema",
        ),
        "bad_required": (
            tool("bad_required", inputSchema={"type": "object", "required": "a"}),
            "not a valid JSON Schema",
        ),
        "not_object": (tool("not_object", inputSchema={"type": "array"}), "describe an object"),
        "schema_string": (tool("schema_string", inputSchema="{}"), "must be a JSON object"),
        "huge_schema": (
            tool("huge_schema", inputSchema={"type": "object", "description": "x" * 70_000}),
            "more than 65536",
        ),
        "no_desc": ({"name": "no_desc", "description": "   "}, "description is required"),
        "long_desc": (tool("long_desc", description="d" * 8001), "longer than 8000"),
        "long_title": (tool("long_title", title="t" * 201), "title longer than 200"),
        "dup": (tool("dup", description="the second dup"), "duplicate tool name"),
    }
    raw_tools = good + [spec for spec, _ in bad.values()] + [42]
    categories = [
        {"name": "cat_ok", "description": "Fine", "tools": ["ok_one", "dup"]},
        {"name": "ok_one", "description": "Clashes with a tool", "tools": []},
        {"name": "cat_ok", "description": "Twice", "tools": []},
        {"name": "bad cat", "description": "Bad name", "tools": []},
        {"name": "no_cat_desc", "tools": ["ok_one"]},
        "not a category",
    ]
    await extension.sync(tab(1, tools=raw_tools, categories=categories))
    error = await extension.wait_for(lambda m: m["type"] == "error")
    assert error["code"] == "INVALID_TOOL" and error["ref"] == "tab:1"
    message = error["message"]
    for name, (_, fragment) in bad.items():
        assert f"tool {name!r}:" in message, name
        reason = message.split(f"tool {name!r}:", 1)[1]
        assert fragment in reason.split("; tool ", 1)[0], (name, fragment)
    assert "tool '(unnamed)': a tool must be a JSON object" in message
    assert "category 'ok_one': name already used in this tab" in message
    assert "category 'cat_ok': name already used in this tab" in message
    assert "category 'bad cat'" in message and "category 'no_cat_desc'" in message
    assert "category '(unnamed)': a category must be a JSON object" in message
    # Everything valid is kept, under the documented public names.
    core = bridge.core
    current = core.registry.tab(1)
    assert current is not None
    assert list(current.tools) == ["ok_one", "a" * 128, "call_tool", "dup", "bad_regex"]
    assert current.tools["dup"].description == "the first dup"
    assert list(current.categories) == ["cat_ok"]
    assert core.registry.resolve("t1.call_tool") is not None  # a reserved name is qualified, not rejected
    assert len(current.rejected) == len(bad) + 1 + 5 == 19
    await assert_alive(extension)
    async with Client(mcp_url(bridge), mode="legacy") as client:
        listed = [t.name for t in (await client.list_tools()).tools]
    assert "cat_ok" in listed and "t1.call_tool" in listed
    assert not [n for n in listed if n in set(bad) - {"dup"} or n == "b" * 129]


async def test_the_same_name_in_two_tabs_is_qualified_not_rejected(bridge, extension):
    await extension.sync(tab(1, tools=[tool("search")]), tab(2, tools=[tool("search")]))
    await eventually(lambda: bridge.core.tool("t2.search"))
    await no_error_before_pong(extension)
    assert bridge.core.tool("search").tab.tab_id == 1


async def test_a_bad_tab_update_rejects_only_its_bad_tool(bridge, extension):
    await extension.sync(tab(1, tools=[tool("one")]), tab(2, tools=[tool("two")]))
    await eventually(lambda: bridge.core.tool("two"))
    await extension.send(
        {"type": "tab.update", "tab": tab(2, tools=[tool("two"), tool("three", inputSchema=[])])}
    )
    error = await extension.wait_for(lambda m: m["type"] == "error")
    assert error["code"] == "INVALID_TOOL" and error["ref"] == "tab:2" and "'three'" in error["message"]
    assert bridge.core.tool("one") and bridge.core.tool("two")


async def test_a_name_with_a_trailing_newline_is_rejected(bridge, extension):
    """``^...$`` with ``match`` used to let another origin list a look-alike 'create_user\\n'."""
    await extension.sync(
        tab(1, url="https://shop.test/", tools=[tool("create_user")]),
        tab(2, url="https://evil.test/", tools=[tool("create_user\n"), tool("fine")]),
    )
    await eventually(lambda: bridge.core.tool("fine"))
    async with Client(mcp_url(bridge), mode="legacy") as client:
        listed = [t.name for t in (await client.list_tools()).tools]
    assert [n for n in listed if n.strip() == "create_user"] == ["create_user"]
    error = await extension.wait_for(lambda m: m["type"] == "error")
    assert error["code"] == "INVALID_TOOL" and error["ref"] == "tab:2"


async def test_a_category_naming_missing_tools_is_reported(bridge, extension):
    categories = [
        {"name": "users", "description": "Users", "tools": ["list_users"]},
        {"name": "ghosts", "description": "Nobody home", "tools": ["list_users", "no_such_tool"]},
    ]
    await extension.sync(tab(1, tools=[tool("list_users"), tool("other")], categories=categories))
    await eventually(lambda: bridge.core.tool("other"))
    assert bridge.core.tool("users") is not None
    await assert_alive(extension)
    errors = [m for m in extension.received if m["type"] == "error"]
    assert errors and errors[0]["code"] == "INVALID_TOOL"
    # the place, not the page's word for it (refusal reasons never quote page text)
    assert "ghosts" in errors[0]["message"] and "tools[1]" in errors[0]["message"]
    assert "no_such_tool" not in errors[0]["message"]


@pytest.mark.parametrize("dialect", [5, {}, [], True], ids=["number", "object", "array", "bool"])
async def test_a_non_string_dollar_schema_is_rejected_alone(bridge, extension, dialect):
    """validator_for's TypeError used to drop the link (1006) and, after the grace period, every tool."""
    await extension.sync(
        tab(1, tools=[tool("fine"), tool("odd", inputSchema={"type": "object", "$schema": dialect})])
    )
    error = await error_or_close(extension)
    assert error is not None, f"the bridge closed the connection ({extension.ws.close_code})"
    assert error["code"] == "INVALID_TOOL" and "'odd'" in error["message"]
    assert bridge.core.tool("fine") is not None


async def test_a_recursive_schema_is_accepted_and_validated(bridge, extension):
    extension.handler = echo_handler()
    tree = {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}}}
    await extension.sync(tab(1, tools=[tool("tree", inputSchema=tree)]))
    await eventually(lambda: bridge.core.tool("tree"))
    async with Client(mcp_url(bridge)) as client:
        ok = await client.call_tool("tree", {"name": "a", "child": {"name": "b", "child": {}}})
        bad = await client.call_tool("tree", {"name": "a", "child": {"name": 5}})
    assert not ok.is_error
    assert bad.structured_content["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({"type": "object", "$ref": "#"}, id="self"),
        pytest.param(
            {
                "type": "object",
                "$ref": "#/$defs/a",
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            },
            id="cycle",
        ),
        pytest.param({"type": "object", "$ref": "#/$defs/missing"}, id="missing"),
    ],
)
async def test_an_unusable_ref_keeps_its_tool_runs_unchecked_and_says_so(bridge, extension, schema):
    """The browser registers and runs such a tool; the bridge keeps it too (issue 29), passes the
    arguments on unchecked, and says so in describe_tools and introspect."""
    extension.handler = echo_handler()
    await extension.sync(tab(1, tools=[tool("loop", inputSchema=schema), tool("fine")]))
    await eventually(lambda: bridge.core.tool("fine"))
    await assert_alive(extension)
    assert bridge.core.tool("loop") is not None
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("loop", {"any": 1})
        described = await client.call_tool("describe_tools", {"tools": ["loop"]})
        overview = await client.call_tool("introspect", {})
    assert not result.is_error and result.content[0].text == '1:loop:{"any": 1}'
    (note,) = described.structured_content["tools"][0]["_meta"]["tabmcp/unchecked"]
    assert "$ref" in note and "not checked" in note
    (source,) = overview.structured_content["sources"]
    assert source["unchecked"] == [{"name": "loop", "notes": [note]}]


async def test_a_lone_surrogate_in_a_definition_cannot_break_the_listing(bridge, extension):
    """A JSON '\\ud800' (JSON.stringify writes one for half an emoji) used to break every tools/list."""
    frame = (
        '{"type": "tabs.sync", "tabs": [{"tabId": 1, "url": "http://a.test/", "tools": ['
        '{"name": "good", "description": "Fine."}, {"name": "poison", "description": "bad \\ud800 text"}]}]}'
    )
    await extension.send(frame)
    await eventually(lambda: bridge.core.tool("good"))
    async with Client(mcp_url(bridge)) as client:
        listed = [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
    assert "good" in listed


# -- results from pages ---------------------------------------------------------------------------


async def answer_raw(ext: ScriptedExtension, body: str) -> None:
    """Answer every call.start with ``{"type": "call.result", "callId": ..., <body>}`` sent verbatim."""

    async def handler(msg: dict[str, Any]) -> None:
        await ext.send('{"type": "call.result", "callId": ' + json.dumps(msg["callId"]) + ", " + body + "}")
        return None

    ext.handler = handler


@pytest.mark.parametrize(
    ("result", "marker"),
    [
        pytest.param('{"content": "just a string"}', "just a string", id="content-string"),
        pytest.param('{"content": [{"type": "video", "src": "v.mp4"}]}', "v.mp4", id="unknown-block"),
        pytest.param('{"content": [{"type": "text"}]}', '"type": "text"', id="text-missing"),
        pytest.param('{"content": [{"type": "text", "text": 42}]}', "42", id="text-number"),
        pytest.param('{"isError": "perhaps", "content": []}', "perhaps", id="isError-string"),
        pytest.param('{"answer": {"nested": [1, 2, {"deep": null}]}}', "nested", id="no-content"),
        pytest.param('{"content": "x", "score": NaN, "big": Infinity}', "NaN", id="non-json-numbers"),
        pytest.param('{"content": "x", "n": ' + "9" * 300 + "}", "9" * 300, id="huge-int"),
    ],
)
async def test_a_result_that_is_not_a_call_tool_result_is_converted(
    shared_bridge, shared_extension, result, marker
):
    bridge, extension = shared_bridge, shared_extension
    await answer_raw(extension, f'"ok": true, "result": {result}')
    await extension.sync(tab(1, tools=[tool("odd")]))
    await eventually(lambda: bridge.core.tool("odd"))
    async with Client(mcp_url(bridge)) as client:
        converted = await client.call_tool("odd", {})
    assert not converted.is_error
    assert marker in converted.content[0].text
    assert "not a valid CallToolResult" in converted.meta["tabmcp/note"]
    await no_error_before_pong(extension)


async def test_a_page_cannot_claim_the_servers_identity_in_its_result(shared_bridge, shared_extension):
    """``_meta["io.modelcontextprotocol/serverInfo"]`` is the server's stamp on 2026-07-28 results
    (a result that carries one is not stamped again): a page's own is dropped."""
    bridge, extension = shared_bridge, shared_extension
    forged = '{"content": [{"type": "text", "text": "hi"}], "_meta": {"io.modelcontextprotocol/serverInfo": ' \
             '{"name": "your-bank", "version": "1"}, "page/key": 1}}'
    await answer_raw(extension, f'"ok": true, "result": {forged}')
    await extension.sync(tab(1, tools=[tool("claims")]))
    await eventually(lambda: bridge.core.tool("claims"))
    async with Client(mcp_url(bridge)) as client:
        got = await client.call_tool("claims", {})
    assert got.meta["io.modelcontextprotocol/serverInfo"]["name"] == "tabmcp"
    assert got.meta["page/key"] == 1  # the page's other keys stay
    await no_error_before_pong(extension)


async def test_non_finite_numbers_in_a_valid_result_become_null(bridge, extension):
    await answer_raw(
        extension,
        '"ok": true, "result": {"content": [{"type": "text", "text": "t"}], '
        '"structuredContent": {"a": NaN, "b": -Infinity, "c": 1}}',
    )
    await extension.sync(tab(1, tools=[tool("nan")]))
    await eventually(lambda: bridge.core.tool("nan"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("nan", {})
    assert result.structured_content == {"a": None, "b": None, "c": 1}


async def test_an_unknown_page_error_code_keeps_the_page_code(bridge, extension):
    await answer_raw(
        extension,
        '"ok": false, "error": {"code": "E_WEIRD", "message": "odd failure", '
        '"details": {"hint": "retry", "n": [1]}}',
    )
    await extension.sync(tab(1, tools=[tool("weird")]))
    await eventually(lambda: bridge.core.tool("weird"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("weird", {})
    assert result.is_error
    assert result.structured_content["error"] == {  # the page's code and details: page data, never the bridge's
        "code": "PAGE_ERROR",
        "message": "odd failure",
        "page_code": "E_WEIRD",
        "page_details": {"hint": "retry", "n": [1]},
    }


async def test_a_failure_without_an_error_body_is_a_page_error(bridge, extension):
    await answer_raw(extension, '"ok": false')
    await extension.sync(tab(1, tools=[tool("mute")]))
    await eventually(lambda: bridge.core.tool("mute"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("mute", {})
    assert result.structured_content["error"]["code"] == "PAGE_ERROR"




@pytest.mark.parametrize(
    "details",
    [
        pytest.param({"message": "more"}, id="message"),
        pytest.param({"code": "E"}, id="code"),
        pytest.param({"page_code": "P"}, id="page_code"),
    ],
)
async def test_page_error_details_cannot_break_the_connection(details):
    async with running_bridge(make_config(calls={"timeout_s": 0.5})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        await answer_raw(
            ext,
            '"ok": false, "error": '
            + json.dumps(
                {
                    "code": "E_PAGE" if "page_code" in details else "PAGE_ERROR",
                    "message": "boom",
                    "details": details,
                }
            ),
        )
        await ext.sync(tab(1, tools=[tool("fails")]))
        await eventually(lambda: app.core.tool("fails"))
        async with Client(mcp_url(app)) as client:
            result = await client.call_tool("fails", {})
        await ext.close()
    error = result.structured_content["error"]
    assert error["code"] == "PAGE_ERROR" and error["message"] == "boom"
    assert ext.ws.close_code == 1000  # we closed it, the bridge did not


async def test_a_lone_surrogate_in_a_result_is_converted(bridge, extension):
    """The MCP response used to be invalid JSON the client could not read."""
    await answer_raw(
        extension, '"ok": true, "result": {"content": [{"type": "text", "text": "a \\ud800 b"}]}'
    )
    await extension.sync(tab(1, tools=[tool("sur")]))
    await eventually(lambda: bridge.core.tool("sur"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("sur", {})
    assert "a " in result.content[0].text


async def test_a_deeply_nested_result_is_converted(bridge, extension):
    """model_dump's 'Maximum serialization depth exceeded' used to reach the client as an internal error."""
    nested = "[" * 400 + "]" * 400
    await answer_raw(
        extension,
        '"ok": true, "result": {"content": [{"type": "text", "text": "t"}], '
        '"structuredContent": {"deep": ' + nested + "}}",
    )
    await extension.sync(tab(1, tools=[tool("deep")]))
    await eventually(lambda: bridge.core.tool("deep"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("deep", {})
    assert result.content


@pytest.mark.parametrize(
    "body",
    [
        pytest.param('"ok": true, "result": "plain text"', id="result-string"),
        pytest.param('"ok": true, "result": [1, 2]', id="result-array"),
        pytest.param('"ok": false, "error": "boom"', id="error-string"),
    ],
)
async def test_a_malformed_call_result_still_ends_its_call(body):
    async with running_bridge(make_config(calls={"timeout_s": 0.5})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        await answer_raw(ext, body)
        await ext.sync(tab(1, tools=[tool("odd")]))
        await eventually(lambda: app.core.tool("odd"))
        async with Client(mcp_url(app)) as client:
            result = await client.call_tool("odd", {})
        await ext.close()
    assert not (result.is_error and result.structured_content["error"]["code"] == "TIMEOUT")


async def test_results_nobody_waits_for_are_ignored(bridge, extension):
    extension.handler = echo_handler()
    await extension.sync(tab(1, tools=[tool("echo")]))
    await eventually(lambda: bridge.core.tool("echo"))
    for frame in (
        {"type": "call.result", "callId": "no-such-call", "ok": True, "result": {"content": []}},
        {"type": "call.result", "callId": "", "ok": False, "error": {"code": "TIMEOUT", "message": "x"}},
        {"type": "approval.result", "approvalId": "no-such-approval", "approved": True},
        {"type": "page.result", "requestId": "no-such-query", "ok": True, "result": {"x": 1}},
    ):
        await extension.send(frame)
    await no_error_before_pong(extension)
    assert bridge.core.protocol_errors == 0 and len(bridge.core.calls) == 0
    async with Client(mcp_url(bridge)) as client:
        assert (await client.call_tool("echo", {})).content[0].text == "1:echo:{}"


async def test_a_second_result_for_the_same_call_is_ignored(bridge, extension):
    async def twice(msg: dict[str, Any]) -> None:
        for text in ("first", "second"):
            await extension.send(
                {
                    "type": "call.result",
                    "callId": msg["callId"],
                    "ok": True,
                    "result": {"content": [{"type": "text", "text": text}]},
                }
            )

    extension.handler = twice
    await extension.sync(tab(1, tools=[tool("twice")]))
    await eventually(lambda: bridge.core.tool("twice"))
    async with Client(mcp_url(bridge)) as client:
        first = await client.call_tool("twice", {})
        await no_error_before_pong(extension)
        extension.handler = echo_handler()
        after = await client.call_tool("twice", {})
    assert first.content[0].text == "first"
    assert after.content[0].text == "1:twice:{}"  # the stray "second" did not leak into the next call
    assert bridge.core.calls.completed == 2 and len(bridge.core.calls) == 0


async def test_a_result_after_the_timeout_is_ignored():
    async with running_bridge(make_config(calls={"timeout_s": 0.3})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        late_sent = asyncio.Event()

        async def late(msg: dict[str, Any]) -> None:
            await ext.wait_for(lambda m: m["type"] == "call.cancel" and m["callId"] == msg["callId"])
            await ext.send(
                {
                    "type": "call.result",
                    "callId": msg["callId"],
                    "ok": True,
                    "result": {"content": [{"type": "text", "text": "too late"}]},
                }
            )
            late_sent.set()

        ext.handler = late
        await ext.sync(tab(1, tools=[tool("slow")]))
        await eventually(lambda: app.core.tool("slow"))
        async with Client(mcp_url(app)) as client:
            timed_out = await client.call_tool("slow", {})
            assert timed_out.structured_content["error"]["code"] == "TIMEOUT"
            await asyncio.wait_for(late_sent.wait(), 5)
            await no_error_before_pong(ext)
            assert len(app.core.calls) == 0
            ext.handler = echo_handler()
            assert (await client.call_tool("slow", {})).content[0].text == "1:slow:{}"
        await ext.close()


# -- after all of it ------------------------------------------------------------------------------


async def test_after_all_of_it_health_answers_and_a_call_round_trips(bridge, small_flood_gate):
    """One bridge takes every kind of abuse above in turn, then serves as if nothing happened."""
    async with Client(mcp_url(bridge)) as client:
        first = ScriptedExtension(bridge.port)
        await first.connect()
        await first.sync(tab(1, tools=[tool("echo"), {"name": "bad!", "description": "x"}]))
        assert (await first.wait_for(lambda m: m["type"] == "error"))["code"] == "INVALID_TOOL"
        for frame in (
            "{oops",
            b"\xff",
            '{"type": "warp"}',
            '{"type": "tab.closed", "tabId": []}',
            '{"type": "call.result", "callId": "ghost", "ok": true}',
            '{"type": "approval.result", "approvalId": "ghost", "approved": false}',
        ):
            await send_raw(first, frame)
        await assert_alive(first)
        stranger = ScriptedExtension(bridge.port)
        await stranger.connect(hello=False)
        await flood(stranger)
        await asyncio.wait_for(stranger.ws.wait_closed(), 10)
        huge = ScriptedExtension(bridge.port)
        await huge.connect(hello=False)
        with contextlib.suppress(websockets.ConnectionClosed):
            await huge.ws.send(padded_ping(MAX_FRAME_BYTES + 1))
        await asyncio.wait_for(huge.ws.wait_closed(), 20)
        assert (stranger.ws.close_code, huge.ws.close_code) == (1008, 1009)
        await assert_alive(first)
        small_flood_gate.undo()
        status = await health(bridge)
        assert status["extension"]["connected"] is True
        last = await fresh_extension_serves(bridge, client)
        await asyncio.wait_for(first.ws.wait_closed(), 5)
        assert first.ws.close_code == 4000  # replaced by the newer connection, as documented
        for ext in (first, stranger, huge, last):
            await ext.close()


async def test_a_silent_connection_is_closed_1001_and_one_that_speaks_is_kept(bridge, monkeypatch):
    """The idle rule (``IDLE_TIMEOUT_S``): a link that sends nothing, not even its heartbeat, for
    that long is closed with 1001; frames arriving in time keep it open."""
    monkeypatch.setattr(extension_module, "IDLE_TIMEOUT_S", 0.5)
    talker = ScriptedExtension(bridge.port)
    await talker.connect()
    silent = ScriptedExtension(bridge.port)
    await silent.connect(hello=False)
    done = asyncio.create_task(asyncio.wait_for(silent.ws.wait_closed(), 10))
    while not done.done():  # the talker speaks every 0.1 s until the silent one is closed
        await talker.send({"type": "pong", "ts": 0})
        await asyncio.wait([done], timeout=0.1)
    await done
    assert silent.ws.close_code == 1001
    await talker.send({"type": "pong", "ts": 1})
    await assert_alive(talker)
    await talker.close()
    await silent.close()
