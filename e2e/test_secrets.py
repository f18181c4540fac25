"""Secrets by name in real Chromium with the real extension and the official MCP client (issue 37).

``pages/signin.html`` registers ``sign_in({user, password})``, which echoes the password in its
result (plain, base64, URL-encoded), its console, a request's URL and a request's body. The agent passes only
``{{secret:site_login}}``: the page receives the value, the agent sees only the name in the
result and in ``observe``'s console and network views (the URL and the body). The same page on another origin
(``localhost`` instead of ``127.0.0.1``) asks for the same secret: refused by name, nothing sent;
so does a ``localhost`` frame the bound site embeds with ``allow="tools"`` (``pages/frames.html``),
while the site's own frame gets the value.
"""

from __future__ import annotations

import base64
import contextlib
import json
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import Client
from tabmcp.errors import ErrorCode
from tabmcp.server.app import BridgeApp
from tabmcp.storage.secret_store import SecretStore

from .conftest import Env, eventually, other_bridge

VALUE = "hunter2-Correct/Horse+9"


def no_value(text: str) -> bool:
    forms = [VALUE, base64.b64encode(VALUE.encode()).decode(), urllib.parse.quote(VALUE, safe="")]
    return not any(form in text for form in forms)


@contextlib.asynccontextmanager
async def bound_site(env: Env, page_closer: list[Any], tmp_path: Path, path: str,
                     **sections: dict[str, Any]) -> AsyncIterator[BridgeApp]:
    """A bridge of its own whose secrets file binds ``site_login`` to the pages' origin, and
    ``path`` of that site open in a new page (``page_closer[-1]``)."""
    db = tmp_path / "tabmcp.db"
    async with other_bridge(env, store={"path": str(db), "secrets": "file"}, **sections) as bridge:
        store = SecretStore(db, kind="file")
        store.set("site_login", VALUE, [env.pages_url.rstrip("/")])
        store.close()
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + path)
        yield bridge


async def test_the_page_gets_the_value_the_agent_only_the_name(env: Env, page_closer: list[Any],
                                                               tmp_path: Path) -> None:
    origin = env.pages_url.rstrip("/")
    async with bound_site(env, page_closer, tmp_path, "signin.html") as bridge:
        page = page_closer[-1]
        await page.evaluate("() => window.ready")
        entry = await eventually(lambda: bridge.core.tool("sign_in"))
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
            described = await agent.call_tool("describe_tools", {"tools": ["sign_in"]})
            assert described.structured_content["secrets"] == {"sign_in": ["site_login"]}
            result = await agent.call_tool("sign_in", {"user": "ann", "password": "{{secret:site_login}}"})
            assert not result.is_error, result.content
            assert await page.evaluate("() => window.received") == [VALUE]  # the page got the value
            text = result.content[0].text
            assert "{{secret:site_login}}" in text and no_value(json.dumps(result.model_dump(mode="json"))), text

            tab_id = entry.tab.tab_id

            async def logged() -> Any:
                seen = await agent.call_tool("observe", {"what": "logs", "tab_id": tab_id})
                return seen if "echo " in seen.content[0].text else None

            seen = await eventually(logged, timeout=20, interval=0.3)
            assert no_value(json.dumps(seen.model_dump(mode="json"))), seen.content[0].text

            async def requested() -> Any:
                seen = await agent.call_tool("observe", {"what": "network", "tab_id": tab_id, "url": "gate-body"})
                return seen if "gate-body" in json.dumps(seen.structured_content) else None

            seen = await eventually(requested, timeout=20, interval=0.3)
            assert no_value(json.dumps(seen.model_dump(mode="json"))), seen.content[0].text

            async def posted() -> Any:  # a request's body: shown masked, never the value
                seen = await agent.call_tool("observe", {"what": "network", "tab_id": tab_id, "url": "posted-body",
                                                         "include_bodies": True})
                return seen if "echo {{secret:site_login}}" in json.dumps(seen.model_dump(mode="json")) else None

            seen = await eventually(posted, timeout=20, interval=0.3)
            assert no_value(json.dumps(seen.model_dump(mode="json"))), seen.content[0].text

            # the same page on another origin asks for the same secret: refused, nothing sent
            other = await env.browser.context.new_page()
            page_closer.append(other)
            await other.goto(env.pages_url.replace("127.0.0.1", "localhost") + "signin.html")
            await other.evaluate("() => window.ready")
            elsewhere = await eventually(lambda: next(
                (e for e in bridge.core.registry.tool_entries()
                 if e.tool.name == "sign_in" and e.tab.origin != origin), None))
            refused = await agent.call_tool("call_tool", {"name": elsewhere.public_name, "arguments": {
                "user": "ann", "password": "{{secret:site_login}}"}})
            assert refused.structured_content["error"]["code"] == ErrorCode.SECRET_NOT_BOUND, refused.content
            assert await other.evaluate("() => window.received") == []
        bridge.core.activity.flush()
        rows = json.dumps([e.to_dict() for e in bridge.core.activity.latest(20)])
        assert no_value(rows)
    assert VALUE.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("tabmcp.db*"))


async def test_a_frame_of_another_origin_inside_the_bound_site_gets_nothing(env: Env, page_closer: list[Any],
                                                                           tmp_path: Path) -> None:
    origin = env.pages_url.rstrip("/")
    # frames.html?grant=1 embeds localhost's frame with allow="tools"
    async with bound_site(env, page_closer, tmp_path, "frames.html?grant=1") as bridge:
        page = page_closer[-1]

        def framed(name: str) -> Any:
            return next((e for e in bridge.core.registry.tool_entries() if e.tool.name == name), None)

        hostile = await eventually(lambda: framed("frame_echo_other"))
        own = await eventually(lambda: framed("frame_echo_same"))
        assert hostile.tab.origin != origin and own.tab.origin == origin
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
            refused = await agent.call_tool("call_tool", {"name": hostile.public_name,
                                                          "arguments": {"text": "{{secret:site_login}}"}})
            assert refused.structured_content["error"]["code"] == ErrorCode.SECRET_NOT_BOUND, refused.content
            assert await page.frame_locator("#other").get_by_test_id("line").count() == 0  # nothing sent
            ran = await agent.call_tool("call_tool", {"name": own.public_name,
                                                      "arguments": {"text": "{{secret:site_login}}"}})
            assert not ran.is_error, ran.content
            assert await page.frame_locator("#same").get_by_test_id("line").all_inner_texts() == [VALUE]
            assert no_value(json.dumps(ran.model_dump(mode="json")))


async def test_a_changed_definition_gets_no_secret_until_the_person_accepts_it(
        env: Env, page_closer: list[Any], tmp_path: Path) -> None:
    origin = env.pages_url.rstrip("/")
    # pins on (the suite's other bridges leave them off: many pages there share tool names)
    async with bound_site(env, page_closer, tmp_path, "signin.html",
                          trust={"frame_text": False, "pin_definitions": True}) as bridge:
        page = page_closer[-1]
        await page.evaluate("() => window.ready")
        await eventually(lambda: bridge.core.tool("sign_in"))
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
            await agent.list_tools()  # the definition is pinned as the agent first saw it
            await page.evaluate("() => window.changeDefinition()")
            await eventually(lambda: "card" in (bridge.core.tool("sign_in").tool.description or ""))
            args = {"user": "ann", "password": "{{secret:site_login}}"}
            refused = await agent.call_tool("sign_in", args)
            assert refused.is_error and refused.structured_content["error"]["code"] == ErrorCode.SECRET_TOOL_CHANGED
            assert await page.evaluate("() => window.received") == []  # nothing was sent
            assert bridge.core.pins.accept(origin, "sign_in")  # the person: tabmcp trust accept ORIGIN sign_in
            accepted = await agent.call_tool("sign_in", args)
            assert not accepted.is_error, accepted.content
            assert await page.evaluate("() => window.received") == [VALUE]
