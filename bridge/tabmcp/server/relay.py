"""Several MCP clients, one browser: a second ``tabmcp serve --stdio`` relays to the first.

Clients each launch their own ``tabmcp serve --stdio``; a later one pipes its client, unparsed,
through one WebSocket to the first bridge's ``/mcp-stream``, which serves it as its own session.
If that bridge goes, the relay binds the port, starts a bridge and replays ``initialize``;
requests in flight then fail with a named error, the next ones work.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import httpx
import websockets
from mcp_types import PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from websockets.asyncio.client import ClientConnection

from ..config import Config
from ..core.trust.text import amended
from ..errors import ExtensionDisconnected
from .app import BridgeApp, PortInUse, bind_socket
from .call_path import error_result
from .stdio import StdLines, std_lines
from .stream import STREAM_PATH

__all__ = ["Relay", "bridge_on_port"]

log = logging.getLogger("tabmcp.relay")

_REPLAYED_ID = "tabmcp-relay-initialize"
"""The id of a replayed ``initialize`` (its answer is the relay's, never the client's)."""
GONE = "the tabmcp bridge went away; retry in a moment"


async def bridge_on_port(port: int, timeout: float = 2.0) -> bool:
    """Is a tabmcp bridge answering on 127.0.0.1:port?"""
    try:
        async with httpx.AsyncClient(timeout=timeout) as http:
            response = await http.get(f"http://127.0.0.1:{port}/health")
        return response.status_code == 200 and "bridge" in response.json()
    except (httpx.HTTPError, ValueError):
        return False


def _peek(line: bytes) -> dict[str, Any] | None:
    """The JSON-RPC message on a line, for bookkeeping only (the line goes on as it came)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _modern(message: dict[str, Any]) -> bool:
    """Does this request come from a 2026-07-28 (or later) client (its ``_meta`` names the version)?"""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
    return version in MODERN_PROTOCOL_VERSIONS


class Relay:
    """Pipe MCP on stdio to the bridge on ``config.server.port`` (or become that bridge)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.port = config.server.port
        self.url = f"ws://127.0.0.1:{self.port}{STREAM_PATH}"
        self._upstream: ClientConnection | None = None
        self._down: asyncio.Task[None] | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._handshake: list[bytes] = []
        """The client's ``initialize`` request and ``initialized`` notification as sent to a bridge,
        replayed on the next connection (after a lost one or a takeover), never on the first."""
        self._in_flight: dict[Any, tuple[str, bool]] = {}
        """Client requests sent up and not yet answered: id → (method, of a 2026-07-28 client)."""
        self._owned: BridgeApp | None = None
        self._owned_task: asyncio.Task[None] | None = None
        self._out: StdLines | None = None
        self.took_over = asyncio.Event()

    # -- the client's side ---------------------------------------------------------------------

    async def run_stdio(self) -> None:
        async with std_lines() as lines:
            self._out = lines
            try:
                while True:
                    try:
                        line = await lines.readline()
                    except ValueError:  # longer than the line limit: skipped, as the bridge would
                        log.warning("relay: a line from the client is too long; skipped")
                        continue
                    if not line:
                        return
                    await self._up(line)
            finally:
                await self._close_upstream()
                if self._owned is not None:
                    self._owned.stop()
                    if self._owned_task is not None:
                        with contextlib.suppress(Exception, asyncio.CancelledError):
                            await asyncio.wait_for(self._owned_task, 5)

    async def _up(self, line: bytes) -> None:
        """Send one line from the client to the bridge (connecting, or taking over, first)."""
        message = _peek(line)
        method = message.get("method") if message is not None else None
        request_id = message.get("id") if message is not None else None
        request: tuple[str, bool] | None = None  # (method, of a 2026-07-28 client) when it wants an answer
        if message is not None and method is not None and "id" in message:
            request = (str(method), _modern(message))
        if method == "initialize":
            self._handshake.clear()  # a new handshake: the old one is not replayed any more
        for attempt in (1, 2):
            upstream = await self._connect()
            if upstream is None:
                break
            if request is not None:  # before the send: the answer may come before the send returns
                self._in_flight[request_id] = request
            try:
                await upstream.send(line.decode("utf-8", "replace").rstrip("\n"))
            except websockets.ConnectionClosed:
                log.warning("relay: the bridge closed the connection (attempt %d)", attempt)
                # Not sent, so not the lost bridge's to fail: it is sent again below. Unless the
                # bridge's going away answered it already: sent again, it would be answered twice.
                answered = request is not None and self._in_flight.pop(request_id, None) is None
                await self._lost(upstream)
                if answered:
                    return
                continue
            if method in ("initialize", "notifications/initialized"):
                self._handshake.append(line)  # sent: a later connection gets it replayed
            return
        if request is not None:
            await self._fail(request_id, request)

    async def _write(self, line: bytes) -> None:
        if self._out is not None:
            await self._out.write(line)

    async def _fail(self, request_id: Any, request: tuple[str, bool]) -> None:
        """Answer a request the bridge will never answer (it went away with it)."""
        self._in_flight.pop(request_id, None)
        await self._answer_gone(request_id, request)

    async def _answer_gone(self, request_id: Any, request: tuple[str, bool]) -> None:
        method, modern = request
        if method == "tools/call":
            result = error_result(ExtensionDisconnected(GONE))
            if modern:  # 2026-07-28 results say what they are
                result = amended(result, result_type="complete")
            answer: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "result": result}
        else:
            answer = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": GONE}}
        await self._write(json.dumps(answer).encode() + b"\n")

    # -- the bridge's side ---------------------------------------------------------------------

    async def _connect(self) -> ClientConnection | None:
        """The open connection to a bridge: the current one, a new one, or one to the bridge this
        relay started after taking over the port. ``None`` if no bridge can be had."""
        async with self._lock:
            if self._upstream is not None:
                return self._upstream
            for _ in range(3):
                upstream = await self._open()
                if upstream is None:
                    if not await self._takeover_if_free():
                        return None
                    continue
                if not await self._replay(upstream):
                    continue  # closed under us: open another (or take the port over)
                self._upstream = upstream
                self._down = asyncio.create_task(self._pump_down(upstream))
                return upstream
            return None

    async def _replay(self, upstream: ClientConnection) -> bool:
        """Tell a new session the handshake the client made on an earlier connection (only lines
        a bridge was sent are kept, so a first connection replays nothing). False, with the
        connection closed, if it closed meanwhile."""
        if not self._handshake:
            return True
        first = _peek(self._handshake[0]) or {}
        first["id"] = _REPLAYED_ID
        try:
            await upstream.send(json.dumps(first))
            for line in self._handshake[1:]:
                await upstream.send(line.decode("utf-8", "replace").rstrip("\n"))
        except websockets.ConnectionClosed:
            log.warning("relay: the bridge closed the connection while the handshake was replayed")
            with contextlib.suppress(Exception):
                await upstream.close()
            return False
        return True

    async def _open(self) -> ClientConnection | None:
        token = self.config.server.mcp_token
        headers = {"Authorization": f"Bearer {token}"} if token else None
        try:
            return await websockets.connect(
                self.url, additional_headers=headers, max_size=None, compression=None,
                ping_interval=None, open_timeout=5,
            )
        except (OSError, websockets.InvalidHandshake, TimeoutError) as exc:
            log.info("relay: no bridge at %s (%s)", self.url, type(exc).__name__)
            return None

    async def _pump_down(self, upstream: ClientConnection) -> None:
        """Bridge → client, frame by frame, until the bridge closes the connection."""
        try:
            async for frame in upstream:
                data = frame if isinstance(frame, bytes) else frame.encode()
                if b'"id"' in data and (b'"result"' in data or b'"error"' in data):
                    message = _peek(data)
                    if message is not None and "method" not in message:
                        if message.get("id") == _REPLAYED_ID:
                            continue  # the answer to a replayed handshake: the client has its own
                        self._in_flight.pop(message.get("id"), None)
                await self._write(data + b"\n")
        except websockets.ConnectionClosed:
            pass
        except Exception:  # the client's stdout is gone; the read side ends the relay
            log.debug("relay: writing to the client failed", exc_info=True)
            return
        await self._lost(upstream)
        if self._reconnecting is None or self._reconnecting.done():
            self._reconnecting = asyncio.create_task(self._reconnect())

    async def _reconnect(self, tries: int = 30, interval: float = 0.3) -> None:
        """Find a bridge again at once (taking over the port if it is free), so the extension has
        one to reconnect to even while the client sends nothing."""
        for _ in range(tries):
            if self._upstream is not None or await self._connect() is not None:
                return
            await asyncio.sleep(interval)
        log.warning("relay: no bridge on port %d and the port could not be taken", self.port)

    async def _lost(self, upstream: ClientConnection) -> None:
        """The bridge went away: what it held fails now; the next request reconnects or takes over."""
        if self._upstream is upstream:
            self._upstream = None
            failed, self._in_flight = self._in_flight, {}  # taken at once: each is answered once
            for request_id, request in failed.items():
                await self._answer_gone(request_id, request)
        with contextlib.suppress(Exception):
            await upstream.close()

    async def _close_upstream(self) -> None:
        for task in (self._reconnecting,):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await task
        upstream, self._upstream = self._upstream, None
        if upstream is not None:
            with contextlib.suppress(Exception):
                await upstream.close()
        if self._down is not None:
            self._down.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._down

    async def _takeover_if_free(self) -> bool:
        """Become the bridge if nobody answers on the port; True when a bridge is (again) there."""
        if self._owned is not None:
            return True
        if await bridge_on_port(self.port, timeout=1.0):
            return True  # another relay won the race, or the bridge restarted
        try:
            sock = bind_socket(self.config.server.host, self.port)
        except PortInUse:
            await asyncio.sleep(0.3)
            return await bridge_on_port(self.port, timeout=1.0)
        log.warning("the bridge on port %d is gone: taking over", self.port)
        app = BridgeApp(self.config)
        self._owned_task = asyncio.create_task(app.serve(sock=sock))
        await app.started.wait()
        self._owned = app
        self.took_over.set()
        return True
