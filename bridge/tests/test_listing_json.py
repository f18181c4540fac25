"""tools/list as ready-made JSON bytes (core/listing_json.py, ``BridgeCore.listing_json``): equal to the
SDK's per-version sieve of ``BridgeCore.listing`` for every profile, view and protocol version; a change
in one tab encodes that tab again and no other; no kind of change is ever served stale."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from mcp_types.methods import KNOWN_PROTOCOL_VERSIONS, SERVER_RESULTS, serialize_server_result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS
from tabmcp.core.disclosure import PROFILES, ClientView
from tabmcp.core.listing_json import sieve_tools, surface_of
from tabmcp.core.registry import Registry
from tabmcp.core.trust.guard import CHANGED_PREFIX
from tabmcp.protocol import TabSnapshot
from tabmcp.wiring import BridgeCore

from .conftest import make_config
from .helpers import tab, tool
from .telemetry.factory import batch, request

VERSIONS = tuple(dict.fromkeys((*SUPPORTED_PROTOCOL_VERSIONS, *KNOWN_PROTOCOL_VERSIONS)))
SHOP = "https://shop.test"


def shop_tab(**changes: Any) -> dict[str, Any]:
    tools = [
        tool("list_orders", "List the orders.", annotations={"readOnlyHint": True}, title="Orders"),
        tool("refund", "Refund an order.", annotations={"destructiveHint": True, "consequentialHint": True},
             inputSchema={"type": "object", "properties": {"id": {"type": "integer", "default": None}},
                          "required": ["id"]}),
        tool("track_parcel", "Where is a parcel now. Ünïcode “quotes”.", annotations={"readOnlyHint": True},
             scope={"core": True}),
        tool("search", "Search the shop.", annotations={"readOnlyHint": True}),
    ]
    data = tab(1, url=f"{SHOP}/orders", tools=tools, categories=[
        {"name": "orders", "description": "Orders: list them, refund them.", "tools": ["list_orders", "refund"]},
    ])
    data["forms"] = {"origin": SHOP, "tools": [tool(
        "form_contact_us", "Fill in and submit the form “Contact us”.", title="Contact us",
        inputSchema={"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]},
    )]}
    data.update(changes)
    return data


def blog_tab(tab_id: int = 2, **changes: Any) -> dict[str, Any]:
    data = tab(tab_id, url=f"https://blog{tab_id}.test/", tools=[
        tool("search", "Search the blog."),  # the shop's tab has it first: this one is t2.search
        tool("read_post", "Read a post.", annotations={"readOnlyHint": True}),
        tool("publish", "Publish a post."),
    ], categories=[{"name": "posts", "description": "Posts.", "tools": ["read_post", "publish"]}])
    data.update(changes)
    return data


def make_core(profile: str) -> BridgeCore:
    core = BridgeCore(make_config(disclosure={"profile": profile}))
    for data in (shop_tab(), blog_tab(2), blog_tab(3)):
        apply(core, data)
    return core


def apply(core: BridgeCore, data: dict[str, Any]) -> None:
    core.fan_out.apply(core.registry.apply(core.mediation.intake(TabSnapshot.model_validate(data))))


def expected(core: BridgeCore, view: ClientView | None, version: str) -> list[dict[str, Any]]:
    """What the SDK's server puts on the wire for ``core.listing(view)``, its ``tools`` key."""
    result: dict[str, Any] = {"tools": core.listing(view), "_meta": {"tabmcp/revision": core.revision}}
    if version in MODERN_PROTOCOL_VERSIONS:  # as the handler and the SDK's cache hints stamp it
        result.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
    tools: list[dict[str, Any]] = serialize_server_result("tools/list", version, result)["tools"]
    return tools


def assert_wire_equal(core: BridgeCore, view: ClientView | None = None) -> None:
    for version in VERSIONS:
        got = json.loads(core.listing_json(view, protocol_version=version))
        assert got == expected(core, view, version), version


def opened_view(core: BridgeCore) -> ClientView:
    """A handshake-era client that opened the shop's "orders" category."""
    view = ClientView(dynamic=True)
    entry = core.registry.resolve("orders")
    assert entry is not None
    core.disclosure.expand(entry, view)  # type: ignore[arg-type]
    view.expanded.add((entry.tab.key, "orders"))  # as it does in categories (other profiles ignore it)
    return view


# -- equal to the SDK's wire form ------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_the_bytes_equal_the_sdk_sieve_of_the_listing_for_every_view_and_version(profile):
    core = make_core(profile)
    core.set_forms_as_tools(SHOP, True)  # a page form joins the listing
    views: list[ClientView | None] = [None, ClientView(dynamic=False), ClientView(dynamic=True), opened_view(core)]
    for view in views:
        assert_wire_equal(core, view)
    listed = {t["name"] for t in json.loads(core.listing_json(views[3], protocol_version=VERSIONS[0]))}
    if profile == "categories":
        assert {"orders", "posts", "list_orders", "refund", "search"} <= listed  # opened members joined
        assert "list_orders" not in {t["name"] for t in json.loads(core.listing_json(protocol_version=VERSIONS[0]))}
    if profile == "passthrough":
        assert {"list_orders", "refund", "t2.search", "t3.read_post", "form_contact_us"} <= listed


def test_versions_that_sieve_alike_share_one_surface_and_every_version_is_covered():
    surfaces = {v: surface_of(v) for v in VERSIONS}
    for version, surface in surfaces.items():
        assert SERVER_RESULTS[("tools/list", version)] is SERVER_RESULTS[("tools/list", surface)]
    assert len(set(surfaces.values())) >= 2  # the handshake era and 2026-07-28 differ
    tools = make_core("passthrough").listing()
    for version, surface in surfaces.items():  # the shared bytes are each version's own sieve
        assert sieve_tools(version, tools) == sieve_tools(surface, tools)
    with pytest.raises(ValueError, match="unknown MCP protocol version"):
        make_core("meta").listing_json(protocol_version="1999-01-01")


# -- what a change costs ---------------------------------------------------------------------


@pytest.mark.parametrize("profile", ("passthrough", "categories", "hybrid"))
def test_a_change_in_one_tab_encodes_that_tab_only(profile):
    core = make_core(profile)
    version = VERSIONS[0]
    core.listing_json(protocol_version=version)
    encodes = dict(core.listing_renderer.encodes)
    assert set(encodes) == {(1, 0), (2, 0), (3, 0)}
    builds = core.listing_renderer.array_builds
    core.listing_json(protocol_version=version)  # unchanged: the memo
    assert core.listing_renderer.array_builds == builds
    apply(core, shop_tab(url=f"{SHOP}/moved"))
    assert f"{SHOP}/moved" in core.listing_json(protocol_version=version).decode()  # in each tool's _meta source
    assert core.listing_renderer.encodes[(1, 0)] == encodes[(1, 0)] + 1
    assert core.listing_renderer.encodes[(2, 0)] == encodes[(2, 0)]
    assert core.listing_renderer.encodes[(3, 0)] == encodes[(3, 0)]
    assert_wire_equal(core)


def test_a_name_another_tab_frees_encodes_the_tab_whose_name_moved():
    core = make_core("passthrough")
    apply(core, tab(5, url=f"{SHOP}/help", tools=[shop_tab()["tools"][3]]))  # the same site's same tool
    assert "t5.search" in _names(core)  # the first shop tab has "search"
    before = dict(core.listing_renderer.encodes)
    apply(core, shop_tab(tools=shop_tab()["tools"][:3]))  # it drops "search", nothing else changes
    names = _names(core)
    assert "search" in names and "t5.search" not in names  # the other shop tab's tool took the name
    assert core.listing_renderer.encodes[(5, 0)] == before[(5, 0)] + 1  # tab 5 did not change; its name did
    assert core.listing_renderer.encodes[(3, 0)] == before[(3, 0)]
    assert core.listing_renderer.encodes[(2, 0)] == before[(2, 0)]
    assert_wire_equal(core)


# -- never stale -----------------------------------------------------------------------------


def _names(core: BridgeCore, view: ClientView | None = None, version: str = VERSIONS[0]) -> list[str]:
    return [t["name"] for t in json.loads(core.listing_json(view, protocol_version=version))]


@pytest.mark.parametrize("profile", PROFILES)
def test_every_kind_of_change_is_seen(profile):
    core = make_core(profile)
    view = ClientView(dynamic=True)
    for v in (None, view):
        assert_wire_equal(core, v)

    def step(change: Any) -> None:
        change()
        assert_wire_equal(core)
        assert_wire_equal(core, view)

    # tools added, changed, removed
    step(lambda: apply(core, blog_tab(2, tools=[*blog_tab(2)["tools"], tool("draft", "Draft a post.")])))
    step(lambda: apply(core, blog_tab(2, tools=[tool("draft", "Draft a post, better.")], categories=[])))
    step(lambda: apply(core, blog_tab(2, tools=[], categories=[])))
    # a tab closed, a new one opened
    step(lambda: core.fan_out.apply(core.registry.remove(3)))
    step(lambda: apply(core, blog_tab(4)))
    # the person's switches: an origin off and on again, writes, forms as tools
    step(lambda: core.controls.set_origin("https://blog4.test", False))
    if profile != "meta":
        assert not any(n.endswith("read_post") for n in _names(core))
    step(lambda: core.controls.set_origin("https://blog4.test", True))
    step(lambda: core.controls.set_writes(False))
    step(lambda: core.set_forms_as_tools(SHOP, True))
    if profile == "passthrough":
        assert "form_contact_us" in _names(core)
    step(lambda: core.set_forms_as_tools(SHOP, False))
    if profile == "passthrough":
        assert "form_contact_us" not in _names(core)
    # trust: a pinned definition changes (marked), then the person accepts it (unmarked); a lockdown
    assert core.trust is not None
    step(lambda: apply(core, shop_tab(tools=[tool("list_orders", "List every order ever.")], categories=[])))
    if profile == "passthrough":  # (listed before: pinned; in categories it was behind "orders")
        marked = next(t for t in json.loads(core.listing_json(protocol_version=VERSIONS[0]))
                      if t["name"] == "list_orders")
        assert marked["description"].startswith(CHANGED_PREFIX)
    step(lambda: core.trust.pins.accept(SHOP, "list_orders"))  # type: ignore[union-attr]
    if profile == "passthrough":  # (listed before: pinned; in categories it was behind "orders")
        shown = next(t for t in json.loads(core.listing_json(protocol_version=VERSIONS[0])) if t["name"] == "list_orders")
        assert not shown["description"].startswith(CHANGED_PREFIX)
    step(lambda: core.trust.lockdown.flag(SHOP, "list_orders", ["test"]))  # type: ignore[union-attr]
    # telemetry tools appear with data
    step(lambda: core.telemetry.ingest(batch([request(0, "/api/items", response_body=[{"id": 1}])])))
    step(lambda: view.exposure.note_observe(exposure_enabled=True))  # the client's first observe lifts them
    # an opened category (handshake era), in categories
    apply(core, shop_tab())
    if profile == "categories":
        before = _names(core, view)
        entry = core.registry.resolve("orders")
        core.disclosure.expand(entry, view)  # type: ignore[arg-type]
        after = _names(core, view)
        assert "list_orders" not in before and "list_orders" in after
        assert_wire_equal(core, view)


def test_hybrid_follows_the_usage_ranking():
    core = BridgeCore(make_config(disclosure={"profile": "hybrid", "core_from_usage": 3}))
    for data in (shop_tab(), blog_tab(2)):
        apply(core, data)
    assert "t2.search" not in _names(core)
    for _ in range(3):
        core.usage.record("https://blog2.test", "search")
    core.usage.flush()  # the ranking reads what is written
    assert "t2.search" in _names(core)
    assert_wire_equal(core)


def test_the_unchanged_listing_is_the_same_object():
    core = make_core("categories")
    first = core.listing_json(protocol_version=VERSIONS[-1])
    assert core.listing_json(protocol_version=VERSIONS[-1]) is first
    apply(core, blog_tab(2, title="Changed"))
    assert core.listing_json(protocol_version=VERSIONS[-1]) is not first


# -- the registry's index, updated from the tabs that changed --------------------------------


def _state(reg: Registry) -> tuple[Any, ...]:
    index = reg._idx()
    return (
        sorted(index.by_page.items()),
        [(e.public_name, e.tab.key) for e in reg.entries()],
        sorted(reg._bound.items()) if not reg.incremental else None,
    )


@pytest.mark.parametrize("seed", range(12))
def test_the_updated_index_equals_a_whole_rebuild(seed):
    """Random tabs that share names across and within origins, open, change, navigate and
    close, names shown for one origin never moving to another: the index updated from the
    changed tabs names everything exactly as one rebuilt whole after every change."""
    rng = random.Random(seed)
    regs = [Registry(reserved_names={"call_tool"}) for _ in range(2)]
    regs[1].incremental = False
    names = ["search", "open", "call_tool", "t3.search", "list", "get", "t5.open", "x"]
    origins = [f"https://s{i}.test" for i in range(4)]

    def snapshot(tab_id: int) -> TabSnapshot:
        tools = [tool(n) for n in rng.sample(names, rng.randint(0, 5))]
        cats = [{"name": "group", "description": "A group.", "tools": [t["name"] for t in tools[:2]]}] if tools else []
        frames = [{"frameId": 1, "origin": rng.choice(origins), "url": "https://f.test/",
                   "tools": [tool(rng.choice(names))]}] if rng.random() < 0.2 else []
        return TabSnapshot.model_validate(tab(tab_id, url=f"{rng.choice(origins)}/p", tools=tools,
                                              categories=cats, frames=frames, documentId=f"d{rng.random()}"))

    last: dict[int, TabSnapshot] = {}
    for tab_id in range(1, 21):  # enough tabs that one change is updated, not rebuilt
        snap = last[tab_id] = snapshot(tab_id)
        for reg in regs:
            reg.apply(snap)
    for step in range(150):
        op = rng.random()
        tab_id = rng.randint(1, 24)
        snap = snapshot(tab_id)
        if op < 0.3 and tab_id in last:  # the same names from the same site: a new title
            snap = last[tab_id].model_copy(update={"title": f"title {step}"})
        last[tab_id] = snap
        for reg in regs:
            if op < 0.6:
                reg.apply(snap)
            elif op < 0.8:
                reg.remove(tab_id)
            elif op < 0.9:
                reg.touch()
        if rng.random() < 0.7:  # reads are not after every change: several changes, one update
            full = _state(regs[1])
            assert _state(regs[0])[:2] == full[:2], step
    assert regs[0]._index is not None
