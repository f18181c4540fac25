"""The bridge's files are the person's alone (tabmcp/storage/files.py): under umask 022 the state folder is
0700 and the database, its -wal / -shm and the control key 0600; existing ones are tightened."""

from __future__ import annotations

import os
import stat


def test_the_state_folder_and_the_database_are_the_persons_alone(tmp_path, monkeypatch):
    from tabmcp.storage.database import UsageStore, default_db_path

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = os.umask(0o022)
    try:
        store = UsageStore()  # the default path, as the bridge opens it
        store.record("https://a.test", "t")
        store.flush()
    finally:
        os.umask(old)
    db = default_db_path()
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    assert mode(db.parent) == 0o700
    assert mode(db) == 0o600
    for side in ("-wal", "-shm"):
        if os.path.exists(str(db) + side):
            assert mode(str(db) + side) == 0o600, side
    store.close()


def test_existing_files_are_tightened_on_start(tmp_path, monkeypatch):
    from tabmcp.storage.database import UsageStore

    state = tmp_path / "state" / "tabmcp"
    state.mkdir(parents=True)
    os.chmod(state, 0o755)
    db = state / "tabmcp.db"
    UsageStore(db).close()
    os.chmod(db, 0o644)
    wal = state / "tabmcp.db-wal"
    wal.write_bytes(b"")
    os.chmod(wal, 0o644)
    UsageStore(db).close()
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600
    if wal.exists():
        assert stat.S_IMODE(os.stat(wal).st_mode) == 0o600




def test_the_control_key_is_the_persons_alone(tmp_path, monkeypatch):
    from tabmcp.control_key import load_or_create_control_key

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = os.umask(0o022)
    try:
        key = load_or_create_control_key()
        assert load_or_create_control_key() == key  # made once, then kept
    finally:
        os.umask(old)
    folder = tmp_path / "state" / "tabmcp"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(folder / "control.key").st_mode) == 0o600
