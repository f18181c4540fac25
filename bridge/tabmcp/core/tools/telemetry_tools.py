"""The telemetry tools' handlers, which add what needs the live page (page facts, an axe-core audit);
their definitions come from :mod:`tabmcp.core.telemetry.definitions`.
"""

from __future__ import annotations

import json
from typing import Any

from ... import errors
from .. import telemetry as telemetry_core
from ..trust.text import PageJson, PageValue, ShownResult, amended, joined, ours, shown_result
from .base import BuiltinTool, ToolContext, text

__all__ = ["ANALYZE", "CONFIGURE", "GENERATE", "OBSERVE", "as_telemetry", "live"]


def live_tab(ctx: ToolContext, arguments: dict[str, Any]) -> int:
    """The tab a live question goes to: ``tab_id``, or the one the person looks at."""
    tab_id = arguments.get("tab_id") or ctx.bridge.focused_tab()
    if tab_id is None:
        raise errors.TabClosed("no open tab to ask")
    return int(tab_id)


async def live(ctx: ToolContext, arguments: dict[str, Any], kind: str,
               args: dict[str, Any] | None = None) -> PageValue:
    """Ask the tab (``tab_id`` or the one the person looks at) for a live answer."""
    return await ctx.bridge.page_query(live_tab(ctx, arguments), kind, args)


def as_page_content(ctx: ToolContext, tab_id: int, tool: str, result: PageJson) -> ShownResult:
    """A built-in's result made of the page's own text, through the trust defences."""
    tab = ctx.bridge.registry.tab(tab_id)
    return ctx.trust.page_content(tab.origin if tab else "", tab.url if tab else "", tool, result)


TELEMETRY_ORIGIN = "the pages' telemetry"
"""Who wrote a telemetry answer that spans tabs (console output, errors, bodies of many pages)."""


def as_telemetry(ctx: ToolContext, arguments: dict[str, Any], tool: str, result: PageJson) -> ShownResult:
    """A telemetry answer through the trust gate: console output, errors and network bodies are
    the pages' own words (cleaned, capped, framed, scanned; a flag starts the lockdown)."""
    tab_id = arguments.get("tab_id")
    tab = ctx.bridge.registry.tab(int(tab_id)) if isinstance(tab_id, int) else None
    origin, url = (tab.origin, tab.url) if tab else (TELEMETRY_ORIGIN, "")
    return ctx.trust.page_content(origin, url, tool, result)


async def observe(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    store = ctx.bridge.telemetry
    answer = telemetry_core.observe(store, arguments)
    result = as_telemetry(ctx, arguments, "observe", answer.to_call_result())
    if arguments.get("what") == "page":
        shown_page: Any
        try:
            tab_id = live_tab(ctx, arguments)
            page = await ctx.bridge.page_query(tab_id, "page", None)
        except errors.ToolCallError as exc:
            if isinstance(exc, errors.PageError):  # the page's own words: through the gate
                tab = ctx.bridge.registry.tab(exc.tab_id) if exc.tab_id is not None else None
                exc = ctx.trust.page_error(exc, tab.origin if tab else "", tab.url if tab else "", "observe")
            shown_page = {"unavailable": exc.to_dict()}
            shown = exc.shown or ours(json.dumps(shown_page, ensure_ascii=False)[:4000])
            result = joined(result, shown_result([ours("Live page: " + shown)]))
        else:
            # The page's title, headings and text are the page's words: untrusted content.
            framed = as_page_content(ctx, tab_id, "observe", PageJson({
                "content": [text("Live page: " + json.dumps(page, ensure_ascii=False)[:4000])],
                "structuredContent": page if isinstance(page, dict) else {"result": page},
            }))
            # the gate's copy only: one too large is dropped (its _meta says so), never the page's own
            shown_page = framed.get("structuredContent", {"dropped": "too large (see _meta tabmcp/trust)"})
            result = joined(result, framed)
        result = amended(result, structured={**(result.get("structuredContent") or {}), "page": shown_page})
    if ctx.view.exposure.note_observe(exposure_enabled=store.settings.dynamic_exposure):
        await ctx.notify_changed()
    return result


async def _axe(ctx: ToolContext, arguments: dict[str, Any]) -> PageJson:
    result = await live(ctx, arguments, "axe", {"options": arguments.get("axe_options") or {}})
    if not isinstance(result, dict):
        raise errors.PageError("the page returned no accessibility audit")
    return PageJson(result)


async def analyze(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    axe = await _axe(ctx, arguments) if arguments.get("target") == "accessibility" else None
    answer = telemetry_core.analyze(ctx.bridge.telemetry, arguments, axe_results=axe)
    return as_telemetry(ctx, arguments, "analyze", answer.to_call_result())


async def generate(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    """A HAR, SARIF or Playwright file is built of what pages captured (bodies, console errors,
    typed text, URLs): through the gate like ``observe``'s answer."""
    axe = await _axe(ctx, arguments) if arguments.get("format") == "sarif" else None
    answer = telemetry_core.generate(ctx.bridge.telemetry, arguments, axe_results=axe)
    return as_telemetry(ctx, arguments, "generate", answer.to_call_result())


async def configure(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    answer = telemetry_core.configure(ctx.bridge.telemetry, arguments, sessions=ctx.bridge.sessions)
    ctx.bridge.page_config_changed()  # new redaction rules reach every page
    # the settings, and the tabs the telemetry holds (their URLs the pages'): through the gate
    return as_telemetry(ctx, arguments, "configure", answer.to_call_result())


OBSERVE = BuiltinTool("observe", observe)
ANALYZE = BuiltinTool("analyze", analyze)
GENERATE = BuiltinTool("generate", generate)
CONFIGURE = BuiltinTool("configure", configure)
