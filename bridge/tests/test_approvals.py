"""The approval question names the origin that owns the tool (issue 30, item 5)."""

from types import SimpleNamespace

from tabmcp.core.registry import Registry, ToolEntry
from tabmcp.core.scoping import ApprovalSettings
from tabmcp.protocol import ApprovalRequest, TabSnapshot
from tabmcp.server.approvals import Approvals

from .helpers import tab, tool


def test_a_framed_tools_question_names_the_frames_origin_and_the_page_around_it():
    reg = Registry()
    reg.apply(TabSnapshot.model_validate(tab(
        5, url="http://evil.test/", origin="http://evil.test", tools=[tool("wipe")],
        frames=[{"frameId": 3, "origin": "http://bank.test", "url": "http://bank.test/", "documentId": "f3",
                 "tools": [tool("wipe")]}])))
    approvals = Approvals(SimpleNamespace(registry=reg), ApprovalSettings())  # type: ignore[arg-type]
    framed = reg.resolve("t5f3.wipe")
    own = reg.resolve("wipe")
    assert isinstance(framed, ToolEntry) and isinstance(own, ToolEntry)
    question = approvals._message(framed, {}, "This tool is destructive.")
    assert "t5f3.wipe on http://bank.test, in a frame of http://evil.test" in question
    asked = approvals._message(own, {}, "This tool is destructive.")
    assert "wipe on http://evil.test?" in asked and "Site 5" not in asked  # the origin, never the page's title


def test_the_browsers_question_carries_the_frame_and_the_pages_own_tool_name():
    wire = ApprovalRequest(approval_id="a", tab_id=5, tool="t5f3.wipe", title="Wipe", arguments={},
                           reason="r", timeout_ms=1000, origin="http://bank.test", frame_id=3, tool_name="wipe")
    dumped = wire.model_dump(by_alias=True)
    assert dumped["frameId"] == 3 and dumped["toolName"] == "wipe" and dumped["tool"] == "t5f3.wipe"
