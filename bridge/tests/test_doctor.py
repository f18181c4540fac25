"""``tabmcp doctor``: each broken link is named with its fix and makes the exit code non-zero; a
healthy chain passes. The rules on facts made by hand, then the facts of a real bridge."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from tabmcp import __version__
from tabmcp.cli import main
from tabmcp.cli.clients import EntryState
from tabmcp.cli.doctor import Check, Facts, Install, Status, diagnose, exit_code, gather
from tabmcp.model import ModelStatus
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import PROTOCOL_VERSION
from tabmcp.server.app import BridgeApp
from tabmcp.storage.files import state_dir

from .helpers import ScriptedExtension

HEALTHY = Facts(
    python=(3, 12, 1), executable="/venv/bin/python", version=__version__, extension_dir="/venv/ext",
    extension_manifest=True, extension_version=__version__, polyfill_staged=True, config_path="/nope.toml",
    port=7797, port_open=True, health={"ok": True, "bridge": __version__},
    full_health={"ok": True, "bridge": __version__, "extension": {"connected": True, "version": __version__},
                 "tabs": 2, "nativeTabs": 2},
    control_key=True, model=ModelStatus(name="m", present=True, loadable=True), secrets_store="OS keychain",
    clients={"cursor": (str(EntryState.CURRENT), "tabmcp → /venv/bin/tabmcp"),
             "vscode": (str(EntryState.NO_FILE), "no file")},
)


def _by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def test_a_healthy_chain_passes() -> None:
    checks = diagnose(HEALTHY)
    assert exit_code(checks) == 0, [c for c in checks if c.status != Status.OK]
    named = _by_name(checks)
    for name in ("python", "install", "config", "port", "bridge", "extension", "webmcp", "model", "client:cursor"):
        assert named[name].status == Status.OK, named[name]


def _full(**extension: object) -> dict[str, object]:
    return {**(HEALTHY.full_health or {}), "extension": {"connected": True, "version": __version__, **extension}}


BROKEN = {
    "python": replace(HEALTHY, python=(3, 10, 4)),
    "install": replace(HEALTHY, extension_manifest=False),
    "config": replace(HEALTHY, config_error="config.toml: server.port: not an integer"),
    "port": replace(HEALTHY, health=None, full_health=None),
    "bridge": replace(HEALTHY, health={"ok": True, "bridge": "0.0.9"}),
    "extension": replace(HEALTHY, full_health=_full(connected=False)),
    "extension version": replace(HEALTHY, full_health=_full(version="0.0.9")),
    "model": replace(HEALTHY, model=ModelStatus(name="m", present=False, missing=["the model weights"])),
    "model load": replace(HEALTHY, model=ModelStatus(name="m", present=True, loadable=False, error="bad")),
    "secrets": replace(HEALTHY, secrets_store="", secrets_error="no OS keychain, and store.secrets = \"keychain\""),
    "client:cursor": replace(HEALTHY, clients={"cursor": (str(EntryState.OTHER), "runs /old/bin/tabmcp")}),
}


GUIDE_NAMES = {
    "python": "Python", "install": "the install", "config": "the config", "port": "the port",
    "bridge": "the bridge", "extension": "the connected extension", "webmcp": "native WebMCP",
    "loop": "the bridge's event loop", "model": "the search model", "secrets": "secrets' values",
    "client": "every client's config", "clients": "every client's config",
}
"""How docs/guide.md's ``tabmcp doctor`` paragraph names each check (a new check: one line here)."""


def test_the_guide_names_every_check() -> None:
    """A check is its fact and rule in cli/doctor.py, its broken case above, and its words in the
    guide (docs/architecture.md's recipe); this fails when the guide's list misses one."""
    produced = {c.name.split(":")[0] for facts in (HEALTHY, *BROKEN.values()) for c in diagnose(facts)}
    assert produced == set(GUIDE_NAMES), "a check without its words in GUIDE_NAMES (and docs/guide.md)"
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text(encoding="utf-8")
    paragraph = " ".join(guide[guide.index("- **`tabmcp doctor`** checks"):].split("\n- ", 1)[0].split())
    assert [name for name, words in GUIDE_NAMES.items() if words not in paragraph] == []


@pytest.mark.parametrize("link", sorted(BROKEN))
def test_each_broken_link_fails_with_its_fix(link: str) -> None:
    checks = diagnose(BROKEN[link])
    failed = [c for c in checks if c.status == Status.FAIL]
    assert exit_code(checks) == 1
    assert failed[0].name == link.split()[0], failed
    assert failed[0].fix, f"{link}: no fix given"


def test_a_browser_waiting_to_pair_is_told_how() -> None:
    checks = _by_name(diagnose(replace(BROKEN["extension"], pending_pairings=["Chromium on Linux"])))
    assert checks["extension"].status == Status.FAIL and "Chromium on Linux waits to pair" in checks["extension"].detail
    assert "tabmcp pair CODE" in (checks["extension"].fix or "")


def test_no_native_webmcp_is_a_warning_with_the_flag() -> None:
    checks = _by_name(diagnose(replace(HEALTHY, full_health={**(HEALTHY.full_health or {}), "nativeTabs": 0})))
    assert checks["webmcp"].status == Status.WARN
    assert "--enable-features=WebMCP" in (checks["webmcp"].fix or "")


def test_a_stopped_bridge_skips_what_needs_it() -> None:
    checks = _by_name(diagnose(replace(HEALTHY, port_open=False, health=None, full_health=None)))
    assert checks["port"].status == Status.OK and checks["bridge"].status == Status.FAIL
    assert checks["extension"].status == Status.SKIP and checks["webmcp"].status == Status.SKIP


async def test_doctor_reads_a_running_bridge(bridge: BridgeApp, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A real bridge: up, and the connected extension's version (``test``) is not the bridge's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(state_dir().parent))  # the bridge's control key, as before
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert bridge.port is not None
    facts = await asyncio.to_thread(gather, port=bridge.port, load_model=False)
    checks = _by_name(diagnose(facts))
    assert checks["bridge"].status == Status.OK
    assert checks["extension"].status == Status.FAIL and "no browser extension" in checks["extension"].detail

    unpaired = ScriptedExtension(bridge.port, paired=False)
    await unpaired.connect(hello=False)
    await unpaired.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extensionVersion": "test",
                         "extensionId": EXTENSION_ID, "browser": "Mozilla/5.0 Chrome/131.0.0.0"})
    await unpaired.wait_for(lambda m: m["type"] == "pair.required")
    await unpaired.send({"type": "pair.request"})
    await unpaired.wait_for(lambda m: m["type"] == "pair.code")
    facts = await asyncio.to_thread(gather, port=bridge.port, load_model=False)
    await unpaired.close()
    assert "Chrome 131 waits to pair" in _by_name(diagnose(facts))["extension"].detail

    ext = ScriptedExtension(bridge.port)
    await ext.connect()
    try:
        await ext.sync({"tabId": 1, "url": "https://a.example/", "origin": "https://a.example", "native": True,
                        "tools": []})

        async def native_seen() -> Facts:
            deadline = asyncio.get_running_loop().time() + 20
            while asyncio.get_running_loop().time() < deadline:
                facts = await asyncio.to_thread(gather, port=bridge.port, load_model=False)
                if (facts.full_health or {}).get("nativeTabs"):
                    return facts
                await asyncio.sleep(0.05)
            raise AssertionError("the bridge's status never showed the native tab")

        checks = _by_name(diagnose(await native_seen()))
        assert checks["extension"].status == Status.FAIL and "test" in checks["extension"].detail
        assert checks["webmcp"].status == Status.OK
    finally:
        await ext.close()


class CountingProxy:
    """A loopback port in front of a real bridge that counts the ``/health`` requests through it."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.health = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> int:
        self.server = await asyncio.start_server(self._pipe, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def __aexit__(self, *_: object) -> None:
        assert self.server is not None
        self.server.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)

        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter, count: bool) -> None:
            try:
                while data := await src.read(65536):
                    if count:  # one request per line that starts one (httpx: a request per connection)
                        self.health += sum(line.startswith(b"GET /health ") for line in data.split(b"\r\n"))
                    dst.write(data)
                    await dst.drain()
            except ConnectionError:
                pass
            finally:
                dst.close()

        await asyncio.gather(copy(reader, up_writer, True), copy(up_reader, writer, False))


async def test_doctor_asks_health_once(bridge: BridgeApp, extension: ScriptedExtension,
                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(state_dir().parent))  # the bridge's control key
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert bridge.port is not None
    proxy = CountingProxy(bridge.port)
    async with proxy as port:
        facts = await asyncio.to_thread(gather, port=port, load_model=False)
    checks = _by_name(diagnose(facts))
    assert checks["bridge"].status == Status.OK and facts.full_health is not None
    assert checks["extension"].status == Status.FAIL and "test" in checks["extension"].detail  # read in full
    assert proxy.health == 1, f"doctor asked /health {proxy.health} times"


def test_doctor_json_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    code = main(["doctor", "--json", "--port", "9", "--no-load"])  # nothing answers on port 9
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["ok"] is False
    bridge = next(c for c in report["checks"] if c["name"] == "bridge")
    assert bridge["status"] == "fail" and bridge["fix"]


def test_a_bridge_the_client_starts_is_not_running_yet_not_a_failure() -> None:
    """setup → browser → doctor, before the client's first start: a stdio client config that runs
    this installation starts the bridge itself, so its absence is the normal state."""
    stopped = replace(HEALTHY, port_open=False, health=None, full_health=None)
    waiting = _by_name(diagnose(replace(stopped, starters=["cursor"])))
    assert waiting["bridge"].status == Status.OK and "not running yet: Cursor starts it" in waiting["bridge"].detail
    assert exit_code(list(waiting.values())) == 0
    assert waiting["extension"].status == Status.SKIP and "start your client" in waiting["extension"].detail
    # No client starts it (none set up, or only by URL): the bridge must be started, a failure.
    assert _by_name(diagnose(stopped))["bridge"].status == Status.FAIL
    # Something else on the port is never "not running yet".
    taken = _by_name(diagnose(replace(stopped, port_open=True, starters=["cursor"])))
    assert taken["port"].status == Status.FAIL and taken["bridge"].status == Status.FAIL


def test_only_a_stdio_entry_of_this_installation_starts_the_bridge(tmp_path: Path) -> None:
    from tabmcp.cli.clients import CLIENTS, plan, this_launch
    from tabmcp.control_key import port_listening

    port = next(p for p in range(47_911, 48_000) if not port_listening(p))
    cursor, vscode = (CLIENTS[k].config_path(home=tmp_path) for k in ("cursor", "vscode"))
    cursor.parent.mkdir(parents=True)
    cursor.write_text(plan(CLIENTS["cursor"], this_launch(port=port), path=cursor).after)
    vscode.parent.mkdir(parents=True)
    vscode.write_text(json.dumps({"servers": {"tabmcp": {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}}}))
    facts = gather(port=port, home=tmp_path, load_model=False)
    assert facts.clients["vscode"][0] == EntryState.CURRENT and facts.starters == ["cursor"]
    assert _by_name(diagnose(facts))["bridge"].status == Status.OK


_WHEEL = "/tmp/dist/tabmcp-0.1.0-py3-none-any.whl"


@pytest.mark.parametrize(("install", "fix"), [
    # A checkout stages: the fix is setup, in that checkout.
    (Install(kind="checkout", root="/src/tabmcp"), "in /src/tabmcp: ./dev setup (it stages the search model)"),
    # A wheel built without the model: reinstalling that wheel changes nothing; a complete one does.
    (Install(kind="pipx", source=_WHEEL), "this wheel was built without the search model"),
    (Install(kind="pip"), "the wheel installed was built without the search model"),
    # The wheel had it and a file is gone: reinstalling the same source mends it, with the same tool.
    (Install(kind="pipx", source=_WHEEL, recorded=["tabmcp/_model/all-MiniLM-L6-v2/model-q8.onnx"]),
     f"reinstall: pipx install --force {_WHEEL}"),
    (Install(kind="pip", recorded=["tabmcp/_model/all-MiniLM-L6-v2/model-q8.onnx"]),
     "-m pip install --force-reinstall --no-deps tabmcp"),
    (Install(kind="pip", source=_WHEEL, pip=False, recorded=["tabmcp/_model/all-MiniLM-L6-v2/model-q8.onnx"]),
     f"pip --python {sys.executable} install --force-reinstall --no-deps {_WHEEL}"),
    (Install(kind="uv", recorded=["tabmcp/_model/all-MiniLM-L6-v2/model-q8.onnx"]), "uv tool install --reinstall tabmcp"),
])
def test_the_model_fix_fits_the_installation(install: Install, fix: str) -> None:
    checks = _by_name(diagnose(replace(BROKEN["model"], install=install)))
    assert fix in (checks["model"].fix or ""), checks["model"].fix
    if "built without" in fix:
        assert "pip wheel" in (checks["model"].fix or "") and "--force" in (checks["model"].fix or "")


def test_this_checkout_is_told_to_run_setup() -> None:
    install = gather(port=9, load_model=False).install
    assert install.kind == "checkout" and install.root and Path(install.root, "dev").exists()
