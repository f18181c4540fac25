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


# -- one parse, two readers: pydantic's JSON pass and the checked fallback must agree --------------

def _outcome(parse, frame):
    try:
        return ("ok", repr(parse(frame)))
    except (MalformedMessage, UnknownMessageType) as exc:
        return (type(exc).__name__, exc.message)


_EDGE_FRAMES = [
    '{"type":"call.result","callId":"c1","ok":true,"result":{"content":[{"type":"text","text":"ok"}]}}',
    '{"type":"call.result","callId":"c1","ok":true,"result":{"content":[{"type":"text","text":"\\ud800x"}]}}',
    '{"type":"call.result","callId":"c1","ok":true,"result":{"t":"\\ud83d\\ude00 \\udfff"}}',
    '{"type":"call.result","callId":"c","ok":false,"error":{"code":"X","message":"\\udc00"}}',
    '{"type":"call.result","type":"ping","ts":1}',
    '{"type":"ping","ts":1,"type":"call.result","callId":"x","ok":true}',
    '{"type":"call.result","callId":"c1","ok":true,"result":{"x":NaN,"y":-Infinity}}',
    '{"type":"call.result","callId":"c1","ok":true,"result":{"x":1e400,"y":123456789012345678901234567890}}',
    '{"type":"call.result","callId":1,"ok":true}',
    '{"type":"call.result","callId":"c","ok":"true"}',
    '{"type":"call.result","callId":"c","ok":1}',
    '{"type":"call.result","callId":"c","ok":true,"result":' + "[" * 300 + "]" * 300 + "}",
    '{"type":"call.result","callId":"c","ok":true,"result":{"a":' + "[" * 5000 + "]" * 5000 + "}}",
    '{"type":"call.result","callId":"c","ok":true,"result":{"k":"\\u0000","n":-0.0,"e":1E5}}',
    ' {"type":"ping","ts":1}\n', '{"type":"ping","ts":1.5}', '{"type":"ping","ts":"1"}', '{"type":"ping","ts":1,}',
    '{"type":"nope"}', '{"type":3}', "[]", "{", '"x"', "", b"\xff\xfe", b'{"type":"ping","ts":1}',
    '{"type":"tabs.sync","tabs":[{"tabId":3,"url":"http://a.test/","tools":[{"name":"\\ud800"}]}]}',
]


@pytest.mark.parametrize("frame", _EDGE_FRAMES)
def test_the_fast_parse_and_the_checked_parse_agree(frame):
    """A frame becomes the same message, or gets the same named error, whichever reader takes it:
    the fast pass falls back to the checked one for anything it refuses (lone surrogates repaired,
    faults named), and accepts nothing the checked one would read otherwise."""
    from tabmcp.wire.from_extension import _parse_checked

    assert _outcome(parse_extension_message, frame) == _outcome(_parse_checked, frame)


_KNOWN = ["hello", "pair.request", "tabs.sync", "tab.update", "chunk", "tab.closed", "call.result",
          "approval.result", "forms.set", "telemetry", "page.result", "panel.query", "control.set",
          "site.status", "site.permission", "site.forget", "ping", "pong", "error", "teleport"]
_FIELDS = ["type", "callId", "ok", "result", "error", "trace", "tabId", "ts", "tabs", "url", "tools", "code",
           "message", "requestId", "approvalId", "approved", "protocol", "extensionVersion", "origin", "enabled"]


def _json_values():
    from hypothesis import strategies as st

    leaves = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12)
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.sampled_from(_FIELDS) | st.text(max_size=5), inner, max_size=3),
                        max_leaves=12)


def test_the_two_parses_agree_on_generated_frames():
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from tabmcp.wire.from_extension import _parse_checked

    @settings(max_examples=400, deadline=None, database=None)
    @given(kind=st.sampled_from(_KNOWN), fields=st.dictionaries(st.sampled_from(_FIELDS), _json_values(), max_size=5),
           surrogate=st.booleans())
    def agree(kind, fields, surrogate):
        frame = json.dumps({**fields, "type": kind}, allow_nan=True)
        if surrogate:
            frame = frame.replace('"type"', '"\\ud800":1,"type"', 1)
        assert _outcome(parse_extension_message, frame) == _outcome(_parse_checked, frame)

    agree()
