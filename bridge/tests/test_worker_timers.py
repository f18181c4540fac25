"""The service worker's shared timers, run in node on the extension's own modules
(worker_timers.mjs): one timer for every pending request's deadline (extension/pending.js) and one
for the badge's "running" delay (extension/badge.js), armed for the earliest and never cleared when a
call ends, so a call costs no setTimeout/clearTimeout of its own. Node is installed by ``./dev
setup``: under ``CI=true`` a missing node fails these tests instead of skipping them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .helpers import node_scenario

HERE = Path(__file__).resolve().parent


def scenario(name: str) -> Any:
    return node_scenario(HERE / "worker_timers.mjs", name, "the worker's timers")


def test_each_deadline_ends_its_request_and_an_answered_one_ends_nothing() -> None:
    out = scenario("deadlines")
    assert out["all"], out
    # The earlier deadline, added while the timer waited for a 30 s one, ended first and alone;
    # the next one after the timer fired; the answered request and the 30 s one did not end.
    assert [(e["id"], e["rule"], e["message"]) for e in out["ended"]] == [
        ("short", "timeout", "short timed out"),
        ("after", "timeout", "after timed out"),
    ]
    assert out["ended"][0]["pending"] == ["long", "after"]
    assert out["left"] == ["long"]


def test_the_badge_shows_a_call_that_runs_and_never_a_fast_one() -> None:
    out = scenario("badge")
    assert out["running"], out  # the slow call, started after the timer was armed for a fast one
    assert not out["fastShown"]
    assert [1, "▶"] in out["shown"]
    assert out["shown"][-1] == [1, "3"]  # the call ended: the tool count again
    assert not out["runningAfter"]


def test_a_failing_end_handler_stops_no_other_request_from_ending() -> None:
    # One kind's handler throwing (a bug there) must not leave every other request to hang: not
    # the ones due at the same fire of the shared timer, not the later ones it arms itself for,
    # not the others a tab's closing ends. The failure is logged, not thrown at the timer.
    out = scenario("failingEnd")
    assert out["all"], out
    assert out["ended"] == ["good", "later", "in-tab-2"], out
    assert out["endTabEnded"], out
    assert out["left"] == [], out
    assert out["escaped"] == [], out
