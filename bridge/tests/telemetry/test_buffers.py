"""Buffer bounds, eviction order, the byte ceiling, errors surviving a log flood, drop counts."""

from __future__ import annotations

from tabmcp.core.telemetry import BufferKind, BufferLimits, TelemetrySettings
from tabmcp.core.telemetry.buffers import EVICTION_ORDER, Entry, TelemetryBuffers
from tabmcp.core.telemetry.models import ConsoleEvent

from .factory import batch, console, error, make_store, request, ws


def texts(store, kind=BufferKind.LOGS, tab=1):  # type: ignore[no-untyped-def]
    return [e.event.text for e in store.buffers.entries(kind, tab)]


def test_per_kind_bound_keeps_the_newest_and_counts_the_rest() -> None:
    store = make_store(buffers={"logs": 5})
    store.ingest(batch([console(i, f"m{i}") for i in range(12)]))
    assert texts(store) == ["m7", "m8", "m9", "m10", "m11"]
    assert store.counts().logs == 5
    assert store.buffers.drops(1, "logs") == {"capacity": 7}


def test_bounds_are_per_tab() -> None:
    store = make_store(buffers={"logs": 3})
    store.ingest(batch([console(0, "quiet tab")], tab=2))
    store.ingest(batch([console(i, f"noisy {i}") for i in range(50)], tab=1))
    assert texts(store, tab=2) == ["quiet tab"]
    assert store.counts().logs == 4
    assert store.buffers.drops(2) == {}


def test_errors_survive_a_flood_of_logs_under_the_memory_ceiling() -> None:
    store = make_store(max_bytes=64 * 1024, max_event_bytes=16 * 1024, buffers={"logs": 100_000})
    store.ingest(batch([error(0, f"Error number {i}") for i in range(20)]))
    store.ingest(batch([console(1 + i, "x" * 200) for i in range(2000)]))  # ~500 KB of logs
    assert store.buffers.total_bytes <= 64 * 1024
    assert store.counts().errors == 20  # not one error went
    assert store.buffers.drops(1, "errors") == {}
    dropped = store.buffers.drops(1, "logs")
    assert dropped["memory"] > 1500
    assert store.counts().logs + dropped["memory"] == 2000  # nothing lost silently


def test_memory_eviction_follows_the_priority_order_then_age() -> None:
    assert EVICTION_ORDER[0] == BufferKind.LOGS and EVICTION_ORDER[-1] == BufferKind.ERRORS
    limits = BufferLimits()
    buffers = TelemetryBuffers(limits, max_bytes=1000)
    seq = 0

    def add(kind: BufferKind, tab: int, size: int) -> None:
        nonlocal seq
        seq += 1
        buffers.append(
            kind, Entry(seq, tab, None, "", ConsoleEvent(ts=seq, level="log", args=[str(seq)]), size)
        )

    add(BufferKind.ERRORS, 1, 300)  # seq 1
    add(BufferKind.NETWORK, 1, 300)  # seq 2
    add(BufferKind.LOGS, 2, 100)  # seq 3: oldest log, other tab
    add(BufferKind.LOGS, 1, 100)  # seq 4
    add(BufferKind.WEBSOCKET, 1, 150)  # seq 5 → 950 bytes
    add(BufferKind.ERRORS, 1, 200)  # seq 6 → 1150: both logs must go (oldest first), then websocket
    assert buffers.count(BufferKind.LOGS) == 0
    assert buffers.drops(2, "logs") == {"memory": 1}
    assert buffers.count(BufferKind.WEBSOCKET) == 1 and buffers.total_bytes == 950
    add(BufferKind.ERRORS, 1, 200)  # → 1150 again: websocket goes before network
    assert buffers.count(BufferKind.WEBSOCKET) == 0 and buffers.count(BufferKind.NETWORK) == 1
    add(BufferKind.ERRORS, 1, 200)  # now network, then (only errors left) the oldest error
    assert buffers.count(BufferKind.NETWORK) == 0
    assert [e.seq for e in buffers.entries(BufferKind.ERRORS)] == [1, 6, 7, 8]
    add(BufferKind.ERRORS, 1, 300)
    assert [e.seq for e in buffers.entries(BufferKind.ERRORS)] == [6, 7, 8, 9]
    assert buffers.drops(1, "errors") == {"memory": 1}


def test_page_side_drops_and_rejected_events_are_counted() -> None:
    store = make_store()
    report = store.ingest(
        batch(
            [console(0, "ok"), {"kind": "console", "ts": "never"}, {"kind": "telepathy", "ts": 1}, "junk"],
            dropped={"console": 40, "network": 2},
        )
    )
    assert (report.accepted, report.rejected, report.page_dropped) == (1, 3, 42)
    assert store.buffers.drops(1, "logs") == {"page": 40, "rejected": 1}
    assert store.buffers.drops(1, "network") == {"page": 2}
    assert store.buffers.drops(1) == {"page": 42, "rejected": 3}


def test_oversize_events_are_truncated_then_dropped_if_still_too_big() -> None:
    store = make_store(max_event_bytes=4096)
    big = "y" * 20_000
    report = store.ingest(batch([request(0, response_body=big), console(1, big)]))
    assert report.accepted == 2 and report.oversize == 0
    net = next(store.buffers.entries(BufferKind.NETWORK))
    assert net.event.body_truncated and len(net.event.response_body) < 2000
    assert net.size <= 4096
    headers = {f"x-header-{i}": "v" * 50 for i in range(200)}  # headers are never truncated
    report = store.ingest(batch([request(2, request_headers=headers)]))
    assert report.oversize == 1
    assert store.buffers.drops(1, "network") == {"oversize": 1}


def test_shrinking_buffers_evicts_at_once_and_counts_it() -> None:
    store = make_store()
    store.ingest(batch([console(i, str(i)) for i in range(10)] + [ws(20, "c1", "open")]))
    store.update_settings(TelemetrySettings.model_validate({"buffers": {"logs": 4, "websocket": 1}}))
    assert texts(store) == ["6", "7", "8", "9"]
    assert store.buffers.drops(1, "logs") == {"capacity": 6}


def test_clear_forgets_entries_and_their_drop_counts() -> None:
    store = make_store(buffers={"logs": 2})
    store.ingest(batch([console(i, str(i)) for i in range(5)] + [error(9, "e")]))
    assert store.clear([BufferKind.LOGS]) == 2
    assert store.counts().logs == 0 and store.counts().errors == 1
    assert store.buffers.drops(1, "logs") == {}
    store.clear()
    assert store.counts().total == 0 and store.buffers.total_bytes == 0
