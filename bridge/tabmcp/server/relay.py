"""Several MCP clients, one browser: a second ``tabmcp serve --stdio`` relays to the first.

Clients such as Claude Desktop and Claude Code each launch their own ``tabmcp serve --stdio``.
The first process owns the port (the extension connects to it). A later one finds a tabmcp
bridge already answering ``/health`` on the port and becomes a relay: it serves MCP on its own
stdio and forwards every request to the bridge over Streamable HTTP, with its own client
connection (so results, cancellations and approvals stay per client). Change notifications
from the bridge are passed on to the relay's client.

If the bridge goes away, the relay takes over: it binds the port itself, starts a bridge in
its own process (the extension reconnects to it within about two seconds and resyncs every
tab), and carries on forwarding to that. Requests in flight at that moment fail with a named
error; the next ones work.

Approvals go to the relay's own client when it can show a form, as they would directly: the
relay's upstream connection declares elicitation only if its client does. On handshake-era
connections the bridge's ``elicitation/create`` is forwarded to the client and the answer sent
back; on 2026-07-28 connections the bridge's ``InputRequiredResult`` is passed to the client as
is, and the client's retry (with its ``inputResponses`` and ``requestState``) is passed back up.
A client that cannot elicit is asked in the browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import httpx
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp_types import HEADER_MISMATCH

from .. import __version__
from ..config import Config
from ..errors import ExtensionDisconnected
from .app import BridgeApp, PortInUse, bind_socket
from .mcp import INSTRUCTIONS, ChangeNotifier, _complete, error_result, is_dynamic
from .stdio import stdio_transport

__all__ = ["Relay", "bridge_on_port"]

log = logging.getLogger("tabmcp.relay")


async def bridge_on_port(port: int, timeout: float = 2.0) -> bool:
    """Is a tabmcp bridge answering on 127.0.0.1:port?"""
    try:
        async with httpx.AsyncClient(timeout=timeout) as http:
            response = await http.get(f"http://127.0.0.1:{port}/health")
        return response.status_code == 200 and "bridge" in response.json()
    except (httpx.HTTPError, ValueError):
        return False


class Relay:
    """Serve MCP on stdio, forwarding to the bridge on ``config.server.port`` (or becoming it)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.port = config.server.port
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.notifier = ChangeNotifier(debounce_s=0.02, max_wait_s=0.2)
        self._client: Client | None = None
        self._holder: tuple[asyncio.Task[None], asyncio.Event] | None = None
        self._mode: str = "auto"
        self._local: Any = None
        """The session of the relay's own client (stdio serves one), for forwarding elicitation."""
        self._lock = asyncio.Lock()
        self._owned: BridgeApp | None = None
        self._owned_task: asyncio.Task[None] | None = None
        self.took_over = asyncio.Event()
        self.server = self._build_server()

    # -- the local MCP server ----------------------------------------------------------------

    def _build_server(self) -> Server[Any]:
        relay = self

        class _RelayServer(Server[Any]):
            def create_initialization_options(self, notification_options: Any = None, *a: Any, **k: Any) -> Any:
                return super().create_initialization_options(
                    notification_options or NotificationOptions(tools_changed=True), *a, **k
                )

        server = _RelayServer(
            "tabmcp",
            version=__version__,
            title="tabmcp (relay to the running bridge)",
            instructions=INSTRUCTIONS,
            on_list_tools=relay._list_tools,  # type: ignore[arg-type]
            on_call_tool=relay._call_tool,  # type: ignore[arg-type]
            on_subscriptions_listen=ListenHandler(relay.notifier.bus),
            cache_hints={"tools/list": CacheHint(ttl_ms=self.config.mcp.tools_ttl_ms, scope="private")},
        )
        server.middleware.append(relay.notifier.track)
        return server

    async def _list_tools(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        result = await self._forward(ctx, lambda c: c.list_tools(cache_mode="bypass"))
        if isinstance(result, dict):  # the bridge could not be reached at all
            return _complete(ctx, {"tools": []})
        data = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return _complete(ctx, {"tools": data["tools"]})

    async def _call_tool(self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Any:
        result = await self._forward(ctx, lambda c: self._call_upstream(c, params))
        if isinstance(result, dict):
            return _complete(ctx, result)
        data = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        if not isinstance(result, types.InputRequiredResult):  # that one goes to the client as is
            data.pop("resultType", None)
        return _complete(ctx, data)

    async def _call_upstream(
        self, client: Client, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Call upstream; on a 2026-07-28 connection, input requests are returned, not answered here."""
        if self._mode == "legacy":
            return await client.call_tool(params.name, params.arguments or {})

        async def send() -> types.CallToolResult | types.InputRequiredResult:
            return await client.session.call_tool(
                params.name, params.arguments or {}, input_responses=params.input_responses,
                request_state=params.request_state, allow_input_required=True,
            )

        try:
            return await send()
        except MCPError as exc:
            if exc.code != HEADER_MISMATCH:
                raise
            await client.list_tools(cache_mode="bypass")  # the spec's recovery: re-list, resend once
            return await send()

    async def _on_elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        """The bridge asks for approval (handshake era): ask the relay's own client."""
        session = self._local
        if session is None or not isinstance(params, types.ElicitRequestFormParams):
            return types.ErrorData(code=types.INVALID_REQUEST, message="the relayed client cannot answer this request")
        try:
            return await session.elicit_form(params.message, params.requested_schema)
        except Exception as exc:  # the client went away or refused: the bridge treats it as a decline
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"the relayed client did not answer: {exc}")

    async def _forward(self, ctx: ServerRequestContext[Any, Any], op: Any) -> Any:
        """Run ``op(client)`` upstream; on a broken upstream take over and retry once."""
        for attempt in (1, 2):
            client = await self._upstream(ctx)
            try:
                return await op(client)
            except Exception as exc:  # any transport failure: the bridge is gone or restarting
                log.warning("upstream bridge failed (%s); attempt %d", type(exc).__name__, attempt)
                await self._drop_upstream()
                if attempt == 2 or not await self._takeover_if_free():
                    break
        return error_result(ExtensionDisconnected("the tabmcp bridge went away; retry in a moment"))

    # -- upstream connection ------------------------------------------------------------------

    async def _upstream(self, ctx: ServerRequestContext[Any, Any]) -> Client:
        async with self._lock:
            if self._client is not None:
                return self._client
            # Mirror the local client's era, so category expansion behaves as it would directly.
            self._mode = "legacy" if is_dynamic(ctx.protocol_version) else "auto"
            self._local = ctx.session
            caps = ctx.session.client_capabilities
            can_elicit = caps is not None and caps.elicitation is not None
            target: Any = self._owned.mcp if self._owned is not None else self.url
            token = self.config.server.mcp_token
            if self._owned is None and token:
                target = streamable_http_client(
                    self.url, http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
                )
            client = Client(
                target, mode=self._mode, message_handler=self._on_upstream_message,
                elicitation_callback=self._on_elicit if can_elicit else None,
            )
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            stop = asyncio.Event()
            # The client's context (an anyio task group) must be entered and left by one task.
            holder = asyncio.create_task(self._hold(client, ready, stop))
            await ready
            self._client, self._holder = client, (holder, stop)
            return client

    @staticmethod
    async def _hold(client: Client, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        try:
            async with client:
                ready.set_result(None)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            if not isinstance(exc, Exception):
                raise

    async def _drop_upstream(self) -> None:
        async with self._lock:
            holder, self._client, self._holder = self._holder, None, None
        if holder is not None:
            task, stop = holder
            stop.set()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 5)

    async def _on_upstream_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.notifier.schedule()

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
        app.hub.add_change_listener(self.notifier.schedule)
        self._owned = app
        self.took_over.set()
        return True

    async def _watch(self) -> None:
        """Take over promptly when the bridge dies, so the extension finds a bridge again."""
        misses = 0
        while self._owned is None:
            await asyncio.sleep(0.5)
            if await bridge_on_port(self.port, timeout=0.5):
                misses = 0
                continue
            misses += 1
            if misses >= 2:
                await self._drop_upstream()
                await self._takeover_if_free()

    async def run_stdio(self) -> None:
        watcher = asyncio.create_task(self._watch())
        try:
            async with stdio_transport() as (read, write):
                await self.server.run(read, write, self.server.create_initialization_options())
        finally:
            watcher.cancel()
            await self._drop_upstream()
            if self._owned is not None:
                self._owned.stop()
                if self._owned_task is not None:
                    with contextlib.suppress(Exception, asyncio.CancelledError):
                        await asyncio.wait_for(self._owned_task, 5)

