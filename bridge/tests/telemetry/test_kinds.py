"""Capture kinds as data: every part of the telemetry core follows the records in tabmcp/capture/kinds.py."""

from __future__ import annotations

import typing
from typing import Any, Literal, get_args, get_origin

import pytest
from pydantic import BaseModel
from tabmcp.capture.kinds import EVICTION_ORDER, KINDS, BufferKind, Event, Redact, capture_kind
from tabmcp.core.telemetry import TelemetrySettings, TelemetryState
from tabmcp.core.telemetry.availability import OBSERVE_MODES, available_modes
from tabmcp.core.telemetry.configure import CLEAR_KINDS
from tabmcp.core.telemetry.counts import DataCounts
from tabmcp.core.telemetry.redact import Redactor
from tabmcp.core.telemetry.timeline import TIMELINE_KINDS
from tabmcp.protocol import Telemetry
from tabmcp.protocol_js import render

R = "[REDACTED]"
SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123"

# Fields of the kinds' models that are free text from the page yet not redacted, and why.
PLAIN: dict[str, frozenset[str]] = {
    "network": frozenset({"request_id", "method", "mime_type"}),  # ids the capture makes, a verb, a media type
    "websocket": frozenset({"connection_id"}),  # an id the capture makes
    "action": frozenset({"key", "tag"}),  # a key name, an element's tag
    "vitals": frozenset({"load_id", "navigation"}),  # navigation timing: numbers and its type
    "navigation": frozenset({"load_id"}),
}


def _text_fields(model: type[BaseModel]) -> set[str]:
    """Fields that can hold free text (str, a list / dict of str, a nested model with str)."""

    def texty(tp: Any) -> bool:
        origin = get_origin(tp)
        if tp is str:
            return True
        if origin is Literal:
            return False
        if origin in (typing.Union, __import__("types").UnionType, list, dict):
            return any(texty(a) for a in get_args(tp))
        return isinstance(tp, type) and issubclass(tp, BaseModel) and any(
            texty(f.annotation) for name, f in tp.model_fields.items() if name != "kind"
        )

    return {name for name, f in model.model_fields.items() if name != "kind" and texty(f.annotation)}


def test_one_record_per_kind_and_buffer_and_the_wire_union_has_them_all() -> None:
    for k in KINDS:
        assert isinstance(k.model.model_validate(_sample(k.name)), k.model)  # its example is one of it
    (union, _) = get_args(Event)
    assert set(get_args(union)) == {k.model for k in KINDS}
    assert [k.buffer for k in KINDS] == list(dict.fromkeys(k.buffer for k in KINDS))  # one kind per buffer
    assert set(BufferKind) == {k.buffer for k in KINDS}
    for k in KINDS:
        assert k.model.model_fields["kind"].default == k.name
        assert capture_kind(k.name) is k
        assert 1 <= k.cap <= k.max_cap and k.page_cap >= 1


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_free_text_field_of_a_kind_is_redacted_or_declared_plain(kind) -> None:
    assert _text_fields(kind.model) - set(kind.redact) - PLAIN.get(kind.name, frozenset()) == set()
    assert set(kind.redact) <= set(kind.model.model_fields)


@pytest.mark.parametrize("kind", [k for k in KINDS if k.redact], ids=lambda k: k.name)
def test_redaction_rewrites_each_field_its_record_names(kind) -> None:
    """A secret put in any one field the record names is gone after redaction."""
    redactor = Redactor()
    base = _sample(kind.name)
    for name, rule in kind.redact.items():
        value = {
            Redact.TEXT: f"token {SECRET}",
            Redact.URL: f"https://shop.test/?token={SECRET}",
            Redact.BODY: f'{{"password": "{SECRET}"}}',
            Redact.BODIES: [f"password={SECRET}"],
            Redact.HEADERS: {"Authorization": SECRET},
            Redact.SOURCE: {"url": f"https://shop.test/a.js?token={SECRET}"},
            Redact.INPUT: SECRET,
            Redact.SELECTORS: {"name": f"token {SECRET}", "css": "#t"},
        }[rule]
        if rule is Redact.INPUT:
            base = {**base, "selectors": {"label": "api-token", "css": "#t"}}
        event = kind.model.model_validate({**base, _alias(kind.model, name): value})
        redacted = redactor.event(event)  # type: ignore[arg-type]
        assert SECRET not in redacted.model_dump_json(), (kind.name, name)
        assert SECRET in event.model_dump_json()


def test_the_core_follows_the_records() -> None:
    settings = TelemetrySettings()
    assert {k.buffer.value: settings.buffers.of(k.buffer) for k in KINDS} == {k.buffer.value: k.cap for k in KINDS}
    assert EVICTION_ORDER[0] == min(KINDS, key=lambda k: k.evict_rank).buffer
    assert EVICTION_ORDER[-1] == BufferKind.ERRORS  # errors survive a log flood
    assert {k.observe.mode for k in KINDS if k.observe} <= set(OBSERVE_MODES)
    assert set(CLEAR_KINDS) == {k.buffer.value for k in KINDS} | {"api"}
    assert set(TIMELINE_KINDS) == {k.buffer.value for k in KINDS if k.timeline}
    always = {k.observe.mode for k in KINDS if k.observe and k.observe.always}
    assert always <= set(available_modes(DataCounts())["observe"])
    with_data = available_modes(DataCounts(**{k.buffer.value: 1 for k in KINDS}))["observe"]
    assert {k.observe.mode for k in KINDS if k.observe} <= set(with_data)


def test_each_kind_lands_in_its_buffer_and_its_count() -> None:
    store = TelemetryState(TelemetrySettings())
    report = store.ingest({"tabId": 1, "url": "https://shop.test/", "events": [_sample(k.name) for k in KINDS]})
    assert report.accepted == len(KINDS) and report.rejected == 0
    for k in KINDS:
        assert store.counts().of(k.buffer) >= 1, k.name


def test_a_batch_on_the_wire_carries_typed_events_and_keeps_a_bad_one_apart() -> None:
    message = Telemetry.model_validate({
        "type": "telemetry", "tabId": 3,
        "events": [_sample("console"), {"kind": "console", "ts": 1}, {"kind": "idb", "ts": 1}, "x"],
    })
    assert [type(e).__name__ for e in message.events] == ["ConsoleEvent", "RejectedEvent", "RejectedEvent",
                                                         "RejectedEvent"]
    assert [e.kind for e in message.events] == ["console", "console", "idb", "unknown"]
    store = TelemetryState(TelemetrySettings())
    report = store.ingest(message)
    assert (report.accepted, report.rejected) == (1, 3)
    assert store.buffers.drops(3) == {"rejected": 3}


def test_the_extension_gets_the_kinds_and_their_page_caps() -> None:
    text = render()
    for k in KINDS:
        assert f"{k.name}: Object.freeze({{ buffer: '{k.buffer.value}', pageCap: {k.page_cap} }})" in text


def _alias(model: type[BaseModel], name: str) -> str:
    return model.model_fields[name].alias or name


def _sample(kind: str) -> dict[str, Any]:
    record = capture_kind(kind)
    assert record is not None
    return {"kind": kind, "ts": 1_700_000_000_000, **record.example}


GENERIC = ("buffers.py", "settings.py", "redact.py", "configure.py", "definitions.py", "availability.py", "timeline.py")
"""Telemetry modules that serve every kind alike: a new kind needs no line in them."""


def test_the_generic_modules_name_no_kind() -> None:
    """What a kind is (its model, its buffer) is said in its record only, so adding one touches
    tabmcp/capture/kinds.py, its page script and the manifest, and none of these."""
    import ast
    from pathlib import Path

    import tabmcp.core.telemetry as telemetry

    kinds_names = {k.model.__name__ for k in KINDS} | {m.name for m in BufferKind}
    here = Path(telemetry.__file__).parent
    for name in GENERIC:
        tree = ast.parse((here / name).read_text(encoding="utf-8"))
        named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        named |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert named & kinds_names == set(), name
    queue = (Path(telemetry.__file__).parents[4] / "extension" / "page" / "queue.js").read_text(encoding="utf-8")
    assert not [k.name for k in KINDS if f"{k.name}:" in queue]  # its caps come from protocol.generated.js
