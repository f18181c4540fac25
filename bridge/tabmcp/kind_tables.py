"""docs/telemetry.md's tables of capture kinds, written from their records (:data:`.capture.kinds.KINDS`).

A new kind is one record; its fields on the wire and its buffer's default are then said in the
docs by ``python -m tabmcp.protocol_js`` (whose ``main`` writes these too), not by a hand edit a
reader would have to remember. ``bridge/tests/telemetry/test_kind_recipe.py`` fails when they are stale.
"""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path
from typing import Literal, get_args, get_origin

from pydantic import BaseModel

from .capture.kinds import KINDS

__all__ = ["TELEMETRY_MD", "current_tables", "tables", "write"]

TELEMETRY_MD = Path(__file__).resolve().parents[2] / "docs" / "telemetry.md"
_SKIPPED = frozenset({"kind", "ts", "page_reported"})


def _begin(name: str) -> str:
    return f"<!-- {name}: generated from bridge/tabmcp/capture/kinds.py by `python -m tabmcp.protocol_js` -->"


def _end(name: str) -> str:
    return f"<!-- end of the generated {name} -->"


def _fields(model: type[BaseModel]) -> str:
    """``name`` (its literal values) {its nested fields}, ``?`` when it may be left out."""
    out = []
    for name, info in model.model_fields.items():
        if name in _SKIPPED:
            continue
        text = f"`{info.alias or name}`" + ("" if info.is_required() else "?")
        members = get_args(info.annotation) if get_origin(info.annotation) in (typing.Union, types.UnionType) \
            else (info.annotation,)
        for tp in members:
            if get_origin(tp) is Literal:
                text += f" ({', '.join(str(v) for v in get_args(tp))})"
            elif isinstance(tp, type) and issubclass(tp, BaseModel):
                text += " {" + ", ".join(
                    (f.alias or n) + ("" if f.is_required() else "?") for n, f in tp.model_fields.items()) + "}"
        out.append(text)
    return ", ".join(out)


def _table(name: str, rows: list[str]) -> str:
    return "\n".join([_begin(name), "", *rows, "", _end(name)]) + "\n"


def tables() -> dict[str, str]:
    """Each generated block of docs/telemetry.md, by its marker's name."""
    wire = ["| kind | fields |", "| --- | --- |", *(f"| `{k.name}` | {_fields(k.model)} |" for k in KINDS)]
    buffers = [
        "| kind | default | what lands there |",
        "| --- | ---: | --- |",
        *(f"| `{k.buffer.value}` | {k.cap} | `{k.name}` events |" for k in KINDS),
        "| `websocket_connections` | 50 | connection status rows (closed connections are forgotten first) |",
    ]
    return {"event fields": _table("event fields", wire), "buffers": _table("buffers", buffers)}


def _block(text: str, name: str) -> re.Match[str]:
    found = re.search(re.escape(_begin(name)) + r".*?" + re.escape(_end(name)) + r"\n", text, re.S)
    if found is None:
        raise ValueError(f"docs/telemetry.md has no {_begin(name)!r} ... {_end(name)!r} block")
    return found


def current_tables(text: str) -> dict[str, str]:
    """The blocks as docs/telemetry.md holds them."""
    return {name: _block(text, name).group(0) for name in tables()}


def write() -> list[Path]:
    """Rewrite the blocks that are stale; the files written."""
    text = TELEMETRY_MD.read_text(encoding="utf-8")
    new = text
    for name, block in tables().items():
        found = _block(new, name)
        new = new[: found.start()] + block + new[found.end():]
    if new == text:
        return []
    TELEMETRY_MD.write_text(new, encoding="utf-8")
    return [TELEMETRY_MD]
