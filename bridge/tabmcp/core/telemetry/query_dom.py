"""``query_dom``: the definition only. The extension answers it live from the page's DOM.

It sits beside the telemetry tools because the exposure rules list it with ``observe`` from
the very first tools/list (progressive disclosure keeps both). Its handler is the bridge's:
it forwards the arguments to the tab and returns the page's answer.
"""

from __future__ import annotations

from .spec import ToolSpec

__all__ = ["QUERY_DOM_SPEC"]

QUERY_DOM_SPEC = ToolSpec(
    name="query_dom",
    title="Query the page's DOM",
    intro=(
        "Find elements in the tab's live page by CSS selector and return their text, attributes, "
        "visibility and a suggested Playwright locator. Read-only."
    ),
    properties={
        "selector": {"type": "string", "minLength": 1, "description": "CSS selector."},
        "tab_id": {"type": "integer", "description": "Tab to query; default: the current tab."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 20},
        "include_html": {
            "type": "boolean",
            "default": False,
            "description": "Include each element's outer HTML.",
        },
        "attributes": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Attributes to return (default: id, class, name, role, aria-label, data-testid).",
        },
    },
    required=("selector",),
    annotations={"title": "Query the page's DOM", "readOnlyHint": True, "openWorldHint": False},
)
