"""The overrides transformer: curated answers win, deterministically, at confidence 1."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tabmcp_mediator.errors import OverrideLoadError
from tabmcp_mediator.models import EnhancedTool, RawTool, ToolContext, empty_object_schema
from tabmcp_mediator.naming import normalize_source, sanitize_name
from tabmcp_mediator.overrides import (
    DEFAULT_TIMEOUT,
    Overrides,
    ToolOverride,
    Verify,
    fetch_overrides,
    load_overrides_file,
    validate_overrides,
)

log = logging.getLogger(__name__)

DEFAULT_RETRY_AFTER = 300.0


class OverrideTransformer:
    """Applies per-domain overrides to the tools they name; the rest go down the chain.

    A URL is fetched on first use; a failed fetch is retried only after ``retry_after`` seconds,
    so a dead URL does not slow every tools/list.
    """

    name = "overrides"

    def __init__(
        self,
        overrides: Mapping[str, Mapping[str, ToolOverride | Mapping[str, Any]]] | None = None,
        *,
        loader: Callable[[], Awaitable[Overrides]] | None = None,
        priority: int = 300,
        retry_after: float = DEFAULT_RETRY_AFTER,
    ) -> None:
        """Create the transformer from loaded overrides or an async loader.

        Args:
            overrides: Source -> tool name -> override (a :class:`ToolOverride` or its
                JSON-shaped dict), already loaded.
            loader: Called on first use instead (e.g. an HTTPS fetch).
            priority: Above everything by default: a curator's word is final.
            retry_after: Seconds to wait before retrying a failed ``loader``.

        Raises:
            OverrideLoadError: ``overrides`` is not in the overrides format.
        """
        self.priority = priority
        self._loaded: Overrides | None = None if overrides is None else validate_overrides(overrides)
        self._loader = loader
        self._retry_after = retry_after
        self._failed_at: float | None = None
        self._lock = asyncio.Lock()

    @classmethod
    def from_file(cls, path: str | Path, *, priority: int = 300) -> OverrideTransformer:
        """Load a local overrides file now, so a bad path fails at startup.

        Raises:
            OverrideLoadError: The file cannot be read or is invalid.
        """
        return cls(load_overrides_file(path), priority=priority)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        verify: Verify = True,
        timeout: float = DEFAULT_TIMEOUT,
        priority: int = 300,
        retry_after: float = DEFAULT_RETRY_AFTER,
    ) -> OverrideTransformer:
        """Fetch community overrides from an HTTPS URL on first use."""
        return cls(
            loader=lambda: fetch_overrides(url, verify=verify, timeout=timeout),
            priority=priority,
            retry_after=retry_after,
        )

    async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool] | None:
        """Apply the source's overrides to the tools they name."""
        per_tool = (await self._overrides()).get(normalize_source(context.source))
        if not per_tool:
            return None
        return [self._apply(tool, per_tool[tool.name]) for tool in tools if tool.name in per_tool] or None

    async def _overrides(self) -> Overrides:
        if self._loaded is not None or self._loader is None:
            return self._loaded or {}
        async with self._lock:
            if self._loaded is not None:
                return self._loaded
            if self._failed_at is not None and time.monotonic() - self._failed_at < self._retry_after:
                return {}
            try:
                self._loaded = await self._loader()
            except OverrideLoadError:
                self._failed_at = time.monotonic()
                raise
            log.info("loaded overrides for %d sources", len(self._loaded))
            return self._loaded

    def _apply(self, tool: RawTool, override: ToolOverride) -> EnhancedTool:
        return EnhancedTool(
            name=override.rename or sanitize_name(tool.name),
            description=override.description if override.description is not None else tool.description,
            input_schema=override.input_schema or tool.input_schema or empty_object_schema(),
            metadata=tool.metadata,
            original_name=tool.name,
            category=override.category,
            category_description=override.category_description,
            confidence=1.0,
            enhanced_by=self.name,
            argument_map=override.argument_map,
        )
