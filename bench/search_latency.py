"""Latency of the tool search index: searches at 100, 1,000 and 5,000 tools, and updates.

Run from the repository root::

    ./dev bench search_latency [--no-semantic] [--rounds N]

Tools are the MCP catalog's 682 real tools (``$TABMCP_DATA/mcp_catalog.json``, default
``../shared/data``), sampled for 100 and replicated with distinct names for more, as the bridge
names copies from several tabs (``t3.github_create_issue``); one source (tab) per category and
replica. Queries are the catalog requests of ``bench/data/catalog_requests_*.json`` (people's
words) plus the name-like queries of ``bench/data/mcp_catalog_queries.json``, each run once to
warm up and then ``--rounds`` times; the multi-step requests of
``bench/data/multistep_requests_*.json`` have their own row.

Semantic rows use the default model (MiniLM-L6, int8, on onnxruntime, one thread). The 682
catalog tools are embedded by the model; the replicas that make up 1,000 and 5,000 tools get
copies of their original's vector (their texts differ only by the replica prefix), so the run
takes seconds, not minutes: the model's cost per tool is measured in the update table. The row
to read for the latency aim is "fused (default), embedding the query": p99 per query at 5,000
tools, the query's embedding included.

Baselines measured in the same run: a naive linear substring scan over all tools, plain BM25
from ``bm25s`` when installed (a static index: any change means re-indexing), and a full
rebuild of our index against the incremental update of one 50-tool tab.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from tabmcp.core.search import EmbeddingCache, SearchDoc, SearchIndex, default_embedder, semantic_available
from tabmcp.core.search.doc import embed_text as _embed_text
from tabmcp.core.search.semantic import Embedder, content_hash, missing_parts

from ._data import data_dir
from ._table import percentile, print_table
from .search_quality import bm25s_ranker, catalog_requests, catalog_sources, multistep_requests


def latency_queries() -> list[dict[str, Any]]:
    """People's requests (both halves) and the older set's name-like queries."""
    old = json.loads((Path(__file__).parent / "data" / "mcp_catalog_queries.json").read_text())["queries"]
    people = [{**q, "style": "task"} for split in ("tune", "test") for q in catalog_requests(split)]
    return people + [q for q in old if q.get("style") == "name"]


def substring_ranker(docs: Sequence[SearchDoc]) -> Callable[[str], list[str]]:
    """Baseline: count the query's words found as substrings of each tool's text."""
    blobs = [(d.key, " ".join([d.name, d.title or "", d.description, *d.arg_names]).lower()) for d in docs]

    def rank(query: str) -> list[str]:
        words = [w for w in query.lower().split() if len(w) > 2]
        counts = ((sum(w in b for w in words), i) for i, (_, b) in enumerate(blobs))
        scored = sorted(counts, key=lambda x: -x[0])
        return [blobs[i][0] for n, i in scored[:100] if n]

    return rank


def seed_replicas(embedder: Embedder, base: Sources, sources: Sources, cache: EmbeddingCache) -> None:
    """Put each replica's vector (a copy of its original's) in ``cache``; embeds the originals once."""
    originals = {d.key: d for _, ds in base for d in ds}
    todo = [d for d in originals.values() if cache.get(content_hash(embedder.name, _embed_text(d))) is None]
    if todo:
        vecs = embedder.encode([_embed_text(d) for d in todo])
        keys = [content_hash(embedder.name, _embed_text(d)) for d in todo]
        cache.put_many(list(zip(keys, vecs, strict=True)))
    for _, docs in sources:
        for d in docs:
            orig = originals.get(d.key.split(".", 1)[1] if d.key.startswith("t") and "." in d.key else d.key)
            if orig is not None and orig is not d:
                vec = cache.get(content_hash(embedder.name, _embed_text(orig)))
                assert vec is not None
                cache.put(content_hash(embedder.name, _embed_text(d)), vec)

SIZES = (100, 1_000, 5_000)
Sources = list[tuple[str, list[SearchDoc]]]


def corpus(n: int, base: Sources) -> Sources:
    """``n`` tools in sources: a sample of the catalog, or replicas of it with distinct names."""
    flat = [(sid, d) for sid, docs in base for d in docs]
    picked: list[tuple[int, str, SearchDoc]] = []
    replica = 0
    while len(picked) < n:
        take = (
            flat if n - len(picked) >= len(flat) else random.Random(7 + replica).sample(flat, n - len(picked))
        )
        picked += [(replica, sid, d) for sid, d in take]
        replica += 1
    out: dict[str, list[SearchDoc]] = {}
    for r, sid, d in picked:
        if r:
            d = dataclasses.replace(
                d, key=f"t{r}.{d.key}", name=f"t{r}.{d.key}", source=d.source.replace(".test", f"{r}.test")
            )
        out.setdefault(f"{r}:{sid}", []).append(d)
    return list(out.items())


def build(sources: Sources, **kw: object) -> SearchIndex:
    index = SearchIndex(**kw)  # type: ignore[arg-type]
    for sid, docs in sources:
        index.replace_source(sid, docs)
    return index


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


class Samples(list[float]):
    """Wall-clock milliseconds per query, with the CPU milliseconds the searching thread spent
    (``cpu``): on a shared machine the wall clock also counts the time other processes held the
    core, the CPU time is what the search itself costs (the model runs in the calling thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu: list[float] = []


def run_queries(
    fn: Callable[[str], object], queries: Sequence[str], rounds: int, warm: bool = True
) -> Samples:
    if warm:
        for q in queries:
            fn(q)  # warm-up (and, for fused, the query vector cache)
    out = Samples()
    for _ in range(rounds):
        for q in queries:
            c0, t0 = time.thread_time(), time.perf_counter()
            fn(q)
            out.append((time.perf_counter() - t0) * 1e3)
            out.cpu.append((time.thread_time() - c0) * 1e3)
    return out


def row(label: str, n: int, samples: Sequence[float], base: float | None = None) -> list[str]:
    p50 = percentile(samples, 50)
    cpu = getattr(samples, "cpu", None)
    return [
        label,
        f"{n:,}",
        f"{p50:.3f}",
        f"{percentile(samples, 95):.3f}",
        f"{percentile(samples, 99):.3f}",
        f"{statistics.fmean(samples):.3f}",
        f"{percentile(cpu, 50):.2f} / {percentile(cpu, 99):.2f}" if cpu else "",
        f"{base / p50:.0f}x" if base else "",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-semantic", action="store_true", help="keyword ranking only")
    ap.add_argument("--rounds", type=int, default=3, help="timed passes over the query set (default 3)")
    args = ap.parse_args(argv)

    base = catalog_sources(data_dir())
    queries = latency_queries()
    texts = [q["query"] for q in queries]
    names = [q["query"] for q in queries if q["style"] == "name"]
    multi = [q["query"] for split in ("tune", "test") for q in multistep_requests(split)]
    semantic = not args.no_semantic and semantic_available()
    if not args.no_semantic and not semantic:
        print("note: the embedding model is not installed (missing " + ", ".join(missing_parts()) + ")")
    load0 = os.getloadavg()
    embedder = default_embedder(threads=1) if semantic else None
    shared = EmbeddingCache(max_entries=50_000)

    rows: list[list[str]] = []
    indexes: dict[int, SearchIndex] = {}
    for n in SIZES:
        sources = corpus(n, base)
        docs = [d for _, ds in sources for d in ds]
        assert len({d.key for d in docs}) == n
        index = build(sources)
        indexes[n] = index
        scan = substring_ranker(docs)
        scan_t = run_queries(scan, texts, 1)
        scan_p50 = percentile(scan_t, 50)
        rows.append(row("substring scan (baseline)", n, scan_t))
        ref = bm25s_ranker(docs)
        if ref is not None:
            rows.append(
                row("bm25s, static index (reference)", n, run_queries(ref, texts, args.rounds), scan_p50)
            )
        rows.append(
            row(
                "keyword, all queries",
                n,
                run_queries(index.search, texts, args.rounds),
                scan_p50,
            )
        )
        rows.append(
            row(
                "keyword, name-like queries",
                n,
                run_queries(index.search, names, args.rounds * 5),
            )
        )
        if embedder is not None:
            seed_replicas(embedder, base, sources, shared)
            warm = build(sources, semantic=embedder, embedding_cache=shared)
            cold = build(sources, semantic=embedder, embedding_cache=shared, query_cache_size=0)
            assert warm.pending_embeddings == 0 and cold.pending_embeddings == 0
            rows.append(
                row(
                    "fused, query vector cached",
                    n,
                    run_queries(warm.search, texts, args.rounds),
                    scan_p50,
                )
            )
            # As users run it: each query new to the index (no query cache), its embedding included.
            cold.search("warm up the model")
            rows.append(
                row("fused (default), embedding the query", n, run_queries(cold.search, texts, 1, warm=False))
            )
            # Requests of several steps: each clause embedded and ranked too (core/search/clauses.py).
            rows.append(
                row("  multi-step requests, embedding the query", n,
                    run_queries(cold.search, multi, 1, warm=False))
            )
            if n == SIZES[-1]:
                rows.append(
                    row("  of which: the query's embedding alone", n,
                        run_queries(lambda q: embedder.encode([q]), texts, 1, warm=False))
                )
            if n == SIZES[-1]:
                # A new 500-tool tab arrives: searches go on while the worker embeds it.
                new_tab = [
                    dataclasses.replace(
                        d, key=f"new.{d.key}", name=f"new.{d.key}", description=d.description + " (new)"
                    )
                    for d in random.Random(3).sample([d for _, ds in base for d in ds], 500)
                ]
                bg = build(
                    sources, semantic=embedder, embedding_cache=shared, query_cache_size=0, background=True
                )
                bg.replace_source("new", new_tab)
                during = Samples()
                for q in texts:
                    if not bg.pending_embeddings:
                        break
                    c0 = time.thread_time()
                    during.append(timed(partial(bg.search, q)))
                    during.cpu.append((time.thread_time() - c0) * 1e3)
                left = bg.pending_embeddings
                bg.close()
                if during:
                    label = f"fused, while a new 500-tool tab is embedded ({left} left)"
                    rows.append(row(label, n + 500, during))
        print(f"{n:,} tools: measured")

    print_table(
        "Search latency in ms (limit 10; wall clock p50/p95/p99 over all timed queries; CPU = the searching "
        "thread's CPU time, p50 / p99; speed-up = scan p50 / p50)",
        ["ranking", "tools", "p50", "p95", "p99", "mean", "CPU p50 / p99", "vs scan"],
        rows,
    )

    # ---------------------------------------------------------------- updates at 5,000 tools
    n = SIZES[-1]
    sources = corpus(n, base)
    index = indexes[n]
    tab = [
        dataclasses.replace(d, key=f"big.{d.key}", name=f"big.{d.key}", source="https://big.test")
        for d in random.Random(1).sample([d for _, ds in base for d in ds], 50)
    ]
    tab_v2 = [dataclasses.replace(d, description=d.description + " (v2)") for d in tab]
    index.replace_source("big", tab)
    upd: list[list[str]] = []
    changed = [timed(partial(index.replace_source, "big", tab_v2 if i % 2 == 0 else tab)) for i in range(40)]
    same = [timed(partial(index.replace_source, "big", tab)) for _ in range(40)]

    def remove_add() -> None:
        index.remove_source("big")
        index.replace_source("big", tab)

    readd = [timed(remove_add) for _ in range(40)]
    after = []
    for i in range(20):
        index.replace_source("big", tab_v2 if i % 2 == 0 else tab)
        after.append(timed(lambda: index.search("take a screenshot of the current page")))
    steady = [timed(lambda: index.search("take a screenshot of the current page")) for _ in range(20)]
    rebuild = [timed(lambda: build([*sources, ("big", tab)])) for _ in range(3)]
    rb = statistics.median(rebuild)
    upd.append(["full rebuild of the index", f"{n + 50:,}", f"{rb:.1f}", ""])
    for label, samples in (
        ("replace a 50-tool tab, all tools changed", changed),
        ("replace a 50-tool tab, unchanged (re-sent)", same),
        ("remove a 50-tool tab and add it back", readd),
    ):
        p50 = percentile(samples, 50)
        upd.append([label, f"{n + 50:,}", f"{p50:.2f}", f"{rb / p50:.0f}x"])
    upd.append(
        ["first search after an update (lazy arrays)", f"{n + 50:,}", f"{percentile(after, 50):.3f}", ""]
    )
    upd.append(["same search, steady state", f"{n + 50:,}", f"{percentile(steady, 50):.3f}", ""])
    docs = [d for _, ds in sources for d in ds] + tab
    try:
        import bm25s  # type: ignore[import-untyped]  # noqa: F401

        bm = [timed(lambda: bm25s_ranker(docs)) for _ in range(3)]
        upd.append(
            [
                "bm25s: re-index everything (its only update)",
                f"{n + 50:,}",
                f"{statistics.median(bm):.1f}",
                "",
            ]
        )
    except ImportError:
        pass
    if embedder is not None:
        sem = build([*sources, ("big", tab)], semantic=embedder, embedding_cache=shared)
        sem.compute_embeddings()
        fresh = [
            [dataclasses.replace(d, description=d.description + f" (edit {i})") for d in tab]
            for i in range(3)
        ]

        def update_and_embed(docs: list[SearchDoc]) -> None:
            sem.replace_source("big", docs)
            sem.compute_embeddings()

        emb = [timed(partial(update_and_embed, v)) for v in fresh]
        cached = [timed(partial(update_and_embed, tab)) for _ in range(3)]
        upd.append(
            [
                "semantic: replace 50 changed tools + embed them",
                f"{n + 50:,}",
                f"{statistics.median(emb):.1f}",
                "",
            ]
        )
        upd.append(
            [
                "semantic: tab reload, vectors from the cache",
                f"{n + 50:,}",
                f"{statistics.median(cached):.2f}",
                "",
            ]
        )
    print_table(
        "Index updates in ms (p50; speed-up = full rebuild / update)",
        ["operation", "tools", "ms", "vs rebuild"],
        upd,
    )
    load1 = os.getloadavg()
    print(
        f"\nmachine: {os.cpu_count()} CPUs; load average {load0[0]:.1f} at start, {load1[0]:.1f} at end "
        "(other processes share the CPUs: compare rows of one run, not runs)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
