import subprocess
import sys

import pytest
from tabmcp.config import DEFAULT_PORT, Config, load_config
from tabmcp.errors import ConfigError


def test_defaults_without_a_file(tmp_path, monkeypatch):
    monkeypatch.delenv("TABMCP_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    cfg = load_config()
    assert cfg.server.port == DEFAULT_PORT and cfg.server.host == "127.0.0.1"
    assert cfg.disclosure.profile == "categories"


def test_file_and_overrides(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[server]\nport = 9000\n[calls]\ntimeout_s = 2.5\n')
    cfg = load_config(path).with_overrides({"server": {"port": 9100, "host": None}})
    assert cfg.server.port == 9100 and cfg.calls.timeout_s == 2.5


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[server\n", "not valid TOML"),
        ("[server]\nport = 'x'\n", "server.port"),
        ("[server]\nbogus = 1\n", "server.bogus"),
        ("[disclosure]\nprofile = 'everything'\n", "disclosure.profile"),
        ("[server]\nextension_ids = ['nope']\n", "not a Chrome extension ID"),
    ],
)
def test_invalid_files_name_the_problem(tmp_path, text, fragment):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=fragment):
        load_config(path)


def test_missing_explicit_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml")


def test_non_loopback_bind_is_refused_unless_allowed():
    with pytest.raises(ConfigError, match="loopback"):
        Config().with_overrides({"server": {"host": "0.0.0.0"}}).check_binding()
    Config().with_overrides({"server": {"host": "0.0.0.0", "allow_remote": True}}).check_binding()


def test_config_check_cli(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text("[server]\nport = 8123\n")
    out = subprocess.run([sys.executable, "-m", "tabmcp.cli", "config", "check", "--config", str(good)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert '"port": 8123' in out.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\nport = -1\n")
    out = subprocess.run([sys.executable, "-m", "tabmcp.cli", "config", "check", "--config", str(bad)],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "server.port" in out.stderr
