"""One page cannot freeze the bridge with the work its schemas choose (issue 35, item 1), in real
Chromium with the extension, a real ``tabmcp serve`` process and the official MCP client.

``pages/schema-bombs.html`` registers, beside an innocent tab (``basic.html``), tools whose
checking a page chooses the cost of: ``$ref`` chains of 24 levels as an ``outputSchema`` and as
an ``inputSchema`` (2^24 expansions, minutes of one core for a bridge that expands them; with 21
levels the landed bridge stopped answering anyone for more than 20 s), a result pattern
``^(a+)+$`` against twelve ``"aaa…a!"`` strings, and the same pattern on an argument. Outcomes, not
times: ``/health`` and the innocent tab's call are answered while the page registers and while its
tools are called (each request has the HTTP client's 10 s timeout as the hang guard), every hostile
tool is kept with its over-budget check named in ``_meta``, and the pattern checks give verdicts.
"""

from __future__ import annotations

import pytest
from tabmcp.core.budget import OVER_BUDGET_NOTE, TAB_OVER_BUDGET
from tabmcp.packaging.assets import EXTENSION_ID

from .bridge_process import BridgeProcess, bridge_process
from .conftest import eventually

pytestmark = pytest.mark.timeout(240)


async def innocent_call(bridge: BridgeProcess, text: str) -> None:
    assert (await bridge.health())["tools"] >= 6  # answered, with the person's control key
    async with bridge.client() as client:
        done = await client.call_tool("add_note", {"text": text})
        assert not done.is_error, done


async def test_schema_bombs_beside_an_innocent_tab(tmp_path, pages_url):
    async with bridge_process(tmp_path, toml='[disclosure]\nprofile = "passthrough"\n') as bridge:
        assert bridge.browser is not None
        innocent = await bridge.browser.context.new_page()
        await innocent.goto(pages_url + "basic.html")

        async def innocent_ready() -> bool:
            return (await bridge.health())["tools"] >= 6

        await eventually(innocent_ready, timeout=20, interval=0.1)
        hostile = await bridge.browser.context.new_page()
        await hostile.goto(pages_url + "schema-bombs.html")
        assert await hostile.evaluate("() => window.arm()")
        await innocent_call(bridge, "while the bombs arrive")

        async with bridge.client() as agent:
            async def all_listed() -> dict[str, object] | None:
                listed = {t.name: t for t in (await agent.list_tools()).tools}
                wanted = {"bomb_output", "bomb_input", "backtrack", "backtrack_input"}
                return {n: listed[n] for n in wanted} if wanted <= set(listed) else None

            tools = await eventually(all_listed, timeout=30, interval=0.2)
            await innocent_call(bridge, "after the bombs were read")
            # kept, each check that ran over its budget named where the agent reads the tool
            assert tools["bomb_output"].output_schema is None  # a client would spend as much on every result
            meta = tools["bomb_input"].meta or {}
            assert f"the input schema: {OVER_BUDGET_NOTE}" in meta["tabmcp/unchecked"]
            assert tools["backtrack"].output_schema is not None  # its pattern runs on RE2
            overview = (await agent.call_tool("introspect", {})).structured_content
            (source,) = [s for s in overview["sources"] if s["url"] == hostile.url]
            assert {"name": "bomb_input", "notes": [f"the input schema: {OVER_BUDGET_NOTE}"]} in source["unchecked"]
            refused = {(r["kind"], r["name"]): r["reason"] for r in source["refused"]}
            assert OVER_BUDGET_NOTE in refused[("outputSchema", "bomb_output")]

            ran = await agent.call_tool("bomb_input", {"q": "x"})  # arguments go on unchecked, as in the browser
            assert not ran.is_error, ran
            await innocent_call(bridge, "after a bomb's call")

            refused = await agent.call_tool("backtrack", {})
            assert refused.is_error and refused.structured_content["error"]["code"] == "BAD_RESULT"
            assert refused.structured_content["error"]["rule"] == "pattern"
            bad = await agent.call_tool("backtrack_input", {"s": "a" * 40 + "!"})
            assert bad.is_error and bad.structured_content["error"]["rule"] == "pattern"
            good = await agent.call_tool("backtrack_input", {"s": "a" * 40})
            assert not good.is_error, good
            await innocent_call(bridge, "after the patterns")
        assert await innocent.locator("[data-testid=note]").count() == 4


async def test_a_page_that_keeps_sending_bombs_is_cut_off_alone_and_the_person_told(tmp_path, pages_url):
    async with bridge_process(tmp_path, toml='[disclosure]\nprofile = "passthrough"\n') as bridge:
        assert bridge.browser is not None
        innocent = await bridge.browser.context.new_page()
        await innocent.goto(pages_url + "basic.html")

        async def innocent_ready() -> bool:
            return (await bridge.health())["tools"] >= 6

        await eventually(innocent_ready, timeout=20, interval=0.1)
        hostile = await bridge.browser.context.new_page()
        await hostile.goto(pages_url + "schema-bombs.html")
        assert await hostile.evaluate("() => window.arm()")
        popup = await bridge.browser.context.new_page()
        await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
        marker = popup.get_by_test_id("tab").filter(has_text="Schema bombs").get_by_test_id("refused")

        async def told() -> bool:
            return await marker.count() > 0 and TAB_OVER_BUDGET in (await marker.first.get_attribute("title") or "")

        async with bridge.client() as agent:
            cut = False
            for n in range(10):  # fresh bombs until the bridge stops reading this tab
                await hostile.evaluate("(n) => window.more(n)", n)

                async def read_or_cut(n: int = n) -> bool:
                    listed = {t.name for t in (await agent.list_tools()).tools}
                    return f"fresh_{n}" in listed or await told()

                await eventually(read_or_cut, timeout=30, interval=0.2)
                if await told():
                    cut = True
                    break
                await innocent_call(bridge, f"between bombs {n}")
            assert cut  # the person's popup marks the tab with the named reason
            listed = {t.name for t in (await agent.list_tools()).tools}
            assert {"bomb_input", "backtrack", "add_note"} <= listed  # its tools as last read, and the others
            await innocent_call(bridge, "after the cut")
