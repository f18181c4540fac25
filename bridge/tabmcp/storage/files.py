"""The bridge's files are the person's alone: the state folder ``0700``, the SQLite file (and its
``-wal`` / ``-shm``) and every secret ``0600``, whatever the umask; existing ones are tightened when
the bridge opens them (docs/security.md §6).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

__all__ = ["DIR_MODE", "FILE_MODE", "private_db", "private_dir", "private_file", "state_dir"]

log = logging.getLogger("tabmcp.files")

DIR_MODE = 0o700
FILE_MODE = 0o600
_SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def state_dir() -> Path:
    """``$XDG_STATE_HOME/tabmcp`` (default ``~/.local/state/tabmcp``): the database and the control key."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "tabmcp"


def _chmod(path: Path, mode: int) -> None:
    try:
        if (os.stat(path).st_mode & 0o777) != mode:
            os.chmod(path, mode)
    except OSError as exc:  # not ours (another user's file): say so, do not fail
        log.warning("cannot make %s private (mode %o): %s", path, mode, exc.strerror)


def private_dir(path: str | os.PathLike[str]) -> Path:
    """Make ``path`` (and its parents) exist; ``path`` itself is ``0700`` when this call created it
    or it is tabmcp's own folder (named ``tabmcp``, as the default state folder is). A folder of
    the person's choosing that already existed (``/tmp``, their home) keeps its mode."""
    folder = Path(path)
    existed = folder.is_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if not existed or folder.name == "tabmcp":
        _chmod(folder, DIR_MODE)
    return folder


def private_file(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` empty if it is missing, readable and writable by its owner only; tighten it
    if it exists. Created with ``O_CREAT`` and mode ``0600``, so no other user can open it in between."""
    file = Path(path)
    private_dir(file.parent)
    if not file.exists():
        # Never open an existing file here: closing any descriptor of a file drops the POSIX locks
        # SQLite's other connections in this process hold on it.
        try:
            os.close(os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        except FileExistsError:
            pass  # made meanwhile by another process
    _chmod(file, FILE_MODE)
    return file


def private_db(path: str | os.PathLike[str]) -> None:
    """Before SQLite opens ``path``: the file ``0600`` (SQLite gives its ``-wal`` / ``-shm`` the
    database's mode) and side files left by an older bridge tightened too. ``:memory:`` is left alone."""
    target = os.fspath(path)
    if target == ":memory:" or target.startswith("file:"):
        return
    private_file(target)
    for suffix in _SQLITE_SIDE_FILES:
        side = Path(target + suffix)
        if side.exists():
            _chmod(side, FILE_MODE)
