"""Joins the polyfill's source modules into the one script pages and the extension load.

The polyfill is written as ES modules under ``polyfill/src/`` (one job each: the standard's API,
schema, events, registry, native layering, the legacy alias, declarative forms, our extensions;
see :data:`MODULES`). Pages, the extension and the npm package load one classic script,
``polyfill/webmcp-polyfill.js``: this module renders it by putting the modules, in
:data:`MODULES` order, inside one IIFE. No bundler: each module's ``import`` / ``export``
statements become comments (``// esm: ...``, they are resolved by sharing the IIFE's scope), every
other line is indented two spaces, and one marker line ``  // ==== src/NAME.js ====`` opens each
module. The join is reversible: ``--split`` rewrites the modules from an edited generated file
(so a patch made to the script can land on the modules). ``polyfill/tests/test_sources.py``
fails when the committed script differs from what this renders.

Rules the modules keep (the renderer checks the first three):

* imports and exports are statements at column 0: ``import { a, b } from './x.js';`` and one
  ``export { ... };`` list (no ``export function``: the list is what the split restores);
* every imported name is in the imported module's export list;
* top-level names are unique across modules (they share one scope in the script);
* a module assigns only its own top-level bindings (others get a setter), as ES modules require;
* no multi-line string literals (indenting would change them).

Commands::

    .venv/bin/python -m tabmcp.polyfill_js            # write polyfill/webmcp-polyfill.js
    .venv/bin/python -m tabmcp.polyfill_js --check    # exit 1 when it is stale
    .venv/bin/python -m tabmcp.polyfill_js --split    # rewrite polyfill/src/*.js from the script
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["GENERATED", "MODULES", "SOURCES", "SourceError", "read_sources", "render", "split"]

_ROOT = Path(__file__).resolve().parents[2]
SOURCES = _ROOT / "polyfill" / "src"
GENERATED = _ROOT / "polyfill" / "webmcp-polyfill.js"

MODULES: tuple[str, ...] = (
    "types",
    "constants",
    "util",
    "mode",
    "schema",
    "events",
    "convert",
    "registry",
    "native",
    "run",
    "results",
    "invoke",
    "views",
    "states",
    "categories",
    "extensions",
    "frames",
    "model-context",
    "legacy",
    "form-schema",
    "declarative",
    "hook",
    "install",
)
"""The modules in script order: a module's top-level code may use only modules before it."""

PROLOGUE = """\
/*!
 * tabmcp WebMCP polyfill: classic script, no build step, no dependencies.
 *
 * - Provides the current WebMCP draft on `document.modelContext` where the browser has none
 *   (registerTool / getTools / executeTool, the toolchange / toolactivated / toolcancel events).
 * - Where the browser has a native `document.modelContext`, keeps it and only wraps `registerTool`
 *   and adds what is missing (categories, list(), page states, scope bookkeeping).
 * - Keeps the older shape as a deprecated alias on `navigator.modelContext`.
 * - Exposes a small internal hook for the tabmcp extension on
 *   `globalThis[Symbol.for('tabmcp.webmcp')]`.
 *
 * Loading it twice (or after another copy) changes nothing. Safe at document_start.
 * Reference: docs/polyfill.md. Types: polyfill/webmcp-polyfill.d.ts.
 *
 * GENERATED from the modules in polyfill/src/ by `python -m tabmcp.polyfill_js`: edit the
 * modules, or edit this file and run `python -m tabmcp.polyfill_js --split` (docs/polyfill.md).
 */
(function () {
  'use strict';

"""
EPILOGUE = "})();\n"
MARKER = "  // ==== src/{name}.js ===="
ESM = "// esm: "

_MARKER_RE = re.compile(r"^  // ==== src/([A-Za-z0-9_-]+)\.js ====$", re.M)
_ESM_START = re.compile(r"^(import|export)\b")
_INLINE_EXPORT = re.compile(r"^export\s+(default|function|async|const|let|var|class)\b")
_IMPORT = re.compile(r"^import\s*\{([^}]*)\}\s*from\s*'\./([A-Za-z0-9_-]+)\.js';$")
_EXPORT = re.compile(r"^export\s*\{([^}]*)\};$")


class SourceError(ValueError):
    """A module breaks a rule of the join (see the module docstring), or the script cannot be split."""


def read_sources(directory: Path = SOURCES) -> dict[str, str]:
    """The modules' text by name, in :data:`MODULES` order; every ``*.js`` there must be listed."""
    found = {p.stem for p in directory.glob("*.js")}
    unlisted = sorted(found - set(MODULES))
    if unlisted:
        raise SourceError(f"polyfill/src has modules MODULES does not list: {', '.join(unlisted)}")
    missing = [m for m in MODULES if m not in found]
    if missing:
        raise SourceError(f"MODULES lists modules polyfill/src does not have: {', '.join(missing)}")
    return {m: (directory / f"{m}.js").read_text(encoding="utf-8") for m in MODULES}


def _statements(name: str, text: str) -> list[tuple[bool, str]]:
    """The module's lines, each marked True when it belongs to an import / export statement."""
    out: list[tuple[bool, str]] = []
    in_esm = False
    for number, line in enumerate(text.split("\n")[:-1], 1):
        where = f"src/{name}.js:{number}"
        if line.startswith(ESM) or _MARKER_RE.match("  " + line):
            raise SourceError(f"{where}: a line may not look like the join's own markers: {line!r}")
        if not in_esm and _ESM_START.match(line):
            if _INLINE_EXPORT.match(line):
                raise SourceError(f"{where}: export names in the module's one `export {{ ... }};` list, "
                                  f"not inline ({line!r})")
            in_esm = True
        out.append((in_esm, line))
        if in_esm and line.rstrip().endswith(";"):
            in_esm = False
    if in_esm:
        raise SourceError(f"src/{name}.js: an import / export statement does not end with ';'")
    return out


def _names(group: str) -> list[str]:
    return [n.strip() for n in group.split(",") if n.strip()]


def _esm_graph(sources: Mapping[str, str]) -> None:
    """Every imported name must be exported by the module it is imported from."""
    exports: dict[str, set[str]] = {}
    imports: dict[str, list[tuple[str, list[str]]]] = {}
    for name, text in sources.items():
        exports[name] = set()
        imports[name] = []
        statement: list[str] = []
        for is_esm, line in _statements(name, text):
            if not is_esm:
                continue
            statement.append(line)
            if not line.rstrip().endswith(";"):
                continue
            joined = " ".join(part.strip() for part in statement)
            statement = []
            if m := _IMPORT.match(joined):
                imports[name].append((m.group(2), _names(m.group(1))))
            elif m := _EXPORT.match(joined):
                exports[name].update(_names(m.group(1)))
            else:
                raise SourceError(f"src/{name}.js: write imports as `import {{ a, b }} from './x.js';` "
                                  f"and exports as one `export {{ a, b }};` ({joined!r})")
    for name, wanted in imports.items():
        for source, names in wanted:
            if source not in sources:
                raise SourceError(f"src/{name}.js imports from ./{source}.js, which is not a module")
            lacking = [n for n in names if n not in exports[source]]
            if lacking:
                raise SourceError(f"src/{name}.js imports {', '.join(lacking)} from ./{source}.js, "
                                  "which does not export them")


_TOP_LEVEL = re.compile(r"(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)|(?:const|let|var|class)\s+([A-Za-z_$][\w$]*)")


def _unique_top_level(sources: Mapping[str, str]) -> None:
    """Top-level declarations share one scope in the script: a name declared by two modules would
    be a SyntaxError there (const, let, class) or, for a function, silently the later one."""
    seen: dict[str, str] = {}
    for name, text in sources.items():
        for is_esm, line in _statements(name, text):
            m = None if is_esm else _TOP_LEVEL.match(line)
            if not m:
                continue
            declared = m.group(1) or m.group(2)
            if declared in seen and seen[declared] != name:
                raise SourceError(f"src/{name}.js declares {declared!r}, as src/{seen[declared]}.js does: "
                                  "the modules share one scope in the script")
            seen[declared] = name


def render(sources: Mapping[str, str] | None = None) -> str:
    """The classic script for the modules (read from ``polyfill/src`` when not given)."""
    sources = read_sources() if sources is None else sources
    _esm_graph(sources)
    _unique_top_level(sources)
    blocks = []
    for name in MODULES:
        text = sources[name]
        if not text.endswith("\n"):
            raise SourceError(f"src/{name}.js must end with a newline")
        lines = [MARKER.format(name=name)]
        for is_esm, line in _statements(name, text):
            if is_esm:
                lines.append("  " + ESM + line)
            else:
                lines.append("  " + line if line else "")
        blocks.append("\n".join(lines) + "\n")
    return PROLOGUE + "\n".join(blocks) + EPILOGUE


def split(script: str) -> dict[str, str]:
    """The modules a generated (maybe edited) script holds: the inverse of :func:`render`."""
    if not script.startswith(PROLOGUE):
        raise SourceError("the script's prologue (before the first module marker) differs from the "
                          "generator's: change PROLOGUE in tabmcp/polyfill_js.py instead")
    if not script.endswith(EPILOGUE):
        raise SourceError(f"the script must end with {EPILOGUE!r}")
    body = script[len(PROLOGUE):-len(EPILOGUE)]
    marks = list(_MARKER_RE.finditer(body))
    if not marks or marks[0].start() != 0:
        raise SourceError("the script's body must start with a module marker line")
    names = [m.group(1) for m in marks]
    if tuple(names) != MODULES:
        raise SourceError(f"the script's modules {names} differ from MODULES: add or rename a module "
                          "in polyfill/src and in MODULES, then render")
    out: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        chunk = body[mark.end() + 1:end]
        if i + 1 < len(marks):
            if not chunk.endswith("\n\n"):
                raise SourceError(f"src/{names[i]}.js: keep one blank line before the next marker")
            chunk = chunk[:-1]
        lines = []
        for line in chunk.split("\n")[:-1]:
            if line.startswith("  " + ESM):
                lines.append(line[2 + len(ESM):])
            elif line == "":
                lines.append("")
            elif line.startswith("  "):
                lines.append(line[2:])
            else:
                raise SourceError(f"src/{names[i]}.js: a line of the script is not indented: {line!r}")
        out[names[i]] = "\n".join(lines) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabmcp.polyfill_js", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when the committed script is stale")
    mode.add_argument("--split", action="store_true", help="rewrite polyfill/src/*.js from the script")
    args = parser.parse_args(argv)
    try:
        if args.split:
            modules = split(GENERATED.read_text(encoding="utf-8"))
            render(modules)  # the edited modules must still keep the join's rules: checked before any is written
            changed = []
            for name, text in modules.items():
                path = SOURCES / f"{name}.js"
                if path.read_text(encoding="utf-8") != text:
                    path.write_text(text, encoding="utf-8")
                    changed.append(name)
            print(f"rewrote {len(changed)} module(s): {', '.join(changed) or 'none'}")
            return 0
        text = render()
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        if GENERATED.read_text(encoding="utf-8") != text:
            print(f"{GENERATED} is stale: run python -m tabmcp.polyfill_js", file=sys.stderr)
            return 1
        return 0
    GENERATED.write_text(text, encoding="utf-8")
    print(f"wrote {GENERATED} ({len(MODULES)} modules)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
