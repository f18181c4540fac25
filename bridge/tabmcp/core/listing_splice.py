"""The one splice of a kept tools/list: the SDK encodes the answer around a placeholder, and the
tools array's bytes (the core's, :meth:`BridgeCore.listing_json`) go where it wrote it.

Both ways an answer leaves the bridge use it: stdio's and ``/mcp-stream``'s writer
(:func:`.server.mcp_streams.encode`) and the HTTP wrapper (:mod:`.server.http_transport`), so the
SDK still shapes everything but the tools, and nobody encodes 5,000 tools again.

The placeholder must be in the SDK's body exactly once, as the one-string array the SDK was
given. Anything else (an SDK release that writes it otherwise, the placeholder in a second field)
is refused by name (:class:`.errors.SpliceError`), never answered wrong, and the transport answers
the request with a JSON-RPC error naming it (:func:`refusal`). Not a fallback to the SDK's encoding:
by the time the body is written the SDK has already encoded the placeholder, not the tools (a
fallback would need a second encoder of the result beside the SDK's), and a listing silently back
on the slow path is the regression this splice exists to prevent; a refusal makes the tests of the
next SDK release fail by name.
"""

from __future__ import annotations

import json
import secrets
from typing import Final

from ..errors import PlaceholderMissing, PlaceholderRepeated, SpliceError

__all__ = ["PLACEHOLDER", "carries_placeholder", "refusal", "splice"]

PLACEHOLDER: Final[list[str]] = [f"tabmcp-splice-{secrets.token_hex(16)}"]
"""What the SDK is given for a kept tools array: one string no page can know (random per process)."""
_TOKEN: Final = PLACEHOLDER[0].encode()
_MARK: Final = b'["' + _TOKEN + b'"]'
"""The placeholder as both SDK encoders write it (``json.dumps`` and ``model_dump_json``: no spaces)."""

INTERNAL_ERROR: Final = -32603
"""JSON-RPC's own code for a server's fault (what a refused splice is)."""


def carries_placeholder(body: bytes) -> bool:
    """Does ``body`` (a message's bytes, or an SSE event of one) hold the placeholder in any form?"""
    return _TOKEN in body


def splice(body: bytes, tools: bytes) -> bytes:
    """``body`` with its one placeholder array replaced by ``tools`` (a JSON array's bytes).

    Raises:
        PlaceholderMissing: the body holds no placeholder array (nothing to replace).
        PlaceholderRepeated: the placeholder is in the body more than once.
    """
    at = body.find(_MARK)
    if at < 0:
        raise PlaceholderMissing(
            "the SDK's answer holds no placeholder array" if _TOKEN not in body
            else "the SDK's answer holds the placeholder, but not as the one-string array it was given")
    if body.find(_TOKEN, at + len(_MARK)) >= 0 or body.rfind(_TOKEN, 0, at) >= 0:
        raise PlaceholderRepeated("the SDK's answer holds the placeholder more than once")
    return b"".join((body[:at], tools, body[at + len(_MARK):]))


def refusal(body: bytes, error: SpliceError) -> bytes:
    """``body`` with its JSON-RPC message (the first ``{`` to the last ``}``: a JSON answer, or the
    data of the SSE event carrying it) replaced by an error answer to the same id naming ``error``."""
    start, end = body.find(b"{"), body.rfind(b"}") + 1
    try:
        request_id = json.loads(body[start:end]).get("id")
    except (ValueError, AttributeError):
        request_id = None
    answer = {"jsonrpc": "2.0", "id": request_id,
              "error": {"code": INTERNAL_ERROR, "message": f"tools/list: {type(error).__name__}: {error}"}}
    return b"".join((body[:max(start, 0)], json.dumps(answer, separators=(",", ":")).encode(),
                     body[end:] if start >= 0 else b""))
