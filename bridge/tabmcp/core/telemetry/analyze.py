"""``analyze``: answers that need more than a listing: performance, API, accessibility, changes, timeline."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from .accessibility import check_axe_results, summarize_axe
from .answer import ToolAnswer, fmt_time, parse_args
from .api_schemas import template_path
from .availability import ANALYZE_MODES
from .buffers import BufferKind, Entry
from .models import ConsoleEvent, ErrorEvent, NavigationEvent, NetworkEvent
from .observe import entry_since
from .spec import ToolSpec
from .state import Scope, TelemetryState
from .timeline import DEFAULT_TIMELINE_KINDS, TIMELINE_KINDS, timeline
from .vitals import performance_report

__all__ = ["ANALYZE_SPEC", "DEFAULT_CHECKPOINT", "AnalyzeArgs", "analyze"]

AnalyzeTarget = Literal["performance", "api", "accessibility", "changes", "timeline"]
if TYPE_CHECKING:
    TimelineKind = str
else:  # the capture kinds that go on the timeline (capture/kinds.py): a new one is accepted as soon as it is listed
    TimelineKind = Literal[TIMELINE_KINDS]

DEFAULT_CHECKPOINT = "default"
_DEFAULT_SCOPE: dict[str, Scope] = {
    "performance": "page_load",
    "api": "all",
    "accessibility": "page_load",
    "changes": "tab",
    "timeline": "page_load",
}
assert set(_DEFAULT_SCOPE) == set(ANALYZE_MODES)


class AnalyzeArgs(BaseModel):
    """Arguments of ``analyze`` (:data:`ANALYZE_SPEC`'s input schema is derived from them)."""

    model_config = ConfigDict(extra="forbid")

    target: AnalyzeTarget
    scope: Scope | None = Field(
        None, description="Default: page_load (performance, timeline), tab (changes), all (api).")
    tab_id: int | None = Field(None, description="Tab to analyze; default: the current tab.")
    limit: int = Field(100, ge=1, le=2000)
    url: str | None = Field(None, description="api: only endpoints whose URL contains this.")
    checkpoint: str = Field(DEFAULT_CHECKPOINT, min_length=1, max_length=100,
                            description="changes: checkpoint name to compare against (unknown = since the start).")
    advance: bool = Field(True, description="changes: move the checkpoint to now.")
    include: list[TimelineKind] | None = Field(
        None, description="timeline: kinds to merge (default actions, network, errors, navigations).")
    since: float | str | None = Field(None, description="timeline: epoch ms or checkpoint name.")


ANALYZE_SPEC = ToolSpec(
    name="analyze",
    title="Analyze browser telemetry",
    intro="Derive findings from what the tab recorded.",
    args=AnalyzeArgs,
    mode_param="target",
    mode_help={
        "performance": "Core Web Vitals per page load rated against thresholds, long tasks, slow requests",
        "api": "endpoints (method + templated path), JSON Schemas inferred from bodies (filter: url)",
        "accessibility": "axe-core audit of the page: violations by impact with elements and fixes",
        "changes": "what is new since a checkpoint (errors, failed requests, endpoints...); moves it",
        "timeline": "actions, requests, errors and navigations merged in time order (include: kinds)",
    },
    annotations={"title": "Analyze browser telemetry", "readOnlyHint": True, "openWorldHint": False},
)


def analyze(
    store: TelemetryState,
    arguments: Mapping[str, Any] | AnalyzeArgs,
    *,
    axe_results: dict[str, Any] | None = None,
) -> ToolAnswer:
    """Answer an ``analyze`` call; ``axe_results`` (the page's fresh ``axe.run()`` result) is cached
    for the tab, and without it the cached one is used."""
    args = arguments if isinstance(arguments, AnalyzeArgs) else parse_args(AnalyzeArgs, arguments)
    scope = args.scope or _DEFAULT_SCOPE[args.target]
    tab_id = store.resolve_tab(args.tab_id)
    if args.target == "performance":
        return performance_report(store, scope=scope, tab_id=tab_id)
    if args.target == "api":
        return _api(store, args)
    if args.target == "accessibility":
        if axe_results is not None:
            axe_results = store.redactor.audit(check_axe_results(axe_results))  # page text
            if tab_id is not None:
                store.set_accessibility(tab_id, axe_results)
        results = axe_results if axe_results is not None else store.accessibility(tab_id)
        if results is None:
            text = "No accessibility audit of this tab yet: the bridge runs axe-core in the page on request."
            return ToolAnswer(text=text, data={"target": "accessibility", "message": text}, empty=True)
        return summarize_axe(results, limit=args.limit)
    if args.target == "changes":
        return _changes(store, args, scope, tab_id)
    kinds = tuple(args.include) if args.include else DEFAULT_TIMELINE_KINDS
    return timeline(
        store, scope=scope, tab_id=tab_id, limit=args.limit, kinds=kinds, keep=entry_since(store, args.since)
    )


def _api(store: TelemetryState, args: AnalyzeArgs) -> ToolAnswer:
    endpoints = store.api.endpoints(args.url)
    if not endpoints:
        text = (
            "No API endpoints inferred yet: they are learnt from fetch/XHR requests with JSON bodies. "
            "Use the page so it calls its API, then analyze again."
        )
        if args.url and len(store.api):
            text = f"No endpoint URL contains {args.url!r} ({len(store.api)} endpoints known)."
        return ToolAnswer(text=text, data={"target": "api", "endpoints": [], "message": text}, empty=True)
    shown = endpoints[: args.limit]
    lines = [f"{len(endpoints)} API endpoints inferred from JSON bodies:"]
    for ep in shown:
        statuses = ", ".join(f"{code}x{n}" for code, n in sorted(ep.statuses.items()))
        lines.append(f"- {ep.method} {ep.origin}{ep.path} ({ep.samples} samples; {statuses})")
        if ep.query_params:
            lines.append(f"    query: {', '.join(sorted(ep.query_params))}")
        if ep.request is not None:
            lines.append(f"    request: {_schema_outline(ep.request.to_schema())}")
        for code, builder in sorted(ep.responses.items()):
            lines.append(f"    response {code}: {_schema_outline(builder.to_schema())}")
    data = {"target": "api", "endpoints": [ep.to_dict() for ep in shown], "total": len(endpoints)}
    return ToolAnswer(text="\n".join(lines), data=data)


def _schema_outline(schema: dict[str, Any], depth: int = 0) -> str:
    """A compact one-line rendering of a JSON Schema (``{id: integer, tags: [string]}``)."""
    if depth > 3:
        return "…"
    if "anyOf" in schema:
        return " | ".join(_schema_outline(s, depth + 1) for s in schema["anyOf"])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        required = set(schema.get("required", []))
        props = schema.get("properties", {})
        parts = [
            f"{name}{'' if name in required else '?'}: {_schema_outline(sub, depth + 1)}"
            for name, sub in list(props.items())[:12]
        ]
        more = ", …" if len(props) > 12 else ""
        return "{" + ", ".join(parts) + more + "}"
    if kind == "array":
        return "[" + _schema_outline(schema.get("items", {}), depth + 1) + "]"
    if isinstance(kind, list):
        return " | ".join(kind)
    return str(kind or "any")


def _changes(store: TelemetryState, args: AnalyzeArgs, scope: Scope, tab_id: int | None) -> ToolAnswer:
    cp = store.checkpoint(args.checkpoint)
    since_seq = cp.seq if cp else 0

    def new(kind: BufferKind) -> list[Entry]:
        return [e for e in store.select(kind, scope=scope, tab_id=tab_id) if e.seq > since_seq]

    errors = [e.event for e in new(BufferKind.ERRORS) if isinstance(e.event, ErrorEvent)]
    logs = [e.event for e in new(BufferKind.LOGS) if isinstance(e.event, ConsoleEvent)]
    requests = [e.event for e in new(BufferKind.NETWORK) if isinstance(e.event, NetworkEvent)]
    navigations = [e.event for e in new(BufferKind.NAVIGATIONS) if isinstance(e.event, NavigationEvent)]
    actions = new(BufferKind.ACTIONS)
    vitals = new(BufferKind.VITALS)
    failed = Counter(
        f"{r.method} {template_path(_path(r.url))} → {r.status or 'failed'}" for r in requests if r.failed
    )
    error_groups = Counter(
        f"{e.error_type}: {e.message.splitlines()[0] if e.message else ''}" for e in errors
    )
    endpoints = [f"{ep.method} {ep.origin}{ep.path}" for ep in store.api.new_since(since_seq)]
    sockets = [
        c
        for c in store.connections.connections(None if scope == "all" else tab_id)
        if c.first_seq > since_seq
    ]
    levels = Counter(e.level for e in logs)
    data: dict[str, Any] = {
        "target": "changes",
        "checkpoint": args.checkpoint,
        "since": {"seq": since_seq, "ts": cp.ts if cp else None, "known": cp is not None},
        "scope": scope,
        "errors": {
            "count": len(errors),
            "groups": [{"message": m, "count": n} for m, n in error_groups.most_common(10)],
        },
        "console": dict(levels),
        "requests": {
            "count": len(requests),
            "failed": [{"request": k, "count": n} for k, n in failed.most_common(10)],
        },
        "newEndpoints": endpoints,
        "newWebSockets": [c.to_dict() for c in sockets],
        "navigations": [{"type": n.nav_type, "url": n.url} for n in navigations],
        "actions": len(actions),
        "vitals": len(vitals),
    }
    nothing = not (errors or logs or requests or navigations or actions or vitals or endpoints or sockets)
    where = f"checkpoint '{args.checkpoint}'" + (
        f" ({fmt_time(cp.ts)} UTC)" if cp else " (start of recording)"
    )
    if nothing:
        lines = [f"Nothing new since {where}."]
    else:
        lines = [f"Since {where}:"]
        if errors:
            lines.append(f"- {len(errors)} new error(s):")
            lines.extend(f"    {n}x {m}" for m, n in error_groups.most_common(10))
        if levels:
            lines.append("- console: " + ", ".join(f"{n} {lvl}" for lvl, n in levels.most_common()))
        if requests:
            lines.append(f"- {len(requests)} request(s), {sum(failed.values())} failed")
            lines.extend(f"    {n}x {k}" for k, n in failed.most_common(10))
        if endpoints:
            lines.append(f"- {len(endpoints)} new API endpoint(s): " + ", ".join(endpoints[:10]))
        if sockets:
            lines.append(
                f"- {len(sockets)} new WebSocket connection(s): " + ", ".join(c.url for c in sockets[:5])
            )
        if navigations:
            lines.append(f"- {len(navigations)} navigation(s), last to {navigations[-1].url}")
        if actions:
            lines.append(f"- {len(actions)} user action(s)")
        if vitals:
            lines.append(f"- {len(vitals)} Web Vitals report(s)")
    if args.advance:
        store.set_checkpoint(args.checkpoint)
        lines.append(f"Checkpoint '{args.checkpoint}' moved to now.")
    data["advanced"] = args.advance
    return ToolAnswer(text="\n".join(lines), data=data, empty=nothing)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else parts.path
