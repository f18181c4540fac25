"""The recipe for a new capture kind (docs/architecture.md, docs/telemetry.md), followed in a scratch
copy of the repository: the kind's model and record in capture/kinds.py, its page script, one line
of extension/manifest.json, then ``python -m tabmcp.protocol_js``. The copy then carries the kind
to every place that reads kinds (the extension's generated ``KINDS``, buffers and their settings,
counts, eviction, redaction, ``observe``, ``configure(clear)``, the timeline, the wire's batch, the
Firefox manifest, docs/telemetry.md's tables), and test_kinds.py passes on it unchanged.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import tabmcp

from ..helpers import changed_files

PACKAGE = Path(tabmcp.__file__).resolve().parent
ROOT = PACKAGE.parents[1]
HERE = Path(__file__).resolve().parent

MODEL = '''

class IdbEvent(TelemetryEvent):
    kind: Literal["idb"] = "idb"
    database: str
    store: str
    op: Literal["put", "add", "delete", "clear"]
    key: str | None = None

    def search_text(self) -> str:
        return f"{self.database} {self.store} {self.key or ''}"

    def line(self, *, include_bodies: bool = False) -> str:
        return f"{self.op} {self.database}/{self.store} {self.key or ''}".rstrip()

    def summary(self) -> tuple[str, str]:
        return "idb", f"{self.op} {self.database}/{self.store}"
'''

RECORD = '''    CaptureKind(
        "idb", IdbEvent, BufferKind.IDB, cap=200, max_cap=10_000, page_cap=40, evict_rank=-1,
        example={"database": "shop", "store": "cart", "op": "put", "key": "item-1"},
        redact={"database": Redact.TEXT, "store": Redact.TEXT, "key": Redact.TEXT},
        observe=ObserveView("idb_writes", "IndexedDB writes", "IndexedDB writes (filters: url, contains)",
                            frozenset({"url", "contains"})),
        timeline=True,
    ),
'''

PAGE_SCRIPT = """// tabmcp telemetry: IndexedDB writes (the recipe's example kind).
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { now, install } = T;
  const { emit } = T.queue;

  install(() => {
    const proto = IDBObjectStore.prototype;
    for (const op of ['put', 'add', 'delete', 'clear']) {
      const original = proto[op];
      proto[op] = function (/** @type {any[]} */ ...args) {
        emit({ kind: 'idb', ts: now(), database: this.transaction.db.name, store: this.name, op,
          key: op === 'clear' ? undefined : String(args[op === 'delete' ? 0 : 1] ?? '') });
        return original.apply(this, args);
      };
    }
  });
})();
"""

CHECK = """
import json
from pathlib import Path

from pydantic import ValidationError

from tabmcp.capture.kinds import EVICTION_ORDER, BufferKind, IdbEvent, capture_kind
from tabmcp.core.telemetry import TelemetrySettings, TelemetryState
from tabmcp.core.telemetry.analyze import AnalyzeArgs
from tabmcp.core.telemetry.availability import OBSERVE_MODES, available_modes
from tabmcp.core.telemetry.configure import CLEAR_KINDS
from tabmcp.core.telemetry.counts import DataCounts
from tabmcp.core.telemetry.observe import OBSERVE_SPEC, ObserveArgs, observe
from tabmcp.core.telemetry.redact import Redactor
from tabmcp.core.telemetry.timeline import TIMELINE_KINDS
from tabmcp.kind_tables import current_tables, tables
from tabmcp.packaging.firefox import firefox_manifest
from tabmcp.protocol import Telemetry
from tabmcp.protocol_js import GENERATED, render

SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123"

js = GENERATED.read_text()
assert js == render()
assert "    idb: Object.freeze({ buffer: 'idb', pageCap: 40 })," in js
assert "@typedef {object} IdbEvent" in js

settings = TelemetrySettings()
assert settings.buffers.of("idb") == 200
try:
    TelemetrySettings.model_validate({"buffers": {"idb": 10_001}})
except ValidationError:
    pass
else:
    raise AssertionError("the record's max_cap is not the setting's ceiling")
assert EVICTION_ORDER[0] is BufferKind.IDB
assert "idb" in CLEAR_KINDS and "idb" in TIMELINE_KINDS
assert "idb_writes" in OBSERVE_MODES and "IndexedDB writes" in OBSERVE_SPEC.mode_help["idb_writes"]
ObserveArgs.model_validate({"what": "idb_writes"})
AnalyzeArgs.model_validate({"target": "timeline", "include": ["idb"]})

message = Telemetry.model_validate({"type": "telemetry", "tabId": 1, "url": "https://shop.test/", "events": [
    {"kind": "idb", "ts": 1_700_000_000_000, "database": "shop", "store": "cart", "op": "put",
     "key": "token " + SECRET}]})
event = message.events[0]
assert isinstance(event, IdbEvent), event
assert SECRET not in Redactor().event(event).model_dump_json()
store = TelemetryState(settings)
report = store.ingest(message)
assert (report.accepted, report.rejected) == (1, 0)
assert store.counts().of("idb") == 1
assert "idb_writes" in available_modes(store.counts())["observe"]
assert "idb_writes" not in available_modes(DataCounts())["observe"]
text = observe(store, {"what": "idb_writes", "scope": "all"}).text
assert "put shop/cart" in text and SECRET not in text, text

manifest = json.loads(Path("extension/manifest.json").read_text())
for built in (manifest, firefox_manifest(manifest)):
    scripts = [s for entry in built["content_scripts"] for s in entry["js"]]
    assert scripts.index("page/queue.js") < scripts.index("page/idb.js") < scripts.index("page/start.js")

doc = Path("docs/telemetry.md").read_text()
assert current_tables(doc) == tables()
assert "| `idb` | `database`, `store`, `op` (put, add, delete, clear), `key`? |" in doc
assert "| `idb` | 200 | `idb` events |" in doc
assert capture_kind("idb") is not None
print("ok")
"""


def _edit(path: Path, anchor: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(anchor) == 1, f"{path.name}: the recipe's anchor {anchor!r} moved"
    path.write_text(text.replace(anchor, new), encoding="utf-8")


def _scratch(tmp: Path) -> Path:
    """The parts of the repository the bridge, its generator and the recipe read, copied."""
    ignore = shutil.ignore_patterns("__pycache__", "_model")
    shutil.copytree(PACKAGE, tmp / "bridge" / "tabmcp", ignore=ignore)
    shutil.copytree(ROOT / "extension", tmp / "extension", ignore=ignore)
    shutil.copytree(ROOT / "docs", tmp / "docs")
    return tmp


def test_recipe_a_capture_kind_is_three_hand_edited_files(tmp_path: Path) -> None:
    scratch = _scratch(tmp_path)
    kinds = scratch / "bridge" / "tabmcp" / "capture" / "kinds.py"
    _edit(kinds, "\n\nEvent = Annotated[", MODEL + "\n\nEvent = Annotated[")
    _edit(kinds, "    | NavigationEvent,\n", "    | NavigationEvent\n    | IdbEvent,\n")
    _edit(kinds, '    NAVIGATIONS = "navigations"\n', '    NAVIGATIONS = "navigations"\n    IDB = "idb"\n')
    _edit(kinds, ')\n"""Every capture kind', RECORD + ')\n"""Every capture kind')
    (scratch / "extension" / "page" / "idb.js").write_text(PAGE_SCRIPT, encoding="utf-8")
    _edit(scratch / "extension" / "manifest.json", '"page/vitals.js",\n', '"page/vitals.js",\n        "page/idb.js",\n')
    env = {"PYTHONPATH": str(scratch / "bridge"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "tabmcp.protocol_js"], cwd=scratch, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

    assert changed_files(ROOT / "bridge" / "tabmcp", scratch / "bridge" / "tabmcp") == {"capture/kinds.py"}
    assert changed_files(ROOT / "extension", scratch / "extension") == {
        "manifest.json", "page/idb.js",  # by hand
        "protocol.generated.js",  # by the generator
    }
    assert changed_files(ROOT / "docs", scratch / "docs") == {"telemetry.md"}  # its kinds' tables, by the generator

    done = subprocess.run([sys.executable, "-c", CHECK], cwd=scratch, env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
    # the extension's generated module still loads, with the new kind's page cap
    load = ("require('./extension/protocol.generated.js');"
            "console.log(JSON.stringify(globalThis[Symbol.for('tabmcp.protocol')].KINDS.idb))")
    done = subprocess.run(["node", "-e", load], cwd=scratch, capture_output=True, text=True)
    assert json.loads(done.stdout) == {"buffer": "idb", "pageCap": 40}, done.stderr

    # test_kinds.py, unchanged, holds for the new kind too (redaction of each field it names, the
    # generic modules naming no kind, the core following the records)
    (scratch / "tests").mkdir()
    shutil.copy2(HERE / "test_kinds.py", scratch / "tests" / "test_kinds.py")
    (scratch / "tests" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-c",
                           str(scratch / "tests" / "pytest.ini"), str(scratch / "tests" / "test_kinds.py")],
                          cwd=scratch / "tests", env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "test_every_free_text_field_of_a_kind_is_redacted_or_declared_plain[idb] PASSED" in done.stdout
    assert "test_redaction_rewrites_each_field_its_record_names[idb] PASSED" in done.stdout


def test_the_kinds_tables_in_docs_are_up_to_date() -> None:
    from tabmcp.kind_tables import TELEMETRY_MD, current_tables, tables

    assert current_tables(TELEMETRY_MD.read_text(encoding="utf-8")) == tables(), (
        "docs/telemetry.md's kinds tables are stale: run .venv/bin/python -m tabmcp.protocol_js")
