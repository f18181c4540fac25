"""Configuration: a TOML file validated by pydantic, overridden by command-line flags.

The file is looked up at ``--config PATH``, then ``$TABMCP_CONFIG``, then
``~/.config/tabmcp/config.toml``; every setting has a default, so no file is needed.
``tabmcp config check`` validates a file and prints the effective settings.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .core.scoping import PolicySettings
from .core.telemetry import TelemetrySettings
from .core.trust.settings import TrustSettings
from .errors import ConfigError
from .packaging.assets import EXTENSION_ID

__all__ = ["DEFAULT_PORT", "BridgeTarget", "Config", "bridge_target", "default_config_path", "load_config"]

DEFAULT_PORT = 7797
"""One port for the extension's WebSocket (``/extension``) and MCP over HTTP (``/mcp``)."""

_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ServerSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(DEFAULT_PORT, ge=0, le=65535)
    allow_remote: bool = False
    """Binding to anything but loopback needs this set explicitly (and is not recommended)."""
    extension_ids: list[str] = Field(default_factory=list)
    """Extension IDs admitted besides our own (for a self-signed fork of the extension)."""
    extension_token: str | None = None
    """A pre-shared secret (set the same on the extension's options page): a hello carrying it is
    admitted without pairing, one carrying another token is refused. Unset (the default), the
    extension is admitted by the pairing the person confirmed with ``tabmcp pair`` (docs/security.md §1)."""
    mcp_token: str | None = None
    """If set, MCP clients must send ``Authorization: Bearer <token>`` to /mcp."""
    keep_alive_s: float = Field(5.0, gt=0)
    """How long an idle HTTP connection stays open after its last response (uvicorn's
    ``timeout_keep_alive``); a request that waits unread on it is answered even after a longer stall."""
    reconnect_grace_s: float = Field(5.0, ge=0)
    """How long tabs survive an extension disconnect before their tools are dropped."""

    @field_validator("extension_ids")
    @classmethod
    def _ids(cls, v: list[str]) -> list[str]:
        for ext_id in v:
            if len(ext_id) != 32 or not all("a" <= c <= "p" for c in ext_id):
                raise ValueError(f"{ext_id!r} is not a Chrome extension ID (32 letters a-p)")
        return v

    @property
    def allowed_extension_origins(self) -> frozenset[str]:
        return frozenset(f"chrome-extension://{i}" for i in [EXTENSION_ID, *self.extension_ids])


class CallSettings(_Section):
    timeout_s: float = Field(30.0, gt=0, le=3600)


class DisclosureSettings(_Section):
    profile: Literal["passthrough", "categories", "meta", "hybrid"] = "categories"
    core_tools: list[str] = Field(default_factory=list)
    """hybrid profile: globs of tools to list directly. Empty: page-marked core tools and the most used."""
    core_from_usage: int = Field(5, ge=0, le=100)
    """hybrid profile, when core_tools is empty: how many of the most used tools to list directly."""


class SearchSettings(_Section):
    semantic: bool | str = "auto"
    """Embedding ranking fused with keywords. "auto": on when the default model is installed (./dev setup
    installs it), else keyword ranking and one log line saying what is missing; true: the default model
    (an error without it); a string: a sentence-transformers model name or path; false: keywords only."""


class StoreSettings(_Section):
    path: str | None = None
    """SQLite file for usage counts and telemetry snapshots (default ~/.local/state/tabmcp/tabmcp.db)."""
    activity_rows: int = Field(1_000, ge=1, le=1_000_000)
    """How many rows the activity log (agent calls that reach a page; ``tabmcp activity``) keeps, newest."""
    secrets: Literal["auto", "keychain", "file"] = "auto"
    """Where secrets' values are kept: the OS keychain when one is usable, else a 0600 file beside the
    database (``auto``); ``keychain`` refuses to fall back; ``file`` never uses the keychain."""


class SitesSettings(_Section):
    """``[sites]``: reachable sites (docs/security.md): how a call opens a site, and the agent's tabs."""

    open_timeout_s: float = Field(15.0, gt=0, le=600)
    """How long a call waits for the opened page to register its tool."""
    settle_s: float = Field(1.5, gt=0, le=60)
    """After the opened page loaded: this long without a new tool means registration settled."""
    max_agent_tabs: int = Field(5, ge=1, le=100)
    """At most this many agent-opened tabs at once; the least recently used one is closed first."""
    idle_close_s: float = Field(300.0, gt=0, le=86_400)
    """An agent-opened tab nobody brought to the front is closed after this long without a call."""
    group_title: str = Field("tabmcp agent", min_length=1, max_length=40)
    """The label of the tab group that holds agent-opened tabs."""


class McpSettings(_Section):
    tools_ttl_ms: int = Field(5_000, ge=0)
    """How long 2026-07-28 clients may cache tools/list; changes are also pushed on listen streams."""
    express: bool = True
    """No effect: every request on every transport goes through the MCP SDK's server (the express
    lane it switched is gone). Kept so that config files that set it still load."""
    progress_interval_s: float = Field(5.0, gt=0)
    """While a call that carries a ``progressToken`` waits (an approval, a site opening, a slow page
    tool), a ``notifications/progress`` goes out this often: clients that reset their timeout on
    progress keep waiting (the TypeScript SDK gives up after 60 s without)."""
    opentelemetry: bool = False
    """The MCP SDK's OpenTelemetry span around every request (its server's default middleware). Off:
    without an OpenTelemetry SDK and exporter installed (tabmcp ships neither) the span records
    nothing, and it still costs about 15 µs of every request; on for those who export spans."""


class MediatorSection(BaseModel):
    """``[mediator]``: everything but ``enabled`` and ``timeout_s`` goes to tabmcp-mediator's MediatorConfig."""

    model_config = ConfigDict(extra="allow")
    enabled: bool = False
    timeout_s: float = Field(60.0, gt=0)

    def mediator_settings(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class Config(_Section):
    server: ServerSettings = Field(default_factory=ServerSettings)
    calls: CallSettings = Field(default_factory=CallSettings)
    disclosure: DisclosureSettings = Field(default_factory=DisclosureSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    policy: PolicySettings = Field(default_factory=PolicySettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    mediator: MediatorSection = Field(default_factory=MediatorSection)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
    sites: SitesSettings = Field(default_factory=SitesSettings)
    trust: TrustSettings = Field(default_factory=TrustSettings)
    """Pages are untrusted: result cleaning and framing, lockdown, pinned definitions (docs/security.md)."""

    def check_binding(self) -> None:
        """Refuse a non-loopback bind unless explicitly allowed."""
        if self.server.host not in _LOOPBACK and not self.server.allow_remote:
            raise ConfigError(
                f"refusing to bind {self.server.host}: the bridge listens on loopback only "
                "(set server.allow_remote = true to override)"
            )

    def with_overrides(self, overrides: dict[str, dict[str, Any]]) -> Config:
        """A copy with ``{"section": {"key": value}}`` overrides (from flags) applied and validated."""
        data = self.model_dump()
        for section, values in overrides.items():
            data.setdefault(section, {}).update({k: v for k, v in values.items() if v is not None})
        try:
            return Config.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_explain(exc)) from exc


def default_config_path() -> Path:
    env = os.environ.get("TABMCP_CONFIG")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tabmcp" / "config.toml"


def _explain(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        lines.append(f"{where}: {err['msg'].removeprefix('Value error, ')}")
    return "invalid configuration:\n  " + "\n  ".join(lines)


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Load and validate a config file; a missing default file means all defaults.

    Raises:
        ConfigError: the file does not parse as TOML or a setting is invalid.
    """
    explicit = path is not None or "TABMCP_CONFIG" in os.environ
    file = Path(path) if path is not None else default_config_path()
    if not file.exists():
        if explicit:
            raise ConfigError(f"config file {file} does not exist")
        return Config()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from exc
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{file}: {_explain(exc)}") from exc


@dataclass(frozen=True)
class BridgeTarget:
    """The bridge a command talks to (:func:`bridge_target`)."""

    port: int
    config: Config
    """The config as loaded (its defaults when the file did not load: ``error`` says why)."""
    error: ConfigError | None = None


def bridge_target(port: int | None, path: str | os.PathLike[str] | None = None) -> BridgeTarget:
    """The port of the running bridge for every command: ``--port``, else ``server.port``, else
    :data:`DEFAULT_PORT`. Never raises: a config that does not load comes back as the error."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        return BridgeTarget(port or DEFAULT_PORT, Config(), exc)
    return BridgeTarget(port or config.server.port, config)
