"""The popup and the ``tabmcp`` CLI see one state: a switch flipped or a site allowed in the real
popup is what the CLI reads, and a site the CLI forgets leaves the popup's list within a second
(the running bridge follows the CLI's writes: server/shared_state.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tabmcp.packaging.assets import EXTENSION_ID

from .conftest import Env, eventually, other_bridge

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
FERRY = "https://ferry.test"


async def cli(config: Path, *args: str) -> Any:
    out = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "tabmcp.cli", *args, "--config", str(config)],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if "--json" in args else out.stdout


async def test_the_popup_and_the_cli_share_one_state(env: Env, page_closer, tmp_path):
    if env.flavour != "polyfill":
        pytest.skip("the popup does not depend on the WebMCP flavour")
    db = tmp_path / "tabmcp.db"
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{db}"\n')
    async with other_bridge(env, store={"path": str(db)}) as bridge:
        popup = await env.browser.context.new_page()
        page_closer.append(popup)
        await popup.goto(POPUP)
        await popup.locator("body[data-ready]").wait_for()

        async def popup_says(msg: dict[str, Any]) -> Any:
            return await popup.evaluate("(msg) => chrome.runtime.sendMessage(msg)", msg)

        # the popup → the CLI
        reply = await popup_says({"type": "tabmcp.control.set", "action": "pause"})
        assert reply["ok"] and reply["state"]["controls"]["paused"] is True
        assert (await cli(config, "controls", "--json"))["paused"] is True
        assert (await popup_says({"type": "tabmcp.site.permission", "origin": FERRY, "reachable": True}))["ok"]
        await eventually(lambda: bridge.core.sites.reachable(FERRY))
        listed = await cli(config, "sites", "--json")
        assert [(s["origin"], s["reachable"]) for s in listed] == [(FERRY, True)]

        # the CLI → the running bridge → the popup
        await cli(config, "controls", "resume")
        await eventually(lambda: not bridge.core.controls.paused, timeout=5)
        state = await popup_says({"type": "tabmcp.panel.query", "limit": 1})
        assert state["state"]["controls"]["paused"] is False
        await cli(config, "sites", "forget", FERRY)

        async def popup_forgot() -> bool:
            sites = (await popup_says({"type": "tabmcp.sites"}))["sites"]
            return not any(s["origin"] == FERRY for s in sites)

        await eventually(popup_forgot, timeout=5)
        assert not bridge.core.sites.reachable(FERRY)
