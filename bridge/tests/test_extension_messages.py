"""The extension names its messages once: no part of it spells a message type or an error code.

Internal messages (worker ⇄ content script ⇄ page scripts, the extension's pages ⇄ worker) are
named in ``extension/messages.js``, the wire's types and every error code in the generated
``extension/protocol.generated.js``; every other script reads them from there.
"""

from __future__ import annotations

import re
from pathlib import Path

from tabmcp import protocol
from tabmcp.errors import ErrorCode
from tabmcp.protocol_js import _messages, _type_name

EXTENSION = Path(__file__).resolve().parents[2] / "extension"
DEFINITIONS = {"messages.js", "protocol.generated.js"}


def _scripts() -> list[Path]:
    """The extension's own scripts (not the vendored axe-core, not the staged polyfill copy)."""
    skip = {"webmcp-polyfill.js"}
    return sorted(
        p
        for p in EXTENSION.rglob("*.js")
        if "vendor" not in p.parts and p.name not in skip and p.name not in DEFINITIONS
    )


def _code(path: Path) -> str:
    """The script without its comments (a comment may name a message for the reader)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$|\s//\s.*$", "", text)


def _internal_names() -> set[str]:
    """Every name messages.js defines (each quoted string in its code but its own global's key)."""
    return set(re.findall(r"'([^']+)'", _code(EXTENSION / "messages.js"))) - {"tabmcp.messages"}


def _wire_names() -> set[str]:
    models = [*_messages(protocol.ExtensionMessage), *_messages(protocol.BridgeMessage)]
    return {_type_name(m) for m in models}


def test_the_definitions_name_every_message() -> None:
    names = _internal_names()
    assert {"snapshot", "telemetry.config", "page.query", "resync", "tabmcp-page", "tabmcp.status"} <= names
    assert {"tabmcp.approval.get", "tabmcp.approval.answer", "tabmcp-content", "tabmcp-capture-port"} <= names


def test_no_script_spells_a_message_type_or_an_error_code() -> None:
    message_types = _internal_names() | _wire_names()
    codes = {c.value for c in ErrorCode}
    found: list[str] = []
    scripts = _scripts()
    assert {"background.js", "content.js", "agent.js", "query.js", "popup.js", "approval.js"} <= {
        p.name for p in scripts
    }
    for path in scripts:
        code = _code(path)
        where = path.relative_to(EXTENSION)
        # a message's type, compared or set: type === 'x', type: 'x', case 'x' (in a switch on a type)
        for literal in re.findall(r"\btype\s*(?:[!=]==?|:)\s*'([^']*)'", code):
            if literal in message_types:
                found.append(f"{where}: type '{literal}'")
        for literal in re.findall(r"\bcase\s+'([^']*)'", code):
            if literal in message_types:
                found.append(f"{where}: case '{literal}'")
        for literal in re.findall(r"'([^']*)'", code):
            if literal in codes:
                found.append(f"{where}: error code '{literal}'")
            if literal in message_types and ("." in literal or "_" in literal or "-" in literal):
                found.append(f"{where}: message name '{literal}'")  # tabmcp.status, tabmcp-page, page.query...
    assert found == [], "name these in extension/messages.js or protocol.py:\n" + "\n".join(found)
