"""A hostile page in the same browser cannot drive the bridge."""

from __future__ import annotations

import logging

import pytest

from .conftest import Env


async def test_a_hostile_page_cannot_reach_the_bridge(env: Env, page_closer, caplog):
    if env.flavour != "polyfill":
        pytest.skip("the WebMCP flavour does not matter here")
    victim = await env.open("basic.html", wait_for_tool="add_note")
    page_closer.append(victim)
    hostile = await env.browser.context.new_page()
    page_closer.append(hostile)
    await hostile.goto(env.pages_url + "hostile.html")
    caplog.set_level(logging.WARNING, logger="tabmcp.extension")
    report = await hostile.evaluate("(port) => attack(port)", env.bridge.port)
    # The WebSocket handshake is refused (HTTP 403 before the socket opens).
    assert report["websocket"] != "open", report
    assert "refused extension WebSocket" in caplog.text and env.pages_url.rstrip("/") in caplog.text
    # A JSON POST carries the page's Origin and is refused; a "simple" no-cors POST is not JSON.
    assert report["mcp"] in ("status 403", "blocked: TypeError"), report
    assert await victim.get_by_test_id("note").count() == 0  # nothing ran in the victim page
    assert env.bridge.core.connected  # the real extension is still the one connected
