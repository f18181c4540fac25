"""Validated page tools and categories: what the registry keeps after checking a snapshot.

Everything a page sends is untrusted input. Each tool is validated on its own (name rules,
length limits, a JSON Schema that is itself valid), so one bad tool is rejected with a
named reason while the rest of the tab is kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections import OrderedDict
from typing import Any, Literal

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from .budget import OVER_BUDGET_NOTE, OverBudget, check_schema, scope_exhausted
from .ecma_regex import ECMA_2020_12, ECMA_DRAFT7, ecma_validator_class
from .lru import LRU
from .output_schema import check_output_schema
from .trust.text import PageJson, PageText
from .unchecked import unchecked_parts

__all__ = [
    "BRIDGE_ONLY_FIELDS",
    "MAX_DESCRIPTION",
    "MAX_SCHEMA_BYTES",
    "MAX_TITLE",
    "TOOL_NAME_RE",
    "PageCategory",
    "PageTool",
    "Rejection",
    "Scope",
    "parse_category",
    "parse_tool",
    "schema_validator_class",
    "upgrade_draft4",
    "verified_dialect",
]

TOOL_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,128}\Z")
"""Use with ``fullmatch`` (``$`` would also accept a trailing newline)."""
"""The WebMCP draft's (and Chromium's) rule for tool names; MCP allows the same set."""

MAX_DESCRIPTION = 8_000
MAX_TITLE = 200
MAX_SCHEMA_BYTES = 64 * 1024
MAX_STATES = 64
MAX_SCHEMA_DEPTH = 64
"""JSON nesting levels (a schema level is about two: a property map, then the property)."""


def _depth(value: Any, limit: int = MAX_SCHEMA_DEPTH + 1) -> int:
    """Nesting depth of JSON data, counted up to ``limit`` (iteratively: no recursion to exhaust)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest >= limit:
                return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest
BRIDGE_ONLY_FIELDS = (
    "pageName", "page_name", "argumentMap", "argument_map", "enhancement", "warnings",
    "pageForm", "page_form", "secretFields", "secret_fields",
    "outputSchemaDropped", "output_schema_dropped", "unchecked",
)
"""Fields only the bridge's own middleware may set; stripped from what pages send."""


def schema_validator_class(schema: dict[str, Any]) -> type[Validator]:
    """The JSON Schema dialect a tool's inputSchema is written in.

    ``$schema`` decides when present; otherwise 2020-12, or Draft 7 for a schema valid only as
    Draft 7 (real servers still publish older shapes). Memoized by content: each answer costs a
    meta-schema check (about 2 ms) and is asked for more than once per tool.
    """
    try:
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return _dialect_of(schema)
    hit = _DIALECTS.get(key)
    if hit is None:
        hit = _DIALECTS[key] = _dialect_of(schema)
    return hit


_DIALECTS: LRU[str, type[Validator]] = LRU(4096)


def checked_dialect(schema: dict[str, Any]) -> type[Validator]:
    """``schema_validator_class(schema)`` after its ``check_schema(schema)`` (raising
    :class:`SchemaError`). A schema without ``$schema`` that passes 2020-12's check is 2020-12
    (the check is the dialect test plus formats), so the common case costs one meta-schema pass."""
    if "$schema" not in schema:
        try:
            ECMA_2020_12.check_schema(schema)
        except SchemaError:
            pass
        else:
            with contextlib.suppress(TypeError, ValueError, RecursionError):
                _DIALECTS[json.dumps(schema, sort_keys=True, separators=(",", ":"))] = ECMA_2020_12
            return ECMA_2020_12
    cls = schema_validator_class(schema)
    cls.check_schema(schema)
    return cls


def verified_dialect(schema: dict[str, Any]) -> type[Validator] | None:
    """:func:`checked_dialect`, or None when its meta-schema check ran over budget (arguments then
    go unchecked, and :mod:`tabmcp.core.unchecked` says so). A check skipped for a spent document
    budget is not memoized.

    Raises:
        SchemaError: the schema is not valid.
    """
    try:
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None
    if key in _VERIFIED:
        return _VERIFIED.get(key)
    skipped = scope_exhausted()
    try:
        cls: type[Validator] | None = checked_dialect(schema)
    except OverBudget:
        cls = None
        if skipped:
            return None
    _VERIFIED[key] = cls
    return cls


_VERIFIED: LRU[str, type[Validator] | None] = LRU(4096)


def _valid_under(cls: type[Validator], schema: dict[str, Any]) -> bool:
    try:
        check_schema(cls, schema)
    except SchemaError:
        return False
    return True


def _dialect_of(schema: dict[str, Any]) -> type[Validator]:
    if "$schema" in schema:
        if not isinstance(schema["$schema"], str):
            raise ValueError("$schema must be a string (the dialect's URI)")
        return ecma_validator_class(validator_for(schema, default=Draft202012Validator))
    try:  # meta-schema checks, counted (core/budget.py): past the budget, 2020-12 is assumed
        if _valid_under(Draft202012Validator, schema):
            return ECMA_2020_12
        if _valid_under(Draft7Validator, schema):
            return ECMA_DRAFT7
    except OverBudget:
        pass
    return ECMA_2020_12


def upgrade_draft4(schema: Any) -> Any:
    """A copy of ``schema`` with Draft 4's boolean ``exclusiveMinimum``/``exclusiveMaximum`` as numbers.

    Real servers still generate the Draft 4 form, which 2020-12 (what MCP clients check) refuses.
    """
    if isinstance(schema, list):
        return [upgrade_draft4(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: upgrade_draft4(value) for key, value in schema.items()}
    for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(out.get(flag), bool):
            if out.pop(flag) and isinstance(out.get(bound), int | float) and not isinstance(out[bound], bool):
                out[flag] = out.pop(bound)
    if isinstance(out.get("$schema"), str) and "draft-04" in out["$schema"]:
        del out["$schema"]  # now written in the modern dialect
    return out


def _has_draft4_exclusive(schema: Any) -> bool:
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("exclusiveMinimum"), bool) or isinstance(item.get("exclusiveMaximum"), bool):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)


class Scope(_Model):
    """A page's own statement of where and when a tool applies (our extension to WebMCP)."""

    routes: tuple[str, ...] | None = None
    """URL path or hash globs (``/admin/*``, ``#/users*``); the tool applies on any of them."""
    states: tuple[str, ...] | None = None
    """Page states that must all be set (``modelContext.setStates([...])``)."""
    danger_level: Literal["safe", "moderate", "destructive"] | None = None
    ai_enabled: bool | None = None
    requires_approval: bool | None = None
    core: bool | None = None
    """The page suggests listing this tool directly in the ``hybrid`` profile."""


class PageTool(_Model):
    name: str
    title: PageText | None = None
    description: PageText
    input_schema: PageJson = Field(default_factory=lambda: PageJson({"type": "object", "properties": {}}))
    """The page's words at any depth (descriptions, titles, examples): read whole by the definition
    check, shown only as :func:`~tabmcp.core.trust.gate.definition_tree` made it."""
    annotations: PageJson = Field(default_factory=lambda: PageJson({}))
    output_schema: PageJson | None = None
    """The page's ``outputSchema`` (Chrome 159), relayed as the MCP tool's: set by :func:`parse_tool`
    only when MCP clients can use it (:mod:`tabmcp.core.output_schema`)."""
    output_schema_dropped: str | None = None
    """Set by the bridge (never by the page): why the page's ``outputSchema`` is not relayed (the
    tool is kept without it, and the reason reported like a refused definition)."""
    category: str | None = None
    scope: Scope | None = None
    page_name: str | None = None
    """The name the page registered, when the tool middleware renamed the tool."""
    argument_map: dict[str, str] | None = None
    """Middleware renames of arguments: new name → the page's name."""
    enhancement: dict[str, Any] | None = None
    """What the middleware did (original name, enhancedBy, confidence), shown in ``_meta``."""
    unchecked: tuple[str, ...] = ()
    """Set by the bridge (never by the page): what of the input schema arguments are not checked
    against (:mod:`tabmcp.core.unchecked`); the tool is kept, and this is shown."""
    warnings: tuple[str, ...] = ()
    """Set by the registry (never by the page): why the definition looks like prompt injection."""
    page_form: bool = False
    """Set by the bridge (never by the page): an ordinary form of the page, offered because the
    person turned forms-as-tools on for its origin (core/page_forms.py), not a tool the site declared."""
    secret_fields: tuple[str, ...] = ()
    """Set by the bridge (never by the page): a page form's password, one-time-code or card fields
    (the page's names), which take only a secret's name, ``{{secret:NAME}}`` (core/page_forms.py)."""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not TOOL_NAME_RE.fullmatch(v):
            raise ValueError("tool names are 1-128 characters of A-Z a-z 0-9 _ . -")
        return v

    @property
    def call_name(self) -> str:
        """The name to call on the page."""
        return self.page_name or self.name

    def page_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Arguments under the page's own names (undoing middleware renames)."""
        if not self.argument_map:
            return arguments
        return {self.argument_map.get(k, k): v for k, v in arguments.items()}

    @field_validator("title")
    @classmethod
    def _title(cls, v: PageText | None) -> PageText | None:
        if v is not None and len(v) > MAX_TITLE:
            raise ValueError(f"title longer than {MAX_TITLE} characters")
        return v or None

    @field_validator("description")
    @classmethod
    def _description(cls, v: PageText) -> PageText:
        if not v.strip():
            raise ValueError("description is required")
        if len(v) > MAX_DESCRIPTION:
            raise ValueError(f"description longer than {MAX_DESCRIPTION} characters")
        return v

    @field_validator("input_schema", mode="before")
    @classmethod
    def _schema(cls, v: Any) -> dict[str, Any]:
        if v is None:
            return {"type": "object", "properties": {}}
        if not isinstance(v, dict):
            raise ValueError("inputSchema must be a JSON object")
        size = len(json.dumps(v))
        if size > MAX_SCHEMA_BYTES:
            raise ValueError(f"inputSchema is {size} bytes, more than {MAX_SCHEMA_BYTES}")
        if v.get("type", "object") != "object":
            raise ValueError("inputSchema must describe an object (type: 'object')")
        if _depth(v) > MAX_SCHEMA_DEPTH:
            raise ValueError(f"inputSchema is nested more than {MAX_SCHEMA_DEPTH} levels deep")
        if _has_draft4_exclusive(v):
            v = upgrade_draft4(v)
        try:
            # A $ref that never resolves or loops is not a reason to refuse: the browser keeps the
            # tool, the bridge too, and checks arguments without it (core/unchecked.py says so).
            # A meta-schema check over budget keeps the schema unread, the same way.
            verified_dialect(v)
        except RecursionError:
            raise ValueError("inputSchema is nested too deeply") from None
        except SchemaError as exc:
            # the place and the rule, never the validator's message: it quotes the page's value
            path = "/".join(str(p) for p in exc.path)[:300] or "(root)"
            raise ValueError(f"inputSchema is not a valid JSON Schema at {path}: breaks its "
                             f"meta-schema's {exc.validator!r} rule") from None
        if "type" not in v:
            v = {"type": "object", **v}
        schema: dict[str, Any] = v
        return schema

    @field_validator("annotations", mode="before")
    @classmethod
    def _annotations(cls, v: Any) -> dict[str, Any]:
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise ValueError("annotations must be an object")
        # A hint is a yes or no (MCP's and WebMCP's): a page's text in one is not relayed.
        return {k: val for k, val in v.items() if isinstance(val, bool)
                or (isinstance(val, str | int | float) and not (k.endswith("Hint") or k == "debugging"))}

    @property
    def read_only(self) -> bool:
        return bool(self.annotations.get("readOnlyHint"))

    @property
    def destructive(self) -> bool:
        if self.scope and self.scope.danger_level == "destructive":
            return True
        return bool(self.annotations.get("destructiveHint"))


class PageCategory(_Model):
    name: str
    description: PageText
    tools: tuple[str, ...] = ()
    scope: Scope | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not TOOL_NAME_RE.fullmatch(v):
            raise ValueError("category names are 1-128 characters of A-Z a-z 0-9 _ . -")
        return v

    @field_validator("description")
    @classmethod
    def _description(cls, v: PageText) -> PageText:
        if not v.strip():
            raise ValueError("description is required")
        if len(v) > MAX_DESCRIPTION:
            raise ValueError(f"description longer than {MAX_DESCRIPTION} characters")
        return v


class Rejection(_Model):
    """A tool or category the registry refused, and why (shown by introspection, logged)."""

    kind: Literal["tool", "category", "member", "state", "outputSchema"]
    """``outputSchema``: the tool is kept, only its output schema is not relayed."""
    name: str
    reason: str


def _reason(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)


def _name_of(raw: Any) -> str:
    name = raw.get("name") if isinstance(raw, dict) else None
    return name[:128] if isinstance(name, str) else "(unnamed)"


def parse_tool(raw: Any) -> PageTool | Rejection:
    """Validate one tool from a snapshot; a :class:`Rejection` says why it was refused.

    Memoized by content: pages re-send every tool with each snapshot, and a meta-schema check costs milliseconds.
    """
    if not isinstance(raw, dict):
        return Rejection(kind="tool", name="(unnamed)", reason="a tool must be a JSON object")
    try:
        content = json.dumps(raw, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return _parse_tool(raw)
    key = hashlib.blake2b(content.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    if scope_exhausted():  # its checks are skipped for this document only: not an outcome to keep
        return _PARSED.get(key) or _parse_tool(json.loads(content))
    hit = _PARSED.get(key)
    if hit is None:
        hit = _PARSED[key] = _parse_tool(json.loads(content))
        if len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    else:
        with contextlib.suppress(KeyError):  # evicted meanwhile by the other thread that parses (server/reader.py)
            _PARSED.move_to_end(key)
    return hit


_PARSED: OrderedDict[bytes, PageTool | Rejection] = OrderedDict()
"""Outcomes by a digest of the definition (16 bytes a key, not the definition), newest last; the
same content gives the same object (trust pins and kept renderings know a tool by identity)."""
_PARSED_MAX = 8192


def _parse_tool(raw: dict[str, Any]) -> PageTool | Rejection:
    given = raw.get("outputSchema")
    raw = {k: v for k, v in raw.items() if k not in _OUTPUT_FIELDS}  # the bridge sets these
    try:
        tool = PageTool.model_validate(raw)
    except ValidationError as exc:
        return Rejection(kind="tool", name=_name_of(raw), reason=_reason(exc))
    if verified_dialect(tool.input_schema) is None:  # its meta-schema check ran over budget
        notes: tuple[str, ...] = (f"the input schema: {OVER_BUDGET_NOTE}",)
    else:
        notes = unchecked_parts(tool.input_schema, schema_validator_class(tool.input_schema))
    if notes:
        tool = tool.model_copy(update={"unchecked": notes})
    if given is None:
        return tool
    schema, dropped = check_output_schema(given)
    return tool.model_copy(update={"output_schema": schema, "output_schema_dropped": dropped})


_OUTPUT_FIELDS = frozenset({"outputSchema", "output_schema", "outputSchemaDropped", "output_schema_dropped", "unchecked"})


def parse_category(raw: Any) -> PageCategory | Rejection:
    """Validate one category from a snapshot."""
    if not isinstance(raw, dict):
        return Rejection(kind="category", name="(unnamed)", reason="a category must be a JSON object")
    try:
        return PageCategory.model_validate(raw)
    except ValidationError as exc:
        return Rejection(kind="category", name=_name_of(raw), reason=_reason(exc))
