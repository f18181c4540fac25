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


async def test_snapshots_during_a_burst_do_not_ask_the_browser_for_every_tool(open_page: Any) -> None:
    """A snapshot (the extension takes one every few ms while a page registers) uses the cached list
    of the browser's other tools while a refresh is due: the refresh after the burst notifies if
    that list changed. Asking getTools() per snapshot read every tool's schema each time."""
    t = await open_page("native")
    await t.js("""() => {
        const original = ModelContext.prototype.getTools;
        window.getToolsCalls = 0;
        ModelContext.prototype.getTools = function (...args) { window.getToolsCalls++; return original.apply(this, args); };
    }""")
    await t.load_polyfill()
    out = await t.js(script(f"""
        await until(() => window.getToolsCalls > 0);
        const before = window.getToolsCalls;
        for (let i = 0; i < {COUNT}; i++) {{
          await mc.registerTool(tool('burst_' + i));
          await hook.snapshot();
        }}
        const calls = window.getToolsCalls - before;
        const last = await hook.snapshot();
        return {{ calls, tools: last.tools.length }};
    """))
    assert out["tools"] == COUNT
    # only the debounced refreshes (FOREIGN_REFRESH_MS apart), not one per snapshot
    assert out["calls"] <= COUNT // 4, out


async def test_a_snapshot_reads_each_schema_once_not_once_per_snapshot(open_page: Any) -> None:
    """Each tool's snapshot entry is built once (its schema parsed, made JSON-safe, frozen) and
    shared by every snapshot after: one more tool costs one more entry, not a re-read of all."""
    t = await open_page("native")
    await t.load_polyfill()
    out = await t.js(script(f"""
        for (let i = 0; i < {COUNT}; i++) await mc.registerTool(tool('many_' + i, () => 1,
          {{ inputSchema: {{ type: 'object', properties: {{ q: {{ type: 'string', description: 'q ' + i }} }} }} }}));
        const first = await hook.snapshot();
        await mc.registerTool(tool('one_more'));
        let calls = 0;
        const {{ parse, stringify }} = JSON;
        JSON.parse = function (...a) {{ calls++; return parse.apply(this, a); }};
        JSON.stringify = function (...a) {{ calls++; return stringify.apply(this, a); }};
        let second;
        try {{ second = await hook.snapshot(); }} finally {{ JSON.parse = parse; JSON.stringify = stringify; }}
        const kept = first.tools.filter((x) => second.tools.includes(x)).length;
        return {{ calls, kept, tools: second.tools.length, schema: second.tools.find((x) => x.name === 'many_7').inputSchema }};
    """))
    assert out["tools"] == COUNT + 1 and out["kept"] == COUNT
    assert out["schema"] == {"type": "object", "properties": {"q": {"type": "string", "description": "q 7"}}}
    assert out["calls"] <= 10, out  # the new tool's entry and the categories/states, whatever COUNT is


async def test_a_burst_of_registrations_refreshes_the_browser_list_once_after_it(open_page: Any) -> None:
    """The browser's list (getTools() builds every tool, schema and all: ~15 ms for 700 tools) is
    refreshed when the toolchanges were quiet for FOREIGN_REFRESH_MS, not every 50 ms while a page
    keeps registering; a tool registered behind our back during the burst is still found after it."""
    t = await open_page("native")
    await t.js("""() => {
        const original = ModelContext.prototype.getTools;
        window.getToolsCalls = 0;
        ModelContext.prototype.getTools = function (...args) { window.getToolsCalls++; return original.apply(this, args); };
        window.nativeRegister = ModelContext.prototype.registerTool;
    }""")
    await t.load_polyfill()
    out = await t.js(script("""
        await until(() => window.getToolsCalls > 0);
        await settle(100);
        const before = window.getToolsCalls;
        const started = performance.now();
        let i = 0;
        while (performance.now() - started < 600) await mc.registerTool(tool('burst_' + i++));
        await window.nativeRegister.call(mc, tool('behind_our_back'));  // not through our layer: foreign
        const during = window.getToolsCalls - before;
        const found = await until(() => mc.list().some((e) => e.name === 'behind_our_back'), 5000);
        return { during, registered: i, found };
    """))
    assert out["found"], out
    assert out["registered"] > 20, out
    assert out["during"] <= 3, out  # about one per 50 ms (12 here) before
