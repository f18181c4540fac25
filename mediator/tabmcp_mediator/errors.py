"""The one error tree of the mediator.

Every failure the package reports is a :class:`MediatorError`, so a bridge can catch one
type and fall back to the raw tools. Third-party exceptions (httpx, anthropic, sqlite3,
pydantic) are translated where they happen, with the original kept as ``__cause__``.

    MediatorError
    ├── ConfigError
    ├── InvalidToolError
    ├── OverrideLoadError
    ├── CacheError
    ├── ArgumentMappingError
    └── ProviderError
        ├── ProviderTimeout
        └── InvalidLLMResponse
"""

from __future__ import annotations


class MediatorError(Exception):
    """Root of every error raised by tabmcp-mediator."""


class ConfigError(MediatorError):
    """The configuration cannot produce a working mediator (e.g. a missing API key)."""


class InvalidToolError(MediatorError):
    """A raw tool given to the mediator is not even a tool (no name, wrong types)."""


class OverrideLoadError(MediatorError):
    """An overrides file or URL could not be read, fetched or validated."""


class CacheError(MediatorError):
    """The SQLite enhancement cache could not be read or written."""


class ArgumentMappingError(MediatorError):
    """Call arguments cannot be translated back to the page's original names."""


class ProviderError(MediatorError):
    """The LLM provider failed: HTTP error, connection refused, unusable reply."""


class ProviderTimeout(ProviderError):
    """The LLM provider did not answer within the configured timeout."""


class InvalidLLMResponse(ProviderError):
    """The LLM answered, but the answer is not the JSON the prompt asked for."""
