"""What the search index holds and answers: a tool's document, a hit, the ranking modes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .text import name_words

__all__ = ["DOCUMENT_WORDS", "SearchDoc", "SearchHit", "SearchMode", "embed_text"]

SearchMode = Literal["keyword", "semantic", "fused"]


@dataclass(frozen=True)
class SearchDoc:
    """What the index knows of one tool."""

    key: str
    """Unique public tool name (the hit's identity)."""
    name: str
    """Name to match (usually the key)."""
    title: str | None
    description: str
    category: str | None
    """Public category name, or None."""
    source: str
    """Where the tool comes from, e.g. the tab's origin ``https://shop.test`` (filterable)."""
    arg_names: tuple[str, ...] = ()
    arg_descriptions: tuple[str, ...] = ()
    arg_values: tuple[str, ...] = ()
    """Enumerated argument values (``get_workflow``, ``open``, ...): often the tool's real verbs."""
    category_description: str | None = None
    """What the tool's category is for, as the page declared it."""


@dataclass(frozen=True)
class SearchHit:
    key: str
    score: float
    """Higher is better; comparable within one result list only (BM25, cosine or fused)."""
    keyword_score: float | None
    """BM25 score (None when the keyword ranking did not find the tool or was not used)."""
    semantic_score: float | None
    """Cosine similarity of query and tool embeddings (None without semantic ranking)."""
    fuzzy: bool
    """Found through fuzzy matching (a misspelled name or word), not exact words alone."""


DOCUMENT_WORDS = 24
"""Words of a tool's text the model reads: name, title and the start of the description. From 24
words on, ranking is as good as the whole text's, at a quarter of the CPU (docs/search.md); the
keyword ranking still reads everything."""


def embed_text(doc: SearchDoc) -> str:
    """The text a tool is embedded from: most telling first, cut to :data:`DOCUMENT_WORDS` words."""
    parts = [" ".join(name_words(doc.name))]
    if doc.title:
        parts.append(doc.title)
    if doc.description:
        parts.append(doc.description)
    if doc.category:
        parts.append("Category: " + " ".join(name_words(doc.category)))
    if doc.arg_names:
        parts.append("Arguments: " + ", ".join(" ".join(name_words(a)) for a in doc.arg_names))
    if doc.arg_values:
        parts.append("Values: " + ", ".join(" ".join(name_words(a)) for a in doc.arg_values[:20]))
    words = ". ".join(p.strip().rstrip(".") for p in parts if p.strip()).split()
    return " ".join(words[:DOCUMENT_WORDS])
