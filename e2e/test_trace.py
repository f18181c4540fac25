"""Debug mode's hop timestamps through the real extension: the service worker and the content
script stamp a traced call on its way to the page and back; a call that does not ask carries none."""

from __future__ import annotations

from tabmcp.server.mcp import META_TRACE

from .conftest import Env

HOPS = ["transport.in", "bridge.handler", "bridge.core", "bridge.sent", "worker.in", "content.in", "content.out",
        "worker.out", "bridge.frame", "bridge.ended", "bridge.resumed", "bridge.result"]


async def test_a_traced_call_is_stamped_by_every_hop_of_the_real_extension(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    name = await env.wait_tool("page_title", page)
    env.bridge.core.trace = True  # debug mode (TABMCP_TRACE=1 at start does the same)
    try:
        async with env.client() as client:
            traced = await client.call_tool(name, {}, meta={META_TRACE: True})
            plain = await client.call_tool(name, {})
    finally:
        env.bridge.core.trace = False
    assert not traced.is_error and not plain.is_error
    assert traced.content[0].text == plain.content[0].text  # the page's answer is the same
    assert [hop for hop, _ in traced.meta[META_TRACE]] == HOPS
    assert all(isinstance(at, float) and at > 1e12 for _, at in traced.meta[META_TRACE])  # epoch ms
    assert META_TRACE not in (plain.meta or {})
