"""The mediator through the whole chain: cryptic page tools become usable, and a second run is
served from the cache without asking the LLM again."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tabmcp.core.disclosure import read_category_marker
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import launch_browser
from tabmcp.server.app import running_bridge

from .conftest import PAGES, e2e_config, eventually

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "mediator" / "tests" / "fixtures"


def _testkit() -> Any:
    """The mediator's own fake provider: a real HTTP server speaking the OpenAI chat API."""
    spec = importlib.util.spec_from_file_location("mediator_testkit_e2e", ROOT / "mediator" / "tests" / "mediator_testkit.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def provider() -> Any:
    kit = _testkit()
    fake = kit.start_provider(kit.FakeProvider(reply=json.loads((FIXTURES / "llm_answer_shop.json").read_text())))
    yield fake
    fake.server.shutdown()


async def run_once(provider: Any, cache_dir: Path, pages_url: str) -> tuple[dict[str, Any], list[str]]:
    config = e2e_config(mediator={
        "enabled": True, "provider": "local", "model": "recorded", "base_url": provider.base_url + "/v1",
        "cache_dir": str(cache_dir), "mode": "eager", "grouping_threshold": 10,
    })
    async with running_bridge(config) as bridge:
        url = f"ws://127.0.0.1:{bridge.port}/extension"
        async with launch_browser(bridge_url=url, headless=True) as browser:
            page = await browser.context.new_page()
            await page.goto(pages_url + "cryptic.html")
            await eventually(lambda: bridge.core.registry.counts()["tools"] == 32, timeout=20)
            from mcp import Client

            async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
                listed = await client.list_tools(cache_mode="bypass")
                tools = {t.name: t for t in listed.tools if t.name not in TELEMETRY_TOOLS}
                described = await client.call_tool("describe_tools", {"tools": ["add_to_cart", "get_user"]})
                result = await client.call_tool("call_tool", {"name": "add_to_cart",
                                                              "arguments": {"product_id": "p-7", "quantity": 2}})
            calls = await page.get_by_test_id("call").all_inner_texts()
            return {"tools": tools, "described": described, "result": result}, calls


async def test_cryptic_tools_are_enhanced_grouped_callable_and_cached(provider, tmp_path: Path):
    async with serve_demo_site(site_dir=PAGES, files={"/data/cryptic.json": FIXTURES / "cryptic_tools.json"}) as pages:
        first, calls = await run_once(provider, tmp_path, pages)
        assert provider.count == 1
        tools = first["tools"]
        categories = [t for t in tools.values() if read_category_marker(t.description or "")]
        assert len(categories) >= 2  # 32 flat tools > grouping_threshold: grouped for the agent
        assert "gt_usr" not in json.dumps([t.model_dump() for t in tools.values()])
        described = {t["name"]: t for t in first["described"].structured_content["tools"]}
        assert described["add_to_cart"]["description"].endswith("Add a product to the shopping cart.")
        assert described["add_to_cart"]["_meta"]["tabmcp/enhancement"]["originalName"] == "add_crt"
        assert described["get_user"]["_meta"]["tabmcp/enhancement"]["enhancedBy"]
        assert not first["result"].is_error, first["result"].content
        # Renamed arguments reach the page under the page's own names.
        assert calls == ['add_crt {"pid":"p-7","qty":2}']

        second, calls = await run_once(provider, tmp_path, pages)
        assert provider.count == 1  # served from the SQLite cache: no provider call
        assert set(second["tools"]) == set(tools)
        assert calls == ['add_crt {"pid":"p-7","qty":2}']
