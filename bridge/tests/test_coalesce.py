"""The timing rule behind change notifications, with the clock passed in."""

from __future__ import annotations

import pytest
from tabmcp.core.coalesce import Coalescer


def test_a_single_change_is_announced_after_the_quiet_period():
    c = Coalescer(debounce_s=0.05, max_wait_s=0.5)
    assert not c.pending
    assert c.changed(10.0) == pytest.approx(0.05)
    assert c.pending


def test_changes_keep_postponing_until_the_burst_is_max_wait_old():
    c = Coalescer(debounce_s=0.05, max_wait_s=0.5)
    c.changed(0.0)
    assert c.changed(0.2) == pytest.approx(0.05)
    assert c.changed(0.47) == pytest.approx(0.03)  # never later than 0.5 after the first change
    assert c.changed(0.6) == 0.0  # overdue: announce now


def test_seventy_five_quick_changes_cost_one_announcement():
    c = Coalescer(debounce_s=0.05, max_wait_s=0.5)
    fired, due = 0, None
    for i in range(75):  # one every 4 ms: 0.3 s of registrations
        now = i * 0.004
        if due is not None and now >= due:
            fired += 1
            c.fired()
        due = now + c.changed(now)
    assert fired == 0 and c.pending


def test_a_burst_longer_than_max_wait_is_announced_every_max_wait():
    c = Coalescer(debounce_s=0.05, max_wait_s=0.5)
    fired, due = [], None
    for i in range(500):  # one change every 4 ms for 2 s
        now = i * 0.004
        if due is not None and now >= due:
            fired.append(due)
            c.fired()
        due = now + c.changed(now)
    assert 3 <= len(fired) <= 4
    assert all(b - a >= 0.5 - 1e-9 for a, b in zip(fired, fired[1:], strict=False))


def test_after_an_announcement_the_next_change_starts_a_new_burst():
    c = Coalescer(debounce_s=0.05, max_wait_s=0.5)
    c.changed(0.0)
    c.fired()
    assert not c.pending
    assert c.changed(5.0) == pytest.approx(0.05)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        Coalescer(debounce_s=1.0, max_wait_s=0.5)
