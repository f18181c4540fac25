"""The mediator's settings, validated (pydantic): what a bridge's ``[mediator]`` section holds."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tabmcp_mediator.cache import DEFAULT_TTL
from tabmcp_mediator.mediator import DEFAULT_GROUPING_THRESHOLD
from tabmcp_mediator.overrides import is_url

Provider = Literal["anthropic", "openai", "local"]

DEFAULT_API_KEY_ENV: dict[str, str] = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
"""Where the key is looked up when ``api_key_env`` is not set; ``local`` needs none."""

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def default_cache_dir() -> Path:
    """The per-user cache directory (``~/.cache/tabmcp/mediator`` on Linux)."""
    return platformdirs.user_cache_path("tabmcp") / "mediator"


class MediatorConfig(BaseModel):
    """Everything :func:`~tabmcp_mediator.build_mediator` needs; unknown keys are errors.

    The API key is never part of it (so never in a file or a log): ``api_key_env`` names its variable.

    Attributes:
        provider: LLM provider; ``None`` means overrides and rules only. ``local`` is any
            OpenAI-compatible server (Ollama, llama.cpp, vLLM) and needs no key.
        model: Model id; required with a provider (no default that could go stale).
        base_url: API root: for ``anthropic`` without ``/v1`` (the SDK adds it), for
            ``openai``/``local`` with it (``http://127.0.0.1:11434/v1``).
        api_key_env: Environment variable holding the key.
        timeout: Seconds per LLM call before giving up and falling back to rules.
        max_tokens: Reply budget of the LLM call.
        cache: Keep LLM answers in SQLite (strongly advised: it is what makes the
            second visit free).
        cache_dir: Directory of the SQLite file.
        cache_ttl: How long an answer is served (seconds or ISO 8601, e.g. ``P7D``).
        auto_enhance: Call the LLM on its own for sites not enhanced yet. ``False`` keeps
            the bridge at overrides and rules (the CLI can still call the LLM).
        grouping_threshold: Sources with more tools than this get categories.
        overrides: Overrides file path or ``https://`` URL.
        overrides_verify: TLS verification for an overrides URL: bool or CA bundle path.
        mode: ``eager`` to enhance when a page loads, ``lazy`` on the first tools/list;
            the bridge reads it and decides when to call the mediator.
    """

    model_config = ConfigDict(extra="forbid")

    provider: Provider | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    timeout: float = Field(default=30.0, gt=0)
    max_tokens: int = Field(default=8192, gt=0)
    cache: bool = True
    cache_dir: Path = Field(default_factory=default_cache_dir)
    cache_ttl: timedelta = DEFAULT_TTL
    auto_enhance: bool = True
    grouping_threshold: int = Field(default=DEFAULT_GROUPING_THRESHOLD, ge=0)
    overrides: str | None = None
    overrides_verify: bool | str = True
    mode: Literal["eager", "lazy"] = "lazy"

    @model_validator(mode="before")
    @classmethod
    def _no_secrets(cls, data: Any) -> Any:
        """Refuse a key written into the config, with a message that says what to do."""
        if isinstance(data, dict) and "api_key" in data:
            raise ValueError(
                "API keys are never stored in the config: set api_key_env to the variable's name"
            )
        return data

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError(f"not an environment variable name: {value!r}")
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL: {value!r}")
        return value

    @field_validator("overrides")
    @classmethod
    def _https_only(cls, value: str | None) -> str | None:
        if value is not None and is_url(value) and not value.startswith("https://"):
            raise ValueError(f"an overrides URL must use https: {value!r}")
        return value

    @field_validator("cache_ttl")
    @classmethod
    def _positive_ttl(cls, value: timedelta) -> timedelta:
        if value.total_seconds() <= 0:
            raise ValueError("cache_ttl must be positive")
        return value

    @model_validator(mode="after")
    def _model_with_provider(self) -> MediatorConfig:
        if self.provider and not self.model:
            raise ValueError(f"provider {self.provider!r} needs a model")
        return self

    @property
    def resolved_api_key_env(self) -> str | None:
        """The variable the key is read from: ``api_key_env`` or the provider's usual one."""
        return self.api_key_env or DEFAULT_API_KEY_ENV.get(self.provider or "")

    def api_key(self) -> str | None:
        """Read the key from the environment now (it is never kept on the config)."""
        name = self.resolved_api_key_env
        return (os.environ.get(name) or None) if name else None
