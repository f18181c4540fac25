"""Pairing with the real extension in real Chromium: the person pairs once (the popup shows a
code, ``tabmcp pair CODE`` in a terminal confirms it), the pairing survives a bridge restart, and a
local program posing as the extension (forged Origin, no secret) never displaces it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from typing import Any

import pytest
import websockets
from playwright.async_api import expect
from tabmcp.launch.launcher import launch_browser
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import PROTOCOL_VERSION
from tabmcp.server.app import running_bridge

from .conftest import Env, e2e_config
from .test_popup import no_axe_violations

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tabmcp_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tabmcp.cli", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ})


async def test_the_person_pairs_the_extension_in_the_popup_and_the_terminal(tmp_path, pages_url: str):
    port = free_port()
    config = e2e_config(server={"port": port}, store={"path": str(tmp_path / "tabmcp.db")})
    bridge_cm = running_bridge(config)
    bridge = await bridge_cm.__aenter__()
    try:
        async with launch_browser(bridge_url=f"ws://127.0.0.1:{port}/extension", headless=True, pair=False) as browser:
            popup = await browser.context.new_page()
            await popup.goto(POPUP)
            await expect(popup.get_by_test_id("status")).to_have_text("not paired", timeout=15_000)
            assert not bridge.core.connected
            # The switches act on a bridge this browser is not paired with yet: not shown.
            await expect(popup.get_by_test_id("controls")).to_be_hidden()
            command = popup.get_by_test_id("pair-command")
            await expect(command).to_have_text(re.compile(r"^tabmcp pair \d{3}-\d{3}$"), timeout=15_000)
            code = (await command.inner_text()).split()[-1]
            await no_axe_violations(popup)  # the pairing banner, as the person sees it
            done = await asyncio.to_thread(tabmcp_cli, "pair", code, "--port", str(port))
            assert done.returncode == 0, done.stderr
            # Named by the browser's brand (its user agent says "Chrome" in every Chromium build).
            assert re.search(r"^paired Chromium \d+ \(id ", done.stderr, re.M), done.stderr
            assert await bridge.core.wait_connected(15)
            await expect(popup.get_by_test_id("status")).to_have_text("connected", timeout=15_000)
            await expect(popup.get_by_test_id("paired")).to_have_text("· paired")
            await expect(popup.get_by_test_id("controls")).to_be_visible()
            await expect(popup.get_by_test_id("pairing")).to_be_hidden()
            page = await browser.context.new_page()
            await page.goto(pages_url + "basic.html")
            await asyncio.wait_for(_tool(bridge, "add_note"), 15)
            stored = await (await browser.worker()).evaluate("() => chrome.storage.local.get('bridgePairings')")
            (pairing,) = stored["bridgePairings"].values()
            assert not pairing["id"].startswith("launch-")  # the person's pairing, not a launcher's

            # The bridge restarts on the same database: the extension comes back with its pairing.
            await bridge_cm.__aexit__(None, None, None)
            bridge_cm = running_bridge(config)
            bridge = await bridge_cm.__aenter__()
            assert await bridge.core.wait_connected(15), "the stored pairing no longer admits the extension"
            assert bridge.core.link is not None and bridge.core.link.pairing_id == pairing["id"]
            await asyncio.wait_for(_tool(bridge, "add_note"), 15)

            # The options page forgets this browser's pairing: it is unpaired again, and says so.
            options = await browser.context.new_page()
            await options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
            await expect(options.get_by_test_id("pairing-state")).to_have_text("Paired with the bridge.")
            await options.get_by_test_id("forget-pairing").click()
            await expect(options.get_by_test_id("pairing-state")).to_contain_text("Not paired", timeout=15_000)
            assert not bridge.core.connected
    finally:
        await bridge_cm.__aexit__(None, None, None)


async def _tool(bridge: Any, name: str) -> None:
    while not bridge.core.tool(name):
        await asyncio.sleep(0.05)


async def test_a_local_program_with_a_forged_origin_does_not_displace_the_real_extension(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("the WebMCP flavour does not matter here")
    page = await env.open("basic.html", wait_for_tool="add_note")
    page_closer.append(page)
    real = env.bridge.core.link
    received: list[dict[str, Any]] = []
    for attempt in range(3):
        async with websockets.connect(f"ws://127.0.0.1:{env.bridge.port}/extension",
                                      origin=f"chrome-extension://{EXTENSION_ID}") as ws:  # type: ignore[arg-type]
            await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "extensionId": EXTENSION_ID,
                                      "instanceId": f"hostile-{attempt}"}))
            await ws.send(json.dumps({"type": "tabs.sync", "tabs": []}))  # would drop every real tab
            await ws.send(json.dumps({"type": "control.set", "requestId": "c", "action": "pause"}))
            await ws.send(json.dumps({"type": "ping", "ts": 1}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                received.append(message)
                if message["type"] == "pong":
                    break
    assert {m["type"] for m in received} <= {"pair.required", "error", "pong"}, received
    assert env.bridge.core.link is real and env.bridge.core.connected and not env.bridge.core.controls.paused
    async with env.client() as client:
        result = await client.call_tool("call_tool", {"name": "add_note", "arguments": {"text": "still mine"}})
    assert not result.is_error, result
    await expect(page.get_by_test_id("note")).to_have_text(["still mine"])
