"""``configure``: change how telemetry is kept, at run time (the config file is not rewritten).

Every change goes through :class:`TelemetrySettings` validation, so ``configure`` never leaves
settings the config file would have refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...capture.kinds import KINDS
from ..stores import SnapshotStore
from .answer import ToolAnswer, parse_args
from .availability import CONFIGURE_MODES
from .buffers import BufferKind
from .errors import InvalidTelemetryArguments, SessionStoreError
from .settings import DEFAULT_BUFFER_LIMITS, NoiseRule, RedactionSettings, TelemetrySettings, normalize_key
from .spec import ToolSpec
from .state import TelemetryState

__all__ = ["CONFIGURE_SPEC", "ConfigureArgs", "configure"]

ConfigureAction = Literal[
    "status",
    "noise",
    "clear",
    "buffers",
    "redaction",
    "exposure",
    "save_snapshot",
    "load_snapshot",
    "list_snapshots",
    "delete_snapshot",
]
CLEAR_KINDS: tuple[str, ...] = (*(k.buffer.value for k in KINDS), "api")
"""What ``configure(clear)`` can name: each capture kind's buffer, and the API schema store."""
if TYPE_CHECKING:
    ClearKind = str
else:
    ClearKind = Literal[CLEAR_KINDS]


class NoiseRuleInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    match: Literal["console", "url"]
    pattern: str = Field(min_length=1, max_length=1000,
                         description="Case-insensitive substring (or regex if regex=true).")
    regex: bool = False


class ConfigureArgs(BaseModel):
    """Arguments of ``configure`` (:data:`CONFIGURE_SPEC`'s input schema is derived from them)."""

    model_config = ConfigDict(extra="forbid")

    action: ConfigureAction
    op: Literal["add", "remove", "list", "clear", "reset"] | None = None
    rule: NoiseRuleInput | None = None
    rule_id: str | None = None
    kinds: list[ClearKind] | None = None
    tab_id: int | None = None
    # the bounds of sizes and max_bytes are the settings' (TelemetrySettings names the buffer in its
    # error); the listing says them too
    sizes: dict[str, int] | None = Field(
        None, description="Entries kept per tab: " + ", ".join(f"{k} ({v})" for k, v in DEFAULT_BUFFER_LIMITS.items()),
        json_schema_extra={"additionalProperties": {"type": "integer", "minimum": 1}})
    max_bytes: int | None = Field(None, description="Ceiling on all buffered telemetry.",
                                  json_schema_extra={"minimum": 65536})
    keys: list[str] | None = Field(None, description="Field/header name substrings.")
    exact_keys: list[str] | None = None
    patterns: list[str] | None = Field(None, description="Regular expressions.")
    card_numbers: bool | None = None
    enabled: bool | None = None
    name: str | None = Field(None, min_length=1, max_length=100, description="Snapshot name.")


CONFIGURE_SPEC = ToolSpec(
    name="configure",
    title="Configure browser telemetry",
    intro="Change how the bridge keeps browser telemetry (for this run; the config file is unchanged).",
    args=ConfigureArgs,
    mode_param="action",
    mode_help={
        "status": "settings, buffer counts, bytes used and drop counts",
        "noise": "ignore console messages or URLs: op add (rule), remove (rule_id), list, clear",
        "clear": "empty buffers (kinds, default all; 'api' = inferred schemas), optionally for one tab_id",
        "buffers": "set per-tab entry limits (sizes: {kind: n}) and the byte ceiling (max_bytes)",
        "redaction": "op add/remove keys, exact_keys or patterns (regex); op list or reset; card_numbers",
        "exposure": "enabled=false lists every telemetry tool and mode always; true filters to data",
        "save_snapshot": "store all current telemetry under name in the session database",
        "load_snapshot": "replace current telemetry with the snapshot called name",
        "list_snapshots": "stored snapshots",
        "delete_snapshot": "remove the snapshot called name",
    },
    annotations={
        "title": "Configure browser telemetry",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": False,
    },
)


def _updated(store: TelemetryState, **changes: Any) -> TelemetrySettings:
    data = store.settings.model_dump()
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    try:
        return TelemetrySettings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(settings)"
        raise InvalidTelemetryArguments(
            f"{where}: {err['msg'].removeprefix('Value error, ')}", field=where
        ) from None


def configure(
    store: TelemetryState,
    arguments: Mapping[str, Any] | ConfigureArgs,
    *,
    sessions: SnapshotStore | None = None,
) -> ToolAnswer:
    """Answer a ``configure`` call (``sessions``: the SQLite session store the snapshot actions need)."""
    args = arguments if isinstance(arguments, ConfigureArgs) else parse_args(ConfigureArgs, arguments)
    handler = _HANDLERS[args.action]
    return handler(store, args, sessions)


def _require(value: Any, field: str, action: str) -> Any:
    if value is None:
        raise InvalidTelemetryArguments(f"{action} needs {field}", field=field)
    return value


def _status(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    s = store.settings
    counts = store.counts()
    drops = store.buffers.drops()
    data: dict[str, Any] = {
        "action": "status",
        "dynamicExposure": s.dynamic_exposure,
        "buffers": s.buffers.model_dump(),
        "maxBytes": s.max_bytes,
        "bytesUsed": store.buffers.total_bytes,
        "counts": counts.to_dict(),
        "dropped": drops,
        "droppedByTab": {str(t): v for t, v in store.buffers.drop_table().items()},
        "noise": [r.model_dump() for r in s.noise],
        "redaction": s.redaction.model_dump(),
        "tabs": [t.to_dict() for t in store.tabs()],
        "currentTabId": store.current_tab_id,
        "checkpoints": [c.name for c in store.checkpoints()],
        "sessionStore": sessions.path if sessions else None,
    }
    lines = [
        f"Dynamic exposure: {'on' if s.dynamic_exposure else 'off'}.",
        f"Memory: {store.buffers.total_bytes:,} of {s.max_bytes:,} bytes.",
        "Held: " + ", ".join(f"{n} {k}" for k, n in data["counts"].items() if n)
        if counts.total
        else "Held: nothing yet.",
        "Dropped: " + (", ".join(f"{n} {r}" for r, n in drops.items()) if drops else "nothing") + ".",
        f"Noise rules: {len(s.noise)}; redaction keys: {len(s.redaction.keys)}, "
        f"patterns: {len(s.redaction.patterns)}.",
    ]
    return ToolAnswer(text="\n".join(lines), data=data)


def _noise(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    op = args.op or "list"
    rules = list(store.settings.noise)
    purged = 0
    if op == "add":
        rule_in = _require(args.rule, "rule", "noise add")
        used = {r.id for r in rules}
        n = len(rules) + 1
        while f"noise-{n}" in used:
            n += 1
        try:
            rule = NoiseRule(id=f"noise-{n}", **rule_in.model_dump())
        except ValidationError as exc:
            raise InvalidTelemetryArguments(
                exc.errors()[0]["msg"].removeprefix("Value error, "), field="rule"
            ) from None
        store.update_settings(_updated(store, noise=[r.model_dump() for r in [*rules, rule]]))
        purged = store.purge_noise()
        text = f"Added noise rule {rule.id} ({rule.match} ~ {rule.pattern!r}); {purged} entries removed."
    elif op == "remove":
        rule_id = _require(args.rule_id, "rule_id", "noise remove")
        if rule_id not in {r.id for r in rules}:
            raise InvalidTelemetryArguments(
                f"no noise rule {rule_id!r}", field="rule_id", known=[r.id for r in rules]
            )
        store.update_settings(_updated(store, noise=[r.model_dump() for r in rules if r.id != rule_id]))
        text = f"Removed noise rule {rule_id}."
    elif op == "clear":
        store.update_settings(_updated(store, noise=[]))
        text = f"Removed all {len(rules)} noise rules."
    elif op == "list":
        text = (
            "\n".join(f"{r.id}: {r.match} ~ {r.pattern!r}{' (regex)' if r.regex else ''}" for r in rules)
            or "No noise rules."
        )
    else:
        raise InvalidTelemetryArguments("noise takes op add, remove, list or clear", field="op")
    data = {
        "action": "noise",
        "op": op,
        "rules": [r.model_dump() for r in store.settings.noise],
        "purged": purged,
    }
    return ToolAnswer(text=text, data=data)


def _clear(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    kinds = None
    api: bool | None = None
    if args.kinds:
        kinds = [BufferKind(k) for k in args.kinds if k != "api"]
        api = "api" in args.kinds
    removed = store.clear(kinds, tab_id=args.tab_id, api=api)
    what = ", ".join(args.kinds) if args.kinds else "everything"
    where = f" of tab {args.tab_id}" if args.tab_id is not None else ""
    data = {"action": "clear", "kinds": args.kinds or "all", "tabId": args.tab_id, "removed": removed}
    return ToolAnswer(text=f"Cleared {what}{where}: {removed} entries removed.", data=data)


def _buffers(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    changes: dict[str, Any] = {}
    if args.sizes:
        unknown = sorted(set(args.sizes) - set(DEFAULT_BUFFER_LIMITS))
        if unknown:
            raise InvalidTelemetryArguments(
                f"unknown buffer kind(s): {', '.join(unknown)}",
                field="sizes",
                known=sorted(DEFAULT_BUFFER_LIMITS),
            )
        changes["buffers"] = args.sizes
    if args.max_bytes is not None:
        changes["max_bytes"] = args.max_bytes
    before = sum(store.buffers.drops().values())
    if changes:
        store.update_settings(_updated(store, **changes))
    evicted = sum(store.buffers.drops().values()) - before
    data: dict[str, Any] = {
        "action": "buffers",
        "buffers": store.settings.buffers.model_dump(),
        "maxBytes": store.settings.max_bytes,
        "evicted": evicted,
    }
    sizes = ", ".join(f"{k} {v}" for k, v in data["buffers"].items())
    text = f"Buffers (entries per tab): {sizes}; ceiling {store.settings.max_bytes:,} bytes."
    if evicted:
        text += f" Shrinking evicted {evicted} entries."
    return ToolAnswer(text=text, data=data)


def _redaction(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    op = args.op or "list"
    current = store.settings.redaction
    if op in ("add", "remove"):
        given = {f: getattr(args, f) for f in ("keys", "exact_keys", "patterns") if getattr(args, f)}
        if not given and args.card_numbers is None:
            raise InvalidTelemetryArguments(
                f"redaction {op} needs keys, exact_keys or patterns", field="keys"
            )
        data = current.model_dump()
        for field, values in given.items():
            if op == "add":
                data[field] = [*data[field], *(v for v in values if v not in data[field])]
            else:
                if field != "patterns":
                    values = [normalize_key(v) for v in values]
                data[field] = [v for v in data[field] if v not in values]
        if args.card_numbers is not None:
            data["card_numbers"] = args.card_numbers
        store.update_settings(_updated(store, redaction=data))
    elif op == "reset":
        store.update_settings(_updated(store, redaction=RedactionSettings().model_dump()))
    elif op == "list":
        if args.card_numbers is not None:
            store.update_settings(
                _updated(store, redaction={**current.model_dump(), "card_numbers": args.card_numbers})
            )
    else:
        raise InvalidTelemetryArguments("redaction takes op add, remove, list or reset", field="op")
    r = store.settings.redaction
    text = (
        f"Redaction ({op}): keys {', '.join(r.keys)}; exact keys {', '.join(r.exact_keys)}; "
        f"{len(r.patterns)} patterns; card numbers {'on' if r.card_numbers else 'off'}. "
        "Applies to telemetry received from now on."
    )
    return ToolAnswer(text=text, data={"action": "redaction", "op": op, "redaction": r.model_dump()})


def _exposure(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    if args.enabled is not None and args.enabled != store.settings.dynamic_exposure:
        store.update_settings(_updated(store, dynamic_exposure=args.enabled))
    on = store.settings.dynamic_exposure
    text = (
        "Dynamic exposure on: tools/list shows only telemetry modes with data."
        if on
        else "Dynamic exposure off: tools/list shows every telemetry tool and mode (empty ones explain why)."
    )
    return ToolAnswer(text=text, data={"action": "exposure", "enabled": on})


def _sessions(sessions: SnapshotStore | None) -> SnapshotStore:
    if sessions is None:
        raise SessionStoreError("no session store is configured, so snapshots are unavailable")
    return sessions


def _save(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    name = _require(args.name, "name", "save_snapshot")
    info = _sessions(sessions).save(name, store.export_snapshot())
    text = f"Saved snapshot {info.name!r}: {info.entries} entries, {info.stored_bytes:,} bytes stored."
    return ToolAnswer(text=text, data={"action": "save_snapshot", "snapshot": info.to_dict()})


def _load(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    name = _require(args.name, "name", "load_snapshot")
    restored = store.restore_snapshot(_sessions(sessions).load(name))
    text = f"Loaded snapshot {name!r}: {restored} entries now in the buffers (previous telemetry replaced)."
    return ToolAnswer(text=text, data={"action": "load_snapshot", "name": name, "entries": restored})


def _list(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    infos = _sessions(sessions).list()
    text = (
        "\n".join(f"{i.name}: {i.entries} entries, {i.stored_bytes:,} bytes" for i in infos)
        or "No snapshots."
    )
    return ToolAnswer(text=text, data={"action": "list_snapshots", "snapshots": [i.to_dict() for i in infos]})


def _delete(store: TelemetryState, args: ConfigureArgs, sessions: SnapshotStore | None) -> ToolAnswer:
    name = _require(args.name, "name", "delete_snapshot")
    gone = _sessions(sessions).delete(name)
    text = f"Deleted snapshot {name!r}." if gone else f"No snapshot named {name!r}."
    return ToolAnswer(text=text, data={"action": "delete_snapshot", "name": name, "deleted": gone})


_HANDLERS = {
    "status": _status,
    "noise": _noise,
    "clear": _clear,
    "buffers": _buffers,
    "redaction": _redaction,
    "exposure": _exposure,
    "save_snapshot": _save,
    "load_snapshot": _load,
    "list_snapshots": _list,
    "delete_snapshot": _delete,
}
assert set(_HANDLERS) == set(CONFIGURE_MODES)
