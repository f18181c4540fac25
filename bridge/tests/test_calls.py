import pytest

from tabmcp.core.calls import CallState, CallTable
from tabmcp.errors import InvalidState


def new(table, tab_id=1, deadline=10.0, doc="d1"):
    return table.new(tab_id=tab_id, document_id=doc, page_tool="t", public_name="t", arguments={}, deadline=deadline)


def test_lifecycle_and_counters():
    table = CallTable()
    call = new(table)
    assert call.state is CallState.PENDING and call.call_id in table
    table.mark_sent(call.call_id)
    with pytest.raises(InvalidState):
        table.mark_sent(call.call_id)
    done = table.finish(call.call_id, CallState.DONE, {"content": []})
    assert done is call and call.finished and call.call_id not in table
    assert table.finish(call.call_id, CallState.FAILED) is None  # finishing twice is a no-op
    assert (table.completed, table.failed) == (1, 0)


def test_finish_requires_a_final_state():
    table = CallTable()
    call = new(table)
    with pytest.raises(InvalidState):
        table.finish(call.call_id, CallState.SENT)


def test_calls_per_tab_and_per_document():
    table = CallTable()
    a = new(table, tab_id=1, doc="old")
    b = new(table, tab_id=1, doc="new")
    new(table, tab_id=2)
    assert {c.call_id for c in table.for_tab(1)} == {a.call_id, b.call_id}
    assert [c.call_id for c in table.for_tab(1, document_id="new")] == [a.call_id]


def test_expired():
    table = CallTable()
    early = new(table, deadline=1.0)
    new(table, deadline=5.0)
    assert [c.call_id for c in table.expired(now=2.0)] == [early.call_id]


def test_ids_are_unique():
    table = CallTable()
    assert len({new(table).call_id for _ in range(500)}) == 500
