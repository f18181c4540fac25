"""Issue 30, item 2 (the page side): telemetry a hostile page cannot forge.

Each test is the attack, with a real page in real Chromium, the real extension and the official
MCP client: a page that answers accessibility audits itself (defines ``window.axe`` before any
audit, or rewrites ours as it loads), and a page that posts telemetry events claiming another
site's URL.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from tabmcp.assets import axe_path

from .conftest import Env


def tab_of(env: Env, page: Page) -> int:
    return next(t.tab_id for t in env.bridge.hub.registry.tabs.values() if t.url == page.url)


async def audit(env: Env, page: Page) -> dict[str, Any]:
    async with env.client() as client:
        result = await client.call_tool(
            "analyze", {"target": "accessibility", "tab_id": tab_of(env, page)}
        )
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content or {}
    return data


@pytest.mark.parametrize("path", ["axe-fake.html", "axe-hijack.html"])
async def test_a_page_cannot_answer_the_accessibility_audit_itself(env: Env, page_closer, path: str):
    """The page defines ``axe`` before load (unreplaceable), or rewrites the ``axe`` we load to hide
    every violation: the audit is still our axe-core's, and reports the image without alt text and
    the button without a name the fake would hide."""
    if env.flavour != "polyfill":
        pytest.skip("the audit does not depend on the WebMCP flavour")
    if axe_path() is None:
        pytest.fail("axe-core is not installed (run ./dev setup)")
    tool = {"axe-fake.html": "axe_forger", "axe-hijack.html": "axe_hijacker"}[path]
    page = await env.open(path, wait_for_tool=tool)
    page_closer.append(page)
    data = await audit(env, page)
    found = {v["id"] for v in data["violations"]}
    assert {"image-alt", "button-name"} <= found, data
    assert data["engine"].startswith("axe-core 4.") and "4.99" not in data["engine"]
    assert data["url"] == page.url
    # Our axe-core never loaded into the page's world: the page's `axe` is its own fake, or none.
    assert await page.evaluate("() => window.axe === undefined || window.axe.version === '4.99.0'")
