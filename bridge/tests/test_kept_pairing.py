"""``tabmcp browser``'s pairing (tabmcp/kept_pairing.py) against a real bridge: a stored pairing
labelled with the profile, listed by ``tabmcp pair --list`` and revocable there; the next start
with the same profile reuses it; a forgotten one (or an old launcher pairing) is replaced. With no
bridge running, it goes into the SQLite table the next bridge admits it from."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest
from tabmcp.cli import main
from tabmcp.control_key import ControlClient
from tabmcp.errors import ControlError
from tabmcp.kept_pairing import browser_label, keep_pairing
from tabmcp.server.app import running_bridge
from tabmcp.storage.database import SqlitePairings

from .conftest import make_config
from .helpers import ScriptedExtension

PROFILE = Path.home() / ".local" / "state" / "tabmcp" / "browser-profile"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listed(port: int, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    """``tabmcp pair --list --json``, as the person runs it."""
    capsys.readouterr()
    assert main(["pair", "--list", "--json", "--port", str(port)]) == 0
    rows: list[dict[str, object]] = json.loads(capsys.readouterr().out)["pairings"]
    return rows


def test_the_label_names_the_profile() -> None:
    assert browser_label(PROFILE) == "tabmcp browser (profile ~/.local/state/tabmcp/browser-profile)"
    assert browser_label(Path("/srv/agent")) == "tabmcp browser (profile /srv/agent)"


async def test_the_browser_pairing_is_listed_kept_and_revocable(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    label = browser_label(PROFILE)
    async with running_bridge(make_config(server={"port": port}, store={"path": str(tmp_path / "t.db")})):
        first = await keep_pairing(None, label=label, port=port)
        assert not first.reused and not first.id.startswith("launch-")
        rows = await asyncio.to_thread(listed, port, capsys)
        assert [(r["id"], r["label"], r["ephemeral"]) for r in rows] == [(first.id, label, False)]

        # The next start with the same profile: the extension holds it, the bridge knows it.
        again = await keep_pairing(first.credential(), label=label, port=port)
        assert (again.id, again.secret, again.reused) == (first.id, first.secret, True)
        assert len(await asyncio.to_thread(listed, port, capsys)) == 1
        ext = ScriptedExtension(port, pairing=again.credential())
        assert (await ext.connect() or {})["type"] == "welcome"

        # Revoked: its link is closed and the pairing no longer admits it.
        assert await ControlClient(port).forget(first.id)
        await asyncio.wait_for(ext.ws.wait_closed(), 10)
        await ext.close()
        refused = ScriptedExtension(port, pairing=first.credential())
        assert (await refused.connect() or {})["type"] == "pair.required"
        await refused.close()
        # Starting tabmcp browser again is pairing again: a new pairing, not the forgotten one.
        after = await keep_pairing(first.credential(), label=label, port=port)
        assert not after.reused and after.id != first.id

        # A launcher pairing (older versions wrote one) is replaced by a stored one.
        launcher = {"id": "launch-0123456789ab", "secret": "0" * 64}
        replaced = await keep_pairing(launcher, label=label, port=port)
        assert not replaced.reused and not replaced.id.startswith("launch-")
        ids = {r["id"] for r in await asyncio.to_thread(listed, port, capsys)}
        assert ids == {after.id, replaced.id}


async def test_with_no_bridge_running_the_next_bridge_admits_it(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    db = tmp_path / "t.db"
    label = browser_label(PROFILE)
    made = await keep_pairing(None, label=label, port=port, store_path=db)  # nothing listens on the port
    assert not made.reused
    kept = await keep_pairing(made.credential(), label=label, port=port, store_path=db)
    assert (kept.id, kept.reused) == (made.id, True)
    async with running_bridge(make_config(server={"port": port}, store={"path": str(db)})):
        ext = ScriptedExtension(port, pairing=made.credential())
        assert (await ext.connect() or {})["type"] == "welcome"
        await ext.close()
        rows = await asyncio.to_thread(listed, port, capsys)
        assert [(r["id"], r["label"]) for r in rows] == [(made.id, label)]
    forged = await keep_pairing({"id": made.id, "secret": "not-its-secret"}, label=label, port=port, store_path=db)
    assert not forged.reused and forged.id != made.id  # the secret must match, not only the id


async def test_a_program_on_the_port_that_is_not_this_users_bridge_gets_no_pairing(tmp_path: Path) -> None:
    """Something answers on the port but refuses our control key (another user's bridge, or a
    program that is not a bridge): no pairing is made for it, none is written for later."""

    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(refuse, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    db = tmp_path / "t.db"
    try:
        with pytest.raises(ControlError):
            await keep_pairing(None, label=browser_label(PROFILE), port=port, store_path=db)
    finally:
        server.close()
        await server.wait_closed()
    assert not db.exists() or SqlitePairings(db).all() == []
