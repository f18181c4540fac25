"""The call path below a name: a category opened, a page tool run (``call_tool``'s definition
lives here; its handler and :func:`tabmcp.core.tools.catalog.run` in :mod:`.catalog`).

:func:`.catalog.run` tries, in order: a built-in tool, a category, a page tool
(:func:`call_page_tool`: scope, policy, trust, arguments, approval, secrets, the run, the result
through the gate), ``TOOL_GONE`` for a name whose origin's tool left, else ``TOOL_NOT_FOUND``;
while the person has paused agents, every call gets ``PAUSED`` first.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from ...errors import ErrorCode, OutOfScope, WritesDisabled
from ..budget import OverBudget
from ..output_schema import check_structured, structured_from_text
from ..registry import CategoryEntry, ToolEntry
from ..scoping import Decision
from ..secrets import check_use, placeholders_in, secrets_note
from ..trust.results import META_OURS
from ..trust.text import PageJson, ShownResult, listed, our_result, shown_result
from ..validation import LOOP_STEPS, validate_arguments
from .base import ToolContext, listed_schema, text
from .open_page import open_for_call
from .search import use_client

__all__ = ["DEFINITION", "SCHEMA", "call_page_tool", "expand_category", "page_result"]

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


async def expand_category(ctx: ToolContext, entry: CategoryEntry, name: str) -> ShownResult:
    disclosure = ctx.bridge.disclosure
    if not disclosure.visible_members(entry):
        raise OutOfScope(f"no tool of category {name} is available now", tool=name)
    body, structured, changed = disclosure.expand(entry, ctx.view)
    if changed:
        await ctx.notify_changed(expanded=name)
    return shown_result([listed(body)], structured)  # checked definitions (Disclosure.expand)


def _may_run(ctx: ToolContext, entry: ToolEntry, secrets: dict[str, str] | None = None) -> Decision:
    """Scope, policy and the trust defences: raises when the tool may not run; the decision.
    A call that names secrets (``secrets``: field → name) counts as a write, and each secret must
    be bound to the tool's origin (core/secrets.py)."""
    as_write = bool(secrets)
    decision = ctx.trust.gate(entry, ctx.bridge.policy_check.decide(entry, as_write=as_write), as_write=as_write)
    if not decision.visible:
        raise OutOfScope(f"{entry.public_name} is not available: {decision.reason}", tool=entry.public_name)
    if decision.code == ErrorCode.WRITES_DISABLED:
        why = "uses a secret, which counts as a write," if secrets else "may change data and"
        raise WritesDisabled(
            f"{entry.public_name} {why} writes are disabled. Enable them with {decision.setting}",
            tool=entry.public_name,
            setting=decision.setting,
        )
    if secrets:
        check_use(secrets.values(), ctx.bridge.secrets.vault, origin=entry.tab.origin, tool=entry.public_name,
                  definition_changed=ctx.trust.observe(entry).changed)
    return decision


async def call_page_tool(ctx: ToolContext, entry: ToolEntry, arguments: dict[str, Any]) -> ShownResult:
    """Run a page tool for an agent: scope and policy, arguments, approval, the run, the result.

    A closed site's tool is checked against its stored definition before its site opens, so nothing
    opens for a call that would be refused; then the live tool goes through every rule again.
    """
    if entry.tool.secret_fields:  # a page form's password / code / card field: a secret's name only
        agent_names = {page: agent for agent, page in (entry.tool.argument_map or {}).items()}
        ctx.bridge.secrets.check_secret_fields([agent_names.get(f, f) for f in entry.tool.secret_fields],
                                               arguments, tool=entry.public_name)
    secrets = placeholders_in(arguments)  # field → secret name: {{secret:NAME}} arguments
    if not entry.tab.is_open:
        _may_run(ctx, entry, secrets)
        validate_arguments(entry.public_name, entry.tool.input_schema, arguments)
        entry = await open_for_call(ctx, entry)
    decision = _may_run(ctx, entry, secrets)
    try:  # on the loop within a few milliseconds' steps; a costlier check runs off it, as results do
        with ctx.bridge.stalls.work(entry.tab.origin):  # the page's schema sets this cost (core/stalls.py)
            args = validate_arguments(entry.public_name, entry.tool.input_schema, arguments, steps=LOOP_STEPS)
    except OverBudget:
        args = await asyncio.to_thread(validate_arguments, entry.public_name, entry.tool.input_schema, arguments)
    if decision.needs_approval:  # the person sees which secret goes where, never its value
        reason = "\n".join(filter(None, [decision.reason, secrets_note(secrets)]))
        pending = await ctx.approve(entry, args, reason=reason)
        if pending is not None:
            return our_result(pending)  # input_required: the bridge's own
    if secrets:  # the values, put in last (the rules checked again); masked in every answer from now on
        args = ctx.bridge.secrets.put_in(args, origin=entry.tab.origin, tool=entry.public_name,
                                         definition_changed=ctx.trust.observe(entry).changed)
    result = await ctx.bridge.call_tool(entry, args)
    ctx.bridge.search_as_is.note_call(use_client(ctx), entry.public_name)  # a search that led here teaches it
    with ctx.bridge.stalls.work(entry.tab.origin):  # the page's result sets this cost (core/stalls.py)
        shown = _gated(ctx, entry, result)
    schema = entry.tool.output_schema
    if schema is None:
        return shown
    # Held to the schema the client was given (else BAD_RESULT); off the event loop, so the page's
    # budget never holds up other tabs' calls.
    await asyncio.to_thread(check_structured, entry.public_name, schema, shown)  # BadResult, or it holds
    return shown


def _gated(ctx: ToolContext, entry: ToolEntry, result: PageJson) -> ShownResult:
    """The page's result through the gate (on the loop: no await); with an outputSchema, its
    structured content is page data through the same gate."""
    if entry.tool.output_schema is None:
        return ctx.trust.result(entry, page_result(entry, result))  # cleaned, capped, framed, scanned
    return ctx.trust.result(entry, PageJson(structured_from_text(page_result(entry, result))))


def _as_text(value: Any) -> str:
    try:
        return json.dumps(value, default=str)[:1_000_000]
    except (ValueError, RecursionError):  # circular or nested past the encoder's depth
        return repr(value)[:100_000]


MCP_RESERVED = "io.modelcontextprotocol/"
"""The ``_meta`` prefix the protocol reserves for itself (``serverInfo`` on 2026-07-28 results)."""
_PLAIN_KEYS = frozenset({"content", "isError", "_meta"})
_TEXT_KEYS = frozenset({"type", "text"})


def _plain(result: Any) -> dict[str, Any] | None:
    """The wire form pydantic would give a result of text items only, built without it (``None`` for
    anything else): most results are a line of text, and the SDK validates the result again anyway."""
    if type(result) is not dict or not result.keys() <= _PLAIN_KEYS:
        return None
    content, is_error, meta = result.get("content"), result.get("isError", False), result.get("_meta")
    if type(content) is not list or type(is_error) is not bool or not (meta is None or type(meta) is dict):
        return None
    for item in content:
        if type(item) is not dict or item.keys() != _TEXT_KEYS or item["type"] != "text" or type(item["text"]) is not str:
            return None
    out: dict[str, Any] = {"content": [dict(item) for item in content], "isError": is_error}
    if meta is not None:
        out["_meta"] = dict(meta)
    return out


def page_result(entry: ToolEntry, result: PageJson) -> PageJson:
    """Check the page's CallToolResult; anything malformed is kept as text, never dropped."""
    try:
        out = _plain(result)
        if out is None:
            parsed = types.CallToolResult.model_validate(result)
            out = parsed.model_dump(by_alias=True, mode="json", exclude_none=True)
    except (ValidationError, ValueError, RecursionError):
        return PageJson({
            "content": [text(_as_text(result))],
            "_meta": {"tabmcp/note": "the page returned a result that is not a valid CallToolResult",
                      "tabmcp/source": entry.tab.source_meta()},
        })
    out.pop("resultType", None)
    # The page's own _meta keys in the bridge's namespace would pass as ours, and in MCP's reserved
    # one as the protocol's (a page's serverInfo would win the server's stamp): dropped.
    meta = {k: v for k, v in (out.get("_meta") or {}).items() if not k.startswith((META_OURS, MCP_RESERVED))}
    meta["tabmcp/source"] = entry.tab.source_meta()
    out["_meta"] = meta
    return PageJson(out)
