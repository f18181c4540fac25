"""The extension's copy of the wire protocol is generated from protocol.py: this fails when they drift."""

from __future__ import annotations

import re

from tabmcp import protocol
from tabmcp.errors import ErrorCode
from tabmcp.protocol_js import GENERATED, render


def test_the_generated_protocol_module_is_up_to_date():
    assert GENERATED.read_text(encoding="utf-8") == render(), (
        "extension/protocol.generated.js is stale: run .venv/bin/python -m tabmcp.protocol_js"
    )


def test_it_names_every_message_field_and_error_code():
    text = render()
    assert f"const PROTOCOL_VERSION = {protocol.PROTOCOL_VERSION};" in text
    for code in ErrorCode:
        assert f"    {code.name}: '{code.value}'," in text
    for message in ("call.start", "call.cancel", "approval.withdraw", "telemetry.config", "page.query", "welcome"):
        assert f": '{message}'," in text.split("const ERROR")[0]
    assert "export " not in text, "a classic script: content.js and the page scripts load it too"
    call_start = re.search(r"@typedef \{object\} CallStart\n(.*?) \*/", text, re.S)
    snapshot = re.search(r"@typedef \{object\} TabSnapshot\n(.*?) \*/", text, re.S)
    assert call_start and "[frameId]" in call_start.group(1)
    assert snapshot and "[focused]" in snapshot.group(1) and "{Array<FrameSnapshot>} [frames]" in snapshot.group(1)
