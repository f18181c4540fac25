"""``query_dom``: elements of the tab's live page by CSS selector, answered by the page itself.

Its definition (:data:`QUERY_DOM_SPEC`) stays with the telemetry specs because the exposure
rules list it with ``observe`` from the first tools/list on.
"""

from __future__ import annotations

import json
from typing import Any

from ..telemetry.query_dom import QUERY_DOM_SPEC
from ..trust.text import PageJson, ShownResult
from .base import BuiltinTool, ToolContext, text
from .telemetry import as_page_content, live_tab

__all__ = ["QUERY_DOM", "SCHEMA"]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": QUERY_DOM_SPEC.properties,
    "required": list(QUERY_DOM_SPEC.required),
    "additionalProperties": False,
}

MAX_TEXT = 20_000


async def query_dom(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    tab_id = live_tab(ctx, arguments)
    result = await ctx.bridge.page_query(tab_id, "dom", {
        "selector": arguments["selector"],
        "limit": arguments.get("limit", 20),
        "attributes": arguments.get("attributes"),
        "html": bool(arguments.get("include_html", False)),
    })
    body = json.dumps(result, ensure_ascii=False, indent=1)
    if len(body) > MAX_TEXT:
        body = body[:MAX_TEXT] + "\n… (truncated; use a narrower selector or a lower limit)"
    answer = PageJson({"content": [text(body)],
                       "structuredContent": result if isinstance(result, dict) else {"result": result}})
    # Element text is the page's words (and anyone the page quotes): untrusted content.
    return as_page_content(ctx, tab_id, "query_dom", answer)


QUERY_DOM = BuiltinTool("query_dom", query_dom, schema=SCHEMA)
