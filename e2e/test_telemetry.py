"""Browser telemetry through the whole chain: a person clicks in the Diagnostics lab, the agent's
view changes, and what it generates runs and validates."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tabmcp.launch.browser import find_chromium
from tabmcp.testing import ListChanges

from .conftest import Env, eventually

ROOT = Path(__file__).resolve().parent.parent


def listed(result: Any) -> dict[str, Any]:
    return {t.name: t for t in result.tools}


def modes(tool: Any, param: str) -> list[str]:
    return list(tool.input_schema["properties"][param]["enum"])


async def open_lab(env: Env, page_closer: list[Any]) -> Any:
    page = await env.browser.context.new_page()
    page_closer.append(page)
    await page.goto(env.demo_url + "lab.html")
    await env.wait_tool("lab_status", page)
    return page


async def test_the_agents_view_follows_what_the_person_does(env: Env, page_closer):
    """Seed scenarios 1-4 and 7-8 in real Chromium, on a handshake-era connection."""
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    changes = ListChanges()

    async with env.client(mode="legacy", message_handler=changes) as client:
        page = await open_lab(env, page_closer)
        env.bridge.core.telemetry.focus(next(t.tab_id for t in env.bridge.core.registry.tabs.values()
                                            if t.url.endswith("lab.html")))
        first = listed(await client.list_tools())
        # Before the first observe: only observe and query_dom (progressive disclosure).
        assert {"observe", "query_dom"} <= set(first) and not {"analyze", "generate", "configure"} & set(first)

        await page.get_by_test_id("fetch-users").click()
        # Data arrived: observe offers "network", and the client is told of that listing.
        tools = listed(await changes.until_listed(
            client, lambda r: "network" in modes(listed(r)["observe"], "what")))
        assert tools["observe"].meta["data_counts"]["network"] >= 1
        assert not {"analyze", "generate"} & set(tools)  # still before the first observe

        errors = await client.call_tool("observe", {"what": "errors"})
        assert not errors.is_error
        # The first observe lifts progressive disclosure, and the client is told.
        tools = listed(await changes.until_listed(
            client, lambda r: {"analyze", "generate", "configure"} <= set(listed(r))))
        assert "har" in modes(tools["generate"], "format")
        assert "actions" in modes(tools["observe"], "what")  # the click itself was recorded

        await page.get_by_test_id("throw-error").click()
        await page.get_by_test_id("log-error").click()
        found = await eventually(lambda: _errors(client), timeout=10)
        kinds = {e["errorType"] for e in found}
        assert kinds == {"uncaught", "console"}
        assert any("uncaught exception from a button" in e["message"] for e in found)
        assert all(e["source"]["url"].endswith("/js/lab.js") for e in found)
        assert "[REDACTED]" in next(e["message"] for e in found if e["errorType"] == "console")


async def _errors(client: Any) -> list[Any] | None:
    result = await client.call_tool("observe", {"what": "errors"})
    items = (result.structured_content or {}).get("items") or []
    return items if len(items) >= 2 else None


async def test_modern_clients_see_every_tool_with_data_driven_modes(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    page = await open_lab(env, page_closer)
    async with env.client() as client:
        tools = listed(await client.list_tools(cache_mode="bypass"))
        assert {"observe", "analyze", "generate", "configure", "query_dom"} <= set(tools)
        await page.get_by_test_id("ws-open").click()
        await page.get_by_test_id("ws-send").click()

        async def websocket_listed() -> bool:
            t = listed(await client.list_tools(cache_mode="bypass"))
            return "websocket_events" in modes(t["observe"], "what")

        await eventually(websocket_listed, timeout=10)  # the mode appears with the first event (open)

        async def both_directions() -> str | None:
            # The echo's frames may come in a later batch than the open event.
            frames = await client.call_tool("observe", {"what": "websocket_events"})
            assert not frames.is_error, frames
            text = frames.content[0].text
            return text if "←" in text and "→" in text else None

        text = await eventually(both_directions, timeout=10)
        assert "hello from the lab" in text
        dom = await client.call_tool("query_dom", {"selector": "[data-testid=fetch-users]"})
        assert dom.structured_content["matches"] == 1


async def test_secrets_are_redacted_before_the_agent_sees_them(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    page = await open_lab(env, page_closer)
    await page.get_by_test_id("fetch-create").click()
    async with env.client() as client:
        async def created() -> Any:
            result = await client.call_tool("observe", {"what": "network", "method": "POST"})
            return result if "/api/users" in result.content[0].text else None

        result = await eventually(created, timeout=10)
    text = json.dumps(result.structured_content)
    assert "[REDACTED]" in text
    assert "hunter2" not in text and "s3cret" not in text.lower()


PLAYWRIGHT_JS = ROOT / "node_modules" / ".bin" / "playwright"


@pytest.mark.parametrize("language", ["python", "typescript"])
async def test_generated_playwright_test_runs_green_against_the_page(env: Env, page_closer, tmp_path: Path, language):
    if env.flavour != "polyfill":
        pytest.skip("one flavour is enough")
    if language == "typescript" and not PLAYWRIGHT_JS.exists():
        pytest.fail("@playwright/test is not installed (run ./dev setup)")
    page = await open_lab(env, page_closer)
    await page.get_by_test_id("log-info").click()
    await page.get_by_test_id("fetch-users").click()
    await page.get_by_test_id("username").fill("ada")
    async with env.client() as client:
        await eventually(lambda: _has_actions(client), timeout=10)
        generated = await client.call_tool("generate", {"format": "test", "language": language,
                                                        "assert_no_console_errors": False})
    assert not generated.is_error, generated.content
    code = _code_of(generated, language)
    env_vars = {**os.environ, "CHROMIUM": find_chromium(), "BASE_URL": env.demo_url.rstrip("/")}
    if language == "python":
        compile(code, "test_generated.py", "exec")
        path = tmp_path / "test_generated.py"
        path.write_text(code)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull, str(path)]
        cwd = tmp_path
    else:
        # Under the repository, so that Node resolves '@playwright/test' from its node_modules.
        cwd = ROOT / "node_modules" / ".tabmcp-generated" / tmp_path.name
        cwd.mkdir(parents=True, exist_ok=True)
        (cwd / "generated.spec.ts").write_text(code)
        command = [str(PLAYWRIGHT_JS), "test", "generated.spec.ts", "--reporter=line", "--workers=1",
                   f"--output={tmp_path / 'results'}"]
    try:
        run = await asyncio.to_thread(
            subprocess.run, command, capture_output=True, text=True, timeout=180, env=env_vars, cwd=cwd
        )
    finally:
        if language == "typescript":
            shutil.rmtree(cwd, ignore_errors=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


async def _has_actions(client: Any) -> bool:
    result = await client.call_tool("observe", {"what": "actions"})
    return "fill" in result.content[0].text.lower() or "input" in result.content[0].text.lower()


def _code_of(result: Any, language: str = "python") -> str:
    data = result.structured_content or {}
    assert data.get("format") == "test" and data.get("language") == language, data
    return str(data["content"])


async def test_har_and_sarif_validate_against_their_schemas(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("one flavour is enough")
    from bridge.tests.telemetry.schemas import har_validator, sarif_validator

    page = await open_lab(env, page_closer)
    await page.get_by_test_id("fetch-users").click()
    await page.get_by_test_id("xhr-order").click()
    async with env.client() as client:
        async def har_ready() -> Any:
            result = await client.call_tool("generate", {"format": "har"})
            data = result.structured_content or {}
            har = data.get("har") or {}
            return har if len((har.get("log") or {}).get("entries") or []) >= 2 else None

        har = await eventually(har_ready, timeout=10)
        sarif_result = await client.call_tool("generate", {"format": "sarif"})
        assert not sarif_result.is_error, sarif_result.content
    har_validator().validate(har)
    sarif = sarif_result.structured_content["sarif"]
    sarif_validator().validate(sarif)
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"].startswith("axe")


# What the page's capture sends on its own line (a MessagePort, page/natives.js), recorded as it
# leaves the page: an init script runs before the extension's document_start scripts, so the
# capture keeps this recording postMessage as its own.
SENT_BATCHES = """() => {
  window.__sent = [];
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (msg, ...rest) {
    if (msg && msg.type === 'telemetry') window.__sent.push(msg);
    return post.call(this, msg, ...rest);
  };
}"""


async def test_a_secret_matching_a_config_only_rule_never_leaves_the_page(env: Env, page_closer):
    """Redaction rules set in the bridge (config file, then ``configure``) reach the page itself."""
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    from tabmcp.core.telemetry.settings import DEFAULT_REDACTION_PATTERNS
    from tabmcp.server.app import running_bridge

    from .conftest import e2e_config

    config = e2e_config(telemetry={"redaction": {"patterns": [*DEFAULT_REDACTION_PATTERNS, r"ZQX-\d{6}"]}})
    hook = "window[Symbol.for('tabmcp.telemetry')]"

    async def sent_text(page: Any, marker: str) -> str:
        """Every batch the page posted, once one holds a console event with ``marker``."""
        async def has_marker() -> str | None:
            text: str = await page.evaluate("() => JSON.stringify(window.__sent)")
            return text if marker in text else None

        return await eventually(has_marker)

    try:
        async with running_bridge(config) as bridge:
            await env.browser.set_bridge_url(f"ws://127.0.0.1:{bridge.port}/extension")
            assert await bridge.core.wait_connected(10)
            page = await env.browser.context.new_page()
            page_closer.append(page)
            await page.add_init_script(f"({SENT_BATCHES})()")
            await page.goto(env.pages_url + "basic.html")
            await eventually(lambda: page.evaluate(f"{hook}.stats().configs >= 1"))
            await page.evaluate("() => console.log('ticket ZQX-123456', 'first-probe')")
            text = await sent_text(page, "first-probe")
            assert "ZQX-123456" not in text and "[REDACTED]" in text
            # A secret a page logs while it parses, before its content script could hand it the
            # rules: held in the page until they come, then sent redacted.
            early = await env.browser.context.new_page()
            page_closer.append(early)
            await early.add_init_script(f"({SENT_BATCHES})()")
            await early.goto(env.pages_url + "early-secret.html")
            text = await sent_text(early, "early-probe")
            assert "ZQX-777777" not in text and "early ticket [REDACTED]" in text
            await early.close()
            configs = await page.evaluate(f"{hook}.stats().configs")
            async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
                await client.call_tool("configure", {"action": "redaction", "op": "add", "patterns": [r"QQ\d{4}"]})
            await eventually(lambda: page.evaluate(f"{hook}.stats().configs > {configs}"))
            await page.evaluate("() => console.log('room QQ1234', 'second-probe')")
            text = await sent_text(page, "second-probe")
            assert "QQ1234" not in text and "ZQX-123456" not in text
            await page.close()
    finally:
        await env.browser.set_bridge_url(f"ws://127.0.0.1:{env.bridge.port}/extension")
        assert await env.bridge.core.wait_connected(10)
