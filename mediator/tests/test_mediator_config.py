"""MediatorConfig validation and the chain build_mediator assembles from it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from tabmcp_mediator import (
    CachedTransformer,
    ConfigError,
    LLMTransformer,
    MediatorConfig,
    OpenAICompatibleClient,
    OverrideTransformer,
    RuleBasedTransformer,
    build_client,
    build_mediator,
)


def test_defaults() -> None:
    config = MediatorConfig()
    assert config.provider is None and config.mode == "lazy" and config.auto_enhance
    assert config.cache_ttl == timedelta(days=7)
    assert config.grouping_threshold == 10
    assert config.cache_dir.name == "mediator"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"provider": "anthropic"}, "needs a model"),
        ({"provider": "gemini", "model": "x"}, "provider"),
        ({"api_key": "sk-secret"}, "never stored"),
        ({"api_key_env": "MY KEY"}, "environment variable"),
        ({"overrides": "http://example.com/o.json"}, "https"),
        ({"base_url": "localhost:11434"}, "http"),
        ({"cache_ttl": 0}, "positive"),
        ({"grouping_threshold": -1}, "greater than or equal"),
        ({"mode": "sometimes"}, "eager"),
        ({"timeout": 0}, "greater than"),
        ({"providr": "anthropic"}, "Extra inputs"),
    ],
)
def test_invalid_configs_are_rejected(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        MediatorConfig.model_validate(options)


def test_ttl_and_paths_parse_from_plain_values() -> None:
    config = MediatorConfig.model_validate({"cache_ttl": "P1D", "cache_dir": "/tmp/x", "mode": "eager"})
    assert config.cache_ttl == timedelta(days=1) and config.cache_dir == Path("/tmp/x")
    assert MediatorConfig(cache_ttl=3600).cache_ttl == timedelta(hours=1)  # type: ignore[arg-type]


def test_the_key_is_read_from_the_environment_and_never_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    config = MediatorConfig(provider="anthropic", model="m")
    assert config.resolved_api_key_env == "ANTHROPIC_API_KEY"
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert config.api_key() is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env")
    assert config.api_key() == "sk-from-env"
    assert "sk-from-env" not in config.model_dump_json()
    custom = MediatorConfig(provider="openai", model="m", api_key_env="WORK_OPENAI")
    monkeypatch.setenv("WORK_OPENAI", "sk-work")
    assert custom.api_key() == "sk-work"


def names(config: MediatorConfig) -> list[tuple[str, int]]:
    return [(t.name, t.priority) for t in build_mediator(config).transformers]


def test_standard_chain_is_overrides_then_cached_llm_then_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = tmp_path / "o.json"
    overrides.write_text("{}")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    config = MediatorConfig(provider="openai", model="m", overrides=str(overrides), cache_dir=tmp_path / "c")
    assert names(config) == [("overrides", 300), ("cached-llm", 210), ("rules", 100)]
    chain = build_mediator(config).transformers
    assert isinstance(chain[0], OverrideTransformer) and isinstance(chain[2], RuleBasedTransformer)
    assert isinstance(chain[1], CachedTransformer) and isinstance(chain[1].inner, LLMTransformer)
    assert (tmp_path / "c" / "enhancements.sqlite3").exists()


def test_chain_without_provider_without_cache_or_without_auto_enhance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert names(MediatorConfig()) == [("rules", 100)]
    assert names(MediatorConfig(provider="openai", model="m", cache=False)) == [("llm", 200), ("rules", 100)]
    assert names(MediatorConfig(provider="openai", model="m", auto_enhance=False, cache_dir=tmp_path)) == [
        ("rules", 100)
    ]
    assert build_mediator(MediatorConfig(grouping_threshold=3)).grouping_threshold == 3


def test_a_missing_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        build_mediator(MediatorConfig(provider="openai", model="m"))


def test_clients_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    local = build_client(MediatorConfig(provider="local", model="llama3"))
    assert isinstance(local, OpenAICompatibleClient) and local.provider == "local"
    assert local.url == "http://127.0.0.1:11434/v1/chat/completions"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    anthropic = build_client(MediatorConfig(provider="anthropic", model="claude-x"))
    assert (anthropic.provider, anthropic.model) == ("anthropic", "claude-x")
    with pytest.raises(ConfigError):
        build_client(MediatorConfig())
