"""The telemetry store: ingests the extension's batches and answers every telemetry query.

One object per bridge, with no I/O and no asyncio: the server feeds it messages and reads it.
A tab's "current page load" is defined in docs/telemetry.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import ValidationError

from ...capture.kinds import KINDS, BufferKind, kind_of
from ...protocol import Telemetry
from ..registry import origin_of
from ..trust.text import Captured
from .api_schemas import ApiSchemas
from .availability import Signature, signature
from .buffers import DropReason, Entry, TelemetryBuffers, buffer_kind_of
from .connections import ConnectionTable
from .counts import DataCounts
from .errors import MalformedBatch, SnapshotFormatError
from .models import (
    ActionEvent,
    ConsoleEvent,
    ErrorEvent,
    Event,
    NavigationEvent,
    NetworkEvent,
    RejectedEvent,
    TelemetryBatch,
    VitalsEvent,
    WebSocketEvent,
    event_to_wire,
    parse_event,
)
from .noise import NoiseFilter
from .redact import Redactor
from .settings import TelemetrySettings

__all__ = ["SNAPSHOT_FORMAT", "Checkpoint", "IngestReport", "Scope", "TabState", "TelemetryState"]

Scope = Literal["page_load", "tab", "all"]
"""``page_load``: the tab's current page load; ``tab``: every load of the tab; ``all``: every tab."""

SNAPSHOT_FORMAT = "tabmcp.telemetry/1"

def _kind_of(event: Event) -> BufferKind:
    return kind_of(event).buffer


@dataclass
class TabState:
    """What the core knows about a tab (``observe(page)`` adds the extension's live answer)."""

    tab_id: int
    url: Captured = Captured("")  # noqa: RUF009  # a NewType: the string itself
    title: Captured | None = None
    document_id: str | None = None
    load_id: str | None = None
    load_started_at: float | None = None
    last_batch_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "tabId": self.tab_id,
            "url": self.url,
            "title": self.title,
            "documentId": self.document_id,
            "loadId": self.load_id,
            "loadStartedAt": self.load_started_at,
        }


@dataclass(frozen=True)
class IngestReport:
    """What one batch did: kept, rejected as malformed, ignored by noise rules, too large."""

    tab_id: int
    accepted: int
    rejected: int = 0
    ignored: int = 0
    oversize: int = 0
    page_dropped: int = 0
    availability_changed: bool = False


@dataclass(frozen=True)
class Checkpoint:
    name: str
    seq: int
    ts: float


class TelemetryState:
    """All telemetry the bridge holds, and the rules it was captured under (``clock``: epoch ms).

    Not thread-safe: call it from the bridge's event loop only.
    """

    def __init__(
        self, settings: TelemetrySettings | None = None, *, clock: Callable[[], float] | None = None
    ) -> None:
        self._settings = settings or TelemetrySettings()
        self._clock = clock or (lambda: time.time() * 1000.0)
        self.buffers = TelemetryBuffers(self._settings.buffers, self._settings.max_bytes)
        self.connections = ConnectionTable(self._settings.buffers.websocket_connections)
        self.api = ApiSchemas(self._settings.api_max_endpoints)
        self.redactor = Redactor(self._settings.redaction)
        self.noise = NoiseFilter(self._settings.noise)
        self._tabs: dict[int, TabState] = {}
        self._seq = 0
        self._checkpoints: dict[str, Checkpoint] = {}
        self._accessibility: dict[int, dict[str, Any]] = {}
        self.current_tab_id: int | None = None
        """The tab observe/analyze/generate default to: the last to send telemetry, unless
        the bridge calls :meth:`focus` with the tab the user is looking at."""
        self._listeners: list[Callable[[], None]] = []
        self._signature = self._compute_signature()

    # -- settings -------------------------------------------------------------------------

    @property
    def settings(self) -> TelemetrySettings:
        return self._settings

    def update_settings(self, settings: TelemetrySettings) -> None:
        """Apply new settings now: resize (evicting at once), recompile redaction and noise
        (which apply to events ingested from now on)."""
        self._settings = settings
        self.buffers.resize(settings.buffers, settings.max_bytes)
        self.connections.resize(settings.buffers.websocket_connections)
        self.api.resize(settings.api_max_endpoints)
        self.redactor = Redactor(settings.redaction)
        self.noise = NoiseFilter(settings.noise)
        self._check_availability()

    # -- change signal --------------------------------------------------------------------

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` (which must not raise) whenever data-driven availability (or the
        exposure switch) changes: the bridge's tools/list change notifier."""
        self._listeners.append(callback)

    @property
    def availability(self) -> Signature:
        return self._signature

    def _compute_signature(self) -> Signature:
        return signature(self.counts(), exposure_enabled=self._settings.dynamic_exposure)

    def _check_availability(self) -> bool:
        new = self._compute_signature()
        if new == self._signature:
            return False
        self._signature = new
        for callback in list(self._listeners):
            callback()
        return True

    # -- counts ---------------------------------------------------------------------------

    def counts(self) -> DataCounts:
        """Current data counts, all tabs (O(1): maintained counters only)."""
        return DataCounts.held(
            self.buffers.counts(), websocket_connections=self.connections.count, api_endpoints=len(self.api)
        )

    @property
    def seq(self) -> int:
        """Sequence number of the last event kept (0 before any)."""
        return self._seq

    def now(self) -> float:
        return self._clock()

    # -- tabs -----------------------------------------------------------------------------

    def tab(self, tab_id: int) -> TabState | None:
        return self._tabs.get(tab_id)

    def tabs(self) -> list[TabState]:
        return list(self._tabs.values())

    def focus(self, tab_id: int) -> None:
        """Make ``tab_id`` the default tab of telemetry queries (the tab the user looks at)."""
        self.current_tab_id = tab_id

    def set_tab_info(self, tab_id: int, *, url: str | None = None, title: str | None = None) -> None:
        """Record what the registry knows about a tab (the telemetry batches carry no title)."""
        state = self._tabs.setdefault(tab_id, TabState(tab_id))
        if url is not None:
            state.url = Captured(self.redactor.url(url))
        if title is not None:
            state.title = Captured(title)

    def forget_tab(self, tab_id: int) -> None:
        """Drop everything about a tab (the bridge decides when: tab closed, user request)."""
        self.buffers.clear(tab_id=tab_id)
        self.connections.clear(tab_id)
        self._tabs.pop(tab_id, None)
        self._accessibility.pop(tab_id, None)
        if self.current_tab_id == tab_id:
            self.current_tab_id = next(reversed(self._tabs), None)
        self._check_availability()

    def resolve_tab(self, tab_id: int | None) -> int | None:
        """The tab a query is about: the one named, else the current tab (None if no telemetry)."""
        return tab_id if tab_id is not None else self.current_tab_id

    # -- ingest ---------------------------------------------------------------------------

    def ingest(self, message: TelemetryBatch | Telemetry | Mapping[str, Any]) -> IngestReport:
        """Take one ``telemetry`` batch from the extension; malformed events are skipped and
        counted, and an unusable envelope raises :class:`MalformedBatch`."""
        batch = self._parse_batch(message)
        now = self._clock()
        tab = self._tabs.setdefault(batch.tab_id, TabState(batch.tab_id))
        tab.last_batch_at = now
        self.current_tab_id = batch.tab_id
        if batch.title:
            tab.title = batch.title
        batch_url = Captured(
            self.redactor.url(batch.url) if batch.url and self._where_the_tab_is(batch, batch.url) else "")
        # Events before a navigation in this batch happened where the previous batch left
        # the tab; the batch's own URL is where the tab is as it leaves the page.
        page_url = tab.url or batch_url
        events, rejected = self._parse_events(batch)
        events = [self._attribute(batch, e) for e in events]

        if batch.document_id and batch.document_id != tab.document_id:
            starts_load = any(isinstance(e, NavigationEvent) and e.new_document and not e.page_reported for e in events)
            if tab.document_id is not None and not starts_load:
                tab.load_id = f"doc:{batch.document_id}"
                tab.load_started_at = events[0].ts if events else now
            tab.document_id = batch.document_id

        console_errors = {
            e.message for e in events if isinstance(e, ErrorEvent) and e.error_type == "console"
        }
        accepted = ignored = oversize = 0
        for event in events:
            if self.noise.matches(event):
                ignored += 1
                self.buffers.note_drop(tab.tab_id, _kind_of(event).value, DropReason.IGNORED)
                continue
            if isinstance(event, NavigationEvent) and not event.page_reported:
                tab.url = event.url
                page_url = event.url
                if event.new_document:
                    tab.load_id = event.load_id
                    tab.load_started_at = event.ts
            if self._keep(tab, event, page_url):
                accepted += 1
            else:
                oversize += 1
            if (
                isinstance(event, ConsoleEvent)
                and event.level == "error"
                and event.text not in console_errors
            ):
                # Errors must survive a log flood, so a console.error the page did not also
                # report as an error event is kept in the errors buffer too.
                twin = ErrorEvent(ts=event.ts, message=event.text, source=event.source, error_type="console")
                self._keep(tab, twin, page_url)

        if batch_url:
            tab.url = batch_url
        page_dropped = 0
        for kind, n in batch.dropped.items():
            self.buffers.note_drop(tab.tab_id, buffer_kind_of(kind), DropReason.PAGE, n)
            page_dropped += n
        changed = self._check_availability()
        return IngestReport(tab.tab_id, accepted, rejected, ignored, oversize, page_dropped, changed)

    @staticmethod
    def _where_the_tab_is(batch: TelemetryBatch, url: str) -> bool:
        """May this URL move the tab? Not from a batch the page posted itself, nor to another
        origin than the document's (Chrome's word, when the extension sent it)."""
        if batch.page_reported:
            return False
        return not batch.origin or batch.origin == "null" or origin_of(url) == batch.origin

    def _attribute(self, batch: TelemetryBatch, event: Event) -> Event:
        """Who wrote the event: the capture, or the page (``page_reported``). Whatever the event
        says about itself is overwritten. A navigation or an action is where the document is, so
        one claiming another origin than the document's was written by the page."""
        claims_elsewhere = isinstance(event, NavigationEvent | ActionEvent) and not self._where_the_tab_is(
            batch, event.url
        )
        page_reported = True if batch.page_reported or claims_elsewhere else None
        if event.page_reported == page_reported:
            return event
        return event.model_copy(update={"page_reported": page_reported})

    def _parse_events(self, batch: TelemetryBatch) -> tuple[list[Event], int]:
        """Valid events, redacted; rejected ones (malformed, unknown kinds) are counted as drops."""
        events: list[Event] = []
        rejected = 0
        for event in batch.events:
            if isinstance(event, RejectedEvent):
                rejected += 1
                self.buffers.note_drop(batch.tab_id, buffer_kind_of(event.kind), DropReason.REJECTED)
            else:
                events.append(self.redactor.event(event))
        return events, rejected

    @staticmethod
    def _parse_batch(message: TelemetryBatch | Telemetry | Mapping[str, Any]) -> TelemetryBatch:
        if isinstance(message, TelemetryBatch):
            return message
        if isinstance(message, Telemetry):  # the link's message, its events parsed already
            return TelemetryBatch.model_construct(**dict(message))
        if not isinstance(message, Mapping):
            raise MalformedBatch("a telemetry message must be a JSON object")
        try:
            return TelemetryBatch.model_validate(dict(message))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(root)"
            raise MalformedBatch(f"bad telemetry batch at {where}: {first['msg']}") from exc

    def _keep(self, tab: TabState, event: Event, page_url: Captured) -> bool:
        """Buffer one redacted event (and feed the derived tables); False if too large."""
        kind = _kind_of(event)
        fitted = _fit(event, self._settings.max_event_bytes)
        if fitted is None:
            self.buffers.note_drop(tab.tab_id, kind.value, DropReason.OVERSIZE)
            return False
        event, size = fitted
        self._seq += 1
        load_id = event.load_id if isinstance(event, VitalsEvent) else tab.load_id
        self.buffers.append(kind, Entry(self._seq, tab.tab_id, load_id, page_url, event, size))
        if isinstance(event, WebSocketEvent):
            self.connections.update(tab.tab_id, load_id, event, self._seq)
        elif isinstance(event, NetworkEvent):
            self.api.observe(event, self._seq)
        return True

    # -- reading --------------------------------------------------------------------------

    def select(
        self, kind: BufferKind, *, scope: Scope = "page_load", tab_id: int | None = None
    ) -> list[Entry]:
        """Entries of one kind in ingest order, for a scope (empty when no tab is known yet)."""
        if scope == "all":
            return list(self.buffers.entries(kind))
        tid = self.resolve_tab(tab_id)
        if tid is None:
            return []
        entries = list(self.buffers.entries(kind, tid))
        if scope == "tab":
            return entries
        load = self._tabs[tid].load_id if tid in self._tabs else None
        return [e for e in entries if e.load_id == load]

    # -- checkpoints ----------------------------------------------------------------------

    def checkpoint(self, name: str) -> Checkpoint | None:
        return self._checkpoints.get(name)

    def set_checkpoint(self, name: str) -> Checkpoint:
        """Mark "now" under ``name``; ``analyze(changes)`` reports what came after it."""
        cp = Checkpoint(name, self._seq, self._clock())
        self._checkpoints[name] = cp
        return cp

    def checkpoints(self) -> list[Checkpoint]:
        return list(self._checkpoints.values())

    # -- accessibility --------------------------------------------------------------------

    def set_accessibility(self, tab_id: int, results: dict[str, Any]) -> None:
        """Cache the latest ``axe.run()`` result of a tab (for generate(sarif) and summaries)."""
        self._accessibility[tab_id] = {"results": results, "at": self._clock()}

    def accessibility(self, tab_id: int | None) -> dict[str, Any] | None:
        tid = self.resolve_tab(tab_id)
        cached = self._accessibility.get(tid) if tid is not None else None
        return cached["results"] if cached else None

    # -- clearing -------------------------------------------------------------------------

    def clear(
        self, kinds: Iterable[BufferKind] | None = None, *, tab_id: int | None = None, api: bool | None = None
    ) -> int:
        """Forget buffered entries (and drop counts); returns how many went. ``api`` also empties
        the schema store (by default only when clearing everything)."""
        chosen = list(kinds) if kinds is not None else None
        removed = self.buffers.clear(chosen, tab_id)
        if chosen is None or BufferKind.WEBSOCKET in chosen:
            self.connections.clear(tab_id)
        if api if api is not None else chosen is None:
            self.api.clear()
        if chosen is None:
            if tab_id is None:
                self._accessibility.clear()
                self._checkpoints.clear()
            else:
                self._accessibility.pop(tab_id, None)
        self._check_availability()
        return removed

    def purge_noise(self) -> int:
        """Apply the current noise rules to what is already buffered."""
        if not self.noise:
            return 0
        kinds = [k.buffer for k in KINDS if k.noise]
        removed = self.buffers.remove_where(lambda e: self.noise.matches(e.event), kinds)
        self._check_availability()
        return removed

    # -- snapshots ------------------------------------------------------------------------

    def export_snapshot(self) -> dict[str, Any]:
        """Everything needed to restore this store later, as JSON-ready data."""
        entries: list[dict[str, Any]] = []
        for kind in BufferKind:
            for e in self.buffers.entries(kind):
                entries.append(
                    {
                        "seq": e.seq,
                        "tabId": e.tab_id,
                        "loadId": e.load_id,
                        "pageUrl": e.page_url,
                        "event": event_to_wire(e.event),
                    }
                )
        entries.sort(key=lambda row: row["seq"])
        return {
            "format": SNAPSHOT_FORMAT,
            "savedAt": self._clock(),
            "seq": self._seq,
            "currentTabId": self.current_tab_id,
            "tabs": [asdict(t) for t in self._tabs.values()],
            "entries": entries,
            "connections": self.connections.export(),
            "api": self.api.export(),
            "drops": {str(t): kinds for t, kinds in self.buffers.drop_table().items()},
            "accessibility": {str(t): a for t, a in self._accessibility.items()},
            "checkpoints": [asdict(c) for c in self._checkpoints.values()],
        }

    def restore_snapshot(self, data: Mapping[str, Any]) -> int:
        """Replace the store's data with a snapshot's (already redacted at ingest); returns the
        number of entries restored, or raises :class:`SnapshotFormatError`."""
        if data.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotFormatError(
                f"unsupported snapshot format {data.get('format')!r}", expected=SNAPSHOT_FORMAT
            )
        try:
            tabs = [TabState(**t) for t in data["tabs"]]
            rows = []
            for row in data["entries"]:
                event = parse_event(row["event"])
                if event is None:
                    raise ValueError(f"unreadable event at seq {row.get('seq')}")
                size = len(event.model_dump_json())
                rows.append(
                    Entry(int(row["seq"]), int(row["tabId"]), row["loadId"], row["pageUrl"], event, size)
                )
        except (KeyError, TypeError, ValueError) as exc:
            raise SnapshotFormatError(f"corrupt snapshot: {exc}") from exc
        self.buffers.clear()
        self.connections.clear()
        self.api.clear()
        self._tabs = {t.tab_id: t for t in tabs}
        for entry in rows:
            self.buffers.append(_kind_of(entry.event), entry)
        self.connections.restore(data.get("connections", []))
        self.api.restore(data.get("api", []))
        for tab, kinds in data.get("drops", {}).items():
            for kind, reasons in kinds.items():
                for reason, n in reasons.items():
                    self.buffers.note_drop(int(tab), kind, DropReason(reason), n)
        self._accessibility = {int(t): a for t, a in data.get("accessibility", {}).items()}
        self._checkpoints = {c["name"]: Checkpoint(**c) for c in data.get("checkpoints", [])}
        self._seq = max(int(data.get("seq", 0)), max((e.seq for e in rows), default=0))
        self.current_tab_id = data.get("currentTabId")
        self._check_availability()
        return len(rows)


def _fit(event: Event, max_bytes: int) -> tuple[Event, int] | None:
    """The event and its size, its large text fields cut if needed (its kind's ``shrink``);
    None if hopeless."""
    size = len(event.model_dump_json())
    if size <= max_bytes:
        return event, size
    event = event.shrink(max_bytes // 4)
    size = len(event.model_dump_json())
    return (event, size) if size <= max_bytes else None
