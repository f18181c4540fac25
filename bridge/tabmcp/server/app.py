"""One ASGI app on one port, and the two ways to run it.

* ``/extension`` — the extension's WebSocket (see :mod:`tabmcp.server.extension`)
* ``/mcp`` — MCP Streamable HTTP (every protocol version the SDK speaks)
* ``/mcp-stream`` — one MCP session per WebSocket, for relays (see :mod:`tabmcp.server.stream`)
* ``/health`` — liveness and version; the status only with the control key or ``server.mcp_token``
* ``/control/...`` — pairing (``tabmcp pair``, launchers), with the control key (see :mod:`tabmcp.control_key`)

:meth:`BridgeApp.serve` runs the HTTP server; with ``stdio=True`` it also serves MCP on
stdin/stdout (for clients that launch the bridge) while still listening for the extension.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from ..config import Config
from ..control_key import load_or_create_control_key
from ..core.disclosure import PROFILES
from ..core.stores import StoreUnavailable
from ..protocol import MAX_FRAME_BYTES
from ..wiring import BridgeCore
from .control_api import control_routes, health_route
from .extension import TransportAbort, extension_endpoint, is_loopback_host
from .http_transport import PER_SESSION, RETRY_MS, ListingSplice
from .http_transport import install as install_http_transport
from .keepalive import StallSafeHTTP
from .loop_watch import LoopWatch
from .mcp import build_mcp_server
from .reader import SWITCH_S
from .stdio import stdio_transport
from .stream import STREAM_PATH, mcp_stream_endpoint
from .trace import ARRIVED

__all__ = ["BearerTokenMiddleware", "BridgeApp", "PortInUse", "bind_socket", "running_bridge"]

log = logging.getLogger("tabmcp.app")


class PortInUse(OSError):
    """The port is taken (most likely by another tabmcp bridge)."""


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind the listening socket up front, so the real port is known and a clash is clear."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on sockets whose proto says TCP,
    # and without it every small HTTP response waits ~40 ms for a delayed ACK (Nagle).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise PortInUse(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(128)
    sock.setblocking(False)
    return sock


class BearerTokenMiddleware:
    """Require ``Authorization: Bearer <token>`` on the given path prefixes (``server.mcp_token``)."""

    def __init__(self, app: ASGIApp, *, token: str, paths: tuple[str, ...]) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.paths = paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.paths):
            got = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(got, self.expected):
                response = JSONResponse({"error": "missing or wrong bearer token"}, status_code=401,
                                        headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class OneHost:
    """Refuse a request with no ``Host`` or more than one (RFC 9112 §3.2: 400), before anything
    reads it: every Host check in the bridge (``/extension``, ``/mcp``, ``/mcp-stream``, ``/health``)
    reads one value, and the C parser uvicorn uses (httptools) passes duplicates through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and sum(1 for k, _ in scope["headers"] if k == b"host") != 1:
            if scope["type"] == "http":
                await Response("Bad Request: exactly one Host header", status_code=400)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)


class ArrivalStamp:
    """Debug mode only: note when each HTTP request reached the bridge (see ``trace.ARRIVED``)."""

    def __init__(self, app: ASGIApp, *, core: BridgeCore) -> None:
        self.app = app
        self.core = core

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.core.trace and scope["type"] == "http":
            ARRIVED.set(time.time_ns() / 1e6)
        await self.app(scope, receive, send)


class BridgeApp:
    """The bridge core (tabmcp/wiring.py), its MCP server and the ASGI app that exposes both."""

    def __init__(self, config: Config | None = None) -> None:
        self.config = config or Config()
        self.control_key = load_or_create_control_key()
        """Proves a caller of ``/control/`` and the full ``/health`` runs as the person (tabmcp/control_key.py)."""
        self.core = BridgeCore(self.config, control_key=self.control_key)
        """Every collaborator, built once (tabmcp/wiring.py): what the MCP layer and tests use."""
        self.mcp, self.notifier, self.calls = build_mcp_server(self.core)
        self.port: int | None = None
        self._uvicorn: uvicorn.Server | None = None
        self.loop_watch = LoopWatch(self.core.stalls)
        """The event loop's lag, measured while serving (stalls in the full ``/health``)."""
        self.started = asyncio.Event()

    def asgi(self, port: int) -> Starlette:
        host_names = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=host_names,
            allowed_origins=[],  # no browser origin may drive MCP; non-browser clients send none
        )

        async def listings(request: Request) -> Response:
            """tools/list as each disclosure profile would answer it now (for ``tabmcp tokens``)."""
            if not is_loopback_host(request.headers.get("host")) or request.headers.get("origin"):
                return Response("Forbidden", status_code=403)
            return JSONResponse(
                {profile: self.core.listing(profile=profile) for profile in PROFILES}
            )

        install_http_transport()  # no answer to a cancelled request; resumable streams (.http_transport)
        app = self.mcp.streamable_http_app(
            streamable_http_path="/mcp",
            event_store=PER_SESSION,
            retry_interval=RETRY_MS,
            transport_security=security,
            host=self.config.server.host,
            custom_starlette_routes=[
                WebSocketRoute(  # type: ignore[list-item]
                    "/extension", extension_endpoint(self.core.hub, self.config.server.allowed_extension_origins)
                ),
                WebSocketRoute(  # type: ignore[list-item]
                    STREAM_PATH, mcp_stream_endpoint(self.mcp, self.config.server.mcp_token or None)
                ),
                health_route(self.core, self.control_key),
                *control_routes(self.core, self.control_key),
                Route("/api/listings", listings),
            ],
        )
        app.add_middleware(ListingSplice, path="/mcp")  # a kept 2026-07-28 listing written as its bytes
        app.add_middleware(ArrivalStamp, core=self.core)  # one check per request unless in debug mode
        token = self.config.server.mcp_token
        if token:
            app.add_middleware(BearerTokenMiddleware, token=token, paths=("/mcp", "/api/"))
        app.add_middleware(OneHost)
        app.add_middleware(TransportAbort)  # outermost: it needs the server's own send
        return app

    async def serve(
        self,
        *,
        stdio: bool = False,
        sock: socket.socket | None = None,
        on_ready: Callable[[int], None] | None = None,
        log_level: str = "warning",
    ) -> None:
        """Serve until cancelled (or, with ``stdio``, until the MCP client closes stdin)."""
        self.config.check_binding()
        if sock is None:
            sock = bind_socket(self.config.server.host, self.config.server.port)
        self.port = sock.getsockname()[1]
        app = self.asgi(self.port)
        server = uvicorn.Server(
            uvicorn.Config(
                app,
                http=StallSafeHTTP,  # a request sent during a stall is answered after it (.keepalive)
                timeout_keep_alive=self.config.server.keep_alive_s,  # type: ignore[arg-type]  # (a float is fine: a timer's delay)
                ws="websockets-sansio",
                ws_max_size=MAX_FRAME_BYTES,
                ws_ping_interval=None,  # the extension's own heartbeat keeps the worker alive
                # Frames are small JSON on loopback: compressing each costs more CPU (here and in
                # the service worker) than the bytes it saves.
                ws_per_message_deflate=False,
                log_level=log_level,
                lifespan="on",
                timeout_graceful_shutdown=2,
            )
        )
        self._uvicorn = server
        http = asyncio.create_task(server.serve(sockets=[sock]))
        switch = sys.getswitchinterval()
        try:
            while not server.started:
                if http.done():
                    await http  # surface the startup error
                    return
                await asyncio.sleep(0.01)
            self.core.shared_state.start()  # follow the CLI's writes to the database while serving
            sys.setswitchinterval(min(switch, SWITCH_S))  # the loop waits less for the reader's thread
            self.loop_watch.start()
            self.started.set()
            if on_ready is not None:
                on_ready(self.port)
            if stdio:
                async with stdio_transport() as (read, write):
                    await self.mcp.run(read, write, self.mcp.create_initialization_options())
            else:
                await http
        finally:
            server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(http, 5)
            sock.close()
            self.loop_watch.stop()
            self.core.reader.close()
            sys.setswitchinterval(switch)
            self.core.shared_state.stop()
            self.core.activity_writer.close()
            for name, flush in (("usage counts", self.core.usage.flush), ("activity rows", self.core.activity.flush)):
                try:  # each store on its own: one that refuses its write does not cost the other's
                    flush()
                except StoreUnavailable as exc:
                    log.warning("could not write the %s on shutdown: %s", name, exc)

    def stop(self) -> None:
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True


@contextlib.asynccontextmanager
async def running_bridge(config: Config | None = None, **kwargs: Any) -> AsyncIterator[BridgeApp]:
    """Run a bridge in this event loop for the duration of the block (tests, demo)."""
    app = BridgeApp(config)
    task = asyncio.create_task(app.serve(**kwargs))
    started = asyncio.create_task(app.started.wait())
    done, _ = await asyncio.wait({task, started}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        started.cancel()
        await task
        raise RuntimeError("bridge stopped during startup")
    try:
        yield app
    finally:
        app.stop()
        try:
            await asyncio.wait_for(task, 10)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()

