"""Many tools at once (a site registering hundreds): the worker embeds them shortest first in
batches, each from its first :data:`DOCUMENT_WORDS` words, and no search waits for it."""

from __future__ import annotations

import threading
import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from tabmcp.core.search import SearchDoc, SearchIndex
from tabmcp.core.search.doc import DOCUMENT_WORDS, embed_text
from tabmcp.core.search.text import stem, tokenize

from .test_search import doc

SYNONYMS = {"money": "refund", "packag": "parcel"}  # stems, as tokenize gives them


class HeldEmbedder:
    """A stand-in model (hashed stems) that records each batch of tool documents and can be held
    inside a batch."""

    name = "held-embedder"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.release = threading.Event()
        self.release.set()
        self.inside = threading.Event()
        self.lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if len(texts) > 1:  # tool documents (queries come one by one here)
            with self.lock:
                self.batches.append(list(texts))
            self.inside.set()
            assert self.release.wait(30)
        out = np.zeros((len(texts), 512), dtype=np.float32)
        for i, text in enumerate(texts):
            for t in tokenize(text):
                out[i, zlib.crc32(stem(SYNONYMS.get(t, t)).encode()) % 512] += 1.0  # stable across runs
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


FILLER = "with the usual options for paging sorting and filtering of results kept for later reference"


def bulk(n: int) -> list[SearchDoc]:
    """``n`` tools; ``send_refund`` says what it does early, ``dispatch_item`` only after its
    first :data:`DOCUMENT_WORDS` words."""
    docs = [doc(f"tool_{i}", f"Manage record kind {i} {FILLER}.") for i in range(n - 2)]
    docs.append(doc("send_refund", f"Refund the buyer {FILLER}."))
    docs.append(doc("dispatch_item", f"Handle one shipment {FILLER} then hand over the parcel."))
    return docs


def test_a_bulk_of_new_tools_is_embedded_in_batches_shortest_first_while_searches_answer() -> None:
    model = HeldEmbedder()
    model.release.clear()  # the worker stops inside its first batch
    index = SearchIndex(semantic=model, background=True, batch_size=16)
    docs = bulk(100)
    try:
        index.replace_source("1", docs)
        assert model.inside.wait(30)
        assert index.describe_ranking() == {"ranking": "fused", "pendingEmbeddings": len(docs)}
        done = threading.Event()
        result: list[str] = []

        def search() -> None:
            result.extend(h.key for h in index.search("refund the buyer", limit=3))
            done.set()

        threading.Thread(target=search).start()
        assert done.wait(10)  # answered while the model is held, by keywords
        assert result[0] == "send_refund"
    finally:
        model.release.set()
    assert index.wait_embedded(60)
    assert index.describe_ranking() == {"ranking": "fused"}
    assert all(len(b) <= 16 for b in model.batches)
    lengths = [len(t) for b in model.batches for t in b]
    assert lengths == sorted(lengths)  # shortest first: each batch pads little
    assert sorted(t for b in model.batches for t in b) == sorted(embed_text(d) for d in docs)  # each once
    # By meaning now: "money" reaches send_refund only through its vector (no tool has the word).
    hit = index.search("give money back", mode="semantic", limit=1)[0]
    assert hit.key == "send_refund" and hit.semantic_score is not None
    index.close()


def test_the_model_reads_a_tools_first_words_and_the_keywords_read_all_of_it() -> None:
    model = HeldEmbedder()
    index = SearchIndex(semantic=model)
    index.replace_source("1", bulk(10))
    # "parcel" is past dispatch_item's first words: not in its vector, still in its keywords.
    assert index.search("package", mode="semantic", limit=1)[0].key != "dispatch_item"
    assert index.search("parcel", mode="keyword", limit=1)[0].key == "dispatch_item"
    texts = [t for b in model.batches for t in b]
    assert len(texts) == 10 and all(len(t.split()) <= DOCUMENT_WORDS for t in texts)
