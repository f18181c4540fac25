"""The MCP catalog (682 real tools of 17 public MCP servers) registered by one page exactly as its
servers wrote the schemas: every tool the browser accepts (the page's own ``getTools()``) reaches
the agent through ``search_tools``, in both flavours. ``./dev bench catalog_as_is`` counts it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tabmcp.demo.server import serve_demo_site

from bench._data import catalog_path
from bench.catalog_as_is import PAGES, count_page

from .conftest import Env, eventually


@pytest.fixture(scope="module")
async def catalog_site() -> AsyncIterator[str]:
    catalog = catalog_path()
    if catalog is None:
        pytest.skip("mcp_catalog.json not found (data outside the repository: ../shared/data, or TABMCP_DATA)")
    async with serve_demo_site(site_dir=PAGES, files={"/data/catalog.json": catalog}) as url:
        yield url


async def test_every_tool_the_browser_accepts_reaches_search_tools(env: Env, catalog_site: str):
    count = await count_page(env.bridge, env.browser, catalog_site + "catalog-as-is.html", env.flavour, 682)
    assert len(count.accepted) == count.given == 682  # the browser keeps schemas as servers write them
    assert not count.refused, count.refused[:5]
    assert count.accepted == count.in_bridge == count.reached


# Counts the page agent's snapshots as a page can see them sent: the agent's events to the content
# script (messages.js PAGE_EVENT.toContent, JSON text; a page's own 'message' listeners hear nothing).
COUNT_SNAPSHOTS = """
window.snapshotsPosted = [];
window.addEventListener('tabmcp-page', (e) => {
  let m = null;
  try { m = JSON.parse(e.detail); } catch { return; }
  if (m && m.type === 'snapshot' && Array.isArray(m.tools)) {
    window.snapshotsPosted.push([Date.now(), m.tools.length]);
  }
});
"""


async def test_a_burst_of_682_registerTool_calls_is_snapshotted_rarely_and_all_reach_the_bridge(
    env: Env, catalog_site: str
):
    """Do no harm on native (issue 29): a page registering the catalog one ``await registerTool``
    each is not snapshotted every 25 ms while it registers (each snapshot clones, fits and sends
    every tool on the page's thread); the snapshot after the burst has them all, and every tool
    the page's getTools() lists reaches the bridge."""
    page = await env.browser.context.new_page()
    try:
        await page.add_init_script(COUNT_SNAPSHOTS)
        await page.goto(catalog_site + "catalog-as-is.html?flat")
        await page.locator("body[data-ready]").wait_for(timeout=300_000)
        out = await page.evaluate("window.catalog")
        accepted = set(out["accepted"])
        assert len(accepted) == 682

        def in_bridge() -> bool:
            tab = next((t for t in env.bridge.core.registry.tabs.values() if t.url == page.url), None)
            return tab is not None and accepted <= set(tab.tools)

        await eventually(in_bridge, timeout=300)
        posted = await page.evaluate("window.snapshotsPosted")
        start, end = out["startedAt"], out["startedAt"] + out["registerMs"]
        during = [n for t, n in posted if start <= t <= end]
        # paced: one per 250 ms while the tools keep changing (about one per 60 ms before, 25 ms apart
        # plus what each took), with room for a quiet gap or two a loaded machine makes
        assert len(during) <= 3 + out["registerMs"] / 150, (len(during), out["registerMs"])
        assert posted[-1][1] == 682  # the last change got its snapshot
    finally:
        await page.close()
