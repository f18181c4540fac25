import json

import pytest
from tabmcp.errors import MalformedMessage, UnknownMessageType
from tabmcp.protocol import (
    PROTOCOL_VERSION,
    CallResult,
    CallStart,
    Hello,
    TabsSync,
    dump,
    parse_extension_message,
)


def test_hello_parses_camel_case_fields():
    msg = parse_extension_message(
        json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "extensionVersion": "1.2", "extensionId": "x"})
    )
    assert isinstance(msg, Hello)
    assert msg.extension_version == "1.2"
    assert msg.extension_id == "x"


def test_tabs_sync_keeps_raw_tools_for_the_registry():
    frame = {"type": "tabs.sync", "tabs": [{"tabId": 3, "url": "http://a.test/", "tools": [{"name": 5}]}]}
    msg = parse_extension_message(json.dumps(frame))
    assert isinstance(msg, TabsSync)
    assert msg.tabs[0].tab_id == 3
    assert msg.tabs[0].tools == [{"name": 5}]  # validated per tool later, not here


@pytest.mark.parametrize(
    ("frame", "error", "fragment"),
    [
        ("not json", MalformedMessage, "not valid JSON"),
        ("[1, 2]", MalformedMessage, "JSON object"),
        ('{"no": "type"}', MalformedMessage, "'type'"),
        ('{"type": "teleport"}', UnknownMessageType, "teleport"),
        ('{"type": "tab.closed"}', MalformedMessage, "tabId"),
        ('{"type": "tabs.sync", "tabs": [{"tabId": "seven"}]}', MalformedMessage, "tabs.0.tabId"),
        ('{"type": "call.result", "callId": "1"}', MalformedMessage, "ok"),
        (b"\xff\xfe", MalformedMessage, "not valid JSON"),
    ],
)
def test_bad_frames_raise_named_errors(frame, error, fragment):
    with pytest.raises(error) as info:
        parse_extension_message(frame)
    assert fragment in info.value.message
    assert info.value.code in ("MALFORMED_MESSAGE", "UNKNOWN_TYPE")


def test_unknown_fields_are_ignored_for_forward_compatibility():
    msg = parse_extension_message('{"type": "ping", "ts": 1, "futureField": true}')
    assert msg.type == "ping"


def test_bridge_messages_dump_camel_case_without_nulls():
    text = dump(CallStart(call_id="c1", tab_id=4, tool="t", arguments={"a": 1}, timeout_ms=1000))
    data = json.loads(text)
    assert data == {"type": "call.start", "callId": "c1", "tabId": 4, "tool": "t", "arguments": {"a": 1},
                    "timeoutMs": 1000}


def test_call_result_error_body():
    msg = parse_extension_message(
        json.dumps({"type": "call.result", "callId": "c", "ok": False,
                    "error": {"code": "PAGE_ERROR", "message": "boom"}})
    )
    assert isinstance(msg, CallResult)
    assert msg.error is not None and msg.error.message == "boom"
