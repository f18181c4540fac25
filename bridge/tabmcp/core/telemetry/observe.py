"""``observe``: read what the browser recorded: errors, logs, requests, sockets, actions, vitals.

By default about the current tab's current page load, what the user is looking at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...capture.kinds import KINDS, CaptureKind
from .answer import ToolAnswer, fmt_time, parse_args
from .availability import OBSERVE_MODES
from .buffers import BufferKind, Entry
from .connections import ConnectionState
from .errors import InvalidTelemetryArguments
from .models import ConsoleEvent, NetworkEvent, VitalsEvent, WebSocketEvent, event_to_wire
from .spec import ToolSpec
from .state import Scope, TelemetryState

__all__ = ["OBSERVE_SPEC", "ObserveArgs", "entry_since", "observe", "scope_label"]

_VIEWS: dict[str, CaptureKind] = {k.observe.mode: k for k in KINDS if k.observe is not None}
"""Observe modes that read a capture kind's buffer, by mode (:mod:`tabmcp.capture.kinds`)."""

if TYPE_CHECKING:
    ObserveMode = str
else:
    ObserveMode = Literal[OBSERVE_MODES]

_ALWAYS = frozenset(mode for mode, kind in _VIEWS.items() if kind.observe is not None and kind.observe.always)
"""Modes whose data may arrive any moment (errors, logs): their empty answer says so."""

_FILTERS: dict[str, frozenset[str]] = {
    **{mode: kind.observe.filters for mode, kind in _VIEWS.items() if kind.observe is not None},
    "websocket_status": frozenset({"url", "connection_id"}),
    "page": frozenset(),
}
_FILTER_NAMES = frozenset().union(*_FILTERS.values())

_LABEL = {
    **{mode: kind.observe.label for mode, kind in _VIEWS.items() if kind.observe is not None},
    "websocket_status": "WebSocket connections",
}

_HELP = {
    **{mode: kind.observe.help for mode, kind in _VIEWS.items() if kind.observe is not None},
    "websocket_status": "one row per WebSocket connection: state, message and byte counts",
    "page": "the tab's URL, title and page-load id",
}


class ObserveArgs(BaseModel):
    """Arguments of ``observe`` (:data:`OBSERVE_SPEC`'s input schema is derived from them)."""

    model_config = ConfigDict(extra="forbid")

    what: ObserveMode
    scope: Scope = Field(
        "page_load", description="page_load: current page load of the tab; tab: all its loads; all: every tab.")
    tab_id: int | None = Field(None, description="Tab to read; default: the current tab.")
    limit: int = Field(50, ge=1, le=1000)
    since: float | str | None = Field(
        None, description="Only entries after this epoch time in ms, or after this named checkpoint.")
    url: str | None = Field(None, description="Case-insensitive URL substring (request, socket or page URL).")
    method: str | None = Field(None, description="HTTP method (network).")
    status_min: int | None = Field(None, ge=0, le=999, description="Lowest status (network).")
    status_max: int | None = Field(None, ge=0, le=999, description="Highest status (network).")
    connection_id: str | None = Field(None, description="WebSocket connection id.")
    direction: Literal["in", "out"] | None = Field(None, description="WebSocket frame direction.")
    level: Literal["log", "info", "warn", "error", "debug"] | None = Field(None, description="Console level.")
    contains: str | None = Field(None, description="Case-insensitive text the message, body or frame contains.")
    include_bodies: bool = Field(False, description="Include request/response bodies.")

    @model_validator(mode="after")
    def _range(self) -> ObserveArgs:
        if self.status_min is not None and self.status_max is not None and self.status_min > self.status_max:
            raise ValueError("status_min is greater than status_max")
        return self


OBSERVE_SPEC = ToolSpec(
    name="observe",
    title="Observe browser telemetry",
    intro=(
        "Read what the browser tab recorded. Defaults to the current tab's current page load; "
        "scope='tab' covers every load of the tab, scope='all' every tab. Returns the most recent "
        "`limit` matches, oldest first, with drop counts when buffers overflowed."
    ),
    args=ObserveArgs,
    mode_param="what",
    mode_help={mode: _HELP[mode] for mode in OBSERVE_MODES},
    annotations={"title": "Observe browser telemetry", "readOnlyHint": True, "openWorldHint": False},
)


def scope_label(store: TelemetryState, scope: Scope, tab_id: int | None) -> str:
    """Human wording of a scope, for answers ("tab 3's current page load (https://...)")."""
    if scope == "all":
        return "in any tab"
    tab = store.tab(tab_id) if tab_id is not None else None
    where = f"tab {tab_id}" + (f" ({tab.url})" if tab and tab.url else "")
    return f"in {where}'s current page load" if scope == "page_load" else f"in {where}"


def entry_since(store: TelemetryState, since: float | str | None) -> Callable[[Entry], bool]:
    """A predicate for ``since``: epoch ms compares with event time, a name with a checkpoint."""
    if since is None:
        return lambda e: True
    if isinstance(since, str):
        cp = store.checkpoint(since)
        if cp is None:
            known = [c.name for c in store.checkpoints()]
            raise InvalidTelemetryArguments(
                f"no checkpoint named {since!r}", field="since", known=known or None
            )
        return lambda e: e.seq > cp.seq
    threshold = float(since)
    return lambda e: e.event.ts >= threshold


def _text_of(entry: Entry) -> str:
    return entry.event.search_text()


def _url_of(entry: Entry) -> str:
    return entry.event.where(entry.page_url)


def _filters(args: ObserveArgs) -> list[Callable[[Entry], bool]]:
    preds: list[Callable[[Entry], bool]] = []
    allowed = _FILTERS[args.what]
    if args.url and "url" in allowed:
        needle = args.url.lower()
        preds.append(lambda e: needle in _url_of(e).lower())
    if args.contains and "contains" in allowed:
        text = args.contains.lower()
        preds.append(lambda e: text in _text_of(e).lower())
    if args.level and "level" in allowed:
        preds.append(lambda e: isinstance(e.event, ConsoleEvent) and e.event.level == args.level)
    if args.what == "network":
        if args.method:
            method = args.method.upper()
            preds.append(lambda e: isinstance(e.event, NetworkEvent) and e.event.method == method)
        lo = args.status_min if args.status_min is not None else 0
        hi = args.status_max if args.status_max is not None else 999
        if args.status_min is not None or args.status_max is not None:
            preds.append(lambda e: isinstance(e.event, NetworkEvent) and lo <= e.event.status <= hi)
    if args.what == "websocket_events":
        if args.connection_id:
            preds.append(
                lambda e: isinstance(e.event, WebSocketEvent) and e.event.connection_id == args.connection_id
            )
        if args.direction:
            preds.append(
                lambda e: isinstance(e.event, WebSocketEvent) and e.event.direction == args.direction
            )
    return preds


def _ignored_filters(args: ObserveArgs) -> list[str]:
    given = {name for name in _FILTER_NAMES if getattr(args, name) not in (None, False)}
    return sorted(given - _FILTERS[args.what])


# -- item rendering ---------------------------------------------------------------------


def _item(entry: Entry, args: ObserveArgs) -> dict[str, Any]:
    data = event_to_wire(entry.event)
    data.pop("kind", None)
    if isinstance(entry.event, NetworkEvent) and not args.include_bodies:
        for key in ("requestBody", "responseBody"):
            body = data.pop(key, None)
            if body is not None:
                data[key + "Size"] = len(body)
    data["tabId"] = entry.tab_id
    if entry.load_id is not None:
        data["loadId"] = entry.load_id
    return data


def _line(entry: Entry, args: ObserveArgs) -> str:
    ev = entry.event
    # What the page's own scripts wrote (not the extension's capture) says so on every line.
    t = fmt_time(ev.ts) + (" [page-reported]" if ev.page_reported else "")
    return f"{t} {ev.line(include_bodies=args.include_bodies)}"


def _vitals(entries: list[Entry]) -> list[dict[str, Any]]:
    """One row per page load, each metric's latest value (the page re-reports as they settle)."""
    loads: dict[tuple[int, str], dict[str, Any]] = {}
    for e in entries:
        ev = e.event
        assert isinstance(ev, VitalsEvent)
        row = loads.setdefault(
            (e.tab_id, ev.load_id),
            {"tabId": e.tab_id, "loadId": ev.load_id, "url": e.page_url, "metrics": {}},
        )
        row["ts"] = ev.ts
        row["metrics"].update(ev.metrics.model_dump(by_alias=True, exclude_none=True))
        if ev.navigation:
            row["navigation"] = {**row.get("navigation", {}), **ev.navigation}
    return list(loads.values())


def _connection_rows(store: TelemetryState, args: ObserveArgs, tab_id: int | None) -> list[ConnectionState]:
    rows = store.connections.connections(None if args.scope == "all" else tab_id)
    if args.scope == "page_load" and tab_id is not None:
        tab = store.tab(tab_id)
        load = tab.load_id if tab else None
        rows = [c for c in rows if c.load_id == load]
    if args.url:
        rows = [c for c in rows if args.url.lower() in c.url.lower()]
    if args.connection_id:
        rows = [c for c in rows if c.connection_id == args.connection_id]
    if isinstance(args.since, str):
        entry_since(store, args.since)  # raises on an unknown checkpoint name
        cp = store.checkpoint(args.since)
        assert cp is not None
        rows = [c for c in rows if c.last_seq > cp.seq]
    elif args.since is not None:
        threshold = float(args.since)
        rows = [
            c for c in rows if max(x or 0 for x in (c.opened_at, c.closed_at, c.last_message_at)) >= threshold
        ]
    return rows


# -- entry point ------------------------------------------------------------------------


def observe(store: TelemetryState, arguments: Mapping[str, Any] | ObserveArgs) -> ToolAnswer:
    """Answer an ``observe`` call; once it returns, the bridge calls
    :meth:`ExposureState.note_observe` for the calling client."""
    args = arguments if isinstance(arguments, ObserveArgs) else parse_args(ObserveArgs, arguments)
    tab_id = store.resolve_tab(args.tab_id)
    if args.what == "page":
        return _page(store, tab_id)

    notes = [
        f"filter {name} does not apply to {args.what} and was ignored" for name in _ignored_filters(args)
    ]
    base: dict[str, Any] = {"what": args.what, "scope": args.scope, "tabId": tab_id}
    if tab_id is not None and (tab := store.tab(tab_id)) is not None:
        base["loadId"] = tab.load_id

    if args.what == "websocket_status":
        rows = _connection_rows(store, args, tab_id)
        shown = rows[-args.limit :]
        items = [c.to_dict() for c in shown]
        lines = [
            f"{c.connection_id} {c.state} {c.url} in:{c.messages_in} out:{c.messages_out}"
            + (" (estimated)" if c.sampled_every else "")
            + (f" closed code {c.code}" if c.code is not None else "")
            for c in shown
        ]
        return _finish(store, args, tab_id, base, items, lines, len(rows), notes, BufferKind.WEBSOCKET)

    kind = _VIEWS[args.what].buffer
    entries = store.select(kind, scope=args.scope, tab_id=tab_id)
    in_scope = len(entries)
    since = entry_since(store, args.since)
    preds = [since, *_filters(args)]
    matched = [e for e in entries if all(p(e) for p in preds)]
    if args.what == "vitals":
        rows_v = _vitals(matched)
        shown_v = rows_v[-args.limit :]
        lines = [
            f"load {r['loadId']} {r['url']}: "
            + ", ".join(f"{k} {v:.3g}" if k == "CLS" else f"{k} {v:.0f} ms" for k, v in r["metrics"].items())
            for r in shown_v
        ]
        return _finish(store, args, tab_id, base, shown_v, lines, len(rows_v), notes, kind, in_scope)
    latest = matched[-args.limit :]
    items = [_item(e, args) for e in latest]
    lines = [_line(e, args) for e in latest]
    return _finish(store, args, tab_id, base, items, lines, len(matched), notes, kind, in_scope)


def _finish(
    store: TelemetryState,
    args: ObserveArgs,
    tab_id: int | None,
    base: dict[str, Any],
    items: list[dict[str, Any]],
    lines: list[str],
    matched: int,
    notes: list[str],
    kind: BufferKind,
    in_scope: int | None = None,
) -> ToolAnswer:
    dropped = store.buffers.drops(None if args.scope == "all" else tab_id, kind.value)
    data = {
        **base,
        "returned": len(items),
        "matched": matched,
        "items": items,
        "dropped": dropped,
        "notes": notes,
    }
    label = _LABEL[args.what]
    where = scope_label(store, args.scope, tab_id)
    if not items:
        data["message"] = _empty_message(store, args, tab_id, label, where, in_scope)
        head = data["message"]
    else:
        more = f" (showing the last {len(items)})" if matched > len(items) else ""
        head = f"{matched} {label} {where}{more}:"
    tail = []
    if dropped:
        tail.append("Dropped so far: " + ", ".join(f"{n} {reason}" for reason, n in dropped.items()) + ".")
    tail.extend(f"Note: {n}." for n in notes)
    text = "\n".join([head, *lines, *tail])
    return ToolAnswer(text=text, data=data, empty=not items)


def _empty_message(
    store: TelemetryState,
    args: ObserveArgs,
    tab_id: int | None,
    label: str,
    where: str,
    in_scope: int | None,
) -> str:
    if tab_id is None and args.scope != "all":
        return (
            f"No {label} yet: no tab has sent telemetry. Check that the tabmcp extension is "
            "connected and the page is open, then use the page."
        )
    msg = f"No {label} {where}"
    if in_scope:
        msg += f" match the filters ({in_scope} before filtering)"
    msg += "."
    if args.what == "websocket_status":
        in_tab, anywhere = store.connections.count_for(tab_id or 0), store.connections.count
    else:
        in_tab, anywhere = (
            store.buffers.count(_VIEWS[args.what].buffer, tab_id),
            store.buffers.count(_VIEWS[args.what].buffer),
        )
    if args.scope == "page_load" and in_tab and not in_scope:
        msg += f" This tab has {in_tab} from earlier page loads: try scope='tab'."
    elif args.scope != "all" and anywhere > in_tab and not in_scope:
        msg += f" Other tabs have {anywhere - in_tab}: try scope='all'."
    elif args.what in _ALWAYS:
        msg += " They are captured as soon as the page produces them."
    else:
        msg += " Use the page (or reload it) to produce some, then observe again."
    return msg


def _page(store: TelemetryState, tab_id: int | None) -> ToolAnswer:
    if tab_id is None or store.tab(tab_id) is None:
        data: dict[str, Any] = {"what": "page", "tabId": tab_id, "live": True, "known": False}
        return ToolAnswer(
            text="No telemetry from any tab yet; the extension's live page answer follows if available.",
            data=data,
            empty=True,
        )
    tab = store.tab(tab_id)
    assert tab is not None
    counts = {k.value: store.buffers.count(k, tab_id) for k in BufferKind}
    data = {"what": "page", **tab.to_dict(), "counts": counts, "live": True, "known": True}
    buffered = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing"
    text = (
        f"Tab {tab_id}: {tab.title or '(title unknown)'} — {tab.url or '(url unknown)'}\n"
        f"Page load: {tab.load_id or '(none seen)'}; buffered: {buffered}."
    )
    return ToolAnswer(text=text, data=data)
