"""No anonymous failures: the call and approval paths driven concurrently end, every time, in a
result or a named error (a code of ``ErrorCode``), never the SDK's generic error, and leave no
pending request behind.

Approvals are the extension's own window (the MCP SDK client here has no elicitation); the page
tool ``clear_notes`` of ``pages/basic.html`` is destructive, so each call of it asks.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from tabmcp.errors import ErrorCode

from .conftest import Env, eventually

APPROVAL = "approval/approval.html"
CODES = {c.value for c in ErrorCode}


def named(result: Any) -> str:
    """The named error code of a failed call (the test fails on anything else)."""
    assert result.is_error, result.content
    error = (result.structured_content or {}).get("error") or {}
    assert error.get("code") in CODES, result.content
    assert error.get("message"), result.content
    return str(error["code"])


def windows(env: Env) -> list[Page]:
    return [p for p in env.browser.context.pages if APPROVAL in p.url and not p.is_closed()]


async def answer(win: Page, *, allow: bool) -> None:
    await win.get_by_test_id("approval-tool").wait_for()
    try:
        await win.get_by_test_id("approval-allow" if allow else "approval-deny").click(no_wait_after=True)
    except PlaywrightError as exc:  # answered: the window closes itself, sometimes before click() returns
        if "closed" not in str(exc):
            raise
    await eventually(win.is_closed)


async def nothing_pending(env: Env) -> None:
    await eventually(lambda: not env.bridge.core.session.requests and not windows(env), timeout=15)


@pytest.fixture
def polyfill_only(env: Env) -> None:
    if env.flavour != "polyfill":
        pytest.skip("approvals are the extension's own window: one flavour covers them")


async def test_the_tab_closing_or_navigating_during_an_approval(env: Env, page_closer, polyfill_only):
    async with env.client() as client:
        for ending in ("close", "navigate"):
            page = await env.open("basic.html", wait_for_tool="clear_notes")
            page_closer.append(page)
            call = asyncio.create_task(client.call_tool("clear_notes", {}))
            await eventually(lambda: windows(env), timeout=20)
            if ending == "close":
                await page.close()
            else:
                await page.goto(env.pages_url + "spa.html")
            code = named(await call)
            assert code in (ErrorCode.APPROVAL_DENIED, ErrorCode.TAB_CLOSED, ErrorCode.TAB_NAVIGATED), code
            await nothing_pending(env)


async def test_the_approval_window_closed_or_the_call_cancelled(env: Env, page_closer, polyfill_only):
    page = await env.open("basic.html", wait_for_tool="clear_notes")
    page_closer.append(page)
    async with env.client() as client:
        call = asyncio.create_task(client.call_tool("clear_notes", {}))
        win = (await eventually(lambda: windows(env), timeout=20))[0]
        await win.close()
        result = await call
        assert named(result) == ErrorCode.APPROVAL_DENIED
        assert "closed without an answer" in result.structured_content["error"]["message"]
        await nothing_pending(env)

        call = asyncio.create_task(client.call_tool("clear_notes", {}))
        await eventually(lambda: windows(env), timeout=20)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await nothing_pending(env)
        assert env.bridge.core.activity.latest(1)[0].outcome == ErrorCode.CANCELLED


async def test_two_clients_asking_at_once_get_each_their_own_answer(env: Env, page_closer, polyfill_only):
    page = await env.open("basic.html", wait_for_tool="clear_notes")
    page_closer.append(page)
    async with env.client() as first, env.client(mode="legacy") as second:
        calls = [asyncio.create_task(c.call_tool("clear_notes", {})) for c in (first, second)]
        asked = await eventually(lambda: len(windows(env)) == 2 and windows(env), timeout=30)
        await answer(asked[0], allow=True)
        await answer(asked[1], allow=False)
        results = await asyncio.gather(*calls)
    outcomes = sorted("ok" if not r.is_error else named(r) for r in results)
    assert outcomes == [ErrorCode.APPROVAL_DENIED, "ok"], outcomes
    await nothing_pending(env)


async def test_a_page_hammering_its_own_dom_during_calls_and_an_approval(env: Env, page_closer, polyfill_only):
    page = await env.open("basic.html", wait_for_tool="clear_notes")
    page_closer.append(page)
    # Rewrites its DOM as fast as its timers run, all through the calls and the question (for
    # 20 s at most: the page stops itself, so its tab can always be closed).
    await page.evaluate("""() => {
      const junk = document.createElement('div'); document.body.append(junk);
      const hammer = () => { junk.innerHTML = '<b>' + Math.random() + '</b>'.repeat(20);
                             document.title = String(Math.random()); };
      const timer = setInterval(() => { for (let i = 0; i < 5; i++) hammer(); }, 0);
      setTimeout(() => clearInterval(timer), 20000);
      new MutationObserver(() => { document.body.dataset.seen = String(Math.random()); })
        .observe(document.body, { subtree: true, childList: true, attributes: true });
    }""")
    async with env.client() as first, env.client(mode="legacy") as second:
        writes = [asyncio.create_task(c.call_tool("add_note", {"text": f"n{i}"}))
                  for i in range(6) for c in (first, second)]
        failing = asyncio.create_task(first.call_tool("fail", {}))
        asked = asyncio.create_task(second.call_tool("clear_notes", {}))
        win = (await eventually(lambda: windows(env), timeout=30))[0]
        await answer(win, allow=False)
        for result in await asyncio.gather(*writes):
            assert not result.is_error or named(result)
        # the page's own error, or the call's deadline when its thread is too busy to answer
        assert named(await failing) in (ErrorCode.PAGE_ERROR, ErrorCode.TIMEOUT)
        assert named(await asked) == ErrorCode.APPROVAL_DENIED
    await nothing_pending(env)


async def test_the_window_says_when_the_agent_may_give_up_and_why_its_question_ended(env: Env, page_closer, polyfill_only):
    """A call without a progress token may be abandoned by its client (many give up after 60 s):
    the window says so; when the agent stops waiting, the window says why it ended instead of
    vanishing, and nothing runs (issue 39)."""
    page = await env.open("basic.html", wait_for_tool="clear_notes")
    page_closer.append(page)
    async with env.client() as client:
        call = asyncio.create_task(client.call_tool("clear_notes", {}))
        win = (await eventually(lambda: windows(env), timeout=20))[0]
        await win.get_by_test_id("approval-tool").wait_for()
        assert await win.get_by_test_id("approval-may-give-up").is_visible()
        call.cancel()  # the agent stops waiting
        with pytest.raises(asyncio.CancelledError):
            await call
        ended = win.get_by_test_id("approval-ended")
        await ended.wait_for()
        assert "cancelled" in await ended.inner_text()
        await nothing_pending(env)  # and the window closes itself
        assert env.bridge.core.activity.latest(1)[0].outcome == ErrorCode.CANCELLED  # nothing ran

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            pass

        kept = asyncio.create_task(client.call_tool("clear_notes", {}, progress_callback=on_progress))
        win = (await eventually(lambda: windows(env), timeout=20))[0]
        await win.get_by_test_id("approval-tool").wait_for()
        assert not await win.get_by_test_id("approval-may-give-up").is_visible()
        await answer(win, allow=False)
        assert named(await kept) == ErrorCode.APPROVAL_DENIED


async def test_approval_windows_opening_and_closing_tell_no_client_of_a_change(env: Env, page_closer, polyfill_only):
    """The window takes the focus and gives it back: the browser reports the tab's state (and the
    page's telemetry counts move), the registry changes, no listing of what a client can call
    does, and no client hears of it (issue 39: 165 notifications in one run before)."""
    from tabmcp.testing import ListChanges

    page = await env.open("basic.html", wait_for_tool="clear_notes")
    page_closer.append(page)
    idle = ListChanges()
    async with env.client(mode="legacy", message_handler=idle) as watcher, env.client() as client:
        await watcher.list_tools()
        before = env.bridge.core.revision
        for _ in range(3):  # denied: nothing runs in the page (a run may rightly change a listing: telemetry tools)
            call = asyncio.create_task(client.call_tool("clear_notes", {}))
            await answer((await eventually(lambda: windows(env), timeout=20))[0], allow=False)
            await call
        await eventually(lambda: not env.bridge.notifier.pending)
        assert env.bridge.core.revision > before  # the browser did report changes
        assert idle.revisions == [], (before, env.bridge.core.revision, env.bridge.notifier.skipped)
