"""``tabmcp setup CLIENT``: each client's file, in a scratch home, written as the client reads it;
other servers and settings kept, a backup of the previous file, idempotent, ``--dry-run`` a diff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tabmcp.cli import main
from tabmcp.cli.clients import BACKUP_SUFFIX, CLIENTS, EntryState, entry_state, this_launch

OTHER = {"command": "npx", "args": ["@playwright/mcp@latest"]}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch home: every client's file is looked up under it (Linux layout)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("TABMCP_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setattr("sys.platform", "linux")
    return tmp_path


def _file(key: str, home: Path) -> Path:
    return CLIENTS[key].config_path(home=home, platform="linux", environ={})


def _servers(key: str, home: Path) -> dict[str, Any]:
    data = json.loads(_file(key, home).read_text())
    servers: dict[str, Any] = data[CLIENTS[key].servers_key]
    return servers


EXPECTED_PATHS = {
    "claude-code": ".claude.json",
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".config/Code/User/mcp.json",
    "windsurf": ".codeium/windsurf/mcp_config.json",
}


@pytest.mark.parametrize("key", sorted(CLIENTS))
def test_setup_adds_tabmcp_keeps_other_servers_and_a_backup(key: str, home: Path) -> None:
    assert _file(key, home) == home / EXPECTED_PATHS[key]
    path = _file(key, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    root = CLIENTS[key].servers_key
    original = {"theme": "dark", root: {"playwright": OTHER}, "projects": {"/x": {"mcpServers": {"a": OTHER}}}}
    path.write_text(json.dumps(original))

    assert main(["setup", key]) == 0

    data = json.loads(path.read_text())
    assert data["theme"] == "dark" and data["projects"] == original["projects"]
    assert data[root]["playwright"] == OTHER, "setup removed or changed another server"
    entry = data[root]["tabmcp"]
    launch = this_launch()
    assert launch.command is not None and Path(launch.command).is_absolute()
    assert entry["command"] == launch.command and entry["args"] == ["serve", "--stdio"]
    if key in ("claude-code", "vscode"):
        assert entry["type"] == "stdio"
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    assert json.loads(backup.read_text()) == original
    assert entry_state(CLIENTS[key], launch, path=path)[0] == EntryState.CURRENT

    # Idempotent: a second run changes nothing (not even the backup).
    written, backed_up = path.read_bytes(), backup.read_bytes()
    assert main(["setup", key]) == 0
    assert path.read_bytes() == written and backup.read_bytes() == backed_up


@pytest.mark.parametrize(("key", "expected"), [
    ("claude-code", {"type": "http", "url": "http://127.0.0.1:7797/mcp"}),
    ("cursor", {"url": "http://127.0.0.1:7797/mcp"}),
    ("vscode", {"type": "http", "url": "http://127.0.0.1:7797/mcp"}),
    ("windsurf", {"serverUrl": "http://127.0.0.1:7797/mcp"}),
])
def test_setup_http_writes_each_clients_url_key(key: str, expected: dict[str, str], home: Path) -> None:
    assert main(["setup", key, "--http"]) == 0
    assert _servers(key, home)["tabmcp"] == expected


def test_claude_desktop_refuses_http_and_writes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", "claude-desktop", "--http"]) == 2
    assert "stdio" in capsys.readouterr().err
    assert not _file("claude-desktop", home).exists()


def test_an_entry_of_this_installation_with_other_arguments_is_not_current(home: Path) -> None:
    """``tabmcp serve`` without ``--stdio`` writes no MCP on stdout: doctor must not call it fine."""
    path = _file("cursor", home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"tabmcp": {"command": this_launch().command, "args": ["serve"]}}}))
    state, why = entry_state(CLIENTS["cursor"], this_launch(), path=path)
    assert state == EntryState.OTHER and "['serve']" in why
    assert main(["setup", "cursor"]) == 0
    assert entry_state(CLIENTS["cursor"], this_launch(), path=path)[0] == EntryState.CURRENT


def test_setup_replaces_an_old_installations_path(home: Path) -> None:
    path = _file("cursor", home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"tabmcp": {"command": "/old/venv/bin/tabmcp", "args": ["serve"]},
                                               "other": OTHER}}))
    state, why = entry_state(CLIENTS["cursor"], this_launch(), path=path)
    assert state == EntryState.OTHER and "/old/venv/bin/tabmcp" in why
    assert main(["setup", "cursor"]) == 0
    assert _servers("cursor", home)["tabmcp"]["command"] == this_launch().command
    assert _servers("cursor", home)["other"] == OTHER


def test_dry_run_prints_a_diff_and_writes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file("claude-desktop", home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"other": OTHER}}, indent=2) + "\n")
    before = path.read_bytes()
    assert main(["setup", "claude-desktop", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("--- ") and '+    "tabmcp": {' in out and f'+      "command": "{this_launch().command}"' in out
    assert path.read_bytes() == before
    assert not path.with_name(path.name + BACKUP_SUFFIX).exists()


def test_invalid_json_is_left_alone(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file("vscode", home)
    path.parent.mkdir(parents=True)
    path.write_text('{"servers": {"x": 1')  # cut short (comments and trailing commas are fine: test_jsonc.py)
    assert main(["setup", "vscode"]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert path.read_text() == '{"servers": {"x": 1'


def test_print_for_any_other_client(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", "--print"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == {"mcpServers": {"tabmcp": {"command": this_launch().command, "args": ["serve", "--stdio"]}}}
    assert main(["setup", "--print", "--http", "--port", "8123"]) == 0
    assert json.loads(capsys.readouterr().out) == {"mcpServers": {"tabmcp": {"url": "http://127.0.0.1:8123/mcp"}}}
    assert not list(home.iterdir()) or all(p.name == "no-config.toml" for p in home.iterdir())


def test_a_port_other_than_the_default_is_passed_on(home: Path) -> None:
    assert main(["setup", "cursor", "--port", "8123"]) == 0
    assert _servers("cursor", home)["tabmcp"]["args"] == ["serve", "--stdio", "--port", "8123"]


@pytest.mark.parametrize(("platform", "environ", "expected"), [
    ("darwin", {}, "Library/Application Support/Claude/claude_desktop_config.json"),
    ("win32", {"APPDATA": "/h/AppData/Roaming"}, "/h/AppData/Roaming/Claude/claude_desktop_config.json"),
    ("linux", {"XDG_CONFIG_HOME": "/h/cfg"}, "/h/cfg/Claude/claude_desktop_config.json"),
])
def test_claude_desktop_path_per_os(platform: str, environ: dict[str, str], expected: str) -> None:
    home = Path("/h")
    assert CLIENTS["claude-desktop"].config_path(home=home, platform=platform, environ=environ) == home / expected


@pytest.mark.parametrize(("platform", "environ", "expected"), [
    ("darwin", {}, "/h/Library/Application Support/Code/User/mcp.json"),
    ("win32", {"APPDATA": "/h/AppData/Roaming"}, "/h/AppData/Roaming/Code/User/mcp.json"),
    ("linux", {}, "/h/.config/Code/User/mcp.json"),
])
def test_vscode_path_per_os(platform: str, environ: dict[str, str], expected: str) -> None:
    assert CLIENTS["vscode"].config_path(home=Path("/h"), platform=platform, environ=environ) == Path(expected)


def test_an_http_entry_to_another_port_is_not_this_bridge(home: Path) -> None:
    assert main(["setup", "windsurf", "--http", "--port", "8123"]) == 0
    path = _file("windsurf", home)
    assert entry_state(CLIENTS["windsurf"], this_launch(), path=path, port=8123)[0] == EntryState.CURRENT
    state, why = entry_state(CLIENTS["windsurf"], this_launch(), path=path, port=7797)
    assert state == EntryState.OTHER and "7797" in why


def test_the_readme_and_the_cli_offer_every_client_of_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    """CLIENTS is the one list: the guide's install line names each client and its ``tabmcp setup``
    paragraph each client's file; the README names one and points to ``--help``; the CLI's
    choices, its hint and doctor's fix are read from it."""
    from tabmcp.cli.common import client_snippets
    from tabmcp.cli.doctor import Facts, Status, diagnose

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if x.startswith("tabmcp setup "))
    assert line.split()[2] in CLIENTS and "tabmcp setup --help lists them" in line, line
    guide = (root / "docs" / "guide.md").read_text(encoding="utf-8")
    line = next(x for x in guide.splitlines() if x.startswith("tabmcp setup "))
    named = line.split("#")[0].split()[2:] + line.split("# or", 1)[1].split(";")[0].replace("·", " ").split()
    assert named == list(CLIENTS), f"docs/guide.md's `tabmcp setup` line should name {list(CLIENTS)}"
    section = guide.split("- **`tabmcp setup CLIENT`**", 1)[1].split("\n- ", 1)[0]
    for client in CLIENTS.values():
        assert Path(client.file[1]).name in section, f"docs/guide.md's `tabmcp setup CLIENT` names no file of {client.label}"
    assert f"tabmcp setup {' | '.join(CLIENTS)} " in client_snippets(7797)
    unset = next(c for c in diagnose(Facts()) if c.name == "clients")
    assert unset.status == Status.WARN and f"tabmcp setup {' | '.join(CLIENTS)} " in (unset.fix or "")
    with pytest.raises(SystemExit):
        main(["setup", "no-such-client"])
    err = capsys.readouterr().err
    assert all(key in err for key in CLIENTS), err
