"""Long calls kept alive and one deadline for every approval (issue 39): progress notifications
while a call waits, the approval deadline on every way of asking, through the SDK's own client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import Client
from tabmcp.server.app import running_bridge
from tabmcp.testing import ListChanges

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

TOOLS = [
    tool("slow_lookup", "Look something up slowly.", annotations={"readOnlyHint": True}),
    tool("approve_payout", "Send the weekly payout to sellers.", scope={"requiresApproval": True}),
]
FAST = {"mcp": {"progress_interval_s": 0.05}}


class Bridge:
    """A running bridge with a scripted extension that offers :data:`TOOLS` on one tab."""

    def __init__(self, **sections: dict[str, Any]) -> None:
        self.sections = sections
        self.calls: list[str] = []
        self.release = asyncio.Event()

    async def __aenter__(self) -> Bridge:
        self._cm = running_bridge(make_config(**self.sections))
        self.app = await self._cm.__aenter__()
        self.ext = ScriptedExtension(self.app.port)
        await self.ext.connect()

        async def handler(msg: dict[str, Any]) -> dict[str, Any]:
            if msg["tool"] == "slow_lookup":
                await self.release.wait()
            self.calls.append(msg["tool"])
            return {"ok": True, "result": {"content": [{"type": "text", "text": f"ran {msg['tool']}"}]}}

        self.ext.handler = handler
        await self.ext.sync(tab(1, url="https://shop.test/", tools=TOOLS))
        await eventually(lambda: self.app.core.tool("approve_payout"))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.ext.close()
        await self._cm.__aexit__(None, None, None)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.app.port}/mcp"


class Progress:
    """The SDK client's progress callback: every message, and an event once ``n`` arrived."""

    def __init__(self, n: int = 3) -> None:
        self.messages: list[str] = []
        self.values: list[float] = []
        self.enough = asyncio.Event()
        self.n = n

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.values.append(progress)
        self.messages.append(message or "")
        if len(self.messages) >= self.n:
            self.enough.set()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_pending_browser_approval_sends_progress_that_names_it(mode):
    async with Bridge(**FAST) as b:
        progress = Progress()

        async def approve_after_progress() -> None:
            request = await b.ext.wait_for(lambda m: m["type"] == "approval.request")
            await asyncio.wait_for(progress.enough.wait(), 10)
            await b.ext.send({"type": "approval.result", "approvalId": request["approvalId"], "approved": True,
                              "reason": "clicked"})

        answer = asyncio.create_task(approve_after_progress())
        async with Client(b.url, mode=mode) as client:
            result = await client.call_tool("approve_payout", {}, progress_callback=progress)
        await answer
        assert not result.is_error and b.calls == ["approve_payout"]
        assert "waiting for the person to approve approve_payout in the browser" in progress.messages[0]
        assert progress.values == sorted(set(progress.values))  # rising, as the spec asks


async def test_a_slow_page_tool_sends_progress_while_it_runs():
    async with Bridge(**FAST) as b:
        progress = Progress()

        async def release() -> None:
            await asyncio.wait_for(progress.enough.wait(), 10)
            b.release.set()

        task = asyncio.create_task(release())
        async with Client(b.url) as client:
            result = await client.call_tool("call_tool", {"name": "slow_lookup"}, progress_callback=progress)
        await task
        assert not result.is_error and "running slow_lookup" in progress.messages[0]


async def test_a_call_without_a_progress_token_gets_no_progress_and_its_denial_says_why():
    async with Bridge(**FAST, policy={"approval": {"timeout_s": 0.3}}) as b:
        seen: list[Any] = []

        async def on_message(message: Any) -> None:
            seen.append(message)

        async with Client(b.url, message_handler=on_message) as client:
            result = await client.call_tool("approve_payout", {})
        error = result.structured_content["error"]
        assert error["code"] == "APPROVAL_DENIED" and "no progressToken" in error["message"]
        assert not [m for m in seen if isinstance(m, types.ProgressNotification)]
        assert b.calls == []


# -- one deadline for every approval ------------------------------------------------------------


async def test_an_unanswered_elicitation_is_withdrawn_at_the_deadline_and_a_late_accept_runs_nothing():
    async with Bridge(policy={"approval": {"timeout_s": 0.3}}) as b:
        answered = asyncio.Event()

        async def elicit(context: Any, params: Any) -> types.ElicitResult:
            await asyncio.sleep(0.8)  # the person answers after the deadline
            answered.set()
            return types.ElicitResult(action="accept")

        async with Client(b.url, mode="legacy", elicitation_callback=elicit) as client:
            result = await client.call_tool("approve_payout", {})
            error = result.structured_content["error"]
            assert error["code"] == "APPROVAL_DENIED" and error["channel"] == "elicitation"
            assert error["timed_out"] is True and "0.3s" in error["message"]
            with anyio.move_on_after(2):
                await answered.wait()
            await asyncio.sleep(0.2)
        assert b.calls == []


async def test_a_2026_answer_after_the_signed_deadline_is_a_timeout_not_a_new_question():
    async with Bridge(policy={"approval": {"timeout_s": 0.3}}) as b:
        asked: list[str] = []

        async def elicit(context: Any, params: Any) -> types.ElicitResult:
            asked.append(params.message)
            await asyncio.sleep(0.6)  # the signed request state expires meanwhile
            return types.ElicitResult(action="accept")

        async with Client(b.url, mode="auto", elicitation_callback=elicit) as client:
            result = await client.call_tool("approve_payout", {})
        error = result.structured_content["error"]
        assert error["code"] == "APPROVAL_DENIED" and error["timed_out"] is True
        assert len(asked) == 1 and b.calls == []


async def test_an_answer_in_the_window_after_the_agent_gave_up_runs_nothing():
    async with Bridge() as b:
        async with Client(b.url) as client:
            with anyio.move_on_after(0.5):  # the client stops waiting: it sends notifications/cancelled
                await client.call_tool("approve_payout", {})
            request = await b.ext.wait_for(lambda m: m["type"] == "approval.request")
            await b.ext.wait_for(lambda m: m["type"] == "approval.withdraw" and m["approvalId"] == request["approvalId"])
            await b.ext.send({"type": "approval.result", "approvalId": request["approvalId"], "approved": True,
                              "reason": "clicked too late"})
            listed = await client.list_tools()  # the bridge is still answering
        assert listed.tools and b.calls == []


# -- notifications only for real changes -------------------------------------------------------


async def test_list_changed_goes_only_to_clients_whose_listing_changed():
    """An approval window taking the focus makes the browser report the tab inactive: the
    registry changes, no listing does, and nobody is told; a new tool is told once."""
    async with Bridge() as b:
        changes = ListChanges()
        async with Client(b.url, mode="legacy", message_handler=changes) as client:
            await client.list_tools()
            before = b.app.core.revision
            for active in (True, False, True):  # the tab is in front, the window takes the focus, and leaves
                await b.ext.send({"type": "tab.update", "tab": tab(1, url="https://shop.test/", tools=TOOLS,
                                                                   active=active)})
                await eventually(lambda seen=before: not b.app.notifier.pending and b.app.core.revision > seen)
                before = b.app.core.revision
            assert changes.revisions == [] and b.app.notifier.skipped >= 1
            await b.ext.send({"type": "tab.update", "tab": tab(1, url="https://shop.test/",
                                                               tools=[*TOOLS, tool("new_tool")])})
            await changes.until_listed(client, lambda r: "new_tool" in [t.name for t in r.tools])
        assert len(changes.revisions) == 1


# -- cancellation over HTTP ---------------------------------------------------------------------

HANDSHAKE = "2025-11-25"


async def _raw_session(http: Any, url: str) -> dict[str, str]:
    """Initialize a handshake-era session over plain HTTP; the headers later requests carry."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    response = await http.post(url, json=init, headers=headers)
    assert response.status_code == 200, response.text
    headers = {**headers, "Mcp-Session-Id": response.headers["mcp-session-id"], "Mcp-Protocol-Version": HANDSHAKE}
    await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


def _events(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:") and line[5:].strip()]


async def test_a_call_the_client_cancelled_gets_no_response_over_http():
    """The SDK answers it with -32800 on this wire; the spec (and stdio) say nothing."""
    async with Bridge() as b:
        async with httpx.AsyncClient(timeout=10) as http:
            headers = await _raw_session(http, b.url)
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow_lookup"}}

            async def post_call() -> str:
                response = await http.post(b.url, json=call, headers=headers)
                return response.text

            task = asyncio.create_task(post_call())
            await b.ext.wait_for(lambda m: m["type"] == "call.start")
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
            assert (await http.post(b.url, json=cancel, headers=headers)).status_code == 202
            body = await asyncio.wait_for(task, 10)  # the POST's stream ends
        assert [e for e in _events(body) if e.get("id") == 7] == []
        assert b.calls == []


# -- resumable streams ---------------------------------------------------------------------------


async def _sse(response: Any) -> Any:
    """The SSE events of a streamed response, one dict per event (``id``, ``retry``, ``data``)."""
    event: dict[str, str] = {}
    async for line in response.aiter_lines():
        if not line:
            if event:
                yield event
            event = {}
            continue
        field, _, value = line.partition(":")
        event[field] = value.strip()


async def test_a_stream_dropped_mid_call_is_resumed_with_last_event_id():
    async with Bridge() as b:
        async with httpx.AsyncClient(timeout=10) as http:
            headers = await _raw_session(http, b.url)
            call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "slow_lookup"}}
            async with http.stream("POST", b.url, json=call, headers=headers) as response:
                first = await anext(_sse(response))  # the priming event: an id to resume from, and the retry
            # The stream dropped; the call goes on, and ends while nobody listens.
            assert first["id"] and first["retry"] == "1000" and not first.get("data")
            await b.ext.wait_for(lambda m: m["type"] == "call.start")
            b.release.set()
            await eventually(lambda: b.calls == ["slow_lookup"])
            resumed = {**headers, "Last-Event-ID": first["id"], "Accept": "text/event-stream"}
            async with http.stream("GET", b.url, headers=resumed) as response:
                assert response.status_code == 200
                async for event in _sse(response):
                    if event.get("data"):
                        message = json.loads(event["data"])
                        break
        assert message["id"] == 9 and message["result"]["content"][0]["text"] == "ran slow_lookup"
        assert event["id"] and event["id"] != first["id"]


async def test_an_event_id_of_another_session_replays_nothing():
    async with Bridge() as b:
        async with httpx.AsyncClient(timeout=10) as http:
            mine = await _raw_session(http, b.url)
            theirs = await _raw_session(http, b.url)
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "search_tools", "arguments": {"query": "x"}}}
            async with http.stream("POST", b.url, json=call, headers=theirs) as response:
                events = [e async for e in _sse(response)]
            their_first = events[0]
            assert their_first["id"] and json.loads(events[-1]["data"])["id"] == 2
            probe = {**mine, "Last-Event-ID": their_first["id"], "Accept": "text/event-stream"}
            replayed: list[dict[str, str]] = []
            with anyio.move_on_after(1):  # the resumed stream stays open: read what comes in a second
                async with http.stream("GET", b.url, headers=probe) as response:
                    async for event in _sse(response):
                        replayed.append(event)
        assert [e for e in replayed if e.get("data")] == []


async def test_a_resumed_tools_list_replays_the_tools():
    """A handshake-era tools/list is kept in its session's events as the SDK holds it; a resumed
    stream replays that message, so it must be the tools themselves (only 2026-07-28 answers, which
    nothing replays, are written with the kept bytes spliced in: server/http_transport.py)."""
    async with Bridge() as b:
        async with httpx.AsyncClient(timeout=10) as http:
            headers = await _raw_session(http, b.url)
            listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}}
            for _ in range(2):  # built, then kept
                async with http.stream("POST", b.url, json=listing, headers=headers) as response:
                    events = [e async for e in _sse(response)]
            assert json.loads(events[-1]["data"])["result"]["tools"]
            resumed = {**headers, "Last-Event-ID": events[0]["id"], "Accept": "text/event-stream"}
            async with http.stream("GET", b.url, headers=resumed) as response:
                async for event in _sse(response):
                    if event.get("data"):
                        message = json.loads(event["data"])
                        break
        assert message["id"] == 4
        assert {t["name"] for t in message["result"]["tools"]} >= {"search_tools", "call_tool"}
