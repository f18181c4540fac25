"""The tool-middleware hook, and the adapter that plugs tabmcp-mediator into it.

The bridge applies one optional middleware to each tab's tools before disclosure::

    async def middleware(tools: list[dict], context: dict) -> dict | None:
        # tools: [{name, title?, description, inputSchema, annotations?}] as the page registered them
        # context: {source (host), sourceType: "web", origin, url, tabId, title}
        return {"tools": [{name, description, inputSchema, originalName, argumentMap?,
                           enhancedBy?, confidence?, category?}...],
                "categories": [{name, description, tools: [names]}]}   # or None: keep the tools

    hub.set_tool_middleware(middleware)

The bridge never imports the mediator package: :func:`load_mediator` imports it by name
when the ``[mediator]`` config section has ``enabled = true``.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .errors import ConfigError

__all__ = ["ToolMiddleware", "load_mediator"]

log = logging.getLogger("tabmcp.mediation")

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
