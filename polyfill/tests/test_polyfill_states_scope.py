# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""Page states (setStates / getStates / statechange) and the non-standard `scope` field."""

from __future__ import annotations

import json
from typing import Any

from webmcp_testlib import script


async def test_states(tab: Any) -> None:
    out = await tab.js(script("""
        const events = [];
        mc.addEventListener('statechange', (e) => events.push(['document', e.constructor.name, mc.getStates()]));
        legacy.addEventListener('statechange', () => events.push(['navigator']));
        let handler = 0;
        mc.onstatechange = () => handler++;
        const initial = mc.getStates();
        const returned = mc.setStates(['logged-in', 'cart-open', 'logged-in']);
        const afterSet = mc.getStates();
        const copy = mc.getStates(); copy.push('mutated');
        mc.setStates(['cart-open', 'logged-in']);  // same set: no event
        const eventsAfterSame = events.length;
        legacy.setStates(['admin']);                // the alias shares the states
        const fromDocument = mc.getStates();
        const errors = {
          notArray: attemptSync(() => mc.setStates('admin')),
          notStrings: attemptSync(() => mc.setStates(['ok', 5])),
          none: attemptSync(() => mc.setStates()),
        };
        const afterErrors = mc.getStates();
        mc.setStates([]);
        return { initial, returned, afterSet, eventsAfterSame, fromDocument, errors, afterErrors, events, handler,
                 final: legacy.getStates(), snapshot: (await hook.snapshot()).states };
    """))
    assert out["initial"] == []
    assert out["returned"] is None
    assert out["afterSet"] == ["logged-in", "cart-open"]  # duplicates dropped, order kept
    assert out["eventsAfterSame"] == 2, json.dumps(out)  # one statechange (document + its navigator echo)
    assert out["fromDocument"] == ["admin"]
    for key, err in out["errors"].items():
        assert err[0] == "TypeError", key
    assert out["afterErrors"] == ["admin"]
    assert [e for e in out["events"] if e[0] == "document"] == [
        ["document", "Event", ["logged-in", "cart-open"]],
        ["document", "Event", ["admin"]],
        ["document", "Event", []],
    ]
    assert [e for e in out["events"] if e[0] == "navigator"] == [["navigator"]] * 3
    assert out["handler"] == 3
    assert out["final"] == []
    assert out["snapshot"] == []


async def test_scope_kept_and_validated(tab: Any) -> None:
    out = await tab.js(script("""
        const scope = { routes: ['/admin/*', '#/users*'], states: ['logged-in'], dangerLevel: 'destructive',
                        aiEnabled: true, requiresApproval: true, core: false };
        await mc.registerTool(tool('wipe', () => 'wiped', { scope }));
        scope.routes.push('/changed-later');  // the polyfill keeps its own copy
        await mc.registerTool(tool('unscoped'));
        await mc.registerCategory({ name: 'admin', description: 'Admin tools', scope: { routes: ['/admin/*'], core: true },
                                    tools: [tool('admin.ban', () => 'banned', { scope: { dangerLevel: 'moderate' } })] });
        const bad = {
          dangerLevel: await attempt(() => mc.registerTool(tool('x1', () => 1, { scope: { dangerLevel: 'extreme' } }))),
          routesType: await attempt(() => mc.registerTool(tool('x2', () => 1, { scope: { routes: '/admin/*' } }))),
          routesItems: await attempt(() => mc.registerTool(tool('x3', () => 1, { scope: { routes: ['/ok', 3] } }))),
          statesType: await attempt(() => mc.registerTool(tool('x4', () => 1, { scope: { states: [''] } }))),
          booleanType: await attempt(() => mc.registerTool(tool('x5', () => 1, { scope: { requiresApproval: 'yes' } }))),
          notObject: await attempt(() => mc.registerTool(tool('x6', () => 1, { scope: 'admin' }))),
          category: await attempt(() => mc.registerCategory({ name: 'c', description: 'd', tools: [], scope: { dangerLevel: 'x' } })),
          // scope is checked before the name, so a bad scope wins over a duplicate
          beforeName: await attempt(() => mc.registerTool(tool('wipe', () => 1, { scope: { core: 'no' } }))),
        };
        const unknownKey = await attempt(() => mc.registerTool(tool('extra', () => 1, { scope: { future: 1, core: true } })));
        // a member's bad scope refuses that member alone: its category is registered without it
        const member = await attempt(() => mc.registerCategory({ name: 'c', description: 'd',
                                                                 tools: [tool('m', () => 1, { scope: { aiEnabled: 1 } })] }));
        const refused = mc.getCategories().find((c) => c.name === 'c').refused;
        await mc.unregisterCategory('c');
        const snap = await hook.snapshot();
        return { bad, unknownKey, member, refused, names: await names(),
                 tools: Object.fromEntries(snap.tools.map((t) => [t.name, [t.scope, t.category]])),
                 categories: snap.categories };
    """))
    for key, err in out["bad"].items():
        assert err[0] == "TypeError", (key, err)
        assert "Invalid scope" in err[2], (key, err)
    assert "dangerLevel" in out["bad"]["dangerLevel"][2]
    assert out["unknownKey"] == ["ok", None]
    assert out["member"] == ["ok", None]
    assert [r["name"] for r in out["refused"]] == ["m"] and "Invalid scope" in out["refused"][0]["error"]
    assert any("unknown key" in text and "future" in text for _kind, text in tab.console)
    assert out["names"] == ["admin.ban", "extra", "unscoped", "wipe"]
    assert out["tools"] == {
        "wipe": [{"routes": ["/admin/*", "#/users*"], "states": ["logged-in"], "dangerLevel": "destructive",
                  "aiEnabled": True, "requiresApproval": True, "core": False}, None],
        "unscoped": [None, None],
        "admin.ban": [{"dangerLevel": "moderate"}, "admin"],
        "extra": [{"core": True}, None],  # unknown keys are dropped
    }
    assert out["categories"] == [{"name": "admin", "description": "Admin tools", "tools": ["admin.ban"],
                                  "scope": {"routes": ["/admin/*"], "core": True}}]
