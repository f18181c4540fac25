"""Many tools at once (a site registering hundreds): every new tool ranks by meaning after a
cheap first stage, then gets its full document's vector, and no search waits for either."""

from __future__ import annotations

import threading
import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from tabmcp.core.search import SearchDoc, SearchIndex
from tabmcp.core.search.embedding import FIRST_BATCH, FIRST_STAGE_MIN, FIRST_WORDS, first_document
from tabmcp.core.search.text import stem, tokenize

from .test_search import doc

SYNONYMS = {"money": "refund", "packag": "parcel"}  # stems, as tokenize gives them


class StageEmbedder:
    """A stand-in model (hashed stems) that records each batch and can hold full documents."""

    name = "stage-embedder"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.hold_full = threading.Event()
        self.hold_full.set()
        self.in_full = threading.Event()
        self.lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if len(texts) > 1:  # tool documents (queries come one by one here)
            with self.lock:
                self.batches.append(list(texts))
            if any(len(t.split()) > FIRST_WORDS for t in texts):  # a full document
                self.in_full.set()
                assert self.hold_full.wait(30)
        out = np.zeros((len(texts), 512), dtype=np.float32)
        for i, text in enumerate(texts):
            for t in tokenize(text):
                out[i, zlib.crc32(stem(SYNONYMS.get(t, t)).encode()) % 512] += 1.0  # stable across runs
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


FILLER = "with the usual options for paging sorting and filtering of results kept for later reference"


def bulk(n: int) -> list[SearchDoc]:
    """``n`` tools; ``send_refund`` says what it does early, ``dispatch_item`` only after its
    first :data:`FIRST_WORDS` words."""
    docs = [doc(f"tool_{i}", f"Manage record kind {i} {FILLER}.") for i in range(n - 2)]
    docs.append(doc("send_refund", f"Refund the buyer {FILLER}."))
    docs.append(doc("dispatch_item", f"Handle one shipment {FILLER} then hand over the parcel."))
    return docs


def test_a_bulk_of_new_tools_ranks_by_meaning_before_any_full_document_is_embedded() -> None:
    model = StageEmbedder()
    model.hold_full.clear()  # the worker stops at the first full-document batch
    index = SearchIndex(semantic=model, background=True)
    docs = bulk(3 * FIRST_BATCH + 10)
    assert len(docs) >= FIRST_STAGE_MIN
    try:
        index.replace_source("1", docs)
        assert model.in_full.wait(30)  # the first stage is done, the second has begun
        # Every tool has a vector (a first-stage one): none ranks by keywords alone any more.
        assert index.describe_ranking() == {"ranking": "fused"}
        assert index.pending_embeddings == len(docs)  # ... but none has its full document's yet
        first_batches = model.batches[:-1]
        assert all(len(b) <= FIRST_BATCH for b in first_batches)
        assert sorted(t for b in first_batches for t in b) == sorted(
            first_document(t) for t in (index._entries[d.key].embed_text for d in docs)
        )
        lengths = [len(t) for b in first_batches for t in b]
        assert lengths == sorted(lengths)  # batched by length: shortest first
        # A search meanwhile answers at once, by meaning: "money" reaches send_refund only
        # through its vector (no tool has the word).
        hits = index.search("give money back", mode="semantic", limit=1)
        assert hits[0].key == "send_refund" and hits[0].semantic_score is not None
        # ... from its first words only: the end of dispatch_item's text is not read yet.
        assert index.search("package", mode="semantic", limit=1)[0].key != "dispatch_item"
    finally:
        model.hold_full.set()
    assert index.wait_embedded(60)
    # Full quality: what a tool says after its first words counts now.
    assert index.search("package", mode="semantic", limit=1)[0].key == "dispatch_item"
    full = [t for b in model.batches for t in b if len(t.split()) > FIRST_WORDS]
    assert len(full) == len(docs)  # each full document embedded once
    index.close()


def test_a_search_is_not_blocked_while_a_bulk_is_embedded() -> None:
    model = StageEmbedder()
    model.hold_full.clear()
    index = SearchIndex(semantic=model, background=True)
    try:
        index.replace_source("1", bulk(2 * FIRST_STAGE_MIN))
        assert model.in_full.wait(30)  # the worker is inside the model, and stays there
        done = threading.Event()
        result: list[str] = []

        def search() -> None:
            result.extend(h.key for h in index.search("refund the buyer", limit=3))
            done.set()

        threading.Thread(target=search).start()
        assert done.wait(10)  # answered while the model is held
        assert result[0] == "send_refund"
    finally:
        model.hold_full.set()
    assert index.wait_embedded(60)
    index.close()


def test_a_small_tab_goes_straight_to_full_documents() -> None:
    model = StageEmbedder()
    index = SearchIndex(semantic=model, background=True)
    docs = bulk(FIRST_STAGE_MIN - 1)
    index.replace_source("1", docs)
    assert index.wait_embedded(60)
    embedded = [t for b in model.batches for t in b]
    assert len(embedded) == len(docs)  # one pass, no first stage
    index.close()
