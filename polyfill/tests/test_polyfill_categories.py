# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""Categories: registerCategory / unregisterCategory / expandCategory / getCategories / list()."""

from __future__ import annotations

from typing import Any

from webmcp_testlib import script

CATEGORY = """
const members = [
  tool('orders.search', (a) => 'found ' + a.q, { title: 'Search orders', annotations: { readOnlyHint: true },
       inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }),
  tool('orders.cancel', (a) => ({ cancelled: a.id }), { annotations: { destructiveHint: true } }),
];
const category = { name: 'orders', description: 'Everything about orders', tools: members };
"""


async def test_register_category_list_and_expand(tab: Any) -> None:
    out = await tab.js(script(CATEGORY + """
        let changes = 0;
        mc.addEventListener('toolchange', () => changes++);
        await mc.registerTool(tool('help', () => 'h', { title: 'Help' }));
        await settle();
        changes = 0;
        const result = await mc.registerCategory(category);
        await settle();
        return {
          result: result === undefined,
          changes,
          list: mc.list(),
          legacyList: legacy.list(),
          expanded: mc.expandCategory('orders'),
          legacyExpanded: legacy.expandCategory('orders'),
          categories: mc.getCategories(),
          getTools: await names(),
          native: await nativeGetTools(),
        };
    """))
    assert out["result"] is True
    assert out["changes"] == 3  # one per member tool, one for the category
    assert out["list"] == [
        {"name": "help", "title": "Help", "description": "Tool help",
         "inputSchema": {"type": "object", "properties": {}}, "annotations": {}},
        {"name": "orders", "description": "Everything about orders", "isCategory": True, "toolCount": 2},
    ]
    assert out["legacyList"] == out["list"]
    assert out["expanded"] == [
        {"name": "orders.search", "title": "Search orders", "description": "Tool orders.search",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
         "annotations": {"readOnlyHint": True}},
        {"name": "orders.cancel", "title": "", "description": "Tool orders.cancel",
         "inputSchema": {"type": "object", "properties": {}}, "annotations": {"destructiveHint": True}},
    ]
    assert out["legacyExpanded"] == out["expanded"]
    assert out["categories"] == [
        {"name": "orders", "description": "Everything about orders", "tools": ["orders.search", "orders.cancel"]},
    ]
    assert out["getTools"] == ["help", "orders.cancel", "orders.search"]  # members are ordinary tools
    if tab.native:  # registered with the browser, through the normal registerTool path
        assert out["native"] == ["help", "orders.cancel", "orders.search"]


async def test_category_members_execute_by_name(tab: Any) -> None:
    out = await tab.js(script(CATEGORY + """
        await mc.registerCategory(category);
        const activated = [];
        mc.addEventListener('toolactivated', (e) => activated.push(e.toolName));
        const viaDocument = await mc.executeTool(await find('orders.search'), { q: 'shoes' });
        const viaLegacy = await legacy.executeTool('orders.cancel', { id: 7 });
        const viaHook = await hook.call('orders.search', { q: 'hats' });
        const categoryItself = await attempt(() => legacy.executeTool('orders', {}));
        await settle();
        return { viaDocument, viaLegacy, viaHook, categoryItself, activated };
    """))
    assert out["viaDocument"] == "found shoes"
    assert out["viaLegacy"] == {"content": [{"type": "text", "text": '{"cancelled":7}'}],
                                "structuredContent": {"cancelled": 7}}
    assert out["viaHook"] == {"ok": True, "result": {"content": [{"type": "text", "text": "found hats"}]}}
    assert out["categoryItself"][:2] == ["DOMException", "NotFoundError"]
    assert out["activated"] == ["orders.search", "orders.cancel", "orders.search"]


async def test_category_namespace_collisions(tab: Any) -> None:
    out = await tab.js(script(CATEGORY + """
        await mc.registerTool(tool('existing'));
        await mc.registerCategory(category);
        const dup = ['DOMException', 'InvalidStateError', 'Duplicate tool name'];
        const r = {
          categoryNamedLikeTool: await attempt(() => mc.registerCategory({ name: 'existing', description: 'd', tools: [] })),
          categoryNamedLikeCategory: await attempt(() => mc.registerCategory({ name: 'orders', description: 'd', tools: [] })),
          categoryNamedLikeMember: await attempt(() => mc.registerCategory({ name: 'orders.search', description: 'd', tools: [] })),
          toolNamedLikeCategory: await attempt(() => mc.registerTool(tool('orders'))),
          legacyToolNamedLikeCategory: attemptSync(() => legacy.registerTool(tool('orders'))),
          memberNamedLikeTool: await attempt(() => mc.registerCategory({ name: 'c2', description: 'd', tools: [tool('fresh'), tool('existing')] })),
          membersRepeat: await attempt(() => mc.registerCategory({ name: 'c3', description: 'd', tools: [tool('same'), tool('same')] })),
          memberNamedLikeItsCategory: await attempt(() => mc.registerCategory({ name: 'c4', description: 'd', tools: [tool('c4')] })),
          badCategoryName: await attempt(() => mc.registerCategory({ name: 'no spaces', description: 'd', tools: [] })),
          badMemberName: await attempt(() => mc.registerCategory({ name: 'c5', description: 'd', tools: [tool('bad name')] })),
          emptyDescription: await attempt(() => mc.registerCategory({ name: 'c6', description: '', tools: [] })),
          missingTools: await attempt(() => mc.registerCategory({ name: 'c7', description: 'd' })),
          memberWithoutExecute: await attempt(() => mc.registerCategory({ name: 'c8', description: 'd', tools: [{ name: 'm', description: 'd' }] })),
          preAborted: await attempt(() => mc.registerCategory({ name: 'c9', description: 'd', tools: [tool('m9')] }, { signal: AbortSignal.abort() })),
        };
        await settle();
        return { r, dup, names: await names(), categories: mc.getCategories().map((c) => c.name),
                 categoryInfo: mc.getCategories(), native: await nativeGetTools() };
    """))
    r, dup = out["r"], out["dup"]
    for key in ("categoryNamedLikeTool", "categoryNamedLikeCategory", "categoryNamedLikeMember",
                "toolNamedLikeCategory", "legacyToolNamedLikeCategory"):
        assert r[key] == dup, key
    assert r["badCategoryName"] == ["DOMException", "InvalidStateError", "Invalid tool name"]
    assert r["emptyDescription"] == ["DOMException", "InvalidStateError", "Description is required"]
    assert r["missingTools"][0] == "TypeError" and "'tools'" in r["missingTools"][2]
    assert r["preAborted"] == ["DOMException", "AbortError", "signal is aborted without reason"]
    # A bad member never takes its neighbours down: the category and its valid members are
    # registered, each refused member is reported (getCategories' `refused`, the console).
    for key in ("memberNamedLikeTool", "membersRepeat", "memberNamedLikeItsCategory", "badMemberName",
                "memberWithoutExecute"):
        assert r[key] == ["ok", None], key
    refused = {c["name"]: c.get("refused") for c in out["categoryInfo"]}
    assert refused["c2"] == [{"name": "existing", "error": "InvalidStateError: Duplicate tool name"}]
    assert refused["c3"] == [{"name": "same", "error": "InvalidStateError: Duplicate tool name"}]
    assert refused["c4"] == [{"name": "c4", "error": "InvalidStateError: Duplicate tool name"}]
    assert refused["c5"] == [{"name": "bad name", "error": "InvalidStateError: Invalid tool name"}]
    assert refused["c8"][0]["name"] == "m" and "'execute'" in refused["c8"][0]["error"]
    assert refused["orders"] is None
    # Failed registrations are atomic: nothing of them is left behind.
    assert out["names"] == ["existing", "fresh", "orders.cancel", "orders.search", "same"]
    assert out["categories"] == ["c2", "c3", "c4", "c5", "c8", "orders"]
    if tab.native:
        assert out["native"] == out["names"]


async def test_abort_and_unregister_remove_category_and_members(tab: Any) -> None:
    out = await tab.js(script(CATEGORY + """
        let changes = 0;
        mc.addEventListener('toolchange', () => changes++);
        const ac = new AbortController();
        await mc.registerCategory(category, { signal: ac.signal });
        await mc.registerCategory({ name: 'other', description: 'Other', tools: [tool('other.one')] });
        await mc.registerTool(tool('loose'));
        await settle();
        changes = 0;
        ac.abort();
        const afterAbort = { names: await names(), list: mc.list().map((e) => e.name),
                             categories: mc.getCategories().map((c) => c.name) };
        await settle();
        const abortChanges = changes;
        mc.unregisterCategory('other');
        const afterUnregister = { names: await names(), categories: mc.getCategories() };
        const again = await attempt(() => mc.registerCategory(category));  // the names are free again
        legacy.unregisterCategory('orders');
        await settle();
        return { afterAbort, abortChanges, afterUnregister, again, final: await names(),
                 native: await nativeGetTools() };
    """))
    assert out["afterAbort"] == {"names": ["loose", "other.one"], "list": ["loose", "other"],
                                 "categories": ["other"]}
    assert out["abortChanges"] == 3  # two members and the category
    assert out["afterUnregister"] == {"names": ["loose"], "categories": []}
    assert out["again"] == ["ok", None]
    assert out["final"] == ["loose"]
    if tab.native:
        assert out["native"] == ["loose"]


async def test_category_edge_cases(tab: Any) -> None:
    out = await tab.js(script(CATEGORY + """
        await mc.registerTool(tool('plain_tool'));
        await mc.registerCategory(category);
        const notFound = {
          expand: attemptSync(() => mc.expandCategory('nope')),
          expandTool: attemptSync(() => mc.expandCategory('plain_tool')),
          unregister: attemptSync(() => mc.unregisterCategory('nope')),
          legacyExpand: attemptSync(() => legacy.expandCategory('nope')),
        };
        // Unregistering a single member removes it from its category; the category stays.
        legacy.unregisterTool('orders.cancel');
        return { notFound, categories: mc.getCategories(), list: mc.list().map((e) => [e.name, e.toolCount]),
                 names: await names() };
    """))
    for key, err in out["notFound"].items():
        assert err[:2] == ["DOMException", "NotFoundError"], key
    assert "nope" in out["notFound"]["expand"][2]
    assert out["categories"] == [{"name": "orders", "description": "Everything about orders",
                                  "tools": ["orders.search"]}]
    assert out["list"] == [["orders", 1], ["plain_tool", None]]
    assert out["names"] == ["orders.search", "plain_tool"]
