"""Wire-format telemetry for tests: exactly what the extension sends (camelCase dicts).

Tests feed these through :meth:`TelemetryState.ingest`, so every test also exercises
parsing and redaction the way production traffic does.
"""

from __future__ import annotations

import json
from typing import Any

from tabmcp.core.telemetry import TelemetrySettings, TelemetryState

T0 = 1_760_000_000_000.0
"""An epoch time in ms (2025-10-09) all test events are relative to."""
ORIGIN = "https://shop.test"


class Clock:
    """A controllable epoch-ms clock for the store."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_store(settings: TelemetrySettings | None = None, **overrides: Any) -> TelemetryState:
    if overrides:
        settings = TelemetrySettings.model_validate(
            {**(settings or TelemetrySettings()).model_dump(), **overrides}
        )
    return TelemetryState(settings, clock=Clock())


def batch(
    events: list[dict[str, Any]],
    *,
    tab: int = 1,
    url: str = f"{ORIGIN}/",
    document_id: str | None = "doc-1",
    dropped: dict[str, int] | None = None,
) -> dict[str, Any]:
    return {
        "type": "telemetry",
        "tabId": tab,
        "documentId": document_id,
        "url": url,
        "events": events,
        "dropped": dropped or {},
    }


def nav(ts: float, load_id: str = "L1", url: str = f"{ORIGIN}/", nav_type: str = "load") -> dict[str, Any]:
    return {"kind": "navigation", "ts": T0 + ts, "loadId": load_id, "url": url, "navType": nav_type}


def console(ts: float, *args: str, level: str = "log", source: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"kind": "console", "ts": T0 + ts, "level": level, "args": list(args)}
    if source:
        event["source"] = {"url": source, "line": 10, "col": 5}
    return event


def error(
    ts: float,
    message: str,
    *,
    error_type: str = "uncaught",
    stack: str | None = None,
    source: str | None = None,
) -> dict[str, Any]:
    event: dict[str, Any] = {"kind": "error", "ts": T0 + ts, "message": message, "errorType": error_type}
    if stack:
        event["stack"] = stack
    if source:
        event["source"] = {"url": source, "line": 42, "col": 7}
    return event


_REQ = 0


def request(
    ts: float,
    path: str = "/api/items",
    *,
    method: str = "GET",
    status: int = 200,
    duration: float = 120.0,
    request_body: Any = None,
    response_body: Any = None,
    request_headers: dict[str, str] | None = None,
    response_headers: dict[str, str] | None = None,
    mime: str | None = "application/json",
    failure: str | None = None,
    origin: str = ORIGIN,
) -> dict[str, Any]:
    global _REQ
    _REQ += 1
    event: dict[str, Any] = {
        "kind": "network",
        "ts": T0 + ts + duration,
        "requestId": f"r{_REQ}",
        "api": "fetch",
        "method": method,
        "url": origin + path,
        "status": status,
        "statusText": {200: "OK", 201: "Created", 404: "Not Found", 500: "Internal Server Error"}.get(
            status, ""
        ),
        "startTime": T0 + ts,
        "duration": duration,
        "requestHeaders": request_headers or {},
        "responseHeaders": response_headers or ({"content-type": mime} if mime else {}),
    }
    if request_body is not None:
        event["requestBody"] = request_body if isinstance(request_body, str) else json.dumps(request_body)
    if response_body is not None:
        event["responseBody"] = response_body if isinstance(response_body, str) else json.dumps(response_body)
    if mime:
        event["mimeType"] = mime
    if failure:
        event["failure"] = failure
    return event


def ws(
    ts: float,
    conn: str,
    event: str,
    *,
    url: str = "wss://shop.test/live",
    direction: str | None = None,
    data: str | None = None,
    sampled: int | None = None,
    code: int | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "websocket",
        "ts": T0 + ts,
        "connectionId": conn,
        "event": event,
        "url": url,
    }
    if direction:
        out["direction"] = direction
    if data is not None:
        out["data"] = data
        out["size"] = len(data)
    if sampled:
        out["sampled"] = {"every": sampled}
    if code is not None:
        out["code"] = code
        out["reason"] = "bye"
    return out


def action(
    ts: float,
    kind: str,
    url: str = f"{ORIGIN}/",
    *,
    value: str | None = None,
    key: str | None = None,
    tag: str | None = None,
    **selectors: str,
) -> dict[str, Any]:
    sel = {"css": selectors.pop("css", "body")}
    mapping = {"test_id": "testId", "role": "role", "name": "name", "label": "label", "text": "text"}
    for k, v in selectors.items():
        sel[mapping[k]] = v
    out: dict[str, Any] = {"kind": "action", "ts": T0 + ts, "action": kind, "url": url, "selectors": sel}
    if value is not None:
        out["value"] = value
    if key is not None:
        out["key"] = key
    if tag is not None:
        out["tag"] = tag
    return out


def vitals(
    ts: float, load_id: str = "L1", navigation: dict[str, float] | None = None, **metrics: float
) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "vitals", "ts": T0 + ts, "loadId": load_id, "metrics": metrics}
    if navigation:
        out["navigation"] = navigation
    return out


def longtask(ts: float, duration: float) -> dict[str, Any]:
    return {"kind": "longtask", "ts": T0 + ts, "startTime": T0 + ts, "duration": duration}
