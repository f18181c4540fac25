"""A hostile local program against a real bridge, over real sockets: it forges the extension's
``Origin`` (any local process can) and speaks the wire protocol, with no pairing or a wrong one.
It must get nothing: no tools in or out, no panel, no switch, no approval, no reachable site, and
it must not displace the real (paired) extension. ``/health`` tells it only that a bridge runs.
The ceremony pairs a link through ``tabmcp pair`` in a subprocess, and the pairing outlives a
bridge restart."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from typing import Any

import httpx
import pytest
import websockets
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import PROTOCOL_VERSION
from tabmcp.server.app import BridgeApp, running_bridge

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

ORIGIN = f"chrome-extension://{EXTENSION_ID}"
BANK = "https://bank.example"
EVIL = "https://evil.example"
# Only the ceremony: what an unpaired link may ever receive.
CEREMONY = {"pair.required", "pair.code", "error", "pong"}


class Hostile:
    """A local process posing as the extension: a raw WebSocket with a forged Origin."""

    def __init__(self, port: int, *, origin: str = ORIGIN) -> None:
        self.port = port
        self.origin = origin
        self.received: list[dict[str, Any]] = []
        self.ws: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, pairing: dict[str, str] | None = None) -> dict[str, Any]:
        self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/extension", origin=self.origin)  # type: ignore[arg-type]
        self._reader = asyncio.create_task(self._read())
        await self.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extensionVersion": "9.9",
                         "extensionId": EXTENSION_ID, "instanceId": "hostile",
                         **({"pairing": pairing} if pairing else {})})
        return await self.next(lambda m: m["type"] in ("welcome", "pair.required", "error"))

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                for line in str(frame).split("\n"):
                    self.received.append(json.loads(line))
        except websockets.ConnectionClosed:
            pass

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def next(self, pred: Any, timeout: float = 10.0) -> dict[str, Any]:
        async def find() -> dict[str, Any]:
            while True:
                for msg in self.received:
                    if pred(msg):
                        self.received.remove(msg)
                        return msg
                await asyncio.sleep(0.02)

        return await asyncio.wait_for(find(), timeout)

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)


async def real_extension(app: BridgeApp) -> ScriptedExtension:
    ext = ScriptedExtension(app.port)
    assert (await ext.connect())["type"] == "welcome"

    async def answer(msg: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "result": {"content": [{"type": "text", "text": f"real {msg['tool']}"}]}}

    ext.handler = answer
    await ext.sync(tab(1, url=BANK + "/", tools=[tool("balance")]))
    await eventually(lambda: app.core.tool("balance"))
    return ext


@pytest.mark.parametrize("pairing", [None, {"id": "f00dfeed0001", "secret": "guessed"},
                                     {"id": "launch-0123456789ab", "secret": "0" * 64}],
                         ids=["no secret", "wrong secret", "forged launcher pairing"])
async def test_a_local_program_posing_as_the_extension_gets_nothing(pairing):
    async with running_bridge(make_config(policy={"allow_writes": False})) as app:
        real = await real_extension(app)
        hostile = Hostile(app.port)
        try:
            answer = await hostile.connect(pairing)
            assert answer["type"] != "welcome"
            # Tools in: a tab claiming to be the bank, with a tool the agent would trust.
            await hostile.send({"type": "tabs.sync", "tabs": [tab(7, url=BANK + "/transfer", tools=[tool("transfer")])]})
            await hostile.send({"type": "tab.update", "tab": tab(8, url=BANK + "/x", tools=[tool("wipe")])})
            # The person's switches and choices.
            await hostile.send({"type": "control.set", "requestId": "c1", "action": "writes", "enabled": True})
            await hostile.send({"type": "control.set", "requestId": "c2", "action": "pause"})
            await hostile.send({"type": "site.permission", "origin": EVIL, "reachable": True})
            await hostile.send({"type": "forms.set", "origin": EVIL, "enabled": True})
            # The panel: tabs and activity.
            await hostile.send({"type": "panel.query", "requestId": "p1"})
            # An approval question meant for the person, answered by the hostile program.
            entry = app.core.tool("balance")
            assert entry is not None
            approval = asyncio.create_task(app.core.request_approval(entry, {}, "test", timeout_s=30))
            question = await real.wait_for(lambda m: m["type"] == "approval.request")
            await hostile.send({"type": "approval.result", "approvalId": question["approvalId"], "approved": True})
            await hostile.send({"type": "ping", "ts": 1})
            await hostile.next(lambda m: m["type"] == "pong")  # everything before it was handled

            assert not approval.done()
            await real.send({"type": "approval.result", "approvalId": question["approvalId"], "approved": False})
            assert (await approval)[0] is False
            assert app.core.tool("transfer") is None and app.core.tool("wipe") is None
            assert app.core.controls.state().writes is None and not app.core.controls.paused
            assert not app.core.sites.reachable(EVIL)
            assert not app.core.forms.enabled(EVIL)
            # The real extension is still the link, and calls still reach it, not the hostile one.
            assert app.core.connected and app.core.link is not None and app.core.link.hello.instance_id == "test"
            assert (await app.core.call_tool(entry, {}))["content"][0]["text"] == "real balance"
            # Tools out: nothing of the bridge's reached the hostile program.
            assert {m["type"] for m in hostile.received} <= CEREMONY, hostile.received
            errors = [m for m in hostile.received if m["type"] == "error"]
            assert errors and all(m["code"] == "NOT_PAIRED" for m in errors)
        finally:
            await hostile.close()
            await real.close()


async def test_an_unpaired_link_cannot_displace_the_paired_one_however_often_it_tries():
    async with running_bridge(make_config()) as app:
        real = await real_extension(app)
        hostiles = [Hostile(app.port) for _ in range(5)]
        try:
            for hostile in hostiles:
                assert (await hostile.connect())["type"] == "pair.required"
            assert app.core.connected and not real.ws.close_code
            entry = app.core.tool("balance")
            assert entry is not None and (await app.core.call_tool(entry, {}))["content"][0]["text"] == "real balance"
        finally:
            for hostile in hostiles:
                await hostile.close()
            await real.close()


async def test_health_without_a_key_says_only_that_a_bridge_runs():
    async with running_bridge(make_config(server={"mcp_token": "agent-token"})) as app:
        real = await real_extension(app)
        try:
            entry = app.core.tool("balance")
            assert entry is not None
            await app.core.call_tool(entry, {"iban": "DE00 1234"})
            url = f"http://127.0.0.1:{app.port}/health"
            async with httpx.AsyncClient() as http:
                anonymous = (await http.get(url)).json()
                agent = (await http.get(url, headers={"Authorization": "Bearer agent-token"})).json()
                wrong = (await http.get(url, headers={"Authorization": "Bearer guess"})).json()
        finally:
            await real.close()
    for answer in (anonymous, wrong):
        assert set(answer) <= {"ok", "bridge", "protocol"}, answer
        assert "DE00" not in json.dumps(answer)
    assert "extension" in agent and "activity" in agent  # an MCP client with the token may read it


async def test_the_control_api_wants_the_control_key_and_no_web_origin():
    async with running_bridge(make_config(server={"mcp_token": "agent-token"})) as app:
        base = f"http://127.0.0.1:{app.port}/control/pairings"
        key = app.control_key
        async with httpx.AsyncClient() as http:
            nobody = await http.post(base, json={"label": "x"})
            agent = await http.post(base, json={"label": "x"}, headers={"Authorization": "Bearer agent-token"})
            page = await http.post(base, json={"label": "x"}, headers={"Authorization": f"Bearer {key}",
                                                                       "Origin": "https://evil.example"})
            rebinding = await http.get(base, headers={"Authorization": f"Bearer {key}", "Host": "evil.example"})
            person = await http.get(base, headers={"Authorization": f"Bearer {key}"})
    assert (nobody.status_code, agent.status_code, page.status_code, rebinding.status_code) == (401, 401, 403, 403)
    assert person.status_code == 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tabmcp_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tabmcp.cli", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ})


async def test_the_ceremony_pairs_through_the_cli_and_the_pairing_outlives_a_restart(tmp_path):
    port = free_port()
    config = make_config(server={"port": port}, store={"path": str(tmp_path / "tabmcp.db")})
    async with running_bridge(config) as app:
        browser = Hostile(port)  # the real extension, as far as the wire goes: it has no pairing yet
        assert (await browser.connect())["type"] == "pair.required"
        await browser.send({"type": "pair.request"})
        code = (await browser.next(lambda m: m["type"] == "pair.code"))["code"]
        wrong = await asyncio.to_thread(tabmcp_cli, "pair", "000-000" if code != "000-000" else "111-111",
                                        "--port", str(port))
        assert wrong.returncode == 1 and "no pairing request has code" in wrong.stderr
        done = await asyncio.to_thread(tabmcp_cli, "pair", code, "--port", str(port))
        assert done.returncode == 0, done.stderr
        paired = await browser.next(lambda m: m["type"] == "pair.done")
        pairing = {"id": paired["pairingId"], "secret": paired["secret"]}
        await browser.close()
        again = Hostile(port)
        assert (await again.connect(pairing))["type"] == "welcome"
        assert app.core.connected
        listed = await asyncio.to_thread(tabmcp_cli, "pair", "--list", "--json", "--port", str(port))
        assert pairing["id"] in listed.stdout and pairing["secret"] not in listed.stdout
        await again.close()

    async with running_bridge(config) as app:  # the next bridge run, same database
        back = Hostile(port)
        assert (await back.connect(pairing))["type"] == "welcome"
        forgot = await asyncio.to_thread(tabmcp_cli, "pair", "--forget", pairing["id"], "--port", str(port))
        assert forgot.returncode == 0, forgot.stderr
        await asyncio.wait_for(back.ws.wait_closed(), 10)
        assert not app.core.connected
        after = Hostile(port)
        assert (await after.connect(pairing))["type"] == "pair.required"
        await after.close()


async def test_a_firefox_extension_origin_is_admitted_only_by_its_pairing():
    async with running_bridge(make_config()) as app:
        origin = "moz-extension://0b5c2a1e-52f1-4c7f-9a55-4f4f7a9c1d2e"
        stranger = Hostile(app.port, origin=origin)
        assert (await stranger.connect())["type"] == "pair.required"
        await stranger.close()
        from tabmcp.control_key import ControlClient

        pairing_id, secret = await ControlClient(app.port).create_pairing("Firefox 153")
        firefox = Hostile(app.port, origin=origin)
        assert (await firefox.connect({"id": pairing_id, "secret": secret}))["type"] == "welcome"
        await firefox.close()
        with pytest.raises(websockets.InvalidStatus):
            await Hostile(app.port, origin="moz-extension://not-a-uuid").connect()
