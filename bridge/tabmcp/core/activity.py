"""The activity log: what agents did in the person's tabs, kept bounded in the bridge's SQLite.

One row per agent call that reaches a page (who, what, where, outcome, duration), with arguments
and results only as redacted short summaries, so the log never holds a token the telemetry
buffers would not. No I/O: rows go through an :class:`~tabmcp.core.stores.ActivityRows`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode
from .stores import ActivityRows, StoreUnavailable
from .telemetry.redact import Redactor

if TYPE_CHECKING:
    from .registry import Registry

log = logging.getLogger("tabmcp.activity")

__all__ = [
    "DEFAULT_ROWS",
    "OUTCOME_ASKED",
    "OUTCOME_OK",
    "PAGE_BUILTINS",
    "SUMMARY_CHARS",
    "ActivityEntry",
    "ActivityLog",
    "Pending",
    "Target",
    "outcome_of",
    "summarize",
    "target_of",
]

DEFAULT_ROWS = 1_000
"""How many rows the log keeps by default (``store.activity_rows``)."""
SUMMARY_CHARS = 200
"""The longest an argument or result summary gets (an ellipsis marks a cut)."""
OUTCOME_OK = "ok"
OUTCOME_ASKED = "input_required"
"""A 2026-07-28 call that came back asking the client for approval (it retries with the answer,
which is logged as a call of its own)."""

PAGE_BUILTINS = frozenset({"query_dom", "observe", "analyze"})
"""Built-in tools that may ask a live page (``observe`` with ``what="page"``, ``analyze`` with
``target="accessibility"``, ``query_dom`` always)."""

@dataclass(frozen=True)
class ActivityEntry:
    """One agent call as the log keeps it (``to_dict``: the JSON shape of the CLI and /health)."""

    id: int
    at: float
    """Wall-clock start, seconds since the epoch."""
    client: str
    tool: str
    tab_id: int | None
    origin: str
    outcome: str
    duration_ms: float
    arguments: str
    result: str

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {
            "id": d["id"], "at": d["at"], "client": d["client"], "tool": d["tool"], "tabId": d["tab_id"],
            "origin": d["origin"], "outcome": d["outcome"], "durationMs": d["duration_ms"],
            "arguments": d["arguments"], "result": d["result"],
        }


@dataclass(frozen=True)
class Target:
    """Where a call goes: the tool's public name, its tab and the tab's origin."""

    tool: str
    tab_id: int | None
    origin: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Pending:
    """A call that started (from :meth:`ActivityLog.begin`), waiting for :meth:`ActivityLog.end`."""

    target: Target
    client: str
    at: float
    started: float


def _clip(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: max(0, limit - 1)] + "…"


def summarize(value: Any, redactor: Redactor, limit: int = SUMMARY_CHARS) -> str:
    """Short, redacted text for arguments or a structured value: compact JSON, cut at ``limit``.

    Redaction runs on the whole value first (secret-named fields lose their values, strings go
    through the patterns), then the text is cut, so a cut never exposes half a secret.
    """
    if value is None:
        return ""
    try:
        redacted = redactor.json_value(value)
        body = redacted if isinstance(redacted, str) else json.dumps(redacted, ensure_ascii=False,
                                                                     separators=(",", ":"), default=str)
    except (ValueError, RecursionError, TypeError):
        body = redactor.text(repr(value)[: limit * 4])
    return _clip(body, limit)


def _result_value(result: Mapping[str, Any]) -> Any:
    """What to summarise of a CallToolResult: the error, the structured content, or the text."""
    structured = result.get("structuredContent")
    if result.get("isError") and isinstance(structured, dict) and isinstance(structured.get("error"), dict):
        return structured["error"].get("message", "")
    if structured is not None:
        return structured
    texts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"]
    return " ".join(t for t in texts if isinstance(t, str))


def outcome_of(result: Mapping[str, Any]) -> str:
    """``ok``, ``input_required`` (approval asked of a 2026-07-28 client), or the named error code
    of a failed call (``PAGE_ERROR`` for a page's bare isError)."""
    if result.get("resultType") == OUTCOME_ASKED:
        return OUTCOME_ASKED
    if not result.get("isError"):
        return OUTCOME_OK
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and isinstance(structured.get("error"), dict):
        code = structured["error"].get("code")
        if isinstance(code, str) and code:
            return code
    return ErrorCode.PAGE_ERROR.value


def target_of(
    registry: Registry, name: str, arguments: dict[str, Any], focused_tab: Callable[[], int | None]
) -> Target | None:
    """The page a tools/call of ``name`` reaches, or ``None`` (a built-in that stays in the bridge,
    a category, an unknown name). ``focused_tab`` is asked only for a built-in without ``tab_id``."""
    from .registry import ToolEntry

    if name == "call_tool":
        inner = arguments.get("name")
        inner_args = arguments.get("arguments")
        if not isinstance(inner, str):
            return None
        return target_of(registry, inner, inner_args if isinstance(inner_args, dict) else {}, focused_tab)
    if name in PAGE_BUILTINS:
        reaches = (
            name == "query_dom"
            or (name == "observe" and arguments.get("what") == "page")
            or (name == "analyze" and arguments.get("target") == "accessibility")
        )
        if not reaches:
            return None
        raw = arguments.get("tab_id") or focused_tab()
        tab_id = int(raw) if isinstance(raw, int | str) and str(raw).isdigit() else None
        tab = registry.tab(tab_id) if tab_id is not None else None
        return Target(name, tab_id, tab.origin if tab else "", arguments)
    entry = registry.resolve(name)
    if isinstance(entry, ToolEntry):  # a closed site's tool has no tab yet: its call opens one
        return Target(entry.public_name, entry.tab.tab_id if entry.tab.is_open else None, entry.tab.origin, arguments)
    return None


def _row(redactor: Redactor, *, at: float, client: str, tool: str, tab_id: int | None, origin: str, outcome: str,
         duration_ms: float, arguments: Any, result: Any) -> tuple[Any, ...]:
    """One row's columns after ``id``: summaries redacted and bounded, text fields clipped."""
    return (at, _clip(client, 100), _clip(tool, 200), tab_id, _clip(origin, 300), _clip(outcome, 64),
            round(duration_ms, 3), summarize(arguments, redactor), summarize(result, redactor))


@dataclass(frozen=True)
class _Deferred:
    """A row recorded as is, summarised with ``redactor`` (the rules in force when it was
    recorded) when its batch is written."""

    redactor: Redactor
    fields: dict[str, Any]

    def summarised(self) -> tuple[Any, ...]:
        return _row(self.redactor, **self.fields)


FLUSH_ROWS = 64
"""Pending rows that trigger a write."""
FLUSH_EVERY_S = 1.0
"""A row is written this long after its call ended, at the latest: the server arms a timer when
a batch starts (``on_pending``, see :class:`tabmcp.server.write_behind.WriteBehind`), and without
one (no event loop) the first record this long after the last write writes the batch."""
FLUSH_DELAY_S = 0.5
"""The delay of the server's timer: half of :data:`FLUSH_EVERY_S`, so a loaded loop that runs the
timer late still writes within the bound."""


class ActivityLog:
    """The bounded log (thread-safe), written behind in batches to ``rows``
    (``tabmcp.storage.activity.ActivityStore``: the bridge's SQLite file)."""

    def __init__(
        self,
        rows: ActivityRows,
        *,
        max_rows: int = DEFAULT_ROWS,
        redactor: Redactor | Callable[[], Redactor] | None = None,
        on_pending: Callable[[], None] | None = None,
        flush_soon: Callable[[], bool] | None = None,
    ) -> None:
        self.rows = rows
        self.on_pending = on_pending
        """Called (outside the lock) when a row arrives in an empty batch: the server arms a timer
        that calls :meth:`flush` within :data:`FLUSH_EVERY_S`."""
        self.flush_soon = flush_soon
        """Asked (outside the lock) when a batch is full: the server writes it in its loop's next turn, so
        the call that filled it does not wait for the write (it returns False without a loop: the call writes it)."""
        self.max_rows = max_rows
        self._redactor = redactor or Redactor()
        self._lock = threading.Lock()
        self.first_id = rows.next_id()
        """Rows of this bridge run have ids from here; older rows' tab ids were another run's."""
        self._pending: list[tuple[Any, ...] | _Deferred] = []
        self._flushed_at = time.monotonic()
        self._retry_at = 0.0
        """After a failed write, the hot path does not try again before this (monotonic) time."""
        self.clock: Callable[[], float] = time.monotonic
        """When batches are due (a test freezes it)."""

    @property
    def redactor(self) -> Redactor:
        """The rules in force (a callable given at construction is asked each time, so a
        ``configure`` that changes the telemetry redaction applies to the next row)."""
        r = self._redactor
        return r if isinstance(r, Redactor) else r()

    # -- the call lifecycle -----------------------------------------------------------------

    def begin(self, target: Target, client: str | None) -> Pending:
        return Pending(target, client or "", time.time(), time.monotonic())

    def end(
        self, pending: Pending, result: Mapping[str, Any] | None, *, outcome: str | None = None, defer: bool = False
    ) -> ActivityEntry | None:
        """Record a finished call: ``result`` is what the agent got (``None`` with an ``outcome`` when nothing).

        ``defer`` summarises the row when the batch is written, so the call pays for a list append,
        not for redaction. Returns the entry, or ``None`` when deferred.
        """
        duration_ms = (time.monotonic() - pending.started) * 1000
        t = pending.target
        fields = dict(
            at=pending.at,
            client=pending.client,
            tool=t.tool,
            tab_id=t.tab_id,
            origin=t.origin,
            outcome=outcome or (outcome_of(result) if result is not None else OUTCOME_OK),
            duration_ms=duration_ms,
            arguments=t.arguments,
            result=_result_value(result) if result is not None else None,
        )
        if not defer:
            return self.record(**fields)  # type: ignore[arg-type]  # fields are record's, by name
        self._add(_Deferred(self.redactor, fields))
        return None

    def record(
        self, *, at: float, client: str, tool: str, tab_id: int | None, origin: str, outcome: str,
        duration_ms: float, arguments: Any, result: Any,
    ) -> ActivityEntry:
        """Add one row (summaries redacted and bounded) and write it now, with what is pending
        before it, returning it with the id the file gave it (the call path batches instead:
        :meth:`end` with ``defer``). A failed write raises and the row stays pending."""
        row = _row(self.redactor, at=at, client=client, tool=tool, tab_id=tab_id, origin=origin,
                   outcome=outcome, duration_ms=duration_ms, arguments=arguments, result=result)
        with self._lock:
            self._pending.append(row)
            last = self._flush_locked()
        return ActivityEntry(last, *row)

    def _add(self, row: _Deferred) -> None:
        with self._lock:
            self._pending.append(row)
            if len(self._pending) > self.max_rows:  # the bound would delete them at the write anyway
                del self._pending[: len(self._pending) - self.max_rows]
            first = len(self._pending) == 1
            # Written behind in batches so a call pays for a list append, not a SQLite transaction; after a
            # failed write the hot path waits FLUSH_EVERY_S, so a locked file costs one try a second.
            now = self.clock()
            due = now >= self._retry_at and (len(self._pending) >= FLUSH_ROWS or now - self._flushed_at > FLUSH_EVERY_S)
        if due and self.flush_soon is not None and self.flush_soon():
            due = False  # written in the loop's next turn, after this call's answer
        if due:
            with self._lock:
                try:
                    self._flush_locked()
                except StoreUnavailable:  # a locked file: the call still succeeds; the timer retries
                    log.warning("activity: writing %d rows failed; they stay pending", len(self._pending),
                                exc_info=True)
                first = bool(self._pending)
        if first and self.on_pending is not None:
            self.on_pending()

    def flush(self) -> None:
        """Write the rows recorded since the last flush (and drop rows past the bound)."""
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> int:
        """Write what is pending in one transaction; the newest row's id (0 if none was pending).

        A failed write (:class:`StoreUnavailable`) keeps the rows pending, summarised once."""
        now = self.clock()
        self._flushed_at = now
        if not self._pending:
            return 0
        self._retry_at = now + FLUSH_EVERY_S
        rows: list[tuple[Any, ...]] = [r.summarised() if isinstance(r, _Deferred) else r for r in self._pending]
        self._pending = list(rows)  # a retry writes these, not summarised again
        last = self.rows.write(rows, self.max_rows)  # StoreUnavailable: the rows stay pending for the next write
        self._pending = []
        self._retry_at = 0.0
        return last

    # -- reading --------------------------------------------------------------------------

    def latest(self, limit: int = 50, *, origin: str | None = None, tab_id: int | None = None) -> list[ActivityEntry]:
        """The newest rows first, optionally of one origin and/or one tab."""
        with self._lock:
            self._flush_locked()
            rows = self.rows.latest(max(0, limit), origin, tab_id)
        return [ActivityEntry(*row) for row in rows]

    def count(self) -> int:
        with self._lock:
            self._flush_locked()
            return self.rows.count()

    def close(self) -> None:
        self.flush()
        self.rows.close()
