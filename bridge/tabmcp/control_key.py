"""The control key, and a client of the running bridge's control API.

A random ``0600`` secret the bridge makes once; ``tabmcp pair``, ``status`` and the launchers read
it to prove they run as the person, and the API answers only ``Authorization: Bearer <key>``
(docs/security.md §1).
"""

from __future__ import annotations

import os
import secrets
import socket
from pathlib import Path
from typing import Any

import httpx

from .errors import ControlError, PairingError
from .storage.files import FILE_MODE, private_dir, private_file, state_dir

__all__ = ["CONTROL_PREFIX", "ControlClient", "control_headers", "control_key_path", "load_or_create_control_key",
           "read_control_key"]

CONTROL_PREFIX = "/control/"


def control_key_path() -> Path:
    return state_dir() / "control.key"


def read_control_key(path: Path | None = None) -> str | None:
    """The key, or None when no bridge ever started as this user (or the file is not readable)."""
    try:
        key = (path or control_key_path()).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return key or None


def load_or_create_control_key(path: Path | None = None) -> str:
    """The control key, made once (atomically: bridges starting together agree on one) and tightened."""
    path = path or control_key_path()
    private_dir(path.parent)
    key = read_control_key(path)
    if key:
        private_file(path)
        return key
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        os.write(fd, (secrets.token_urlsafe(32) + "\n").encode())
    finally:
        os.close(fd)
    try:
        if path.exists():  # there, but empty: replace it
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if another bridge made it meanwhile: theirs wins
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    key = read_control_key(path)
    if not key:
        raise ControlError(f"cannot read the control key {path}")
    return key


def control_headers(key: str | None = None) -> dict[str, str]:
    """``Authorization`` for the control API and the full ``/health`` (empty without a key)."""
    key = key or read_control_key()
    return {"Authorization": f"Bearer {key}"} if key else {}


def port_listening(port: int, host: str = "127.0.0.1") -> bool:
    """Does anything accept connections on ``host:port`` (a bridge, or a program that is not one)?"""
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


class ControlClient:
    """The running bridge's control API on ``host:port``, as this user."""

    def __init__(self, port: int, *, host: str = "127.0.0.1", key: str | None = None, timeout: float = 10.0) -> None:
        self.base = f"http://{host}:{port}"
        self.key = key or read_control_key()
        self.timeout = timeout

    async def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if not self.key:
            raise ControlError(f"no control key at {control_key_path()}: is a bridge running as this user?")
        try:
            async with httpx.AsyncClient(timeout=self.timeout, headers=control_headers(self.key)) as http:
                response = await http.request(method, self.base + path, json=body)
        except httpx.HTTPError as exc:
            raise ControlError(f"cannot reach the bridge at {self.base}: {exc}") from exc
        data: dict[str, Any] = response.json() if response.headers.get("content-type", "").startswith(
            "application/json") else {}
        if response.status_code == 401:
            raise ControlError(f"the bridge at {self.base} refused the control key (a bridge of another user?)")
        if response.status_code in (403, 404, 405, 421) and "error" not in data:
            raise ControlError(f"the bridge at {self.base} answered {response.status_code} to {method} {path}")
        if response.status_code >= 400:
            error = PairingError(str(data.get("message") or response.text))
            error.code = str(data.get("error") or error.code)
            raise error
        return data

    async def health(self) -> dict[str, Any]:
        """The full ``/health`` (activity, tabs, counts)."""
        return await self._request("GET", "/health")

    async def create_pairing(self, label: str, *, ephemeral: bool = True) -> tuple[str, str]:
        """A pairing without the ceremony (launchers that start the browser themselves): id, secret."""
        data = await self._request("POST", CONTROL_PREFIX + "pairings", {"label": label, "ephemeral": ephemeral})
        return str(data["id"]), str(data["secret"])

    async def pair(self, code: str) -> dict[str, Any]:
        """Confirm the code the extension's popup shows; the new pairing."""
        return await self._request("POST", CONTROL_PREFIX + "pair", {"code": code})

    async def pairings(self) -> dict[str, Any]:
        """``{"pairings": [...], "pending": [...]}`` (pending requests without their codes)."""
        return await self._request("GET", CONTROL_PREFIX + "pairings")

    async def forget(self, pairing_id: str) -> bool:
        data = await self._request("DELETE", CONTROL_PREFIX + f"pairings/{pairing_id}")
        return bool(data.get("forgotten"))
