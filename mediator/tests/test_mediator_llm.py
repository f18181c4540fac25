"""The LLM path against a real local HTTP server speaking each provider's API."""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from mediator_testkit import FakeClock, FakeProvider
from tabmcp_mediator import (
    AnthropicClient,
    CachedTransformer,
    EnhancementCache,
    InvalidLLMResponse,
    LLMClient,
    LLMTransformer,
    MediatorConfig,
    OpenAICompatibleClient,
    ProviderError,
    ProviderTimeout,
    RawTool,
    RuleBasedTransformer,
    ToolContext,
    ToolMediator,
    build_mediator,
    map_arguments,
)

KINDS = ["anthropic", "openai"]
SHOP = ["gt_usr", "del", "srch", "add_crt", "lst_ord", "upd_prf"]


def client(kind: str, provider: FakeProvider, timeout: float = 20.0) -> LLMClient:
    if kind == "anthropic":
        return AnthropicClient("claude-test", "test-key", base_url=provider.base_url, timeout=timeout)
    return OpenAICompatibleClient(
        "gpt-test", api_key="test-key", base_url=f"{provider.base_url}/v1", timeout=timeout
    )


def chain(kind: str, provider: FakeProvider, timeout: float = 20.0) -> ToolMediator:
    return ToolMediator().use(LLMTransformer(client(kind, provider, timeout))).use(RuleBasedTransformer())


def shop_tools(raw_tools: list[RawTool]) -> list[RawTool]:
    return [t for t in raw_tools if t.name in SHOP]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_good_answer_enhances_every_tool(
    kind: str,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
) -> None:
    provider.reply = shop_answer
    tools = await LLMTransformer(client(kind, provider)).transform(shop_tools(raw_tools), tool_context)
    assert tools is not None and provider.count == 1
    by_original = {t.original_name: t for t in tools}
    assert set(by_original) == set(SHOP)
    user = by_original["gt_usr"]
    assert (user.name, user.enhanced_by, user.confidence) == ("get_user", "llm", 0.8)
    assert user.description == "Retrieve a user account by its ID, including name and email."
    assert (user.category, user.category_description) == ("account", "User accounts and profiles")
    cart = by_original["add_crt"]
    assert map_arguments(cart, {"product_id": "p", "quantity": 1}) == {"pid": "p", "qty": 1}
    assert by_original["srch"].category is None


async def test_anthropic_request_shape(
    provider: FakeProvider, shop_answer: dict[str, Any], raw_tools: list[RawTool]
) -> None:
    provider.reply = shop_answer
    await LLMTransformer(client("anthropic", provider)).transform(
        shop_tools(raw_tools), ToolContext(source="shop.test")
    )
    (call,) = provider.calls
    assert call.path == "/v1/messages"
    # The key travels as x-api-key or (recent SDKs) a bearer token, never in the body.
    assert "test-key" in (
        call.headers.get("x-api-key", ""),
        call.headers.get("authorization", "").removeprefix("Bearer "),
    )
    assert "test-key" not in json.dumps(call.body)
    assert "anthropic-version" in call.headers
    assert call.body["model"] == "claude-test" and call.body["max_tokens"] > 0
    assert "JSON" in call.body["system"]
    (message,) = call.body["messages"]
    assert message["role"] == "user" and "shop.test" in message["content"] and "gt_usr" in message["content"]


async def test_openai_request_shape(
    provider: FakeProvider, shop_answer: dict[str, Any], raw_tools: list[RawTool]
) -> None:
    provider.reply = shop_answer
    await LLMTransformer(client("openai", provider)).transform(
        shop_tools(raw_tools), ToolContext(source="shop.test")
    )
    (call,) = provider.calls
    assert call.path == "/v1/chat/completions"
    assert call.headers["authorization"] == "Bearer test-key"
    assert call.body["model"] == "gpt-test"
    assert [m["role"] for m in call.body["messages"]] == ["system", "user"]
    assert "upd_prf" in call.body["messages"][1]["content"]


async def test_a_local_server_needs_no_key(
    provider: FakeProvider, shop_answer: dict[str, Any], raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    provider.reply = shop_answer
    config = MediatorConfig(provider="local", model="llama3", base_url=f"{provider.base_url}/v1", cache=False)
    tools = await build_mediator(config).enhance(shop_tools(raw_tools), tool_context)
    assert {t.enhanced_by for t in tools} == {"llm"}
    assert "authorization" not in provider.calls[0].headers


@pytest.mark.parametrize("kind", KINDS)
async def test_a_fenced_answer_is_accepted(
    kind: str,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
) -> None:
    provider.reply = f"```json\n{json.dumps(shop_answer)}\n```"
    tools = await LLMTransformer(client(kind, provider)).transform(shop_tools(raw_tools), tool_context)
    assert tools is not None and len(tools) == len(SHOP)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "reply", ["Sure! Here are better names: get_user, ...", "[1, 2]", '{"tools": "all of them"}', "{}"]
)
async def test_invalid_json_is_an_error_and_the_chain_falls_back_to_rules(
    kind: str, reply: str, provider: FakeProvider, raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    provider.reply = reply
    tools = shop_tools(raw_tools)
    with pytest.raises(InvalidLLMResponse):
        await LLMTransformer(client(kind, provider)).transform(tools, tool_context)
    enhanced = await chain(kind, provider).enhance(tools, tool_context)
    assert {t.enhanced_by for t in enhanced} == {"rules"}


@pytest.mark.parametrize("kind", KINDS)
async def test_missing_tools_are_left_to_the_rules(
    kind: str,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
) -> None:
    shop_answer["tools"] = [e for e in shop_answer["tools"] if e["original_name"] not in {"del", "srch"}]
    provider.reply = shop_answer
    tools = await chain(kind, provider).enhance(shop_tools(raw_tools), tool_context)
    assert {t.original_name: t.enhanced_by for t in tools} == {
        "gt_usr": "llm",
        "del": "rules",
        "upd_prf": "llm",
        "lst_ord": "llm",
        "srch": "rules",
        "add_crt": "llm",
    }


@pytest.mark.parametrize("kind", KINDS)
async def test_invented_and_duplicate_tools_are_ignored(
    kind: str,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
) -> None:
    invented = {
        "original_name": "transfer_funds",
        "name": "transfer_funds",
        "description": "Send money.",
        "input_schema": {"type": "object"},
    }
    duplicate = {**shop_answer["tools"][0], "name": "get_user_twice"}
    shop_answer["tools"] += [invented, duplicate]
    shop_answer["categories"].append(
        {"name": "money", "description": "x", "tools": ["transfer_funds", "gt_usr"]}
    )
    provider.reply = shop_answer
    tools = await chain(kind, provider).enhance(shop_tools(raw_tools), tool_context)
    assert sorted(t.original_name for t in tools) == sorted(SHOP)
    assert "transfer_funds" not in {t.name for t in tools} | {t.original_name for t in tools}
    assert "get_user_twice" not in {t.name for t in tools}
    assert next(t for t in tools if t.original_name == "gt_usr").category == "account"


WRONG = [
    ("name", 42),
    ("name", "get user!"),
    ("description", ""),
    ("description", ["a", "list"]),
    ("input_schema", "a string"),
    ("input_schema", {"type": "array", "items": {}}),
    ("input_schema", {"type": "object", "properties": "nope"}),
    ("argument_map", {"a": 1}),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("field", "value"), WRONG)
async def test_an_entry_with_a_wrong_type_keeps_the_original_tool_for_the_rules(
    kind: str,
    field: str,
    value: Any,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
) -> None:
    shop_answer["tools"][0][field] = value  # the gt_usr entry
    provider.reply = shop_answer
    tools = await chain(kind, provider).enhance(shop_tools(raw_tools), tool_context)
    user = next(t for t in tools if t.original_name == "gt_usr")
    assert (user.enhanced_by, user.name) == ("rules", "get_user")
    assert {t.enhanced_by for t in tools if t.original_name != "gt_usr"} == {"llm"}


def _cart_entry(answer: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in answer["tools"] if e["original_name"] == "add_crt")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda e: e["input_schema"]["properties"].update({"coupon": {"type": "string"}}),
            id="invented-argument",
        ),
        pytest.param(lambda e: e["input_schema"]["properties"].pop("quantity"), id="lost-argument"),
        pytest.param(lambda e: e.update(argument_map={"product_id": "pid"}), id="unmapped-rename"),
        pytest.param(
            lambda e: e.update(argument_map={"product_id": "pid", "quantity": "pid"}), id="two-to-one"
        ),
        pytest.param(
            lambda e: e.update(argument_map={"product_id": "pid", "qty_new": "qty"}), id="map-outside-schema"
        ),
    ],
)
async def test_the_page_argument_contract_is_enforced(
    change: Any,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
) -> None:
    change(_cart_entry(shop_answer))
    provider.reply = shop_answer
    tools = await chain("openai", provider).enhance(shop_tools(raw_tools), tool_context)
    cart = next(t for t in tools if t.original_name == "add_crt")
    assert cart.enhanced_by == "rules"
    assert map_arguments(cart, {"product_id": "p", "quantity": 2}) == {"pid": "p", "qty": 2}


async def test_dropped_required_arguments_are_restored(
    provider: FakeProvider, shop_answer: dict[str, Any], raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    del _cart_entry(shop_answer)["input_schema"]["required"]
    provider.reply = shop_answer
    tools = await LLMTransformer(client("openai", provider)).transform(shop_tools(raw_tools), tool_context)
    assert tools is not None
    cart = next(t for t in tools if t.original_name == "add_crt")
    assert cart.enhanced_by == "llm" and cart.input_schema["required"] == ["product_id"]


async def test_an_answer_with_nothing_usable_is_an_error(
    provider: FakeProvider, raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    provider.reply = {
        "tools": [{"original_name": "nope", "name": "x", "description": "y", "input_schema": {}}]
    }
    with pytest.raises(InvalidLLMResponse, match="no usable tool"):
        await LLMTransformer(client("openai", provider)).transform(shop_tools(raw_tools), tool_context)


@pytest.mark.parametrize("kind", KINDS)
async def test_http_500_is_a_provider_error_and_the_chain_falls_back(
    kind: str, provider: FakeProvider, raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    provider.status = 500
    with pytest.raises(ProviderError, match="500"):
        await LLMTransformer(client(kind, provider)).transform(shop_tools(raw_tools), tool_context)
    assert provider.count == 1  # no hidden retries
    tools = await chain(kind, provider).enhance(shop_tools(raw_tools), tool_context)
    assert {t.enhanced_by for t in tools} == {"rules"}


@pytest.mark.parametrize("kind", KINDS)
async def test_a_slow_provider_times_out_and_the_chain_falls_back(
    kind: str,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
) -> None:
    provider.reply, provider.delay = shop_answer, 1.5
    with pytest.raises(ProviderTimeout):
        await LLMTransformer(client(kind, provider, timeout=0.3)).transform(
            shop_tools(raw_tools), tool_context
        )
    tools = await chain(kind, provider, timeout=0.3).enhance(shop_tools(raw_tools), tool_context)
    assert {t.enhanced_by for t in tools} == {"rules"}


@pytest.mark.parametrize("kind", KINDS)
async def test_connection_refused_is_a_provider_error(
    kind: str, raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    dead = FakeProvider()
    base = "http://127.0.0.1:9"  # discard port: nothing listens
    llm: LLMClient = (
        AnthropicClient("m", "k", base_url=base, timeout=2)
        if kind == "anthropic"
        else OpenAICompatibleClient("m", base_url=f"{base}/v1", timeout=2)
    )
    with pytest.raises(ProviderError):
        await LLMTransformer(llm).transform(shop_tools(raw_tools), tool_context)
    assert dead.count == 0


@pytest.mark.parametrize("kind", KINDS)
async def test_second_run_is_served_from_sqlite_with_zero_provider_calls(
    kind: str,
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    cryptic_tools: list[dict[str, Any]],
    tool_context: ToolContext,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", "test-key")
    base_url = provider.base_url if kind == "anthropic" else f"{provider.base_url}/v1"
    config = MediatorConfig(
        provider=kind, model="m", base_url=base_url, api_key_env="TEST_LLM_KEY", cache_dir=tmp_path
    )
    provider.reply = shop_answer
    first = await build_mediator(config).process(cryptic_tools, tool_context)
    assert provider.count == 1
    assert sorted(t.original_name for t in first.tools if t.enhanced_by == "llm") == sorted(SHOP)
    assert len(first.tools) == len(cryptic_tools)
    # A new process: a new mediator on the same cache directory.
    second = await build_mediator(config).process(cryptic_tools, tool_context)
    assert provider.count == 1
    assert second.model_dump() == first.model_dump()
    # Another model is another namespace: it asks again.
    third = await build_mediator(config.model_copy(update={"model": "m2"})).process(
        cryptic_tools, tool_context
    )
    assert provider.count == 2 and third.model_dump() == first.model_dump()


async def test_ttl_expiry_causes_a_new_provider_call(
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
    tmp_path: Path,
) -> None:
    provider.reply = shop_answer
    clock = FakeClock()
    cached = CachedTransformer(
        LLMTransformer(client("anthropic", provider)),
        EnhancementCache(tmp_path, ttl=timedelta(days=7), clock=clock),
    )
    mediator = ToolMediator().use(cached).use(RuleBasedTransformer())
    await mediator.enhance(raw_tools, tool_context)
    clock.advance(timedelta(days=6).total_seconds())
    await mediator.enhance(raw_tools, tool_context)
    assert provider.count == 1
    clock.advance(timedelta(days=1).total_seconds())
    await mediator.enhance(raw_tools, tool_context)
    assert provider.count == 2


async def test_failures_are_not_cached(
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
    tmp_path: Path,
) -> None:
    cached = CachedTransformer(LLMTransformer(client("openai", provider)), EnhancementCache(tmp_path))
    mediator = ToolMediator().use(cached).use(RuleBasedTransformer())
    provider.status = 500
    assert {t.enhanced_by for t in await mediator.enhance(raw_tools, tool_context)} == {"rules"}
    provider.status, provider.reply = 200, shop_answer
    assert "llm" in {t.enhanced_by for t in await mediator.enhance(raw_tools, tool_context)}
    await mediator.enhance(raw_tools, tool_context)
    assert provider.count == 2


async def test_a_changed_page_is_enhanced_again(
    provider: FakeProvider,
    shop_answer: dict[str, Any],
    raw_tools: list[RawTool],
    tool_context: ToolContext,
    tmp_path: Path,
) -> None:
    provider.reply = shop_answer
    cached = CachedTransformer(LLMTransformer(client("openai", provider)), EnhancementCache(tmp_path))
    await cached.transform(raw_tools, tool_context)
    changed = copy.deepcopy(raw_tools)
    changed[0] = changed[0].model_copy(update={"description": "gets a user by id"})
    await cached.transform(changed, tool_context)
    assert provider.count == 2


async def test_too_many_tools_skip_the_llm(
    provider: FakeProvider, raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    assert (
        await LLMTransformer(client("openai", provider), max_tools=5).transform(raw_tools, tool_context)
        is None
    )
    assert provider.count == 0
