"""The bridge's module structure: no import cycles, one MCP path per transport (the SDK's), the MCP
SDK used through its public surface only and so pinned to a major range.

The import graph is read from the source with ``ast``: every ``import`` of a ``tabmcp`` module,
at module level or late inside a function (a late import hides a cycle, it does not remove it).
Imports under ``if TYPE_CHECKING:`` are for annotations only and never run, so they are left out
of the cycle check.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import tabmcp
from packaging.specifiers import SpecifierSet
from packaging.version import Version

PACKAGE = Path(tabmcp.__file__).resolve().parent
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    typing_only: bool


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__``)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _typing_blocks(tree: ast.AST) -> set[int]:
    """ids of the statements under ``if TYPE_CHECKING:``."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for stmt in node.body:
                inside.update(id(n) for n in ast.walk(stmt))
    return inside


def imports_of(name: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    """The package's modules ``name`` imports, anywhere in its source."""
    tree = ast.parse(path.read_text(), str(path))
    typing_only = _typing_blocks(tree)
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)]
                module = ".".join(anchor + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:  # ``from . import call`` imports the module ``call``
                sub = f"{module}.{alias.name}"
                targets.append(sub if sub in known else module)
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        for target in targets:
            if target in known and target != name:
                yield Import(name, target, node.lineno, id(node) in typing_only)


def import_graph(*, typing: bool) -> dict[str, dict[str, Import]]:
    known = modules()
    graph: dict[str, dict[str, Import]] = {name: {} for name in known}
    for name, path in known.items():
        for imp in imports_of(name, path, known):
            if typing or not imp.typing_only:
                graph[name].setdefault(imp.target, imp)
    return graph


def cycles(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def describe(component: list[str], graph: dict[str, dict[str, Import]]) -> str:
    members = set(component)
    edges = [f"  {imp.source}:{imp.line} imports {imp.target}"
             for name in component for imp in graph[name].values() if imp.target in members]
    return "\n".join([" ↔ ".join(component), *edges])


def test_no_import_cycles():
    graph = import_graph(typing=False)
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n\n".join(describe(c, graph) for c in found)


def test_the_cycle_check_sees_late_imports(tmp_path):
    """The check itself: a cycle closed by an import inside a function is a cycle."""
    pkg = tmp_path / "tabmcp_fake"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import B\n")
    (pkg / "b.py").write_text("B = 1\ndef late():\n    from . import a\n    return a\n")
    known = {"tabmcp_fake": pkg / "__init__.py", "tabmcp_fake.a": pkg / "a.py", "tabmcp_fake.b": pkg / "b.py"}
    graph = {name: {imp.target: imp for imp in imports_of(name, path, known)} for name, path in known.items()}
    assert cycles(graph) == [["tabmcp_fake.a", "tabmcp_fake.b"]]


def test_one_mcp_path_per_transport():
    """stdio, ``/mcp-stream`` and HTTP are served by the SDK's server alone: no second protocol
    path (the express lane, server/express.py, is gone and stays gone), and the byte transports
    share their streams and writer (server/mcp_streams.py)."""
    assert not [name for name in modules() if "express" in name.rsplit(".", 1)[-1]]
    graph = import_graph(typing=True)
    for transport in ("tabmcp.server.stdio", "tabmcp.server.stream"):
        assert "tabmcp.server.mcp_streams" in graph[transport], transport
    app_source = (PACKAGE / "server" / "app.py").read_text()
    assert "add_middleware(Express" not in app_source


def sdk_imports() -> Iterator[tuple[str, int, str, str | None]]:
    """(file, line, SDK module, name) for every import of the SDK in the package: ``from mcp...
    import name``, and ``import mcp...`` (name ``None``)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if node.module.split(".")[0] in ("mcp", "mcp_types"):
                    for alias in node.names:
                        yield str(path.relative_to(PACKAGE)), node.lineno, node.module, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in ("mcp", "mcp_types"):
                        yield str(path.relative_to(PACKAGE)), node.lineno, alias.name, None


def private_sdk_uses() -> list[str]:
    wrong = []
    for file, line, module, name in sdk_imports():
        if any(part.startswith("_") for part in module.split(".")):
            wrong.append(f"{file}:{line}: {module} is private")
            continue
        if name is None:
            continue
        loaded = importlib.import_module(module)
        exported = getattr(loaded, "__all__", None)
        is_module = importlib.util.find_spec(f"{module}.{name}") is not None if hasattr(loaded, "__path__") else False
        if name.startswith("_") or (exported is not None and name not in exported and not is_module):
            wrong.append(f"{file}:{line}: {module}.{name} is not in its __all__")
    return wrong


def test_the_sdk_is_used_through_its_public_surface():
    """Every SDK module and name the bridge imports is public: no ``_private`` module anywhere in
    the package (such as ``mcp.shared._context_streams``), no ``_private`` name, and a name its
    module's ``__all__`` lists, where the module has one."""
    wrong = private_sdk_uses()
    assert not wrong, "\n".join(wrong)


def test_the_public_surface_check_finds_a_private_import(tmp_path, monkeypatch):
    """The check above reads both import forms (it would pass on a package it cannot read)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("from mcp.shared._context_streams import create_context_streams\n")
    (pkg / "b.py").write_text("import mcp.shared._context_streams\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", pkg)
    assert len(private_sdk_uses()) == 2


def test_the_sdk_is_pinned_to_a_major_range():
    """The bridge imports only the SDK's public surface (above), so any release of the same major
    version is taken; the next major is taken on purpose. (Two private attributes are still read:
    the session's ``_connection`` in server/mcp.py and the HTTP transport's
    ``_terminate_unanswered_request`` in server/http_transport.py; without them the bridge falls
    back to the SDK's behaviour, and test_bridge.py (per-client notifications) and
    test_keepalive.py (no answer to a cancelled HTTP request) fail.)"""
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    for package in ("mcp", "mcp-types"):
        spec = next(d for d in dependencies if d.split(">")[0].split("<")[0].split("=")[0].strip() == package)
        specifier = SpecifierSet(spec[len(package):])
        installed = Version(version(package))
        assert installed in specifier, f"{package} {installed} is outside {spec}"
        upper = [s for s in specifier if s.operator == "<"]
        assert upper, f"{spec}: no upper bound"
        bound = Version(upper[0].version)
        assert bound == Version(f"{installed.major + 1}"), f"{spec}: the upper bound must be the next major release"


def test_no_two_classes_share_a_name():
    """A class name says which thing it is, across the package (two ``Link`` classes were two
    different things; wire messages, in wire/, end in ``Message`` where a name would say two things,
    as ``TabClosedMessage`` beside the ``TabClosed`` error). Private classes are left out."""
    where: dict[str, list[str]] = {}
    for name, path in modules().items():
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where.setdefault(node.name, []).append(f"{name}:{node.lineno}")
    shared = {cls: places for cls, places in where.items() if len(places) > 1}
    assert not shared, shared



def storage_imports(known: dict[str, Path], core: str = "tabmcp.core", storage: str = "tabmcp.storage") -> list[str]:
    """``module:line imports what`` for every import of ``sqlite3`` or of the storage package
    (any of its modules) by a module under ``core``: at module level, late inside a function,
    or for types only."""
    def under(module: str, package: str) -> bool:
        return module == package or module.startswith(package + ".")

    wrong = []
    for name, path in sorted(known.items()):
        if not under(name, core):
            continue
        for imp in imports_of(name, path, known):  # relative and absolute imports of the package's modules
            if under(imp.target, storage):
                wrong.append(f"{name}:{imp.line} imports {imp.target}")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                targets = [node.module or ""]
            else:
                continue
            wrong += [f"{name}:{node.lineno} imports {t}" for t in targets if under(t, "sqlite3")]
    return wrong


def test_the_core_opens_no_file():
    """core/ stays I/O-free: no module under it imports SQLite or the storage package (which holds
    the database, the state folder and every table); it names what it keeps as Protocols
    (core/stores.py) and the composition root hands the storage objects in."""
    wrong = storage_imports(modules())
    assert not wrong, "core/ reaches storage:\n" + "\n".join(wrong)


def test_the_storage_check_sees_every_way_in(tmp_path):
    """The check itself: a late relative import of a storage module, a types-only import of the
    storage package and ``import sqlite3`` under core are all found; storage importing core is not."""
    pkg = tmp_path / "tabmcp_fake"
    (pkg / "core").mkdir(parents=True)
    (pkg / "storage").mkdir()
    files = {
        "tabmcp_fake": pkg / "__init__.py",
        "tabmcp_fake.core": pkg / "core" / "__init__.py",
        "tabmcp_fake.core.a": pkg / "core" / "a.py",
        "tabmcp_fake.core.b": pkg / "core" / "b.py",
        "tabmcp_fake.core.c": pkg / "core" / "c.py",
        "tabmcp_fake.storage": pkg / "storage" / "__init__.py",
        "tabmcp_fake.storage.db": pkg / "storage" / "db.py",
    }
    for path in files.values():
        path.write_text("")
    files["tabmcp_fake.core.a"].write_text("def late():\n    from ..storage import db\n    return db\n")
    files["tabmcp_fake.core.b"].write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import tabmcp_fake.storage\n")
    files["tabmcp_fake.core.c"].write_text("import sqlite3\n")
    files["tabmcp_fake.storage.db"].write_text("from ..core import a\nimport sqlite3\n")
    found = storage_imports(files, "tabmcp_fake.core", "tabmcp_fake.storage")
    assert found == [
        "tabmcp_fake.core.a:2 imports tabmcp_fake.storage.db",
        "tabmcp_fake.core.b:3 imports tabmcp_fake.storage",
        "tabmcp_fake.core.c:1 imports sqlite3",
    ]


REPO = Path(__file__).resolve().parents[2]
MAX_LINES = 600
"""A hand-written product file longer than this is split at its seams into modules with one job."""

GENERATED = {
    "extension/protocol.generated.js": "written by python -m tabmcp.protocol_js from protocol.py and errors.py",
    "extension/webmcp-polyfill.js": "the built polyfill, copied in by ./dev setup (git-ignored)",
}
"""Files under the product folders that are built, not written by hand (with what writes them)."""

STILL_OVER = {
    # Each is to be split; a file leaves this list when it gets under MAX_LINES, and none joins it.
}
"""Hand-written product files over MAX_LINES today, each with why it waits (the list only shrinks)."""


def product_files(root: Path = REPO) -> Iterator[Path]:
    """Every hand-written product file: the bridge and the mediator (Python), the extension (but its
    vendored and generated scripts) and the polyfill's sources (JavaScript)."""
    yield from sorted((root / "bridge" / "tabmcp").rglob("*.py"))
    yield from sorted((root / "mediator" / "tabmcp_mediator").rglob("*.py"))
    for path in sorted((root / "extension").rglob("*.js")):
        relative = path.relative_to(root).as_posix()
        if "vendor" not in path.relative_to(root / "extension").parts and relative not in GENERATED:
            yield path
    yield from sorted((root / "polyfill" / "src").glob("*.js"))


def long_files(root: Path = REPO) -> dict[str, int]:
    """``{path relative to root: lines}`` of the product files over MAX_LINES."""
    found = {}
    for path in product_files(root):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            found[path.relative_to(root).as_posix()] = lines
    return found


def test_no_hand_written_product_file_is_over_600_lines():
    """A long file is several jobs under one name: split it at its seams (one job per module, named
    for what it holds). The files still over wait in STILL_OVER, which only shrinks."""
    found = long_files()
    new = {path: lines for path, lines in found.items() if path not in STILL_OVER}
    assert not new, f"over {MAX_LINES} lines, split them: {new}"
    done = sorted(set(STILL_OVER) - set(found))
    assert not done, f"under {MAX_LINES} lines now: take them off STILL_OVER: {done}"


def test_the_length_check_sees_every_product_folder(tmp_path):
    """The check itself: a long file in each product folder is found; vendored and generated
    scripts, tests and short files are not."""
    long = "x = 1\n" * (MAX_LINES + 1)
    for relative in ("bridge/tabmcp/core/a.py", "mediator/tabmcp_mediator/b.py", "extension/page/c.js",
                     "polyfill/src/d.js", "extension/vendor/e.js", "extension/protocol.generated.js",
                     "bridge/tests/f.py", "polyfill/tests/g.js"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(long)
    (tmp_path / "extension" / "short.js").write_text("x = 1\n" * MAX_LINES)
    assert sorted(long_files(tmp_path)) == [
        "bridge/tabmcp/core/a.py", "extension/page/c.js", "mediator/tabmcp_mediator/b.py", "polyfill/src/d.js"]


# Setting an attribute of an object the function did not build is allowed only here: records a
# module owns and updates as its state changes, out-records a function fills, and the few
# third-party objects whose documented use is an attribute. Keyed by (module, the object's expression).
FOREIGN_SETS_ALLOWED = {
    ("tabmcp.core.extension_links", "peer"),  # a link's record the session keeps in its table: its state machine
    ("tabmcp.core.extension_links", "request"),  # a pending request in the session's own table
    ("tabmcp.core.link_handshake", "peer"),  # the handshake moves a link's record through its states
    ("tabmcp.core.link_chunks", "peer"),  # a link's parts and chunks in flight, on its record
    ("tabmcp.server.hub", "link"),  # the hub's own Link records
    ("tabmcp.core.stalls", "stack[-1]"),  # the meter's own open sections
    ("tabmcp.core.registry", "index"),  # the registry's own name index
    ("tabmcp.core.ecma_regex", "out"),  # the translation's out-record, filled as the pattern is read
    ("tabmcp.cli.doctor", "facts"),  # the doctor's facts record, filled by each gatherer
    ("tabmcp.event_loop", "sniffio.thread_local"),  # sniffio's documented way to name the running library
    ("tabmcp.server.app", "self._uvicorn"),  # uvicorn's documented stop: should_exit
    ("tabmcp.server.http_transport", "streamable_http_manager"),  # the SDK's transport class, chosen once
}


_FUNCTION = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of one function (or of the module's top level), not of the functions inside it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _FUNCTION):
            todo.extend(ast.iter_child_nodes(node))


def _built_here(scope: ast.AST) -> set[str]:
    """Names ``scope`` binds to something it makes (a call, a literal): not to an alias of an object
    made elsewhere (``hub = self.hub``), so setting through an alias is still caught."""
    built: set[str] = set()
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign) and not isinstance(node.value, ast.Name | ast.Attribute | ast.Subscript):
            for target in node.targets:
                for name in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
                    if isinstance(name, ast.Name):
                        built.add(name.id)
    return built


def foreign_sets(name: str, path: Path) -> Iterator[tuple[str, str]]:
    """``(where, object)`` for each ``object.attr = ...`` in ``path`` where the object is not
    ``self``/``cls`` nor made in that function (the module's top level counts as one function)."""
    tree = ast.parse(path.read_text(), str(path))
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, _FUNCTION))]:
        built = _built_here(scope) | {"self", "cls"}
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assign):
                targets = [t for target in node.targets
                           for t in (target.elts if isinstance(target, ast.Tuple | ast.List) else [target])]
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Attribute) and not (
                    isinstance(target.value, ast.Name) and target.value.id in built
                ):
                    yield f"{name}:{node.lineno}: {ast.unparse(target)} = ...", ast.unparse(target.value)


def test_no_module_sets_another_objects_attributes():
    """The composition root (tabmcp/wiring.py) hands each part what it needs when it builds it: no
    module sets an attribute of an object built elsewhere afterwards (a hook set later is a second
    place where construction happens, and an order nobody can see)."""
    wrong = [where for name, path in sorted(modules().items()) for where, obj in foreign_sets(name, path)
             if (name, obj) not in FOREIGN_SETS_ALLOWED]
    assert not wrong, "attributes set on objects built elsewhere:\n" + "\n".join(wrong)


def test_the_foreign_set_check_sees_hooks_and_aliases(tmp_path):
    """The check itself: a hook set on a parameter, through an attribute, or through an alias is
    found; an object the function made, ``self`` and ``cls`` are not."""
    path = tmp_path / "m.py"
    path.write_text(
        "def install(core):\n"
        "    core.trust = 1\n"
        "    core.disclosure.hook = 2\n"
        "    hub = core.hub\n"
        "    hub.after = 3\n"
        "    made = Thing()\n"
        "    made.x = 4\n"
        "class C:\n"
        "    def __init__(self):\n"
        "        self.a = 5\n"
        "        self.registry.charge = 6\n"
    )
    assert sorted(obj for _, obj in foreign_sets("m", path)) == ["core", "core.disclosure", "hub", "self.registry"]
