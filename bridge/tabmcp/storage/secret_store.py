"""Where the person's secrets are kept: names, sites and last use in SQLite, values in the OS
keychain through ``keyring``, or in a ``0600`` fallback file where there is none; the database
never holds a value (docs/security.md §8).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from ..core.secrets import MIN_VALUE_CHARS, check_name
from ..core.switches import InvalidOrigin, normalize_origin
from ..errors import InvalidSecretSite, InvalidSecretValue, SecretStoreUnavailable, UnknownSecret
from .database import default_db_path, open_db
from .files import FILE_MODE, private_dir

__all__ = [
    "KEYRING_SERVICE", "FileValues", "KeyringValues", "MemoryValues", "SecretInfo", "SecretStore", "Values", "check_site",
    "check_value", "choose_values", "keychain_usable",
]

KEYRING_SERVICE = "tabmcp"
"""The service name the values are stored under in the keychain (one entry per secret name)."""
MAX_VALUE_CHARS = 4_096

_SCHEMA = """
CREATE TABLE IF NOT EXISTS secrets (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL,
    last_used REAL
);
CREATE TABLE IF NOT EXISTS secret_sites (
    name TEXT NOT NULL REFERENCES secrets (name) ON DELETE CASCADE,
    origin TEXT NOT NULL,
    PRIMARY KEY (name, origin)
);
CREATE INDEX IF NOT EXISTS secret_sites_origin ON secret_sites (origin);
"""


def check_site(site: str) -> str:
    """``site`` as an origin (``https://bank.example``); raises :class:`InvalidSecretSite`."""
    try:
        origin = normalize_origin(site)
    except InvalidOrigin as exc:
        raise InvalidSecretSite(str(exc)) from exc
    if not origin.startswith(("http://", "https://")):
        raise InvalidSecretSite(f"{site!r}: a secret is bound to an http(s) origin, never to local files")
    return origin


def check_value(value: str) -> str:
    """``value`` without a trailing newline; raises :class:`InvalidSecretValue` when it cannot be
    kept safely (empty, shorter than the masking needs, more than one line, too long)."""
    value = value.removesuffix("\n").removesuffix("\r")
    if len(value) < MIN_VALUE_CHARS:
        raise InvalidSecretValue(f"a secret's value has at least {MIN_VALUE_CHARS} characters "
                                 "(a shorter one would be masked in every text it occurs in)")
    if "\n" in value or "\r" in value:
        raise InvalidSecretValue("a secret's value is one line")
    if len(value) > MAX_VALUE_CHARS:
        raise InvalidSecretValue(f"a secret's value has at most {MAX_VALUE_CHARS} characters")
    return value


class Values(Protocol):
    """Where values live, by name."""

    label: str
    """What ``tabmcp doctor`` and ``tabmcp secrets list`` say is in use."""

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


def keychain_usable() -> tuple[bool, str]:
    """Whether ``keyring`` has a backend that stores anything, and its name."""
    import keyring
    from keyring.backends import chainer, fail

    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__qualname__}"
    if isinstance(backend, fail.Keyring):
        return False, name
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return False, name
    return True, name


class KeyringValues:
    """Values in the OS keychain (``keyring``), under the service :data:`KEYRING_SERVICE`."""

    def __init__(self, backend_name: str) -> None:
        self.label = f"OS keychain ({backend_name})"

    def get(self, name: str) -> str | None:
        import keyring
        from keyring.errors import KeyringError

        try:
            return keyring.get_password(KEYRING_SERVICE, name)
        except KeyringError as exc:
            raise SecretStoreUnavailable(f"the keychain could not be read: {exc}") from exc

    def set(self, name: str, value: str) -> None:
        import keyring
        from keyring.errors import KeyringError

        try:
            keyring.set_password(KEYRING_SERVICE, name, value)
        except KeyringError as exc:
            raise SecretStoreUnavailable(f"the keychain could not be written: {exc}") from exc

    def delete(self, name: str) -> None:
        import keyring
        from keyring.errors import KeyringError, PasswordDeleteError

        try:
            keyring.delete_password(KEYRING_SERVICE, name)
        except PasswordDeleteError:
            pass  # nothing stored under that name
        except KeyringError as exc:
            raise SecretStoreUnavailable(f"the keychain could not be written: {exc}") from exc


class FileValues:
    """Values in one JSON file, ``0600`` in a ``0700`` folder: the fallback where no keychain is."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.label = f"file {path} (no OS keychain; as private as the database beside it)"
        self._lock = threading.Lock()

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise SecretStoreUnavailable(f"{self.path} cannot be read: {exc}") from exc
        if not isinstance(data, dict):
            raise SecretStoreUnavailable(f"{self.path} is not a secrets file")
        return {str(k): str(v) for k, v in data.items()}

    def _write(self, data: dict[str, str]) -> None:
        private_dir(self.path.parent)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        # Made 0600 by O_CREAT | O_EXCL: no other user can open it between its creation and its mode.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def get(self, name: str) -> str | None:
        with self._lock:
            return self._read().get(name)

    def set(self, name: str, value: str) -> None:
        with self._lock:
            data = self._read()
            data[name] = value
            self._write(data)

    def delete(self, name: str) -> None:
        with self._lock:
            data = self._read()
            if data.pop(name, None) is not None:
                self._write(data)


class MemoryValues:
    """Values in this process only, for a database in memory (``store.path = ":memory:"``, tests):
    nothing of such a bridge outlives it, its secrets neither."""

    label = "memory of this process (the database is in memory too)"

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self._values.get(name)

    def set(self, name: str, value: str) -> None:
        self._values[name] = value

    def delete(self, name: str) -> None:
        self._values.pop(name, None)


@dataclass(frozen=True)
class SecretInfo:
    """A secret as ``tabmcp secrets list`` shows it: never its value."""

    name: str
    sites: tuple[str, ...]
    created: float
    last_used: float | None

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "sites": list(self.sites), "created": self.created, "lastUsed": self.last_used}


StoreKind = Literal["auto", "keychain", "file"]


def choose_values(kind: StoreKind, db_path: str | os.PathLike[str]) -> Values:
    """Where values are kept for the config's ``store.secrets``: the keychain when ``keyring``
    has a usable backend (``auto``, ``keychain``), else the fallback file beside the database; a
    database in memory keeps its values in memory."""
    if str(db_path) == ":memory:" or str(db_path).startswith("file:"):
        return MemoryValues()
    file = FileValues(Path(db_path).parent / "secrets.json")
    if kind == "file":
        return file
    usable, backend = keychain_usable()
    if usable:
        return KeyringValues(backend)
    if kind == "keychain":
        raise SecretStoreUnavailable(f"no usable OS keychain ({backend}); store.secrets = \"auto\" uses the "
                                     "fallback file")
    return file


class SecretStore:
    """The secrets: names and sites in SQLite, values in :class:`Values`; the core's
    :class:`tabmcp.core.secrets.Vault`."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, kind: StoreKind = "auto") -> None:
        db_path = str(path) if path is not None else str(default_db_path())
        self._db = open_db(db_path, _SCHEMA)
        self._db.execute("PRAGMA foreign_keys=ON")
        self._lock = threading.Lock()
        self.values = choose_values(kind, db_path)

    # -- the person's commands ----------------------------------------------------------------

    def set(self, name: str, value: str, sites: Iterable[str]) -> SecretInfo:
        """Keep ``value`` as ``name``, bound to exactly ``sites`` (replacing an earlier value and sites)."""
        check_name(name)
        value = check_value(value)
        origins = sorted({check_site(s) for s in sites})
        if not origins:
            raise InvalidSecretSite("a secret is bound to at least one site (--site https://...)")
        self.values.set(name, value)  # the value first: a row never names a value that is not kept
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute("INSERT INTO secrets (name, created) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                             (name, time.time()))
            self._db.execute("DELETE FROM secret_sites WHERE name = ?", (name,))
            self._db.executemany("INSERT INTO secret_sites (name, origin) VALUES (?, ?)", [(name, o) for o in origins])
            self._db.execute("COMMIT")
        info = self.get(name)
        assert info is not None
        return info

    def remove(self, name: str) -> None:
        """Forget ``name``: its value, its sites, its last use."""
        check_name(name)
        with self._lock:
            gone = self._db.execute("DELETE FROM secrets WHERE name = ?", (name,)).rowcount
        self.values.delete(name)
        if not gone:
            raise UnknownSecret(f"no secret named {name!r}")

    def unbind(self, name: str, site: str) -> None:
        """Take ``site`` off ``name``'s sites."""
        origin = check_site(site)
        with self._lock:
            if not self._db.execute("DELETE FROM secret_sites WHERE name = ? AND origin = ?", (name, origin)).rowcount:
                raise UnknownSecret(f"secret {name!r} is not bound to {origin}")

    def get(self, name: str) -> SecretInfo | None:
        with self._lock:
            row = self._db.execute("SELECT created, last_used FROM secrets WHERE name = ?", (name,)).fetchone()
            sites = [str(o) for (o,) in self._db.execute(
                "SELECT origin FROM secret_sites WHERE name = ? ORDER BY origin", (name,))]
        if row is None:
            return None
        return SecretInfo(name, tuple(sites), float(row[0]), None if row[1] is None else float(row[1]))

    def all(self) -> list[SecretInfo]:
        with self._lock:
            names = [str(n) for (n,) in self._db.execute("SELECT name FROM secrets ORDER BY name")]
        return [info for n in names if (info := self.get(n)) is not None]

    # -- the core's Vault ---------------------------------------------------------------------

    def sites(self, name: str) -> frozenset[str]:
        with self._lock:
            rows = self._db.execute("SELECT origin FROM secret_sites WHERE name = ?", (name,)).fetchall()
        return frozenset(str(o) for (o,) in rows)

    def names_for(self, origin: str) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT name FROM secret_sites WHERE origin = ? ORDER BY name", (origin,)).fetchall()
        return [str(n) for (n,) in rows]

    def value(self, name: str) -> str | None:
        return self.values.get(name)

    def bound_origins(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT origin FROM secret_sites ORDER BY origin").fetchall()
        return [str(o) for (o,) in rows]

    def used(self, names: Iterable[str]) -> None:
        now = time.time()
        with self._lock:
            self._db.executemany("UPDATE secrets SET last_used = ? WHERE name = ?", [(now, n) for n in names])

    def close(self) -> None:
        self._db.close()
