"""The person's switches through the real surfaces: a scripted extension sends the popup's
``panel.query`` / ``control.set`` over a real WebSocket, the official MCP SDK client sees the
effect (tools vanish with a list-change notification, calls answer PAUSED), and ``tabmcp
controls`` in a subprocess sets them in the same SQLite file while the bridge runs."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from mcp import Client
from tabmcp.server.app import running_bridge
from tabmcp.testing import ListChanges, listed, unlisted

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

TOOLS = [tool("add_note", "Add a note."), tool("read_notes", "Read notes.", annotations={"readOnlyHint": True})]


async def ran(msg: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "result": {"content": [{"type": "text", "text": f"ran {msg['tool']}"}]}}


async def panel(ext: ScriptedExtension, request_id: str, **fields: Any) -> dict[str, Any]:
    kind = "control.set" if "action" in fields else "panel.query"
    await ext.send({"type": kind, "requestId": request_id, **fields})
    answer = await ext.wait_for(lambda m: m["type"] == "panel.state" and m["requestId"] == request_id)
    return answer


async def test_switches_from_the_popup_steer_agents_and_agents_cannot_reach_them(tmp_path):
    async with running_bridge(make_config(store={"path": str(tmp_path / "t.db")},
                                          disclosure={"profile": "passthrough"})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        ext.handler = ran
        await ext.sync(tab(1, url="https://notes.test/", tools=TOOLS), tab(2, url="https://other.test/",
                                                                         tools=[tool("ping_other")]))
        await eventually(lambda: app.core.tool("ping_other"))
        changes = ListChanges()
        url = f"http://127.0.0.1:{app.port}/mcp"
        try:
            async with Client(url, mode="legacy", message_handler=changes) as agent:
                listing = await agent.list_tools()
                names = {t.name for t in listing.tools}
                assert {"add_note", "ping_other"} <= names
                # No tool of the agent's can flip a switch.
                assert not [n for n in names if "control" in n or "pause" in n or "panel" in n]

                # Pause: every call answers PAUSED, built-ins too; tools/list is unchanged, no notification.
                await eventually(lambda: not app.notifier.pending)  # the tabs' own notification is out
                sent = app.notifier.sent
                state = (await panel(ext, "p1", action="pause"))["state"]
                assert state["controls"]["paused"] is True
                for name, args in (("add_note", {}), ("search_tools", {"query": "note"})):
                    result = await agent.call_tool(name, args)
                    assert result.is_error and result.structured_content["error"]["code"] == "PAUSED", name
                assert {t.name for t in (await agent.list_tools(cache_mode="bypass")).tools} == names
                assert not app.notifier.pending and app.notifier.sent == sent  # none sent, none waiting
                await panel(ext, "p2", action="resume")
                assert not (await agent.call_tool("add_note", {})).is_error

                # An origin switched off: its tools vanish (with the notification), calls are refused by name.
                state = (await panel(ext, "o1", action="origin", origin="https://notes.test", enabled=False))["state"]
                assert state["controls"]["originsOff"] == ["https://notes.test"]
                state = (await panel(ext, "o1q", expanded=[1]))["state"]
                notes_tab = next(t for t in state["tabs"] if t["tabId"] == 1)
                assert not notes_tab["originOn"] and all(not t["visible"] for t in notes_tab["tools"])
                await changes.until_listed(agent, unlisted("add_note"))
                assert listed("ping_other")(await agent.list_tools(cache_mode="bypass"))
                refused = await agent.call_tool("add_note", {})
                assert refused.structured_content["error"]["code"] == "OUT_OF_SCOPE"
                assert "switched off by the person" in refused.structured_content["error"]["message"]
                await panel(ext, "o2", action="origin", origin="https://notes.test", enabled=True)
                await changes.until_listed(agent, listed("add_note"))

                # Writes off: write tools answer WRITES_DISABLED naming the popup, read-only ones run.
                await panel(ext, "w1", action="writes", enabled=False)
                off = await agent.call_tool("add_note", {})
                assert off.structured_content["error"]["code"] == "WRITES_DISABLED"
                assert "popup" in off.structured_content["error"]["setting"]
                assert not (await agent.call_tool("read_notes", {})).is_error

                # The popup sees the activity, newest first, filtered by tab.
                state = (await panel(ext, "q1", tabId=1, limit=5))["state"]
                rows = state["activity"]
                assert [r["tool"] for r in rows][:3] == ["read_notes", "add_note", "add_note"]
                assert rows[1]["outcome"] == "WRITES_DISABLED" and all(r["tabId"] == 1 for r in rows)
                assert "PAUSED" in [r["outcome"] for r in rows]

                # A bad request is answered with a named error and changes nothing.
                bad = await panel(ext, "b1", action="origin", origin="not an origin", enabled=False)
                assert bad["ok"] is False and bad["error"]["code"] == "MALFORMED_MESSAGE"
        finally:
            await ext.close()


async def test_the_cli_reads_and_sets_the_switches_of_a_running_bridge(tmp_path):
    db = tmp_path / "t.db"
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{db}"\n')

    def cli(*args: str) -> dict[str, Any]:
        out = subprocess.run([sys.executable, "-m", "tabmcp.cli", "controls", *args, "--json", "--config", str(config)],
                             capture_output=True, text=True, check=True, timeout=60)
        return json.loads(out.stdout)  # type: ignore[no-any-return]

    async with running_bridge(make_config(store={"path": str(db)}, disclosure={"profile": "passthrough"})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        ext.handler = ran
        await ext.sync(tab(1, url="https://notes.test/", tools=TOOLS))
        await eventually(lambda: app.core.tool("add_note"))
        await panel(ext, "o1", action="origin", origin="https://notes.test", enabled=False)
        assert cli() == {"paused": False, "writes": None, "originsOff": ["https://notes.test"]}
        changes = ListChanges()
        try:
            async with Client(f"http://127.0.0.1:{app.port}/mcp", mode="legacy", message_handler=changes) as agent:
                assert cli("origin", "https://notes.test", "on")["originsOff"] == []
                await changes.until_listed(agent, listed("add_note"))  # picked up, and clients told
                assert cli("pause")["paused"] is True
                await eventually(lambda: app.core.controls.paused)
                result = await agent.call_tool("add_note", {})
                assert result.structured_content["error"]["code"] == "PAUSED"
        finally:
            await ext.close()
    # The switches outlive the bridge.
    assert cli() == {"paused": True, "writes": None, "originsOff": []}


async def test_a_pause_from_another_process_holds_at_once_without_an_extension(tmp_path):
    """No extension is connected (nothing polls the file): the next call still sees the pause
    another process wrote (``tabmcp controls pause``, here a second PersonSwitches on the file)."""
    from tabmcp.storage.build import person_controls

    db = tmp_path / "t.db"
    async with running_bridge(make_config(store={"path": str(db)})) as app:
        async with Client(f"http://127.0.0.1:{app.port}/mcp", mode="legacy") as agent:
            assert not (await agent.call_tool("search_tools", {"query": "note"})).is_error
            other = person_controls(db)
            try:
                other.set_paused(True)
                result = await agent.call_tool("search_tools", {"query": "note"})
                assert result.is_error and result.structured_content["error"]["code"] == "PAUSED"
                other.set_paused(False)
                assert not (await agent.call_tool("search_tools", {"query": "note"})).is_error
            finally:
                other.close()
