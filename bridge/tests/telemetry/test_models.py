"""The wire models: camelCase in, snake_case out, unknown fields ignored, bad events rejected alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tabmcp.core.telemetry.models import (
    ActionEvent,
    NavigationEvent,
    NetworkEvent,
    TelemetryBatch,
    VitalsEvent,
    WebSocketEvent,
    event_to_wire,
    parse_event,
)

from .factory import T0, action, nav, request, vitals, ws


def test_each_kind_parses_from_camel_case() -> None:
    net = parse_event(
        request(0, "/api/x", method="post", request_headers={"Content-Type": "application/json"})
    )
    assert isinstance(net, NetworkEvent) and net.method == "POST" and net.request_headers["Content-Type"]
    assert net.started_at == T0 and not net.failed
    sock = parse_event(ws(0, "c1", "message", direction="in", data="hi", sampled=10))
    assert isinstance(sock, WebSocketEvent) and sock.sampled is not None and sock.sampled.every == 10
    act = parse_event(action(0, "click", test_id="buy", role="button", name="Buy"))
    assert isinstance(act, ActionEvent) and act.selectors.test_id == "buy"
    assert act.selectors.describe() == "[data-testid=buy]"
    vit = parse_event(vitals(0, "L1", LCP=1000.0, CLS=0.1))
    assert isinstance(vit, VitalsEvent) and vit.metrics.lcp == 1000.0 and vit.metrics.cls == 0.1
    nv = parse_event(nav(0, nav_type="spa"))
    assert isinstance(nv, NavigationEvent) and not nv.new_document


def test_round_trip_to_the_wire_form() -> None:
    raw = request(0, "/api/x", response_body={"a": 1})
    event = parse_event({**raw, "extra": "ignored"})
    assert event is not None
    assert event_to_wire(event) == {**raw, "bodyTruncated": False}


def test_relative_start_time_falls_back_to_completion_minus_duration() -> None:
    raw = {**request(0, duration=200.0), "startTime": 1234.5}  # performance.now()-style
    event = parse_event(raw)
    assert isinstance(event, NetworkEvent) and event.started_at == raw["ts"] - 200.0


@pytest.mark.parametrize(
    "raw",
    [
        {"kind": "console", "ts": 1, "level": "shout", "args": []},
        {"kind": "console", "ts": -5, "level": "log"},
        {"kind": "network", "ts": 1},
        {"kind": "mystery", "ts": 1},
        {"ts": 1},
        "not an object",
        None,
    ],
)
def test_malformed_events_are_none(raw: object) -> None:
    assert parse_event(raw) is None


def test_batch_keeps_only_positive_drop_counts() -> None:
    b = TelemetryBatch.model_validate({"tabId": 3, "events": [], "dropped": {"console": 0, "network": 2}})
    assert b.dropped == {"network": 2} and b.document_id is None


def test_the_core_does_no_io() -> None:
    """The telemetry core is plain objects: no sockets, no asyncio, no HTTP (STYLE.md)."""
    root = Path(__file__).resolve().parents[2] / "tabmcp" / "core" / "telemetry"
    forbidden = re.compile(r"^\s*(import|from)\s+(asyncio|socket|websockets|httpx|starlette|uvicorn)\b", re.M)
    offenders = [p.name for p in root.rglob("*.py") if forbidden.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
