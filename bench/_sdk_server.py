"""The MCP SDK alone: a low-level ``mcp`` Server with one no-op tool, no browser, no tabmcp code.

What a tool call costs in the SDK and its transport (client and server sides), to set beside the
browser floor: bench.roundtrip launches it over stdio, or runs it on HTTP and points a client at
it. The server is the SDK's low-level ``Server`` the bridge uses, served the way the bridge
serves (``stdio_server``; ``streamable_http_app`` under uvicorn).

    python -m bench._sdk_server --stdio
    python -m bench._sdk_server --port PORT
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import uvicorn
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

NOOP = {
    "name": "noop",
    "description": "Does nothing and answers at once.",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {"readOnlyHint": True},
}


def _complete(ctx: ServerRequestContext[Any, Any], result: dict[str, Any]) -> dict[str, Any]:
    """2026-07-28 results say they are complete (a plain dict does not get it from the SDK)."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        result["resultType"] = "complete"
    return result


async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
    return _complete(ctx, {"tools": [NOOP]})


async def call_tool(ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
    if params.name != NOOP["name"]:
        return _complete(
            ctx, {"content": [{"type": "text", "text": f"no tool {params.name}"}], "isError": True}
        )
    return _complete(ctx, {"content": [{"type": "text", "text": "ok"}]})


def build() -> Server[Any]:
    return Server(
        "sdk-noop",
        on_list_tools=list_tools,  # type: ignore[arg-type]
        on_call_tool=call_tool,  # type: ignore[arg-type]
        cache_hints={"tools/list": CacheHint(ttl_ms=5_000, scope="private")},
    )


async def serve(stdio: bool, port: int) -> None:
    server = build()
    if stdio:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        return
    app = server.streamable_http_app(streamable_http_path="/mcp")
    await uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    ).serve()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench._sdk_server")
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    asyncio.run(serve(args.stdio, args.port))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
