"""Writes the wire protocol for the extension: ``extension/protocol.generated.js``.

:mod:`tabmcp.protocol` and the bridge's registries (errors, capture kinds, redaction patterns,
end rules, sensitive fields) are the one source; every part of the extension loads this script
(a classic script, no ``export``). It ends with a copy of ``extension/messages.js``, because
Chrome runs a file listed twice in ``content_scripts`` once per frame (crbug.com/324096753).
``bridge/tests/test_protocol_js.py`` fails when the committed file is stale; regenerate with::

    .venv/bin/python -m tabmcp.protocol_js
"""

from __future__ import annotations

import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from . import protocol
from .capture.events import Sampling, Selectors, SourceLocation, VitalsMetrics
from .capture.kinds import KINDS, RejectedEvent
from .core.end_rules import END_RULES
from .core.sensitive_fields import vocabulary_for_js
from .core.telemetry.redact import PAGE_PATTERNS
from .error_tables import registrations
from .error_tables import write as write_error_tables
from .kind_tables import write as write_kind_tables

__all__ = ["GENERATED", "KEY", "render"]

GENERATED = Path(__file__).resolve().parents[2] / "extension" / "protocol.generated.js"
MESSAGES = GENERATED.with_name("messages.js")

PAYLOADS: tuple[type[BaseModel], ...] = (
    protocol.ErrorBody,
    protocol.FrameSnapshot,
    protocol.PageForms,
    protocol.TabRef,
    protocol.TabSnapshot,
    protocol.JsRegExp,
    protocol.FormsPolicyRule,
    protocol.PairingCredential,
    SourceLocation,
    Selectors,
    Sampling,
    VitalsMetrics,
    *(k.model for k in KINDS),
    RejectedEvent,
)


def _union(tp: Any) -> tuple[Any, ...]:
    if get_origin(tp) in (typing.Union, types.UnionType):
        return get_args(tp)
    return (tp,)


def _messages(union: Any) -> list[type[BaseModel]]:
    if get_origin(union) is typing.Annotated:
        union = get_args(union)[0]
    return [m for m in _union(union) if isinstance(m, type) and issubclass(m, BaseModel)]


def _type_name(model: type[BaseModel]) -> str:
    field = model.model_fields["type"]
    (value,) = get_args(field.annotation)
    return str(value)


def _kinds(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(str(v) for v in get_args(model.model_fields["kind"].annotation))


def _key(type_name: str) -> str:
    head, *rest = type_name.split(".")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _js_type(tp: Any) -> str:
    if isinstance(tp, typing.NewType):  # PageJson, PageValue: a page's value, on the wire its base type
        return _js_type(tp.__supertype__)
    if tp is Any or tp is object:
        return "*"
    origin = get_origin(tp)
    if origin is Literal:
        return "|".join(f"'{v}'" if isinstance(v, str) else str(v).lower() for v in get_args(tp))
    if origin is typing.Annotated:
        return _js_type(get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        parts = [_js_type(a) for a in get_args(tp) if a is not type(None)]
        return parts[0] if len(parts) == 1 else "(" + "|".join(parts) + ")"
    if origin is list:
        (item,) = get_args(tp) or (Any,)
        inner = _js_type(item)
        return f"Array<{inner}>" if inner != "*" else "Array<*>"
    if origin is dict or tp is dict:
        args = get_args(tp)
        return f"Object<string, {_js_type(args[1])}>" if args else "Object<string, *>"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp.__name__
    if isinstance(tp, type) and issubclass(tp, str):  # PageText: a page's string, on the wire a string
        return "string"
    return {bool: "boolean", int: "number", float: "number", str: "string"}.get(tp, "*")


def _doc(text: str | None) -> str:
    return " ".join((text or "").split())


def _typedef(model: type[BaseModel]) -> list[str]:
    lines = ["/**", f" * {_doc(model.__doc__) or model.__name__}", f" * @typedef {{object}} {model.__name__}"]
    for name, field in model.model_fields.items():
        alias = field.alias or name
        js = _js_type(field.annotation)
        label = alias if field.is_required() or name == "type" else f"[{alias}]"
        desc = _doc(field.description)
        lines.append(f" * @property {{{js}}} {label}{' ' + desc if desc else ''}")
    lines.append(" */")
    return lines


KEY = "tabmcp.protocol"
"""``globalThis[Symbol.for(KEY)]`` holds the generated names in every context."""


def _frozen(name: str, doc: str, items: dict[str, str]) -> list[str]:
    body = [f"    {k}: '{v}'," for k, v in items.items()]
    return [f"  /** {doc} */", f"  const {name} = Object.freeze({{", *body, "  });"]


def _errors_js() -> list[str]:
    """``ERROR``: every registered error code, with its meaning (:data:`tabmcp.errors.REGISTRY`)."""
    body = [f"    {r.code.name}: '{r.code.value}', // {r.meaning.replace('``', '`')}" for r in registrations()]
    return [
        "  /** Every error code on the wire and in tool results (tabmcp/errors.py; docs/protocol.md#error-codes). */",
        "  const ERROR = Object.freeze({",
        *body,
        "  });",
    ]


def _kinds_js() -> list[str]:
    """``KINDS``: each capture kind's buffer and the events the page holds between two batches."""
    body = [f"    {k.name}: Object.freeze({{ buffer: '{k.buffer.value}', pageCap: {k.page_cap} }})," for k in KINDS]
    return [
        "  /** The capture kinds (tabmcp/capture/kinds.py): where each is kept, and how many events of it",
        "   * the page holds between two batches (beyond, they are counted as dropped). */",
        "  const KINDS = Object.freeze({",
        *body,
        "  });",
    ]


def _patterns_js() -> list[str]:
    """``PATTERNS``: the fixed shapes the page redacts by, as the bridge wrote them (``{source, flags}``)."""
    body = [f"    {name}: Object.freeze({json.dumps(p.to_wire(), ensure_ascii=True)})," for name, p in PAGE_PATTERNS.items()]
    return [
        "  /** The fixed shapes both sides redact by (tabmcp/core/telemetry/redact.py PAGE_PATTERNS):",
        "   * `new RegExp(source, flags)`. */",
        "  const PATTERNS = Object.freeze({",
        *body,
        "  });",
    ]


def _end_rules_js() -> list[str]:
    """``END_RULES``: the rules that end the worker's pending requests, from :mod:`tabmcp.core.end_rules`."""
    body = [
        f"    {rule.value}: Object.freeze({{ code: '{spec.code.value}', reported: {str(spec.reported).lower()} }}),"
        f" // {spec.doc}"
        for rule, spec in END_RULES.items()
        if "worker" in spec.sides
    ]
    return [
        "  /** The rules that end a pending request before its answer (tabmcp/core/end_rules.py, one table",
        "   * with the bridge's session): the code it ends with, and whether the worker reports that end. */",
        "  const END_RULES = Object.freeze({",
        *body,
        "  });",
    ]


def _fields_json() -> str:
    """The vocabulary as a JS string literal of its JSON (parsed once by the page script)."""
    return json.dumps(json.dumps(vocabulary_for_js(), separators=(",", ":")))


def render() -> str:
    """The generated module's text."""
    out_models = _messages(protocol.ExtensionMessage)
    in_models = _messages(protocol.BridgeMessage)
    lines = [
        "// GENERATED from bridge/tabmcp/protocol.py and errors.REGISTRY by `python -m tabmcp.protocol_js`.",
        "// Do not edit: change the Python side and regenerate (bridge/tests/test_protocol_js.py checks it).",
        "// docs/protocol.md describes every message for humans.",
        "//",
        "// A classic script with no exports, safe to load twice: listed before the page scripts in",
        "// manifest.json, imported for its effect by protocol.js (service worker, extension pages).",
        f"// Every context reads the same frozen names from globalThis[Symbol.for('{KEY}')]. It ends with",
        "// a copy of messages.js, for the page's main world (see tabmcp/protocol_js.py for why).",
        "(() => {",
        f"  const KEY = Symbol.for('{KEY}');",
        "  if (globalThis[KEY]) return;",
        "",
        "  /** Bumped whenever a message or a field changes meaning. @type {number} */",
        f"  const PROTOCOL_VERSION = {protocol.PROTOCOL_VERSION};",
        "",
        *_frozen("OUT", "Extension → bridge message types.", {_key(_type_name(m)): _type_name(m) for m in out_models}),
        "",
        *_frozen("IN", "Bridge → extension message types.", {_key(_type_name(m)): _type_name(m) for m in in_models}),
        "",
        *_errors_js(),
        "",
        *_frozen("QUERY", "The kinds of live page queries.", {k: k for k in _kinds(protocol.PageQuery)}),
        "",
        *_kinds_js(),
        "",
        *_patterns_js(),
        "",
        *_end_rules_js(),
        "",
        "  /** What makes a form field a secret or payment one (tabmcp/core/sensitive_fields.py). */",
        "  const freeze = (o) => {",
        "    for (const v of Object.values(o)) if (v && typeof v === 'object') freeze(v);",
        "    return Object.freeze(o);",
        "  };",
        f"  const FIELDS = freeze(JSON.parse({_fields_json()}));",
        "",
        "  Object.defineProperty(globalThis, KEY, {",
        "    value: Object.freeze({ PROTOCOL_VERSION, OUT, IN, ERROR, QUERY, KINDS, PATTERNS, END_RULES, FIELDS }),",
        "  });",
        "})();",
        "",
        "// ---- payloads ----",
        "",
    ]
    for model in PAYLOADS:
        lines += [*_typedef(model), ""]
    lines += ["// ---- extension → bridge ----", ""]
    for model in out_models:
        lines += [*_typedef(model), ""]
    lines += ["// ---- bridge → extension ----", ""]
    for model in in_models:
        if model not in out_models:
            lines += [*_typedef(model), ""]
    lines += [
        "// ---- the extension's internal messages: a verbatim copy of messages.js ----",
        "",
        MESSAGES.read_text(encoding="utf-8").rstrip(),
    ]
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    GENERATED.write_text(render(), encoding="utf-8")
    print(f"wrote {GENERATED}")
    for path in write_error_tables():  # the same registry's tree (errors.py) and table (docs/protocol.md)
        print(f"wrote {path}")
    for path in write_kind_tables():  # the capture kinds' tables in docs/telemetry.md
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
