"""The activity log through the real surfaces: a scripted extension over a real WebSocket, the
official MCP SDK client, ``/health`` and the ``tabmcp activity`` command in a subprocess."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from typing import Any

import httpx
from mcp import Client, Implementation
from tabmcp.control_key import control_headers
from tabmcp.core.activity import Target
from tabmcp.errors import ErrorCode
from tabmcp.server.app import running_bridge

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

SECRET = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

TOOLS = [
    tool("add_note", "Add a note.", inputSchema={"type": "object", "properties": {"text": {"type": "string"},
                                                                                   "token": {"type": "string"}}}),
    tool("explode", "Always fails."),
]


async def page(msg: dict[str, Any]) -> dict[str, Any]:
    if msg["tool"] == "explode":
        return {"ok": False, "error": {"code": ErrorCode.PAGE_ERROR, "message": "kaboom"}}
    return {"ok": True, "result": {"content": [{"type": "text", "text": f"saved {msg['arguments']['text']}"}]}}


async def test_calls_are_logged_with_client_outcome_duration_and_shown_by_health_and_cli(tmp_path):
    db = tmp_path / "tabmcp.db"
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{db}"\n')
    async with running_bridge(make_config(store={"path": str(db)})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        ext.handler = page
        await ext.sync(tab(3, url="https://notes.test/app", tools=TOOLS))
        await eventually(lambda: app.core.tool("explode"))
        url = f"http://127.0.0.1:{app.port}/mcp"
        try:
            async with Client(url, client_info=Implementation(name="activity-test-agent", version="1")) as client:
                ok = await client.call_tool("add_note", {"text": "milk", "token": SECRET})
                assert not ok.is_error
                bad = await client.call_tool("call_tool", {"name": "explode", "arguments": {}})
                assert bad.is_error
                await client.call_tool("search_tools", {"query": "note"})  # stays in the bridge: not logged
            async with httpx.AsyncClient(headers=control_headers()) as http:  # the activity wants the control key
                health = (await http.get(f"http://127.0.0.1:{app.port}/health")).json()
        finally:
            await ext.close()

    rows = health["activity"]
    assert [r["tool"] for r in rows] == ["explode", "add_note"]  # newest first
    failed, done = rows
    assert done["client"] == failed["client"] == "activity-test-agent"
    assert done["outcome"] == "ok" and failed["outcome"] == ErrorCode.PAGE_ERROR
    assert done["tabId"] == failed["tabId"] == 3 and done["origin"] == "https://notes.test"
    assert done["durationMs"] > 0 and failed["durationMs"] > 0
    assert "milk" in done["arguments"] and SECRET not in done["arguments"] and "saved milk" in done["result"]
    assert "kaboom" in failed["result"]

    # the bridge is gone; the rows are in its SQLite file, read by the CLI
    def cli(*extra: str) -> list[dict[str, Any]]:
        out = subprocess.run(
            [sys.executable, "-m", "tabmcp.cli", "activity", "--config", str(config), "--json", *extra],
            capture_output=True, text=True, timeout=60, check=True,
        )
        return json.loads(out.stdout)

    listed = await asyncio.to_thread(cli)
    assert [(r["tool"], r["outcome"], r["client"]) for r in listed] == [
        ("explode", ErrorCode.PAGE_ERROR, "activity-test-agent"), ("add_note", "ok", "activity-test-agent")]
    assert [r["tool"] for r in await asyncio.to_thread(cli, "--limit", "1")] == ["explode"]
    assert await asyncio.to_thread(cli, "--origin", "https://other.test") == []
    assert len(await asyncio.to_thread(cli, "--tab", "3", "--origin", "https://notes.test")) == 2


async def test_the_last_call_reaches_the_file_on_its_own_within_a_second(tmp_path):
    import sqlite3

    db = tmp_path / "tabmcp.db"
    async with running_bridge(make_config(store={"path": str(db)})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        ext.handler = page
        await ext.sync(tab(3, url="https://notes.test/app", tools=TOOLS))
        await eventually(lambda: app.core.tool("explode"))
        reader = sqlite3.connect(db)

        def logged() -> list[tuple[str, str]]:
            return reader.execute("SELECT tool, outcome FROM activity ORDER BY id").fetchall()

        try:
            async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
                for n in range(3):  # a burst: one batch, one write
                    await client.call_tool("add_note", {"text": f"n{n}"})
                await client.call_tool("explode", {})
                # nothing follows the last call, and nothing reads through the bridge
                await eventually(lambda: len(logged()) == 4, timeout=10)
                assert logged() == [("add_note", "ok")] * 3 + [("explode", ErrorCode.PAGE_ERROR)]
                assert app.core.activity_writer.flushes == 1
        finally:
            reader.close()
            await ext.close()


async def test_a_usage_write_that_fails_at_shutdown_loses_neither_its_counts_nor_the_activity_rows(tmp_path):
    """Shutdown writes the usage counts, then the activity rows: one store failing (here a real
    SQLite error on the usage table: a trigger refuses the write, as a full disk or a locked file
    would) must not stop the other's write, nor lose its own counts."""
    db = tmp_path / "tabmcp.db"
    async with running_bridge(make_config(store={"path": str(db)})) as app:
        app.core.activity_writer.delay_s = 3600.0  # the shutdown, not the timer, writes the rows
        target = Target("add_note", 3, "https://notes.test", {"text": "milk"})
        app.core.activity.end(app.core.activity.begin(target, "agent"), None, defer=True)
        app.core.usage.record("https://notes.test", "add_note")
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("CREATE TRIGGER refuse BEFORE INSERT ON tool_usage BEGIN SELECT RAISE(ABORT, 'disk full'); END")
        usage = app.core.usage
    assert [row[0] for row in other.execute("SELECT tool FROM activity")] == ["add_note"]
    other.execute("DROP TRIGGER refuse")
    assert usage.top(5) == [("https://notes.test", "add_note", 1)]  # kept, written once the file takes it
    other.close()
