import pytest
from tabmcp.core.registry import CategoryEntry, Registry, ToolEntry, is_qualified_form, origin_of
from tabmcp.core.tools import RESERVED_NAMES as BUILTIN_NAMES
from tabmcp.core.validation import validate_arguments
from tabmcp.errors import ToolValidationError
from tabmcp.protocol import TabSnapshot

from .helpers import tab, tool


def snap(tab_id, **kw):
    return TabSnapshot.model_validate(tab(tab_id, **kw))


def test_origin_of():
    assert origin_of("https://a.test:8443/x?y#z") == "https://a.test:8443"
    assert origin_of("about:blank") == ""
    # As Chrome spells origins (and controls.normalize_origin): lower case, no default port, no user info.
    assert origin_of("http://[::1]:80/") == "http://[::1]"
    assert origin_of("HTTPS://EVIL.test/") == "https://evil.test"
    assert origin_of("https://bank.test@evil.test/") == "https://evil.test"
    assert origin_of("https://shop.test:443/x") == "https://shop.test"
    assert origin_of("file:///tmp/x.html") == "file://"


def test_the_origin_is_chromes_never_the_url_the_page_claims():
    reg = Registry()
    reg.apply(snap(1, tools=[tool("pay")], url="https://bank.test/account", origin="http://127.0.0.1:8000"))
    forged = reg.tab(1)
    assert forged.origin == "http://127.0.0.1:8000"
    assert forged.url == "http://127.0.0.1:8000"  # a URL of another origin is not shown
    reg.apply(snap(2, tools=[tool("pay2")], url="https://EVIL.test/x", origin="https://evil.test"))
    assert reg.tab(2).origin == "https://evil.test" and reg.tab(2).url == "https://EVIL.test/x"
    # A frame's origin is Chrome's too; an extension that sends no origin: the URL's, lower-cased.
    reg.apply(snap(3, tools=[tool("a")], url="https://SHOP.test/", origin="https://shop.test",
                   frames=[{"frameId": 4, "origin": "https://pay.test", "url": "https://bank.test/",
                            "tools": [tool("b")]}]))
    frame = reg.tab(3).frames[0]
    assert frame.origin == "https://pay.test" and frame.url == "https://pay.test"
    reg.apply(snap(5, tools=[tool("c")], url="https://News.TEST/"))
    assert reg.tab(5).origin == "https://news.test"


def test_a_bad_tool_is_rejected_alone():
    reg = Registry()
    change = reg.apply(
        snap(1, tools=[tool("good"), {"name": "bad name", "description": "x"}, {"name": "nodesc", "description": ""},
                       tool("badschema", inputSchema={"type": "object", "properties": {"a": {"type": "wat"}}}),
                       tool("notobject", inputSchema={"type": "string"}), 42])
    )
    assert change.changed
    assert list(reg.tab(1).tools) == ["good"]
    reasons = {r.name: r.reason for r in change.rejected}
    assert "1-128 characters" in reasons["bad name"]
    assert "description is required" in reasons["nodesc"]
    assert "not a valid JSON Schema" in reasons["badschema"]
    assert "describe an object" in reasons["notobject"]
    assert "(unnamed)" in reasons


def test_older_schema_dialects_are_read_not_rejected():
    tuple_items = {"type": "object", "properties": {"headers": {"type": "array", "items": {
        "type": "array", "items": [{"type": "string"}, {"type": "string"}]}}}}
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
              "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}}}
    reg = Registry()
    change = reg.apply(snap(1, tools=[tool("a", inputSchema=tuple_items), tool("b", inputSchema=draft4)]))
    assert change.rejected == ()
    validate_arguments("a", tuple_items, {"headers": [["X-Key", "v"]]})
    with pytest.raises(ToolValidationError):
        validate_arguments("a", tuple_items, {"headers": [[1, "v"]]})
    with pytest.raises(ToolValidationError):
        validate_arguments("b", draft4, {"n": 0})


def test_same_name_in_two_tabs_first_keeps_plain_name():
    reg = Registry()
    reg.apply(snap(7, url="https://app.test/a", tools=[tool("search")]))
    reg.apply(snap(3, url="https://app.test/b", tools=[tool("search")]))
    first = reg.resolve("search")
    second = reg.resolve("t3.search")
    assert isinstance(first, ToolEntry) and first.tab.tab_id == 7
    assert isinstance(second, ToolEntry) and second.tab.tab_id == 3
    # The first tab closes: the next-oldest copy takes the plain name.
    reg.remove(7)
    assert reg.resolve("search").tab.tab_id == 3
    assert reg.resolve("t3.search") is None


def test_naming_is_deterministic_for_the_same_history():
    def build():
        reg = Registry()
        reg.apply(snap(2, tools=[tool("a"), tool("b")]))
        reg.apply(snap(1, tools=[tool("b"), tool("c")]))
        reg.apply(snap(5, tools=[tool("b")]))
        return sorted(reg.all_public_names())

    assert build() == build() == ["a", "b", "c", "t1.b", "t5.b"]


def test_builtin_names_are_reserved():
    reg = Registry(reserved_names=BUILTIN_NAMES)
    reg.apply(snap(4, tools=[tool("call_tool"), tool("other")]))
    assert reg.resolve("call_tool") is None
    assert reg.resolve("t4.call_tool").tool.name == "call_tool"


def test_a_page_cannot_take_another_tabs_qualified_name():
    """The attack: a hostile page registers ``t<bank tab>.transfer``, the very name the bank tab's
    ``transfer`` is listed under, hoping to take it (and the bank's to become ``t1.transfer.2``)."""
    reg = Registry()
    reg.apply(snap(3, url="https://news.test/", tools=[tool("transfer")]))  # first: holds the plain name
    reg.apply(snap(1, url="https://bank.test/", tools=[tool("transfer")]))
    assert reg.resolve("t1.transfer").tab.origin == "https://bank.test"
    reg.apply(snap(2, url="https://evil.test/", tools=[tool("t1.transfer"), tool("t1f0.x"), tool("t-5.y"),
                                                       tool("t0123456789ab.z"), tool("t1")]))
    assert reg.resolve("t1.transfer").tab.origin == "https://bank.test"  # still the bank's
    assert reg.public_name(1, "transfer") == "t1.transfer"
    # The page's own tools of the qualified form are qualified with its own tab, like a built-in's name.
    assert {reg.public_name(2, n) for n in ("t1.transfer", "t1f0.x", "t-5.y", "t0123456789ab.z")} == {
        "t2.t1.transfer", "t2.t1f0.x", "t2.t-5.y", "t2.t0123456789ab.z"}
    assert reg.public_name(2, "t1") == "t1"  # no dot: not the qualified form
    names = reg.all_public_names()
    assert len(names) == len(set(names))
    assert is_qualified_form("t42.x") and is_qualified_form("t42f7.x") and is_qualified_form("t-3.x")
    assert not is_qualified_form("tab.x") and not is_qualified_form("t.x") and not is_qualified_form("x.t1.y")


def test_generated_names_never_collide_with_page_names():
    reg = Registry()
    reg.apply(snap(1, tools=[tool("x")]))
    reg.apply(snap(2, tools=[tool("t2.x")]))  # a page that names a tool like our qualified form
    reg.apply(snap(2, tools=[tool("t2.x"), tool("x")]))
    names = reg.all_public_names()
    assert len(names) == len(set(names)) == 3
    assert reg.resolve("t2.x").tool.name == "x"
    assert reg.resolve("t2.t2.x").tool.name == "t2.x"


def test_long_names_are_shortened_but_unique():
    long = "a" * 128
    reg = Registry()
    reg.apply(snap(1, tools=[tool(long)]))
    reg.apply(snap(2, tools=[tool(long)]))
    names = reg.all_public_names()
    assert all(len(n) <= 128 for n in names)
    assert len(set(names)) == 2


def test_categories_own_their_members():
    reg = Registry()
    reg.apply(
        snap(1, tools=[tool("a", category="stale"), tool("b"), tool("c")],
             categories=[{"name": "cat", "description": "Cat tools", "tools": ["a", "b", "ghost"]}])
    )
    entry = reg.resolve("cat")
    assert isinstance(entry, CategoryEntry)
    assert [m.public_name for m in entry.members] == ["a", "b"]  # the missing member is dropped
    assert reg.resolve("a").tool.category == "cat"
    assert reg.resolve("c").tool.category is None


def test_category_name_clash_with_tool_in_same_tab_is_rejected():
    reg = Registry()
    change = reg.apply(snap(1, tools=[tool("a")], categories=[{"name": "a", "description": "d", "tools": []}]))
    assert reg.resolve("a").__class__ is ToolEntry
    assert change.rejected[0].kind == "category"


def test_unchanged_snapshot_is_not_a_change():
    reg = Registry()
    reg.apply(snap(1, tools=[tool("a")]))
    version = reg.version
    change = reg.apply(snap(1, tools=[tool("a")]))
    assert not change.changed and reg.version == version


def test_navigation_is_reported_when_the_document_changes():
    reg = Registry()
    reg.apply(snap(1, documentId="d1"))
    change = reg.apply(snap(1, documentId="d2"))
    assert change.navigated == (1,)


def test_sync_replaces_everything_and_reports_closed_tabs():
    reg = Registry()
    reg.apply(snap(1, tools=[tool("a")]))
    reg.apply(snap(2, tools=[tool("b")]))
    change = reg.sync([snap(2, tools=[tool("b")]), snap(3, tools=[tool("c")])])
    assert change.closed == (1,)
    assert sorted(reg.all_public_names()) == ["b", "c"]


def test_states_are_deduplicated_and_bounded():
    reg = Registry()
    change = reg.apply(snap(1, states=["a", "a", "", "b"] + [f"s{i}" for i in range(100)]))
    assert reg.tab(1).states[:2] == ("a", "b")
    assert len(reg.tab(1).states) == 64
    assert any(r.kind == "state" for r in change.rejected)


def test_a_plain_name_never_moves_to_another_origin():
    reg = Registry()
    reg.apply(snap(1, url="https://shop.test/", tools=[tool("create_user")]))
    assert reg.resolve("create_user").tab.origin == "https://shop.test"
    # The tab navigates to another site that offers the same name.
    reg.apply(snap(1, url="https://bank.test/", documentId="d2", tools=[tool("create_user")]))
    assert reg.resolve("create_user") is None
    assert reg.retired("create_user") == "https://shop.test"  # a call answers TOOL_GONE
    assert reg.resolve("t1.create_user").tab.origin == "https://bank.test"
    # The same origin may take its name back at once (a reload, a second tab of the site).
    reg.apply(snap(2, url="https://shop.test/other", tools=[tool("create_user")]))
    assert reg.resolve("create_user").tab.tab_id == 2 and reg.retired("create_user") is None
    reg.remove(2)
    # However long after: the other origin never gets the name a listing showed for shop.test.
    reg.apply(snap(1, url="https://bank.test/", documentId="d2", tools=[tool("create_user"), tool("x")]))
    assert reg.resolve("create_user") is None and reg.retired("create_user") == "https://shop.test"
    assert reg.retired("never_listed") is None


def test_a_qualified_name_never_moves_to_another_origin():
    """The bank tab's ``transfer`` is listed as ``t1.transfer``; the tab then goes to another site
    that offers a ``transfer`` too: that one gets another name, ``t1.transfer`` answers TOOL_GONE."""
    reg = Registry()
    reg.apply(snap(3, url="https://news.test/", tools=[tool("transfer")]))
    reg.apply(snap(1, url="https://bank.test/", tools=[tool("transfer")]))
    assert reg.resolve("t1.transfer").tab.origin == "https://bank.test"
    reg.apply(snap(1, url="https://evil.test/", documentId="d2", tools=[tool("transfer")]))
    assert reg.resolve("t1.transfer") is None and reg.retired("t1.transfer") == "https://bank.test"
    evil = reg.public_name(1, "transfer")
    assert evil not in (None, "t1.transfer", "transfer") and reg.resolve(evil).tab.origin == "https://evil.test"
    # The bank comes back in that tab: its name is its own again.
    reg.apply(snap(1, url="https://bank.test/", documentId="d3", tools=[tool("transfer")]))
    assert reg.resolve("t1.transfer").tab.origin == "https://bank.test"


def test_what_names_were_shown_for_is_bounded_and_one_origins_churn_frees_no_other_name():
    reg = Registry(max_names_per_origin=50, max_names=120)
    reg.apply(snap(1, url="https://bank.test/", tools=[tool("transfer")]))
    assert reg.resolve("transfer")
    reg.remove(1)  # the bank's tab closes: "transfer" stays the bank's
    for round_ in range(40):  # a page churning fresh names
        reg.apply(snap(2, url="https://evil.test/", tools=[tool(f"n{round_}_{i}") for i in range(10)]))
        reg.all_public_names()
    assert len(reg._bound) <= 120 and len(reg._bound_by_origin["https://evil.test"]) <= 50
    reg.apply(snap(2, url="https://evil.test/", tools=[tool("transfer")]))
    assert reg.resolve("transfer") is None and reg.retired("transfer") == "https://bank.test"
    # Many origins: the total stays bounded, taken from the origin that holds the most.
    for n in range(30):
        reg.apply(snap(10 + n, url=f"https://o{n}.test/", tools=[tool(f"m{n}_{i}") for i in range(5)]))
        reg.all_public_names()
        reg.remove(10 + n)
    assert len(reg._bound) <= 120
    assert reg.retired("transfer") == "https://bank.test"


# -- child frames ------------------------------------------------------------------------


def frame(frame_id, origin, tools, **kw):
    return {"frameId": frame_id, "origin": origin, "url": f"{origin}/widget", "documentId": f"f-{frame_id}",
            "tools": tools, **kw}


def test_a_frames_tools_are_a_source_of_their_own_under_the_frames_origin():
    reg = Registry()
    reg.apply(snap(1, url="https://shop.test/", tools=[tool("search")],
                   frames=[frame(7, "https://pay.test", [tool("pay"), tool("search")])]))
    pay = reg.resolve("pay")
    assert isinstance(pay, ToolEntry)
    assert (pay.tab.tab_id, pay.tab.frame_id, pay.tab.origin) == (1, 7, "https://pay.test")
    assert pay.tab.document_id == "f-7"
    assert pay.tab.source_meta() == {"tabId": 1, "frameId": 7, "origin": "https://pay.test",
                                     "url": "https://pay.test/widget"}
    # The top document keeps its plain name; the frame's copy is qualified with tab and frame.
    assert reg.resolve("search").tab.frame_id == 0
    assert reg.resolve("t1f7.search").tab.origin == "https://pay.test"
    assert reg.public_name((1, 7), "search") == "t1f7.search" and reg.public_name(1, "search") == "search"
    assert reg.counts() == {"tabs": 1, "frames": 1, "tools": 3, "categories": 0}
    assert [e.public_name for e in reg.entries()] == ["search", "pay", "t1f7.search"]


def test_a_frames_bad_tools_are_rejected_alone_and_named_by_frame():
    reg = Registry()
    change = reg.apply(snap(1, frames=[frame(3, "https://w.test", [tool("ok"), {"name": "bad name", "description": "x"}])]))
    assert reg.resolve("ok") is not None
    assert [r.name for r in change.rejected] == ["frame 3: bad name"]


def test_frame_categories_stay_within_their_frame():
    reg = Registry()
    reg.apply(snap(1, tools=[tool("a")], frames=[frame(2, "https://w.test", [tool("b")],
                                                       categories=[{"name": "w", "description": "W", "tools": ["a", "b"]}])]))
    cat = reg.resolve("w")
    assert isinstance(cat, CategoryEntry)
    assert [m.public_name for m in cat.members] == ["b"]  # "a" is the top page's, not the frame's


def test_a_frame_leaving_frees_its_names_and_a_closed_tab_takes_its_frames():
    reg = Registry()
    reg.apply(snap(1, tools=[tool("x")], frames=[frame(2, "https://w.test", [tool("x"), tool("y")])]))
    assert reg.resolve("t1f2.x") and reg.resolve("y")
    reg.apply(snap(1, tools=[tool("x")]))
    assert reg.resolve("t1f2.x") is None and reg.resolve("y") is None
    reg.apply(snap(1, tools=[tool("x")], frames=[frame(2, "https://w.test", [tool("y")])]))
    reg.remove(1)
    assert reg.counts() == {"tabs": 0, "frames": 0, "tools": 0, "categories": 0}


def test_a_frames_name_never_moves_to_its_origin_at_once():
    reg = Registry()
    reg.apply(snap(1, url="https://shop.test/", tools=[tool("checkout")]))
    assert reg.resolve("checkout").tab.origin == "https://shop.test"
    # The top page drops its tool while a frame of another origin offers one of the same name.
    reg.apply(snap(1, url="https://shop.test/", frames=[frame(4, "https://evil.test", [tool("checkout")])]))
    assert reg.resolve("checkout") is None
    assert reg.resolve("t1f4.checkout").tab.origin == "https://evil.test"
