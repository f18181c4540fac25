"""The activity log's core: bounded, redacted, short summaries, kept in SQLite across reopenings.

No sockets: the log is driven directly (and through :func:`target_of` with a real registry).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest
from tabmcp.core.activity import (
    FLUSH_DELAY_S,
    FLUSH_EVERY_S,
    FLUSH_ROWS,
    OUTCOME_ASKED,
    OUTCOME_OK,
    SUMMARY_CHARS,
    ActivityLog,
    Target,
    outcome_of,
    summarize,
    target_of,
)
from tabmcp.core.registry import Registry
from tabmcp.core.stores import StoreUnavailable
from tabmcp.core.telemetry import RedactionSettings
from tabmcp.core.telemetry.redact import Redactor
from tabmcp.errors import ErrorCode
from tabmcp.storage.build import activity_log

from .helpers import tab, tool

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
CARD = "4111 1111 1111 1111"


def entry(log: ActivityLog, n: int = 0, **over):
    fields = dict(at=1000.0 + n, client="claude", tool=f"t{n}", tab_id=1, origin="https://a.test",
                  outcome=OUTCOME_OK, duration_ms=1.5, arguments={"n": n}, result={"ok": n})
    fields.update(over)
    return log.record(**fields)


def test_keeps_only_the_newest_rows_up_to_the_bound():
    log = activity_log(max_rows=5)
    for n in range(12):
        entry(log, n)
    assert log.count() == 5
    assert [e.tool for e in log.latest(100)] == ["t11", "t10", "t9", "t8", "t7"]


def test_latest_first_with_limit_and_filters():
    log = activity_log()
    entry(log, 0, origin="https://a.test", tab_id=1)
    entry(log, 1, origin="https://b.test", tab_id=2)
    entry(log, 2, origin="https://a.test", tab_id=3)
    assert [e.tool for e in log.latest(2)] == ["t2", "t1"]
    assert [e.tool for e in log.latest(10, origin="https://a.test")] == ["t2", "t0"]
    assert [e.tool for e in log.latest(10, tab_id=2)] == ["t1"]
    assert log.latest(10, origin="https://a.test", tab_id=2) == []


def test_arguments_and_results_are_redacted_with_the_telemetry_rules():
    log = activity_log(redactor=Redactor(RedactionSettings()))
    e = entry(log, arguments={"password": "hunter2", "note": f"token {JWT}"}, result=f"card {CARD} ok")
    marker = RedactionSettings().replacement
    for text in (e.arguments, e.result, log.latest(1)[0].arguments, log.latest(1)[0].result):
        assert "hunter2" not in text and JWT not in text and CARD not in text
    assert marker in e.arguments and marker in e.result
    assert "note" in e.arguments  # the structure stays, only the secrets go


def test_the_configured_rules_apply_and_a_callable_follows_changes():
    settings = RedactionSettings(keys=["nickname"], replacement="[gone]")
    current = {"r": Redactor(settings)}
    log = activity_log(redactor=lambda: current["r"])
    assert "[gone]" in entry(log, arguments={"nickname": "bob"}).arguments
    current["r"] = Redactor(RedactionSettings())
    assert "bob" in entry(log, 1, arguments={"nickname": "bob"}).arguments


def test_summaries_are_bounded_and_a_cut_is_marked():
    log = activity_log()
    e = entry(log, arguments={"text": "x" * 10_000}, result=["y" * 50] * 1000)
    assert len(e.arguments) == SUMMARY_CHARS and e.arguments.endswith("…")
    assert len(e.result) == SUMMARY_CHARS and e.result.endswith("…")
    assert len(summarize({"a": 1}, Redactor())) < SUMMARY_CHARS and summarize(None, Redactor()) == ""


def test_survives_reopening_the_file(tmp_path):
    db = tmp_path / "tabmcp.db"
    log = activity_log(db, max_rows=3)
    for n in range(4):
        entry(log, n)
    log.close()
    again = activity_log(db, max_rows=3)
    assert [e.tool for e in again.latest(10)] == ["t3", "t2", "t1"]
    entry(again, 4)  # ids continue, the bound still holds
    assert [e.tool for e in again.latest(10)] == ["t4", "t3", "t2"]
    again.close()


def test_begin_end_measure_the_call_and_name_the_outcome():
    log = activity_log()
    pending = log.begin(Target("save", 7, "https://a.test", {"x": 1}), "cursor")
    ok = log.end(pending, {"content": [{"type": "text", "text": "saved"}]})
    assert (ok.client, ok.tool, ok.tab_id, ok.origin, ok.outcome) == ("cursor", "save", 7, "https://a.test", "ok")
    assert ok.duration_ms >= 0 and ok.result == "saved" and ok.arguments == '{"x":1}'
    failed = {"isError": True, "structuredContent": {"error": {"code": ErrorCode.TIMEOUT, "message": "slow"}}}
    bad = log.end(log.begin(Target("save", 7, "https://a.test", {}), None), failed)
    assert bad.outcome == ErrorCode.TIMEOUT and bad.result == "slow" and bad.client == ""
    gone = log.end(log.begin(Target("save", 7, "https://a.test", {}), "c"), None, outcome=ErrorCode.CANCELLED)
    assert gone.outcome == ErrorCode.CANCELLED
    assert outcome_of({"isError": True, "content": []}) == ErrorCode.PAGE_ERROR
    assert outcome_of({"resultType": "input_required", "inputRequests": {}}) == OUTCOME_ASKED
    assert [e.to_dict()["outcome"] for e in log.latest(3)] == ["CANCELLED", "TIMEOUT", "ok"]


def test_target_of_names_the_page_a_call_reaches():
    registry = Registry()
    registry.sync([_tab(4, "https://shop.test/", [tool("buy")])])
    focused = lambda: 4  # noqa: E731
    direct = target_of(registry, "buy", {"n": 1}, focused)
    assert direct == Target("buy", 4, "https://shop.test", {"n": 1})
    via = target_of(registry, "call_tool", {"name": "buy", "arguments": {"n": 2}}, focused)
    assert via == Target("buy", 4, "https://shop.test", {"n": 2})
    dom = target_of(registry, "query_dom", {"selector": "a"}, focused)
    assert dom is not None and (dom.tool, dom.tab_id, dom.origin) == ("query_dom", 4, "https://shop.test")
    assert target_of(registry, "observe", {"what": "errors"}, focused) is None  # stays in the bridge
    assert target_of(registry, "search_tools", {"query": "buy"}, focused) is None
    assert target_of(registry, "nope", {}, focused) is None


def _tab(tab_id: int, url: str, tools):
    from tabmcp.protocol import TabSnapshot

    return TabSnapshot.model_validate(tab(tab_id, url=url, tools=tools))


def deferred(log: ActivityLog, n: int = 0) -> None:
    """A call as the server's call path ends it: batched, summarised when written."""
    log.end(log.begin(Target(f"t{n}", 1, "https://a.test", {"n": n}), "claude"), None, defer=True)


def test_rows_are_written_behind_in_batches_and_never_lost_on_close(tmp_path):
    path = tmp_path / "bridge.db"
    log = activity_log(path)
    deferred(log, 0)
    deferred(log, 1)
    other = activity_log(path)
    assert other.count() == 0  # not yet written: the call paid for a list append only
    assert [e.tool for e in log.latest(5)] == ["t1", "t0"]  # a read writes what is pending first
    assert other.count() == 2
    deferred(log, 2)
    log.close()
    assert [e.tool for e in other.latest(5)] == ["t2", "t1", "t0"]
    reopened = activity_log(path)
    assert reopened.first_id == 4 and entry(reopened, 3).id == 4  # ids carry on after a restart
    other.close()
    reopened.close()


def test_two_writers_on_one_file_both_keep_every_row(tmp_path):
    """Two processes share the file (a second bridge, the bench's two browsers' bridges, the CLI):
    SQLite gives the ids as rows are written, so neither writer's batch collides with the
    other's, and a write that finds the file locked keeps its rows for the next try."""
    path = tmp_path / "bridge.db"
    a, b = activity_log(path), activity_log(path)
    for n in range(150):  # interleaved, each writer's full batches written by the call that fills them
        deferred(a, n)
        deferred(b, 1000 + n)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # a third writer holds the file
    b.rows.db.execute("PRAGMA busy_timeout=0")
    with pytest.raises(StoreUnavailable):
        b.flush()
    blocker.execute("COMMIT")
    a.flush()
    b.flush()
    rows = a.latest(1000)
    assert sorted(e.tool for e in rows) == sorted([f"t{n}" for n in range(150)] + [f"t{1000 + n}" for n in range(150)])
    assert len({e.id for e in rows}) == 300
    for log in (a, b, activity_log(path)):
        log.close()
    blocker.close()


def test_a_failed_write_is_retried_on_the_hot_path_at_most_once_a_second(tmp_path, caplog):
    """A locked file must not make every later call retry the (growing) batch: after a failed
    write the call path leaves it to the timer for FLUSH_EVERY_S, and the batch stays bounded."""
    path = tmp_path / "bridge.db"
    now = [100.0]
    log = activity_log(path, max_rows=100)
    log.clock = lambda: now[0]
    log.rows.db.execute("PRAGMA busy_timeout=0")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    with caplog.at_level("WARNING", logger="tabmcp.activity"):
        for n in range(300):
            deferred(log, n)
        assert len(caplog.records) == 1  # the first full batch tried once, then no try per call
        now[0] += FLUSH_EVERY_S + 0.01
        deferred(log, 300)
        assert len(caplog.records) == 2  # a second later, one more try
    blocker.execute("COMMIT")
    log.flush()  # the timer's next try writes them; the bound held them to the newest max_rows
    assert [e.tool for e in log.latest(2)] == ["t300", "t299"] and log.count() == 100
    blocker.close()
    log.close()


def test_a_deferred_row_is_summarised_when_written_with_the_rules_of_its_time():
    settings = RedactionSettings(keys=["nickname"], replacement="[gone]")
    current = {"r": Redactor(settings)}
    log = activity_log(redactor=lambda: current["r"])
    pending = log.begin(Target("save", 7, "https://a.test", {"nickname": "bob", "note": f"token {JWT}"}), "c")
    assert log.end(pending, {"content": [{"type": "text", "text": f"card {CARD}"}]}, defer=True) is None
    current["r"] = Redactor(RedactionSettings(keys=[]))  # a later configure does not reach it
    row = log.latest(1)[0]
    assert (row.tool, row.outcome, row.client) == ("save", OUTCOME_OK, "c")
    assert "bob" not in row.arguments and "[gone]" in row.arguments and JWT not in row.arguments
    assert CARD not in row.result
    gone = log.end(log.begin(Target("save", 7, "https://a.test", {}), "c"), None,
                   outcome=ErrorCode.CANCELLED, defer=True)
    assert gone is None and log.latest(1)[0].outcome == ErrorCode.CANCELLED
    for n in range(70):  # a full batch is written by the call that fills it, bounded as ever
        log.end(log.begin(Target(f"t{n}", 1, "https://a.test", {}), "c"), None, defer=True)
    assert log.count() == 72


def test_a_batch_that_starts_asks_for_a_timer_once_and_a_failed_write_keeps_its_rows(tmp_path):
    path = tmp_path / "bridge.db"
    pokes: list[int] = []
    log = activity_log(path, on_pending=lambda: pokes.append(1))
    deferred(log, 0)
    deferred(log, 1)
    assert pokes == [1]  # one timer per batch, not one per row
    log.flush()
    deferred(log, 2)
    assert pokes == [1, 1]  # a new batch, a new timer
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("PRAGMA busy_timeout=0")
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the file
    log.rows.db.execute("PRAGMA busy_timeout=0")
    with pytest.raises(StoreUnavailable):
        log.flush()
    blocker.execute("COMMIT")
    log.flush()  # the timer's next try
    assert [e.tool for e in activity_log(path).latest(5)] == ["t2", "t1", "t0"]
    blocker.close()
    log.close()


async def test_the_servers_timer_writes_a_lone_call_within_a_second(tmp_path):
    from tabmcp.server.write_behind import WriteBehind

    path = tmp_path / "bridge.db"
    log = activity_log(path)
    writer = WriteBehind(log.flush, delay_s=FLUSH_DELAY_S)
    log.on_pending = writer.poke
    reader = activity_log(path)
    started = time.monotonic()
    deferred(log, 0)  # the last call: nothing follows it
    assert writer.armed

    def written() -> bool:
        return reader.rows.db.execute("SELECT COUNT(*) FROM activity").fetchone()[0] == 1

    while not written():
        assert time.monotonic() - started < FLUSH_EVERY_S * 5, "the row never reached the file"
        await asyncio.sleep(0.02)
    assert writer.flushes == 1 and not writer.armed
    writer.close()
    log.close()
    reader.close()


async def test_a_full_batch_is_written_in_the_loops_next_turn_not_by_the_call_that_fills_it(tmp_path):
    """With the server's write-behind, the call that fills a batch only asks for the write: it runs
    in the loop's next turn (after that call's answer is written), and every row lands."""
    from tabmcp.server.write_behind import WriteBehind

    path = tmp_path / "bridge.db"
    log = activity_log(path)
    writer = WriteBehind(log.flush, delay_s=FLUSH_DELAY_S)
    log.on_pending = writer.poke
    log.flush_soon = writer.soon
    reader = activity_log(path)

    def in_file() -> int:
        return int(reader.rows.db.execute("SELECT COUNT(*) FROM activity").fetchone()[0])

    for n in range(FLUSH_ROWS + 3):  # one task step: the batch fills and more rows come
        deferred(log, n)
    assert in_file() == 0  # nothing written on the call path
    await asyncio.sleep(0)  # the loop's next turn
    assert in_file() == FLUSH_ROWS + 3  # one write, every row
    assert writer.flushes == 1
    writer.close()
    log.close()
    reader.close()


def test_without_a_running_loop_the_call_that_fills_a_batch_writes_it(tmp_path):
    from tabmcp.server.write_behind import WriteBehind

    log = activity_log(tmp_path / "bridge.db")
    writer = WriteBehind(log.flush, delay_s=FLUSH_DELAY_S)
    log.flush_soon = writer.soon  # no loop runs: it says so, and the call writes the batch
    for n in range(FLUSH_ROWS):
        deferred(log, n)
    assert log.rows.count() == FLUSH_ROWS
    log.close()
