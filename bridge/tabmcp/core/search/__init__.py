"""Tool search: keyword (BM25) ranking, fuzzy names, optional semantic ranking, fusion.

See :mod:`tabmcp.core.search.index` and docs/search.md.
"""

from .index import SearchDoc, SearchHit, SearchIndex, SearchMode
from .semantic import (
    DEFAULT_MODEL,
    Embedder,
    EmbeddingCache,
    SemanticUnavailableError,
    SentenceTransformerEmbedder,
    bundled_model_path,
    semantic_available,
)
from .text import normalize_name, stem, tokenize, tokenize_name

__all__ = [
    "DEFAULT_MODEL",
    "Embedder",
    "EmbeddingCache",
    "SearchDoc",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SemanticUnavailableError",
    "SentenceTransformerEmbedder",
    "bundled_model_path",
    "normalize_name",
    "semantic_available",
    "stem",
    "tokenize",
    "tokenize_name",
]
