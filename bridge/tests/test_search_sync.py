"""The index kept in step with the registry (core/search/sync.py): semantic ranking on by
default, the no-model fallback and its log line, vectors reused across restarts through
SQLite, and a new tab's tools searchable while the model is still embedding them."""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from tabmcp.core.registry import Registry
from tabmcp.core.search import SearchIndex, semantic_available
from tabmcp.core.search import semantic as semantic_mod
from tabmcp.core.search import sync as sync_mod
from tabmcp.core.search.sync import IndexSync
from tabmcp.protocol import TabSnapshot
from tabmcp.storage.build import search_stores
from tabmcp.storage.search import EmbeddingStore
from tabmcp.testing import missing_from_setup

from .helpers import tab, tool

SHOP = [
    tool("refund_order", "Refund an order to the customer's card.",
         inputSchema={"type": "object",
                      "properties": {"reason": {"type": "string", "enum": ["damaged", "late"]}}}),
    tool("track_parcel", "Where a shipped parcel is now."),
    tool("delete_user", "Delete a user account."),
]


def snap(tab_id: int, tools: list[dict[str, object]], **kw: object) -> TabSnapshot:
    return TabSnapshot.model_validate(tab(tab_id, tools=tools, **kw))


class CountingEmbedder:
    """A stand-in model that counts what it embeds and can be held mid-batch."""

    name = "counting"

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.hold = threading.Event()
        self.hold.set()
        self.started = threading.Event()

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if len(texts) > 1 or any("." in t for t in texts):  # tool documents, not a query
            self.started.set()
            assert self.hold.wait(30)
        self.texts.extend(texts)
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, zlib.crc32(word.strip(".,").encode()) % 16] += 1.0  # stable across runs
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


def test_semantic_ranking_is_on_by_default_when_the_model_is_installed() -> None:
    if not semantic_available():
        missing_from_setup(
            "the default search model is not installed: " + ", ".join(semantic_mod.missing_parts()),
            opted_out="TABMCP_NO_SEMANTIC",
        )
    reg = Registry()
    reg.apply(snap(1, SHOP))
    sync = IndexSync(reg, stores=search_stores(":memory:"))  # semantic="auto", the config default
    try:
        index = sync.index
        assert index.semantic and index.model_name.startswith(semantic_mod.DEFAULT_MODEL)
        assert index.wait_embedded(120)
        hits = index.search("where is my package")  # no word in common with the tool
        assert hits[0].key == "track_parcel" and hits[0].semantic_score is not None
        assert index.describe_ranking() == {"ranking": "fused"}
    finally:
        sync.close()


def test_without_the_model_search_ranks_by_keywords_and_logs_once_what_is_missing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sync_mod, "semantic_available", lambda: False)
    monkeypatch.setattr(sync_mod, "missing_parts", lambda: ["onnxruntime (package onnxruntime)"])
    reg = Registry()
    reg.apply(snap(1, SHOP))
    with caplog.at_level(logging.INFO, logger="tabmcp.search"):
        sync = IndexSync(reg, stores=search_stores(":memory:"))
    lines = [r for r in caplog.records if r.name == "tabmcp.search"]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert "keyword ranking" in lines[0].getMessage() and "onnxruntime" in lines[0].getMessage()
    assert "tabmcp doctor" in lines[0].getMessage()  # the fix that fits this installation
    index = sync.index
    assert not index.semantic and index.describe_ranking() == {"ranking": "keyword"}
    assert [h.key for h in index.search("refund")] == ["refund_order"]


def test_enum_values_and_category_description_are_searchable() -> None:
    reg = Registry()
    reg.apply(snap(1, [*SHOP, tool("a_tool", category="post")],
                   categories=[{"name": "post", "description": "Parcels and shipping labels",
                                "tools": ["a_tool"]}]))
    sync = IndexSync(reg, semantic=False)
    assert [h.key for h in sync.index.search("damaged")] == ["refund_order"]
    assert [h.key for h in sync.index.search("shipping labels")][0] == "a_tool"


def test_vectors_are_kept_in_sqlite_so_a_restart_embeds_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "tabmcp.db")
    docs = list(_docs())
    first_model = CountingEmbedder()
    first = SearchIndex(semantic=first_model, embedding_cache=EmbeddingStore(db), background=True)
    first.replace_source("1", docs)
    assert first.wait_embedded(30)
    assert len(first_model.texts) == len(docs)
    first.close()

    second_model = CountingEmbedder()  # a new process: nothing in memory, the same file
    store = EmbeddingStore(db)
    second = SearchIndex(semantic=second_model, embedding_cache=store, background=True)
    second.replace_source("7", docs)
    assert second.pending_embeddings == 0 and second.stats()["embedded"] == len(docs)
    assert second_model.texts == [] and store.writes == 0
    assert second.search("refund card", mode="semantic")[0].key == "refund_order"
    second.close()


def test_a_new_tabs_tools_are_searchable_while_the_model_is_still_embedding_them() -> None:
    model = CountingEmbedder()
    model.hold.clear()  # the model is busy with the new tab's tools until released
    index = SearchIndex(semantic=model, background=True)
    try:
        index.replace_source("1", list(_docs()))
        assert model.started.wait(30)  # the worker thread is inside the model
        # A search does not wait for it: keyword ranking answers and says what is pending.
        hits = index.search("refund")
        assert [h.key for h in hits] == ["refund_order"] and hits[0].semantic_score is None
        assert index.describe_ranking() == {"ranking": "fused", "pendingEmbeddings": 3}
    finally:
        model.hold.set()
    assert index.wait_embedded(30)
    hits = index.search("refund")
    assert hits[0].key == "refund_order" and hits[0].semantic_score is not None
    index.close()


def test_a_new_tabs_tool_outranks_weaker_embedded_tools_while_it_waits_for_its_vector() -> None:
    # Tab 1 is embedded; tab 2 arrives while the model is busy. Its tool matches every word of
    # the query, an embedded tool only one: keywords alone must not sink the new tool below
    # every embedded one (its share of meaning is taken in proportion to its keyword score).
    model = CountingEmbedder()
    index = SearchIndex(semantic=model, background=True)
    try:
        reg = Registry()
        reg.apply(snap(1, [tool("track_parcel", "Where a shipped parcel is now.")]))
        index.replace_source("1", [sync_mod.search_doc(reg, e) for e in reg.tool_entries()])
        assert index.wait_embedded(30)
        model.hold.clear()
        model.started.clear()
        reg.apply(snap(2, [tool("refund_order", "Refund a parcel order to the card.")]))
        new = [sync_mod.search_doc(reg, e) for e in reg.tool_entries() if e.tab.tab_id == 2]
        index.replace_source("2", new)
        assert model.started.wait(30)
        hits = index.search("refund parcel")
        assert [h.key for h in hits] == ["refund_order", "track_parcel"]
        assert hits[0].semantic_score is None and hits[1].semantic_score is not None
    finally:
        model.hold.set()
        index.close()


def _docs():
    reg = Registry()
    reg.apply(snap(1, SHOP))
    return (sync_mod.search_doc(reg, e) for e in reg.tool_entries())
