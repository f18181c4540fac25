"""The official MCP conformance suite against the bridge, with a real page's tools behind it.

``@modelcontextprotocol/conformance`` (npm, installed by ``./dev setup`` with the Node 22 it needs,
npm's ``node`` package) runs all its server scenarios over Streamable HTTP against a bridge of the test's own, while
e2e/pages/conformance.html registers the suite's test tools in the session's Chromium (the
default disclosure profile lists them by their names). Every
scenario must pass, or be in :data:`EXPECTED_FAILURES` with its reason, which docs/conformance.md
repeats; an expected failure that starts passing fails too, so the list stays true.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path

import pytest
from tabmcp.testing import missing_from_setup

from .conftest import Env, eventually, other_bridge

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "node_modules" / "node" / "bin" / "node"  # npm's node package: Node 22, what the suite needs
SUITE = ROOT / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"

NO_CLIENT = "a page has no way to ask the MCP client for {} (WebMCP offers none)"
NO_RESOURCES = "no resources: pages register none in WebMCP, and the bridge's own state is reached by tools"
NO_PROMPTS = "no prompts: pages declare none in WebMCP, and the bridge has no canned workflow to offer"
EXPECTED_FAILURES: dict[str, str] = {  # docs/conformance.md says the same, with the reasons in full
    "tools-call-sampling": NO_CLIENT.format("sampling"),
    "tools-call-elicitation": NO_CLIENT.format("input"),
    "elicitation-sep1034-defaults": NO_CLIENT.format("input"),
    "elicitation-sep1330-enums": NO_CLIENT.format("input"),
    "dns-rebinding-protection": "the bridge refuses every browser Origin on /mcp, its own included (security.md)",
    "completion-complete": "no completion: it completes prompt and resource-template arguments, and there are none",
    "logging-set-level": "no logging/setLevel: deprecated as of protocol 2026-07-28 (SEP-2577), see conformance.md",
    "tools-call-with-logging": "no log notifications: a page's console reaches the agent through observe (gated)",
    **{name: NO_RESOURCES for name in (
        "resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read",
        "resources-subscribe", "resources-unsubscribe")},
    **{name: NO_PROMPTS for name in (
        "prompts-list", "prompts-get-simple", "prompts-get-with-args", "prompts-get-embedded-resource",
        "prompts-get-with-image")},
}
FAILING_CHECKS = {"dns-rebinding-protection": {"localhost-host-valid-accepted"}}
"""Scenarios only part of which is expected to fail: the checks that may (the others must pass)."""


def run_suite(url: str, out: Path) -> dict[str, list[dict[str, object]]]:
    """Every server scenario (``--suite all``: the pending ones too) against ``url``: each
    scenario's checks, by scenario name."""
    if not NODE.exists() or not SUITE.exists():
        missing_from_setup("npm packages node@22 and @modelcontextprotocol/conformance (./dev setup installs them)")
    proc = subprocess.run(
        [str(NODE), str(SUITE), "server", "--url", url, "--suite", "all", "-o", str(out)],
        capture_output=True, text=True, timeout=600, cwd=out,
    )
    listed = subprocess.run([str(NODE), str(SUITE), "list"], capture_output=True, text=True, timeout=60).stdout
    scenarios = set(re.findall(r"^  - (\S+)", listed.split("Client scenarios")[0], re.MULTILINE))
    results: dict[str, list[dict[str, object]]] = {}
    for checks in sorted(out.glob("*/checks.json")):
        name = re.sub(r"-\d{4}-\d\d-\d\dT.*$", "", checks.parent.name.removeprefix("server-"))
        results[name] = json.loads(checks.read_text())
    assert scenarios and set(results) == scenarios, (
        f"scenarios without results: {sorted(scenarios - set(results))} ({proc.returncode}):\n{proc.stderr}")
    return results


async def test_conformance_suite(env: Env, tmp_path: Path) -> None:
    if env.flavour != "polyfill":
        pytest.skip("one flavour is enough: the suite tests the bridge's MCP side")
    # a bridge of its own: the suite's settings (progress often enough for its progress scenario), no other test's tabs
    async with other_bridge(env, mcp={"progress_interval_s": 0.1}) as bridge:
        page = await env.open("conformance.html")
        try:
            await eventually(lambda: bridge.core.registry.resolve("json_schema_2020_12_tool"))
            results = await asyncio.to_thread(run_suite, f"http://127.0.0.1:{bridge.port}/mcp", tmp_path)
        finally:
            await page.close()
    failed = {
        name: [f"{c['id']}: {c.get('errorMessage')}" for c in checks if c.get("status") == "FAILURE"]
        for name, checks in results.items()
    }
    failed = {name: why for name, why in failed.items() if why}
    for name in sorted(results):  # the table docs/conformance.md keeps
        warned = ", ".join(str(c["id"]) for c in results[name] if c.get("status") == "WARNING")
        print(f"| `{name}` | {'fails' if name in failed else 'passes'} | {warned} | {EXPECTED_FAILURES.get(name, '')} |")
    print(f"{len(results) - len(failed)} of {len(results)} scenarios pass")
    unexpected = {name: why for name, why in failed.items() if name not in EXPECTED_FAILURES}
    for name, allowed in FAILING_CHECKS.items():
        ids = {str(c["id"]) for c in results.get(name, []) if c.get("status") == "FAILURE"}
        if ids - allowed:
            unexpected[name] = sorted(ids - allowed)
    assert not unexpected, f"scenarios that fail, not listed in EXPECTED_FAILURES: {unexpected}"
    stale = sorted(set(EXPECTED_FAILURES) - set(failed))
    assert not stale, f"listed as expected to fail, but passed or did not run: {stale}"
