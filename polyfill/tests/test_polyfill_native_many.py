# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""Layered on the browser's WebMCP, the polyfill costs a page registering many tools about what the
browser does: its own list of the browser's tools is refreshed once per change, one at a time, never
refetched in a loop while the page keeps registering (that made 682 tools take minutes)."""

from __future__ import annotations

from typing import Any

from webmcp_testlib import script

COUNT = 120


async def test_registering_many_tools_asks_the_browser_once_per_change(open_page: Any) -> None:
    t = await open_page("native")
    # Count the browser's getTools() calls: installed before the polyfill captures the method.
    await t.js("""() => {
        const original = ModelContext.prototype.getTools;
        window.getToolsCalls = 0;
        ModelContext.prototype.getTools = function (...args) { window.getToolsCalls++; return original.apply(this, args); };
    }""")
    await t.load_polyfill()
    out = await t.js(script(f"""
        await until(() => window.getToolsCalls > 0);  // the first refresh, at load
        const before = window.getToolsCalls;
        for (let i = 0; i < {COUNT}; i++) await mc.registerTool(tool('many_' + i));
        const calls = window.getToolsCalls - before;
        return {{ calls, listed: (await names()).length }};
    """))
    assert out["listed"] == COUNT
    assert out["calls"] <= COUNT + 5, out  # at most one refresh per toolchange


async def test_a_tool_removed_while_the_browser_answers_is_never_foreign(open_page: Any) -> None:
    t = await open_page("native")
    await t.load_polyfill()
    out = await t.js(script("""
        const ac = new AbortController();
        await mc.registerTool(tool('going'), { signal: ac.signal });
        await mc.registerTool(tool('staying'));
        const pending = hook.snapshot();  // asks the browser for its tools
        ac.abort();  // removed before it answered
        const snap = await pending;
        return { snap: snap.tools.map((x) => x.name), list: mc.list().map((e) => e.name) };
    """))
    assert out == {"snap": ["staying"], "list": ["staying"]}
