"""The lists of error codes written from the registry (:data:`tabmcp.errors.REGISTRY`).

Each code is registered once, by its exception class; this renders what people read: the tree in
``errors.py``'s docstring and the table under "Error codes" in ``docs/protocol.md``. The extension's
``ERROR`` constants come from the same registry (:mod:`tabmcp.protocol_js`, whose ``main`` also
writes these two). ``bridge/tests/test_error_registry.py`` fails when one is stale.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from . import errors
from .core.telemetry import errors as _telemetry_errors  # registers the snapshot codes
from .errors import REGISTRY, USES, BridgeError, Registration, summary

__all__ = ["DOCS_BEGIN", "DOCS_END", "ERRORS_PY", "PROTOCOL_MD", "docs_table", "registrations", "tree", "write"]

ROOT = Path(__file__).resolve().parents[2]
ERRORS_PY = Path(errors.__file__).resolve()
PROTOCOL_MD = ROOT / "docs" / "protocol.md"
DOCS_BEGIN = "<!-- error codes: generated from bridge/tabmcp/errors.py by `python -m tabmcp.protocol_js` -->"
DOCS_END = "<!-- end of the generated error codes -->"

_ = _telemetry_errors
_WIDTH = 122
_COLUMN = 37


def registrations() -> list[Registration]:
    """Every registered code, in the order of :class:`tabmcp.errors.ErrorCode`."""
    order = {code: i for i, code in enumerate(errors.ErrorCode)}
    return sorted(REGISTRY.values(), key=lambda r: order.get(r.code, len(order)))


def _children(cls: type[BridgeError]) -> list[type[BridgeError]]:
    return [c for c in cls.__subclasses__() if c.__module__ == errors.__name__]


def tree() -> str:
    """The class tree of ``errors.py`` (its docstring's drawing): each class, its meaning, its code."""
    lines = ["    BridgeError"]

    def walk(cls: type[BridgeError], prefix: str) -> None:
        kids = _children(cls)
        for i, kid in enumerate(kids):
            last = i == len(kids) - 1
            head = f"    {prefix}{'└── ' if last else '├── '}{kid.__name__}"
            reg = next((r for r in REGISTRY.values() if r.error is kid), None)
            text = (f"{reg.code}: " if reg else "") + summary(kid)
            rest = f"    {prefix}{'    ' if last else '│   '}{'│   ' if _children(kid) else '    '}"
            pad = max(_COLUMN, len(head) + 1)
            body = textwrap.wrap(text, _WIDTH - pad) or [""]
            lines.append(head.ljust(pad) + body[0])
            lines.extend(rest.ljust(pad) + more for more in body[1:])
            walk(kid, prefix + ("    " if last else "│   "))

    walk(BridgeError, "")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def docs_table() -> str:
    """The table of every code for docs/protocol.md (between its markers)."""
    rows = [
        DOCS_BEGIN,
        "",
        "| code | used in | the worker's own | meaning |",
        "|---|---|---|---|",
    ]
    for r in registrations():
        uses = ", ".join(u for u in USES if u in r.uses)
        meaning = r.meaning.replace("``", "`").replace("|", "\\|")
        rows.append(f"| `{r.code}` | {uses} | {'yes' if r.worker else ''} | {meaning} |")
    rows += [
        "",
        "Used in: " + "; ".join(f"*{name}*: {what}" for name, what in USES.items()) + ".",
        "",
        DOCS_END,
    ]
    return "\n".join(rows) + "\n"


def _tree_block(text: str) -> re.Match[str]:
    found = re.search(r"::\n\n(    BridgeError\n(?:    .*\n|\n(?=    ))*)", text)
    if found is None:
        raise ValueError("errors.py's docstring has no class tree after '::'")
    return found


def _docs_block(text: str) -> re.Match[str]:
    found = re.search(re.escape(DOCS_BEGIN) + r".*?" + re.escape(DOCS_END) + r"\n", text, re.S)
    if found is None:
        raise ValueError(f"docs/protocol.md has no {DOCS_BEGIN!r} ... {DOCS_END!r} block")
    return found


def current_tree(text: str) -> str:
    """The tree as ``errors.py``'s text holds it."""
    return _tree_block(text).group(1)


def current_docs_table(text: str) -> str:
    """The table as ``docs/protocol.md`` holds it."""
    return _docs_block(text).group(0)


def write() -> list[Path]:
    """Rewrite the tree and the table where they are stale; the files written."""
    written = []
    source = ERRORS_PY.read_text(encoding="utf-8")
    block = _tree_block(source)
    if block.group(1) != tree():
        ERRORS_PY.write_text(source[: block.start(1)] + tree() + source[block.end(1):], encoding="utf-8")
        written.append(ERRORS_PY)
    doc = PROTOCOL_MD.read_text(encoding="utf-8")
    found = _docs_block(doc)
    if found.group(0) != docs_table():
        PROTOCOL_MD.write_text(doc[: found.start()] + docs_table() + doc[found.end():], encoding="utf-8")
        written.append(PROTOCOL_MD)
    return written
