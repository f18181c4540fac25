"""Assemble the standard chain from a config: overrides > cached LLM > rules."""

from __future__ import annotations

from tabmcp_mediator.cache import EnhancementCache
from tabmcp_mediator.config import MediatorConfig
from tabmcp_mediator.errors import ConfigError
from tabmcp_mediator.llm.anthropic_client import AnthropicClient
from tabmcp_mediator.llm.client import LLMClient
from tabmcp_mediator.llm.openai_client import LOCAL_BASE_URL, OPENAI_BASE_URL, OpenAICompatibleClient
from tabmcp_mediator.mediator import ToolMediator
from tabmcp_mediator.overrides import is_url
from tabmcp_mediator.transformers.cached import CachedTransformer
from tabmcp_mediator.transformers.llm import LLMTransformer
from tabmcp_mediator.transformers.overrides import OverrideTransformer
from tabmcp_mediator.transformers.rules import RuleBasedTransformer


def build_mediator(config: MediatorConfig) -> ToolMediator:
    """Build the mediator a bridge uses: overrides (300) > cached LLM (210) > rules (100).

    No network access happens here (an overrides URL is fetched on first use).

    Raises:
        ConfigError: The provider needs a key the environment does not hold, or its
            SDK is not installed.
        OverrideLoadError: The overrides file cannot be read or is invalid.
        CacheError: The cache directory cannot be created.
    """
    mediator = ToolMediator(grouping_threshold=config.grouping_threshold)
    if config.overrides:
        mediator.use(
            OverrideTransformer.from_url(config.overrides, verify=config.overrides_verify)
            if is_url(config.overrides)
            else OverrideTransformer.from_file(config.overrides)
        )
    if config.provider and config.auto_enhance:
        llm = LLMTransformer(build_client(config))
        mediator.use(
            CachedTransformer(llm, EnhancementCache(config.cache_dir, config.cache_ttl))
            if config.cache
            else llm
        )
    mediator.use(RuleBasedTransformer())
    return mediator


def build_client(config: MediatorConfig) -> LLMClient:
    """The LLM client for ``config.provider``, with the key read from the environment.

    Raises:
        ConfigError: No provider, or the key's variable is unset (``local`` needs none).
    """
    if not config.provider or not config.model:
        raise ConfigError("no LLM provider configured")
    key = config.api_key()
    if key is None and config.provider != "local":
        raise ConfigError(f"provider {config.provider!r} needs an API key in ${config.resolved_api_key_env}")
    if config.provider == "anthropic":
        return AnthropicClient(
            config.model, key, base_url=config.base_url, timeout=config.timeout, max_tokens=config.max_tokens
        )
    return OpenAICompatibleClient(
        config.model,
        api_key=key,
        base_url=config.base_url or (OPENAI_BASE_URL if config.provider == "openai" else LOCAL_BASE_URL),
        timeout=config.timeout,
        max_tokens=config.max_tokens,
        provider=config.provider,
    )
