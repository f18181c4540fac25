"""Learning from use (core/search/usage.py): a request that ended in a call of a tool lifts that
tool for later requests close in meaning, per install, kept in SQLite across restarts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from mcp import Client
from tabmcp.core.search import SearchDoc, SearchIndex, semantic_available
from tabmcp.core.search.index import FOLLOW_CALLS
from tabmcp.core.search.usage import USE_THRESHOLD, USE_WEIGHT
from tabmcp.storage.search import UseStore
from tabmcp.testing import missing_from_setup

from .conftest import eventually
from .helpers import tab, tool

# A stand-in model with chosen geometry: request B is a rewording of A (cosine 0.95), C is
# unrelated. Before anything is learned, B is closer to the manual (0.57) than to the refund
# (0.475); a lift of 0.25 for a remembered request at 0.95 reverses that.
_B1 = float(np.sqrt(1 - 0.95**2))
VECTORS = {
    "qa": (1.0, 0.0, 0.0, 0.0),
    "refund my broken kettle please": (1.0, 0.0, 0.0, 0.0),  # qa in other words
    "qb": (0.95, _B1, 0.0, 0.0),
    "qc": (0.0, 0.0, 0.0, 1.0),
    "refund order": (0.5, 0.0, float(np.sqrt(1 - 0.25)), 0.0),
    "kettle manual": (0.6, 0.0, 0.0, 0.8),
}


class Geometry:
    name = "geometry"

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        return np.asarray([VECTORS[t.split(".")[0]] for t in texts], dtype=np.float32)


DOCS = [
    SearchDoc(key="refund_order", name="refund_order", title=None, description="Refund it.", category=None,
              source="https://shop.test"),
    SearchDoc(key="kettle_manual", name="kettle_manual", title=None, description="Read it.", category=None,
              source="https://shop.test"),
]


def index(store: UseStore | None = None) -> SearchIndex:
    idx = SearchIndex(semantic=Geometry(), use_store=store)
    idx.replace_source("1", DOCS)
    return idx


def keys(idx: SearchIndex, query: str) -> list[str]:
    return [h.key for h in idx.search(query)]


def learn(idx: SearchIndex, client: object = "client", request: str = "qa") -> bool:
    idx.note_search(client, request, keys(idx, request))
    return idx.note_call(client, "refund_order")


def test_a_call_after_a_search_lifts_that_tool_for_a_reworded_request() -> None:
    idx = index()
    assert keys(idx, "qb") == ["kettle_manual", "refund_order"]
    before = {h.key: h for h in idx.search("qb")}
    assert learn(idx) and idx.learned_uses == 1
    after = {h.key: h for h in idx.search("qb")}
    assert keys(idx, "qb") == ["refund_order", "kettle_manual"]
    lift = USE_WEIGHT * (0.95 - USE_THRESHOLD) / (1 - USE_THRESHOLD)
    assert after["refund_order"].score == pytest.approx(before["refund_order"].score + lift)
    assert after["refund_order"].semantic_score == pytest.approx(0.475)  # reported cosine stays plain
    assert after["kettle_manual"].score == pytest.approx(before["kettle_manual"].score)
    assert keys(idx, "qc") == ["kettle_manual", "refund_order"]  # an unrelated request is not lifted


def test_only_a_shown_tool_called_soon_after_by_the_same_client_is_learned() -> None:
    idx = index()
    idx.search("qa")  # the search embeds (and caches) the request: a call only reads that vector
    idx.note_search("a", "qa", ["refund_order"])
    assert not idx.note_call("b", "refund_order")  # another client
    assert not idx.note_call("a", "kettle_manual")  # not among the results it was shown
    assert idx.note_call("a", "refund_order")
    assert not idx.note_call("a", "refund_order")  # once per search
    idx.note_search("a", "qa", ["refund_order"])
    for _ in range(FOLLOW_CALLS):
        assert not idx.note_call("a", "kettle_manual")
    assert not idx.note_call("a", "refund_order")  # too many calls later
    assert idx.learned_uses == 1


def test_nothing_is_learned_without_the_model() -> None:
    idx = SearchIndex(semantic=False)
    idx.replace_source("1", DOCS)
    idx.note_search("a", "refund", ["refund_order"])
    assert not idx.note_call("a", "refund_order") and idx.learned_uses == 0


def test_what_was_learned_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "tabmcp.db"
    first = index(UseStore(db))
    assert learn(first, request="refund my broken kettle please")
    first.close()
    store = UseStore(db)  # a new process: the same file
    assert store.count() == 1
    on_disk = b"".join(f.read_bytes() for f in tmp_path.iterdir())  # the file, its WAL
    assert b"refund_order" in on_disk and b"kettle" not in on_disk  # the request's words are not kept
    second = index(store)
    assert second.learned_uses == 1
    assert keys(second, "qb") == ["refund_order", "kettle_manual"]


async def test_search_tools_then_call_tool_over_mcp_teaches_the_bridge(bridge, extension) -> None:
    if not semantic_available():
        missing_from_setup("the default search model is not installed", opted_out="TABMCP_NO_SEMANTIC")
    async def handler(msg: dict[str, object]) -> dict[str, object]:
        return {"ok": True, "result": {"content": [{"type": "text", "text": "refunded"}]}}

    extension.handler = handler
    await extension.sync(tab(1, tools=[tool("refund_order", "Refund an order to the customer's card."),
                                       tool("track_parcel", "Where a shipped parcel is now.")]))
    await eventually(lambda: bridge.core.registry.counts()["tools"] == 2)
    await eventually(lambda: bridge.core.search.stats()["embedded"] == 2, timeout=120)  # the worker's job
    url = f"http://127.0.0.1:{bridge.port}/mcp"
    async with Client(url) as client:
        found = await client.call_tool("search_tools", {"query": "I want my money back"})
        assert "refund_order" in [t["name"] for t in found.structured_content["tools"]]
        done = await client.call_tool("call_tool", {"name": "refund_order", "arguments": {}})
        assert done.content[0].text == "refunded"
    assert bridge.core.search.learned_uses == 1
