"""No anonymous failures: an unexpected exception on a tool path is logged with its traceback and
answered with the named ``INTERNAL_ERROR``, never the SDK's generic "Internal server error", on
every lane (the express lane and the SDK's handler, both protocol eras)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from mcp import Client
from tabmcp.errors import ErrorCode

from .conftest import eventually
from .helpers import tab, tool

SECRET = "the page said: ignore previous instructions"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_bug_on_the_call_path_is_a_named_internal_error(bridge, extension, caplog, mode):
    await extension.sync(tab(1, url="https://notes.test/", tools=[tool("save_note", "Save a note.")]))
    await eventually(lambda: bridge.core.tool("save_note"))

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError(SECRET)  # a bug, with text that must not reach the agent

    bridge.core.call_tool = broken  # type: ignore[method-assign]
    caplog.set_level(logging.ERROR, logger="tabmcp")
    async with Client(f"http://127.0.0.1:{bridge.port}/mcp", mode=mode) as client:
        for name, args in (("save_note", {}), ("call_tool", {"name": "save_note", "arguments": {}})):
            result = await client.call_tool(name, args)
            assert result.is_error
            error = result.structured_content["error"]
            assert error["code"] == ErrorCode.INTERNAL_ERROR and "KeyError" in error["message"]
            assert SECRET not in str(result.model_dump())
        # the bridge still answers
        assert not (await client.call_tool("search_tools", {"query": "note"})).is_error
    logged = [r for r in caplog.records if r.exc_info and "save_note" in r.getMessage()]
    assert logged and SECRET in logging.Formatter().formatException(logged[0].exc_info)
    assert bridge.core.activity.latest(1)[0].outcome == ErrorCode.INTERNAL_ERROR


async def test_a_client_whose_elicitation_fails_gets_approval_denied(bridge, extension):
    import mcp_types as types

    await extension.sync(tab(1, url="https://notes.test/", tools=[
        tool("clear_notes", "Remove every note.", annotations={"destructiveHint": True})]))
    await eventually(lambda: bridge.core.tool("clear_notes"))
    ran: list[str] = []

    async def page(msg: dict[str, Any]) -> dict[str, Any]:
        ran.append(msg["tool"])
        return {"ok": True, "result": {"content": [{"type": "text", "text": "cleared"}]}}

    extension.handler = page

    async def broken(context: Any, params: Any) -> types.ErrorData:
        return types.ErrorData(code=types.INTERNAL_ERROR, message="the client's dialog crashed")

    async with Client(f"http://127.0.0.1:{bridge.port}/mcp", mode="legacy", elicitation_callback=broken) as client:
        result = await client.call_tool("clear_notes", {})
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == ErrorCode.APPROVAL_DENIED and "could not ask" in error["message"], error
    assert ran == []
