"""Error codes are registered once, by their exception class; every other list is derived.

The derived lists: ``EXTENSION_CODES`` and :func:`tool_error_class` (errors.py), the tree in
errors.py's docstring, the table in docs/protocol.md and ``ERROR`` in the extension's generated
protocol module (its own drift test: test_protocol_js.py). The recipe test adds a code in a
scratch copy of the repository and checks it reaches each of them with one hand-edited file.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tabmcp
from tabmcp import error_tables, errors
from tabmcp.core.end_rules import END_RULES
from tabmcp.errors import (
    EXTENSION_CODES,
    REGISTRY,
    BridgeError,
    ErrorCode,
    PageError,
    ToolCallError,
    error_for_code,
    tool_error_class,
)

from .helpers import changed_files

PACKAGE = Path(tabmcp.__file__).resolve().parent
ROOT = PACKAGE.parents[1]
REGENERATE = "run .venv/bin/python -m tabmcp.protocol_js"


def test_every_code_is_registered_by_exactly_one_class() -> None:
    assert set(REGISTRY) == set(ErrorCode), "every ErrorCode needs its class: class X(Base, code=..., uses=(...))"
    assert len({r.error for r in REGISTRY.values()}) == len(REGISTRY)
    for reg in REGISTRY.values():
        assert reg.error.code == reg.code and reg.meaning and "\n" not in reg.meaning


def test_the_generators_see_every_registration() -> None:
    """Every module that registers a code (``class X(..., code=...)``) is one the generator imports:
    a code registered elsewhere would be missing from the JS, the docs and the tree."""
    registering = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(k.arg == "code" for k in node.keywords):
                registering.add(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
    assert registering == {"tabmcp.errors", "tabmcp.core.telemetry.errors"}
    assert registering <= set(sys.modules)  # (error_tables imported them)
    assert {r.error.__module__ for r in REGISTRY.values()} == registering


def test_the_tree_in_errors_docstring_is_up_to_date() -> None:
    assert error_tables.current_tree(error_tables.ERRORS_PY.read_text(encoding="utf-8")) == error_tables.tree(), (
        f"the class tree in errors.py's docstring is stale: {REGENERATE}")
    assert errors.__doc__ and error_tables.tree() in errors.__doc__


def test_the_error_table_in_docs_is_up_to_date() -> None:
    text = error_tables.PROTOCOL_MD.read_text(encoding="utf-8")
    assert error_tables.current_docs_table(text) == error_tables.docs_table(), (
        f"the error table in docs/protocol.md is stale: {REGENERATE}")
    for code in ErrorCode:
        assert f"| `{code}` |" in text


def test_the_readme_and_the_guide_link_to_the_table_rather_than_listing_codes() -> None:
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    assert "(protocol.md#error-codes)" in guide
    for doc in ("README.md", "docs/guide.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        listed = [code for code in ErrorCode if f"`{code}`" in text]
        assert len(listed) < len(ErrorCode) // 3, f"{doc} lists codes the table holds: {listed}"


def test_extension_codes_are_the_worker_registrations() -> None:
    assert {r.code for r in REGISTRY.values() if r.worker} == EXTENSION_CODES
    # every rule the worker ends requests by ends them with one of its own codes
    worker_rules = {spec.code for spec in END_RULES.values() if "worker" in spec.sides}
    assert worker_rules <= EXTENSION_CODES
    # and every rule the bridge applies has a class it raises
    for spec in END_RULES.values():
        if "bridge" in spec.sides:
            assert tool_error_class(spec.code).code == spec.code


def test_only_the_workers_call_codes_are_kept_as_the_bridges_own() -> None:
    """The security rule the registry drives: a page (or a code the worker does not end requests
    with itself) never produces one of the bridge's codes."""
    for code, reg in REGISTRY.items():
        own = error_for_code(code, "m")
        kept = reg.worker and "call" in reg.uses
        assert (type(own) is reg.error) == kept or (code == ErrorCode.PAGE_ERROR), code
        if not kept:
            assert isinstance(own, PageError)
        assert isinstance(error_for_code(code, "m", from_page=True), PageError)
    for claimed in (ErrorCode.WRITES_DISABLED, ErrorCode.APPROVAL_DENIED, ErrorCode.INTERNAL_ERROR):
        assert error_for_code(claimed, "m").code == ErrorCode.PAGE_ERROR
    with pytest.raises(KeyError):
        tool_error_class(ErrorCode.AXE_MISSING)  # a query's code: never raised by name for a call


def test_a_code_is_registered_once_with_its_meaning() -> None:
    with pytest.raises(TypeError, match="registered by ToolTimeout already"):
        type("AnotherTimeout", (ToolCallError,), {"__doc__": "Again."}, code=ErrorCode.TIMEOUT, uses=("call",))
    with pytest.raises(TypeError, match="one-line docstring"):
        type("NoMeaning", (ToolCallError,), {}, code=ErrorCode.TIMEOUT, uses=("call",))
    with pytest.raises(TypeError, match="need a code"):
        type("NoCode", (BridgeError,), {}, uses=("call",))
    assert REGISTRY[ErrorCode.TIMEOUT].error.__name__ == "ToolTimeout"


NEW_CLASS = '''

class TabAsleep(ToolCallError, code=ErrorCode.TAB_ASLEEP, uses=("call",), worker=True):
    """The browser discarded the tab to save memory before the call reached it."""
'''


def _scratch(tmp: Path) -> Path:
    """The parts of the repository the bridge and its generator read, copied."""
    shutil.copytree(PACKAGE, tmp / "bridge" / "tabmcp", ignore=shutil.ignore_patterns("__pycache__", "_model"))
    (tmp / "extension").mkdir()
    for name in ("protocol.generated.js", "messages.js"):
        shutil.copy2(ROOT / "extension" / name, tmp / "extension" / name)
    (tmp / "docs").mkdir()
    for name in ("protocol.md", "telemetry.md"):  # the generator writes both
        shutil.copy2(ROOT / "docs" / name, tmp / "docs" / name)
    return tmp


def test_recipe_an_error_code_end_to_end_is_one_hand_edited_file(tmp_path: Path) -> None:
    """docs/architecture.md's recipe: the code and its class in errors.py, then the generator."""
    scratch = _scratch(tmp_path)
    errors_py = scratch / "bridge" / "tabmcp" / "errors.py"
    text = errors_py.read_text(encoding="utf-8")
    text = text.replace('    PAIRING_UNKNOWN = "PAIRING_UNKNOWN"\n',
                        '    PAIRING_UNKNOWN = "PAIRING_UNKNOWN"\n    TAB_ASLEEP = "TAB_ASLEEP"\n')
    anchor = "\n\nEXTENSION_CODES: frozenset[str]"
    errors_py.write_text(text.replace(anchor, NEW_CLASS + anchor), encoding="utf-8")
    env = {"PYTHONPATH": str(scratch / "bridge"), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "tabmcp.protocol_js"], cwd=scratch, env=env, check=True,
                   capture_output=True)

    assert changed_files(ROOT / "bridge" / "tabmcp", scratch / "bridge" / "tabmcp") == {"errors.py"}
    others = ("extension/protocol.generated.js", "extension/messages.js", "docs/protocol.md")
    changed = {name for name in others if (ROOT / name).read_bytes() != (scratch / name).read_bytes()}
    assert changed == {"extension/protocol.generated.js", "docs/protocol.md"}  # both written by the generator

    check = """
import sys
from tabmcp import error_tables
from tabmcp.errors import EXTENSION_CODES, TabAsleep, error_for_code, tool_error_class
from tabmcp.protocol_js import GENERATED, render
assert GENERATED.read_text() == render()
assert "    TAB_ASLEEP: 'TAB_ASLEEP', // The browser discarded the tab" in GENERATED.read_text()
doc = error_tables.PROTOCOL_MD.read_text()
assert error_tables.current_docs_table(doc) == error_tables.docs_table()
assert "| `TAB_ASLEEP` | call | yes | The browser discarded the tab" in doc
tree = error_tables.current_tree(error_tables.ERRORS_PY.read_text())
assert tree == error_tables.tree() and "TabAsleep" in tree and "TAB_ASLEEP:" in tree
assert "TAB_ASLEEP" in EXTENSION_CODES and tool_error_class("TAB_ASLEEP") is TabAsleep
assert type(error_for_code("TAB_ASLEEP", "m")) is TabAsleep
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", check], cwd=scratch, env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
