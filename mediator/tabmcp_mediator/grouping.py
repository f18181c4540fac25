"""Auto-grouping: turn a long flat tool list into categories a bridge can collapse.

A page that calls ``registerCategory`` keeps its agent's context small; a page with 30
flat tools does not. Past a threshold the mediator groups tools by their ``category`` so
the bridge can show them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabmcp_mediator.models import Category, EnhancedTool
from tabmcp_mediator.naming import first_free

MIN_CATEGORY_SIZE = 2
"""A group of one saves nothing: such a tool stays flat."""

_LISTED_IN_DESCRIPTION = 5


def group_tools(tools: Sequence[EnhancedTool], threshold: int) -> list[Category]:
    """Build the categories for a source, or none if it is small enough to stay flat.

    Args:
        tools: The enhanced tools of one source, names already unique.
        threshold: Group only when there are more than this many tools.

    Returns:
        Categories in order of first appearance, each holding at least two tools, named
        so that no category shares a name with a tool or another category.
    """
    if len(tools) <= threshold:
        return []
    buckets: dict[str, list[EnhancedTool]] = {}
    for tool in tools:
        if tool.category:
            buckets.setdefault(tool.category, []).append(tool)
    taken = {tool.name for tool in tools}
    categories = []
    for label, members in buckets.items():
        if len(members) < MIN_CATEGORY_SIZE:
            continue
        name = first_free(label, taken)
        taken.add(name)
        categories.append(
            Category(name=name, description=_describe(label, members), tools=[t.name for t in members])
        )
    return categories


def _describe(label: str, members: Sequence[EnhancedTool]) -> str:
    """Prefer a description a transformer supplied; else list what is inside."""
    given = next((t.category_description for t in members if t.category_description), None)
    names = [t.name for t in members]
    shown = ", ".join(names[:_LISTED_IN_DESCRIPTION])
    more = f" and {len(names) - _LISTED_IN_DESCRIPTION} more" if len(names) > _LISTED_IN_DESCRIPTION else ""
    listing = f"{len(names)} tools: {shown}{more}."
    if given:
        return f"{given.rstrip('.')}. {listing}"
    return f"{label.replace('_', ' ').capitalize()} tools. {listing}"
