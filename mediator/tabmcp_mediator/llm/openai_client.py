"""OpenAI and every OpenAI-compatible server (Ollama, llama.cpp, vLLM) over plain HTTP."""

from __future__ import annotations

import asyncio
import functools
import ssl
from typing import Any

import httpx

from tabmcp_mediator.errors import InvalidLLMResponse, ProviderError, ProviderTimeout

OPENAI_BASE_URL = "https://api.openai.com/v1"
LOCAL_BASE_URL = "http://127.0.0.1:11434/v1"
"""Ollama's OpenAI-compatible endpoint; llama.cpp and vLLM serve the same path."""

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_TOKENS = 8192


class OpenAICompatibleClient:
    """Calls ``POST {base_url}/chat/completions``; ``base_url`` ends in ``/v1`` by convention.

    One request shape covers OpenAI and the local servers, so no SDK is needed: httpx
    speaks it directly.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str = OPENAI_BASE_URL,
        timeout: float = DEFAULT_TIMEOUT,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        provider: str = "openai",
    ) -> None:
        """Configure the client.

        Args:
            model: Model id (``gpt-4o-mini``, ``llama3.1``...).
            api_key: Sent as a bearer token when given; local servers need none.
            base_url: API root including ``/v1``.
            timeout: Seconds for the whole call; past it, :class:`ProviderTimeout`.
            max_tokens: Reply budget.
            provider: ``openai`` or ``local``; recorded in the cache namespace.
        """
        self.provider = provider
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._max_tokens = max_tokens

    async def complete(self, system: str, prompt: str) -> str:
        """Ask once; translate httpx errors and odd reply shapes into the mediator's."""
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
            # OpenAI's current models take max_completion_tokens; local servers know max_tokens.
            "max_completion_tokens" if self.provider == "openai" else "max_tokens": self._max_tokens,
        }
        try:
            async with (
                asyncio.timeout(self._timeout),
                httpx.AsyncClient(timeout=self._timeout, verify=_default_tls()) as client,
            ):
                response = await client.post(self.url, json=body, headers=self._headers)
                response.raise_for_status()
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise ProviderTimeout(f"{self.provider}: no answer within {self._timeout}s") from exc
        except httpx.HTTPStatusError as exc:
            raise ProviderError(f"{self.provider}: HTTP {exc.response.status_code} from {self.url}") from exc
        except httpx.HTTPError as exc:
            raise ProviderError(f"{self.provider}: {exc!r} calling {self.url}") from exc
        return _content(response, self.provider)


@functools.cache
def _default_tls() -> ssl.SSLContext:
    """Loading the CA bundle takes ~0.1 s; do it once per process, not per call."""
    return httpx.create_ssl_context()


def _content(response: httpx.Response, provider: str) -> str:
    try:
        data: Any = response.json()
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise InvalidLLMResponse(f"{provider}: not a chat completion: {response.text[:200]!r}") from exc
    if not isinstance(content, str) or not content.strip():
        raise InvalidLLMResponse(f"{provider}: the reply has no text")
    return content
