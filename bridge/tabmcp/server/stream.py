"""``/mcp-stream``: one MCP session per WebSocket, one JSON-RPC message per frame.

What a relay (:mod:`tabmcp.server.relay`) pipes its client through, served like the bridge's own
stdio client, so the relay parses nothing. Only local, non-browser clients: a loopback ``Host``, no
``Origin`` (no web page), and ``server.mcp_token`` when set.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from starlette.websockets import WebSocket, WebSocketDisconnect

from .direct_writes import DirectWrites
from .extension import is_loopback_host
from .mcp_streams import SPLICES, message_streams, parse
from .trace import ARRIVED, trace_enabled

__all__ = ["STREAM_PATH", "mcp_stream_endpoint"]

log = logging.getLogger("tabmcp.stream")

STREAM_PATH = "/mcp-stream"


def mcp_stream_endpoint(server: Server[Any], token: str | None) -> Callable[[WebSocket], Awaitable[None]]:
    expected = f"Bearer {token}" if token else None

    async def endpoint(ws: WebSocket) -> None:
        peer = f"{ws.client.host}:{ws.client.port}" if ws.client else "?"
        if ws.headers.get("origin") is not None or not is_loopback_host(ws.headers.get("host")):
            log.warning("refused %s from %s: a browser origin or a non-loopback Host", STREAM_PATH, peer)
            await ws.close(code=1008)
            return
        if expected is not None and not hmac.compare_digest(ws.headers.get("authorization", ""), expected):
            log.warning("refused %s from %s: missing or wrong bearer token", STREAM_PATH, peer)
            await ws.close(code=1008)
            return
        await ws.accept()
        read_writer, read_stream, _, _ = message_streams()
        traced = trace_enabled()

        async def reader() -> None:
            SPLICES.set(True)  # (this task's context, carried to each request's handler)
            async with read_writer:
                while True:
                    try:
                        message = await ws.receive()
                    except (WebSocketDisconnect, RuntimeError):  # gone, or closed under us
                        return
                    if message["type"] == "websocket.disconnect":
                        return
                    data = message.get("text")
                    if data is None:
                        data = message.get("bytes") or b""
                    if traced:  # debug mode: the handler sees when the frame arrived
                        ARRIVED.set(time.time_ns() / 1e6)
                    await read_writer.send(parse(data))

        # UTF-8 JSON as is (no decode and re-encode of a 5 MB listing), in the answering task
        # (server/direct_writes.py); the relay going away breaks the stream.
        write_stream = DirectWrites(ws.send_bytes, gone=(WebSocketDisconnect, RuntimeError, OSError))
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                await server.run(read_stream, write_stream, server.create_initialization_options())
                tg.cancel_scope.cancel()
        except* (anyio.BrokenResourceError, anyio.ClosedResourceError):  # the relay left mid-answer
            pass
        log.debug("%s session from %s ended", STREAM_PATH, peer)

    return endpoint
