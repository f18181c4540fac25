"""A hand-written JSON-RPC server over stdio, no MCP SDK: the SDK client's own share of a call.

Blocking reads and writes on stdin/stdout, one JSON object a line, just enough MCP for the SDK
``Client`` to connect, list one no-op tool and call it (``server/discover`` and ``initialize``
answered with the version the client asked for). bench.roundtrip launches it beside the SDK's
own no-op server: the difference between the two rows is what the SDK's server side costs per
call; this row is what no server can go below with the SDK client.

    python -m bench._raw_server
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bench._sdk_server import NOOP

MODERN = "2026-07-28"


def answer(method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    version = str(params.get("protocolVersion") or MODERN)
    info = {"name": "raw-noop", "version": "0"}
    if method == "server/discover":
        return {"supportedVersions": [MODERN], "capabilities": {"tools": {}}, "serverInfo": info,
                "resultType": "complete"}
    if method == "initialize":
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    if method == "tools/list":
        return {"tools": [NOOP], "resultType": "complete", "ttlMs": 5000, "cacheScope": "private"}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "ok"}], "resultType": "complete"}
    if method == "ping":
        return {}
    return None


def main() -> int:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or a response
        result = answer(message["method"], message.get("params") or {})
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if result is None:
            reply["error"] = {"code": -32601, "message": f"method not found: {message['method']}"}
        else:
            reply["result"] = result
        out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
