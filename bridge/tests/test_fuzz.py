"""Property-based fuzzing of the wire protocol, the registry and the hub (issue 5, "Bad input").

Three layers, no sockets (``test_bad_input.py`` does the same over real ones):

* :func:`tabmcp.protocol.parse_extension_message` on arbitrary bytes, text and JSON, and on
  generated valid messages of every extension → bridge type;
* :class:`tabmcp.core.registry.Registry` on arbitrary tab snapshots, and a
  ``RuleBasedStateMachine`` for sequences of apply / sync / remove / clear / clock ticks;
* :class:`tabmcp.server.hub.Hub` (the message mover a :class:`tabmcp.wiring.BridgeCore` owns) driven
  through ``handle_frame`` with a fake socket.

Runs are derandomized (the same examples every run, no example database) so CI is stable.
``TABMCP_FUZZ=deep`` explores at random with 20x the examples.

Inputs that once crashed the bridge are pinned by regression tests at the end of the file
("inputs that broke the bridge").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import types as pytypes
from collections.abc import Iterable
from typing import Any, Literal, NewType, Union, get_args, get_origin

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from pydantic import BaseModel
from tabmcp.core.models import (
    MAX_DESCRIPTION,
    MAX_SCHEMA_BYTES,
    MAX_STATES,
    MAX_TITLE,
    PageCategory,
    PageTool,
    Rejection,
    parse_category,
    parse_tool,
    schema_validator_class,
)
from tabmcp.core.registry import CategoryEntry, Registry, Tab, ToolEntry, is_qualified_form
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.core.tools import RESERVED_NAMES as BUILTIN_NAMES
from tabmcp.errors import EXTENSION_CODES, MalformedMessage, ProtocolError, ToolCallError, UnknownMessageType
from tabmcp.protocol import (
    MAX_TAB_ID,
    PROTOCOL_VERSION,
    ApprovalResult,
    CallResult,
    Chunk,
    ControlSet,
    ErrorBody,
    FormsSet,
    Hello,
    PageResult,
    PairingCredential,
    PairRequest,
    PanelQuery,
    Ping,
    Pong,
    SiteForget,
    SitePermission,
    SiteStatus,
    TabClosedMessage,
    TabSnapshot,
    TabsSync,
    TabUpdate,
    Telemetry,
    WireError,
    dump,
    parse_extension_message,
)
from tabmcp.server.hub import Link, LinkState
from tabmcp.wiring import BridgeCore

from .conftest import make_config
from .helpers import fuzz

KNOWN_TYPES = (
    "hello",
    "pair.request",
    "tabs.sync",
    "tab.update",
    "chunk",
    "tab.closed",
    "call.result",
    "approval.result",
    "forms.set",
    "telemetry",
    "page.result",
    "site.status",
    "site.permission",
    "site.forget",
    "panel.query",
    "control.set",
    "ping",
    "pong",
    "error",
)
PARSE_CODES = {"MALFORMED_MESSAGE", "UNKNOWN_TYPE"}
FRAME_CODES = {
    "MALFORMED_MESSAGE",
    "UNKNOWN_TYPE",
    "NOT_READY",
    "PROTOCOL_MISMATCH",
    "UNAUTHORIZED",
    "INVALID_TOOL",
}
"""The frame errors docs/protocol.md documents (FLOODED comes from the endpoint, not the hub)."""
CALL_CODES = {
    "TOOL_NOT_FOUND",
    "VALIDATION_ERROR",
    "WRITES_DISABLED",
    "APPROVAL_DENIED",
    "OUT_OF_SCOPE",
    "TIMEOUT",
    "TAB_CLOSED",
    "TAB_NAVIGATED",
    "EXTENSION_DISCONNECTED",
    "CANCELLED",
    "PAGE_ERROR",
    "BAD_RESULT",
}
HUB_RESERVED = BUILTIN_NAMES | frozenset(TELEMETRY_TOOLS)
NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
"""The documented name rule, applied with fullmatch (``^...$`` with ``match`` lets "name\\n" through)."""


def valid_name(name: Any) -> bool:
    return isinstance(name, str) and NAME.fullmatch(name) is not None


# -- JSON building blocks ----------------------------------------------------------------------

text = st.text(max_size=16)
finite = st.floats(allow_nan=False, allow_infinity=False)
safe_ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
tab_ids = st.integers(min_value=0, max_value=MAX_TAB_ID)
"""Browsers' tab ids are 32-bit; the protocol accepts no more (so several browsers' ids, qualified,
never meet: core/browsers.py). Bigger ones: test_huge_tab_ids_..."""

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | text
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=16,
)
"""Anything json.dumps can write, NaN and Infinity included (json.loads reads them)."""

plain_scalars = st.none() | st.booleans() | safe_ints | finite | text
plain_json = st.recursive(
    plain_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=12,
)
"""Strict JSON (finite numbers), for values that must survive a round trip unchanged."""
plain_objects = st.dictionaries(text, plain_json, max_size=4)

WIRE_KEYS = (
    "type",
    "protocol",
    "extensionVersion",
    "extensionId",
    "browser",
    "instanceId",
    "token",
    "tabs",
    "tab",
    "tabId",
    "windowId",
    "url",
    "title",
    "documentId",
    "active",
    "focused",
    "native",
    "tools",
    "categories",
    "states",
    "callId",
    "ok",
    "result",
    "error",
    "approvalId",
    "approved",
    "reason",
    "events",
    "dropped",
    "requestId",
    "ts",
    "code",
    "message",
    "ref",
    "details",
)


def message_like(type_values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object that looks like a message: a type and fields from the protocol, any values."""
    return st.builds(
        lambda kind, fields: {**fields, "type": kind},
        type_values,
        st.dictionaries(st.sampled_from(WIRE_KEYS[1:]) | text, json_values, max_size=6),
    )


def _mangle(frame: str, cut: int, junk: str) -> str:
    cut %= len(frame) + 1
    return frame[:cut] + junk + frame[cut + len(junk) :]


# -- valid extension → bridge messages ----------------------------------------------------------

opt_text = st.none() | text
error_bodies = st.builds(ErrorBody, code=text, message=text, details=st.none() | plain_objects)
snapshots = st.builds(
    TabSnapshot,
    tab_id=tab_ids,
    window_id=st.none() | tab_ids,
    url=text,
    title=text,
    document_id=opt_text,
    active=st.booleans(),
    focused=st.booleans(),
    native=st.booleans(),
    tools=st.lists(plain_json, max_size=3),
    categories=st.lists(plain_json, max_size=2),
    states=st.lists(plain_json, max_size=2),
)

VALID_MESSAGES: dict[str, st.SearchStrategy[BaseModel]] = {
    "hello": st.builds(
        Hello,
        type=st.just("hello"),
        protocol=safe_ints,
        extension_version=text,
        extension_id=opt_text,
        browser=opt_text,
        instance_id=opt_text,
        token=opt_text,
        pairing=st.none() | st.builds(PairingCredential, id=st.text(max_size=64), secret=st.text(max_size=256)),
    ),
    "pair.request": st.builds(PairRequest, type=st.just("pair.request")),
    "tabs.sync": st.builds(TabsSync, type=st.just("tabs.sync"), tabs=st.lists(snapshots, max_size=3)),
    "tab.update": st.builds(TabUpdate, type=st.just("tab.update"), tab=snapshots),
    "chunk": st.builds(  # a piece of a big message: in or out of its place, of any text
        Chunk, type=st.just("chunk"), id=st.integers(0, 3), part=st.integers(0, 3), data=text, last=st.booleans(),
        tab_id=st.none() | tab_ids,
    ),
    "tab.closed": st.builds(TabClosedMessage, type=st.just("tab.closed"), tab_id=tab_ids),
    "call.result": st.builds(
        CallResult,
        type=st.just("call.result"),
        call_id=text,
        ok=st.booleans(),
        result=st.none() | plain_objects,
        error=st.none() | error_bodies,
    ),
    "approval.result": st.builds(
        ApprovalResult, type=st.just("approval.result"), approval_id=text, approved=st.booleans(), reason=text
    ),
    "forms.set": st.builds(
        FormsSet,
        type=st.just("forms.set"),
        origin=text | st.sampled_from(["https://shop.test", "http://127.0.0.1:8000", "https://x.test:443"]),
        enabled=st.booleans(),
    ),
    "telemetry": st.builds(
        Telemetry,
        type=st.just("telemetry"),
        tab_id=tab_ids,
        document_id=opt_text,
        url=text,
        events=st.lists(plain_json, max_size=3),
        dropped=st.dictionaries(text, st.integers(-(2**31), 2**31), max_size=3),
    ),
    "page.result": st.builds(
        PageResult,
        type=st.just("page.result"),
        request_id=text,
        ok=st.booleans(),
        result=plain_json,
        error=st.none() | error_bodies,
    ),
    "site.status": st.builds(
        SiteStatus,
        type=st.just("site.status"),
        request_id=text,
        state=st.sampled_from(["opened", "loaded", "redirected", "failed"]),
        tab_id=st.none() | tab_ids,
        url=text,
        message=text,
    ),
    "site.permission": st.builds(SitePermission, type=st.just("site.permission"), origin=text,
                                 reachable=st.booleans()),
    "site.forget": st.builds(SiteForget, type=st.just("site.forget"), origin=text),
    "panel.query": st.builds(
        PanelQuery,
        type=st.just("panel.query"),
        request_id=text,
        tab_id=st.none() | st.integers(0, MAX_TAB_ID),
        origin=st.none() | text,
        limit=st.integers(1, 1000),
    ),
    "control.set": st.builds(
        ControlSet,
        type=st.just("control.set"),
        request_id=text,
        action=st.sampled_from(["pause", "resume", "writes", "origin", "accept", "clear"]),
        enabled=st.none() | st.booleans(),
        origin=text | st.sampled_from(["https://a.test", "http://127.0.0.1:9"]),
        tool=text,
    ),
    "ping": st.builds(Ping, type=st.just("ping"), ts=st.none() | finite),
    "pong": st.builds(Pong, type=st.just("pong"), ts=st.none() | finite),
    "error": st.builds(WireError, type=st.just("error"), code=text, message=text, ref=opt_text),
}
assert set(VALID_MESSAGES) == set(KNOWN_TYPES)
valid_messages = st.one_of(*VALID_MESSAGES.values())

frames = st.one_of(
    st.binary(max_size=120),
    st.text(max_size=120),
    json_values.map(json.dumps),
    message_like(st.sampled_from(KNOWN_TYPES)).map(json.dumps),
    message_like(json_scalars | st.sampled_from(KNOWN_TYPES)).map(lambda m: json.dumps(m).encode()),
    st.builds(
        _mangle,
        valid_messages.map(dump),
        st.integers(0, 10_000),
        st.sampled_from(["", "}", '"', ",", "[", "\\"]),
    ),
)


def _expect_parse_error(exc: ProtocolError) -> None:
    assert isinstance(exc, MalformedMessage | UnknownMessageType)
    assert exc.code in PARSE_CODES
    assert isinstance(exc.message, str) and exc.message


# -- 1. the parser ------------------------------------------------------------------------------


@fuzz(200)
@given(frames)
def test_parser_accepts_or_names_the_problem(frame):
    try:
        message = parse_extension_message(frame)
    except UnknownMessageType as exc:
        _expect_parse_error(exc)
        kind = json.loads(frame)["type"]
        assert kind not in KNOWN_TYPES and exc.ref == kind
    except ProtocolError as exc:
        _expect_parse_error(exc)
    else:
        assert message.type in KNOWN_TYPES


@fuzz(120)
@given(valid_messages)
def test_valid_messages_round_trip(message):
    assert parse_extension_message(dump(message)) == message
    assert parse_extension_message(dump(message).encode()) == message
    # Nulls written out, and snake_case names (populate_by_name), mean the same.
    assert parse_extension_message(json.dumps(message.model_dump(by_alias=True, mode="json"))) == message
    assert parse_extension_message(json.dumps(message.model_dump(mode="json"))) == message


@fuzz(80)
@given(valid_messages, st.dictionaries(text.map(lambda k: "x-" + k), json_values, min_size=1, max_size=3))
def test_unknown_fields_are_ignored(message, extra):
    data = {**json.loads(dump(message)), **extra}
    assert parse_extension_message(json.dumps(data)) == message


@fuzz(80)
@given(valid_messages, json_scalars)
def test_an_unknown_type_is_unknown_whatever_else_the_frame_holds(message, kind):
    data = json.loads(dump(message))
    data["type"] = kind if isinstance(kind, str) and kind not in KNOWN_TYPES else f"x.{kind!r}"
    with pytest.raises(UnknownMessageType) as info:
        parse_extension_message(json.dumps(data))
    assert info.value.code == "UNKNOWN_TYPE" and info.value.ref == data["type"]


def _wrong_values(annotation: Any) -> list[Any]:
    """Values pydantic's lax mode can never read as ``annotation`` (``[]`` if anything goes)."""
    if isinstance(annotation, NewType):  # PageJson, PageValue: a page's value, read as its base type
        return [] if annotation.__supertype__ is object else _wrong_values(annotation.__supertype__)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, pytypes.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _wrong_values(inner[0]) if len(inner) == 1 else []
    if annotation is Any or origin is Literal:
        return []
    if annotation is str:
        return [5, 1.5, True, [], {"a": 1}]
    if annotation is int:
        return ["seven", 1.5, [], {"a": 1}]
    if annotation is float:
        return ["soon", [], {"a": 1}]
    if annotation is bool:
        return ["maybe", 2, [], {"a": 1}]
    if origin is list or annotation is list:
        return ["x", 5, {"a": 1}]
    if origin is dict or annotation is dict:
        return ["x", 5, [1]]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ["x", 5, [1]]
    raise AssertionError(f"no wrong values for {annotation!r}")


@fuzz(150)
@given(valid_messages, st.data())
def test_a_field_of_the_wrong_type_is_malformed_and_named(message, data):
    fields = {
        name: info for name, info in type(message).model_fields.items() if _wrong_values(info.annotation)
    }
    if not fields:  # a message with nothing but its type (pair.request)
        return
    name = data.draw(st.sampled_from(sorted(fields)))
    alias = fields[name].alias or name
    wire = json.loads(dump(message))
    wire[alias] = data.draw(st.sampled_from(_wrong_values(fields[name].annotation)))
    with pytest.raises(MalformedMessage) as info:
        parse_extension_message(json.dumps(wire))
    assert info.value.code == "MALFORMED_MESSAGE" and info.value.ref == message.type
    assert info.value.message.startswith(f"{message.type}: {alias}")


@fuzz(80)
@given(valid_messages, st.data())
def test_a_missing_required_field_is_malformed_and_named(message, data):
    required = [
        info.alias or name
        for name, info in type(message).model_fields.items()
        if info.is_required() and name != "type"
    ]
    if not required:
        return
    alias = data.draw(st.sampled_from(required))
    wire = json.loads(dump(message))
    wire.pop(alias, None)
    with pytest.raises(MalformedMessage) as info:
        parse_extension_message(json.dumps(wire))
    assert f"{alias}: Field required" in info.value.message


# -- 2. the registry ------------------------------------------------------------------------------

REG_RESERVED = frozenset({"call_tool", "search_tools"})
POOL = [
    "search",
    "create_user",
    "list",
    "x-y",
    "a.b",
    "call_tool",
    "search_tools",
    "t1.search",
    "t2.list",
    "n" * 128,
]
"""Few names, so tabs collide; reserved names, a name that looks qualified, the longest allowed."""
BAD_NAMES = [
    "",
    " ",
    "no good!",
    "a/b",
    "héllo",
    "名前",
    "tab\t",
    "create_user\n",
    "a" * 128 + "\n",
    "a" * 129,
    "x" * 500,
    "semi;colon",
]

valid_names = st.sampled_from(POOL) | st.from_regex(r"[A-Za-z0-9_.-]{1,12}", fullmatch=True)
invalid_names = st.sampled_from(BAD_NAMES) | st.text(min_size=1, max_size=8).filter(
    lambda s: not valid_name(s)
)
good_descriptions = st.sampled_from(["Does a thing.", "d" * MAX_DESCRIPTION, "  padded  "]) | st.text(
    min_size=1, max_size=30
).filter(str.strip)
bad_descriptions = (
    st.sampled_from(["", "   ", "\n\t", "d" * (MAX_DESCRIPTION + 1)]) | st.integers() | st.lists(text)
)


def _nested_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    cursor = schema
    for _ in range(depth):
        cursor["properties"] = {"a": {"type": "object"}}
        cursor = cursor["properties"]["a"]
    return schema


def _nested_list(depth: int) -> Any:
    return json.loads("[" * depth + "]" * depth)


deep_json = st.integers(1, 400).map(_nested_list) | st.integers(1, 400).map(
    lambda d: json.loads('{"a": ' * d + "0" + "}" * d)
)
"""Deep, but well inside what json.loads takes (~1000 levels)."""

prop_types = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])
good_schemas = st.one_of(
    st.none(),
    st.just({}),
    st.builds(
        lambda props, req: {"type": "object", "properties": props, "required": sorted(set(req) & set(props))},
        st.dictionaries(
            st.sampled_from(["q", "id", "name", "limit"]), prop_types.map(lambda t: {"type": t}), max_size=4
        ),
        st.lists(st.sampled_from(["q", "id", "name", "limit"]), max_size=3),
    ),
    st.just({"type": "object", "properties": {"child": {"$ref": "#"}}}),
    st.just(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}]}},
        }
    ),
    st.just(
        {"type": "object", "additionalProperties": False, "patternProperties": {"^x-": {"type": "string"}}}
    ),
    st.integers(1, 20).map(_nested_schema),  # deeper ones: test_a_deeply_nested_schema_is_rejected_alone
)
bad_schemas = st.one_of(
    st.sampled_from(
        [
            {"type": "string"},
            {"type": ["object"]},
            {"type": "object", "properties": []},
            {"type": "object", "required": "q"},
            {"type": "object", "required": ["q", "q"]},
            {"type": "object", "properties": {"a": {"type": "wat"}}},
            {"type": "object", "properties": {"a": {"pattern": "("}}},
            {"type": "object", "minProperties": -1},
            {"type": "object", "$id": 5},
            {"type": "object", "description": "x" * (MAX_SCHEMA_BYTES + 1)},
        ]
    ),
    st.integers(),
    text,
    st.lists(plain_scalars, max_size=2),
    st.booleans(),
    st.integers(1, 400).map(_nested_list),
)
SCHEMA_KEYWORDS = [
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "const",
    "additionalProperties",
    "anyOf",
    "allOf",
    "oneOf",
    "not",
    "pattern",
    "minimum",
    "maxLength",
    "format",
    "$ref",
    "$schema",
    "$defs",
    "$id",
    "description",
    "default",
    "prefixItems",
    "if",
    "then",
    "else",
]
garbage_schemas = st.recursive(
    plain_scalars | st.sampled_from(["object", "string", "#", "(", "^a$"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(SCHEMA_KEYWORDS), inner, max_size=4)
    ),
    max_leaves=12,
)
"""Shallow; deep garbage goes into other fields (deep_json), deep schemas have their own test."""


def _tool(name: Any, description: Any, schema: Any = None, **extra: Any) -> dict[str, Any]:
    raw = {"name": name, "description": description, **extra}
    if schema is not None:
        raw["inputSchema"] = schema
    return raw


# A tool spec is (raw definition, verdict): True must be accepted (unless its name was taken
# earlier in the tab), False must be rejected, None is garbage either way.
good_tools = st.builds(
    lambda n, d, s, extra: (_tool(n, d, s, **extra), True),
    valid_names,
    good_descriptions,
    good_schemas,
    st.fixed_dictionaries(
        {},
        optional={
            "title": st.none() | st.text(min_size=1, max_size=MAX_TITLE),
            "annotations": st.dictionaries(
                st.sampled_from(["readOnlyHint", "destructiveHint", "x"]), plain_json, max_size=3
            ),
            "category": st.sampled_from(POOL),
            "scope": st.fixed_dictionaries(
                {},
                optional={
                    "routes": st.lists(st.sampled_from(["/a/*", "#/b"]), max_size=2),
                    "dangerLevel": st.sampled_from(["safe", "destructive"]),
                },
            ),
        },
    ),
)
bad_tools = st.one_of(
    st.builds(
        lambda n, d, s: (_tool(n, d, s), False),
        invalid_names | st.integers() | st.none(),
        good_descriptions,
        good_schemas,
    ),
    st.builds(lambda n, d, s: (_tool(n, d, s), False), valid_names, bad_descriptions, good_schemas),
    st.builds(lambda n: ({"name": n}, False), valid_names),
    st.builds(lambda n, d, s: (_tool(n, d, s), False), valid_names, good_descriptions, bad_schemas),
    st.builds(
        lambda n, t: (_tool(n, "ok", None, title=t), False),
        valid_names,
        st.just("t" * (MAX_TITLE + 1)) | st.integers() | st.lists(text, min_size=1),
    ),
    st.builds(
        lambda n, a: (_tool(n, "ok", None, annotations=a), False),
        valid_names,
        st.integers() | text | st.lists(plain_scalars, min_size=1) | st.integers(1, 400).map(_nested_list),
    ),
    plain_scalars.map(lambda v: (v, False)) | st.lists(plain_scalars, max_size=2).map(lambda v: (v, False)),
)
garbage_tools = st.builds(
    lambda fields: (fields, None),
    st.fixed_dictionaries(
        {},
        optional={
            "name": valid_names | invalid_names | plain_scalars,
            "description": good_descriptions | bad_descriptions | plain_json,
            "inputSchema": garbage_schemas,
            "title": plain_json | deep_json,
            "annotations": plain_json | deep_json,
            "category": plain_json,
            "scope": plain_json | deep_json,
            "pageName": plain_json,
            "argumentMap": plain_json | deep_json,
            "enhancement": plain_json | deep_json,
            "warnings": plain_json,
        },
    ),
)
tool_specs = st.one_of(good_tools, bad_tools, garbage_tools)

category_specs = st.one_of(
    st.builds(
        lambda n, d, members: ({"name": n, "description": d, "tools": members}, True),
        valid_names,
        good_descriptions,
        st.lists(valid_names, max_size=4),
    ),
    st.builds(
        lambda n, d, members: ({"name": n, "description": d, "tools": members}, False),
        invalid_names,
        good_descriptions,
        st.lists(valid_names, max_size=2),
    ),
    st.builds(
        lambda n, d: ({"name": n, "description": d, "tools": []}, False), valid_names, bad_descriptions
    ),
    st.builds(
        lambda n, members: ({"name": n, "description": "ok", "tools": members}, False),
        valid_names,
        text.filter(bool) | st.lists(st.integers(), min_size=1) | st.dictionaries(text, text, min_size=1),
    ),
    st.builds(
        lambda fields: (fields, None),
        st.dictionaries(
            st.sampled_from(["name", "description", "tools", "scope"]),
            plain_json,
            max_size=4,
        ),
    ),
    plain_scalars.map(lambda v: (v, False)),
)
states = st.lists(st.sampled_from(["logged-in", "admin", "", "s" * 129]) | plain_scalars, max_size=5)
urls = st.sampled_from(
    [
        "http://a.test/",
        "https://b.test/admin/x",
        "http://a.test:8080/p?q#h",
        "",
        "about:blank",
        "http://[::1",
        "not a url",
        "file:///etc/passwd",
    ]
)


def _accepted(tool_list: Iterable[tuple[Any, bool | None]], cat_list: Iterable[tuple[Any, bool | None]]):
    """What the registry must keep of a tab: {tool name: its definition}, [category names], in order.

    Specs with a verdict decide by themselves; for garbage (no verdict) the parsers say whether it
    is a valid definition, so a kept piece of garbage can still take a name first.
    """
    tools: dict[str, Any] = {}
    for raw, verdict in tool_list:
        if verdict is None:
            verdict = isinstance(parse_tool(raw), PageTool)
        if verdict and raw["name"] not in tools:
            tools[raw["name"]] = raw
    cats: list[str] = []
    for raw, verdict in cat_list:
        if verdict is None:
            verdict = isinstance(parse_category(raw), PageCategory)
        if verdict and raw["name"] not in tools and raw["name"] not in cats:
            cats.append(raw["name"])
    return tools, cats


def check_tool(tool: PageTool, *, from_hub: bool = False) -> None:
    assert valid_name(tool.name)
    assert (
        isinstance(tool.description, str)
        and tool.description.strip()
        and len(tool.description) <= MAX_DESCRIPTION
    )
    assert tool.title is None or (isinstance(tool.title, str) and 0 < len(tool.title) <= MAX_TITLE)
    schema = tool.input_schema
    assert isinstance(schema, dict) and schema["type"] == "object"
    assert len(json.dumps(schema)) <= MAX_SCHEMA_BYTES + len('"type": "object", ')
    schema_validator_class(schema).check_schema(schema)  # a valid JSON Schema, in the dialect it declares
    assert all(isinstance(v, bool | str | int | float) for v in tool.annotations.values())
    if from_hub:  # bridge-only fields never come from a page
        assert tool.page_name is None and tool.argument_map is None and tool.enhancement is None


def check_tab(tab: Tab, *, from_hub: bool = False) -> None:
    assert not set(tab.tools) & set(tab.categories)
    for name, tool in tab.tools.items():
        assert name == tool.name
        check_tool(tool, from_hub=from_hub)
        if tool.category is not None:
            assert name in tab.categories[tool.category].tools
    for name, cat in tab.categories.items():
        assert name == cat.name and valid_name(name)
        assert isinstance(cat.description, str) and cat.description.strip()
        assert set(cat.tools) <= set(tab.tools)
        assert all(tab.tools[m].category is not None for m in cat.tools)
    assert len(tab.title) <= 500
    assert len(tab.states) <= MAX_STATES and all(isinstance(s, str) and 0 < len(s) <= 128 for s in tab.states)
    for rejection in tab.rejected:
        check_rejection(rejection)


def check_rejection(rejection: Rejection) -> None:
    assert rejection.kind in ("tool", "category", "member", "state")
    assert isinstance(rejection.name, str) and len(rejection.name) <= 128
    assert isinstance(rejection.reason, str) and rejection.reason.strip()


def check_registry(reg: Registry, reserved: frozenset[str], *, from_hub: bool = False) -> None:
    """Every invariant a reader of the registry relies on."""
    public = reg.all_public_names()
    assert len(public) == len(set(public)), "public names are unique"
    for name in public:
        assert valid_name(name), name
        assert name not in reserved
    entries = list(reg.entries())
    assert sorted(e.public_name for e in entries) == sorted(public)
    counts = reg.counts()
    assert len(entries) == counts["tools"] + counts["categories"]
    tabs = reg.tabs
    assert counts["tabs"] == len(tabs)
    for entry in entries:
        assert reg.resolve(entry.public_name) is entry
        current = tabs[entry.tab.tab_id]
        assert entry.tab is current, "never an entry of a replaced or removed tab"
        if isinstance(entry, ToolEntry):
            page_name = entry.tool.name
            assert current.tools[page_name] is entry.tool
        else:
            assert isinstance(entry, CategoryEntry)
            page_name = entry.category.name
            assert current.categories[page_name] is entry.category
            assert [m.tool.name for m in entry.members] == list(entry.category.tools)
            assert all(reg.resolve(m.public_name) == m for m in entry.members)
        assert reg.public_name(current.tab_id, page_name) == entry.public_name
        if entry.public_name != page_name and len(str(current.tab_id)) <= 16:  # JavaScript-safe ids
            assert entry.public_name.startswith(f"t{current.tab_id}.")
        assert page_name not in reserved or entry.public_name != page_name
    for tab_id, tab in tabs.items():
        assert tab.tab_id == tab_id
        check_tab(tab, from_hub=from_hub)
        for name in [*tab.tools, *tab.categories]:
            assert reg.public_name(tab_id, name) is not None, "every kept definition is reachable"


def _snapshot(tab_id: int, url: str, tool_list, cat_list, state_list, **extra: Any) -> TabSnapshot:
    return TabSnapshot(
        tab_id=tab_id,
        url=url,
        tools=[raw for raw, _ in tool_list],
        categories=[raw for raw, _ in cat_list],
        states=state_list,
        **extra,
    )


@fuzz(80)
@given(tab_ids, urls, st.lists(tool_specs, max_size=8), st.lists(category_specs, max_size=4), states)
def test_apply_keeps_exactly_the_valid_definitions(tab_id, url, tool_list, cat_list, state_list):
    reg = Registry(reserved_names=REG_RESERVED)
    change = reg.apply(_snapshot(tab_id, url, tool_list, cat_list, state_list))
    check_registry(reg, REG_RESERVED)
    tab = reg.tab(tab_id)
    assert tab is not None and change.changed and change.tab_id == tab_id
    assert change.rejected == tab.rejected
    # Every definition is either kept or rejected with a reason: nothing silently vanishes.
    by_kind = {kind: [r for r in change.rejected if r.kind == kind] for kind in ("tool", "category")}
    assert len(tab.tools) + len(by_kind["tool"]) == len(tool_list)
    assert len(tab.categories) + len(by_kind["category"]) == len(cat_list)
    want_tools, want_cats = _accepted(tool_list, cat_list)
    # Exactly the valid definitions are kept, in order; of two valid copies of a name, the first.
    assert list(tab.tools) == list(want_tools)
    assert list(tab.categories) == want_cats
    for name, raw in want_tools.items():
        assert tab.tools[name].description == raw["description"]
    # A single tab on a fresh registry: every name that is not reserved (a built-in's, or of the
    # bridge's qualified form) is used as is.
    for name in [*tab.tools, *tab.categories]:
        if name not in REG_RESERVED and not is_qualified_form(name):
            assert reg.public_name(tab_id, name) == name
            assert reg.resolve(name) is not None


@fuzz(40)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 4), urls, st.lists(tool_specs, max_size=4), st.lists(category_specs, max_size=2)
        ),
        max_size=5,
    ),
    st.lists(st.tuples(st.integers(0, 4), urls, st.lists(tool_specs, max_size=4)), max_size=4),
)
def test_sync_replaces_everything(first, second):
    reg = Registry(reserved_names=REG_RESERVED)
    reg.sync(_snapshot(t, u, tools, cats, []) for t, u, tools, cats in first)
    check_registry(reg, REG_RESERVED)
    assert set(reg.tabs) == {t for t, *_ in first}
    before = set(reg.tabs)
    change = reg.sync(_snapshot(t, u, tools, [], []) for t, u, tools in second)
    check_registry(reg, REG_RESERVED)
    assert set(reg.tabs) == {t for t, *_ in second}
    assert set(change.closed) == before - set(reg.tabs)
    for tab_id in {t for t, *_ in second}:
        last = [tools for t, _, tools in second if t == tab_id][-1]  # a repeated tab: the last snapshot wins
        want, _ = _accepted(last, [])
        assert list(reg.tab(tab_id).tools) == list(want)


class RegistryMachine(RuleBasedStateMachine):
    """Sequences of apply / sync / remove / clear, checked against a small model.

    The model remembers when each (tab, name) claim was first seen (the registry's rule: the
    oldest claim takes the plain name) and which origin each plain name was bound to (a name
    shown for one origin never moves to another).
    """

    TABS = st.integers(1, 4)
    ORIGINS = st.sampled_from(["http://a.test", "http://b.test"])
    NAMES = st.sampled_from(
        ["search", "list", "call_tool", "t1.search", "t2.search.2", "n" * 128, "t3." + "n" * 124]
    )
    TOOLS = st.lists(st.tuples(NAMES, st.booleans()), max_size=5)
    CATS = st.lists(st.tuples(NAMES, st.lists(NAMES, max_size=3), st.booleans()), max_size=2)

    @initialize()
    def start(self) -> None:
        self.reg = Registry(reserved_names=REG_RESERVED)
        self.seq = 0
        self.claims: dict[tuple[int, str], int] = {}
        self.bound: dict[str, str] = {}
        self.expected: dict[int, tuple[list[str], list[str]]] = {}

    # -- driving the registry, keeping the model in step -------------------------------------

    def _specs(self, tools, cats):
        tool_list = [
            (
                {"name": n, "description": f"tool {n}", "inputSchema": {"type": "object"}}
                if ok
                else {"name": n, "description": ""},
                ok,
            )
            for n, ok in tools
        ]
        cat_list = [
            ({"name": n, "description": f"cat {n}", "tools": members} if ok else {"name": n}, ok)
            for n, members, ok in cats
        ]
        return tool_list, cat_list

    def _note(self, tab_id: int) -> None:
        tab = self.reg.tab(tab_id)
        assert tab is not None
        names = set(tab.tools) | set(tab.categories)
        for key in [k for k in self.claims if k[0] == tab_id and k[1] not in names]:
            del self.claims[key]
        for name in sorted(names):
            if (tab_id, name) not in self.claims:
                self.claims[(tab_id, name)] = self.seq
                self.seq += 1

    def _drop(self, tab_id: int) -> None:
        for key in [k for k in self.claims if k[0] == tab_id]:
            del self.claims[key]
        self.expected.pop(tab_id, None)

    def _prepare(self, tab_id: int, origin: str, tools, cats) -> TabSnapshot:
        tool_list, cat_list = self._specs(tools, cats)
        tools_kept, cats_kept = _accepted(tool_list, cat_list)
        self.expected[tab_id] = (list(tools_kept), cats_kept)
        return _snapshot(tab_id, origin + "/page", tool_list, cat_list, [])

    @rule(tab_id=TABS, origin=ORIGINS, tools=TOOLS, cats=CATS)
    def apply(self, tab_id, origin, tools, cats):
        self.reg.apply(self._prepare(tab_id, origin, tools, cats))
        self._note(tab_id)

    @rule(tabs=st.lists(st.tuples(TABS, ORIGINS, TOOLS, CATS), max_size=4))
    def sync(self, tabs):
        keep = {t for t, *_ in tabs}
        for tab_id in list(self.expected):
            if tab_id not in keep:
                self._drop(tab_id)
        snaps = [self._prepare(*spec) for spec in tabs]
        self.reg.sync(snaps)
        for snap in snaps:  # a tab listed twice: its names were noted at each apply, in order
            self._note_sequence(snap)
        for tab_id in keep:
            self._note(tab_id)

    def _note_sequence(self, snap: TabSnapshot) -> None:
        tools, cats = _accepted(
            [(t, t.get("description") != "") for t in snap.tools],
            [(c, "description" in c) for c in snap.categories],
        )
        names = set(tools) | set(cats)
        for key in [k for k in self.claims if k[0] == snap.tab_id and k[1] not in names]:
            del self.claims[key]
        for name in sorted(names):
            if (snap.tab_id, name) not in self.claims:
                self.claims[(snap.tab_id, name)] = self.seq
                self.seq += 1

    @rule(tab_id=TABS)
    def remove(self, tab_id):
        change = self.reg.remove(tab_id)
        assert change.changed == (tab_id in self.expected)
        self._drop(tab_id)

    @rule()
    def clear(self):
        change = self.reg.clear()
        assert set(change.closed) == set(self.expected)
        for tab_id in list(self.expected):
            self._drop(tab_id)

    # -- invariants ---------------------------------------------------------------------------

    @invariant()
    def check(self):
        # The registry rebuilds its names lazily, on the first read after a change: that read
        # (here, right after the step) is when a listing could show a name, binding it to its origin.
        check_registry(self.reg, REG_RESERVED)
        self.no_stale_entries()
        self.oldest_claim_holds_the_plain_name()

    def no_stale_entries(self):
        assert set(self.reg.tabs) == set(self.expected)
        for tab_id, (tools, cats) in self.expected.items():
            tab = self.reg.tab(tab_id)
            assert list(tab.tools) == tools and list(tab.categories) == cats
        live = {
            (e.tab.tab_id, e.tool.name if isinstance(e, ToolEntry) else e.category.name)
            for e in self.reg.entries()
        }
        assert live == set(self.claims)

    def oldest_claim_holds_the_plain_name(self):
        by_name: dict[str, list[tuple[int, int]]] = {}
        for (tab_id, name), seq in self.claims.items():
            by_name.setdefault(name, []).append((seq, tab_id))
        for name, claimants in by_name.items():
            claimants.sort()
            holders = [t for _, t in claimants if self.reg.public_name(t, name) == name]
            assert len(holders) <= 1
            if name in REG_RESERVED or is_qualified_form(name):
                assert not holders
                continue
            origin = {t: self.reg.tab(t).origin for _, t in claimants}
            previous = self.bound.get(name)  # the origin a listing showed it for, if any
            if not holders:
                # Nobody may take it only while it was shown for another origin.
                assert previous is not None and all(origin[t] != previous for _, t in claimants), (name, claimants)
                continue
            holder = holders[0]
            older = [t for _, t in claimants[: [t for _, t in claimants].index(holder)]]
            # First seen wins within one origin; an older claim of another origin is passed over
            # only because the name was shown for the holder's origin.
            assert all(origin[t] != origin[holder] for t in older), (name, claimants, holder)
            if older:
                assert previous == origin[holder]
            assert previous in (None, origin[holder]), f"{name} moved from {previous} to {origin[holder]}"
            self.bound[name] = origin[holder]


RegistryMachine.TestCase.settings = fuzz(30, stateful_step_count=20)
TestRegistryMachine = RegistryMachine.TestCase


# -- 3. the hub ------------------------------------------------------------------------------------


class FakeSocket:
    """What a Link needs from a WebSocket: collects what the hub sends and how it closed."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed: tuple[int, str | None] | None = None

    async def send_text(self, data: str) -> None:
        assert self.closed is None, "sent on a closed socket"
        self.sent.append(json.loads(data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason)


def new_core() -> tuple[BridgeCore, Link, FakeSocket]:
    socket = FakeSocket()
    return BridgeCore(make_config()), Link(socket, peer="fuzz"), socket


async def handshake(core: BridgeCore, link: Link, socket: FakeSocket) -> None:
    pairing, secret = core.pairings.create("fuzz", ephemeral=True)  # as a paired extension
    await core.hub.handle_frame(link, json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION,
                                             "pairing": {"id": pairing.id, "secret": secret}}))
    assert [m["type"] for m in socket.sent[-3:]] == ["welcome", "telemetry.config", "forms.policy"]
    assert core.connected
    del socket.sent[-3:]


def hub_snapshot(tab_id: int, url: str, title: str, tool_list, cat_list, state_list) -> dict[str, Any]:
    return {
        "tabId": tab_id,
        "url": url,
        "title": title,
        "documentId": f"doc-{tab_id}",
        "tools": [raw for raw, _ in tool_list],
        "categories": [raw for raw, _ in cat_list],
        "states": state_list,
    }


hub_snapshots = st.builds(
    hub_snapshot,
    st.integers(0, 5),
    urls,
    text | st.just("T" * 100_000),
    st.lists(tool_specs, max_size=5),
    st.lists(category_specs, max_size=2),
    states,
)
hub_frames = st.one_of(
    frames,
    st.builds(lambda s: json.dumps({"type": "tab.update", "tab": s}), hub_snapshots),
    st.builds(lambda s: json.dumps({"type": "tabs.sync", "tabs": s}), st.lists(hub_snapshots, max_size=3)),
    st.builds(lambda t: json.dumps({"type": "tab.closed", "tabId": t}), st.integers(0, 5)),
    valid_messages.map(dump),
)


def _expected_reply(frame: str | bytes, ready: bool) -> tuple[str | None, Any]:
    """What the hub must answer a frame with: (error code or None, the parsed message)."""
    try:
        message = parse_extension_message(frame)
    except ProtocolError as exc:
        return exc.code, None
    if not ready and not isinstance(message, Hello):
        return "NOT_READY", message
    return None, message


@fuzz(80)
@given(st.lists(hub_frames, min_size=1, max_size=6))
async def test_the_hub_answers_every_frame_and_stays_consistent(frame_list):
    core, link, socket = new_core()
    await handshake(core, link, socket)
    for frame in frame_list:
        note(repr(frame)[:300])
        before, errors_before = len(socket.sent), core.protocol_errors
        code, message = _expected_reply(frame, ready=True)
        await core.hub.handle_frame(link, frame)  # never raises
        await core.read_in()  # snapshots are read off the loop (server/reader.py)
        replies = socket.sent[before:]
        codes = [m["code"] for m in replies if m["type"] == "error"]
        assert set(codes) <= FRAME_CODES
        if code is not None:
            assert codes == [code] and len(replies) == 1
            assert core.protocol_errors == errors_before + 1
        elif isinstance(message, Hello):
            if message.protocol == PROTOCOL_VERSION:
                assert [m["type"] for m in replies] == ["welcome", "telemetry.config", "forms.policy"]
            else:
                assert codes == ["PROTOCOL_MISMATCH"] and socket.closed == (1002, "protocol version mismatch")
                return
        elif isinstance(message, Ping):
            assert [m["type"] for m in replies] == ["pong"]
            if message.ts is not None and math.isfinite(message.ts):
                assert replies[0]["ts"] == message.ts
        elif isinstance(message, TabUpdate | TabsSync):
            tabs = [message.tab] if isinstance(message, TabUpdate) else message.tabs
            expect = sorted(
                f"tab:{t.tab_id}"
                for t in {t.tab_id: t for t in tabs}.values()
                if core.registry.tab(t.tab_id).rejected
            )
            assert sorted(m["ref"] for m in replies) == expect and set(codes) <= {"INVALID_TOOL"}
            for reply in replies:
                assert reply["message"]
        elif isinstance(message, Telemetry):
            assert codes in ([], ["MALFORMED_MESSAGE"])
        elif isinstance(message, PanelQuery | ControlSet):
            assert [(m["type"], m["requestId"]) for m in replies] == [("panel.state", message.request_id)]
            assert replies[0]["ok"] is ("state" in replies[0])
        elif isinstance(message, FormsSet):  # the person's switch: kept and re-announced, or a bad origin
            assert [m["type"] for m in replies] in (["forms.policy"], ["error"])
            assert codes in ([], ["MALFORMED_MESSAGE"])
        elif isinstance(message, Chunk):  # said read at once; a bad one, or what it ended, answered by name
            assert replies[0] == {"type": "chunk.read", "id": message.id, "part": message.part}
            assert all(m["type"] == "error" for m in replies[1:])
        else:
            assert replies == [], "results nobody waits for, pongs and the extension's errors get no answer"
        assert socket.closed is None and link.state is LinkState.READY and core.connected
        check_registry(core.registry, HUB_RESERVED, from_hub=True)
    for profile in ("passthrough", "categories", "meta", "hybrid"):
        json.dumps(core.listing(profile=profile))
    json.dumps(core.status())
    core.search.search("search list", limit=5)


@fuzz(60)
@given(st.lists(hub_frames, min_size=1, max_size=5))
async def test_before_hello_every_frame_is_refused_by_name(frame_list):
    core, link, socket = new_core()
    for frame in frame_list:
        code, message = _expected_reply(frame, ready=False)
        if isinstance(message, Hello):
            continue
        before = len(socket.sent)
        await core.hub.handle_frame(link, frame)
        await core.read_in()  # snapshots are read off the loop (server/reader.py)
        assert [m["code"] for m in socket.sent[before:]] == [code]
        if code == "NOT_READY":
            assert socket.sent[-1]["ref"] == message.type
    assert core.registry.counts() == {"tabs": 0, "frames": 0, "tools": 0, "categories": 0}
    assert core.link is None and not core.connected and socket.closed is None
    await handshake(core, link, socket)


result_bodies = st.one_of(
    st.builds(
        lambda r: {"ok": True, "result": r},
        st.none()
        | plain_objects
        | st.just({"content": []})
        | st.just({"content": [{"type": "text", "text": "hi"}]}),
    ),
    st.builds(
        lambda c, m, d: {"ok": False, "error": {"code": c, "message": m, **({"details": d} if d else {})}},
        st.sampled_from(sorted(CALL_CODES)) | text,
        text,
        st.none()
        | st.dictionaries(text.filter(lambda k: k not in ("message", "code")), plain_json, max_size=3),
    ),
    st.just({"ok": False}),
)


@fuzz(50)
@given(
    st.integers(1, 4),
    st.lists(st.tuples(st.integers(0, 5), result_bodies), max_size=10),
    st.lists(hub_frames, max_size=3),
)
async def test_each_call_is_settled_once_by_its_first_result(n_calls, answers, noise):
    """Results for the right calls, for unknown ids, twice for one call, mixed with junk frames."""
    core, link, socket = new_core()
    await handshake(core, link, socket)
    await core.hub.handle_frame(
        link,
        json.dumps(
            {
                "type": "tab.update",
                "tab": {
                    "tabId": 7,
                    "url": "http://a.test/",
                    "documentId": "d",
                    "tools": [{"name": "t", "description": "T"}],
                },
            }
        ),
    )
    await core.read_in()  # snapshots are read off the loop (server/reader.py)
    entry = core.registry.resolve("t")
    assert isinstance(entry, ToolEntry)
    calls = [asyncio.ensure_future(core.call_tool(entry, {"i": i}, timeout_s=30)) for i in range(n_calls)]
    for _ in range(10):
        await asyncio.sleep(0)
    starts = [m for m in socket.sent if m["type"] == "call.start"]
    assert len(starts) == n_calls
    ids = [m["callId"] for m in starts]
    first: dict[str, dict[str, Any]] = {}
    noise_iter = iter(noise)
    for index, body in answers:
        call_id = ids[index] if index < n_calls else f"unknown-{index}"
        first.setdefault(call_id, body)
        before = len(socket.sent)
        await core.hub.handle_frame(link, json.dumps({"type": "call.result", "callId": call_id, **body}))
        assert socket.sent[before:] == [], "a result is never answered, known or not"
        junk = next(noise_iter, None)
        if junk is not None and not _closes_the_tab(junk):
            await core.hub.handle_frame(link, junk)
    # Calls nobody answered end when their tab closes.
    await core.hub.handle_frame(link, json.dumps({"type": "tab.closed", "tabId": 7}))
    await core.read_in()  # snapshots are read off the loop (server/reader.py)
    outcomes = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 5)
    for call_id, outcome in zip(ids, outcomes, strict=True):
        body = first.get(call_id)
        if body is None:
            assert isinstance(outcome, ToolCallError) and outcome.code in ("TAB_CLOSED", "TAB_NAVIGATED")
        elif body["ok"]:
            assert outcome == (body["result"] or {"content": []})
        else:
            assert isinstance(outcome, ToolCallError) and outcome.code in CALL_CODES
            error = body.get("error")
            if error is None:
                assert outcome.code == "PAGE_ERROR"
            else:
                assert outcome.message == error["message"]
                # only the codes the worker itself ends calls with are the bridge's; any other is the page's
                assert outcome.code == (error["code"] if error["code"] in EXTENSION_CODES else "PAGE_ERROR")
                if outcome.code == "PAGE_ERROR" and error["code"] != "PAGE_ERROR":
                    assert outcome.details["page_code"] == error["code"]
    assert len(core.calls) == 0 and not core.hub._futures
    assert link.state is LinkState.READY


def _closes_the_tab(frame: str | bytes) -> bool:
    try:
        message = parse_extension_message(frame)
    except ProtocolError:
        return False
    if isinstance(message, TabClosedMessage):
        return message.tab_id == 7
    if isinstance(message, TabUpdate):
        return message.tab.tab_id == 7
    if isinstance(message, TabsSync):
        return True
    return isinstance(message, Hello)


# -- results -------------------------------------------------------------------------------------


def _page_result(result: Any) -> dict[str, Any]:
    from tabmcp.core.tools.call import page_result as convert

    reg = Registry()
    reg.apply(TabSnapshot(tab_id=1, url="http://a.test/", tools=[{"name": "t", "description": "T"}]))
    return convert(reg.resolve("t"), result)


@fuzz(70)
@given(
    st.dictionaries(
        st.sampled_from(["content", "isError", "structuredContent", "_meta", "x"]) | text,
        json_values,
        max_size=4,
    )
)
def test_any_json_result_is_kept_or_converted(result):
    import mcp_types as types

    out = _page_result(result)
    types.CallToolResult.model_validate(out)
    json.dumps(out, allow_nan=False)
    if "tabmcp/note" in out.get("_meta", {}):
        assert out["content"][0]["type"] == "text"


_text_items = st.lists(
    st.fixed_dictionaries({"type": st.sampled_from(["text", "image", "Text"]), "text": text | json_values})
    | st.dictionaries(st.sampled_from(["type", "text", "annotations", "_meta"]), json_values, max_size=3),
    max_size=3,
)


@fuzz(70)
@given(st.dictionaries(st.sampled_from(["content", "isError", "_meta", "structuredContent"]),
                       _text_items | json_values, max_size=3))
def test_the_plain_text_fast_path_answers_exactly_as_the_model_or_not_at_all(result):
    """A result of text items is shaped without pydantic (the hot path); whatever it accepts, the
    model accepts and dumps identically, and everything else goes to the model."""
    import mcp_types as types
    from pydantic import ValidationError
    from tabmcp.core.tools.call import _plain

    fast = _plain(result)
    if fast is None:
        return
    try:
        model = types.CallToolResult.model_validate(result).model_dump(by_alias=True, mode="json", exclude_none=True)
    except ValidationError as exc:
        raise AssertionError(f"the fast path took a result the model refuses: {exc}") from None
    model.pop("resultType", None)
    assert fast == model


def test_a_pages_meta_in_the_protocols_namespace_is_dropped_on_every_path():
    forged = {"io.modelcontextprotocol/serverInfo": {"name": "your-bank"}, "page/key": 1}
    for result in ({"content": [{"type": "text", "text": "hi"}], "_meta": forged},  # the fast path
                   {"content": [{"type": "text", "text": "hi", "annotations": {}}], "_meta": forged}):  # the model
        meta = _page_result(result)["_meta"]
        assert "io.modelcontextprotocol/serverInfo" not in meta and meta["page/key"] == 1


def test_the_fast_path_leaves_a_text_item_of_another_type_to_the_model():
    fake = {"content": [{"type": "image", "text": "not an image"}]}
    out = _page_result(fake)
    assert "not a valid CallToolResult" in out["_meta"]["tabmcp/note"]  # kept as text, never passed on


# -- inputs that broke the bridge ----------------------------------------------------------------
#
# Each test pins one input this fuzzing found to crash or mislead the bridge (at 7695901); all are
# fixed now, and these are their regression tests.


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param("[" * 100_000, id="list"),
        pytest.param('{"type": "ping", "x": ' + '{"a": ' * 5000 + "1" + "}" * 5001, id="objects"),
    ],
)
def test_deeply_nested_json_is_malformed(frame):
    """json.loads raises RecursionError here; it used to escape the parser."""
    with pytest.raises(MalformedMessage):
        parse_extension_message(frame)


@pytest.mark.parametrize("depth", [600, 900])
def test_deep_json_with_a_surrogate_escape_is_parsed_or_malformed(depth):
    frame = '{"type": "ping", "x": ' + "[" * depth + '"\\ud800"' + "]" * depth + "}"
    with contextlib.suppress(MalformedMessage):
        assert isinstance(parse_extension_message(frame), Ping)


async def test_the_hub_answers_deeply_nested_json():
    core, link, socket = new_core()
    await handshake(core, link, socket)
    await core.hub.handle_frame(link, "[" * 100_000)
    assert socket.sent[-1]["code"] == "MALFORMED_MESSAGE"
    assert socket.closed is None and core.connected


@pytest.mark.parametrize("dialect", [5, 1.5, True, {}, []], ids=["int", "float", "bool", "object", "array"])
def test_a_non_string_dollar_schema_is_rejected_alone(dialect):
    """jsonschema's validator_for raised TypeError/AttributeError out of Registry.apply."""
    reg = Registry()
    change = reg.apply(
        TabSnapshot(
            tab_id=1,
            url="http://a.test/",
            tools=[
                {"name": "fine", "description": "ok"},
                {"name": "odd", "description": "ok", "inputSchema": {"type": "object", "$schema": dialect}},
            ],
        )
    )
    assert [r.name for r in change.rejected] == ["odd"] and reg.resolve("fine")


async def test_a_deeply_nested_schema_is_rejected_alone():
    """~100 nested properties exhausted the recursion limit inside jsonschema's check_schema."""
    assert isinstance(
        parse_tool({"name": "ok", "description": "d", "inputSchema": _nested_schema(20)}), PageTool
    )
    core, link, socket = new_core()
    await handshake(core, link, socket)
    tools = [
        {"name": "fine", "description": "ok"},
        {"name": "deep", "description": "ok", "inputSchema": _nested_schema(150)},
    ]
    tab_update = {"type": "tab.update", "tab": {"tabId": 1, "url": "http://a.test/", "tools": tools}}
    await core.hub.handle_frame(link, json.dumps(tab_update))
    await core.read_in()  # snapshots are read off the loop (server/reader.py)
    assert socket.sent[-1]["code"] == "INVALID_TOOL" and "'deep'" in socket.sent[-1]["message"]
    assert core.registry.resolve("fine") and core.connected


def test_huge_tab_ids_are_refused_or_still_get_valid_public_names():
    """``t<tabId>.`` alone ran past 128 characters for ids of ~110 digits (JSON 1e120 is read as an int)."""
    frame = {
        "type": "tab.update",
        "tab": {
            "tabId": 1e120,
            "url": "http://a.test/",
            "tools": [{"name": "call_tool", "description": "d"}],
        },
    }
    try:
        message = parse_extension_message(json.dumps(frame))
        snapshot = message.tab
    except MalformedMessage:  # the protocol may bound tab ids; the registry must still cope
        snapshot = TabSnapshot.model_construct(
            tab_id=10**120, url="http://a.test/", tools=frame["tab"]["tools"], categories=[], states=[]
        )
    reg = Registry(reserved_names={"call_tool"})
    reg.apply(snapshot)
    check_registry(reg, frozenset({"call_tool"}))
    assert reg.counts()["tools"] == 1




@pytest.mark.parametrize(
    ("code", "details"),
    [
        pytest.param("PAGE_ERROR", {"message": "m"}, id="message"),
        pytest.param("TIMEOUT", {"code": "X"}, id="code"),
        pytest.param("E_PAGE", {"page_code": "P"}, id="page_code"),
    ],
)
async def test_page_error_details_with_reserved_keys_settle_the_call(code, details):
    core, link, socket = new_core()
    await handshake(core, link, socket)
    tab_update = {
        "type": "tab.update",
        "tab": {"tabId": 1, "url": "http://a.test/", "tools": [{"name": "t", "description": "T"}]},
    }
    await core.hub.handle_frame(link, json.dumps(tab_update))
    await core.read_in()  # snapshots are read off the loop (server/reader.py)
    call = asyncio.ensure_future(core.call_tool(core.registry.resolve("t"), {}, timeout_s=5))
    await asyncio.sleep(0)
    call_id = socket.sent[-1]["callId"]
    result = {
        "type": "call.result",
        "callId": call_id,
        "ok": False,
        "error": {"code": code, "message": "boom", "details": details},
    }
    try:
        await core.hub.handle_frame(link, json.dumps(result))
        with pytest.raises(ToolCallError) as info:
            await asyncio.wait_for(call, 0.5)
        assert info.value.message == "boom"
    finally:
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)


@pytest.mark.parametrize("name", ["create_user\n", "x\n", "a" * 128 + "\n"])
def test_a_trailing_newline_is_outside_the_allowed_characters(name):
    """TOOL_NAME_RE ended in ``$`` and was used with ``match``: "create_user\\n" passed."""
    reg = Registry()
    change = reg.apply(
        TabSnapshot(
            tab_id=2,
            url="https://evil.test/",
            tools=[{"name": name, "description": "d"}],
            categories=[{"name": name[:100].rstrip() + "_cat\n", "description": "d"}],
        )
    )
    assert reg.counts()["tools"] == 0 and reg.counts()["categories"] == 0
    assert len(change.rejected) == 2


def _circular() -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": "x"}]}
    result["_meta"] = {"self": result}
    return result


def _deep() -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": "x"}],
        "structuredContent": {"a": json.loads("[" * 400 + "]" * 400)},
    }


@pytest.mark.parametrize("make", [_deep, _circular], ids=["deep", "circular"])
def test_results_too_deep_or_circular_are_converted(make):
    """model_dump raised 'Maximum serialization depth exceeded'; json.dumps, 'Circular reference'."""
    out = _page_result(make())
    assert out["content"][0]["type"] == "text"


def test_lone_surrogates_never_reach_the_registry():
    """A JSON ``\\ud800`` escape (JSON.stringify writes one for half an emoji) could not be encoded later."""
    message = parse_extension_message(
        '{"type": "tab.update", "tab": {"tabId": 1, "tools": ['
        '{"name": "t", "description": "bad \\ud800 text"}]}}'
    )
    reg = Registry()
    reg.apply(message.tab)
    for entry in reg.entries():
        json.dumps(entry.tool.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")


def test_strategies_cover_every_message_type():
    """Guard for the generators above: a new extension → bridge message type needs a strategy."""
    from tabmcp.protocol import ExtensionMessage

    union = get_args(get_args(ExtensionMessage)[0])
    assert (
        {get_args(m.model_fields["type"].annotation)[0] for m in union}
        == set(VALID_MESSAGES)
        == set(KNOWN_TYPES)
    )
