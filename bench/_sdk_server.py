"""The MCP SDK alone: a low-level ``mcp`` Server with one no-op tool, no browser, no tabmcp code.

What a tool call costs in the SDK and its transport (client and server sides), to set beside the
browser floor: bench.roundtrip launches it over stdio, or runs it on HTTP and points a client at
it. The server is the SDK's low-level ``Server`` the bridge uses, served the way the bridge
serves (``stdio_server``; ``streamable_http_app`` under uvicorn), with the bridge's settings of the
SDK and its process: the OpenTelemetry span per request dropped by the SDK's documented opt-out
(the bridge's default, ``mcp.opentelemetry`` off), and the loop of ``tabmcp serve`` (``run_loop``:
uvloop, sniffio told once). ``--sdk-defaults`` keeps the SDK's own defaults instead (the span, asyncio's
loop), as this baseline ran until 2026-12-07: for comparison.

    python -m bench._sdk_server --stdio [--sdk-defaults]
    python -m bench._sdk_server --port PORT [--sdk-defaults]
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
from tabmcp.event_loop import run_loop
from tabmcp.server.mcp import OTEL_MIDDLEWARE

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


def build(sdk_defaults: bool = False) -> Server[Any]:
    server = Server(
        "sdk-noop",
        on_list_tools=list_tools,  # type: ignore[arg-type]
        on_call_tool=call_tool,  # type: ignore[arg-type]
        cache_hints={"tools/list": CacheHint(ttl_ms=5_000, scope="private")},
    )
    if not sdk_defaults:  # as server/mcp.py does unless mcp.opentelemetry asks for the span
        server.middleware[:] = [m for m in server.middleware if type(m).__name__ != OTEL_MIDDLEWARE]
    return server


async def serve(stdio: bool, port: int, sdk_defaults: bool = False) -> None:
    server = build(sdk_defaults)
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
    parser.add_argument("--sdk-defaults", action="store_true",
                        help="the SDK's defaults (its span, asyncio's loop), not the bridge's settings")
    args = parser.parse_args(argv)
    main = serve(args.stdio, args.port, args.sdk_defaults)
    if args.sdk_defaults:
        asyncio.run(main)
    else:
        run_loop(main)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
