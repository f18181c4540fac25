"""Keeps a :class:`SearchIndex` in step with the bridge's :class:`Registry`.

Lazily (page churn costs nothing until a search), and per tab: a source is re-indexed only when
its tools or their names changed. ``[search] semantic = "auto"`` turns the model on when installed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from ..registry import Registry, Tab, ToolEntry
from ..stores import UseRows
from .index import SearchDoc, SearchIndex
from .keyword import text_terms
from .semantic import INSTALL_HINT, EmbeddingCache, missing_parts, semantic_available

__all__ = ["IndexSync", "search_doc", "warm"]

log = logging.getLogger("tabmcp.search")

MAX_ENUM_VALUES = 30


def search_doc(registry: Registry, entry: ToolEntry) -> SearchDoc:
    """What the index knows of one registered tool (names, texts, arguments, category)."""
    props = entry.tool.input_schema.get("properties") or {}
    cat = entry.category
    values = [value for v in props.values() if isinstance(v, dict) for value in _enum_values(v)]
    return SearchDoc(
        key=entry.public_name,
        name=entry.public_name,
        title=entry.tool.title,
        description=entry.tool.description,
        category=registry.public_name(entry.tab.key, cat.name) if cat else None,
        source=entry.tab.origin,
        arg_names=tuple(props),
        arg_descriptions=tuple(
            str(v.get("description")) for v in props.values() if isinstance(v, dict) and v.get("description")
        ),
        arg_values=tuple(values),
        category_description=cat.description if cat else None,
    )


def warm(tab: Tab) -> None:
    """Split the texts of ``tab``'s tools and categories for search ahead (any thread: the memo of
    :func:`tabmcp.core.search.keyword.text_terms` is shared), so that indexing them later on the
    event loop splits no page text. What is split is what :func:`search_doc` gives the index."""
    for doc in tab.documents():
        for tool in doc.tools.values():
            if tool.title:
                text_terms(tool.title)
            text_terms(tool.description)
            props = tool.input_schema.get("properties") or {}
            for v in props.values():
                if isinstance(v, dict) and v.get("description"):
                    text_terms(str(v.get("description")))
        for cat in doc.categories.values():
            if cat.description:
                text_terms(cat.description)


def _enum_values(schema: dict[str, Any]) -> list[str]:
    enum = schema.get("enum")
    items = schema.get("items")
    if enum is None and isinstance(items, dict):
        enum = items.get("enum")
    if not isinstance(enum, list):
        return []
    return [str(x) for x in enum[:MAX_ENUM_VALUES] if isinstance(x, str) and x]


def _semantic_choice(setting: bool | str) -> bool | str:
    """The index's ``semantic`` argument for a config value; logs the fallback once."""
    if setting == "auto":
        if os.environ.get("TABMCP_NO_SEMANTIC") == "1":
            log.info("search: keyword ranking (TABMCP_NO_SEMANTIC=1)")
            return False
        if semantic_available():
            return True
        log.warning(
            "search: keyword ranking only, semantic ranking is off: missing %s; to add it: %s",
            ", ".join(missing_parts()), INSTALL_HINT,
        )
        return False
    return setting


class IndexSync:
    """One search index kept in step with one registry."""

    def __init__(
        self, registry: Registry, *, semantic: bool | str = "auto",
        stores: Callable[[], tuple[EmbeddingCache, UseRows]] | None = None,
    ) -> None:
        """``stores``: opens where tool vectors and learned uses are kept, asked only when
        semantic ranking is on (``tabmcp.storage.search.search_stores``: the bridge's ``[store]
        path``); None: vectors in memory, nothing learned is kept."""
        self.registry = registry
        choice = _semantic_choice(semantic)
        self.store: EmbeddingCache | None = None
        self.uses: UseRows | None = None
        if choice is not False and stores is not None:
            self.store, self.uses = stores()
        self._index = SearchIndex(semantic=choice, embedding_cache=self.store, background=True,
                                  use_store=self.uses)
        self._indexed: dict[str, tuple[Any, ...]] = {}
        self._version = -1

    @property
    def index(self) -> SearchIndex:
        """The index, brought up to date with the registry first."""
        if self._version != self.registry.version:
            self._version = self.registry.version
            self._reindex()
        return self._index

    @property
    def as_is(self) -> SearchIndex:
        """The index, not brought up to date (:meth:`SearchIndex.note_call` reads no tool)."""
        return self._index

    def _reindex(self) -> None:
        """Update the index one tab at a time, only the tabs whose tools or names changed."""
        seen: set[str] = set()
        by_doc: dict[str, list[ToolEntry]] = {}
        for entry in self.registry.tool_entries():
            tab_id, frame_id = entry.tab.key
            by_doc.setdefault(f"{tab_id}/{frame_id}" if frame_id else str(tab_id), []).append(entry)
        for source, entries in by_doc.items():
            seen.add(source)
            with self.registry.charge(entries[0].tab.origin):  # its tools' texts set the cost (core/stalls.py)
                signature = tuple((e.public_name, e.tool, e.tab.origin, e.category) for e in entries)
                if self._indexed.get(source) == signature:
                    continue
                self._indexed[source] = signature
                self._index.replace_source(source, (search_doc(self.registry, e) for e in entries))
        for source in [s for s in self._indexed if s not in seen]:
            del self._indexed[source]
            self._index.remove_source(source)

    def close(self) -> None:
        self._index.close()
