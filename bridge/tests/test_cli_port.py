"""One rule for the bridge's port (config.bridge_target), in every command that takes ``--port``:
``--port`` beats the config's ``server.port``, which beats the default. Each command is run for
real against a port that only records who knocked (and hangs up), so what is checked is where the
command went, not what it meant to do; ``setup`` connects nowhere and is read from the entry it
prints, ``browser`` from the port it hands the agent browser."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tabmcp.cli import main
from tabmcp.config import DEFAULT_PORT, bridge_target
from tabmcp.errors import ConfigError
from tabmcp.launch import agent_browser


class Knocks:
    """A loopback port that counts connections and closes each at once."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.count = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.count += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def ports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Knocks, Knocks]]:
    """(the config's port, the --port one); the config is TABMCP_CONFIG, as every command reads it,
    and the control key a private one (``pair`` wants a key before it connects)."""
    configured, flagged = Knocks(), Knocks()
    config = tmp_path / "tabmcp.toml"
    config.write_text(f"[server]\nport = {configured.port}\n")
    monkeypatch.setenv("TABMCP_CONFIG", str(config))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    key = tmp_path / "state" / "tabmcp" / "control.key"
    key.parent.mkdir(parents=True)
    key.write_text("k" * 43 + "\n")
    yield configured, flagged
    configured.close()
    flagged.close()


def _knocked(port: Knocks, timeout: float = 10.0) -> bool:
    """Whether ``port`` saw a connection (its accepting thread may lag the command on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while port.count == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    return port.count > 0


def _run(argv: list[str]) -> None:
    try:
        main(argv)
    except BaseException:  # what the command makes of a port that hangs up is not the point
        pass


CONNECTING = {
    "doctor": ["doctor", "--json", "--no-load"],
    "pair": ["pair", "--list"],
    "tools": ["tools"],
    "call": ["call", "page_title"],
    "tokens": ["tokens"],
}


@pytest.mark.parametrize("command", sorted(CONNECTING))
def test_port_beats_the_config_and_the_config_beats_the_default(command: str, ports: tuple[Knocks, Knocks],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    configured, flagged = ports
    _run(CONNECTING[command])
    assert _knocked(configured), f"tabmcp {command} did not go to the config's port"
    before = configured.count
    _run([*CONNECTING[command], "--port", str(flagged.port)])
    assert _knocked(flagged) and configured.count == before, f"tabmcp {command} --port went elsewhere"


def test_setup_writes_the_port_by_the_same_rule(ports: tuple[Knocks, Knocks],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    configured, flagged = ports
    capsys.readouterr()
    assert main(["setup", "--print", "--http"]) == 0
    assert f"http://127.0.0.1:{configured.port}/mcp" in capsys.readouterr().out
    assert main(["setup", "--print", "--http", "--port", str(flagged.port)]) == 0
    assert f"http://127.0.0.1:{flagged.port}/mcp" in capsys.readouterr().out


def test_browser_goes_to_the_port_by_the_same_rule(ports: tuple[Knocks, Knocks],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    configured, flagged = ports
    seen: list[int] = []

    async def run_browser(**kwargs: Any) -> int:
        seen.append(kwargs["port"])
        return 0

    monkeypatch.setattr(agent_browser, "run_browser", run_browser)
    assert main(["browser"]) == 0
    assert main(["browser", "--port", str(flagged.port)]) == 0
    assert seen == [configured.port, flagged.port]


def test_the_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABMCP_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    assert bridge_target(None).port == DEFAULT_PORT
    assert bridge_target(8123).port == 8123
    config = tmp_path / "c.toml"
    config.write_text("[server]\nport = 8200\n")
    assert bridge_target(None, config).port == 8200 and bridge_target(8123, config).port == 8123
    config.write_text("[server]\nport = 'many'\n")
    broken = bridge_target(None, config)
    assert broken.port == DEFAULT_PORT and isinstance(broken.error, ConfigError)


def test_a_config_that_does_not_load_is_said_and_the_command_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[server]\nport = 'many'\n")
    monkeypatch.setenv("TABMCP_CONFIG", str(config))
    capsys.readouterr()
    assert main(["setup", "--print", "--http", "--port", "8123"]) == 0
    out, err = capsys.readouterr()
    assert "http://127.0.0.1:8123/mcp" in out and f"tabmcp: {config}" in err and "using port 8123" in err
