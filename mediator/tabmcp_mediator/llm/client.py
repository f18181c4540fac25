"""What the LLM transformer needs from a provider: one prompt in, one text out."""

from __future__ import annotations

from typing import Protocol


class LLMClient(Protocol):
    """A chat model behind some API.

    Attributes:
        provider: ``anthropic``, ``openai`` or ``local``; part of the cache namespace.
        model: The model id; part of the cache namespace.
    """

    provider: str
    model: str

    async def complete(self, system: str, prompt: str) -> str:
        """Send one system + user message and return the reply text.

        Raises:
            ProviderTimeout: No answer within the client's timeout.
            ProviderError: HTTP or connection failure.
            InvalidLLMResponse: The reply has no text.
        """
        ...
