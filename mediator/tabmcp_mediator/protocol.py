"""The contract every transformer (overrides, rules, LLM, cache, yours) fulfils."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from tabmcp_mediator.models import EnhancedTool, RawTool, ToolContext


@runtime_checkable
class ToolTransformer(Protocol):
    """Something that can improve a batch of tools.

    Attributes:
        name: Short identifier, recorded in ``EnhancedTool.enhanced_by`` and logs.
        priority: Higher runs first in a :class:`~tabmcp_mediator.ToolMediator`.
    """

    name: str
    priority: int

    async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool] | None:
        """Enhance ``tools``, or say this transformer cannot help.

        Returns:
            ``None`` to pass the whole batch to the next transformer; otherwise enhanced
            tools, each with ``original_name`` set to a name in ``tools``. Tools left out
            of the list go on down the chain. Names must be legal (the model enforces
            it); making them unique across the source is the mediator's job.

        Raises:
            MediatorError: On failure; the mediator logs it and tries the next transformer.
        """
        ...
