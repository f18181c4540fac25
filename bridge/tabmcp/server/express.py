"""The express lane: page tools' calls and tools/list answered without the MCP SDK's server pipeline.

Why (measured, ``python -m bench.roundtrip``: the rows "MCP SDK alone" and "SDK client alone"):
a no-op tools/call costs the SDK's server side about 0.8 ms over stdio (a pydantic parse of the
message, the dual-era dispatcher, the runner and its middleware, the per-version result sieve, a
pydantic re-dump), against 0.2-0.4 ms for the SDK client's own share; a page call's browser hops
cost about 1.2 ms. And at thousands of page tools the SDK re-validates and re-encodes every tool
of a tools/list on every request. So the bridge's own transports (stdio, ``/mcp-stream``, and
2026-07-28 POSTs on ``/mcp`` through :class:`ExpressHttp`) hand the two requests that matter for
speed to this lane:

* tools/call of a page tool (directly or through ``call_tool``): the same call path as the SDK
  handler (:meth:`.mcp._Handlers.run_call`), the result shaped as the SDK shapes it (the
  per-version sieve, ``resultType`` and the ``serverInfo`` stamp on 2026-07-28 results);
* tools/list (its first page, which is all of it): the tools array the core keeps as bytes
  (:meth:`Hub.listing_json`) in the SDK's envelope for that version.

Everything else goes to the SDK as before:

* any other method, a notification, a response, a malformed request, a cursor;
* a connection whose era is not settled yet (handshake-era: until the SDK answered
  ``initialize``, then at the version it negotiated; 2026-07-28: each request's envelope);
* a request with a progress token; a name that is not a page tool (built-ins, categories,
  unknown names);
* a call that turns out to need the client (an approval to elicit, a listing change to
  notify): the lane stops before anything happened (:class:`NeedsSession`) and hands the
  request to the SDK, which runs it from the start.

``bridge/tests/test_express.py`` checks the lane's answers against the SDK's own at every
supported version and profile. A ``notifications/cancelled`` for an express request cancels it
(no response, as the SDK does). What the lane skips: the SDK's OpenTelemetry span for these
requests. Handshake-era HTTP sessions stay on the SDK: their bookkeeping (idle reaping, the
owner of a session) lives in its transport, which must see their requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.runner import modern_error_data
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.inbound import (
    InboundModernRoute,
    classify_inbound_request,
    find_duplicated_routing_header,
    validate_mcp_param_headers,
)
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import SessionMessage
from mcp_types import methods as sdk_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..core.disclosure import META_REVISION, ClientView
from ..core.registry import ToolEntry
from ..core.tools import BUILTIN_TOOLS
from .trace import ARRIVED

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from .mcp import _Handlers

__all__ = ["LINK", "Express", "ExpressHttp", "Link", "NeedsSession", "SdkFeed"]

log = logging.getLogger("tabmcp.express")

LINK: contextvars.ContextVar[Link | None] = contextvars.ContextVar("tabmcp.link", default=None)
"""The connection whose message is being handled, set by the bridge's own transports: the SDK
path finds the client's view there (one view per connection, whichever lane serves a call)."""

_SERVER_INFO_KEY = types.SERVER_INFO_META_KEY
_CALL = b'"tools/call"'
_LIST = b'"tools/list"'
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _encode(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message's bytes (UTF-8; escaped ASCII if the text cannot be UTF-8, such as a
    page's lone surrogate)."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, default=str)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":"), default=str).encode()


class NeedsSession(Exception):
    """The call needs the client (approval, a change to notify): the SDK must serve it."""


class Link:
    """One MCP connection on one of the bridge's own transports, as the express lane knows it.

    The transport shows it every message it passes to the SDK (:meth:`inbound`) and every
    response the SDK sends (:meth:`outbound`): that is how the lane learns the connection's
    era, its negotiated version and its client's name, without a second parser.
    """

    def __init__(self) -> None:
        self.era: str | None = None
        """``"legacy"`` (the initialize handshake) or ``"modern"`` (2026-07-28 envelopes), set
        by the first request, as the SDK decides it."""
        self.version: str | None = None
        """The handshake-era version the SDK negotiated (once it answered ``initialize``)."""
        self.client_name = ""
        self.view: ClientView | None = None
        """The client's disclosure state (handshake era), shared with the SDK's handlers."""
        self.tasks: dict[Any, asyncio.Task[None]] = {}
        self._init_id: Any = None
        self._init_client = ""

    def client_view(self) -> ClientView:
        if self.view is None:
            self.view = ClientView(dynamic=True)
        return self.view

    def inbound(self, message: Any) -> None:
        """A message the SDK is about to get."""
        root = getattr(message, "root", message)
        if isinstance(root, types.JSONRPCRequest):
            params = root.params or {}
            if self.era is None:
                meta = params.get("_meta") if isinstance(params, dict) else None
                modern = isinstance(meta, dict) and types.PROTOCOL_VERSION_META_KEY in meta
                self.era = "modern" if modern and root.method != "initialize" else "legacy"
            if root.method == "initialize" and self.era == "legacy":  # every one: the SDK commits each
                self._init_id = root.id
                info = params.get("clientInfo") if isinstance(params, dict) else None
                self._init_client = str(info.get("name") or "") if isinstance(info, dict) else ""
        elif isinstance(root, types.JSONRPCNotification) and root.method == "notifications/cancelled":
            request_id = (root.params or {}).get("requestId") if isinstance(root.params, dict) else None
            if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
                task = self.tasks.get(request_id)
                if task is not None:
                    task.cancel()

    def outbound(self, message: Any) -> None:
        """A message the SDK sent."""
        root = getattr(message, "root", message)
        if (
            self._init_id is not None
            and isinstance(root, types.JSONRPCResponse)
            and root.id == self._init_id
            and isinstance(root.result, dict)
        ):
            version = root.result.get("protocolVersion")
            if isinstance(version, str):
                self.version = version
                self.client_name = self._init_client
            self._init_id = None


class SdkFeed:
    """One connection's way in, on the bridge's own transports: each message offered to the
    express lane, else parsed as the SDK's own transports parse it (a line that is not a message
    goes in as the exception, as they do) and handed to the SDK's server, shown to the
    connection's :class:`Link` on the way. ``write`` sends the lane's answers on the connection."""

    def __init__(
        self, link: Link, read_writer: Any, express: Express | None, write: Callable[[bytes], Awaitable[None]]
    ) -> None:
        self.link = link
        self._writer = read_writer
        self._express = express
        self._write = write

    async def receive(self, data: str | bytes) -> None:
        """A message from the client: the lane's, in a task of its own, or the SDK's."""
        express = self._express
        request = express.take(self.link, data) if express is not None else None
        if request is None:
            await self.send(data)
            return
        assert express is not None
        request_id = request["id"]
        task = asyncio.get_running_loop().create_task(
            express.answer(self.link, request, self._write, functools.partial(self.hand_back, data))
        )
        self.link.tasks[request_id] = task
        task.add_done_callback(lambda _t: self.link.tasks.pop(request_id, None))

    async def send(self, data: str | bytes) -> None:
        try:
            message = types.jsonrpc_message_adapter.validate_json(data, by_name=False)
        except Exception as exc:
            await self._writer.send(exc)
            return
        self.link.inbound(message)
        await self._writer.send(SessionMessage(message))

    async def hand_back(self, data: str | bytes) -> None:
        """A request the express lane gave up on (the connection may have closed meanwhile)."""
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self.send(data)

    def close(self) -> None:
        """The client left: its express calls still running are cancelled."""
        for task in list(self.link.tasks.values()):
            task.cancel()


class _ExpressContext:
    """One express tools/call as the call path sees it (:class:`tabmcp.core.tools.ToolContext`)."""

    def __init__(self, handlers: _Handlers, view: ClientView) -> None:
        self.bridge = handlers.hub
        self.view = view
        self.trust = handlers.trust

    async def notify_changed(self, *, expanded: str | None = None) -> None:
        raise NeedsSession("a listing change to notify")

    async def approve(self, entry: ToolEntry, arguments: dict[str, Any], *, reason: str = "") -> dict[str, Any] | None:
        raise NeedsSession("an approval to ask")

    async def offload(self, fn: Callable[[], Any]) -> Any:
        return await asyncio.to_thread(fn)


class Express:
    """Answers page tools' tools/call on the bridge's own transports (see the module's doc)."""

    def __init__(self, handlers: _Handlers, server: Server[Any]) -> None:
        self._handlers = handlers
        self._server = server
        self._stamp = server.server_info_stamp  # fixed at construction; only ever read (encoded)
        self.enabled = handlers.hub.config.mcp.express
        """``mcp.express`` (default on); off, every request goes through the SDK's pipeline."""
        self.served = 0
        """Calls answered here (tests read it to know which lane served)."""
        self.handed_back = 0
        """Calls started here and handed to the SDK (:class:`NeedsSession`)."""
        self.listed = 0
        """tools/list answered here."""

    def status(self) -> dict[str, Any]:
        """For ``/health``: whether the lane is on, and how many calls it served or handed back."""
        return {"enabled": self.enabled, "served": self.served, "handedBack": self.handed_back, "listed": self.listed}

    # -- what the lane takes ----------------------------------------------------------------

    def take(self, link: Link, line: bytes | str) -> dict[str, Any] | None:
        """The request in ``line`` if the lane serves it, else ``None`` (the SDK's)."""
        if not self.enabled or link.era is None:
            return None
        if isinstance(line, str):
            line = line.encode()
        if (_CALL not in line and _LIST not in line) or _SURROGATE.search(line):
            return None  # (a lone surrogate: the SDK's parser refuses the line; let it answer)
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "result" in message or "error" in message:
            return None
        method = message.get("method")
        if method not in ("tools/call", "tools/list"):
            return None
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) or request_id in link.tasks:
            return None
        params = message.get("params")
        if method == "tools/list" and params is None:
            params = message["params"] = {}
        if not isinstance(params, dict):
            return None
        meta = params.get("_meta")
        if meta is not None and (not isinstance(meta, dict) or "progressToken" in meta):
            return None
        version = self._version(link, meta)
        if version is None:
            return None
        try:  # the SDK's own check of a spec method's params (envelope fields included)
            sdk_methods.validate_client_request(method, version, params)
        except (ValueError, KeyError):  # ValidationError is a ValueError
            return None
        if method == "tools/list":  # the first page is the whole listing: no cursor to follow
            return message if set(params) <= {"_meta"} else None
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or (arguments is not None and not isinstance(arguments, dict)):
            return None
        if name == "call_tool":  # the meta tool's page target
            inner = arguments or {}
            name, arguments = inner.get("name"), inner.get("arguments")
            if not isinstance(name, str) or (arguments is not None and not isinstance(arguments, dict)):
                return None
            if set(inner) - {"name", "arguments"}:
                return None
        entry = None if name in BUILTIN_TOOLS else self._handlers.hub.registry.resolve(name)
        if not isinstance(entry, ToolEntry) or not entry.tab.is_open:  # a closed site's call opens a tab: the SDK's
            return None
        return message

    @staticmethod
    def _version(link: Link, meta: dict[str, Any] | None) -> str | None:
        """The protocol version the request is served at, if the lane may serve it."""
        if link.era == "legacy":
            if link.version is None or (meta and types.PROTOCOL_VERSION_META_KEY in meta):
                return None
            return link.version
        if not meta:
            return None
        version = meta.get(types.PROTOCOL_VERSION_META_KEY)
        if version not in MODERN_PROTOCOL_VERSIONS or types.CLIENT_CAPABILITIES_META_KEY not in meta:
            return None
        return str(version)

    # -- serving ------------------------------------------------------------------------------

    async def answer(
        self,
        link: Link,
        message: dict[str, Any],
        write: Callable[[bytes], Awaitable[None]],
        hand_back: Callable[[], Awaitable[None]],
    ) -> None:
        """Answer a request :meth:`take` took: its response goes to ``write``, or the request to
        ``hand_back`` (the SDK) if it needs the client."""
        request_id = message["id"]
        params = message["params"]
        meta = params.get("_meta") or {}
        version = self._version(link, meta)
        if version is None:  # the connection changed under us: the SDK decides
            await hand_back()
            return
        modern = version in MODERN_PROTOCOL_VERSIONS
        if modern:
            info = meta.get(types.CLIENT_INFO_META_KEY)
            client = str(info.get("name") or "") if isinstance(info, dict) else ""
            view = ClientView(dynamic=False)
        else:
            client, view = link.client_name, link.client_view()
        if message["method"] == "tools/list":
            try:
                data = await self._listing(request_id, version, view)
            except asyncio.CancelledError:
                return
            except Exception:
                log.exception("express tools/list failed: the SDK answers it")
                await hand_back()
                return
            self.listed += 1
            await write(data)
            return
        handlers = self._handlers
        try:
            result = await handlers.run_call(
                _ExpressContext(handlers, view),  # type: ignore[arg-type]  # Hub is the Bridge, read-only attributes
                params["name"], params.get("arguments") or {}, client,
                modern=modern, traced=bool(meta.get("tabmcp/trace")), arrived=ARRIVED.get(),
            )
            data = _encode({"jsonrpc": "2.0", "id": request_id, "result": self.shape(version, result)})
        except NeedsSession:
            self.handed_back += 1
            await hand_back()
            return
        except asyncio.CancelledError:
            return  # the client cancelled: no response, as the SDK does
        except Exception as exc:
            # As the SDK answers a handler that raised: its modern mapping, or its dispatcher's.
            if modern:
                error = modern_error_data(exc).model_dump(by_alias=True, mode="json", exclude_none=True)
            else:
                known = handler_exception_to_error_data(exc)
                error = (known.model_dump(by_alias=True, mode="json", exclude_none=True) if known is not None
                         else {"code": 0, "message": str(exc)})
                log.exception("express tools/call failed")
            data = _encode({"jsonrpc": "2.0", "id": request_id, "error": error})
        else:
            self.served += 1
        await write(data)

    async def _listing(self, request_id: Any, version: str, view: ClientView) -> bytes:
        """A tools/list response as bytes: the tools array kept as bytes by the core
        (:meth:`Hub.listing_json`), in the envelope the SDK gives it at ``version`` (its cache
        hints, ``resultType`` and ``serverInfo`` stamp at 2026-07-28; the revision in ``_meta``)."""
        hub = self._handlers.hub
        await hub.settle()
        tools_json = hub.listing_json(view, protocol_version=version)
        meta: dict[str, Any] = {META_REVISION: hub.revision}
        head: dict[str, Any] = {}
        if version in MODERN_PROTOCOL_VERSIONS:
            hint = self._server.cache_hints.get("tools/list")
            if hint is not None:
                head = {"ttlMs": hint.ttl_ms, "cacheScope": hint.scope}
            head["resultType"] = "complete"
            meta[_SERVER_INFO_KEY] = self._stamp
        tail = json.dumps({**head, "_meta": meta}, separators=(",", ":"), ensure_ascii=False)
        prefix = json.dumps({"jsonrpc": "2.0", "id": request_id}, separators=(",", ":"))[:-1]
        return b"".join((prefix.encode(), b',"result":{"tools":', tools_json, b",", tail[1:].encode(), b"}"))

    def shape(self, version: str, result: dict[str, Any]) -> dict[str, Any]:
        """A tools/call result in its wire form for ``version``, as the SDK's runner shapes it:
        the per-version sieve, then (2026-07-28) ``resultType`` and the ``serverInfo`` stamp."""
        dumped = sdk_methods.serialize_server_result("tools/call", version, result)
        if version in MODERN_PROTOCOL_VERSIONS:
            if dumped.get("resultType") is None:
                dumped["resultType"] = "complete"
            meta = dumped.get("_meta")
            if meta is None:
                dumped["_meta"] = {_SERVER_INFO_KEY: self._stamp}
            elif isinstance(meta, dict) and meta.get(_SERVER_INFO_KEY) is None:
                dumped["_meta"] = {**meta, _SERVER_INFO_KEY: self._stamp}
        return dumped


HTTP_BODY_LIMIT = 1024 * 1024
"""The largest tools/call body the lane reads (larger ones, or bodies of unknown length, are the
SDK's, with its own limit)."""


SSE_AFTER_S = 15.0
"""A call still running this long is answered as an event stream with keepalive comments, as the
SDK's Streamable HTTP server does (its ``_SSE_PING_INTERVAL``)."""

_SSE_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]


async def _disconnected(receive: Receive) -> None:
    """Returns when the client has gone (the request's body was read before)."""
    while (await receive())["type"] != "http.disconnect":
        pass


class ExpressHttp:
    """ASGI middleware on ``/mcp``: a 2026-07-28 POST of a page tool's tools/call answered by the
    express lane; anything else (handshake-era sessions, other methods, every request the SDK
    would refuse) goes to the SDK's Streamable HTTP app untouched, its body replayed.

    The SDK's own checks run first, with the SDK's own functions: Host and Origin
    (:class:`TransportSecurityMiddleware` with the bridge's settings), ``Content-Type``, the
    ``Accept`` header, duplicated routing headers, the envelope and its headers
    (``classify_inbound_request``) and ``Mcp-Param-*`` headers against the tool's schema. A
    request that fails any of them is handed to the SDK, which answers it as it always did.
    The answer is ``application/json``, as the SDK's is for a call that ends within 15 s without
    notifications; a longer one is answered as an event stream with keepalive comments, as the
    SDK does. A client that disconnects cancels the call (its own task, never the ASGI task).
    """

    def __init__(self, app: ASGIApp, *, express: Express, security: TransportSecuritySettings, path: str = "/mcp") -> None:
        self.app = app
        self.express = express
        self.security = TransportSecurityMiddleware(security)
        self.path = path
        self.link = Link()
        self.link.era = "modern"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path or not self.express.enabled:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length", "")
        if (
            headers.get("mcp-protocol-version") not in MODERN_PROTOCOL_VERSIONS
            or "mcp-session-id" in headers
            or not length.isdigit()
            or int(length) > HTTP_BODY_LIMIT
        ):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        if await self.security.validate_request(request, is_post=True) is not None:
            await self.app(scope, receive, send)  # the SDK answers the refusal
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        call = self._callable(request, headers, body)
        if call is None:
            await self.app(scope, replay, send)
            return

        # The call runs in a task of its own: a client that leaves cancels it, never this ASGI
        # task (which may be handing the request to the SDK, or writing).
        outcome: dict[str, bytes | None] = {}

        async def keep(data: bytes) -> None:
            outcome["data"] = data

        async def mark_hand_back() -> None:
            outcome["hand_back"] = None

        call_task = asyncio.get_running_loop().create_task(self.express.answer(self.link, call, keep, mark_hand_back))
        watcher = asyncio.get_running_loop().create_task(_disconnected(receive))
        try:
            done, _ = await asyncio.wait({call_task, watcher}, timeout=SSE_AFTER_S, return_when=asyncio.FIRST_COMPLETED)
            if watcher in done:
                return  # the client left: the call task is cancelled below, no answer
            streaming = call_task not in done
            if streaming:  # a long call: as the SDK does, commit to an event stream and keep it alive
                await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
                while True:
                    done, _ = await asyncio.wait({call_task, watcher}, timeout=SSE_AFTER_S,
                                                 return_when=asyncio.FIRST_COMPLETED)
                    if watcher in done:
                        return
                    if call_task in done:
                        break
                    await send({"type": "http.response.body", "body": b": ping\r\n\r\n", "more_body": True})
        finally:
            for task in (call_task, watcher):
                task.cancel()
            await asyncio.gather(call_task, watcher, return_exceptions=True)
        data = outcome.get("data")
        if "hand_back" in outcome and not streaming:  # the call needs the client: the SDK runs it
            await self.app(scope, replay, send)
            return
        if data is None:  # (a hand-back once streaming cannot happen: such calls stop before any wait)
            data = _encode({"jsonrpc": "2.0", "id": call["id"],
                            "error": {"code": -32603, "message": "Internal server error"}})
        if streaming:
            await send({"type": "http.response.body", "body": b"event: message\r\ndata: " + data + b"\r\n\r\n",
                        "more_body": False})
            return
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})

    def _callable(self, request: Request, headers: dict[str, str], body: bytes) -> dict[str, Any] | None:
        """The request if the lane serves it and every check the SDK makes passes."""
        message = self.express.take(self.link, body)
        if message is None:
            return None
        has_json, has_sse = check_accept_headers(request)
        if not (has_json and has_sse):  # the SDK's app streams events: it asks for both (else 406)
            return None
        if find_duplicated_routing_header(request.headers.items()) is not None:
            return None
        if not isinstance(classify_inbound_request(message, headers=dict(request.headers)), InboundModernRoute):
            return None
        if message["method"] != "tools/call":
            return message
        params = message["params"]
        name, arguments = params["name"], params.get("arguments")
        if arguments or any(h.startswith("mcp-param-") for h in headers):
            lookup = self.express._server.get_tool_input_schema  # the SDK's own source (server/mcp.py)
            schema = lookup(name) if lookup is not None else None
            if schema is not None and validate_mcp_param_headers(schema, arguments or {}, request.headers) is not None:
                return None
        return message
