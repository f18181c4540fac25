"""MCP clients' config files: where each keeps its servers, how an entry looks, and a merge that
adds or updates tabmcp's entry and never touches another server (``tabmcp setup``, ``doctor``).

:data:`CLIENTS` is the one table of clients (setup, doctor, ``serve``'s hint and the README read it);
:func:`merged` is data in, data out, and :func:`apply` backs the file up and replaces it atomically.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from ..config import DEFAULT_PORT
from ..errors import ConfigError
from . import jsonc

__all__ = [
    "BACKUP_SUFFIX",
    "CLIENTS",
    "Change",
    "Client",
    "ClientConfigError",
    "EntryState",
    "Launch",
    "apply",
    "entry_state",
    "find_entry",
    "merged",
    "plan",
    "starts_bridge",
    "this_launch",
]

BACKUP_SUFFIX = ".tabmcp.bak"
DEFAULT_NAME = "tabmcp"


class ClientConfigError(ConfigError):
    """A client's config file cannot be read as JSON, or its servers are not an object: left as it is."""


@dataclass(frozen=True)
class Launch:
    """How a client reaches this installation: a command (stdio) or an MCP URL (Streamable HTTP)."""

    command: str | None = None
    args: tuple[str, ...] = ()
    url: str | None = None

    @property
    def is_http(self) -> bool:
        return self.url is not None


def this_launch(*, port: int = DEFAULT_PORT, http: str | None = None) -> Launch:
    """This installation's ``tabmcp serve --stdio`` by absolute path (the script beside the running
    interpreter: pipx, uv tool and plain virtualenvs all put it there), or the given HTTP URL."""
    if http is not None:
        return Launch(url=http)
    port_args = () if port == DEFAULT_PORT else ("--port", str(port))
    bindir = Path(os.path.abspath(sys.executable)).parent  # not resolved: a venv's python is a symlink
    script = bindir / ("tabmcp.exe" if os.name == "nt" else "tabmcp")
    if script.exists():
        return Launch(command=str(script), args=("serve", "--stdio", *port_args))
    return Launch(command=os.path.abspath(sys.executable), args=("-m", "tabmcp", "serve", "--stdio", *port_args))


Base = Literal["home", "appdata"]
"""Where a client's file path starts: the home folder, or the OS's application data
(``%APPDATA%``, ``~/Library/Application Support``, ``$XDG_CONFIG_HOME`` or ``~/.config``)."""


@dataclass(frozen=True)
class Client:
    key: str
    label: str
    servers_key: str
    """The top-level object holding the servers by name."""
    stdio_type: bool
    """Entries carry ``"type": "stdio"`` / ``"http"``."""
    url_key: str | None
    """The key of an HTTP server's URL (None: the client's config file takes stdio servers only)."""
    file: tuple[Base, str]
    """The user-scope config file: its base and its path under it."""

    def config_path(self, *, home: Path | None = None, platform: str | None = None,
                    environ: Mapping[str, str] | None = None) -> Path:
        """The user-scope config file on ``platform`` (``sys.platform`` values)."""
        home = home or Path.home()
        platform = platform or sys.platform
        env = os.environ if environ is None else environ
        if platform == "win32":
            appdata = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
        elif platform == "darwin":
            appdata = home / "Library" / "Application Support"
        else:
            appdata = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        base, path = self.file
        return (home if base == "home" else appdata) / path

    def entry(self, launch: Launch) -> dict[str, Any]:
        """The server entry this client expects for ``launch``."""
        if launch.is_http:
            if self.url_key is None:
                raise ClientConfigError(
                    f"{self.label} takes only stdio servers in its config file: run `tabmcp setup {self.key}` "
                    "without --http (a stdio tabmcp relays to a bridge already running)")
            out: dict[str, Any] = {"type": "http"} if self.stdio_type else {}
            out[self.url_key] = launch.url
            return out
        out = {"type": "stdio"} if self.stdio_type else {}
        out.update({"command": launch.command, "args": list(launch.args)})
        return out


CLIENTS: dict[str, Client] = {c.key: c for c in (
    Client("claude-code", "Claude Code", "mcpServers", stdio_type=True, url_key="url",
           file=("home", ".claude.json")),  # user scope, as `claude mcp add -s user`
    Client("claude-desktop", "Claude Desktop", "mcpServers", stdio_type=False, url_key=None,
           file=("appdata", "Claude/claude_desktop_config.json")),
    Client("cursor", "Cursor", "mcpServers", stdio_type=False, url_key="url", file=("home", ".cursor/mcp.json")),
    Client("vscode", "VS Code", "servers", stdio_type=True, url_key="url", file=("appdata", "Code/User/mcp.json")),
    Client("windsurf", "Windsurf", "mcpServers", stdio_type=False, url_key="serverUrl",
           file=("home", ".codeium/windsurf/mcp_config.json")),
)}
"""Every client ``tabmcp setup`` knows, in the order they are offered."""


def _parse(text: str | None, path: Path | str) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = jsonc.loads(text)  # comments and trailing commas too, as VS Code's mcp.json takes them
    except jsonc.JsoncError as exc:
        raise ClientConfigError(
            f"{path} is not valid JSON, even with comments ({exc}); nothing was changed. Fix it and run tabmcp setup "
            "again, or add the entry that `tabmcp setup CLIENT --print` shows by hand") from exc
    if not isinstance(data, dict):
        raise ClientConfigError(f"{path} holds a JSON {type(data).__name__}, not an object (nothing was changed)")
    return data


def merged(client: Client, current: Mapping[str, Any], entry: Mapping[str, Any],
           name: str = DEFAULT_NAME) -> dict[str, Any]:
    """``current`` with ``name`` set to ``entry`` among the client's servers; every other key and
    server as it was (a copy: ``current`` is not changed)."""
    out = copy.deepcopy(dict(current))
    servers = out.get(client.servers_key)
    if servers is None:
        servers = out[client.servers_key] = {}
    if not isinstance(servers, dict):
        raise ClientConfigError(f"{client.servers_key!r} in {client.label}'s config is not an object (nothing was changed)")
    servers[name] = dict(entry)
    return out


def _dump(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Change:
    """What ``tabmcp setup`` would do to one file."""

    client: Client
    path: Path
    before: str | None
    """The file's text (None: no file yet)."""
    after: str

    @property
    def changed(self) -> bool:
        return self.before is None or _parse(self.before, self.path) != _parse(self.after, self.path)

    def diff(self) -> str:
        before = (self.before or "").splitlines(keepends=True)
        return "".join(difflib.unified_diff(before, self.after.splitlines(keepends=True),
                                            fromfile=f"{self.path} (now)" if self.before is not None else "/dev/null",
                                            tofile=f"{self.path} (after tabmcp setup)"))


def plan(client: Client, launch: Launch, *, name: str = DEFAULT_NAME, path: Path | None = None) -> Change:
    """The change that sets ``name`` to ``launch`` in the client's config file (nothing written)."""
    path = path or client.config_path()
    before = path.read_text(encoding="utf-8") if path.exists() else None
    data = merged(client, _parse(before, path), client.entry(launch), name)
    if before is None or not before.strip() or _strict_json(before):
        return Change(client, path, before, _dump(data))
    # Comments or trailing commas: edit the text in place so that the person's comments stay.
    try:
        after = jsonc.set_member(before, [client.servers_key, name], client.entry(launch))
    except jsonc.JsoncError as exc:
        raise ClientConfigError(f"{path}: cannot add tabmcp without losing its comments ({exc}); nothing was "
                                "changed. Add the entry that `tabmcp setup CLIENT --print` shows by hand") from exc
    return Change(client, path, before, after)


def _strict_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def apply(change: Change) -> Path | None:
    """Write the change (nothing when the file already says it); the previous file is kept as
    ``<file>.tabmcp.bak``. Returns the backup's path (None when there was no file or no change)."""
    if not change.changed:
        return None
    change.path.parent.mkdir(parents=True, exist_ok=True)
    backup: Path | None = None
    mode = 0o600
    if change.before is not None:
        backup = change.path.with_name(change.path.name + BACKUP_SUFFIX)
        shutil.copy2(change.path, backup)
        mode = change.path.stat().st_mode & 0o777
    tmp = change.path.with_name(f".{change.path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(change.after)
    os.replace(tmp, change.path)
    return backup


class EntryState(StrEnum):
    NO_FILE = "no-file"
    ABSENT = "absent"
    """The file exists but has no tabmcp server."""
    CURRENT = "current"
    """A tabmcp server that starts this installation (or reaches its URL)."""
    OTHER = "other"
    """A tabmcp server that starts another installation, or a command that no longer exists."""
    INVALID = "invalid"


def find_entry(client: Client, data: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The server entry that runs tabmcp: named ``tabmcp``, or whose command is a ``tabmcp``."""
    servers = data.get(client.servers_key)
    if not isinstance(servers, dict):
        return None
    if isinstance(servers.get(DEFAULT_NAME), dict):
        return DEFAULT_NAME, servers[DEFAULT_NAME]
    for name, entry in servers.items():
        if isinstance(entry, dict) and Path(str(entry.get("command") or "")).stem == "tabmcp":
            return name, entry
    return None


def entry_state(client: Client, launch: Launch, *, path: Path | None = None,
                port: int = DEFAULT_PORT) -> tuple[EntryState, str]:
    """Whether the client's config starts this installation (or reaches the bridge's URL on
    ``port``), with a sentence saying why not."""
    path = path or client.config_path()
    if not path.exists():
        return EntryState.NO_FILE, f"no {path}"
    try:
        data = _parse(path.read_text(encoding="utf-8"), path)
    except (ClientConfigError, OSError) as exc:
        return EntryState.INVALID, str(exc)
    found = find_entry(client, data)
    if found is None:
        return EntryState.ABSENT, f"{path} has no tabmcp server"
    name, entry = found
    url = entry.get(client.url_key) if client.url_key else None
    if url:
        parsed = urlsplit(str(url))
        if parsed.hostname in ("127.0.0.1", "localhost", "::1") and parsed.port == port:
            return EntryState.CURRENT, f"{name} → {url}"
        return EntryState.OTHER, f"{name} → {url}, but the bridge listens on http://127.0.0.1:{port}/mcp"
    command = str(entry.get("command") or "")
    args = [str(a) for a in entry.get("args") or []]
    if command == launch.command and args == list(launch.args):
        return EntryState.CURRENT, f"{name} → {command}"
    if command == launch.command:
        return EntryState.OTHER, f"{name} runs this installation with {args}, not {list(launch.args)}"
    if not command or not Path(command).exists():
        return EntryState.OTHER, f"{name} runs {command or 'nothing'}, which does not exist (an old installation?)"
    return EntryState.OTHER, f"{name} runs {command}, not this installation ({launch.command})"


def starts_bridge(client: Client, path: Path | None = None) -> bool:
    """Whether the client's tabmcp entry is a command (stdio): the client starts the bridge itself."""
    path = path or client.config_path()
    try:
        data = _parse(path.read_text(encoding="utf-8"), path)
    except (ClientConfigError, OSError):
        return False
    found = find_entry(client, data)
    return found is not None and bool(found[1].get("command")) and not (client.url_key and found[1].get(client.url_key))
