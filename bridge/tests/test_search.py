"""Tool search index: tokenization, BM25 ranking, filters, incremental updates, fuzzy names,
semantic ranking (fake and real model) and rank fusion."""

from __future__ import annotations

import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabmcp.core.search import (
    DEFAULT_MODEL,
    SearchDoc,
    SearchIndex,
    SemanticUnavailableError,
    missing_parts,
    normalize_name,
    semantic_available,
    stem,
    tokenize,
    tokenize_name,
)
from tabmcp.core.search import semantic as semantic_mod
from tabmcp.core.search.fusion import KEYWORD_WEIGHT
from tabmcp.core.search.fuzzy import TypoIndex, max_edits
from tabmcp.testing import missing_from_setup


def doc(
    key: str,
    description: str = "",
    *,
    category: str | None = None,
    source: str = "https://shop.test",
    title: str | None = None,
    args: Sequence[tuple[str, str]] = (),
) -> SearchDoc:
    return SearchDoc(
        key=key,
        name=key,
        title=title,
        description=description,
        category=category,
        source=source,
        arg_names=tuple(a for a, _ in args),
        arg_descriptions=tuple(d for _, d in args),
    )


SHOP = [
    doc("create_user", "Create a new user account with an email address.", category="users"),
    doc("delete_user", "Delete a user account permanently.", category="users"),
    doc("list_users", "List all user accounts, newest first.", category="users"),
    doc("add_to_cart", "Put a product into the shopping cart.", category="cart"),
    doc("checkout", "Pay for the items in the cart and place the order.", category="cart"),
    doc(
        "track_parcel",
        "Where is my package right now.",
        category="orders",
        args=[("tracking_number", "The carrier's shipment tracking code.")],
    ),
    doc(
        "refund_order",
        "Give the customer their money back for an order.",
        category="orders",
        title="Refund an order",
    ),
]


def keys(hits: Sequence[object]) -> list[str]:
    return [h.key for h in hits]  # type: ignore[attr-defined]


@pytest.fixture
def shop() -> SearchIndex:
    index = SearchIndex()
    index.replace_source("1", SHOP)
    return index


# ---------------------------------------------------------------------------- text


@pytest.mark.parametrize(
    "name", ["create_user", "createUser", "CreateUser", "t42.users.create", "users-create", "create.users"]
)
def test_identifier_styles_tokenize_alike(name: str) -> None:
    assert sorted(tokenize_name(name)) == sorted(tokenize("create users")) == ["creat", "user"]


def test_camel_case_acronyms_and_digits() -> None:
    assert tokenize_name("getHTTPResponse") == ["get", "http", "respons"]
    assert tokenize_name("notion_API-post-page") == ["notion", "api", "post", "pag"]
    assert normalize_name("t7.getActiveCycle") == "get active cycle"


def test_stemming_folds_plurals_and_inflections() -> None:
    assert {stem(w) for w in ("create", "creates", "creating", "created")} == {"creat"}
    assert stem("repositories") == stem("repository")
    assert stem("branches") == "branch" and stem("status") == "status" and stem("address") == "address"
    assert stem("user") != stem("use")  # no derivational stripping


def test_prose_drops_stop_words_but_keeps_tool_verbs() -> None:
    assert tokenize("Please show me all of the open issues") == ["show", "all", "open", "issu"]


def test_import_does_not_load_the_embedding_stack() -> None:
    code = (
        "import sys, tabmcp.core.search, tabmcp.core.search.sync; "
        "print(any(m in sys.modules for m in "
        "('torch', 'sentence_transformers', 'onnxruntime', 'tokenizers')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------- ranking


def test_name_match_ranks_first(shop: SearchIndex) -> None:
    hits = shop.search("delete user")
    assert keys(hits)[0] == "delete_user"
    assert hits[0].keyword_score is not None and hits[0].semantic_score is None and not hits[0].fuzzy
    assert hits[0].score >= hits[1].score


def test_description_words_match(shop: SearchIndex) -> None:
    assert keys(shop.search("shopping cart product"))[0] == "add_to_cart"
    assert keys(shop.search("pay"))[0] == "checkout"


def test_argument_names_and_descriptions_match(shop: SearchIndex) -> None:
    assert keys(shop.search("tracking number"))[0] == "track_parcel"
    assert keys(shop.search("shipment carrier"))[0] == "track_parcel"


def test_title_matches(shop: SearchIndex) -> None:
    assert keys(shop.search("refund"))[0] == "refund_order"


def test_name_outweighs_a_passing_mention() -> None:
    index = SearchIndex()
    index.replace_source(
        "1",
        [
            doc("export_report", "Export a report; to share it afterwards see the sharing tools."),
            doc("share_report", "Send a report to a colleague."),
        ],
    )
    assert keys(index.search("share report"))[0] == "share_report"


def test_no_match_gives_no_hits(shop: SearchIndex) -> None:
    assert shop.search("quantum chromodynamics") == []
    assert shop.search("the of and") == []  # stop words only


def test_limit(shop: SearchIndex) -> None:
    assert len(shop.search("user", limit=2)) == 2
    assert shop.search("user", limit=0) == []


# ---------------------------------------------------------------------------- filters


def test_category_alone_lists_the_category_in_order(shop: SearchIndex) -> None:
    hits = shop.search(None, category="users")
    assert keys(hits) == ["create_user", "delete_user", "list_users"]
    assert all(h.score == 0.0 and h.keyword_score is None for h in hits)
    assert keys(shop.search("", category="USERS")) == keys(hits)  # case-insensitive
    assert shop.search(None, category="nope") == []
    assert keys(shop.search(None, category="users", limit=2)) == ["create_user", "delete_user"]


def test_category_restricts_a_query(shop: SearchIndex) -> None:
    assert set(keys(shop.search("account", category="users"))) <= {"create_user", "delete_user", "list_users"}
    assert shop.search("account", category="cart") == []


def test_source_filter_by_origin_substring_or_source_id() -> None:
    index = SearchIndex()
    index.replace_source("1", [doc("search", "Search products.", source="https://shop.test")])
    index.replace_source("2", [doc("t2.search", "Search mail.", source="https://mail.test")])
    assert keys(index.search("search", source="mail.test")) == ["t2.search"]
    assert keys(index.search("search", source="https://shop.test")) == ["search"]
    assert keys(index.search("search", source="2")) == ["t2.search"]
    assert keys(index.search(None, source="shop")) == ["search"]
    assert index.search("search", source="nowhere") == []


def test_allow_is_applied_before_limit(shop: SearchIndex) -> None:
    ranked = keys(shop.search("user account", limit=10))
    assert len(ranked) >= 3
    seen: list[str] = []

    def allow(key: str) -> bool:
        seen.append(key)
        return key != ranked[0]

    hits = shop.search("user account", limit=2, allow=allow)
    assert keys(hits) == ranked[1:3]
    assert ranked[0] in seen
    assert keys(shop.search(None, category="users", limit=2, allow=lambda k: k != "create_user")) == [
        "delete_user",
        "list_users",
    ]


def test_allow_rejecting_deep_into_the_ranking_still_fills_the_limit() -> None:
    index = SearchIndex(semantic=HashEmbedder())
    index.replace_source("1", [doc(f"report_{i}", f"Report number {i}.") for i in range(300)])
    hits = index.search("report", limit=3, allow=lambda k: int(k.split("_")[1]) >= 250)
    assert len(hits) == 3 and all(int(k.split("_")[1]) >= 250 for k in keys(hits))
    for mode in ("keyword", "fused"):  # only the last three pass: far past the first read of either ranking
        hits = index.search("report", limit=3, allow=lambda k: int(k.split("_")[1]) >= 297, mode=mode)
        assert sorted(keys(hits)) == ["report_297", "report_298", "report_299"]


# ---------------------------------------------------------------------------- incremental updates


def test_replace_source_replaces_and_remove_source_removes(shop: SearchIndex) -> None:
    assert len(shop) == len(SHOP)
    shop.replace_source(
        "1",
        [doc("create_user", "Create a new user account.", category="users"), doc("ban_user", "Ban a user.")],
    )
    assert len(shop) == 2
    assert "delete_user" not in shop and shop.get("delete_user") is None
    assert shop.search("delete") == []
    assert shop.search("shopping cart") == []  # no stale postings
    assert keys(shop.search("ban"))[0] == "ban_user"
    assert keys(shop.search(None, category="users")) == ["create_user"]
    assert shop.search(None, category="cart") == [] and shop.closest_names("delete_user") != ["delete_user"]
    shop.remove_source("1")
    assert len(shop) == 0 and shop.search("user") == [] and shop.search(None) == []
    assert shop.stats()["terms"] == 0
    shop.remove_source("1")  # idempotent


def test_sources_are_independent_and_keys_move_between_sources() -> None:
    index = SearchIndex()
    index.replace_source("1", [doc("search", "Search products.", source="https://a.test")])
    index.replace_source("2", [doc("t2.search", "Search mail.", source="https://b.test")])
    index.remove_source("1")
    assert keys(index.search("search")) == ["t2.search"]
    # The bridge renames t2.search to search when tab 1 closes: the key is now tab 2's.
    index.replace_source("2", [doc("search", "Search mail.", source="https://b.test")])
    index.replace_source("3", [doc("search", "Search news.", source="https://c.test")])
    assert len(index) == 1 and index.keys("2") == [] and index.keys("3") == ["search"]
    assert index.source_ids() == ["3"]
    assert keys(index.search("news")) == ["search"]


def test_unchanged_tools_are_kept_and_order_follows_the_new_list(shop: SearchIndex) -> None:
    before = shop.search("user account")
    shop.replace_source("1", list(reversed(SHOP)))
    assert {h.key: h.score for h in shop.search("user account")} == {h.key: h.score for h in before}
    assert keys(shop.search(None, category="users")) == ["list_users", "delete_user", "create_user"]


def _scores(index: SearchIndex, query: str) -> list[tuple[str, float | None]]:
    """BM25 scores by key (fused ranks may differ: ties are broken by arrival order)."""
    return sorted(
        (h.key, None if h.keyword_score is None else round(h.keyword_score, 9))
        for h in index.search(query, limit=100)
    )


WORDS = ["user", "order", "cart", "refund", "report", "invoice", "ship", "search", "export", "email"]
tool_st = st.builds(
    lambda a, b, words: doc(f"{a}_{b}", " ".join(words)),
    st.sampled_from(WORDS),
    st.sampled_from(WORDS),
    st.lists(st.sampled_from(WORDS), max_size=6),
)
op_st = st.tuples(st.sampled_from(["1", "2", "3"]), st.one_of(st.none(), st.lists(tool_st, max_size=5)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(op_st, min_size=1, max_size=12))
def test_incremental_updates_equal_a_fresh_build(ops: list[tuple[str, list[SearchDoc] | None]]) -> None:
    index = SearchIndex()
    state: dict[str, list[SearchDoc]] = {}
    for source_id, docs in ops:
        if docs is None:
            index.remove_source(source_id)
            state.pop(source_id, None)
        else:
            index.replace_source(source_id, docs)
            unique = {d.key: d for d in docs}
            for other, odocs in state.items():  # a key moves to the source that sent it last
                if other != source_id:
                    state[other] = [d for d in odocs if d.key not in unique]
            state[source_id] = list(unique.values())
    fresh = SearchIndex()
    for source_id, docs in state.items():
        fresh.replace_source(source_id, docs)
    assert len(index) == len(fresh) == sum(len(d) for d in state.values())
    assert index.stats()["terms"] == fresh.stats()["terms"]
    for q in ["user", "refund order", "cart email export", "invoice"]:
        assert _scores(index, q) == _scores(fresh, q)


# ---------------------------------------------------------------------------- fuzzy


def test_misspelled_name_finds_the_tool(shop: SearchIndex) -> None:
    hits = shop.search("creat_usr")
    assert keys(hits)[0] == "create_user"
    assert hits[0].fuzzy
    assert keys(shop.search("delet_usr"))[0] == "delete_user"
    assert keys(shop.search("chekout"))[0] == "checkout"
    assert keys(shop.search("tracParcel"))[0] == "track_parcel"


def test_exact_name_query_is_first_and_not_fuzzy(shop: SearchIndex) -> None:
    hits = shop.search("list_users")
    assert keys(hits)[0] == "list_users" and not hits[0].fuzzy
    assert keys(shop.search("listUsers"))[0] == "list_users"


def test_typo_in_a_short_prose_query(shop: SearchIndex) -> None:
    hits = shop.search("shopping crat")
    assert keys(hits)[0] == "add_to_cart" and hits[0].fuzzy


def test_closest_names(shop: SearchIndex) -> None:
    assert shop.closest_names("creat_usr")[0] == "create_user"
    assert shop.closest_names("delete_users", n=1) == ["delete_user"]
    assert shop.closest_names("refund", n=2)[0] == "refund_order"
    assert shop.closest_names("xqzv") == []
    assert "create_user" not in shop.closest_names("creat_usr", allow=lambda k: k != "create_user")
    assert SearchIndex().closest_names("anything") == []


def _osa(a: str, b: str) -> int:
    """Reference optimal-string-alignment distance (plain dynamic programming)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


word_st = st.text(alphabet="abcde", min_size=3, max_size=10)


@settings(max_examples=60, deadline=None)
@given(st.sets(word_st, min_size=1, max_size=25), word_st)
def test_typo_index_finds_exactly_the_nearest_words(vocab: set[str], query: str) -> None:
    index = TypoIndex()
    index.add(vocab)
    got = index.corrections(query)
    budget = max_edits(query)
    dists = {w: _osa(query, w) for w in vocab}
    best = min(dists.values())
    if budget == 0 or query in vocab or best > budget:
        assert got == []
    else:
        assert got == sorted(w for w, d in dists.items() if d == best)


def test_typo_index_is_reference_counted() -> None:
    index = TypoIndex()
    index.add(frozenset({"refund", "report"}))
    index.add(frozenset({"refund"}))
    index.remove(frozenset({"refund", "report"}))
    assert index.corrections("refnd") == ["refund"] and index.corrections("reprt") == []
    index.remove(frozenset({"refund"}))
    assert len(index) == 0 and index.corrections("refnd") == []


# ---------------------------------------------------------------------------- semantic (fake model)


class HashEmbedder:
    """Deterministic stand-in for a model: a bag of hashed stems (CRC-32, the same in every process,
    unlike ``hash``), plus synonyms we choose."""

    SYNONYMS = {"money": "refund", "package": "parcel", "purchase": "checkout"}

    def __init__(self) -> None:
        self.calls = 0
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return "hash-embedder"

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls += 1
        self.texts.extend(texts)
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for t in tokenize(text):
                t = stem(self.SYNONYMS.get(t, t))
                out[i, zlib.crc32(t.encode()) % 64] += 1.0
            norm = np.linalg.norm(out[i])
            if norm:
                out[i] /= norm
        return out


def test_semantic_hits_carry_both_scores_and_fused_is_default() -> None:
    emb = HashEmbedder()
    index = SearchIndex(semantic=emb)
    assert index.semantic and index.model_name == "hash-embedder"
    index.replace_source("1", SHOP)
    hits = index.search("delete user")
    assert keys(hits)[0] == "delete_user"
    assert hits[0].keyword_score is not None and hits[0].semantic_score is not None
    sem = index.search("delete user", mode="semantic")
    assert sem[0].keyword_score is None and sem[0].semantic_score == pytest.approx(sem[0].score)
    kw = index.search("delete user", mode="keyword")
    assert kw[0].semantic_score is None


def test_embeddings_are_computed_once_and_cached_by_content() -> None:
    emb = HashEmbedder()
    index = SearchIndex(semantic=emb)
    index.replace_source("1", SHOP)
    assert index.pending_embeddings == len(SHOP)
    assert index.compute_embeddings() == len(SHOP)
    assert len(emb.texts) == len(SHOP)
    index.search("refund", mode="semantic")
    index.search("refund", mode="semantic")  # query vector cached too
    assert len(emb.texts) == len(SHOP) + 1
    index.replace_source("1", SHOP)  # unchanged tab: nothing to embed
    index.remove_source("1")
    index.replace_source("9", SHOP)  # tab reloaded: vectors come from the cache
    assert index.pending_embeddings == 0
    index.replace_source("9", [*SHOP[:-1], doc("refund_order", "Refund an order to the card.")])
    assert index.pending_embeddings == 1
    index.search("refund card", mode="semantic")  # a search embeds what is pending
    assert index.pending_embeddings == 0
    assert len(emb.texts) == len(SHOP) + 3
    assert index.stats()["embedded"] == len(SHOP)


def test_compute_embeddings_in_a_worker_thread_never_installs_stale_vectors() -> None:
    started, release = threading.Event(), threading.Event()

    class Slow(HashEmbedder):
        def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            if len(texts) > 1:  # the tool batch (not a query): hold it while the tab changes
                started.set()
                assert release.wait(5)
            return super().encode(texts)

    emb = Slow()
    index = SearchIndex(semantic=emb)
    index.replace_source("1", SHOP)
    worker = threading.Thread(target=index.compute_embeddings)
    worker.start()
    assert started.wait(5)
    index.replace_source("1", [doc("refund_order", "Send the money back.")])  # index not locked
    release.set()
    worker.join(5)
    assert index.pending_embeddings == 1  # the new text; the old vector was not installed
    hits = index.search("money back", mode="semantic")
    assert keys(hits) == ["refund_order"] and index.pending_embeddings == 0
    entry = index._entries["refund_order"]
    vecs = index._emb.vectors if index._emb is not None else None
    assert vecs is not None
    assert np.array_equal(vecs[entry.slot], emb.encode([entry.embed_text])[0])


class _Table:
    """A stand-in model whose cosine with any query falls by ``step`` per place in ``order``."""

    name = "table"

    def __init__(self, order: list[str], step: float) -> None:
        self.order, self.step = order, step

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), 8), dtype=np.float32)
        for i, text in enumerate(texts):
            head = text.split(".")[0].replace(" ", "_")
            if head in self.order:  # a tool
                out[i, 0] = 1.0 - self.step * self.order.index(head)
                out[i, 1] = np.sqrt(1 - out[i, 0] ** 2)
            else:  # the query
                out[i, 0] = 1.0
        return out


_FUSION_DOCS = [
    doc("alpha", "invoice invoice invoice export"),  # keyword 1st, semantic last
    doc("bravo", "invoice invoice export"),  # keyword 2nd, semantic 2nd
    doc("charlie", "nothing relevant"),  # no keyword match, semantic 1st
    doc("delta", "invoice export and more words here"),  # keyword 3rd, semantic 3rd
]


def _fusion_index(step: float) -> SearchIndex:
    index = SearchIndex(semantic=_Table(["charlie", "bravo", "delta", "alpha"], step))
    index.replace_source("1", _FUSION_DOCS)
    return index


def test_fused_score_is_cosine_plus_a_share_of_the_relative_keyword_score() -> None:
    index = _fusion_index(0.05)
    assert keys(index.search("invoice export", mode="keyword")) == ["alpha", "bravo", "delta"]
    assert keys(index.search("invoice export", mode="semantic")) == ["charlie", "bravo", "delta", "alpha"]
    fused = index.search("invoice export", mode="fused")
    best_kw = max(h.keyword_score or 0.0 for h in fused)
    for h in fused:
        assert h.semantic_score is not None
        share = KEYWORD_WEIGHT * (h.keyword_score or 0.0) / best_kw
        assert h.score == pytest.approx(h.semantic_score + share)
    assert [h.score for h in fused] == sorted((h.score for h in fused), reverse=True)
    # Meanings this close: the words decide, and the tool both rankings like wins.
    assert keys(fused)[0] == "bravo"
    assert fused[-1].key == "charlie" and fused[-1].keyword_score is None


def test_fusion_keeps_a_clearly_better_meaning_above_keyword_matches() -> None:
    fused = _fusion_index(0.2).search("invoice export", mode="fused")
    assert keys(fused)[0] == "charlie"  # cosine 1.0 against 0.8 and below: the words do not overturn it
    assert keys(fused)[1] == "bravo"


def test_semantic_finds_a_paraphrase_keyword_misses() -> None:
    index = SearchIndex(semantic=HashEmbedder())
    index.replace_source("1", [doc("refund_order", "Refund an order."), doc("list_orders", "List orders.")])
    assert index.search("money back", mode="keyword") == []
    assert keys(index.search("money back", mode="fused"))[0] == "refund_order"


def test_semantic_mode_without_a_model_is_an_error(shop: SearchIndex) -> None:
    with pytest.raises(SemanticUnavailableError):
        shop.search("user", mode="semantic")
    with pytest.raises(ValueError):
        shop.search("user", mode="nope")  # type: ignore[arg-type]


def test_missing_extra_is_reported_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic_mod, "missing_parts", lambda: ["onnxruntime (package onnxruntime)"])
    with pytest.raises(SemanticUnavailableError, match=r"\[semantic\].*onnxruntime"):
        SearchIndex(semantic=True)
    assert len(SearchIndex(semantic=False)) == 0


# ---------------------------------------------------------------------------- semantic (real model)


@pytest.fixture(scope="session")
def minilm() -> Iterator[SearchIndex]:
    if not semantic_available():
        missing_from_setup(
            "the default search model is not installed: missing " + ", ".join(missing_parts()),
            opted_out="TABMCP_NO_SEMANTIC",
        )
    assert SearchIndex(semantic=True).model_name.startswith(DEFAULT_MODEL + "@")  # + the weights' digest
    index = SearchIndex(semantic=True)
    index.replace_source("1", SHOP)
    index.compute_embeddings()
    yield index


def test_real_model_ranks_by_meaning(minilm: SearchIndex) -> None:
    hits = minilm.search("where is my parcel", mode="semantic")
    assert keys(hits)[0] == "track_parcel"
    assert 0.0 < hits[0].semantic_score <= 1.0  # type: ignore[operator]
    assert keys(minilm.search("reimburse a purchase", mode="semantic"))[0] == "refund_order"
    assert keys(minilm.search("remove an account"))[0] == "delete_user"  # fused by default


def test_real_model_vectors_are_normalised_and_cached(minilm: SearchIndex) -> None:
    assert minilm.pending_embeddings == 0
    vecs = minilm._emb.vectors if minilm._emb is not None else None
    assert vecs is not None and vecs.shape[1] == 384
    norms = np.linalg.norm(vecs[: len(SHOP)], axis=1)
    assert np.allclose(norms, 1.0, atol=1e-4)
