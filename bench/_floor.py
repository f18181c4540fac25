"""The architecture floor's server side, and the static pages of bench.roundtrip.

One loopback ``websockets`` server, no tabmcp code: ``/echo`` is the WebSocket the floor
extension's service worker (bench/floor/worker.js) connects to; every other path is a static
page. Over ``/echo`` it

- sends back, unread, what the page starts (``{"type": "echo", ...}``): the page-started floor;
- starts calls itself (``call``: the shape of a bridge → page tool call) and matches the page's
  ``result`` by ``callId``: the server-started floor, timed here like an MCP client times a call.

``floor_server(echoes=...)`` can also serve ``/echo`` other ways, each on a port of its own, with
the same handler (``FloorServer.echo_url(echo)``; the worker's ``connectTo`` switches between
them; bench/browser_half.py sets them side by side): ``"asgi"`` through uvicorn with the bridge's
WebSocket settings (``ws="websockets-sansio"``, its frame limit, no ping, no deflate) and a plain
ASGI app; ``"starlette"`` the same uvicorn with a Starlette ``WebSocketRoute`` reading and writing
through starlette's ``WebSocket``, as the bridge's ``/extension`` does.

Static pages: ``/floor.html`` (cross-origin isolated, so the page's ``performance.now()`` has
microsecond resolution), ``/roundtrip.html`` (bench/pages), ``/peer.html`` and ``/peer/*`` (the
MCP-B relay's embed script and widget, read from node_modules, never copied into the repo).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import mimetypes
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any, Literal, Protocol

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

ROOT = Path(__file__).resolve().parent.parent
PAGES = Path(__file__).parent / "pages"
FLOOR_EXTENSION = Path(__file__).parent / "floor"
PEER_DIST = ROOT / "node_modules" / "@mcp-b" / "webmcp-local-relay" / "dist"

FLOOR_PAGE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>floor</title></head>
<body>The floor extension's page script answers here.</body></html>
"""

# The peer's page: a WebMCP runtime of the shape its embed script reads (navigator.modelContext
# with listTools/callTool and events, as @mcp-b/global provides) holding one no-op tool, then the embed.
PEER_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>peer</title></head>
<body>
<script>
  const tool = {name: 'noop', description: 'Does nothing and answers at once.',
                inputSchema: {type: 'object', properties: {}}};
  const modelContext = Object.assign(new EventTarget(), {
    listTools: () => [tool],
    callTool: async () => ({content: [{type: 'text', text: 'ok'}]}),
  });
  Object.defineProperty(navigator, 'modelContext', {value: modelContext});
</script>
<script src="/peer/browser/embed.js" data-relay-port="%PORT%"></script>
</body></html>
"""


def _response(status: HTTPStatus, body: bytes, content_type: str, isolated: bool = False) -> Response:
    headers = Headers(
        {"Content-Type": content_type, "Content-Length": str(len(body)), "Cache-Control": "no-store"}
    )
    if isolated:
        headers["Cross-Origin-Opener-Policy"] = "same-origin"
        headers["Cross-Origin-Embedder-Policy"] = "require-corp"
    return Response(status.value, status.phrase, headers, body)


def _static(path: str, query: str) -> Response:
    if path == "/floor.html":
        return _response(HTTPStatus.OK, FLOOR_PAGE, "text/html; charset=utf-8", isolated=True)
    if path == "/peer.html":
        port = next((p[5:] for p in query.split("&") if p.startswith("port=")), "9333")
        return _response(
            HTTPStatus.OK, PEER_PAGE.replace("%PORT%", port).encode(), "text/html; charset=utf-8"
        )
    base, rel = (PEER_DIST, path[len("/peer/") :]) if path.startswith("/peer/") else (PAGES, path.lstrip("/"))
    file = (base / rel).resolve()
    if not file.is_relative_to(base.resolve()) or not file.is_file():
        return _response(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    return _response(HTTPStatus.OK, file.read_bytes(), kind)


Echo = Literal["websockets", "asgi", "starlette"]
ECHOES: tuple[Echo, ...] = ("websockets", "asgi", "starlette")


class _Sender(Protocol):
    async def send(self, message: str, /) -> None: ...


class _AsgiSender:
    def __init__(self, send: Any) -> None:
        self._send = send

    async def send(self, text: str) -> None:
        await self._send({"type": "websocket.send", "text": text})


class _StarletteSender:
    def __init__(self, ws: Any) -> None:
        self._ws = ws

    async def send(self, text: str) -> None:
        await self._ws.send_text(text)


@dataclass
class FloorServer:
    """The running server: its port, the worker's connection once it came, calls in flight."""

    server: Server | None = None
    worker: _Sender | None = None
    echo_ports: dict[str, int] = field(default_factory=dict)
    """Where ``/echo`` is served other than by ``server`` (the ASGI variants)."""
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    ids: Any = field(default_factory=lambda: itertools.count(1))

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(next(iter(self.server.sockets)).getsockname()[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def echo_url(self, echo: Echo = "websockets") -> str:
        """The WebSocket the floor worker connects to."""
        return f"ws://127.0.0.1:{self.echo_ports.get(echo, self.port)}/echo"

    async def _text(self, text: str) -> None:
        """One frame from the worker, whichever server read it."""
        if text.startswith('{"type":"echo"'):
            assert self.worker is not None
            await self.worker.send(text)  # the page-started floor: straight back, unread
            return
        msg = json.loads(text)
        fut = self.pending.pop(str(msg.get("callId")), None)
        if fut is not None and not fut.done():
            fut.set_result(msg)

    async def _handler(self, ws: ServerConnection) -> None:
        self.worker = ws
        self.connected.set()
        async for message in ws:
            await self._text(message if isinstance(message, str) else message.decode())

    async def _asgi(self, scope: Any, receive: Any, send: Any) -> None:
        """``/echo`` as a plain ASGI app (no framework between uvicorn and the handler)."""
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "websocket" or scope["path"] != "/echo":
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        self.worker = _AsgiSender(send)
        self.connected.set()
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            await self._text(text if text is not None else message["bytes"].decode())

    async def _starlette(self, ws: Any) -> None:
        """``/echo`` through starlette's ``WebSocket``, read as the bridge's endpoint reads it."""
        await ws.accept()
        self.worker = _StarletteSender(ws)
        self.connected.set()
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            await self._text(text if text is not None else message["bytes"].decode())

    def _route(self, conn: ServerConnection, request: Request) -> Response | None:
        path, _, query = request.path.partition("?")
        if path == "/echo":
            return None  # the WebSocket handshake goes on
        return _static(path, query)

    async def call(self, tab: int, timeout: float = 10.0) -> dict[str, Any]:
        """One server-started round trip to the page in ``tab`` (a no-op ``call``)."""
        assert self.worker is not None
        call_id = str(next(self.ids))
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[call_id] = fut
        await self.worker.send(
            json.dumps({"type": "call", "callId": call_id, "tab": tab, "tool": "noop", "arguments": {}})
        )
        return await asyncio.wait_for(fut, timeout)

    async def time_calls(self, tab: int, calls: int, warmup: int) -> list[float]:
        out = []
        for i in range(warmup + calls):
            start = time.perf_counter()
            await self.call(tab)
            if i >= warmup:
                out.append(time.perf_counter() - start)
        return out


@contextlib.asynccontextmanager
async def _uvicorn_echo(app: Any) -> AsyncIterator[int]:
    """``app`` served by uvicorn with the bridge's WebSocket settings (server/app.py); its port."""
    import uvicorn
    from tabmcp.protocol import MAX_FRAME_BYTES
    from tabmcp.server.app import bind_socket

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(
        app, ws="websockets-sansio", ws_max_size=MAX_FRAME_BYTES, ws_ping_interval=None,
        ws_per_message_deflate=False, log_level="warning", lifespan="off", interface="asgi3"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                await task
            await asyncio.sleep(0.01)
        yield int(sock.getsockname()[1])
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)
        sock.close()


@contextlib.asynccontextmanager
async def floor_server(echoes: tuple[Echo, ...] = ()) -> AsyncIterator[FloorServer]:
    """The floor's echo server and the bench pages on 127.0.0.1 (any free port); ``echoes``: the
    other ways ``/echo`` is served too (the module's docstring)."""
    state = FloorServer()
    async with contextlib.AsyncExitStack() as stack:
        server = await stack.enter_async_context(
            serve(state._handler, "127.0.0.1", 0, process_request=state._route, compression=None))
        state.server = server
        if "asgi" in echoes:
            state.echo_ports["asgi"] = await stack.enter_async_context(_uvicorn_echo(state._asgi))
        if "starlette" in echoes:
            from starlette.applications import Starlette
            from starlette.routing import WebSocketRoute

            app = Starlette(routes=[WebSocketRoute("/echo", state._starlette)])
            state.echo_ports["starlette"] = await stack.enter_async_context(_uvicorn_echo(app))
        yield state
