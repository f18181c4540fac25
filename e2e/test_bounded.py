"""Bounded state under a page that churns tool names (issue 30, item 10), in real Chromium.

``pages/churn.html`` registers tools under names never used before while an agent (the MCP SDK
client) lists tools, so the bridge pins every name it shows. Its origin is one the person never
trusted: its pins stay under the per-origin cap while it runs, and its pins and usage are gone
a grace period after its tab closed. On another origin (the same pages served as ``localhost``)
the person approves a destructive call in the extension's window: that origin's pins survive.
"""

from __future__ import annotations

import asyncio

import pytest
from tabmcp.core.registry import origin_of
from tabmcp.server.app import BridgeApp

from .conftest import Env, eventually, other_bridge
from .test_untrusted import answer_in_window, client

CAP = 25
GRACE_S = 1.0


def pin_rows(bridge: BridgeApp, origin: str) -> int:
    return len(bridge.core.pins.records(origin=origin))


async def test_a_churning_page_is_capped_and_its_state_expires_after_it_closed(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("the bounds and the expiry run in the bridge; one flavour covers them")
    hostile = origin_of(env.pages_url)
    assert hostile is not None and hostile.startswith("http://127.0.0.1:")
    trusted_url = env.pages_url.replace("127.0.0.1", "localhost")
    trusted = origin_of(trusted_url)
    async with other_bridge(
        env,
        trust={"pin_definitions": True, "pins_per_origin": CAP, "transient_grace_s": GRACE_S},
        disclosure={"profile": "passthrough"},
        mcp={"tools_ttl_ms": 0},  # the agent lists anew each time, as a polling agent does
        policy={"allow_writes": True, "approval": {"timeout_s": 60}},
    ) as bridge:
        # The person approves a destructive call on the other origin: a decision, kept.
        notes = await env.browser.context.new_page()
        page_closer.append(notes)
        await notes.goto(trusted_url + "basic.html")
        await eventually(lambda: bridge.core.tool("clear_notes"), timeout=20)
        async with client(bridge) as agent:
            call = asyncio.create_task(agent.call_tool("clear_notes", {}))
            await answer_in_window(env, call, allow=True)
            assert not (await call).is_error

            page = await env.browser.context.new_page()
            page_closer.append(page)
            await page.goto(env.pages_url + "churn.html?keep=10")
            await page.evaluate("() => window.ready")
            await eventually(lambda: bridge.core.tool("transfer"), timeout=20)
            assert not (await agent.call_tool("transfer", {})).is_error  # a usage row of the hostile origin
            bridge.core.usage.flush()
            assert hostile in bridge.core.usage.origins()

            listed: set[str] = set()
            most = 0
            for _ in range(8):  # the page churns, the agent lists: every name shown is pinned
                n = await page.evaluate("() => window.churn(10)")
                await eventually(lambda n=n: bridge.core.tool(f"fresh_{n - 1}"), timeout=20)
                listed |= {t.name for t in (await agent.list_tools()).tools if t.name.startswith("fresh_")}
                most = max(most, pin_rows(bridge, hostile))
            assert len(listed) > 2 * CAP  # the agent was shown (and the bridge pinned) far more names
            assert most <= CAP and bridge.core.pins.evicted > 0

        await page.close()
        await notes.close()
        # The hostile origin's pins and usage go a grace period after its tab closed; the origin
        # where the person approved a call keeps its pins, the approved one marked kept.
        await eventually(lambda: pin_rows(bridge, hostile) == 0, timeout=30)
        assert hostile not in bridge.core.usage.origins()
        kept = bridge.core.pins.get(trusted, "clear_notes")
        assert kept is not None and pin_rows(bridge, trusted) >= 6
        assert bridge.core.pins.is_trusted(trusted) and not bridge.core.pins.is_trusted(hostile)
