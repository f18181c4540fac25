"""Anthropic's Messages API through the official SDK (the ``anthropic`` extra)."""

from __future__ import annotations

import asyncio
from typing import Any

from tabmcp_mediator.errors import ConfigError, InvalidLLMResponse, ProviderError, ProviderTimeout

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_TOKENS = 8192


class AnthropicClient:
    """Calls ``POST {base_url}/v1/messages`` with the official SDK.

    The SDK is imported on construction so the package works without the extra until an
    Anthropic provider is actually configured. A client is opened per call: calls are
    rare (the cache absorbs repeats) and this keeps no connection bound to an event loop.
    """

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        api_key: str | None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_retries: int = 0,
    ) -> None:
        """Configure the client.

        Args:
            model: Model id, e.g. ``claude-haiku-4-5``.
            api_key: The key, read from the environment by the caller (never stored on disk).
            base_url: A proxy or test server; the SDK appends ``/v1/messages``.
            timeout: Seconds for the whole call; past it, :class:`ProviderTimeout`.
            max_tokens: Reply budget.
            max_retries: SDK retries; 0 because the chain falls back to rules and the
                next visit retries anyway.

        Raises:
            ConfigError: The ``anthropic`` package is not installed.
        """
        try:
            import anthropic
        except ImportError as exc:
            raise ConfigError("provider 'anthropic' needs: pip install 'tabmcp-mediator[anthropic]'") from exc
        self._sdk = anthropic
        self.model = model
        self._options: dict[str, Any] = {
            "api_key": api_key,
            "base_url": base_url,
            "timeout": timeout,
            "max_retries": max_retries,
        }
        self._timeout = timeout
        self._max_tokens = max_tokens

    async def complete(self, system: str, prompt: str) -> str:
        """Ask once; translate the SDK's errors into the mediator's."""
        sdk = self._sdk
        try:
            async with asyncio.timeout(self._timeout), sdk.AsyncAnthropic(**self._options) as client:
                message = await client.messages.create(
                    model=self.model,
                    max_tokens=self._max_tokens,
                    system=system,
                    messages=[{"role": "user", "content": prompt}],
                )
        except (TimeoutError, sdk.APITimeoutError) as exc:
            raise ProviderTimeout(f"anthropic: no answer within {self._timeout}s") from exc
        except sdk.APIStatusError as exc:
            raise ProviderError(f"anthropic: HTTP {exc.status_code}: {exc.message}") from exc
        except sdk.AnthropicError as exc:
            raise ProviderError(f"anthropic: {exc}") from exc
        text = "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
        if not text.strip():
            raise InvalidLLMResponse("anthropic: the reply has no text")
        return text
