"""A reconnect to the same bridge run sends only what the bridge does not hold (issue 35).

The bridge keeps a dropped link's tabs for the reconnect grace; before, the worker's sync after the
reconnect sent every tab again, whole: five heavy tabs were ~19 MB through the worker, the link's
lane and the bridge's reader thread. Now ``welcome`` lists the tabs the bridge holds by revision,
and the sync keeps the unchanged ones by reference (docs/protocol.md, "A reconnect keeps what the
bridge holds"). Real Chromium, the real extension: moved to a dead port and back to the same bridge.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Env, eventually, other_bridge
from .test_agent_browser import free_port

# Counts what the worker sends on its sockets (every frame, chunks included), and keeps the syncs'
# lines small enough to read (a heavy tab's chunks are counted, never kept).
COUNT_SENT = """() => {
  const send = WebSocket.prototype.send;
  const sent = (globalThis.sentByWorker = {chars: 0, frames: 0, syncs: [], chunks: 0});
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string') {
      sent.chars += data.length;
      sent.frames++;
      for (const line of data.split('\\n')) {
        if (line.startsWith('{"type":"chunk"')) sent.chunks++;
        else if (line.startsWith('{"type":"tabs.sync"')) sent.syncs.push(JSON.parse(line));
      }
    }
    return send.call(this, data);
  };
  globalThis.sentByWorkerDone = () => {
    WebSocket.prototype.send = send;
    return sent;
  };
}"""

HEAVY_CHARS = 3_000_000
"""A heavy tab's snapshot is about 3.8 MB of definitions."""


@pytest.mark.parametrize("bridge_holds", ["held", "refused"])
@pytest.mark.timeout(240)
async def test_a_reconnect_to_the_same_bridge_sends_only_what_it_does_not_hold(
        env: Env, page_closer: list[Any], monkeypatch: pytest.MonkeyPatch, bridge_holds: str):
    async with other_bridge(env, server={"reconnect_grace_s": 120}) as bridge:
        core = bridge.core
        closing = await env.browser.context.new_page()  # closed while the link is away
        page_closer.append(closing)
        await closing.goto(f"{env.pages_url}basic.html?resync=closing")
        heavy = await env.browser.context.new_page()  # unchanged while away: not sent again
        page_closer.append(heavy)
        await heavy.goto(f"{env.pages_url}heavy.html?tab=resync-{bridge_holds}&together")
        changing = await env.browser.context.new_page()  # navigated while away: sent whole
        page_closer.append(changing)
        await changing.goto(f"{env.pages_url}basic.html?resync=before")

        def tab(url_end: str) -> Any:
            return next((t for t in core.registry.tabs.values() if t.url.endswith(url_end)), None)

        def heavy_in() -> bool:
            return (t := tab(f"tab=resync-{bridge_holds}&together")) is not None and len(t.tools) == 60

        await eventually(lambda: heavy_in() and tab("resync=before") and tab("resync=closing"), 60)

        async def bridge_took_all() -> bool:  # every tab's last update in (none left half-sent in the lane)
            link = core.session.current
            held = core.session.revisions.held(link.key) if link is not None else {}
            status = await env.browser.status()
            # The worker's own sync with this run sent too (a fresh worker's waits a moment after its
            # welcome, while its first updates already go): only a synced run is named on a reconnect.
            return (status["syncedSessionId"] == status["sessionId"] is not None
                    and all(held.get(t["tabId"]) == t["revision"] for t in status["tabs"]))  # type: ignore[union-attr]

        await eventually(bridge_took_all, 60)
        if bridge_holds == "refused":  # the bridge lists what it holds, then loses it before the sync
            revisions = core.session.revisions
            listed = revisions.welcome

            def forgetful(key: Any, hello: Any, session_id: str) -> Any:
                refs = listed(key, hello, session_id)
                revisions.forget(key)
                return refs

            monkeypatch.setattr(revisions, "welcome", forgetful)
        errors = core.session.protocol_errors
        worker = await env.browser.worker()
        bridge_url = f"ws://127.0.0.1:{bridge.port}/extension"
        await env.browser.set_bridge_url(f"ws://127.0.0.1:{free_port()}/extension", pair=False)  # a dead port
        await eventually(lambda: not core.connected, 10)
        await closing.close()
        await changing.goto(f"{env.pages_url}basic.html?resync=after")

        async def worker_saw_both() -> bool:  # so the sync, not a later update, carries them
            tabs = (await env.browser.status())["tabs"]
            return (not any(t["url"].endswith("resync=closing") for t in tabs)  # type: ignore[union-attr]
                    and any(t["url"].endswith("resync=after") and t["tools"] for t in tabs))  # type: ignore[union-attr]

        await eventually(worker_saw_both, 20)
        await worker.evaluate(COUNT_SENT)
        try:
            await env.browser.set_bridge_url(bridge_url, pair=False)  # back to the same run, within the grace
            await eventually(lambda: core.connected, 10)
            await eventually(lambda: tab("resync=after") is not None and tab("resync=before") is None, 30)
            await eventually(lambda: tab("resync=closing") is None, 30)
            assert heavy_in()
            link = core.link
            sent = await worker.evaluate("() => globalThis.sentByWorker")
        finally:
            await worker.evaluate("() => globalThis.sentByWorkerDone()")
        assert core.link is link and core.connected  # the same link throughout
        heavy_tab = tab(f"tab=resync-{bridge_holds}&together").tab_id
        if bridge_holds == "held":
            [sync] = sent["syncs"]  # one sync, and none of its parts in chunks
            kept = {k["tabId"] for k in sync["kept"]}  # with the session's other tabs, as unchanged
            assert heavy_tab in kept and tab("resync=after").tab_id not in kept, sync["kept"]
            assert [t["url"] for t in sync["tabs"]] == [changing.url]
            assert sent["chunks"] == 0 and sent["chars"] < 100_000, sent["chars"]  # none of the heavy tab's bytes
            assert core.session.protocol_errors == errors
        else:  # refused by name, then every tab again, whole: nothing kept stale, nothing lost
            assert heavy_tab in {k["tabId"] for k in sent["syncs"][0]["kept"]}
            assert core.session.protocol_errors == errors + 1
            assert sent["chunks"] > 0 and sent["chars"] > HEAVY_CHARS, sent["chars"]  # the heavy tab, whole

