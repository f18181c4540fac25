"""The call path: ``call_tool``, and how any tools/call reaches a built-in, a category or a page tool.

Every tools/call goes through :func:`run`, in this order (while the person has paused agent
access, every call answers ``PAUSED`` before any of them):

1. a built-in tool: its arguments checked against its schema, then its handler;
2. a category: its visible members are returned (and, on handshake-era connections in the
   ``categories`` profile, join that client's tools/list);
3. a page tool (:func:`call_page_tool`): page scope, the user's policy and the trust defences
   (``OUT_OF_SCOPE``, ``WRITES_DISABLED``, approval for a changed definition or a lockdown),
   arguments against its inputSchema, approval when needed, the run in the tab, and the page's
   result checked, stamped with its source and processed by the trust defences;
4. a name listed for an origin whose tool left: ``TOOL_GONE`` (names never move to another origin);
5. otherwise ``TOOL_NOT_FOUND`` with the closest names.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from ...errors import ErrorCode, OutOfScope, ToolGone, ToolNotFound, ToolValidationError, WritesDisabled
from ..output_schema import check_structured, structured_from_text
from ..registry import CategoryEntry, ToolEntry
from ..scoping import Decision
from ..trust.results import META_OURS
from ..validation import validate_arguments
from .base import BuiltinTool, ToolContext, listed_schema, text
from .open_page import not_reachable, open_for_call
from .search import allowed, use_client

__all__ = ["CALL_TOOL", "call_page_tool", "page_result", "run"]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
    "required": ["name"],
    "additionalProperties": False,
}

DEFINITION: dict[str, Any] = {
    "name": "call_tool",
    "title": "Call a page tool",
    "description": (
        "Run a page tool by exact name, including one inside a category. "
        "Calling a category (no arguments) lists its tools with their schemas."
    ),
    "inputSchema": listed_schema(SCHEMA),
    "annotations": {"openWorldHint": True},
}


async def run(ctx: ToolContext, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Answer a tools/call of ``name``.

    Raises:
        ToolCallError: a named failure the agent sees as an ``isError`` result.
    """
    from . import BUILTIN_TOOLS  # the registry imports this module

    ctx.bridge.sync_controls()  # ``tabmcp controls pause`` counts at once, extension or not
    ctx.bridge.controls.check_not_paused()
    builtin = BUILTIN_TOOLS.get(name)
    if builtin is not None:
        if builtin.input_schema is not None:
            validate_arguments(name, builtin.input_schema, arguments)
        return await builtin.handler(ctx, arguments)
    entry = ctx.bridge.registry.resolve(name)
    if isinstance(entry, CategoryEntry):
        return await expand_category(ctx, entry, name)
    if isinstance(entry, ToolEntry):
        return await call_page_tool(ctx, entry, arguments)
    not_reachable(ctx, name)  # a tool of a site agents may not open: say how the person can allow it
    gone_from = ctx.bridge.registry.retired(name)
    if gone_from is not None:  # listed for an origin whose tool left: never another origin's tool
        raise ToolGone(
            f"{name!r} was {gone_from or 'a page'}'s tool, which no longer offers it; the name is never given "
            "to another site's tool. List the tools again to see what is offered now.",
            tool=name, origin=gone_from,
        )
    raise ToolNotFound(f"no tool named {name!r} in any open tab", tool=name, closest=closest(ctx, name) or None)


async def call_tool(ctx: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    from . import META_TOOLS

    target = arguments["name"]
    if target in META_TOOLS:
        raise ToolValidationError(f"call_tool runs page tools; call {target} directly", field="name")
    return await run(ctx, target, arguments.get("arguments") or {})


async def expand_category(ctx: ToolContext, entry: CategoryEntry, name: str) -> dict[str, Any]:
    disclosure = ctx.bridge.disclosure
    if not disclosure.visible_members(entry):
        raise OutOfScope(f"no tool of category {name} is available now", tool=name)
    body, structured, changed = disclosure.expand(entry, ctx.view)
    if changed:
        await ctx.notify_changed(expanded=name)
    return {"content": [text(body)], "structuredContent": structured}


def _may_run(ctx: ToolContext, entry: ToolEntry) -> Decision:
    """Scope, policy and the trust defences: raises when the tool may not run; the decision."""
    decision = ctx.trust.gate(entry, ctx.bridge.gate.decide(entry))  # a changed definition, a lockdown
    if not decision.visible:
        raise OutOfScope(f"{entry.public_name} is not available: {decision.reason}", tool=entry.public_name)
    if decision.code == ErrorCode.WRITES_DISABLED:
        raise WritesDisabled(
            f"{entry.public_name} may change data and writes are disabled. Enable them with {decision.setting}",
            tool=entry.public_name,
            setting=decision.setting,
        )
    return decision


async def call_page_tool(ctx: ToolContext, entry: ToolEntry, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run a page tool for an agent: scope and policy, arguments, approval, the run, the result.

    A closed reachable site's tool is checked against its stored definition first (nothing opens
    for a call that would be refused), then its site is opened in a background tab and the tool
    the page registered goes through every rule again (:func:`.open_page.open_for_call`).
    """
    if not entry.tab.is_open:
        _may_run(ctx, entry)
        validate_arguments(entry.public_name, entry.tool.input_schema, arguments)
        entry = await open_for_call(ctx, entry)
    decision = _may_run(ctx, entry)
    args = validate_arguments(entry.public_name, entry.tool.input_schema, arguments)
    if decision.needs_approval:
        pending = await ctx.approve(entry, args, reason=decision.reason)
        if pending is not None:
            return pending
    result = await ctx.bridge.call_tool(entry, args)
    ctx.bridge.search.note_call(use_client(ctx), entry.public_name)  # a search that led here teaches it
    schema = entry.tool.output_schema
    if schema is None:
        return ctx.trust.result(entry, page_result(entry, result))  # cleaned, capped, framed, scanned
    # A tool with an outputSchema: its structured content is page data through the same gate,
    # then held to the schema the client was given (else BAD_RESULT, never a result it rejects).
    shown = ctx.trust.result(entry, structured_from_text(page_result(entry, result)))
    return check_structured(entry.public_name, schema, shown)


def _as_text(value: Any) -> str:
    try:
        return json.dumps(value, default=str)[:1_000_000]
    except (ValueError, RecursionError):  # circular or nested past the encoder's depth
        return repr(value)[:100_000]


def page_result(entry: ToolEntry, result: dict[str, Any]) -> dict[str, Any]:
    """Check the page's CallToolResult; anything malformed is kept as text, never dropped."""
    try:
        parsed = types.CallToolResult.model_validate(result)
        out = parsed.model_dump(by_alias=True, mode="json", exclude_none=True)
    except (ValidationError, ValueError, RecursionError):
        return {
            "content": [text(_as_text(result))],
            "_meta": {"tabmcp/note": "the page returned a result that is not a valid CallToolResult",
                      "tabmcp/source": entry.tab.source_meta()},
        }
    out.pop("resultType", None)
    # The page's own _meta keys in the bridge's namespace would pass as ours: dropped.
    meta = {k: v for k, v in (out.get("_meta") or {}).items() if not k.startswith(META_OURS)}
    meta["tabmcp/source"] = entry.tab.source_meta()
    out["_meta"] = meta
    return out


def closest(ctx: ToolContext, name: str) -> list[str]:
    """Names close to a name that matched nothing: built-ins first, then allowed page tools."""
    from . import META_TOOLS

    names = ctx.bridge.search.closest_names(name, 5, allow=allowed(ctx))
    builtins = difflib.get_close_matches(name, list(META_TOOLS), n=2, cutoff=0.6)
    return (builtins + names)[:5]


CALL_TOOL = BuiltinTool("call_tool", call_tool, DEFINITION, SCHEMA)
