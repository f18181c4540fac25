"""What the bridge's own MCP transports (stdio, ``/mcp-stream``) know of one connection.

The transport shows its :class:`McpConnectionState` every message it passes to the SDK
(:meth:`McpConnectionState.inbound`) and every message the SDK sends (:meth:`McpConnectionState.outbound`):
that is how the express lane learns the connection's era, its negotiated version and its client's
name, without a second parser. The state is also in :data:`CONNECTION` while the transport hands
a message on, so the SDK's handlers find the same client view the lane uses.
"""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any, Literal

import mcp_types as types

from ..core.disclosure import ClientView

__all__ = ["CONNECTION", "McpConnectionState"]


class McpConnectionState:
    """One MCP connection on one of the bridge's own transports."""

    def __init__(self) -> None:
        self.era: Literal["legacy", "modern"] | None = None
        """``"legacy"`` (the initialize handshake) or ``"modern"`` (2026-07-28 envelopes), set
        by the first request, as the SDK decides it."""
        self.version: str | None = None
        """The handshake-era version the SDK negotiated (once it answered ``initialize``)."""
        self.client_name = ""
        self.view: ClientView | None = None
        """The client's disclosure state (handshake era), shared by both lanes."""
        self.tasks: dict[Any, asyncio.Task[None]] = {}
        """The express lane's requests in flight, by request id."""
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


CONNECTION: contextvars.ContextVar[McpConnectionState | None] = contextvars.ContextVar("tabmcp.connection", default=None)
"""The connection whose message is being handled, set by the bridge's own transports: the SDK
path finds the client's view there (one view per connection, whichever lane serves a call)."""
