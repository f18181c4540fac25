"""The LLM transformer: one prompt per source, strictly parsed."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tabmcp_mediator.errors import InvalidLLMResponse
from tabmcp_mediator.llm.client import LLMClient
from tabmcp_mediator.llm.parse import parse_answer
from tabmcp_mediator.llm.prompt import PROMPT_VERSION, SYSTEM_PROMPT, build_prompt
from tabmcp_mediator.models import EnhancedTool, RawTool, ToolContext

log = logging.getLogger(__name__)

DEFAULT_CONFIDENCE = 0.8
DEFAULT_MAX_TOOLS = 200


class LLMTransformer:
    """Asks a model for names, descriptions, schemas and groupings of a whole source.

    Slow and paid, so it is meant to sit inside a :class:`CachedTransformer`. Tools whose
    entry in the answer is unusable are left out and go on to the next transformer (the
    rules) with their original definition; an answer with nothing usable is an error.
    """

    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        *,
        priority: int = 200,
        confidence: float = DEFAULT_CONFIDENCE,
        max_tools: int = DEFAULT_MAX_TOOLS,
    ) -> None:
        """Create the transformer.

        Args:
            client: The provider to ask.
            priority: Above the rules (100), below overrides (300).
            confidence: Recorded on every tool it enhances.
            max_tools: Sources with more tools are passed on (one prompt would be too big).
        """
        self.client = client
        self.priority = priority
        self.confidence = confidence
        self.max_tools = max_tools
        self.cache_namespace = f"llm:{client.provider}:{client.model}:prompt-v{PROMPT_VERSION}"

    async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool] | None:
        """Ask once for the whole batch.

        Raises:
            ProviderError: Transport failure (``ProviderTimeout`` on timeout).
            InvalidLLMResponse: Not JSON, or no usable entry at all.
        """
        if not tools or len(tools) > self.max_tools:
            if tools:
                log.info(
                    "%s: %d tools is over max_tools=%d, skipping the LLM",
                    context.source,
                    len(tools),
                    self.max_tools,
                )
            return None
        reply = await self.client.complete(SYSTEM_PROMPT, build_prompt(tools, context))
        enhanced = parse_answer(reply, tools, enhanced_by=self.name, confidence=self.confidence)
        if not enhanced:
            raise InvalidLLMResponse(f"{context.source}: no usable tool in the answer")
        if len(enhanced) < len(tools):
            log.info("%s: LLM answer usable for %d of %d tools", context.source, len(enhanced), len(tools))
        return enhanced
