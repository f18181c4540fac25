"""``tabmcp browser`` in real Chromium on a kept profile: it starts with exactly the switches it
lists (none of Playwright's test defaults reach the person's profile: chrome://version shows the
command line), its pairing is a stored one ``tabmcp pair --list`` shows under the profile's label,
the next start with the same profile reuses it, and ``tabmcp pair --forget`` leaves the popup
saying the bridge no longer knows this browser."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from playwright.async_api import expect
from tabmcp.kept_pairing import browser_label
from tabmcp.launch.agent_browser import open_agent_browser
from tabmcp.launch.browser import find_chromium
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.server.app import running_bridge

from .conftest import e2e_config, eventually, headless

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
# Playwright's defaults for throwaway profiles that would harm a person's kept one.
HARMFUL = ("--password-store=basic", "--use-mock-keychain", "--disable-extensions", "--enable-automation",
           "--disable-sync", "--disable-background-networking", "--disable-component-update",
           "--disable-popup-blocking", "--disable-client-side-phishing-detection")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pair_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tabmcp.cli", "pair", *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ})


async def test_the_agent_browser_starts_as_a_person_would_and_its_pairing_is_the_persons(
        tmp_path: Path, pages_url: str) -> None:
    port = free_port()
    profile = tmp_path / "browser-profile"
    profile.mkdir()
    executable = (find_chromium(), True)
    async with running_bridge(e2e_config(server={"port": port}, store={"path": str(tmp_path / "t.db")})) as bridge:
        async with open_agent_browser(port=port, profile=profile, url=pages_url + "basic.html", headless=headless(),
                                      executable=executable) as agent:
            assert agent.pairing is not None and not agent.pairing.reused
            assert await bridge.core.wait_connected(20)
            assert bridge.core.link is not None and bridge.core.link.pairing_id == agent.pairing.id
            await eventually(lambda: bridge.core.tool("page_title"), timeout=30)  # the URL opened, its tools synced
            page = await agent.browser.context.new_page()
            await page.goto("chrome://version")
            switches = (await page.inner_text("#command_line")).split()
            for harmful in HARMFUL:
                assert harmful not in switches, f"{harmful} reached the kept profile: {switches}"
            assert f"--user-data-dir={profile}" in switches and "--enable-features=WebMCP" in switches
            assert not any(s.startswith("--disable-extensions-except") for s in switches)
            if os.geteuid() != 0:
                assert "--no-sandbox" not in switches
            listed = json.loads((await asyncio.to_thread(pair_cli, "--list", "--json", "--port", str(port))).stdout)
            assert [(p["id"], p["label"], p["ephemeral"]) for p in listed["pairings"]] == [
                (agent.pairing.id, browser_label(profile), False)]
            assert agent.pairing.id in listed["linked"]
            first = agent.pairing.id

        # The same kept profile again: the same pairing, nothing new in the list.
        async with open_agent_browser(port=port, profile=profile, headless=headless(),
                                      executable=executable) as agent:
            assert agent.pairing is not None and agent.pairing.reused and agent.pairing.id == first
            assert await bridge.core.wait_connected(20)
            listed = json.loads((await asyncio.to_thread(pair_cli, "--list", "--json", "--port", str(port))).stdout)
            assert [p["id"] for p in listed["pairings"]] == [first]

            # Revoked in the terminal: the extension cannot get back in, and its popup says why.
            forgot = await asyncio.to_thread(pair_cli, "--forget", first, "--port", str(port))
            assert forgot.returncode == 0, forgot.stderr
            popup = await agent.browser.context.new_page()
            await popup.goto(POPUP)
            await expect(popup.get_by_test_id("status")).to_have_text("not paired", timeout=15_000)
            await expect(popup.get_by_test_id("pairing")).to_contain_text("does not know this browser's pairing")
            assert not bridge.core.connected
