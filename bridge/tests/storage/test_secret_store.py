"""The person's secrets (secret_store.py, ``tabmcp secrets``): names and sites in SQLite, values in
the OS keychain through ``keyring`` or in the fallback file, never in the database or on argv."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from jaraco.classes import properties
from keyring.backend import KeyringBackend
from tabmcp import cli
from tabmcp.cli import doctor
from tabmcp.errors import InvalidSecretName, InvalidSecretSite, InvalidSecretValue, SecretStoreUnavailable, UnknownSecret
from tabmcp.storage.secret_store import KEYRING_SERVICE, FileValues, KeyringValues, SecretStore, keychain_usable

VALUE = "hunter2-correct-horse"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "config.toml").write_text("")  # the defaults, whatever the person running the tests has
    monkeypatch.setenv("TABMCP_CONFIG", str(tmp_path / "config.toml"))
    return tmp_path / "state" / "tabmcp"


def db_text(folder: Path) -> bytes:
    """Every byte SQLite wrote (the file and its WAL)."""
    return b"".join(p.read_bytes() for p in folder.glob("tabmcp.db*"))


def test_the_fallback_file_is_private_and_the_database_never_holds_a_value(state: Path) -> None:
    assert keychain_usable()[0] is False  # this box has no keychain: the fallback is what runs here
    store = SecretStore(state / "tabmcp.db")
    assert isinstance(store.values, FileValues)
    store.set("bank_login", VALUE, ["https://Bank.example:443/login", "https://bank.example"])
    info = store.get("bank_login")
    assert info is not None and info.sites == ("https://bank.example",) and info.last_used is None
    assert store.sites("bank_login") == frozenset({"https://bank.example"})
    assert store.names_for("https://bank.example") == ["bank_login"]
    assert store.names_for("https://evil.example") == []
    assert store.value("bank_login") == VALUE
    store.used(["bank_login"])
    assert store.get("bank_login").last_used is not None  # type: ignore[union-attr]
    store.close()
    file = state / "secrets.json"
    assert stat.S_IMODE(os.stat(file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    assert json.loads(file.read_text()) == {"bank_login": VALUE}
    assert VALUE.encode() not in db_text(state)
    assert not list(state.glob(".secrets.json.*"))  # no temporary file left behind


def test_set_replaces_value_and_sites_and_remove_forgets_both(state: Path) -> None:
    store = SecretStore(state / "tabmcp.db")
    store.set("api_key", VALUE, ["https://a.example", "https://b.example"])
    store.set("api_key", "another-value", ["https://b.example"])
    assert store.sites("api_key") == frozenset({"https://b.example"}) and store.value("api_key") == "another-value"
    store.unbind("api_key", "https://b.example")
    assert store.sites("api_key") == frozenset()
    store.remove("api_key")
    assert store.get("api_key") is None and store.value("api_key") is None
    with pytest.raises(UnknownSecret):
        store.remove("api_key")


@pytest.mark.parametrize("name", ["", "1st", "bank-login", "a b", "x" * 65, "{{secret:x}}", "é"])
def test_a_name_that_is_not_an_identifier_is_refused_by_name(state: Path, name: str) -> None:
    with pytest.raises(InvalidSecretName):
        SecretStore(state / "tabmcp.db").set(name, VALUE, ["https://a.example"])
    assert not (state / "secrets.json").exists()


@pytest.mark.parametrize(("value", "error"), [("abc", InvalidSecretValue), ("two\nlines", InvalidSecretValue)])
def test_a_value_that_cannot_be_masked_safely_is_refused(state: Path, value: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        SecretStore(state / "tabmcp.db").set("ok_name", value, ["https://a.example"])


@pytest.mark.parametrize("site", ["file:///etc/passwd", "bank.example", "javascript:alert(1)"])
def test_a_site_that_is_not_an_http_origin_is_refused(state: Path, site: str) -> None:
    with pytest.raises(InvalidSecretSite):
        SecretStore(state / "tabmcp.db").set("ok_name", VALUE, [site])


class _MemoryKeychain(KeyringBackend):
    """A keyring backend (keyring's own backend API, as Secret Service's is), kept in memory; never
    chosen by keyring's own discovery (it is not viable), only set by the fixture below."""

    @properties.classproperty
    def priority(cls) -> float:
        raise RuntimeError("only the keychain fixture uses this backend")

    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.kept.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.kept[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if self.kept.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


@pytest.fixture
def keychain() -> object:
    before = keyring.get_keyring()
    backend = _MemoryKeychain()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


def test_with_a_keychain_values_go_there_and_nowhere_else(state: Path, keychain: _MemoryKeychain) -> None:
    store = SecretStore(state / "tabmcp.db")
    assert isinstance(store.values, KeyringValues) and "_MemoryKeychain" in store.values.label
    store.set("bank_login", VALUE, ["https://bank.example"])
    assert keychain.kept == {(KEYRING_SERVICE, "bank_login"): VALUE}
    assert store.value("bank_login") == VALUE
    assert not (state / "secrets.json").exists()
    store.remove("bank_login")
    assert keychain.kept == {}
    store.close()
    assert VALUE.encode() not in db_text(state)


def test_store_secrets_keychain_refuses_to_fall_back(state: Path) -> None:
    with pytest.raises(SecretStoreUnavailable):
        SecretStore(state / "tabmcp.db", kind="keychain")


def _tabmcp(*args: str, stdin: str = "", env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tabmcp", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=60, check=False)


def test_the_three_commands_through_the_cli_never_show_a_value(state: Path, tmp_path: Path) -> None:
    env = {**os.environ}
    made = _tabmcp("secrets", "set", "bank_login", "--site", "https://bank.example", stdin=VALUE + "\n", env=env)
    assert made.returncode == 0, made.stderr
    assert "{{secret:bank_login}}" in made.stdout and VALUE not in made.stdout + made.stderr
    dotenv = tmp_path / ".env"
    dotenv.write_text("# from Playwright MCP\nAPI_KEY=abcd-1234\nexport SHOP_PIN='pin 9876'\n")
    imported = _tabmcp("secrets", "import", str(dotenv), "--site", "https://shop.example", env=env)
    assert imported.returncode == 0 and "kept 2 secret(s)" in imported.stdout, imported.stderr
    listed = _tabmcp("secrets", "list", "--json", env=env)
    data = json.loads(listed.stdout)
    assert [(s["name"], s["sites"]) for s in data["secrets"]] == [
        ("API_KEY", ["https://shop.example"]), ("SHOP_PIN", ["https://shop.example"]),
        ("bank_login", ["https://bank.example"])]
    assert "secrets.json" in data["store"]
    for secret in (VALUE, "abcd-1234", "pin 9876"):
        assert secret not in listed.stdout + listed.stderr
    assert _tabmcp("secrets", "remove", "API_KEY", env=env).returncode == 0
    refused = _tabmcp("secrets", "set", "bad-name", "--site", "https://a.example", stdin=VALUE, env=env)
    assert refused.returncode == 1 and "not a secret name" in refused.stderr
    assert json.loads((state / "secrets.json").read_text()) == {"SHOP_PIN": "pin 9876", "bank_login": VALUE}


def test_the_value_is_never_an_argument(state: Path) -> None:
    with pytest.raises(SystemExit):  # argparse: no positional for a value
        cli.main(["secrets", "set", "bank_login", VALUE, "--site", "https://bank.example"])
    assert not (state / "secrets.json").exists()


def test_doctor_says_which_store_is_in_use(state: Path) -> None:
    facts = doctor.Facts()
    doctor._gather_secrets(facts, None)
    checks = {c.name: c for c in doctor.diagnose(facts)}
    assert checks["secrets"].status == doctor.Status.OK and "secrets.json" in checks["secrets"].detail
    facts = doctor.Facts(secrets_error="no usable OS keychain")
    assert {c.name: c for c in doctor.diagnose(facts)}["secrets"].status == doctor.Status.FAIL


def test_the_database_schema_holds_no_value_column(state: Path) -> None:
    SecretStore(state / "tabmcp.db").close()
    db = sqlite3.connect(state / "tabmcp.db")
    columns = {row[1] for table in ("secrets", "secret_sites") for row in db.execute(f"PRAGMA table_info({table})")}
    assert columns == {"name", "created", "last_used", "origin"}


def test_a_database_in_memory_keeps_its_values_in_memory(state: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = SecretStore(":memory:")
    store.set("api_key", VALUE, ["https://a.example"])
    assert store.value("api_key") == VALUE and "memory" in store.values.label
    assert not list(tmp_path.rglob("secrets.json"))  # never a file beside ":memory:" (the working folder)


def test_on_a_terminal_the_value_is_asked_twice_without_echo(state: Path) -> None:
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: tabmcp on a terminal
        os.execv(sys.executable, [sys.executable, "-m", "tabmcp", "secrets", "set", "bank_login",
                                  "--site", "https://bank.example"])
    seen = b""

    def read_until(marker: bytes) -> None:
        nonlocal seen
        while marker not in seen:
            chunk = os.read(fd, 1024)
            assert chunk, seen
            seen += chunk

    read_until(b"value of bank_login: ")
    os.write(fd, VALUE.encode() + b"\n")
    read_until(b"(again): ")
    os.write(fd, VALUE.encode() + b"\n")
    read_until(b"agents pass it as")
    with contextlib.suppress(OSError):  # the terminal closes with the child
        while os.read(fd, 1024):
            pass
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen
    assert VALUE.encode() not in seen  # never echoed
    assert json.loads((state / "secrets.json").read_text()) == {"bank_login": VALUE}
