"""Translate a call made with enhanced argument names back to the page's names.

An enhanced schema may rename arguments (``uid`` becomes ``user_id``); the page still
expects ``uid``. The bridge calls :func:`map_arguments` before forwarding a call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabmcp_mediator.errors import ArgumentMappingError
from tabmcp_mediator.models import EnhancedTool


def map_arguments(tool: EnhancedTool, args: Mapping[str, Any] | None) -> dict[str, Any]:
    """Rename the arguments of a call to the names the page registered.

    Names absent from ``tool.argument_map`` pass through unchanged, so a tool that was
    never renamed costs nothing and unknown extras reach the page as sent.

    Args:
        tool: The enhanced tool the client called.
        args: The arguments as the client sent them (``None`` means none).

    Returns:
        A new dict keyed by the page's argument names.

    Raises:
        ArgumentMappingError: Two arguments land on one page name (e.g. the client sent
            both ``user_id`` and ``uid``), so one value would be silently lost.
    """
    mapped: dict[str, Any] = {}
    for name, value in (args or {}).items():
        original = tool.argument_map.get(name, name)
        if original in mapped:
            raise ArgumentMappingError(
                f"tool {tool.name!r}: argument {name!r} and another argument both map to {original!r}"
            )
        mapped[original] = value
    return mapped
