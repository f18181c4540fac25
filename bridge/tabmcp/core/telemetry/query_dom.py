"""``query_dom``: the definition only (the extension answers it live from the page's DOM); it sits
here because the exposure rules list it with ``observe`` from the first tools/list.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .spec import ToolSpec

__all__ = ["QUERY_DOM_SPEC", "QueryDomArgs"]


class QueryDomArgs(BaseModel):
    """Arguments of ``query_dom`` (:data:`QUERY_DOM_SPEC`'s input schema is derived from them)."""

    model_config = ConfigDict(extra="forbid")

    selector: str = Field(min_length=1, description="CSS selector.")
    tab_id: int | None = Field(None, description="Tab to query; default: the current tab.")
    limit: int = Field(20, ge=1, le=200)
    include_html: bool = Field(False, description="Include each element's outer HTML.")
    attributes: list[str] | None = Field(
        None, description="Attributes to return (default: id, class, name, role, aria-label, data-testid).")


QUERY_DOM_SPEC = ToolSpec(
    name="query_dom",
    title="Query the page's DOM",
    intro=(
        "Find elements in the tab's live page by CSS selector and return their text, attributes, "
        "visibility and a suggested Playwright locator. Read-only."
    ),
    args=QueryDomArgs,
    annotations={"title": "Query the page's DOM", "readOnlyHint": True, "openWorldHint": False},
)
