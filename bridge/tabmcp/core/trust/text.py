"""Page text as a type: what a page wrote (:class:`PageText`, :data:`Captured`, :data:`PageJson`),
and what the gate made of it (:data:`Shown`, :data:`Listed`, :data:`ShownResult`).

The builders of what the agent reads take only the gate's types, so strict mypy refuses a page
string that skipped the gate, as Trusted Types do for ``innerHTML`` (docs/security.md). The escapes
for the bridge's own text (:func:`ours`, :func:`listed`, :func:`our_result`) refuse page text by an
overload marked deprecated, which strict mypy reports as an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NewType, TypedDict, overload

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema
from typing_extensions import deprecated

__all__ = [
    "Captured",
    "Listed",
    "ListedAnnotations",
    "PageJson",
    "PageText",
    "PageValue",
    "Shown",
    "ShownResult",
    "ShownTree",
    "amended",
    "joined",
    "listed",
    "listed_definition",
    "our_result",
    "ours",
    "page_strings",
    "relisted",
    "shown_result",
]


class PageText(str):
    """A string a page wrote (a name, title, description, state, URL, schema or annotation text)."""

    __slots__ = ()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(cls, core_schema.str_schema())


Captured = NewType("Captured", str)
"""A string telemetry captured from a page, shown only through the gate
(:func:`tabmcp.core.tools.telemetry_tools.as_telemetry`); a ``NewType`` so ingest makes no object per string."""

Shown = NewType("Shown", str)
"""Text the agent or the person may be shown: made by the gate, or written by the bridge (:func:`ours`)."""

_PAST_THE_GATE = "page text reaches the agent only through the gate"


@overload
@deprecated("page text reaches the agent only through the gate")
def ours(text: PageText | Captured) -> Shown: ...
@overload
def ours(text: str) -> Shown: ...
def ours(text: str) -> Shown:
    """Text the bridge itself wrote (never a page's): shown as it is."""
    assert not isinstance(text, PageText), _PAST_THE_GATE
    return Shown(text)


@overload
@deprecated("page text reaches the agent only through the gate")
def listed(text: PageText | Captured) -> Shown: ...
@overload
def listed(text: str) -> Shown: ...
def listed(text: str) -> Shown:
    """Text built of checked definitions (their titles, descriptions and schemas as the
    definition check read them and :func:`tabmcp.core.trust.gate.definition_text` cleaned them)
    and the bridge's own words: what search, describe, context and an opened category answer."""
    return Shown(text)


PageJson = NewType("PageJson", dict[str, Any])
"""A JSON object a page wrote (a call's result, an error's details, a telemetry answer built of
captured events): a string at any depth is page text. Labelling a value so is always safe; only
the gate turns one into a :data:`ShownResult`."""

PageValue = NewType("PageValue", object)
"""Any JSON value a page wrote (a page query's answer): narrowed with ``isinstance`` before use."""

ShownResult = NewType("ShownResult", Mapping[str, Any])
"""A tool's answer (an MCP CallToolResult) the agent may receive: made by the gate from a
:data:`PageJson`, or by :func:`shown_result` from :data:`Shown` texts. Every built-in handler and
the call path return it, so a page value handed to the agent past the gate fails strict mypy. A
``Mapping``: once made it is not changed; :func:`amended` and :func:`joined` make new ones."""


ShownTree = NewType("ShownTree", Mapping[str, Any])
"""A page-written schema as a listing shows it: made by
:func:`tabmcp.core.trust.gate.definition_schema` from a checked definition's :data:`PageJson`
(a ``Mapping``: not changed once made)."""

Listed = NewType("Listed", Mapping[str, Any])
"""One page tool's or category's definition as the agent is shown it: made only by
:func:`listed_definition`, so a listing builder that puts a page's own field in it fails strict mypy
(a ``Mapping``: not changed once made; :func:`relisted` makes a changed copy of checked text)."""


class ListedAnnotations(TypedDict, total=False):
    """MCP tool annotations as listed: the title checked text, the hints yes or no."""

    title: Shown
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


def listed_definition(
    name: str,
    description: Shown,
    input_schema: ShownTree,
    *,
    meta: dict[str, Any] | None = None,
    output_schema: ShownTree | None = None,
    title: Shown | None = None,
    annotations: ListedAnnotations | None = None,
) -> Listed:
    """A listing entry of checked texts and schemas (``name``: the public name, an identifier the
    registry gave; ``meta``: the bridge's ``_meta``, whose page parts are checked text too)."""
    out: dict[str, Any] = {"name": name, "description": description, "inputSchema": input_schema}
    if meta is not None:
        out["_meta"] = meta
    if output_schema is not None:
        out["outputSchema"] = output_schema
    if title is not None:
        out["title"] = title
    if annotations:
        out["annotations"] = annotations
    return Listed(out)


@overload
@deprecated("page text reaches the agent only through the gate")
def relisted(definition: Listed, description: Shown, meta: PageJson) -> Listed: ...
@overload
def relisted(definition: Listed, description: Shown, meta: Mapping[str, Any]) -> Listed: ...
def relisted(definition: Listed, description: Shown, meta: Mapping[str, Any]) -> Listed:
    """A listing entry with another checked description and more of the bridge's ``_meta`` keys
    (checked text too): a new entry, the given one unchanged."""
    return Listed({**definition, "description": description, "_meta": {**definition.get("_meta", {}), **meta}})


@overload
@deprecated("page text reaches the agent only through the gate")
def shown_result(
    texts: list[Shown], structured: PageJson, *, meta: dict[str, Any] | None = None
) -> ShownResult: ...
@overload
@deprecated("page text reaches the agent only through the gate")
def shown_result(
    texts: list[Shown], structured: dict[str, Any] | None = None, *, meta: PageJson
) -> ShownResult: ...
@overload
def shown_result(
    texts: list[Shown], structured: dict[str, Any] | None = None, *, meta: dict[str, Any] | None = None
) -> ShownResult: ...
def shown_result(
    texts: list[Shown], structured: dict[str, Any] | None = None, *, meta: dict[str, Any] | None = None
) -> ShownResult:
    """An answer of text parts the agent may be shown (``structured``: the same, as data)."""
    out: dict[str, Any] = {"content": [{"type": "text", "text": t} for t in texts]}
    if structured is not None:
        out["structuredContent"] = structured
    if meta is not None:
        out["_meta"] = meta
    return ShownResult(out)


@overload
@deprecated("page text reaches the agent only through the gate")
def our_result(result: PageJson) -> ShownResult: ...
@overload
def our_result(result: dict[str, Any]) -> ShownResult: ...
def our_result(result: dict[str, Any]) -> ShownResult:
    """An answer the bridge wrote itself, with no page text in it (``input_required``)."""
    return ShownResult(result)


@overload
@deprecated("page text reaches the agent only through the gate")
def amended(
    result: ShownResult, /, *, structured: PageJson, meta: Mapping[str, Any] | None = None,
    is_error: bool | None = None, result_type: str | None = None,
) -> ShownResult: ...
@overload
@deprecated("page text reaches the agent only through the gate")
def amended(
    result: ShownResult, /, *, structured: Mapping[str, Any] | None = None, meta: PageJson,
    is_error: bool | None = None, result_type: str | None = None,
) -> ShownResult: ...
@overload
def amended(
    result: ShownResult, /, *, structured: Mapping[str, Any] | None = None, meta: Mapping[str, Any] | None = None,
    is_error: bool | None = None, result_type: str | None = None,
) -> ShownResult: ...
def amended(
    result: ShownResult, /, *, structured: Mapping[str, Any] | None = None, meta: Mapping[str, Any] | None = None,
    is_error: bool | None = None, result_type: str | None = None,
) -> ShownResult:
    """A new answer: ``result`` with the bridge's own fields (``structured`` in place of its
    ``structuredContent``, ``meta`` keys added to its ``_meta``, ``isError``, and ``resultType``
    unless it has one); the given answer is unchanged."""
    out = dict(result)
    if structured is not None:
        out["structuredContent"] = structured
    if meta:
        out["_meta"] = {**(result.get("_meta") or {}), **meta}
    if is_error is not None:
        out["isError"] = is_error
    if result_type is not None and "resultType" not in result:
        out["resultType"] = result_type
    return ShownResult(out)


def joined(first: ShownResult, then: ShownResult) -> ShownResult:
    """One answer of two the gate or the bridge made: ``then``'s content after ``first``'s, both
    ``_meta`` merged (``then``'s keys win); ``first``'s other fields kept."""
    out = dict(first)
    out["content"] = [*first.get("content", ()), *then.get("content", ())]
    meta = {**(first.get("_meta") or {}), **(then.get("_meta") or {})}
    if meta:
        out["_meta"] = meta
    return ShownResult(out)


def page_strings(value: Any, place: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a page-written JSON value, keys too, with where it is (``properties/x/description``);
    iterative, so no depth breaks it."""
    stack: list[tuple[Any, str]] = [(value, place)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            for key, sub in item.items():
                here = f"{where}/{key}" if where else str(key)
                if isinstance(key, str):
                    yield (where or "(root)"), key
                stack.append((sub, here))
        elif isinstance(item, list | tuple):
            stack.extend((sub, f"{where}/{i}") for i, sub in enumerate(item))
