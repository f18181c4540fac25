"""Caching wrapper: any transformer's answers kept in SQLite, one computation per key."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from tabmcp_mediator.cache import CacheKey, EnhancementCache
from tabmcp_mediator.errors import CacheError
from tabmcp_mediator.models import EnhancedTool, RawTool, ToolContext
from tabmcp_mediator.protocol import ToolTransformer

log = logging.getLogger(__name__)


class CachedTransformer:
    """Wraps a (slow, costly) transformer so each site's tools are enhanced once per TTL.

    Concurrent requests for one key share one inner call; a broken cache is logged and bypassed,
    never a failed enhancement. Only non-empty answers are stored.
    """

    def __init__(
        self, inner: ToolTransformer, cache: EnhancementCache, *, priority: int | None = None
    ) -> None:
        """Wrap ``inner``.

        Args:
            inner: The transformer whose answers are cached. Its ``cache_namespace``
                attribute, if any, separates entries (e.g. per model); else its name.
            cache: Where answers are kept.
            priority: Defaults to just above ``inner`` (``inner.priority + 10``).
        """
        self.inner = inner
        self.cache = cache
        self.name = f"cached-{inner.name}"
        self.priority = inner.priority + 10 if priority is None else priority
        self._namespace: str = getattr(inner, "cache_namespace", inner.name)
        self._inflight: dict[CacheKey, asyncio.Task[list[EnhancedTool] | None]] = {}

    async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool] | None:
        """Serve from the cache, or run ``inner`` once and store its answer."""
        key = self.cache.key(self._namespace, context.source, tools)
        try:
            hit = await self.cache.get(key)
        except CacheError as exc:
            log.warning("enhancement cache unreadable, bypassing it: %s", exc)
            hit = None
        if hit is not None:
            return _with_current_metadata(hit, tools)
        task = self._inflight.get(key)
        if task is None:
            task = asyncio.create_task(self._compute(key, list(tools), context))
            self._inflight[key] = task
            task.add_done_callback(lambda _: self._inflight.pop(key, None))
        return await asyncio.shield(task)

    async def _compute(
        self, key: CacheKey, tools: list[RawTool], context: ToolContext
    ) -> list[EnhancedTool] | None:
        result = await self.inner.transform(tools, context)
        if result:
            try:
                await self.cache.set(key, result)
            except CacheError as exc:
                log.warning("enhancement cache unwritable, answer not kept: %s", exc)
        return result


def _with_current_metadata(cached: list[EnhancedTool], tools: Sequence[RawTool]) -> list[EnhancedTool]:
    """Cached answers carry the metadata of the visit that made them; use this visit's."""
    current = {tool.name: tool.metadata for tool in tools}
    return [
        tool.model_copy(update={"metadata": current[tool.original_name]})
        if tool.original_name in current
        else tool
        for tool in cached
    ]
