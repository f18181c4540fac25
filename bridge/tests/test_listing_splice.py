"""The one splice of a kept tools/list (core/listing_splice.py) and proof that every transport uses it.

In most profiles the kept bytes and the SDK's own encoding of the same tools are byte for byte
alike, so an answer that merely equals the SDK's cannot tell whether the splice happened. Here the
core's bytes are written with spaces (``", "``, ``": "``): valid JSON with the same tools, which
neither of the SDK's encoders (``json.dumps`` with compact separators, ``model_dump_json``) ever
writes. An answer holding those bytes verbatim was spliced; one the SDK encoded holds none of them.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from tabmcp.core.listing_splice import PLACEHOLDER, carries_placeholder, refusal, splice
from tabmcp.errors import PlaceholderMissing, PlaceholderRepeated
from tabmcp.server.app import BridgeApp
from tabmcp.server.mcp import ListingCache

from .test_keepalive import _events, _raw_session
from .test_mcp_transports import Session, categorised_bridge, modern_post

PROFILES = ["passthrough", "categories", "meta", "hybrid"]
TOKEN = PLACEHOLDER[0]
MARK = b'["' + TOKEN.encode() + b'"]'


# --- the splice itself ---------------------------------------------------------------------------

def test_both_sdk_encoders_write_the_placeholder_as_the_array_replaced():
    import pydantic

    assert json.dumps({"tools": PLACEHOLDER}, separators=(",", ":")).encode() == b'{"tools":' + MARK + b"}"
    assert pydantic.TypeAdapter(dict[str, list[str]]).dump_json({"tools": PLACEHOLDER}) == b'{"tools":' + MARK + b"}"


def test_the_placeholder_array_is_replaced_by_the_bytes():
    body = b'{"jsonrpc":"2.0","id":3,"result":{"tools":' + MARK + b',"ttlMs":5}}'
    assert carries_placeholder(body)
    assert splice(body, b'[{"name":"a"}]') == b'{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a"}],"ttlMs":5}}'


@pytest.mark.parametrize(("body", "error"), [
    (b'{"result":{"tools":[]}}', PlaceholderMissing),  # never given the placeholder
    (b'{"result":{"tools":[ "' + TOKEN.encode() + b'" ]}}', PlaceholderMissing),  # written otherwise
    (b'{"result":{"tools":["' + TOKEN.encode() + b'","x"]}}', PlaceholderMissing),  # not the array it was given
    (b'{"result":{"tools":' + MARK + b',"_meta":{"a":' + MARK + b'}}}', PlaceholderRepeated),
    (b'{"result":{"_meta":{"a":"' + TOKEN.encode() + b'"},"tools":' + MARK + b'}}', PlaceholderRepeated),
    (b'{"result":{"tools":' + MARK + b',"_meta":{"a":"' + TOKEN.encode() + b'"}}}', PlaceholderRepeated),
])
def test_a_body_without_exactly_one_placeholder_array_is_refused_by_name(body: bytes, error: type[Exception]):
    with pytest.raises(error):
        splice(body, b"[]")


@pytest.mark.parametrize(("prefix", "suffix"), [(b"", b""), (b"event: message\r\ndata: ", b"\r\n\r\n")])
def test_a_refusal_answers_the_same_id_with_an_error_that_names_why(prefix: bytes, suffix: bytes):
    body = prefix + b'{"jsonrpc":"2.0","id":"r-9","result":{"tools":' + MARK + b',"_meta":{"a":' + MARK + b'}}}' + suffix
    with pytest.raises(PlaceholderRepeated) as caught:
        splice(body, b"[]")
    refused = refusal(body, caught.value)
    assert refused.startswith(prefix) and refused.endswith(suffix)
    answer = json.loads(refused[len(prefix):len(refused) - len(suffix)])
    assert answer["id"] == "r-9" and "result" not in answer
    assert answer["error"]["code"] == -32603 and "PlaceholderRepeated" in answer["error"]["message"]


# --- every transport, every profile: the answer is the spliced bytes ----------------------------

def spaced(wire: bytes) -> bytes:
    """The same JSON array, written as neither of the SDK's encoders would."""
    return json.dumps(json.loads(wire), separators=(", ", ": "), ensure_ascii=False).encode()


@contextlib.asynccontextmanager
async def spaced_bridge(profile: str) -> AsyncIterator[tuple[BridgeApp, ListingCache, dict[str, bytes]]]:
    """:func:`categorised_bridge` whose core writes its listings spaced; the last bytes per version."""
    async with categorised_bridge(profile) as (bridge, cache):
        core = bridge.core
        written: dict[str, bytes] = {}
        plain = core.listing_json

        def listing_json(view: Any = None, *, protocol_version: str) -> bytes:
            written[protocol_version] = spaced(plain(view, protocol_version=protocol_version))
            return written[protocol_version]

        core.listing_json = listing_json  # type: ignore[method-assign]
        cache.clear()
        yield bridge, cache, written


def tools_of(answer: bytes) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = json.loads(answer)["result"]["tools"]
    return tools


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("version", [HANDSHAKE_PROTOCOL_VERSIONS[-1], *MODERN_PROTOCOL_VERSIONS])
async def test_stdio_and_the_stream_write_the_kept_bytes(profile: str, version: str):
    """/mcp-stream (stdio's writer, :func:`.mcp_streams.encode`): built, then kept, each answer
    holds the core's bytes verbatim."""
    async with spaced_bridge(profile) as (bridge, cache, written), contextlib.AsyncExitStack() as stack:
        session = await Session.open(stack, bridge.port, version)
        cache.clear()
        hits = cache.hits
        for _ in range(2):  # built, then kept
            request_id = await session.send("tools/list", {})
            while True:
                raw = await session.ws.recv()
                if json.loads(raw).get("id") == request_id:
                    break
            assert isinstance(raw, bytes)
            assert written[version] in raw
            assert tools_of(raw) == json.loads(written[version]) != []
        assert cache.hits == hits + 1


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_2026_http_answer_is_the_kept_bytes(profile: str):
    """HTTP, 2026-07-28 as JSON: built, then kept, the body holds the core's bytes verbatim with
    its Content-Length following."""
    async with spaced_bridge(profile) as (bridge, cache, written), httpx.AsyncClient() as http:
        body, headers = modern_post("tools/list", {})
        for _ in range(2):  # built, then kept
            response = await http.post(f"http://127.0.0.1:{bridge.port}/mcp", json=body, headers=headers)
            assert response.status_code == 200
            assert int(response.headers["content-length"]) == len(response.content)
            assert written[MODERN_PROTOCOL_VERSIONS[-1]] in response.content
            assert tools_of(response.content) == json.loads(written[MODERN_PROTOCOL_VERSIONS[-1]]) != []
        assert cache.hits >= 1


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_2026_http_answer_streamed_as_events_is_the_kept_bytes(profile: str):
    """HTTP, 2026-07-28 as SSE (the SDK commits to a stream when the handler notifies before its
    result): the event carrying the result holds the core's bytes verbatim."""
    async with spaced_bridge(profile) as (bridge, cache, written), httpx.AsyncClient() as http:

        async def notify_first(ctx: Any, call_next: Any) -> Any:
            if ctx.method == "tools/list":
                await ctx.session.send_progress_notification("p", 0.5, related_request_id=str(ctx.request_id))
            return await call_next(ctx)

        bridge.mcp.middleware.insert(len(bridge.mcp.middleware) - 1, notify_first)  # (outside the cache)
        body, headers = modern_post("tools/list", {})
        for _ in range(2):  # built, then kept
            response = await http.post(f"http://127.0.0.1:{bridge.port}/mcp", json=body, headers=headers)
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            events = _events(response.text)
            assert events[0]["method"] == "notifications/progress"
            assert events[-1]["result"]["tools"] == json.loads(written[MODERN_PROTOCOL_VERSIONS[-1]]) != []
            assert written[MODERN_PROTOCOL_VERSIONS[-1]] in response.content
        assert cache.hits >= 1


async def test_a_handshake_era_http_answer_is_the_sdks_own():
    """HTTP, handshake era: never spliced (its session's events keep the message a resumed stream
    replays), so the SDK encodes the tools: none of the core's spaced bytes reach the client."""
    async with spaced_bridge("hybrid") as (bridge, cache, written), httpx.AsyncClient(timeout=10) as http:
        url = f"http://127.0.0.1:{bridge.port}/mcp"
        headers = await _raw_session(http, url)
        version = headers["Mcp-Protocol-Version"]
        for request_id in (4, 5):  # built, then kept
            response = await http.post(url, json={"jsonrpc": "2.0", "id": request_id, "method": "tools/list",
                                                  "params": {}}, headers=headers)
            answer = next(e for e in _events(response.text) if e.get("id") == request_id)
            assert answer["result"]["tools"] == json.loads(written[version]) != []
            assert written[version] not in response.content and TOKEN.encode() not in response.content
        assert cache.hits >= 1


# --- a placeholder the SDK wrote twice: refused by name on every transport -----------------------

def echo_placeholder(ctx: Any, result: Any) -> Any:
    """The result with the placeholder in a second field too (as if the SDK wrote it twice)."""
    return {**result, "_meta": {**result.get("_meta", {}), "echo": PLACEHOLDER}}


async def echo_twice(ctx: Any, call_next: Any) -> Any:
    result = await call_next(ctx)
    return echo_placeholder(ctx, result) if ctx.method == "tools/list" else result


@pytest.mark.parametrize("transport", ["stream", "http"])
async def test_a_placeholder_written_twice_is_refused_by_name(transport: str, caplog: pytest.LogCaptureFixture):
    """Never a wrong answer: the request gets a JSON-RPC error naming why, and the bridge logs it."""
    caplog.set_level(logging.ERROR, logger="tabmcp")
    async with spaced_bridge("categories") as (bridge, _, _), contextlib.AsyncExitStack() as stack:
        bridge.mcp.middleware.insert(len(bridge.mcp.middleware) - 1, echo_twice)  # (outside the cache)
        if transport == "stream":
            session = await Session.open(stack, bridge.port, HANDSHAKE_PROTOCOL_VERSIONS[-1])
            answer = await session.request("tools/list", {})
        else:
            http = await stack.enter_async_context(httpx.AsyncClient())
            body, headers = modern_post("tools/list", {})
            response = await http.post(f"http://127.0.0.1:{bridge.port}/mcp", json=body, headers=headers)
            assert int(response.headers["content-length"]) == len(response.content)
            answer = response.json()
        assert "result" not in answer and answer["id"] in (2, 7)
        assert "PlaceholderRepeated" in answer["error"]["message"]
        assert any(r.exc_info and isinstance(r.exc_info[1], PlaceholderRepeated) for r in caplog.records)
