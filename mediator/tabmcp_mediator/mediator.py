"""The mediator: runs transformers in priority order and guarantees the renaming contract."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from tabmcp_mediator.errors import InvalidToolError, MediatorError
from tabmcp_mediator.grouping import group_tools
from tabmcp_mediator.models import (
    UNCATEGORIZED,
    EnhancedTool,
    EnhancementResult,
    FilterCriteria,
    RawTool,
    ToolContext,
    empty_object_schema,
)
from tabmcp_mediator.naming import sanitize_name, unique_names
from tabmcp_mediator.protocol import ToolTransformer

log = logging.getLogger(__name__)

DEFAULT_GROUPING_THRESHOLD = 10

ToolInput = RawTool | Mapping[str, Any]
"""A raw tool, or the plain ``{"name", "description", "inputSchema"}`` dict a page sends."""


class ToolMediator:
    """Coordinates transformers between tool sources (pages) and consumers (agents).

    Whatever the transformers return, :meth:`enhance` hands out exactly one tool per raw
    tool, in source order, each with a legal name unique within the source and its
    ``original_name``; tools no transformer claims fall back to passthrough.
    """

    def __init__(self, grouping_threshold: int = DEFAULT_GROUPING_THRESHOLD) -> None:
        """Create an empty mediator.

        Args:
            grouping_threshold: :meth:`process` groups a source with more tools than this.
        """
        self.grouping_threshold = grouping_threshold
        self._transformers: list[ToolTransformer] = []

    @property
    def transformers(self) -> list[ToolTransformer]:
        """The chain, highest priority first (ties keep registration order)."""
        return list(self._transformers)

    def use(self, transformer: ToolTransformer) -> ToolMediator:
        """Add a transformer to the chain; returns the mediator for chaining.

        Raises:
            TypeError: ``transformer`` lacks ``name``, ``priority`` or ``transform`` (caught here,
                not at the first page whose tools it should have enhanced).
        """
        if not isinstance(transformer, ToolTransformer) or not isinstance(transformer.priority, int):
            raise TypeError(
                f"{transformer!r} is not a tool transformer: it needs a name, an int priority and "
                "an async transform(tools, context) method"
            )
        self._transformers.append(transformer)
        self._transformers.sort(key=lambda t: -t.priority)
        return self

    async def enhance(self, tools: Sequence[ToolInput], context: ToolContext) -> list[EnhancedTool]:
        """Run the chain: first non-None answer wins, per tool.

        A transformer that returns ``None`` or raises a :class:`MediatorError` passes its tools on;
        unclaimed tools come back unchanged, and answers about tools not in the batch are ignored.

        Raises:
            InvalidToolError: An input is not a tool (no name, wrong field types).
        """
        raw = _unique_raw(tools)
        pending = {tool.name: tool for tool in raw}
        done: dict[str, EnhancedTool] = {}
        for transformer in self._transformers:
            if not pending:
                break
            try:
                answer = await transformer.transform(list(pending.values()), context)
            except MediatorError as exc:
                log.warning("transformer %s failed for %s: %s", transformer.name, context.source, exc)
                continue
            for tool in answer or []:
                if tool.original_name in pending:
                    done[tool.original_name] = tool
                    del pending[tool.original_name]
        for leftover in pending.values():
            done[leftover.name] = passthrough(leftover)
        return _with_unique_names([done[tool.name] for tool in raw])

    async def process(self, tools: Sequence[ToolInput], context: ToolContext) -> EnhancementResult:
        """Enhance, then group when the source has more tools than the threshold.

        This is the middleware entry point for a bridge: ``(tools, context)`` in, enhanced
        tools and categories out.
        """
        enhanced = await self.enhance(tools, context)
        return EnhancementResult(tools=enhanced, categories=group_tools(enhanced, self.grouping_threshold))

    __call__ = process

    def filter(self, tools: Sequence[EnhancedTool], criteria: FilterCriteria) -> list[EnhancedTool]:
        """Keep the tools that meet every criterion, in order."""
        return [tool for tool in tools if criteria.matches(tool)]

    def categorize(self, tools: Sequence[EnhancedTool]) -> dict[str, list[EnhancedTool]]:
        """Bucket tools by category (``"uncategorized"`` for none), in order of first appearance."""
        buckets: dict[str, list[EnhancedTool]] = {}
        for tool in tools:
            buckets.setdefault(tool.category or UNCATEGORIZED, []).append(tool)
        return buckets


def passthrough(tool: RawTool) -> EnhancedTool:
    """The tool as the page declared it, with only its name made legal; confidence 0."""
    return EnhancedTool(
        name=sanitize_name(tool.name),
        description=tool.description,
        input_schema=tool.input_schema or empty_object_schema(),
        metadata=tool.metadata,
        original_name=tool.name,
        confidence=0.0,
        enhanced_by="none",
    )


def _unique_raw(tools: Sequence[ToolInput]) -> list[RawTool]:
    """Validate the input; of two tools with one name the first wins (like a page's registry)."""
    seen: dict[str, RawTool] = {}
    for item in tools:
        try:
            tool = item if isinstance(item, RawTool) else RawTool.model_validate(item)
        except ValidationError as exc:
            raise InvalidToolError(f"not a tool: {exc}") from exc
        seen.setdefault(tool.name, tool)
    return list(seen.values())


def _with_unique_names(tools: list[EnhancedTool]) -> list[EnhancedTool]:
    names = unique_names([t.name for t in tools], [t.original_name for t in tools])
    return [t if t.name == n else t.model_copy(update={"name": n}) for t, n in zip(tools, names, strict=True)]
