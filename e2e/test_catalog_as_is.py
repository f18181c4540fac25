"""The MCP catalog (682 real tools of 17 public MCP servers) registered by one page exactly as its
servers wrote the schemas: every tool the browser accepts (the page's own ``getTools()``) reaches
the agent through ``search_tools``, in both flavours. ``./dev bench catalog_as_is`` counts it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tabmcp.demo.server import serve_demo_site

from bench._data import catalog_path
from bench.catalog_as_is import PAGES, count_page

from .conftest import Env


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
