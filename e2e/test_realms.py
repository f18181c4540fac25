"""The page of e2e/test_firefox.py's prototype and other-realm registrations in Chromium, both
flavours: a tool registered with ``ModelContext.prototype.registerTool.call(document.modelContext,
tool)``, or (native) with an about:blank frame's method, reaches the client as before (Chromium's
native path finds it in the browser's own list; the polyfill's class has one method)."""

from __future__ import annotations

import json

from .conftest import Env


async def test_tools_registered_through_the_prototype_or_another_realm_reach_the_client(env: Env, page_closer):
    page = await env.open("realms.html", wait_for_tool="by_prototype")
    page_closer.append(page)
    assert await page.evaluate("() => window.ready") is True
    names = {"by_prototype": "through the prototype"}
    if env.flavour == "native":
        names["by_other_realm"] = "with another realm's method"
    else:
        # Polyfill flavour: an about:blank frame has no ModelContext (the browser has no WebMCP).
        assert await page.evaluate("() => registered.realm") == "no ModelContext in the frame"
    async with env.client() as client:
        for name, by in names.items():
            public = await env.wait_tool(name, page)
            result = await client.call_tool(public, {})
            assert not result.is_error, result.content
            assert json.loads("".join(getattr(c, "text", "") for c in result.content)) == {"by": by, "on": "document"}
