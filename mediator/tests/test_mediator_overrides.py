"""Overrides: the file format, loading from a file and from a local HTTPS server, applying."""

from __future__ import annotations

import json
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mediator_testkit import serve, static_handler
from tabmcp_mediator import (
    MediatorConfig,
    OverrideLoadError,
    OverrideTransformer,
    RawTool,
    RuleBasedTransformer,
    ToolContext,
    ToolMediator,
    build_mediator,
    fetch_overrides,
    load_overrides_file,
    map_arguments,
)

OVERRIDES: dict[str, Any] = {
    "www.Example.com": {
        "gt_usr": {
            "rename": "get_user",
            "description": "Retrieve a user by their ID or email address.",
            "inputSchema": {
                "type": "object",
                "properties": {"user_id": {"type": "number"}, "email": {"type": "string"}},
            },
            "argumentMap": {"user_id": "uid"},
            "category": "users",
            "categoryDescription": "User accounts",
        },
        "del": {"description": "Delete the message currently open."},
    },
    "other.org": {"srch": {"rename": "find"}},
}
CTX = ToolContext(source="example.com")
RAW = [RawTool(name="gt_usr", description="gets user"), RawTool(name="del"), RawTool(name="srch")]


@pytest.fixture
def overrides_file(tmp_path: Path) -> Path:
    path = tmp_path / "overrides.json"
    path.write_text(json.dumps(OVERRIDES))
    return path


class HTTPSServer:
    def __init__(self, tls: ssl.SSLContext, routes: dict[str, tuple[int, bytes]]) -> None:
        self.hits: list[str] = []
        self.server = serve(static_handler(routes, self.hits), tls=tls)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def https_server(server_tls: ssl.SSLContext) -> Iterator[HTTPSServer]:
    server = HTTPSServer(
        server_tls,
        {
            "/overrides.json": (200, json.dumps(OVERRIDES).encode()),
            "/broken.json": (200, b'{"example.com": 3}'),
        },
    )
    yield server
    server.server.shutdown()
    server.server.server_close()


async def test_overrides_apply_with_confidence_one(overrides_file: Path) -> None:
    tools = await OverrideTransformer.from_file(overrides_file).transform(RAW, CTX)
    assert tools is not None
    by_original = {t.original_name: t for t in tools}
    assert set(by_original) == {"gt_usr", "del"}  # 'srch' has no override: left to the chain
    user = by_original["gt_usr"]
    assert (user.name, user.confidence, user.enhanced_by, user.category) == (
        "get_user",
        1.0,
        "overrides",
        "users",
    )
    assert user.input_schema["properties"]["user_id"] == {"type": "number"}
    assert map_arguments(user, {"user_id": 7}) == {"uid": 7}
    assert by_original["del"].name == "del"
    assert by_original["del"].description == "Delete the message currently open."


@pytest.mark.parametrize("source", ["example.com", "www.example.com", "https://example.com/shop"])
async def test_sources_match_by_normalised_host(overrides_file: Path, source: str) -> None:
    assert await OverrideTransformer.from_file(overrides_file).transform(RAW, ToolContext(source=source))


async def test_no_overrides_for_the_source_means_none(overrides_file: Path) -> None:
    transformer = OverrideTransformer.from_file(overrides_file)
    assert await transformer.transform(RAW, ToolContext(source="unknown.net")) is None
    assert await transformer.transform([RawTool(name="unrelated")], CTX) is None


async def test_in_a_chain_overrides_win_and_the_rest_goes_to_rules(overrides_file: Path) -> None:
    mediator = ToolMediator().use(RuleBasedTransformer()).use(OverrideTransformer.from_file(overrides_file))
    tools = await mediator.enhance(RAW, CTX)
    assert [(t.name, t.enhanced_by) for t in tools] == [
        ("get_user", "overrides"),
        ("del", "overrides"),
        ("search", "rules"),
    ]


async def test_overrides_built_in_code_are_validated() -> None:
    transformer = OverrideTransformer(
        {"WWW.example.com": {"gt_usr": {"rename": "get_user", "category": "account"}}}
    )
    (tool,) = await transformer.transform(RAW, CTX) or []
    assert (tool.name, tool.category, tool.confidence) == ("get_user", "account", 1.0)
    with pytest.raises(OverrideLoadError):
        OverrideTransformer({"example.com": {"gt_usr": {"rename": "not a legal name"}}})


def test_load_errors_are_override_load_errors(tmp_path: Path) -> None:
    with pytest.raises(OverrideLoadError, match="cannot read"):
        load_overrides_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    for text in [
        "{not json",
        '["a list"]',
        '{"example.com": {"gt_usr": {"renam": "typo"}}}',
        '{"e.com": {"t": {"rename": "bad name"}}}',
    ]:
        bad.write_text(text)
        with pytest.raises(OverrideLoadError):
            load_overrides_file(bad)


async def test_overrides_from_an_https_url_with_an_explicit_ca(
    https_server: HTTPSServer, ca_file: str
) -> None:
    loaded = await fetch_overrides(f"{https_server.url}/overrides.json", verify=ca_file)
    assert loaded["example.com"]["gt_usr"].rename == "get_user"
    assert https_server.hits == ["/overrides.json"]


async def test_https_with_an_untrusted_certificate_fails(https_server: HTTPSServer) -> None:
    with pytest.raises(OverrideLoadError, match="cannot fetch"):
        await fetch_overrides(f"{https_server.url}/overrides.json")  # system CAs do not know the test CA


@pytest.mark.parametrize(
    ("path", "message"), [("/missing.json", "404"), ("/broken.json", "invalid overrides")]
)
async def test_https_errors(https_server: HTTPSServer, ca_file: str, path: str, message: str) -> None:
    with pytest.raises(OverrideLoadError, match=message):
        await fetch_overrides(f"{https_server.url}{path}", verify=ca_file)


async def test_plain_http_is_refused() -> None:
    with pytest.raises(OverrideLoadError, match="https"):
        await fetch_overrides("http://127.0.0.1:1/overrides.json")


async def test_a_url_transformer_fetches_lazily_once(https_server: HTTPSServer, ca_file: str) -> None:
    transformer = OverrideTransformer.from_url(f"{https_server.url}/overrides.json", verify=ca_file)
    assert https_server.hits == []  # no network at construction
    assert await transformer.transform(RAW, CTX)
    assert await transformer.transform(RAW, CTX)
    assert https_server.hits == ["/overrides.json"]


async def test_a_failed_fetch_raises_once_then_waits_before_retrying(
    https_server: HTTPSServer, ca_file: str
) -> None:
    transformer = OverrideTransformer.from_url(
        f"{https_server.url}/missing.json", verify=ca_file, retry_after=3600
    )
    with pytest.raises(OverrideLoadError):
        await transformer.transform(RAW, CTX)
    assert await transformer.transform(RAW, CTX) is None
    assert https_server.hits == ["/missing.json"]
    mediator = ToolMediator().use(transformer).use(RuleBasedTransformer())
    assert [t.enhanced_by for t in await mediator.enhance(RAW, CTX)] == ["rules"] * 3


async def test_build_mediator_with_an_overrides_url(https_server: HTTPSServer, ca_file: str) -> None:
    config = MediatorConfig(overrides=f"{https_server.url}/overrides.json", overrides_verify=ca_file)
    tools = await build_mediator(config).enhance(RAW, CTX)
    assert [t.name for t in tools] == ["get_user", "del", "search"]


def test_build_mediator_fails_fast_on_a_bad_overrides_file(tmp_path: Path) -> None:
    with pytest.raises(OverrideLoadError):
        build_mediator(MediatorConfig(overrides=str(tmp_path / "missing.json")))
