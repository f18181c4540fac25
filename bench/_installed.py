"""tabmcp as a person installs it: the built wheel in a fresh virtualenv outside the checkout, its
own ``tabmcp serve`` and ``tabmcp browser`` (the extension from the installed package), reached by
the official MCP client. Shared by the installed-wheel test (e2e/test_installed.py) and
``./dev bench install``.

The install is offline: the wheel's dependencies come from ``.wheelhouse``, which ``./dev setup``
fills (``pip download``), as a second machine of the same person would have them in its cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

__all__ = ["ROOT", "WHEELHOUSE", "Installed", "build_wheel", "install", "serving"]

ROOT = Path(__file__).resolve().parent.parent
WHEELHOUSE = ROOT / ".wheelhouse"


def build_wheel(out: Path) -> Path:
    """``pip wheel`` of the checkout (hatchling from the dev environment: no download)."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-w", str(out), str(ROOT)], check=True, capture_output=True)
    wheels = sorted(out.glob("tabmcp-*.whl"))
    assert wheels, f"pip wheel left no tabmcp wheel in {out}"
    return wheels[-1]


@dataclass
class Installed:
    venv: Path
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def bin(self) -> Path:
        return self.venv / ("Scripts" if os.name == "nt" else "bin")

    @property
    def tabmcp(self) -> Path:
        return self.bin / "tabmcp"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        """A person's environment: no checkout on the path, a home and state of their own."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "XDG_"))}
        env.update(HOME=str(home), XDG_STATE_HOME=str(home / ".local" / "state"), PATH=f"{self.bin}{os.pathsep}"
                   f"{env.get('PATH', '')}", **extra)
        return env

    def run(self, *args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``tabmcp ARGS`` from the installed script, in ``home`` (outside the checkout)."""
        return subprocess.run([str(self.tabmcp), *args], cwd=home, env=self.env(home), capture_output=True,
                              text=True, timeout=timeout)


def install(venv: Path, wheel: Path, wheelhouse: Path = WHEELHOUSE, *, compile: bool = True) -> Installed:
    """``python -m venv`` + ``pip install WHEEL`` (offline, from ``wheelhouse``). ``compile=False``
    skips pip's byte-compiling of every module (tests: only what runs gets compiled, on import)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    installed = Installed(venv)
    installed.timings["venv"] = time.perf_counter() - start
    start = time.perf_counter()
    # The dev environment's pip installs into the new one (--python): the same as its own pip would,
    # without bootstrapping pip into it first.
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(installed.python), "install", "-q",
                           "--disable-pip-version-check", "--no-index", "--find-links", str(wheelhouse),
                           *([] if compile else ["--no-compile"]), str(wheel)],
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"pip install {wheel.name} failed:\n{done.stderr[-3000:]}")
    installed.timings["pip install"] = time.perf_counter() - start
    return installed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _wait(check: object, what: str, timeout: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    assert callable(check)
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise AssertionError(f"{what}: the process exited ({proc.returncode}): {err[-3000:]}")
        if await check():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        await asyncio.sleep(0.1)


@dataclass
class Serving:
    port: int
    home: Path
    timings: dict[str, float]

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@contextlib.asynccontextmanager
async def serving(installed: Installed, home: Path, page_url: str, *, tools: int = 1) -> AsyncIterator[Serving]:
    """The installed ``tabmcp serve`` and ``tabmcp browser PAGE_URL`` (headless, its own profile),
    until the page's ``tools`` tools are listed by the bridge."""
    port = free_port()
    config = home / "tabmcp.toml"
    config.write_text(f'[server]\nport = {port}\n[store]\npath = "{home / "tabmcp.db"}"\n'
                      '[policy]\nallow_writes = true\n')
    env = installed.env(home, TABMCP_CONFIG=str(config))
    timings: dict[str, float] = {}
    start = time.perf_counter()
    bridge = subprocess.Popen([str(installed.tabmcp), "serve"], cwd=home, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    browser: subprocess.Popen[bytes] | None = None
    try:
        async with httpx.AsyncClient(timeout=5) as http:
            async def up() -> bool:
                try:
                    return (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200
                except httpx.HTTPError:
                    return False

            await _wait(up, "the installed bridge", 60, bridge)
            timings["bridge up"] = time.perf_counter() - start
            start = time.perf_counter()
            browser = subprocess.Popen(
                [str(installed.tabmcp), "browser", page_url, "--headless", "--exit-after", "600",
                 "--profile-dir", str(home / "browser-profile")],
                cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            key_file = home / ".local" / "state" / "tabmcp" / "control.key"

            async def listed() -> bool:
                headers = {"Authorization": f"Bearer {key_file.read_text().strip()}"}
                health = (await http.get(f"http://127.0.0.1:{port}/health", headers=headers)).json()
                return bool(health.get("extension", {}).get("connected")) and health.get("tools", 0) >= tools

            await _wait(listed, "the installed extension connected with the page's tools", 90, browser)
            timings["browser + page tools"] = time.perf_counter() - start
        yield Serving(port, home, timings)
    finally:
        for proc in (browser, bridge):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGINT)  # as Ctrl-C: tabmcp closes its browser and its files
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)
