"""The built-in tools' registry and the call path, driven by a test context (no server, no socket)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tabmcp.config import Config
from tabmcp.core import tools
from tabmcp.core.disclosure import ClientView
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.errors import ErrorCode, ToolCallError
from tabmcp.protocol import TabSnapshot
from tabmcp.wiring import BridgeCore

from .conftest import make_config
from .helpers import tab, tool


class Context:
    """A ToolContext over a real core; what leaves the process is recorded."""

    def __init__(self, core: BridgeCore, *, dynamic: bool = True) -> None:
        self.bridge = core
        self.view = ClientView(dynamic=dynamic)
        self.trust = core.trust
        self.notified: list[str | None] = []
        self.approvals: list[str] = []

    async def notify_changed(self, *, expanded: str | None = None) -> None:
        self.notified.append(expanded)

    async def approve(self, entry: Any, arguments: dict[str, Any], *, reason: str = "") -> dict[str, Any] | None:
        self.approvals.append(entry.public_name)
        return {"resultType": "input_required"}

    async def offload(self, fn: Callable[[], Any]) -> Any:
        return fn()


def core_with_tools(config: Config | None = None) -> BridgeCore:
    core = BridgeCore(config or make_config())
    core.registry.apply(TabSnapshot.model_validate(tab(
        1, url="https://shop.test/", tools=[tool("list_orders", annotations={"readOnlyHint": True}),
                                            tool("refund", annotations={"destructiveHint": True})],
        categories=[{"name": "orders", "description": "Orders.", "tools": ["list_orders", "refund"]}],
    )))
    return core


def test_one_registry_names_every_builtin_and_reserves_its_names():
    assert set(tools.BUILTIN_TOOLS) == set(tools.META_TOOLS) | set(TELEMETRY_TOOLS)
    assert frozenset(tools.BUILTIN_TOOLS) == tools.RESERVED_NAMES
    for name, builtin in tools.BUILTIN_TOOLS.items():
        assert builtin.name == name and callable(builtin.handler)
        if builtin.definition is not None:
            assert builtin.definition["name"] == name and builtin.listed()["_meta"] == {"tabmcp/builtin": True}
    for profile, names in tools.PROFILE_BUILTINS.items():
        assert set(names) <= set(tools.META_TOOLS), profile
    core = BridgeCore(make_config())
    core.registry.apply(TabSnapshot.model_validate(tab(2, tools=[tool("observe"), tool("call_tool")])))
    assert {e.public_name for e in core.registry.tool_entries()} == {"t2.observe", "t2.call_tool"}


async def test_the_call_path_reaches_builtins_categories_and_page_tools():
    core = core_with_tools()
    ctx = Context(core)
    found = await tools.run(ctx, "search_tools", {"query": "orders"})
    assert "list_orders" in [t["name"] for t in found["structuredContent"]["tools"]]
    opened = await tools.run(ctx, "orders", {})
    assert [t["name"] for t in opened["structuredContent"]["tools"]] == ["list_orders", "refund"]
    assert ctx.notified == ["orders"]
    # A destructive tool asks first; the context's answer (input required) comes back as is.
    asked = await tools.run(ctx, "call_tool", {"name": "refund", "arguments": {}})
    assert asked == {"resultType": "input_required"} and ctx.approvals == ["refund"]


@pytest.mark.parametrize(("name", "arguments", "code"), [
    ("list_ordrs", {}, ErrorCode.TOOL_NOT_FOUND),
    ("call_tool", {"name": "introspect"}, ErrorCode.VALIDATION_ERROR),
    ("search_tools", {"limit": 0}, ErrorCode.VALIDATION_ERROR),
    ("query_dom", {}, ErrorCode.VALIDATION_ERROR),
    ("list_orders", {}, ErrorCode.EXTENSION_DISCONNECTED),
])
async def test_the_call_path_names_its_failures(name, arguments, code):
    with pytest.raises(ToolCallError) as info:
        await tools.run(Context(core_with_tools()), name, arguments)
    assert info.value.code == code
    if code == ErrorCode.TOOL_NOT_FOUND:
        assert info.value.details["closest"][0] == "list_orders"
