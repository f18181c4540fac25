"""The MCP SDK's Streamable HTTP transport, with one change: a request the client cancelled
ends its stream without a response.

Why: on the 2025-era wire the SDK answers a cancelled request with ``-32800 Request cancelled``
(``StreamableHTTPServerTransport._terminate_unanswered_request``: it ends each request's SSE
stream only with a response for its id). The spec says the receiver of a cancellation should not
answer it, the SDK's own stdio path stays silent, and the TypeScript SDK client reports the
answer as "a response for an unknown message ID". Here the request's stream is closed instead:
the client's POST ends with no event for the cancelled id. Everything else is the SDK's.
"""

from __future__ import annotations

from mcp.server import streamable_http_manager
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp_types import RequestId

__all__ = ["QuietCancelTransport", "install"]


class QuietCancelTransport(StreamableHTTPServerTransport):
    """:class:`StreamableHTTPServerTransport` whose cancelled requests get no response."""

    async def _terminate_unanswered_request(self, request_id: RequestId) -> None:
        streams = self._request_streams.get(str(request_id))
        if streams is not None:  # the SSE writer drains what is queued, then ends the POST's stream
            await streams[0].aclose()


def install() -> None:
    """Make the SDK's session manager build :class:`QuietCancelTransport` (idempotent)."""
    streamable_http_manager.StreamableHTTPServerTransport = QuietCancelTransport  # type: ignore[misc]
