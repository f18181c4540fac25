"""The express lane: page tools' calls and tools/list answered on the bridge's own byte
transports (stdio and ``/mcp-stream``) without the MCP SDK's server pipeline.

Why (measured, ``./dev bench express``; the numbers and the decision are in docs/architecture.md,
"One MCP path per transport"): over the byte transports the SDK's server side costs about as much
per call as everything the bridge does for it, and at thousands of page tools it re-validates and
re-encodes every tool of a tools/list on every request. Over HTTP the lane did not pay for a
second server's worth of checks, so ``/mcp`` is the SDK's alone.

One entry: a transport calls :meth:`Express.open` once per connection and hands every line or
frame it reads to the :class:`LaneFeed` it gets (``receive``), and every message the SDK sends
to ``sent``. The lane takes two requests:

* tools/call of a page tool (directly or through ``call_tool``): the same call path as the SDK
  handler (:meth:`.call_path.CallPath.run`), the result shaped as the SDK shapes it (the
  per-version sieve, ``resultType`` and the ``serverInfo`` stamp on 2026-07-28 results);
* tools/list (its first page, which is all of it): the tools array the core keeps as bytes
  (:meth:`BridgeCore.listing_json`) in the SDK's envelope for that version.

Everything else goes to the SDK as before:

* any other method, a notification, a response, a malformed request, a cursor;
* a connection whose era is not settled yet (handshake-era: until the SDK answered
  ``initialize``, then at the version it negotiated; 2026-07-28: each request's envelope);
* a request with a progress token; a name that is not a page tool (built-ins, categories,
  unknown names);
* a call that turns out to need the client (an approval to elicit, a listing change to
  notify): the lane stops before anything happened (:class:`NeedsSession`) and hands the
  request to the SDK, which runs it from the start.

``bridge/tests/test_replay_corpus.py`` replays a corpus of requests through the lane and through
the SDK and compares the answers, at both protocol eras. A ``notifications/cancelled`` for an
express request cancels it (no response, as the SDK does). What the lane skips: the SDK's server
middleware (its OpenTelemetry span, :class:`.mcp.ListingCache`) for these requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server import CacheHint
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import SessionMessage
from mcp_types import methods as sdk_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..core.disclosure import META_REVISION, ClientView
from ..core.registry import ToolEntry
from ..core.tools import BUILTIN_TOOLS
from .call_path import META_TRACE, CallPath, NeedsSession
from .connection_state import CONNECTION, McpConnectionState
from .trace import ARRIVED

__all__ = ["Express", "LaneFeed"]

log = logging.getLogger("tabmcp.express")

_SERVER_INFO_KEY = types.SERVER_INFO_META_KEY
_CALL = b'"tools/call"'
_LIST = b'"tools/list"'
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_INTERNAL = {"code": types.INTERNAL_ERROR, "message": "Internal server error"}


def _encode(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message's bytes (UTF-8; escaped ASCII if the text cannot be UTF-8, such as a
    page's lone surrogate)."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, default=str)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":"), default=str).encode()


class LaneFeed:
    """One connection's way in: each message offered to the express lane, else parsed as the
    SDK's own transports parse it (a line that is not a message goes in as the exception, as they
    do) and handed to the SDK's server, shown to the connection's :class:`McpConnectionState` on the
    way. ``write`` sends the lane's answers on the connection."""

    def __init__(self, express: Express, sdk_in: Any, write: Callable[[bytes], Awaitable[None]]) -> None:
        self.state = McpConnectionState()
        self._express = express
        self._sdk_in = sdk_in
        self._write = write

    async def receive(self, data: str | bytes) -> None:
        """A message from the client: the lane's, in a task of its own, or the SDK's."""
        state = self.state
        if CONNECTION.get() is not state:  # the SDK's handlers find this connection's view through it
            CONNECTION.set(state)
        request = self._express.take(state, data)
        if request is None:
            await self._to_sdk(data)
            return
        request_id = request["id"]
        task = asyncio.get_running_loop().create_task(
            self._express.answer(state, request, self._write, functools.partial(self._hand_back, data))
        )
        state.tasks[request_id] = task
        task.add_done_callback(lambda _t: state.tasks.pop(request_id, None))

    def sent(self, message: Any) -> None:
        """A message the SDK sent on this connection (the transport writes it)."""
        self.state.outbound(message)

    async def _to_sdk(self, data: str | bytes) -> None:
        try:
            message = types.jsonrpc_message_adapter.validate_json(data, by_name=False)
        except Exception as exc:
            await self._sdk_in.send(exc)
            return
        self.state.inbound(message)
        await self._sdk_in.send(SessionMessage(message))

    async def _hand_back(self, data: str | bytes) -> None:
        """A request the express lane gave up on (the connection may have closed meanwhile)."""
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._to_sdk(data)

    def close(self) -> None:
        """The client left: its express calls still running are cancelled."""
        for task in list(self.state.tasks.values()):
            task.cancel()


class _ExpressContext:
    """One express tools/call as the call path sees it (:class:`tabmcp.core.tools.ToolContext`)."""

    def __init__(self, calls: CallPath, view: ClientView) -> None:
        self.bridge = calls.core
        self.view = view
        self.trust = calls.trust

    async def notify_changed(self, *, expanded: str | None = None) -> None:
        raise NeedsSession("a listing change to notify")

    async def approve(self, entry: ToolEntry, arguments: dict[str, Any], *, reason: str = "") -> dict[str, Any] | None:
        raise NeedsSession("an approval to ask")

    async def offload(self, fn: Callable[[], Any]) -> Any:
        return await asyncio.to_thread(fn)


class Express:
    """Answers page tools' tools/call and tools/list on stdio and ``/mcp-stream`` (see the module's doc)."""

    def __init__(self, calls: CallPath, *, server_info: dict[str, Any], list_hint: CacheHint | None) -> None:
        """``server_info`` and ``list_hint``: what the SDK's server stamps on 2026-07-28 results
        (its ``server_info_stamp``) and the cache hint it gives tools/list (``cache_hints``)."""
        self._calls = calls
        self._stamp = server_info  # fixed at construction; only ever read (encoded)
        self._list_hint = list_hint
        self.enabled = calls.core.config.mcp.express
        """``mcp.express`` (default on); off, every request goes through the SDK's pipeline."""
        self.served = 0
        """Calls answered here (tests read it to know which lane served)."""
        self.handed_back = 0
        """Calls started here and handed to the SDK (:class:`NeedsSession`)."""
        self.listed = 0
        """tools/list answered here."""

    def open(self, sdk_in: Any, write: Callable[[bytes], Awaitable[None]]) -> LaneFeed:
        """The way in for one new connection: ``sdk_in`` is the SDK server's read stream's
        writer, ``write`` sends bytes to the client."""
        return LaneFeed(self, sdk_in, write)

    def status(self) -> dict[str, Any]:
        """For ``/health``: whether the lane is on, and how many calls it served or handed back."""
        return {"enabled": self.enabled, "served": self.served, "handedBack": self.handed_back, "listed": self.listed}

    # -- what the lane takes ----------------------------------------------------------------

    def take(self, state: McpConnectionState, line: bytes | str) -> dict[str, Any] | None:
        """The request in ``line`` if the lane serves it, else ``None`` (the SDK's)."""
        if not self.enabled or state.era is None:
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
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) or request_id in state.tasks:
            return None
        params = message.get("params")
        if method == "tools/list" and params is None:
            params = message["params"] = {}
        if not isinstance(params, dict):
            return None
        meta = params.get("_meta")
        if meta is not None and (not isinstance(meta, dict) or "progressToken" in meta):
            return None
        version = self._version(state, meta)
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
        entry = None if name in BUILTIN_TOOLS else self._calls.core.registry.resolve(name)
        if not isinstance(entry, ToolEntry) or not entry.tab.is_open:  # a closed site's call opens a tab: the SDK's
            return None
        return message

    @staticmethod
    def _version(state: McpConnectionState, meta: dict[str, Any] | None) -> str | None:
        """The protocol version the request is served at, if the lane may serve it."""
        if state.era == "legacy":
            if state.version is None or (meta and types.PROTOCOL_VERSION_META_KEY in meta):
                return None
            return state.version
        if not meta:
            return None
        version = meta.get(types.PROTOCOL_VERSION_META_KEY)
        if version not in MODERN_PROTOCOL_VERSIONS or types.CLIENT_CAPABILITIES_META_KEY not in meta:
            return None
        return str(version)

    # -- serving ------------------------------------------------------------------------------

    async def answer(
        self,
        state: McpConnectionState,
        message: dict[str, Any],
        write: Callable[[bytes], Awaitable[None]],
        hand_back: Callable[[], Awaitable[None]],
    ) -> None:
        """Answer a request :meth:`take` took: its response goes to ``write``, or the request to
        ``hand_back`` (the SDK) if it needs the client."""
        request_id = message["id"]
        params = message["params"]
        meta = params.get("_meta") or {}
        version = self._version(state, meta)
        if version is None:  # the connection changed under us: the SDK decides
            await hand_back()
            return
        modern = version in MODERN_PROTOCOL_VERSIONS
        if modern:
            info = meta.get(types.CLIENT_INFO_META_KEY)
            client = str(info.get("name") or "") if isinstance(info, dict) else ""
            view = ClientView(dynamic=False)
        else:
            client, view = state.client_name, state.client_view()
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
        try:
            result = await self._calls.run(
                _ExpressContext(self._calls, view),  # type: ignore[arg-type]  # BridgeCore is the Bridge, read-only attributes
                params["name"], params.get("arguments") or {}, client,
                modern=modern, traced=bool(meta.get(META_TRACE)), arrived=ARRIVED.get(),
            )
            data = _encode({"jsonrpc": "2.0", "id": request_id, "result": self.shape(version, result)})
        except NeedsSession:
            self.handed_back += 1
            await hand_back()
            return
        except asyncio.CancelledError:
            return  # the client cancelled: no response, as the SDK does
        except Exception as exc:
            # The call path answers every failure of a call as a result (error_result); what is
            # left is the shaping: a result the SDK's sieve refuses is its INVALID_PARAMS.
            known = handler_exception_to_error_data(exc)
            error = (known.model_dump(by_alias=True, mode="json", exclude_none=True) if known is not None
                     else _INTERNAL)
            log.exception("express tools/call failed")
            data = _encode({"jsonrpc": "2.0", "id": request_id, "error": error})
        else:
            self.served += 1
        await write(data)

    async def _listing(self, request_id: Any, version: str, view: ClientView) -> bytes:
        """A tools/list response as bytes: the tools array kept as bytes by the core
        (:meth:`BridgeCore.listing_json`), in the envelope the SDK gives it at ``version`` (its cache
        hints, ``resultType`` and ``serverInfo`` stamp at 2026-07-28; the revision in ``_meta``)."""
        core = self._calls.core
        await core.settle()
        tools_json = core.listing_json(view, protocol_version=version)
        meta: dict[str, Any] = {META_REVISION: core.revision}
        head: dict[str, Any] = {}
        if version in MODERN_PROTOCOL_VERSIONS:
            hint = self._list_hint
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
