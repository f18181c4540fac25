"""The data the mediator reads and writes (pydantic v2).

JSON uses MCP's camelCase, so a page's tool list validates as is and the output goes to a client unchanged.
"""

from __future__ import annotations

import re
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from pydantic.alias_generators import to_camel

from tabmcp_mediator.naming import NAME_PATTERN

ToolName = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
"""A name an MCP client accepts: ``^[A-Za-z0-9_.-]{1,128}$``."""

UNCATEGORIZED = "uncategorized"
"""The key :meth:`ToolMediator.categorize` uses for tools without a category."""


def empty_object_schema() -> dict[str, Any]:
    """The schema of a tool that takes no (known) arguments."""
    return {"type": "object", "properties": {}}


class CamelModel(BaseModel):
    """Base of every model here: snake_case in Python, camelCase in JSON."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class RawTool(CamelModel):
    """A tool as a source (a page's ``registerTool``) declared it: nothing is trusted.

    Unknown keys (``execute``, ``annotations``...) are ignored; a bridge that needs them
    keeps its own copy keyed by name.
    """

    name: str = Field(min_length=1)
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("input_schema", mode="before")
    @classmethod
    def _drop_non_object_schema(cls, value: Any) -> Any:
        """A schema that is not a JSON object says nothing usable; treat it as absent."""
        return value if isinstance(value, dict) else None


class EnhancedTool(RawTool):
    """A tool ready for an agent, with a trail back to what the page registered.

    ``original_name`` is what the bridge calls on the page; ``argument_map`` maps each
    renamed argument (new name) to the page's argument name, see
    :func:`tabmcp_mediator.map_arguments`.
    """

    name: ToolName
    input_schema: dict[str, Any] = Field(default_factory=empty_object_schema)
    original_name: str = Field(min_length=1)
    category: ToolName | None = None
    category_description: str | None = None
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    enhanced_by: str = "none"
    argument_map: dict[str, str] = Field(default_factory=dict)

    @field_validator("input_schema", mode="before")
    @classmethod
    def _drop_non_object_schema(cls, value: Any) -> Any:
        """MCP requires an object schema; absent or non-object means no known arguments."""
        return value if isinstance(value, dict) else empty_object_schema()

    @field_validator("argument_map")
    @classmethod
    def _one_to_one(cls, value: dict[str, str]) -> dict[str, str]:
        """Two new names for one page argument would make a call ambiguous."""
        if len(set(value.values())) != len(value):
            raise ValueError("argument_map must map each original argument at most once")
        return value


class ToolContext(CamelModel):
    """Where a batch of tools came from; ``source`` (a domain) keys overrides and cache."""

    source: str = Field(min_length=1)
    source_type: Literal["web", "api", "file", "manual"] = "web"
    timestamp: float = Field(default_factory=time.time)
    metadata: dict[str, Any] = Field(default_factory=dict)


class FilterCriteria(CamelModel):
    """What :meth:`ToolMediator.filter` keeps; every given criterion must hold.

    ``categories`` counts tools without one as ``"uncategorized"``; ``name_pattern`` is searched, not anchored.
    """

    categories: list[str] | None = None
    min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    name_pattern: re.Pattern[str] | None = None
    exclude: list[str] | None = None

    def matches(self, tool: EnhancedTool) -> bool:
        """Tell whether ``tool`` passes every criterion."""
        if self.min_confidence is not None and tool.confidence < self.min_confidence:
            return False
        if self.categories is not None and (tool.category or UNCATEGORIZED) not in self.categories:
            return False
        if self.exclude and (tool.name in self.exclude or tool.original_name in self.exclude):
            return False
        return not (self.name_pattern is not None and not self.name_pattern.search(tool.name))


class Category(CamelModel):
    """A group a bridge can show collapsed, like a page's ``registerCategory``.

    ``tools`` holds the enhanced (exposed) names of its members.
    """

    name: ToolName
    description: str
    tools: list[str]


class EnhancementResult(CamelModel):
    """Everything a bridge needs for one source: all tools, and the groups to collapse.

    ``categories`` is empty when the source has no more tools than the grouping
    threshold; every tool is in ``tools`` either way.
    """

    tools: list[EnhancedTool]
    categories: list[Category] = Field(default_factory=list)

    @property
    def flat_tools(self) -> list[EnhancedTool]:
        """The tools no category holds: those a bridge lists directly."""
        grouped = {name for category in self.categories for name in category.tools}
        return [tool for tool in self.tools if tool.name not in grouped]

    def tool(self, name: str) -> EnhancedTool | None:
        """Find a tool by its exposed name (to route a call back to the page)."""
        return next((tool for tool in self.tools if tool.name == name), None)
