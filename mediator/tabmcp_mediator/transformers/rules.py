"""The rule-based transformer: fast, free, offline, always has an answer."""

from __future__ import annotations

from collections.abc import Sequence

from tabmcp_mediator.models import EnhancedTool, RawTool, ToolContext
from tabmcp_mediator.naming import sanitize_name
from tabmcp_mediator.transformers.describing import describe
from tabmcp_mediator.transformers.name_reading import confidence, infer_category, parse_name, proposed_name
from tabmcp_mediator.transformers.schema_inference import infer_schema
from tabmcp_mediator.transformers.vocabulary import CATEGORY_DESCRIPTIONS


class RuleBasedTransformer:
    """Expands abbreviations and infers descriptions, schemas and categories from names.

    It is the floor of the chain: it never returns ``None``, so every tool leaves the
    mediator at least readable, even with no network and no LLM.
    """

    name = "rules"

    def __init__(self, priority: int = 100) -> None:
        """Create the transformer.

        Args:
            priority: Position in the chain; the default sits below overrides (300) and
                the cached LLM (210), so it catches whatever they leave.
        """
        self.priority = priority

    async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool]:
        """Enhance every tool from its name, description and declared schema."""
        return [self.enhance_one(tool) for tool in tools]

    def enhance_one(self, tool: RawTool) -> EnhancedTool:
        """Enhance one tool; pure, so it is also usable outside a chain."""
        parsed = parse_name(tool.name, tool.description)
        name = proposed_name(parsed)
        schema, argument_map = infer_schema(parsed, name, tool.input_schema, tool.description)
        category = infer_category(parsed)
        return EnhancedTool(
            name=sanitize_name(name),
            description=describe(parsed, tool.description),
            input_schema=schema,
            metadata=tool.metadata,
            original_name=tool.name,
            category=category,
            category_description=CATEGORY_DESCRIPTIONS.get(category or ""),
            confidence=confidence(parsed),
            enhanced_by=self.name,
            argument_map=argument_map,
        )
