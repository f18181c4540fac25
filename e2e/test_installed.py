"""The built wheel, installed as a person installs it: a fresh virtualenv outside the checkout,
offline (the wheel's packages from ``.wheelhouse``, which ``./dev setup`` fills). There, with
nothing of the repository on the path: the search model loads, ``tabmcp setup`` writes what the
clients expect into a scratch home, and the installed ``tabmcp browser`` loads the installed
extension into real Chromium (paired with a stored pairing ``tabmcp pair --list`` shows), where a
page tool is called through the installed bridge with the official MCP client. One wheel and one
virtualenv for the whole session."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from tabmcp.core.search.semantic import BUNDLED_TOKENIZER, BUNDLED_WEIGHTS, DEFAULT_MODEL
from tabmcp.testing import missing_from_setup

from bench._installed import WHEELHOUSE, Installed, build_wheel, install, serving

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    if not WHEELHOUSE.is_dir() or not any(WHEELHOUSE.glob("*.whl")):
        missing_from_setup(f"no {WHEELHOUSE} (./dev setup downloads the wheel's dependencies there)")
    base = tmp_path_factory.mktemp("installed")
    yield install(base / "venv", build_wheel(base / "dist"), compile=False)


def _needs_the_model() -> None:
    """The wheel carries the tokenizer and weights ./dev setup staged (not with TABMCP_NO_SEMANTIC=1)."""
    for part in (BUNDLED_TOKENIZER, BUNDLED_WEIGHTS):
        if not part.exists():
            missing_from_setup(f"no {part}: ./dev setup stages it", opted_out="TABMCP_NO_SEMANTIC")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def test_the_installed_package_runs_outside_the_checkout(installed: Installed, home: Path) -> None:
    _needs_the_model()
    done = installed.run("--version", home=home)
    assert done.returncode == 0, done.stderr
    assert f"search model {DEFAULT_MODEL}" in done.stdout, done.stdout
    where = subprocess.run(
        [str(installed.python), "-c", "import tabmcp; print(tabmcp.__file__)"], cwd=home,
        env=installed.env(home), capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(installed.venv)), f"tabmcp imported from {where}, not the virtualenv"
    # The licenses of what the wheel carries are stated in its metadata.
    meta = subprocess.run(
        [str(installed.python), "-c", "import importlib.metadata as m; d = m.distribution('tabmcp'); "
         "print(d.metadata['License-Expression']); print(*sorted(str(f) for f in d.files if 'licenses' in str(f)))"],
        cwd=home, env=installed.env(home), capture_output=True, text=True, check=True).stdout
    assert meta.splitlines()[0] == "MIT AND Apache-2.0"
    for name in ("LICENSE", "NOTICE", "Apache-2.0.txt"):
        assert f"/{name}" in meta, meta


def test_doctor_reports_the_model_loadable(installed: Installed, home: Path) -> None:
    _needs_the_model()
    done = installed.run("doctor", "--json", home=home)
    report = json.loads(done.stdout)
    assert report["model"]["present"] and report["model"]["loadable"], report["model"]
    assert report["model"]["tokenizer"].startswith(str(installed.venv))
    assert report["model"]["weights"].startswith(str(installed.venv))  # carried in the wheel, no other package
    model = next(c for c in report["checks"] if c["name"] == "model")
    assert model["status"] == "ok"
    # Nothing runs: the bridge link fails, so the exit code says something is wrong.
    assert done.returncode == 1 and next(c for c in report["checks"] if c["name"] == "bridge")["status"] == "fail"


def test_setup_writes_what_the_clients_expect(installed: Installed, home: Path) -> None:
    desktop = home / ".config" / "Claude" / "claude_desktop_config.json"
    dry = installed.run("setup", "claude-desktop", "--dry-run", home=home)
    assert dry.returncode == 0, dry.stderr
    assert f'"command": "{installed.tabmcp}"' in dry.stdout and not desktop.exists()

    done = installed.run("setup", "vscode", home=home)
    assert done.returncode == 0, done.stderr
    written = json.loads((home / ".config" / "Code" / "User" / "mcp.json").read_text())
    assert written == {"servers": {"tabmcp": {"type": "stdio", "command": str(installed.tabmcp),
                                              "args": ["serve", "--stdio"]}}}
    done = installed.run("doctor", "--json", "--no-load", home=home)
    doctor = json.loads(done.stdout)
    checks = {c["name"]: c for c in doctor["checks"]}
    assert checks["client:vscode"]["status"] == "ok"
    # The README's order (setup, browser, doctor): VS Code starts the bridge, so its absence is no failure.
    assert checks["bridge"]["status"] == "ok" and "VS Code starts it" in checks["bridge"]["detail"], checks["bridge"]
    assert done.returncode == 0, [c for c in doctor["checks"] if c["status"] == "fail"]
    # doctor knows where this installation came from (its fixes reinstall from there).
    assert doctor["install"]["kind"] == "pip" and str(doctor["install"]["source"]).endswith(".whl"), doctor["install"]


async def test_a_page_tool_through_the_installed_bridge(installed: Installed, home: Path, pages_url: str) -> None:
    async with serving(installed, home, pages_url + "basic.html", tools=6) as served:
        async with Client(served.mcp_url) as client:
            result = await client.call_tool("page_title", {})
        assert not result.is_error, result
        assert "Basic tools" in json.dumps(result.model_dump(mode="json"))
        # Every link is up now: the installed doctor sees the extension of its own version, native
        # WebMCP in the page (tabmcp browser turns it on).
        doctor = installed.run("doctor", "--json", "--no-load", "--port", str(served.port), home=home)
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
        for link in ("install", "port", "bridge", "extension", "webmcp"):
            assert checks[link]["status"] == "ok", checks[link]
        # tabmcp browser paired with a stored pairing the person sees (and can revoke) by its profile.
        pairs = json.loads(installed.run("pair", "--list", "--json", "--port", str(served.port), home=home).stdout)
        assert [(p["label"], p["ephemeral"]) for p in pairs["pairings"]] == [
            ("tabmcp browser (profile ~/browser-profile)", False)]
        assert pairs["pairings"][0]["id"] in pairs["linked"]


def test_doctors_fix_mends_the_installation_it_is_printed_in(installed: Installed, home: Path) -> None:
    """A file of the wheel gone (the tokenizer): doctor's fix is a command for this installation (a
    virtualenv without pip, from a wheel file), and running it as printed mends it. Last in the
    file: it damages the session's installation before it mends it."""
    _needs_the_model()
    tokenizer = next(installed.venv.glob("lib/python*/site-packages/tabmcp/_model/all-MiniLM-L6-v2/tokenizer.json"))
    tokenizer.unlink()
    broken = json.loads(installed.run("doctor", "--json", "--no-load", home=home).stdout)
    model = next(c for c in broken["checks"] if c["name"] == "model")
    assert model["status"] == "fail", model
    fix = model["fix"].removeprefix("reinstall: ")
    assert fix.startswith(f"pip --python {installed.venv}") and fix.endswith(".whl"), fix
    done = subprocess.run(fix, shell=True, cwd=home, env=installed.env(home), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    mended = json.loads(installed.run("doctor", "--json", "--no-load", home=home).stdout)
    assert next(c for c in mended["checks"] if c["name"] == "model")["status"] == "ok" and tokenizer.exists()
