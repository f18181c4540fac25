"""Every page result, made safe to hand to the agent: every string of every content item, at any
depth, goes through one :class:`~.gate.TextGate` (cleaned, capped, framed, scanned: docs/security.md).

Text parts share ``trust.max_result_chars``; structured content larger than that is dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .gate import (
    TRUST_PAGE,
    TRUST_UNTRUSTED_CONTENT,
    PageSource,
    TextGate,
    frame_close,
    frame_open,
    precut,
    strip_hidden,
)
from .settings import TrustSettings
from .text import PageJson, ShownResult

__all__ = [
    "META_OURS",
    "META_TRUST",
    "TRUNCATION_MARKER",
    "TRUST_PAGE",
    "TRUST_UNTRUSTED_CONTENT",
    "ProcessedResult",
    "ResultSource",
    "frame_close",
    "frame_open",
    "process_result",
    "strip_hidden",
]

META_TRUST = "tabmcp/trust"
META_OURS = "tabmcp/"
"""``_meta`` keys the bridge writes; a page's own keys with this prefix never reach the agent."""
TRUNCATION_MARKER = (
    "[tabmcp: result truncated: {removed} of {total} characters removed (trust.max_result_chars = {cap})]"
)
DEPTH_NOTE = "[tabmcp: structured content nested deeper than {depth} levels was cut]"
_BINARY = frozenset({"data", "blob"})
"""Base64 fields of image, audio and blob items: not text the agent reads, kept as they are."""

ResultSource = PageSource
"""Where a result comes from (the gate's :class:`~.gate.PageSource`)."""


@dataclass
class ProcessedResult:
    result: ShownResult
    flags: list[str] = field(default_factory=list)
    removed: dict[str, int] = field(default_factory=dict)
    truncated: bool = False

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


class _Texts:
    """The text parts' shared budget: what each kept, and the total the page sent."""

    def __init__(self, gate: TextGate, cap: int) -> None:
        self.gate, self.cap, self.left, self.total = gate, cap, cap, 0

    def take(self, text: str) -> str:
        cleaned = self.gate.clean(text, self.cap)
        self.total += len(text) if len(text) > precut(self.cap) else len(cleaned)  # what the page sent
        kept = cleaned[: self.left]
        self.left -= len(kept)
        return self.gate.deliver(kept)


def _item(gate: TextGate, texts: _Texts, item: Any) -> tuple[dict[str, Any], bool]:
    """One content item through the gate; whether it is text the frame goes around in place."""
    if not isinstance(item, dict):
        return {"type": "text", "text": texts.take(json.dumps(item, default=str))}, True
    kind = item.get("type")
    out: dict[str, Any] = {}
    inline = False
    for key, value in item.items():
        if kind == "text" and key == "text" and isinstance(value, str):
            out[key], inline = texts.take(value), True
        elif kind == "resource" and key == "resource" and isinstance(value, dict):
            res = {k: v for k, v in value.items() if k != "text"}
            res = gate.tree(res, skip=_BINARY)
            if isinstance(value.get("text"), str):
                res["text"], inline = texts.take(value["text"]), True
            out[key] = res
        elif key in _BINARY and isinstance(value, str):
            out[key] = value
        else:
            out[gate.field(key) if isinstance(key, str) else str(key)] = gate.tree(value, depth=1)
    return out, inline


def _frame(gate: TextGate, items: list[tuple[dict[str, Any], bool]]) -> list[dict[str, Any]]:
    """Text parts framed in place; each run of other items (links, images, blobs) between two frame parts."""
    opening, closing = gate.opening(), gate.closing()
    out: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []

    def flush() -> None:
        if run:
            out.extend([{"type": "text", "text": opening}, *run, {"type": "text", "text": closing}])
            run.clear()

    for item, inline in items:
        if not inline:
            run.append(item)
            continue
        flush()
        holder = item["resource"] if item.get("type") == "resource" else item
        holder["text"] = f"{opening}\n{holder['text']}\n{closing}"
        out.append(item)
    flush()
    return out


def process_result(
    result: PageJson,
    source: ResultSource,
    settings: TrustSettings | None = None,
    *,
    nonce: str | None = None,
) -> ProcessedResult:
    """Clean, cap, frame and scan one page result (a CallToolResult as a dict; not modified)."""
    settings = settings or TrustSettings()
    gate = TextGate(source, settings, nonce=nonce)
    cap = settings.max_result_chars
    texts = _Texts(gate, cap)
    out: dict[str, Any] = {}
    for key, value in result.items():
        if key in ("content", "structuredContent", "_meta"):
            continue
        out[key] = value if isinstance(value, bool) else gate.tree(value, depth=1)

    raw_content = result.get("content")
    raw_content = raw_content if isinstance(raw_content, list) else []
    items = [_item(gate, texts, item) for item in raw_content]
    markers: list[str] = []
    if texts.total > cap:
        markers.append(TRUNCATION_MARKER.format(removed=texts.total - cap, total=texts.total, cap=cap))
        gate.truncated["text"] = {"total": texts.total, "kept": cap}

    if "structuredContent" in result:
        before = gate.delivered_count
        structured = gate.tree(
            result["structuredContent"], budget=cap + 1, pool="structured", what="structuredDepth"
        )
        size = len(json.dumps(structured, default=str))
        if size > cap:
            gate.forget(gate.delivered_count - before)  # dropped: never delivered, nothing to scan
            gate.truncated["structuredContent"] = {"total": size, "dropped": True}
            markers.append(
                TRUNCATION_MARKER.format(removed=size, total=size, cap=cap) + " (structured content dropped)"
            )
        else:
            out["structuredContent"] = structured
        if "structuredDepth" in gate.truncated:
            markers.append(DEPTH_NOTE.format(depth=gate.truncated["structuredDepth"]["max_depth"]))

    meta_in = result.get("_meta")
    meta_in = meta_in if isinstance(meta_in, dict) else {}
    ours = {k: v for k, v in meta_in.items() if isinstance(k, str) and k.startswith(META_OURS)}
    theirs = {k: v for k, v in meta_in.items() if k not in ours}
    meta: dict[str, Any] = gate.tree(theirs, pool="meta") if theirs else {}

    gate.scan()  # everything the agent is given, in full
    out["content"] = _frame(gate, items) if settings.frame_text else [item for item, _ in items]
    out["content"].extend({"type": "text", "text": m} for m in markers)  # ours, after the page's framed data
    meta.update(ours)
    meta[META_TRUST] = gate.trust_meta()
    out["_meta"] = meta
    return ProcessedResult(ShownResult(out), list(gate.flags), dict(gate.removed), bool(gate.truncated))
