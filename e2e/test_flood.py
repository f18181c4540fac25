"""One page cannot take the extension link down for every tab (issue 30, item 3).

Each test is the attack, in real Chromium with the real extension and the official MCP client: a
page flooding the extension's relay with telemetry posts, and a page registering a tool whose
description is larger than a whole frame to the bridge. Before the per-tab limits, the first
closed the link (``FLOODED``: calls to every other tab failed with ``EXTENSION_DISCONNECTED``, every
pending approval ended) and the second kept it from ever staying up (every reconnect's sync was
over the 16 MiB frame limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import expect
from tabmcp.core.extension_links import RequestKind
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.server.extension import FLOOD_BURST, FLOOD_RATE

from .conftest import Env, eventually, other_bridge

APPROVAL = "approval/approval.html"


def approval_windows(env: Env) -> list[Any]:
    return [p for p in env.browser.context.pages if APPROVAL in p.url and not p.is_closed()]


async def tab_status(env: Env, url: str) -> dict[str, Any] | None:
    status = await env.browser.status()
    return next((t for t in status["tabs"] if t["url"] == url), None)  # type: ignore[union-attr]


async def limit_codes(env: Env, url: str) -> set[str]:
    tab = await tab_status(env, url)
    return {limit["code"] for limit in (tab or {}).get("limits", [])}


@pytest.mark.timeout(120)
async def test_a_page_flooding_telemetry_is_cut_off_alone_while_other_tabs_are_served(
    env: Env, page_closer, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.WARNING)
    innocent = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(innocent)
    title = await env.wait_tool("page_title", innocent)
    clear = await env.wait_tool("clear_notes", innocent)
    flooder = await env.open("flood.html", wait_for_tool="flood_status")
    page_closer.append(flooder)
    flooder_tab = next(t.tab_id for t in env.bridge.core.registry.tabs.values() if t.url == flooder.url)
    link = env.bridge.core.link
    assert link is not None
    async with env.client(mode="legacy") as client:  # no elicitation: the extension asks the person
        approval = asyncio.create_task(client.call_tool("call_tool", {"name": clear}))
        await eventually(lambda: approval_windows(env), 15)
        await eventually(lambda: len(env.bridge.core.session.requests.all(RequestKind.APPROVAL)) == 1)
        try:
            # The attack: 8 s of telemetry posts at the fastest rate the page reaches.
            flood = asyncio.create_task(flooder.evaluate("flood(8000, 1000)"))
            calls = 0
            while not flood.done() or calls < 3:
                result = await asyncio.wait_for(client.call_tool(title, {}), 15)
                assert not result.is_error, result.content  # the innocent tab is served throughout
                assert result.content[0].text == "Basic tools"
                calls += 1
            rate = await flood
            posted = await flooder.evaluate("posted")
            # Relayed one for one, that is more than the bridge's flood rule lets one link send.
            assert posted > FLOOD_BURST + 8 * FLOOD_RATE, f"the page posted only {posted} ({rate:.0f}/s)"
            # The flooder is named: throttled, then cut off, alone, with the reason where the person looks.
            assert "TAB_FLOODED" in await eventually(lambda: limit_codes(env, flooder.url), 20)
            assert any("TAB_FLOODED" in r.getMessage() and f"tab {flooder_tab}" in r.getMessage()
                       for r in caplog.records), "the bridge log names the flooding tab"
            # The link never dropped: the same connection, the approval still waits for the person.
            assert env.bridge.core.link is link and env.bridge.core.connected
            assert not approval.done()
            assert len(env.bridge.core.session.requests.all(RequestKind.APPROVAL)) == 1
            assert approval_windows(env)
            assert not await limit_codes(env, innocent.url)
            # The flood stopped in the flooding page's own process: the worker got a trickle of it,
            # and the bridge never had to shed anything of that tab.
            assert (await tab_status(env, flooder.url) or {})["received"] < 1_000
            assert env.bridge.core.session.tab_flood.shed.get(flooder_tab, 0) == 0
            # Its tools are kept: the flooding page is still callable.
            status = await client.call_tool(await env.wait_tool("flood_status", flooder), {})
            assert not status.is_error, status.content
        finally:
            approval.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await approval
    await eventually(lambda: not approval_windows(env), 15)


@pytest.mark.timeout(120)
async def test_a_tool_larger_than_a_frame_is_refused_alone_and_the_link_survives_a_reconnect(
    env: Env, page_closer
):
    innocent = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(innocent)
    big = await env.browser.context.new_page()
    page_closer.append(big)
    console: list[str] = []
    big.on("console", lambda m: console.append(m.text))
    await big.goto(env.pages_url + "big-tool.html")
    await env.wait_tool("small_tool", big, timeout=30)
    # The big tool is refused by name, where the page's author and the person look.
    assert "TOO_LARGE" in await eventually(lambda: limit_codes(env, big.url), 20)
    # Its own reason: its definition alone is over the limit for one definition.
    reason = 'tool "big_tool" refused: its definition is 20.0 MiB, over the 256 KiB limit'
    await eventually(lambda: any("TOO_LARGE" in text and reason in text for text in console), 20)
    tab = await tab_status(env, big.url)
    assert tab is not None and [limit["message"] for limit in tab["limits"]] == [reason]
    assert not any(e.tool.name == "big_tool" for e in env.bridge.core.registry.tool_entries())
    popup = await env.browser.context.new_page()
    page_closer.append(popup)
    await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    marked = popup.get_by_test_id("tab").filter(has_text="Big tool").get_by_test_id("limited")
    await expect(marked).to_have_text("⚠ too large: refused", timeout=15_000)
    assert reason in (await marked.get_attribute("title") or "")
    # A reconnect sends every tab again in one sync: it must fit, the link must stay up.
    async with other_bridge(env) as bridge:
        async def listed() -> set[str]:
            names = {e.tool.name for e in bridge.core.registry.tool_entries()
                     if e.tab.url in (innocent.url, big.url)}
            return names if {"page_title", "small_tool"} <= names else set()

        names = await eventually(listed, 30)
        assert "big_tool" not in names
        link = bridge.core.link
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
            tools = {t.name for t in (await client.list_tools(cache_mode="bypass")).tools}
        assert not any("big_tool" in name for name in tools)
        assert bridge.core.link is link and bridge.core.connected
        status = await env.browser.status()
        assert status["status"] == "ready"


DOCUMENT_REASONS = [f'tool "over_{i}" refused: this page\'s definitions would exceed 4.0 MiB with it' for i in (77, 78, 79)]


def page_tools(env: Env, url: str) -> list[str]:
    return sorted(e.tool.name for e in env.bridge.core.registry.tool_entries() if e.tab.url == url)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("text", ["ascii", "cjk", "fdfa"])
async def test_a_document_over_its_bytes_is_cut_alike_in_ascii_and_in_three_byte_characters(
    env: Env, page_closer, text: str
):
    # 80 tools of 54,000 bytes of text: 4.3 MB of UTF-8, over the 4 MiB one document may send. In CJK
    # or U+FDFA that is 1.4 Mi UTF-16 units: counted by a JS string's length, it passed whole and
    # went on as 4.3 MB (three times that much text could have). Counted in bytes, every page is cut
    # where the ASCII one is, with the same reasons shown to the person.
    page = await env.browser.context.new_page()
    page_closer.append(page)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    await page.goto(f"{env.pages_url}over-document.html?text={text}")
    await page.evaluate("() => window.ready")
    assert await page.evaluate("() => window.pageBytes") > 4 * 1024 * 1024
    if text != "ascii":
        assert await page.evaluate("() => window.pageUnits") < 4 * 1024 * 1024

    async def cut() -> dict[str, Any] | None:
        tab = await tab_status(env, page.url)
        return tab if tab and tab["tools"] == 77 and [lim["message"] for lim in tab["limits"]] == DOCUMENT_REASONS else None

    tab = await eventually(cut, 60)
    assert {lim["code"] for lim in tab["limits"]} == {"TOO_LARGE"}
    await eventually(lambda: any("TOO_LARGE" in t and DOCUMENT_REASONS[0] in t for t in console), 20)
    # The bridge lists the 77 kept, each of them a tool it accepts; the tab came with its definitions.
    kept = [f"over_{i:02d}" for i in range(77)]
    await eventually(lambda: page_tools(env, page.url) == kept, 60)


@pytest.mark.timeout(240)
async def test_a_document_just_under_its_bytes_in_multibyte_text_passes_whole(env: Env, page_closer):
    # 96 tools of 1- to 4-byte characters (aé中😀: 10 bytes in 5 UTF-16 units), together 1 KiB under
    # the 4 MiB of one document: counted in bytes they all pass (3 bytes a unit would refuse a third).
    page = await env.browser.context.new_page()
    page_closer.append(page)
    await page.goto(f"{env.pages_url}over-document.html?text=under")
    await page.evaluate("() => window.ready")
    count = await page.evaluate("() => window.toolCount")
    assert await page.evaluate("() => window.pageBytes") == 4 * 1024 * 1024 - 1024
    assert count == 96
    await eventually(lambda: len(page_tools(env, page.url)) == count, 60)
    tab = await tab_status(env, page.url)
    assert tab is not None and tab["tools"] == count and tab["limits"] == [], tab


@pytest.mark.timeout(180)
async def test_a_sync_larger_than_a_frame_arrives_in_parts_and_the_link_stays_up(env: Env, page_closer):
    # Five tabs of ordinary tools, each within every limit: together past the 16 MiB a frame may be.
    pages = []
    for i in range(5):
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(f"{env.pages_url}heavy.html?tab={i}")
        pages.append(page)
    urls = {page.url for page in pages}

    def heavy_tabs(core: Any) -> int:
        return sum(1 for t in core.registry.tabs.values() if t.url in urls and len(t.tools) == 60)

    await eventually(lambda: heavy_tabs(env.bridge.core) == 5, 60)
    async with other_bridge(env) as bridge:  # a reconnect: every tab again, in one sync
        connects = (await env.browser.status())["connects"]
        link = bridge.core.link
        await eventually(lambda: heavy_tabs(bridge.core) == 5, 60)
        # The same connection that said hello got the whole sync: no refused frame, no reconnect.
        assert bridge.core.link is link and bridge.core.connected
        status = await env.browser.status()
        assert status["status"] == "ready" and status["connects"] == connects
        assert not any(t.get("limits") for t in status["tabs"] if t["url"] in urls)  # nothing refused


# A renderer that got past the content script: its own port to the worker (opened from the
# content script's world), flooding telemetry and sending a definition larger than a frame.
BYPASS = """async (tabId) => {
  await chrome.scripting.executeScript({target: {tabId}, func: () => {
    const port = chrome.runtime.connect({name: 'tabmcp-page'});
    const schema = {type: 'object', properties: {}};
    port.postMessage({type: 'snapshot', url: location.href, title: document.title, categories: [], states: [],
      tools: [{name: 'huge', description: 'x'.repeat(20 * 1024 * 1024), inputSchema: schema},
              {name: 'fine', description: 'A tool of ordinary size.', inputSchema: schema}]});
    const end = performance.now() + 5000;
    const tick = () => {
      for (let i = 0; i < 500; i++) {
        port.postMessage({type: 'telemetry', url: location.href,
          events: [{kind: 'console', ts: Date.now(), level: 'log', args: ['flood']}]});
      }
      if (performance.now() < end) setTimeout(tick, 0);
      else document.body.dataset.flooded = 'done';
    };
    tick();
  }});
}"""


@pytest.mark.timeout(300)
async def test_past_the_content_script_the_worker_still_limits_the_tab_alone(
        env: Env, page_closer, monkeypatch: pytest.MonkeyPatch):
    # What this checks is that the innocent tab's calls answer while the worker limits the flooder,
    # not how fast: every one of the flood's messages reaches the worker's one thread (Chrome
    # delivers a port's messages; only disconnecting would stop them, and the tab's tools would go
    # with it), seconds of its CPU on a loaded machine, where a call waited past the bridge's usual
    # 10 s once in two CI runs side by side (load 6-8). Speed under a flood is bench hostile's.
    monkeypatch.setattr(env.bridge.config.calls, "timeout_s", 120.0)
    innocent = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(innocent)
    title = await env.wait_tool("page_title", innocent)
    flooder = await env.open("flood.html", wait_for_tool="flood_status")
    page_closer.append(flooder)
    flooder_tab = next(t.tab_id for t in env.bridge.core.registry.tabs.values() if t.url == flooder.url)
    link = env.bridge.core.link
    worker = await env.browser.worker()
    async with env.client() as client:
        await worker.evaluate(BYPASS, flooder_tab)
        calls = 0
        while calls < 3 or not await flooder.evaluate("document.body.dataset.flooded === 'done'"):
            result = await asyncio.wait_for(client.call_tool(title, {}), 130)
            assert not result.is_error, result.content
            calls += 1
    # The worker's own per-tab rules: the flood cut off and the big definition refused, by name.
    async def both_named() -> bool:  # the worker may still be working through the flood it got
        return {"TAB_FLOODED", "TOO_LARGE"} <= await limit_codes(env, flooder.url)

    try:
        await eventually(both_named, 90)
    except AssertionError:
        raise AssertionError(f"not both named: {await tab_status(env, flooder.url)}") from None
    await env.wait_tool("fine", flooder, timeout=90)
    assert not any(e.tool.name == "huge" for e in env.bridge.core.registry.tool_entries())
    received = (await tab_status(env, flooder.url) or {})["received"]
    assert received > FLOOD_BURST + 5 * FLOOD_RATE, f"only {received} messages: relayed, not a flood for the link"
    # The worker held the flood: the bridge never had to shed that tab's telemetry, the link stayed.
    assert env.bridge.core.session.tab_flood.shed.get(flooder_tab, 0) == 0
    assert env.bridge.core.link is link and env.bridge.core.connected


# Counts, in the service worker, the serializations and UTF-8 encodings of texts over 1 MB and the
# messages of that size it sends (whole, or in chunks): the work a heavy tab's snapshot costs the one thread every other
# tab's calls go through (bench/hostile.py --profile-worker: it was most of that thread's time).
COUNT_BIG_WORK = """() => {
  const big = (n) => n > 1024 * 1024;
  const work = (globalThis.bigWork = {stringify: 0, encode: 0, frames: 0});
  const stringify = JSON.stringify;
  const encode = TextEncoder.prototype.encode;
  const send = WebSocket.prototype.send;
  JSON.stringify = function (...args) {
    const text = stringify.apply(this, args);
    if (typeof text === 'string' && big(text.length)) work.stringify++;
    return text;
  };
  TextEncoder.prototype.encode = function (text) {
    if (typeof text === 'string' && big(text.length)) work.encode++;
    return encode.call(this, text);
  };
  // A message sent in chunks (background/tab_lane.js) counts once its chunks add up to a big one,
  // or once begun if its link closed before its last (it was serialized to be sent all the same).
  const chunked = new Map();
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string' && data.startsWith('{"type":"chunk"')) {
      const chunk = JSON.parse(data);
      const m = chunked.get(chunk.id) || {chars: 0, last: false};
      m.chars += chunk.data.length;
      m.last = chunk.last === true;
      chunked.set(chunk.id, m);
      if (m.last && big(m.chars)) work.frames++;
    } else if (typeof data === 'string' && big(data.length)) {
      work.frames++;
    }
    return send.call(this, data);
  };
  globalThis.bigWorkDone = () => {
    Object.assign(JSON, {stringify});
    Object.assign(TextEncoder.prototype, {encode});
    Object.assign(WebSocket.prototype, {send});
    const cut = [...chunked.values()].filter((m) => !m.last).length;
    return {...work, frames: work.frames + cut};
  };
}"""


@pytest.mark.timeout(180)
async def test_a_heavy_tab_is_never_serialized_whole_nor_encoded_to_be_measured(env: Env, page_closer):
    # 3.8 MB of ASCII definitions: before, each update was serialized twice (to measure the tab, to
    # send it) and encoded to UTF-8 three times to count its bytes, on the worker's one thread; then
    # once per update and once per sync. Now its text is written from the texts its definitions were
    # measured by when they came (tab_limits.js snapshotText): no serialization of the whole tab.
    worker = await env.browser.worker()
    await worker.evaluate(COUNT_BIG_WORK)
    try:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(f"{env.pages_url}heavy.html?tab=once")

        def heavy(core: Any) -> bool:
            return any(t.url == page.url and len(t.tools) == 60 for t in core.registry.tabs.values())

        await eventually(lambda: heavy(env.bridge.core), 60)
        async with other_bridge(env) as bridge:  # a reconnect: the tab again, in the sync
            await eventually(lambda: heavy(bridge.core), 60)
            # Counted while that sync is in and no other has begun (the way back's would be
            # serialized before its last chunk is sent: the tabs' lane paces it).
            work = await worker.evaluate("() => globalThis.bigWorkDone()")
        await eventually(lambda: heavy(env.bridge.core), 60)
    finally:
        await worker.evaluate("() => globalThis.bigWorkDone()")
    assert work["frames"] >= 2, work  # its update(s) and the sync (each in chunks)
    assert work["stringify"] == 0, work
    assert work["encode"] == 0, work


@pytest.mark.timeout(180)
async def test_a_heavy_tab_is_not_sent_again_when_another_tab_is_activated(env: Env, page_closer):
    # Activating a tab made the worker send every tab of its window again, whole: each heavy tab's
    # 3.8 MB crossed the link, and was read by the bridge, each time any tab of the window came forward.
    heavy = await env.browser.context.new_page()
    page_closer.append(heavy)
    await heavy.goto(f"{env.pages_url}heavy.html?tab=activation")
    first = await env.open("basic.html?first", wait_for_tool="page_title")
    page_closer.append(first)
    second = await env.open("basic.html?second", wait_for_tool="page_title")
    page_closer.append(second)

    def tab(page: Any) -> Any:
        return next((t for t in env.bridge.core.registry.tabs.values() if t.url == page.url), None)

    await eventually(lambda: (t := tab(heavy)) is not None and len(t.tools) == 60 and not t.active, 60)
    worker = await env.browser.worker()
    await worker.evaluate(COUNT_BIG_WORK)
    try:
        await first.bring_to_front()  # every tab of the window is looked at again; the heavy one is as it was
        await eventually(lambda: (t := tab(first)) is not None and t.active, 20)
        title = await env.wait_tool("page_title", first)
        async with env.client() as client:  # one more round trip through the worker
            assert not (await client.call_tool(title, {})).is_error
    finally:
        work = await worker.evaluate("() => globalThis.bigWorkDone()")
    assert work == {"stringify": 0, "encode": 0, "frames": 0}
    assert len(tab(heavy).tools) == 60 and not tab(heavy).active


# Records, in the service worker, what it sends the bridge, message by message (a chunk with its
# message's number and part). `hold` 'socket': once a chunked message began, the socket says it has
# more buffered than a chunk, as a slow link would (background/tab_lane.js); 'bridge': the socket
# says it holds nothing, so only the bridge's reading (`chunk.read`) can pace the lane.
LANE_LOG = """(hold) => {
  const log = (globalThis.laneLog = []);
  const send = WebSocket.prototype.send;
  const buffered = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'bufferedAmount');
  let held = false;
  let released = false;
  globalThis.laneRelease = () => {
    held = false;
    released = true;
  };
  globalThis.laneDone = () => {
    Object.assign(WebSocket.prototype, {send});
    Object.defineProperty(WebSocket.prototype, 'bufferedAmount', buffered);
    return log;
  };
  Object.defineProperty(WebSocket.prototype, 'bufferedAmount', {
    configurable: true,
    get() {
      if (hold === 'bridge') return 0;
      return held ? 1 << 30 : buffered.get.call(this);
    },
  });
  WebSocket.prototype.send = function (data) {
    for (const line of String(data).split('\\n')) {
      const type = (/^\\{"type":"([^"]+)"/.exec(line) || [])[1] || '?';
      if (type === 'chunk') {
        const c = JSON.parse(line);
        log.push({type, id: c.id, part: c.part, last: !!c.last, size: c.data.length});
        if (hold === 'socket' && c.part === 0 && !released) held = true;
      } else if (type === 'tab.update' && line.length < 1e5) {
        const {tab} = JSON.parse(line);
        log.push({type, size: line.length, url: tab.url, tools: (tab.tools || []).map((t) => t.name)});
      } else {
        log.push({type, size: line.length});
      }
    }
    return send.call(this, data);
  };
}"""


@contextlib.contextmanager
def bridge_reads_held(core: Any, held: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    """While ``held``: the bridge reads the chunks but does not say so (``chunk.read``) until
    ``release()``, as a bridge busy with other work would; the worker's lane must wait for it."""
    session = core.session
    withheld: list[tuple[Any, Any]] = []
    send = session.send
    holding = [held]

    def holding_send(peer: Any, message: Any) -> None:
        if holding[0] and getattr(message, "type", "") == "chunk.read":
            withheld.append((peer, message))
        else:
            send(peer, message)

    def release() -> None:
        holding[0] = False
        for peer, message in withheld:
            send(peer, message)
        core.hub.flush_soon()

    with monkeypatch.context() as patch:
        patch.setattr(session, "send", holding_send)
        yield release


@pytest.mark.parametrize("hold", ["socket", "bridge"])
@pytest.mark.timeout(180)
async def test_an_answer_is_not_queued_behind_a_heavy_tab_s_bytes(env: Env, page_closer, hold: str,
                                                                  monkeypatch: pytest.MonkeyPatch):
    # One link carries every tab: a heavy tab's update went as one frame of megabytes, and an answer
    # sent after it (here the innocent tab's call result) waited until all of it had crossed. Now
    # the tabs' data has a lane of its own, in chunks paced by the socket (`socket`: it says it
    # holds more than a chunk) and by the bridge's reading (`bridge`: it does not say it read
    # them): the answer goes between the chunks.
    innocent = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(innocent)
    title = await env.wait_tool("page_title", innocent)
    worker = await env.browser.worker()
    await worker.evaluate(LANE_LOG, hold)
    try:
        with bridge_reads_held(env.bridge.core, hold == "bridge", monkeypatch) as release_bridge:
            heavy = await env.browser.context.new_page()
            page_closer.append(heavy)
            await heavy.goto(f"{env.pages_url}heavy.html?tab=lane-{hold}&together")  # one update of 60 tools

            async def big_message_begun() -> bool:  # its first chunk sent (or, whole, all of it)
                return await worker.evaluate("() => globalThis.laneLog.some((m) => m.type === 'chunk' || m.size > 1e6)")

            await eventually(big_message_begun, 60)
            chunks = "() => globalThis.laneLog.filter((m) => m.type === 'chunk').length"
            sent = -1  # the chunks the worker sends before the lane stops (all of them, were it not held)
            while sent != (sent := await worker.evaluate(chunks)):
                await asyncio.sleep(0.3)
            async with env.client() as client:  # the lane is held: this answer must not wait for it
                result = await asyncio.wait_for(client.call_tool(title, {}), 30)
                assert not result.is_error, result.content
            await worker.evaluate("() => globalThis.laneRelease()")
            release_bridge()

            def heavy_in_bridge() -> bool:  # every chunk came, put back together, the tab's latest state
                return any(t.url == heavy.url and len(t.tools) == 60 for t in env.bridge.core.registry.tabs.values())

            await eventually(heavy_in_bridge, 60)
    finally:
        log = await worker.evaluate("() => globalThis.laneDone()")
    whole = [m for m in log if m["type"] != "chunk" and m["size"] > 1e6]
    assert not whole, f"a heavy tab's message went whole ({whole[0]['size']} characters): answers wait behind it"
    begun = next(i for i, m in enumerate(log) if m["type"] == "chunk")
    ended = next(i for i, m in enumerate(log) if m["type"] == "chunk" and m["id"] == log[begun]["id"] and m["last"])
    answered = [i for i, m in enumerate(log) if m["type"] == "call.result"]
    # The answer left between the heavy message's first chunk and its last, not behind it.
    assert answered and begun < answered[0] < ended, (begun, answered, ended)
    assert max(m["size"] for m in log if m["type"] == "chunk") <= 64 * 1024  # bounded chunks


@pytest.mark.timeout(180)
async def test_a_tab_closed_while_its_update_waits_in_the_lane_leaves_no_limits_behind(env: Env, page_closer):
    # A tab's update is measured when its turn in the lane comes (tab_lane.js): a tab over the size
    # one tab may send, closed while its update waited behind a heavy tab's chunks, must not leave
    # its limits (the TOO_LARGE it is sent with) in the worker for good: every per-tab map drains
    # on close (test_tab_churn), also for what the lane measures after it.
    if env.flavour != "polyfill":
        pytest.skip("the worker's lane is the same in both flavours; one covers it")
    worker = await env.browser.worker()
    await worker.evaluate(LANE_LOG, "socket")
    try:
        heavy = await env.browser.context.new_page()
        page_closer.append(heavy)
        await heavy.goto(f"{env.pages_url}heavy.html?tab=held-lane&together")
        # Its first chunk sent, the socket says it holds more than a chunk: the lane waits.
        await eventually(lambda: worker.evaluate("() => globalThis.laneLog.some((m) => m.type === 'chunk')"), 60)
        over = await env.browser.context.new_page()
        await over.goto(f"{env.pages_url}over-tab.html")

        async def over_tab_id() -> int | None:
            status = await env.browser.status()
            return next((t["tabId"] for t in status["tabs"] if t["url"] == over.url and t["tools"] == 16
                         and [f["tools"] for f in t["frames"]] == [16]), None)

        over_id = await eventually(over_tab_id, 60)

        async def update_queued() -> bool:  # its debounce over: its update waits in the held lane
            held = await worker.evaluate("() => tabmcpHeld()")
            return over_id in held["sentSnapshots"] and over_id not in held["updateTimers"]

        await eventually(update_queued, 30)
        assert not await worker.evaluate(
            "(url) => globalThis.laneLog.some((m) => m.type === 'tab.update' && m.url === url)", over.url)
        await over.close()
        await eventually(lambda: worker.evaluate(f"() => !tabmcpHeld().tabs.includes({over_id})"), 30)
        await worker.evaluate("() => globalThis.laneRelease()")

        await eventually(lambda: worker.evaluate("() => globalThis.laneLog.some((m) => m.type === 'tab.closed')"), 60)
        bare = await eventually(lambda: worker.evaluate(
            "(url) => globalThis.laneLog.find((m) => m.type === 'tab.update' && m.url === url) || null", over.url), 60)
        assert bare["tools"] == [], bare  # it went without its definitions, as a tab over the size does
    finally:
        await worker.evaluate("() => globalThis.laneDone()")
    held = await worker.evaluate("() => tabmcpHeld()")
    assert over_id not in {tab for ids in held.values() for tab in ids}, held


@pytest.mark.timeout(180)
async def test_a_chunk_never_ends_inside_a_surrogate_pair(env: Env, page_closer):
    # Two heavy tabs whose schemas are astral characters (two UTF-16 units each), the second with
    # one character more before them: a chunk's end (64 Ki units) that falls on an astral
    # character falls inside its pair in one of the two. Half a pair in a chunk would be a lone
    # surrogate, U+FFFD once the bridge read it: the worker ends such a chunk one unit short.
    worker = await env.browser.worker()
    await worker.evaluate(LANE_LOG, "none")
    heavies = []
    try:
        for pad in (0, 1):
            heavy = await env.browser.context.new_page()
            page_closer.append(heavy)
            heavies.append(heavy)
            await heavy.goto(f"{env.pages_url}heavy.html?tab=astral{pad}&together&astral&pad={pad}")

            def heavy_in_bridge(url: str = heavy.url) -> bool:
                return any(t.url == url and len(t.tools) == 60 for t in env.bridge.core.registry.tabs.values())

            await eventually(heavy_in_bridge, 60)
    finally:
        log = await worker.evaluate("() => globalThis.laneDone()")
    written = await heavies[0].evaluate("() => window.astralText")
    for heavy in heavies:
        tab = next(t for t in env.bridge.core.registry.tabs.values() if t.url == heavy.url)
        arrived = {tool.input_schema["properties"]["text"]["description"] for tool in tab.tools.values()}
        assert arrived == {written}, "an astral character arrived cut in two"
    ends = [m["size"] for m in log if m["type"] == "chunk" and not m["last"]]
    assert 64 * 1024 - 1 in ends, ends  # a chunk's end did fall inside a pair (and was moved before it)


@pytest.mark.timeout(180)
async def test_a_tab_s_update_waiting_in_the_lane_is_replaced_by_its_newer_one(env: Env, page_closer):
    # A page registering tools one by one while the lane waits (the socket holds a heavy tab's
    # chunks): the bridge needs the tab's latest state, so an update not yet begun is replaced by the
    # tab's next one and the tab is sent once, not once per tool.
    small = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(small)
    worker = await env.browser.worker()
    await worker.evaluate(LANE_LOG, "socket")
    try:
        heavy = await env.browser.context.new_page()
        page_closer.append(heavy)
        await heavy.goto(f"{env.pages_url}heavy.html?tab=replaced&together")

        async def lane_held() -> bool:  # the heavy tab's first chunk sent: the socket now says it is full
            return await worker.evaluate("() => globalThis.laneLog.some((m) => m.type === 'chunk')")

        await eventually(lane_held, 60)
        await small.evaluate("""async () => {
          for (let i = 0; i < 4; i++) {
            await document.modelContext.registerTool({name: `late_${i}`, description: 'A tool.',
              inputSchema: {type: 'object', properties: {}}, execute: () => i});
            await new Promise((r) => setTimeout(r, 150));  // past the worker's debounce: an update each
          }
        }""")
        await worker.evaluate("() => globalThis.laneRelease()")

        def small_in_bridge() -> bool:
            return any(t.url == small.url and "late_3" in t.tools for t in env.bridge.core.registry.tabs.values())

        await eventually(small_in_bridge, 60)
    finally:
        log = await worker.evaluate("() => globalThis.laneDone()")
    held_at = next(i for i, m in enumerate(log) if m["type"] == "chunk")
    sent = [m["tools"] for m in log[held_at:] if m["type"] == "tab.update" and m.get("url") == small.url]
    assert len(sent) == 1, sent  # the waiting update replaced three times, sent once
    assert {f"late_{i}" for i in range(4)} <= set(sent[0])
