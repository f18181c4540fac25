"""Search quality of the tool search index: Recall@1, Recall@5 and MRR.

Run from the repository root::

    .venv/bin/python -m bench.search_quality [--no-semantic] [--model PATH] [--misses N]

Data sets (read-only, never copied into the repo) are found in ``$TABMCP_DATA``, by default
``../shared/data`` next to the repository:

* ``metatool.json``: MetaTool's 199 plugins and 600 labeled user queries;
* ``mcp_catalog.json``: 682 real MCP tools, searched with the hand-written labeled queries of
  ``bench/data/mcp_catalog_queries.json`` (how they were written: docs/search.md).

Rankings compared: keyword (BM25 + fuzzy), semantic (local embedding model, when the
``[semantic]`` extra is installed) and fused (reciprocal rank fusion), plus two reference
points: a naive substring scan and, when ``bm25s`` is installed, plain BM25 from that library
on the concatenated text with its default tokenizer.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from tabmcp.core.search import SearchDoc, SearchIndex, SentenceTransformerEmbedder, semantic_available
from tabmcp.core.search.semantic import resolve_model
from tabmcp.core.search.text import STOPWORDS, split_words

from ._table import print_table

REPO = Path(__file__).resolve().parents[1]
QUERIES_FILE = REPO / "bench" / "data" / "mcp_catalog_queries.json"
K_DEPTH = 100


# ---------------------------------------------------------------------------- data


def data_dir() -> Path:
    return Path(os.environ.get("TABMCP_DATA", REPO.parent / "shared" / "data")).resolve()


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
                )
            )
        out.append((cat["name"], docs))
    return out


def catalog_queries() -> list[dict[str, Any]]:
    return list(json.loads(QUERIES_FILE.read_text())["queries"])


def metatool(
    d: Path | None = None, *, model_descriptions: bool
) -> tuple[list[SearchDoc], list[dict[str, Any]]]:
    d = d or require_data("metatool.json")
    raw = json.loads((d / "metatool.json").read_text())
    docs = []
    for t in raw["tools"]:
        desc = t["description"]
        if model_descriptions and t.get("description_for_model"):
            desc = f"{desc}\n{t['description_for_model']}"
        docs.append(
            SearchDoc(
                key=t["name"], name=t["name"], title=None, description=desc, category=None, source="metatool"
            )
        )
    queries = [{"query": q["query"], "tools": [q["tool"]], "style": "task"} for q in raw["queries"]]
    return docs, queries


# ---------------------------------------------------------------------------- metrics


@dataclass
class Scores:
    n: int = 0
    r1: float = 0.0
    r5: float = 0.0
    rr: float = 0.0

    def add(self, ranking: Sequence[str], relevant: set[str]) -> int | None:
        self.n += 1
        rank = next((i for i, k in enumerate(ranking, 1) if k in relevant), None)
        if rank is not None:
            self.r1 += rank == 1
            self.r5 += rank <= 5
            self.rr += 1.0 / rank
        return rank

    def row(self) -> list[str]:
        n = max(self.n, 1)
        return [f"{self.r1 / n:.3f}", f"{self.r5 / n:.3f}", f"{self.rr / n:.3f}"]


Ranker = Callable[[str], list[str]]


def substring_ranker(docs: Sequence[SearchDoc]) -> Ranker:
    """Baseline: count the query's words found as substrings of each tool's text."""
    blobs = [
        (
            d.key,
            " ".join(
                [d.name, d.title or "", d.description, d.category or "", *d.arg_names, *d.arg_descriptions]
            ).lower(),
        )
        for d in docs
    ]

    def rank(query: str) -> list[str]:
        words = [w for w in split_words(query) if w not in STOPWORDS and len(w) > 2]
        scored = [(sum(w in blob for w in words), i) for i, (_, blob) in enumerate(blobs)]
        scored = [x for x in scored if x[0] > 0]
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [blobs[i][0] for _, i in scored[:K_DEPTH]]

    return rank


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


def index_ranker(index: SearchIndex, mode: str) -> Ranker:
    def rank(query: str) -> list[str]:
        return [h.key for h in index.search(query, limit=K_DEPTH, mode=mode)]  # type: ignore[arg-type]

    return rank


def evaluate(
    name: str,
    rankers: dict[str, Ranker],
    queries: Sequence[dict[str, Any]],
    misses: int,
    by_style: bool = False,
) -> list[list[str]]:
    rows = []
    for label, rank in rankers.items():
        total = Scores()
        styles: dict[str, Scores] = {}
        missed = []
        for q in queries:
            ranking = rank(q["query"])
            r = total.add(ranking, set(q["tools"]))
            styles.setdefault(q.get("style", "task"), Scores()).add(ranking, set(q["tools"]))
            if r != 1:
                missed.append((q["query"], q["tools"], r, ranking[:3]))
        rows.append([name, label, str(total.n), *total.row()])
        if by_style:
            for style, sc in sorted(styles.items()):
                rows.append(["", f"  {label}: {style}", str(sc.n), *sc.row()])
        for query, tools, r, top in missed[:misses]:
            print(f"  miss [{label}] {query!r} → want {tools}, rank {r}, got {top}")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-semantic", action="store_true", help="keyword ranking only")
    ap.add_argument(
        "--model", default=None, help="sentence-transformers model name or path (default: bundled MiniLM)"
    )
    ap.add_argument(
        "--misses", type=int, default=0, help="print up to N queries each ranking missed at rank 1"
    )
    args = ap.parse_args(argv)

    d = require_data("metatool.json", "mcp_catalog.json")
    semantic: SentenceTransformerEmbedder | None = None
    if not args.no_semantic:
        if semantic_available():
            semantic = SentenceTransformerEmbedder(resolve_model(args.model or True), threads=1)
        else:
            print("note: sentence-transformers not installed: keyword ranking only ([semantic] extra)")

    def rankers(docs: list[SearchDoc], sources: list[tuple[str, list[SearchDoc]]]) -> dict[str, Ranker]:
        index = SearchIndex(semantic=semantic or False)
        for sid, sdocs in sources:
            index.replace_source(sid, sdocs)
        t0 = time.perf_counter()
        index.compute_embeddings()
        if semantic:
            print(f"  embedded {len(index)} tools in {time.perf_counter() - t0:.1f} s")
        out: dict[str, Ranker] = {"substring scan (baseline)": substring_ranker(docs)}
        ref = bm25s_ranker(docs)
        if ref is not None:
            out["bm25s defaults (reference)"] = ref
        out["keyword"] = index_ranker(index, "keyword")
        if semantic:
            out["semantic"] = index_ranker(index, "semantic")
            out["fused"] = index_ranker(index, "fused")
        return out

    rows: list[list[str]] = []
    for variant, model_desc in (("MetaTool (short desc.)", False), ("MetaTool (+model desc.)", True)):
        docs, queries = metatool(d, model_descriptions=model_desc)
        print(f"{variant}: {len(docs)} tools, {len(queries)} queries")
        rows += evaluate(variant, rankers(docs, [("metatool", docs)]), queries, args.misses)
    sources = catalog_sources(d)
    docs = [doc for _, sdocs in sources for doc in sdocs]
    queries = catalog_queries()
    print(f"MCP catalog: {len(docs)} tools in {len(sources)} sources, {len(queries)} queries")
    rows += evaluate("MCP catalog", rankers(docs, sources), queries, args.misses, by_style=True)

    print_table(
        "Search quality (Recall@1, Recall@5, MRR over the top 100; timing: bench.search_latency)",
        ["data set", "ranking", "queries", "R@1", "R@5", "MRR"],
        rows,
        note=f"semantic model: {semantic.name if semantic else 'none'}",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
