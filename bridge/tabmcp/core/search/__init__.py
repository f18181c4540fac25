"""Tool search: keyword (BM25) ranking, fuzzy names, optional semantic ranking, fusion.

See :mod:`tabmcp.core.search.index` and docs/search.md.
"""

from .index import SearchDoc, SearchHit, SearchIndex, SearchMode
from .semantic import (
    DEFAULT_MODEL,
    INSTALL_HINT,
    Embedder,
    EmbeddingCache,
    OnnxEmbedder,
    SemanticUnavailableError,
    SentenceTransformerEmbedder,
    bundled_model_path,
    default_embedder,
    missing_parts,
    semantic_available,
)
from .text import normalize_name, stem, tokenize, tokenize_name
from .usage import UseMemory

__all__ = [
    "DEFAULT_MODEL",
    "INSTALL_HINT",
    "Embedder",
    "EmbeddingCache",
    "OnnxEmbedder",
    "SearchDoc",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SemanticUnavailableError",
    "SentenceTransformerEmbedder",
    "UseMemory",
    "bundled_model_path",
    "default_embedder",
    "missing_parts",
    "normalize_name",
    "semantic_available",
    "stem",
    "tokenize",
    "tokenize_name",
]
