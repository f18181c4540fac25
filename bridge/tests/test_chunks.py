"""A big message of the tabs' lane in chunks (issue 35), the bridge's side (``core/chunks.py``).

The extension sends a heavy tab's update, a sync's parts and big telemetry as ``chunk`` messages
so that an answer never waits behind a tab's megabytes on the one link (e2e/test_flood.py has the
worker's side in real Chromium). Here: chunks put back together into the message they carried,
answers read between them, and each way chunks can go wrong answered by name, dropping that
message alone.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from tabmcp.core import extension_links, link_chunks
from tabmcp.core.chunks import MAX_MESSAGE_BYTES, Reassembly
from tabmcp.core.extension_links import ExtensionLinks, MessageReceived, Peer, ReadApart, RequestEnded, Send, read_apart
from tabmcp.errors import TooLarge
from tabmcp.protocol import MAX_CHUNK_CHARS, PROTOCOL_VERSION, Chunk, ChunkRead, TabsSync, TabUpdate, Welcome

from .conftest import eventually
from .helpers import ScriptedExtension, tab, tool


def linked() -> tuple[ExtensionLinks, Peer]:
    session = ExtensionLinks(session_id="s", bridge_version="t")
    peer = Peer("p")
    session.receive(peer, json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "batch": True}))
    (welcome,) = session.data_to_send()
    assert isinstance(welcome, Send) and isinstance(welcome.message, Welcome) and welcome.message.chunks
    return session, peer


def chunks(message: dict[str, Any], *, message_id: int = 0, size: int = 50, tab_id: int | None = None) -> list[str]:
    """``message`` as the worker sends it in chunks of ``size`` characters."""
    text = json.dumps(message)
    pieces = [text[i:i + size] for i in range(0, len(text), size)]
    return [json.dumps({"type": "chunk", "id": message_id, "part": n, "data": piece,
                        **({"last": True} if n == len(pieces) - 1 else {}),
                        **({"tabId": tab_id} if tab_id is not None else {})})
            for n, piece in enumerate(pieces)]


def errors(session: ExtensionLinks) -> list[tuple[str, str]]:
    return [(a.message.code, a.message.ref or "") for a in session.data_to_send()
            if isinstance(a, Send) and a.message.type == "error"]  # type: ignore[attr-defined]


UPDATE = {"type": "tab.update", "tab": tab(7, tools=[tool("big", "d" * 400), tool("other")])}


def test_a_tab_update_in_chunks_is_read_once_its_last_chunk_is_in():
    session, peer = linked()
    *first, last = chunks(UPDATE, tab_id=7)
    assert len(first) > 5
    for frame in first:
        assert session.receive(peer, frame) == []
    assert peer.chunks.partial
    (event,) = session.receive(peer, last)
    assert isinstance(event, MessageReceived) and isinstance(event.message, TabUpdate)
    assert event.message.tab.tab_id == 7 and [t["name"] for t in event.message.tab.tools] == ["big", "other"]
    assert event.message.tab.tools[0]["description"] == "d" * 400
    assert not peer.chunks.partial and errors(session) == []


def test_an_answer_between_a_message_s_chunks_is_read_at_once():
    session, peer = linked()
    call = session.start_call(tab_id=3, document_id=None, page_tool="t", public_name="t", arguments={}, timeout_s=30)
    session.data_to_send()
    frames = chunks(UPDATE, tab_id=7)
    session.receive(peer, frames[0])
    (ended,) = session.receive(peer, json.dumps({"type": "call.result", "callId": call.request_id, "ok": True,
                                                 "result": {"content": []}}))
    assert isinstance(ended, RequestEnded) and ended.request.request_id == call.request_id
    events = [e for frame in frames[1:] for e in session.receive(peer, frame)]
    assert [type(e.message) for e in events if isinstance(e, MessageReceived)] == [TabUpdate]


def test_a_sync_part_and_telemetry_may_come_in_chunks():
    session, peer = linked()
    part = {"type": "tabs.sync", "tabs": [tab(1, tools=[tool("a")])], "more": True}
    for frame in chunks(part, message_id=1):
        assert session.receive(peer, frame) == []  # a part: kept for the sync's last
    (event,) = session.receive(peer, json.dumps({"type": "tabs.sync", "tabs": [tab(2, tools=[tool("b")])]}))
    assert isinstance(event.message, TabsSync) and [t.tab_id for t in event.message.tabs] == [1, 2]  # type: ignore[attr-defined]
    batch = {"type": "telemetry", "tabId": 2, "url": "https://a.test/", "events": [
        {"kind": "console", "ts": 1, "level": "log", "args": ["x" * 300]}]}
    events = [e for frame in chunks(batch, message_id=2) for e in session.receive(peer, frame)]
    assert [e.message.type for e in events if isinstance(e, MessageReceived)] == ["telemetry"]


def test_a_message_put_together_is_handed_out_to_be_parsed_apart_and_the_lane_waits_behind_it():
    """The bridge parses a message put together from chunks off the loop (megabytes of JSON): the
    links hand its text out, and the lane's later messages of that link wait behind it, in order,
    while an answer is read at once."""
    session, peer = linked()
    session.read_apart = True
    call = session.start_call(tab_id=3, document_id=None, page_tool="t", public_name="t", arguments={}, timeout_s=30)
    session.data_to_send()
    *first, last = chunks(UPDATE, tab_id=7)
    for frame in first:
        session.receive(peer, frame)
    (apart,) = session.receive(peer, last)
    assert isinstance(apart, ReadApart) and apart.text == json.dumps(UPDATE) and peer.apart == 1
    later = {"type": "tab.update", "tab": tab(7, tools=[tool("later")])}
    (behind,) = session.receive(peer, json.dumps(later))  # a whole frame of the lane: behind the one apart
    (closed,) = session.receive(peer, json.dumps({"type": "tab.closed", "tabId": 7}))
    assert isinstance(behind, ReadApart) and behind.text is None and isinstance(behind.message, TabUpdate)
    assert isinstance(closed, ReadApart) and peer.apart == 3
    (ended,) = session.receive(peer, json.dumps({"type": "call.result", "callId": call.request_id, "ok": True,
                                                 "result": {"content": []}}))
    assert isinstance(ended, RequestEnded)  # an answer is no message of the lane: never held
    taken = [e for a in (apart, behind, closed) for e in session.take_apart(a, read_apart(a.text) if a.text else None)]
    assert [(type(e.message).__name__, getattr(e.message, "tab", None) and [t["name"] for t in e.message.tab.tools])
            for e in taken if isinstance(e, MessageReceived)] == [
        ("TabUpdate", ["big", "other"]), ("TabUpdate", ["later"]), ("TabClosedMessage", None)]
    assert peer.apart == 0 and errors(session) == []
    session.receive(peer, json.dumps(later))  # nothing apart: read at once again
    assert isinstance(session.receive(peer, json.dumps(later))[0], MessageReceived)


def test_a_message_read_apart_is_said_read_once_parsed():
    """The last chunk's chunk.read waits for its message's parse: the worker keeps at most two
    unread, so a link's messages waiting to be parsed off the loop stay bounded."""
    session, peer = linked()
    session.read_apart = True
    frames = chunks(UPDATE, tab_id=7)
    (apart,) = [e for frame in frames for e in session.receive(peer, frame)]

    def reads() -> list[int]:
        return [a.message.part for a in session.data_to_send() if isinstance(a, Send) and isinstance(a.message, ChunkRead)]

    assert reads() == list(range(len(frames) - 1))
    session.take_apart(apart, read_apart(apart.text or ""))
    assert reads() == [len(frames) - 1]


def test_a_bad_message_put_together_is_refused_by_name_in_its_turn():
    session, peer = linked()
    session.read_apart = True
    bad = {"type": "tab.update", "tab": {"tabId": "seven"}}
    (apart,) = [e for frame in chunks(bad, size=10) for e in session.receive(peer, frame)]
    assert isinstance(apart, ReadApart)
    assert session.take_apart(apart, read_apart(apart.text or "")) == []
    assert errors(session) == [("MALFORMED_MESSAGE", "tab.update")]


def test_a_missing_chunk_drops_that_message_by_name_and_the_next_one_is_read():
    session, peer = linked()
    frames = chunks(UPDATE, tab_id=7)
    session.receive(peer, frames[0])
    session.receive(peer, frames[2])  # part 1 lost
    assert errors(session) == [("MALFORMED_MESSAGE", "tab:7")]
    for frame in frames[3:]:  # the rest of that message is ignored, not answered chunk by chunk
        assert session.receive(peer, frame) == []
    assert errors(session) == []
    (event,) = [e for frame in chunks(UPDATE, message_id=1) for e in session.receive(peer, frame)]
    assert isinstance(event.message, TabUpdate)  # type: ignore[attr-defined]


def test_a_message_started_before_the_last_one_ended_drops_the_unfinished_one():
    session, peer = linked()
    session.receive(peer, chunks(UPDATE, message_id=0, tab_id=7)[0])
    events = [e for frame in chunks(UPDATE, message_id=1, tab_id=8) for e in session.receive(peer, frame)]
    assert errors(session) == [("MALFORMED_MESSAGE", "tab:7")]  # the tab whose update was lost
    assert [type(e.message) for e in events if isinstance(e, MessageReceived)] == [TabUpdate]


def test_a_chunk_of_no_message_begun_is_refused_by_name():
    session, peer = linked()
    assert session.receive(peer, chunks(UPDATE, message_id=4)[3]) == []
    assert errors(session) == [("MALFORMED_MESSAGE", "chunk")]
    assert not peer.chunks.partial


def test_a_message_growing_past_its_budget_is_cut_off_by_name():
    reassembly = Reassembly(limit=120)
    session, peer = linked()
    peer.chunks = reassembly
    frames = chunks(UPDATE, tab_id=7)
    for frame in frames:
        assert session.receive(peer, frame) == []
    assert errors(session) == [("TOO_LARGE", "tab:7")]  # once, however many chunks came after
    assert not reassembly.partial
    assert MAX_MESSAGE_BYTES >= 16 * 1024 * 1024  # the default: what one frame may be


def test_a_message_is_bounded_in_utf8_bytes_as_a_frame_is_not_in_characters():
    # 3-byte characters: the message's text is a third as many characters as the bytes a frame of
    # it would carry. Counted in characters, it passed at up to three times what one frame may be.
    text = json.dumps({**UPDATE, "note": "\u4e2d" * 200}, ensure_ascii=False)
    size = len(text.encode("utf-8"))
    assert len(text) < size - 300
    frames = [json.dumps({"type": "chunk", "id": 0, "part": n, "data": text[i:i + 50],
                          **({"last": True} if i + 50 >= len(text) else {})}, ensure_ascii=False)
              for n, i in enumerate(range(0, len(text), 50))]
    whole = Reassembly(limit=size)
    assert [whole.add(Chunk.model_validate_json(f)) for f in frames][-1] == text
    over = Reassembly(limit=size - 1)
    with pytest.raises(TooLarge, match=f"over {size - 1} bytes"):
        for frame in frames:
            over.add(Chunk.model_validate_json(frame))


def test_only_the_tabs_data_may_come_in_chunks():
    session, peer = linked()
    hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "token": "x" * 200}
    assert [e for frame in chunks(hello) for e in session.receive(peer, frame)] == []
    assert errors(session) == [("MALFORMED_MESSAGE", "chunk")]


def test_a_chunk_is_bounded_and_an_unpaired_link_gets_none_read():
    session, peer = linked()
    big = json.dumps({"type": "chunk", "id": 0, "part": 0, "data": "x" * (MAX_CHUNK_CHARS + 1)})
    assert session.receive(peer, big) == []
    assert errors(session) == [("MALFORMED_MESSAGE", "chunk")]
    fresh = ExtensionLinks(session_id="s", bridge_version="t")
    stranger = Peer("q")
    assert fresh.receive(stranger, chunks(UPDATE)[0]) == []
    assert [a.message.code for a in fresh.data_to_send()] == ["NOT_READY"]  # type: ignore[union-attr]


def test_every_chunk_is_said_read_even_a_refused_one():
    # The worker sends the tabs' lane on while at most two of its chunks are unread: a bridge that
    # kept one unsaid would stop the lane for good (and one that said nothing, every heavy tab).
    session, peer = linked()
    frames = chunks(UPDATE, tab_id=7)
    for frame in [frames[0], frames[2], frames[1]]:  # the last two out of their place: refused
        session.receive(peer, frame)
    read = [(a.message.id, a.message.part) for a in session.data_to_send()
            if isinstance(a, Send) and isinstance(a.message, ChunkRead)]
    assert read == [(0, 0), (0, 2), (0, 1)]


def test_chunk_parts_are_counted_from_zero_in_order():
    reassembly = Reassembly()
    assert reassembly.add(Chunk(type="chunk", id=0, part=0, data='{"a":')) is None
    assert reassembly.add(Chunk(type="chunk", id=0, part=1, data="1}", last=True)) == '{"a":1}'
    assert reassembly.add(Chunk(type="chunk", id=1, part=0, data="{}", last=True)) == "{}"


async def test_a_message_put_together_is_parsed_on_the_reader_s_thread(bridge, monkeypatch: pytest.MonkeyPatch):
    """Chunks over a real socket register the tab, and the message they make is parsed off the loop."""
    threads: list[int] = []
    parse = extension_links.parse_extension_message

    def recorded(frame: str | bytes) -> Any:
        if isinstance(frame, str) and frame.startswith('{"type": "tab.update"'):
            threads.append(threading.get_ident())
        return parse(frame)

    for module in (extension_links, link_chunks):  # parsed on the loop (a frame) or apart (put together)
        monkeypatch.setattr(module, "parse_extension_message", recorded)
    ext = ScriptedExtension(bridge.port)
    await ext.connect(batch=True)
    try:
        for frame in chunks(UPDATE, tab_id=7, size=64):
            await ext.send(frame)
        await eventually(lambda: any(t.tab_id == 7 and len(t.tools) == 2 for t in bridge.core.registry.tabs.values()))
    finally:
        await ext.close()
    assert threads and threading.get_ident() not in threads  # the snapshot reader's thread, not the loop's


async def test_a_tab_s_later_update_is_not_overtaken_by_its_earlier_one_parsed_apart(bridge, monkeypatch: pytest.MonkeyPatch):
    started, release = threading.Event(), threading.Event()
    read = extension_links.read_apart

    def held(text: str) -> Any:
        started.set()
        release.wait(20)  # a bounded wait: the parse of a megabyte message, made long
        return read(text)

    monkeypatch.setattr("tabmcp.server.hub.read_apart", held)
    ext = ScriptedExtension(bridge.port)
    await ext.connect(batch=True)
    try:
        for frame in chunks(UPDATE, tab_id=7, size=64):
            await ext.send(frame)
        assert await asyncio.to_thread(started.wait, 20)
        await ext.send({"type": "tab.update", "tab": tab(7, tools=[tool("later")])})
        await eventually(lambda: bridge.core.reader.pending == 2)  # the later one waits behind the parse
        release.set()
        await bridge.core.reader.drain()
        seventh = bridge.core.registry.tab(7)
        assert seventh is not None and list(seventh.tools) == ["later"]
    finally:
        release.set()
        await ext.close()
