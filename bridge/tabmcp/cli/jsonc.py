"""JSON with comments and trailing commas (VS Code's ``mcp.json`` and its kin): read with ``json5``,
changed by a targeted text edit that keeps every comment, blank line and indent of the person's file.

No Python library writes JSONC back with its comments (docs/architecture.md), so :func:`set_member`
does what VS Code's ``jsonc-parser`` ``modify`` does for one path, and checks the result reads back
as intended before it writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import json5

__all__ = ["JsoncError", "loads", "set_member"]


class JsoncError(ValueError):
    """The text is not JSON with comments, or an edit of it would not read back as intended."""


def loads(text: str) -> Any:
    """Plain JSON first (the common case, and its exact errors), else JSON with comments / JSON5."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return json5.loads(text)
    except ValueError as exc:
        raise JsoncError(str(exc)) from exc


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<punct>[{}\[\]:,])
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<bare>[^\s{}\[\]:,"'/]+)
""", re.VERBOSE | re.DOTALL)


@dataclass
class _Node:
    start: int
    end: int
    """One past the value's last character."""
    members: list[tuple[str, int, _Node]] = field(default_factory=list)
    """Object members: (key, the key's offset, value)."""
    trailing_comma: bool = False
    is_object: bool = False


def _tokens(text: str) -> list[tuple[str, int, int]]:
    out, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise JsoncError(f"unexpected character at offset {pos}")
        kind = match.lastgroup or ""
        if kind not in ("ws", "comment"):
            out.append((text[pos] if kind == "punct" else kind, pos, match.end()))
        pos = match.end()
    return out


def _parse(text: str, tokens: list[tuple[str, int, int]], i: int) -> tuple[_Node, int]:
    """The value starting at token ``i`` and the index of the token after it."""
    kind, start, end = tokens[i]
    if kind not in ("{", "["):
        return _Node(start, end), i + 1
    node, close = _Node(start, start, is_object=kind == "{"), "}" if kind == "{" else "]"
    i += 1
    while tokens[i][0] != close:
        key = ""
        if node.is_object:
            key_kind, key_start, key_end = tokens[i]
            raw = text[key_start:key_end]
            key = str(json5.loads(raw)) if key_kind == "string" else raw
            if tokens[i + 1][0] != ":":
                raise JsoncError(f"expected ':' at offset {tokens[i + 1][1]}")
            value, i = _parse(text, tokens, i + 2)
            node.members.append((key, key_start, value))
        else:
            _value, i = _parse(text, tokens, i)
        node.trailing_comma = tokens[i][0] == ","
        if node.trailing_comma:
            i += 1
    node.end = tokens[i][2]
    return node, i + 1


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]


def _dump(value: Any, indent: str) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def _insert(text: str, obj: _Node, key: str, value: Any) -> list[tuple[int, int, str]]:
    """The edits that add ``key: value`` as ``obj``'s last member."""
    close = obj.end - 1
    if not obj.members:
        outer = _line_indent(text, obj.start)
        inner = outer + "  "
        member = f"\n{inner}{json.dumps(key, ensure_ascii=False)}: {_dump(value, inner)}"
        line_start = text.rfind("\n", obj.start, close)
        if line_start != -1 and not text[line_start:close].strip():  # the brace on a line of its own
            return [(line_start, line_start, member)]
        return [(close, close, f"{member}\n{outer}")]
    _last_key, last_key_start, last = obj.members[-1]
    indent = _line_indent(text, last_key_start)
    edits: list[tuple[int, int, str]] = []
    pos = last.end
    if obj.trailing_comma:
        pos = text.index(",", pos) + 1
    else:
        edits.append((last.end, last.end, ","))
    # After a comment that ends the last member's line, so the comment stays with its member.
    newline = text.find("\n", pos, close)
    if newline != -1 and (not text[pos:newline].strip() or text[pos:newline].strip().startswith("//")):
        pos = newline
    edits.append((pos, pos, f"\n{indent}{json.dumps(key, ensure_ascii=False)}: {_dump(value, indent)}"))
    return edits


def set_member(text: str, path: Sequence[str], value: Any) -> str:
    """``text`` with the member at ``path`` (object keys from the top) set to ``value``: replaced in
    place when it is there, else added to the deepest object of the path that exists (with the rest
    of the path as new objects). Every other character of ``text`` is kept.

    Raises:
        JsoncError: ``text`` is not an object of JSON with comments, a key on the path holds no
            object, or the edit would not read back as ``value`` at ``path``.
    """
    expected = loads(text)
    if not isinstance(expected, dict):
        raise JsoncError("the file holds no JSON object")
    tokens = _tokens(text)
    if not tokens or tokens[0][0] != "{":
        raise JsoncError("the file holds no JSON object")
    node, _next = _parse(text, tokens, 0)
    target: dict[str, Any] = expected
    edits: list[tuple[int, int, str]] = []
    for depth, key in enumerate(path):
        found = next((v for k, _s, v in reversed(node.members) if k == key), None)
        if depth == len(path) - 1 and found is not None:
            edits = [(found.start, found.end, _dump(value, _line_indent(text, found.start)))]
            break
        if found is None:
            nested: Any = value
            for outer in reversed(path[depth + 1:]):
                nested = {outer: nested}
            edits = _insert(text, node, key, nested)
            break
        if not found.is_object or not isinstance(target.get(key), dict):
            raise JsoncError(f"{key!r} holds no object")
        node, target = found, target[key]
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    want = expected = loads(text)
    for key in path[:-1]:
        expected = expected.setdefault(key, {})
    expected[path[-1]] = value
    if loads(out) != want:
        raise JsoncError("the edit would not read back as intended")
    return out
