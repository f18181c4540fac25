"""The priority chain: order, first non-None wins, per-tool fall-through, the contract."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from tabmcp_mediator import (
    EnhancedTool,
    InvalidToolError,
    ProviderTimeout,
    RawTool,
    ToolContext,
    ToolMediator,
)
from tabmcp_mediator.naming import is_valid_name

CTX = ToolContext(source="example.com")
RAW = [{"name": "gt_usr"}, {"name": "del"}, {"name": "srch"}]


class Stub:
    """Answers with a fixed name map (original -> new), or None, or raises."""

    def __init__(
        self, name: str, priority: int, names: dict[str, str] | None = None, error: Exception | None = None
    ):
        self.name, self.priority, self.names, self.error = name, priority, names, error
        self.seen: list[list[str]] = []

    async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool] | None:
        self.seen.append([t.name for t in tools])
        if self.error:
            raise self.error
        if self.names is None:
            return None
        return [
            EnhancedTool(name=self.names[t.name], original_name=t.name, enhanced_by=self.name, confidence=0.5)
            for t in tools
            if t.name in self.names
        ]


def test_use_refuses_what_is_not_a_transformer() -> None:
    class NoTransform:
        name, priority = "half", 1

    mediator = ToolMediator()
    for bad in (object(), NoTransform(), Stub("s", "high")):  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="not a tool transformer"):
            mediator.use(bad)  # type: ignore[arg-type]
    assert mediator.transformers == []
    assert mediator.use(Stub("ok", 1)).transformers[0].name == "ok"


def test_use_sorts_by_priority_and_keeps_registration_order_on_ties() -> None:
    low, high, tie = Stub("low", 1), Stub("high", 9), Stub("tie", 1)
    mediator = ToolMediator().use(low).use(high).use(tie)
    assert [t.name for t in mediator.transformers] == ["high", "low", "tie"]


async def test_first_non_none_wins_and_lower_priorities_are_not_called() -> None:
    full = {"gt_usr": "get_user", "del": "delete", "srch": "search"}
    none, winner, loser = Stub("none", 30), Stub("winner", 20, full), Stub("loser", 10, full)
    mediator = ToolMediator().use(loser).use(winner).use(none)
    tools = await mediator.enhance(RAW, CTX)
    assert [t.enhanced_by for t in tools] == ["winner"] * 3
    assert none.seen == [["gt_usr", "del", "srch"]]
    assert loser.seen == []


async def test_a_failing_transformer_passes_the_batch_on() -> None:
    failing = Stub("llm", 20, error=ProviderTimeout("slow"))
    rules = Stub("rules", 10, {"gt_usr": "get_user", "del": "delete", "srch": "search"})
    tools = await ToolMediator().use(failing).use(rules).enhance(RAW, CTX)
    assert [t.enhanced_by for t in tools] == ["rules"] * 3


async def test_a_bug_that_is_not_a_mediator_error_surfaces() -> None:
    with pytest.raises(ZeroDivisionError):
        await ToolMediator().use(Stub("buggy", 1, error=ZeroDivisionError())).enhance(RAW, CTX)


async def test_tools_a_transformer_leaves_out_go_down_the_chain() -> None:
    partial = Stub("overrides", 30, {"del": "delete_message"})
    rules = Stub("rules", 10, {"gt_usr": "get_user", "srch": "search", "del": "NEVER"})
    tools = await ToolMediator().use(partial).use(rules).enhance(RAW, CTX)
    assert [(t.name, t.enhanced_by) for t in tools] == [
        ("get_user", "rules"),
        ("delete_message", "overrides"),
        ("search", "rules"),
    ]
    assert rules.seen == [["gt_usr", "srch"]]


async def test_fallback_passes_tools_through_with_confidence_zero() -> None:
    raw: list[Any] = [
        {
            "name": "gt_usr",
            "description": "gets user",
            "inputSchema": {"type": "object", "properties": {"u": {}}},
        },
        {"name": "bad name!"},
    ]
    tools = await ToolMediator().use(Stub("none", 5)).enhance(raw, CTX)
    assert [(t.name, t.original_name, t.confidence, t.enhanced_by) for t in tools] == [
        ("gt_usr", "gt_usr", 0.0, "none"),
        ("bad_name", "bad name!", 0.0, "none"),
    ]
    assert tools[0].description == "gets user"
    assert tools[0].input_schema == {"type": "object", "properties": {"u": {}}}
    assert tools[1].input_schema == {"type": "object", "properties": {}}


async def test_invented_tools_are_dropped_and_every_raw_tool_comes_back_once() -> None:
    class Inventor:
        name, priority = "inventor", 1

        async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool]:
            return [
                EnhancedTool(name="get_user", original_name="gt_usr"),
                EnhancedTool(name="get_user_again", original_name="gt_usr"),
                EnhancedTool(name="transfer_money", original_name="transfer_money"),
            ]

    tools = await ToolMediator().use(Inventor()).enhance(RAW, CTX)
    assert [t.original_name for t in tools] == ["gt_usr", "del", "srch"]
    assert [t.name for t in tools] == ["get_user", "del", "srch"]


async def test_names_are_made_unique_within_the_source() -> None:
    clash = Stub("clash", 1, {"gt_usr": "delete", "del": "delete", "srch": "delete"})
    tools = await ToolMediator().use(clash).enhance([*RAW, {"name": "delete"}], CTX)
    names = [t.name for t in tools]
    assert names == ["delete_2", "delete_3", "delete_4", "delete"]
    assert all(is_valid_name(n) for n in names)


async def test_duplicate_raw_names_keep_the_first() -> None:
    tools = await ToolMediator().enhance(
        [{"name": "a", "description": "1"}, {"name": "a", "description": "2"}], CTX
    )
    assert [(t.name, t.description) for t in tools] == [("a", "1")]


async def test_input_that_is_not_a_tool_is_a_mediator_error() -> None:
    with pytest.raises(InvalidToolError):
        await ToolMediator().enhance([{"description": "no name"}], CTX)


async def test_process_and_call_return_tools_and_categories() -> None:
    class Grouper:
        name, priority = "grouper", 1

        async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool]:
            return [EnhancedTool(name=t.name, original_name=t.name, category="all") for t in tools]

    mediator = ToolMediator(grouping_threshold=2).use(Grouper())
    result = await mediator(RAW, CTX)
    assert [c.name for c in result.categories] == ["all"]
    assert result.categories[0].tools == ["gt_usr", "del", "srch"]
    mediator.grouping_threshold = 3
    assert (await mediator.process(RAW, CTX)).categories == []
