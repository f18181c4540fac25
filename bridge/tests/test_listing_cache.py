"""tools/list served from kept wire forms (server/mcp.py ListingCache) and the listing memo
(core/disclosure.py): an unchanged listing is served again, a changed one is never stale."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from tabmcp.core.disclosure import ClientView, Disclosure
from tabmcp.core.registry import Registry
from tabmcp.protocol import TabSnapshot
from tabmcp.server.mcp import ListingCache

from .conftest import eventually
from .helpers import tab, tool


def mcp_url(bridge: Any) -> str:
    return f"http://127.0.0.1:{bridge.port}/mcp"


def cache_of(bridge: Any) -> ListingCache:
    return next(m for m in bridge.mcp.middleware if isinstance(m, ListingCache))


def names(result: Any) -> list[str]:
    return [t.name for t in result.tools]


async def test_an_unchanged_listing_is_served_again_and_equals_a_fresh_build(bridge, extension):
    await extension.sync(tab(1, tools=[tool("a"), tool("b")]))
    await eventually(lambda: bridge.core.tool("b"))
    cache = cache_of(bridge)
    for mode in ("legacy", "auto"):  # handshake era, and 2026-07-28 (its clients keep listings for ttlMs)

        async def list_once(mode: str = mode) -> Any:
            async with Client(mcp_url(bridge), mode=mode) as client:
                return await client.list_tools()

        first = await list_once()
        hits = cache.hits
        again = await list_once()
        assert cache.hits == hits + 1, mode  # served from the kept wire form
        cache.clear()
        fresh = await list_once()  # built through the whole SDK pipeline again
        assert again.model_dump() == first.model_dump() == fresh.model_dump()
        assert {"a", "b"} <= set(names(fresh))


async def test_a_changed_listing_is_never_served_stale(bridge, extension):
    await extension.sync(tab(1, tools=[tool("a")]))
    await eventually(lambda: bridge.core.tool("a"))
    async with Client(mcp_url(bridge), mode="legacy") as client:
        before = await client.list_tools()
        await client.list_tools()  # now kept
        assert "b" not in names(before)
        await extension.send({"type": "tab.update", "tab": tab(1, tools=[tool("a"), tool("b")])})
        await eventually(lambda: bridge.core.tool("b"))
        after = await client.list_tools()
        assert "b" in names(after)
        assert after.meta["tabmcp/revision"] > before.meta["tabmcp/revision"]


def test_the_hybrid_listing_is_memoized_and_follows_the_usage_ranking():
    registry = Registry()
    registry.apply(TabSnapshot.model_validate(tab(1, url="https://a.test/", tools=[tool("x"), tool("y")])))
    ranked: set[tuple[str, str]] = {("https://a.test", "x")}
    disclosure = Disclosure(registry, profile="hybrid", usage_core=lambda: set(ranked))
    view = ClientView()

    def page_tools() -> list[dict[str, Any]]:
        return [t for t in disclosure.listing(view) if t["name"] in ("x", "y")]

    first = page_tools()
    assert [t["name"] for t in first] == ["x"]
    assert page_tools()[0] is first[0]  # memoized: the same definition object, not a rebuild
    ranked.add(("https://a.test", "y"))  # the usage ranking changed: the memo must not serve the old set
    assert [t["name"] for t in page_tools()] == ["x", "y"]
    assert disclosure.listing_key(view) != disclosure.listing_key(ClientView(), profile="passthrough")


@pytest.mark.parametrize("profile", ["passthrough", "categories", "hybrid"])
async def test_a_listing_built_from_the_cores_bytes_is_the_sdks_listing(profile: str):
    """On a miss the cache takes the tools from the core's bytes (already in each version's wire
    form) and lets the SDK shape only the envelope: the answer must be the one the SDK gives when
    it shapes every tool, at every protocol version, over the byte transport and over HTTP
    (handshake-era HTTP in pages, through the SDK's own client)."""
    import contextlib

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
    from tabmcp.server.app import running_bridge

    from .conftest import make_config
    from .helpers import ScriptedExtension
    from .test_mcp_transports import Session

    rich = tab(1, url="https://app.test/", tools=[
        tool("greet", title="Greet", annotations={"readOnlyHint": True},
             outputSchema={"type": "object", "properties": {"n": {"type": "integer"}}}),
        tool("wave", description="Wave ✋ at someone", annotations={"readOnlyHint": True}),
        *[tool(f"bulk_{i}", description="x" * 400) for i in range(30)],
    ], categories=[{"name": "social", "description": "Greetings", "tools": ["greet", "wave"]}])
    async with running_bridge(make_config(disclosure={"profile": profile})) as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        try:
            await ext.sync(rich)
            await eventually(lambda: bridge.core.registry.resolve("bulk_29"))
            cache = cache_of(bridge)
            answers: dict[tuple[Any, ...], Any] = {}
            for from_bytes in (False, True):
                cache.from_bytes = from_bytes
                async with contextlib.AsyncExitStack() as stack:
                    for version in [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]:
                        cache.clear()
                        session = await Session.open(stack, bridge.port, version)
                        cache.clear()
                        answers[(from_bytes, "stream", version)] = await session.request("tools/list", {})
                for mode in ("legacy", "auto"):
                    cache.clear()
                    async with Client(mcp_url(bridge), mode=mode) as client:
                        answers[(from_bytes, "http", mode)] = (await client.list_tools(cache_mode="bypass")).model_dump()
            misses = cache.misses
            for (from_bytes, *where), answer in answers.items():
                if from_bytes:
                    assert answer == answers[(False, *where)], where
            assert misses >= 2 * 7
        finally:
            await ext.close()
