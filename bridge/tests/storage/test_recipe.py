"""The recipe for a new table (docs/architecture.md, "Storage"), followed in a scratch copy of the
package: one module in storage/, a Protocol in core/stores.py, the lines in wiring.py that build it.
The copy then builds a bridge whose new store keeps what it was given across a restart, and the
boundary check (test_structure.py) still finds nothing under core/ that reaches storage.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ..test_structure import PACKAGE, storage_imports

STORE = '''\
"""Notes the person keeps (the recipe's example table)."""

from __future__ import annotations

import os

from .database import open_db

SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class NotesStore:
    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.db = open_db(path, SCHEMA)

    def put(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO notes (key, value) VALUES (?, ?)", (key, value))

    def get(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM notes WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])
'''

PROTOCOL = '''

class NotesTable(Protocol):
    """The person's notes (the recipe's example)."""

    def put(self, key: str, value: str) -> None: ...

    def get(self, key: str) -> str | None: ...
'''

RUN = """
import sys
sys.path.insert(0, {root!r})
import tabmcp
assert tabmcp.__file__.startswith({root!r}), tabmcp.__file__
from tabmcp.config import Config
from tabmcp.wiring import BridgeCore

config = Config().with_overrides({{"store": {{"path": {db!r}}}, "search": {{"semantic": False}}}})
BridgeCore(config).notes.put("greeting", "hello")
print(BridgeCore(config).notes.get("greeting"))
"""


def edit(path: Path, anchor: str, added: str) -> None:
    text = path.read_text()
    assert text.count(anchor) == 1, f"{path.name}: the recipe's anchor {anchor!r} moved"
    path.write_text(text.replace(anchor, anchor + added))


def test_a_new_table_is_one_module_one_protocol_and_the_wiring(tmp_path):
    scratch = tmp_path / "pkg" / "tabmcp"
    shutil.copytree(PACKAGE, scratch, ignore=shutil.ignore_patterns("__pycache__", "_model"))
    (scratch / "storage" / "notes.py").write_text(STORE)
    stores = scratch / "core" / "stores.py"
    stores.write_text(stores.read_text() + PROTOCOL)
    wiring = scratch / "wiring.py"
    edit(wiring, "from .storage.trust import TrustStore\n", "from .storage.notes import NotesStore\n")
    edit(wiring, "        self.controls = person_controls(config.store.path)\n",
         "        self.notes = NotesStore(db_path)\n")

    done = subprocess.run([sys.executable, "-c", RUN.format(root=str(scratch.parent), db=str(tmp_path / "t.db"))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"  # kept in the file, read by the next bridge

    known = {}
    for path in scratch.rglob("*.py"):
        parts = list(path.relative_to(scratch.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        known[".".join(parts)] = path
    assert "tabmcp.storage.notes" in known
    assert storage_imports(known) == []
