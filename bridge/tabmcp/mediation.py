"""The tool-middleware hook, and the adapter that plugs tabmcp-mediator into it.

The bridge applies one optional middleware to each tab's tools before disclosure::

    async def middleware(tools: list[dict], context: dict) -> dict | None:
        # tools: [{name, title?, description, inputSchema, annotations?}] as the page registered them
        # context: {source (host), sourceType: "web", origin, url, tabId, title}
        return {"tools": [{name, description, inputSchema, originalName, argumentMap?,
                           enhancedBy?, confidence?, category?}...],
                "categories": [{name, description, tools: [names]}]}   # or None: keep the tools

    core.set_tool_middleware(middleware)

:class:`Mediation` runs it on every tab snapshot on its way to the registry. The bridge never
imports the mediator package; :func:`load_mediator` imports it by name when ``[mediator]`` is enabled.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from .core.models import BRIDGE_ONLY_FIELDS
from .core.page_forms import PAGE_FORM_FIELD, SECRET_FIELDS_FIELD, merge_page_forms
from .core.registry import snapshot_origin, trusted_url
from .errors import ConfigError
from .protocol import TabSnapshot

__all__ = ["MEDIATION_QUIET_S", "Mediation", "ToolMiddleware", "load_mediator", "merge_enhanced"]

log = logging.getLogger("tabmcp.mediation")

MEDIATION_QUIET_S = 0.3
"""Eager enhancement waits for a tab's tool list to be quiet this long."""

ToolMiddleware = Callable[[list[dict[str, Any]], dict[str, Any]], Awaitable[dict[str, Any] | None]]


def load_mediator(settings: dict[str, Any]) -> tuple[ToolMiddleware, str]:
    """Build the middleware from the ``[mediator]`` section; returns it and its mode (eager/lazy).

    Raises:
        ConfigError: the package is missing or the section is invalid for it.
    """
    try:
        mod = importlib.import_module("tabmcp_mediator")
    except ImportError as exc:
        raise ConfigError(
            "[mediator] is enabled but tabmcp-mediator is not installed (pip install ./mediator)"
        ) from exc
    try:
        config = mod.MediatorConfig.model_validate(settings)
        mediator = mod.build_mediator(config)
    except Exception as exc:  # the package's own validation and config errors
        raise ConfigError(f"[mediator]: {exc}") from exc

    async def middleware(tools: list[dict[str, Any]], context: dict[str, Any]) -> dict[str, Any] | None:
        ctx = mod.ToolContext(source=context["source"], source_type="web", metadata=context)
        try:
            result = await mediator(tools, ctx)
        except mod.MediatorError as exc:
            log.warning("mediator failed for %s, serving the page's own tools: %s", context["source"], exc)
            return None
        return {
            "tools": [t.model_dump(by_alias=True, mode="json") for t in result.tools],
            "categories": [c.model_dump(by_alias=True, mode="json") for c in result.categories],
        }

    return middleware, str(config.mode)


class Mediation:
    """Applies the optional tool middleware to each tab's tools before they reach the registry.

    Args:
        on_enhanced: called with a tab's enhanced snapshot when enhancement finishes after
            :meth:`intake` returned (the caller puts it in the registry if the tab is still open).
    """

    def __init__(self, on_enhanced: Callable[[TabSnapshot], None]) -> None:
        self._on_enhanced = on_enhanced
        self._middleware: ToolMiddleware | None = None
        self._middleware_mode = "eager"
        self._middleware_timeout = 60.0
        self._mediated: dict[str, dict[str, Any] | None] = {}
        self._mediating: dict[int, tuple[str, asyncio.Task[None]]] = {}
        self._withheld: dict[int, tuple[TabSnapshot, str]] = {}
        self._mediation_timers: dict[int, asyncio.TimerHandle] = {}
        self._raw: dict[int, TabSnapshot] = {}

    def set_middleware(
        self, middleware: ToolMiddleware | None, *, mode: str = "eager", timeout_s: float = 60.0
    ) -> None:
        """Apply ``middleware`` to each tab's tools before disclosure (see :mod:`tabmcp.mediation`).

        A tab's tools are withheld until enhancement ends (or fails, or times out), so agents never
        see names that then change; ``eager`` starts at once, ``lazy`` on first need.
        """
        self._middleware = middleware
        self._middleware_mode = mode
        self._middleware_timeout = timeout_s
        self._mediated.clear()

    @staticmethod
    def _mediation_key(snap: TabSnapshot) -> str:
        data = json.dumps([snapshot_origin(snap), snap.tools, snap.categories], sort_keys=True, default=str)
        return hashlib.sha256(data.encode()).hexdigest()

    def intake(self, snap: TabSnapshot) -> TabSnapshot:
        """What to put in the registry for an incoming snapshot, now."""
        if _has_bridge_only_fields(snap.tools):
            snap = snap.model_copy(update={"tools": _without_bridge_only_fields(snap.tools)})
        if any(_has_bridge_only_fields(f.tools) for f in snap.frames):
            snap = snap.model_copy(update={"frames": [
                f.model_copy(update={"tools": _without_bridge_only_fields(f.tools)}) for f in snap.frames
            ]})
        # Page forms join the tools here, marked by the bridge, so the middleware improves them too.
        snap = merge_page_forms(snap)
        self._raw[snap.tab_id] = snap
        if self._middleware is None or not snap.tools:
            return snap
        key = self._mediation_key(snap)
        if key in self._mediated:
            return merge_enhanced(snap, self._mediated[key])
        self._withheld[snap.tab_id] = (snap, key)
        if self._middleware_mode == "eager":
            # Pages register tools one by one: enhance once the list has been quiet a moment,
            # not once per intermediate snapshot (each could cost an LLM call).
            timer = self._mediation_timers.pop(snap.tab_id, None)
            if timer is not None:
                timer.cancel()
            self._mediation_timers[snap.tab_id] = asyncio.get_running_loop().call_later(
                MEDIATION_QUIET_S, self._start_withheld, snap.tab_id
            )
        return snap.model_copy(update={"tools": [], "categories": []})

    def _start_withheld(self, tab_id: int) -> None:
        self._mediation_timers.pop(tab_id, None)
        pending = self._withheld.pop(tab_id, None)
        if pending is not None and self._raw.get(tab_id) is pending[0]:
            self._start_mediation(*pending)

    def _start_mediation(self, snap: TabSnapshot, key: str) -> None:
        running = self._mediating.get(snap.tab_id)
        if running is not None and running[0] == key:
            return
        # An older run is left to finish (its result is cached under its own key; cancelling it
        # could cancel an LLM call that a newer run shares).
        task = asyncio.get_running_loop().create_task(self._mediate(snap, key))
        self._mediating[snap.tab_id] = (key, task)

    async def _mediate(self, snap: TabSnapshot, key: str) -> None:
        assert self._middleware is not None
        origin = snapshot_origin(snap)
        host = urlsplit(origin).hostname or origin or "unknown"
        context = {"source": host, "sourceType": "web", "origin": origin, "url": trusted_url(snap, origin),
                   "tabId": snap.tab_id, "title": snap.title}
        tools = [t for t in snap.tools if isinstance(t, dict)]
        result: dict[str, Any] | None
        try:
            result = await asyncio.wait_for(self._middleware(tools, context), self._middleware_timeout)
        except TimeoutError:
            log.warning("tool middleware took longer than %.0fs for %s; serving the page's tools",
                        self._middleware_timeout, host)
            result = None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # we are being cancelled (the tab closed)
            log.warning("tool middleware was cancelled for %s; serving the page's tools", host)
            result = None
        except Exception:  # a middleware bug must not lose the page's tools
            log.exception("tool middleware failed for %s; serving the page's tools", host)
            result = None
        self._mediated[key] = result
        current = self._mediating.get(snap.tab_id)
        if current is not None and current[0] == key:
            del self._mediating[snap.tab_id]
        latest = self._raw.get(snap.tab_id)
        if latest is not None and self._mediation_key(latest) == key:
            self._on_enhanced(merge_enhanced(latest, result))

    @property
    def scheduled(self) -> bool:
        """Enhancement of some tab is armed (waiting for a quiet tool list) or running."""
        return bool(self._mediation_timers or self._mediating)

    def forget(self, tab_id: int) -> None:
        """The tab closed: drop its snapshots, timers and any enhancement still running."""
        self._raw.pop(tab_id, None)
        self._withheld.pop(tab_id, None)
        timer = self._mediation_timers.pop(tab_id, None)
        if timer is not None:
            timer.cancel()
        running = self._mediating.pop(tab_id, None)
        if running is not None:
            running[1].cancel()

    async def settle(self, timeout_s: float | None = None) -> None:
        """Let pending enhancement finish (withheld tabs start now) before answering a request."""
        for tab_id in list(self._withheld):
            timer = self._mediation_timers.pop(tab_id, None)
            if timer is not None:
                timer.cancel()
            self._start_withheld(tab_id)
        tasks = [task for _, task in self._mediating.values()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s if timeout_s is not None else self._middleware_timeout)


def _has_bridge_only_fields(tools: list[Any]) -> bool:
    return any(isinstance(t, dict) and any(f in t for f in BRIDGE_ONLY_FIELDS) for t in tools)


def _without_bridge_only_fields(tools: list[Any]) -> list[Any]:
    """Pages may not set what only the bridge's middleware sets (page names, argument maps, ...)."""
    return [{k: v for k, v in t.items() if k not in BRIDGE_ONLY_FIELDS} if isinstance(t, dict) else t for t in tools]




def merge_enhanced(snap: TabSnapshot, result: dict[str, Any] | None) -> TabSnapshot:
    """The snapshot with the middleware's tools and categories (the page's own fields kept)."""
    if not result or not isinstance(result.get("tools"), list):
        return snap
    raw_by_name = {t["name"]: t for t in snap.tools if isinstance(t, dict) and isinstance(t.get("name"), str)}
    renamed: dict[str, str] = {}
    tools: list[Any] = []
    for enhanced in result["tools"]:
        if not isinstance(enhanced, dict):
            continue
        original = enhanced.get("originalName") or enhanced.get("name")
        raw = raw_by_name.get(original)
        if raw is None or not isinstance(original, str):
            continue  # never a tool the page does not have
        name = enhanced.get("name") or original
        renamed[original] = name
        tool = {k: raw[k] for k in ("title", "annotations", "scope", "outputSchema", PAGE_FORM_FIELD,
                                    SECRET_FIELDS_FIELD) if k in raw}
        tool.update(
            name=name,
            description=enhanced.get("description") or raw.get("description"),
            inputSchema=enhanced.get("inputSchema") or raw.get("inputSchema"),
        )
        if name != original:
            tool["pageName"] = original
        if enhanced.get("argumentMap"):
            tool["argumentMap"] = enhanced["argumentMap"]
        tool["enhancement"] = {
            "originalName": original,
            "enhancedBy": enhanced.get("enhancedBy", "middleware"),
            "confidence": enhanced.get("confidence"),
        }
        tools.append(tool)
    for original, raw in raw_by_name.items():
        if original not in renamed:
            tools.append(raw)  # tools the middleware left out stay as the page registered them
            renamed[original] = original
    if snap.categories:
        categories: list[Any] = [
            {**c, "tools": [renamed.get(m, m) for m in c.get("tools", [])]} if isinstance(c, dict) else c
            for c in snap.categories
        ]
    else:
        categories = [c for c in result.get("categories") or [] if isinstance(c, dict)]
    return snap.model_copy(update={"tools": tools, "categories": categories})
