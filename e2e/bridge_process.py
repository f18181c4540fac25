"""A bridge as the person runs it: ``tabmcp serve`` in a process of its own, with its own SQLite
file, a real Chromium with the extension pointed at it, and the ``tabmcp`` CLI beside it.

For tests where the process boundary is the point: what reaches the file while the bridge
runs, what survives a ``kill -9``, what a CLI change in another process does to the running
bridge.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from mcp import Client
from tabmcp.control_key import control_headers
from tabmcp.launch.launcher import ExtensionBrowser, launch_browser

from .conftest import eventually

__all__ = ["BridgeProcess", "bridge_process"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class BridgeProcess:
    process: subprocess.Popen[bytes]
    port: int
    config: Path
    db: Path
    browser: ExtensionBrowser | None = None

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def client(self, **kwargs: Any) -> Client:
        return Client(self.mcp_url, **kwargs)

    async def health(self) -> dict[str, Any]:
        """The bridge's whole status: asked with the person's control key, as ``tabmcp`` does (without
        it ``/health`` says only that the bridge is alive)."""
        async with httpx.AsyncClient(timeout=10) as http:
            status: dict[str, Any] = (await http.get(f"http://127.0.0.1:{self.port}/health",
                                                     headers=control_headers())).json()
            return status

    def kill(self) -> None:
        """``kill -9``: no shutdown handler runs, nothing pending is written."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read the bridge's SQLite file directly, as another process does."""
        db = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return db.execute(sql, params).fetchall()
        except sqlite3.OperationalError:  # the table does not exist yet
            return []
        finally:
            db.close()

    async def cli(self, *args: str) -> Any:
        """Run ``tabmcp ARGS --config …`` in a process of its own; its JSON output (``--json``) or text."""
        out = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "tabmcp.cli", *args, "--config", str(self.config)],
            capture_output=True, text=True, timeout=60,
        )
        assert out.returncode == 0, f"tabmcp {' '.join(args)} failed ({out.returncode}): {out.stderr}"
        return json.loads(out.stdout) if "--json" in args else out.stdout


@contextlib.asynccontextmanager
async def bridge_process(tmp_path: Path, *, browser: bool = True, toml: str = "") -> AsyncIterator[BridgeProcess]:
    """``tabmcp serve`` on a free port with its database in ``tmp_path``, and (unless
    ``browser=False``) Chromium with the extension connected to it."""
    port = _free_port()
    db = tmp_path / "tabmcp.db"
    config = tmp_path / "config.toml"
    config.write_text(
        f'[server]\nport = {port}\nreconnect_grace_s = 1.0\n[calls]\ntimeout_s = 10\n'
        f'[policy]\nallow_writes = true\n[store]\npath = "{db}"\n'
        f'[trust]\nframe_text = false\npin_definitions = false\n' + toml
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "tabmcp.cli", "serve", "--config", str(config)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    bridge = BridgeProcess(process, port, config, db)
    try:
        async def up() -> bool:
            assert process.poll() is None, f"tabmcp serve exited: {process.stderr.read().decode() if process.stderr else ''}"
            try:
                await bridge.health()
            except httpx.HTTPError:
                return False
            return True

        await eventually(up, timeout=30, interval=0.1)
        if not browser:
            yield bridge
            return
        async with launch_browser(bridge_url=f"ws://127.0.0.1:{port}/extension", headless=True) as chromium:
            bridge.browser = chromium

            async def connected() -> bool:
                return bool((await bridge.health())["extension"]["connected"])

            await eventually(connected, timeout=20, interval=0.1)
            yield bridge
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        if process.stderr:
            process.stderr.close()
