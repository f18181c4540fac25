"""The injection scanner's false positives on benign text and detection of encoded orders.

Run from the repository root::

    ./dev bench scanner_quality            # or: .venv/bin/python -m bench scanner_quality
    ./dev bench scanner_quality --before main   # beside the scanner at another revision

**Benign text** nobody on this project wrote, every piece read by both scanners: the definition
scanner (:func:`tabmcp.core.injection.scan_text`, what a tool's own text goes through) and the
result scanner (:func:`tabmcp.core.injection.scan_result_text`, what a page's answers go through):

* every tool description (with its parameters' descriptions) of ``mcp_catalog.json`` (682 real
  MCP tools) and every plugin description and user query of ``metatool.json``;
* the READMEs of the installed Python packages (their long descriptions) and of the installed npm
  packages (``node_modules/*/README.md``), in 1,500-character pieces.

**Hostile text**: ``bench/data/trust_hostile.json`` (orders an injected page returns, written for
the trust bench before this scanner decoded anything), each written plainly and in every disguise
the scanner decodes (look-alike letters of three scripts, 1337, letters split by dots or spaces,
``&nbsp;`` and numeric entities, base64 and hex runs, ROT13, reversed).

Every piece is split by a hash of its label into ``tuning`` (about a third: the decoders' triggers
and patterns may be adjusted to it) and ``test`` (never looked at); the tables report both, the
test columns are the honest figures. No timing here: ``./dev bench gate`` gives the cost.
"""

from __future__ import annotations

import argparse
import base64
import codecs
import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from types import ModuleType

from ._data import ROOT, data_dir
from ._table import print_table

HOSTILE = ROOT / "bench" / "data" / "trust_hostile.json"
NODE_MODULES = ROOT / "node_modules"
PIECE = 1_500

Scanner = Callable[[str], list[str]]


def split_of(label: str) -> str:
    """``tuning`` for about a third of the labels, ``test`` for the rest, by a stable hash."""
    return "tuning" if hashlib.blake2b(label.encode(), digest_size=2).digest()[0] % 3 == 0 else "test"


# ---------------------------------------------------------------------------- benign text


def _pieces(label: str, body: str) -> list[tuple[str, str]]:
    return [(f"{label}:{i}", body[i : i + PIECE]) for i in range(0, min(len(body), 30_000), PIECE) if body[i:].strip()]


def benign() -> dict[str, list[tuple[str, str]]]:
    sets: dict[str, list[tuple[str, str]]] = {}
    catalog_file, metatool_file = data_dir() / "mcp_catalog.json", data_dir() / "metatool.json"
    if catalog_file.is_file():
        catalog = json.loads(catalog_file.read_text())
        texts = []
        for cat in catalog["categories"]:
            for tool in cat["tools"]:
                props = (tool.get("inputSchema") or {}).get("properties") or {}
                params = "\n".join(
                    f"- {k}: {v.get('description', '')}" for k, v in props.items() if isinstance(v, dict)
                )
                texts.append((f"catalog:{tool['name']}", f"{tool.get('description', '')}\n{params}".strip()))
        sets["MCP catalog tool descriptions"] = texts
    if metatool_file.is_file():
        metatool = json.loads(metatool_file.read_text())
        texts = []
        for tool in metatool["tools"]:
            texts.append((f"plugin:{tool['name']}", tool.get("description", "")))
            texts.append((f"plugin-model:{tool['name']}", tool.get("description_for_model", "")))
        texts += [(f"query:{i}", q["query"]) for i, q in enumerate(metatool["queries"])]
        sets["MetaTool plugins + queries"] = texts
    readmes: list[tuple[str, str]] = []
    for dist in sorted(metadata.distributions(), key=lambda d: d.name or ""):
        body = dist.metadata.get_payload() or dist.metadata.get("Description") or ""  # type: ignore[attr-defined]
        readmes += _pieces(f"pypi:{dist.name}", body)
    sets["Python package READMEs"] = readmes
    npm: list[tuple[str, str]] = []
    for readme in sorted(NODE_MODULES.glob("*/README.md")) + sorted(NODE_MODULES.glob("@*/*/README.md")):
        npm += _pieces(f"npm:{readme.parent.name}", readme.read_text(errors="replace"))
    sets["npm package READMEs"] = npm
    return sets


# ---------------------------------------------------------------------------- hostile text


def _lookalikes(script: range) -> dict[str, str]:
    """ASCII letter → a letter of ``script`` Unicode's confusables table lists as looking like it."""
    import unicodedata

    from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

    out: dict[str, str] = {}
    for char, glyphs in sorted(confusables_data.items()):
        if len(char) != 1 or ord(char) not in script:
            continue
        for glyph in glyphs:
            base = "".join(c for c in unicodedata.normalize("NFKD", glyph["c"]) if not unicodedata.combining(c))
            if len(base) == 1 and base.isascii() and base.isalpha():
                out.setdefault(base if char.isupper() or not char.islower() else base.lower(), char)
    return out


def encodings() -> dict[str, Callable[[str], str]]:
    tables = {
        "Cherokee look-alikes": _lookalikes(range(0x13A0, 0x1400)),
        "Cyrillic look-alikes": _lookalikes(range(0x0400, 0x0500)),
        "Lisu look-alikes": _lookalikes(range(0xA4D0, 0xA500)),
    }

    def lookalike(table: dict[str, str]) -> Callable[[str], str]:
        return lambda t: "".join(table.get(c, table.get(c.upper(), c)) for c in t)

    leet = str.maketrans("aeiost", "431057")
    return {
        "plain": lambda t: t,
        **{name: lookalike(table) for name, table in tables.items()},
        "full-width": lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),
        "1337": lambda t: t.translate(leet),
        "letters split by dots": lambda t: " ".join(".".join(w) for w in t.split()),
        "letters split by spaces": lambda t: "   ".join(" ".join(w) for w in t.split()),
        "&nbsp; between words": lambda t: "&nbsp;".join(t.split()),
        "numeric entities": lambda t: "".join(f"&#{ord(c)};" for c in t),
        "base64": lambda t: base64.b64encode(t.encode()).decode(),
        "hex": lambda t: t.encode().hex(),
        "ROT13": lambda t: codecs.encode(t, "rot13"),
        "reversed": lambda t: t[::-1],
    }


# ---------------------------------------------------------------------------- scanners


def scanners_at(rev: str) -> tuple[Scanner, Scanner]:
    """``(scan_text, scan_result_text)`` of core/injection.py at a git revision (with the modules it
    imports from core/ that hold no I/O: skeleton, decoding), loaded beside this checkout's."""
    folder = Path(tempfile.mkdtemp(prefix="scanner-")) / "scanner_at"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name in ("injection", "skeleton", "decoding", "linear_re"):
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:bridge/tabmcp/core/{name}.py"], capture_output=True, text=True
        )
        if shown.returncode == 0:
            (folder / f"{name}.py").write_text(shown.stdout)
    spec = importlib.util.spec_from_file_location("scanner_at", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    assert spec and spec.loader
    package: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules["scanner_at"] = package
    spec.loader.exec_module(package)
    module = importlib.import_module("scanner_at.injection")
    return module.scan_text, module.scan_result_text


def _rate(hit: int, n: int) -> str:
    return f"{hit}/{n} ({hit / max(1, n):.1%})"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.scanner_quality")
    parser.add_argument("--before", metavar="REV", help="also measure the scanner at this git revision")
    parser.add_argument("--misses", action="store_true", help="list the TUNING split's misses and false positives")
    args = parser.parse_args(argv)

    from tabmcp.core.injection import scan_result_text, scan_text

    versions: dict[str, tuple[Scanner, Scanner]] = {"now": (scan_text, scan_result_text)}
    if args.before:
        versions[args.before] = scanners_at(args.before)

    rows = []
    shown: list[str] = []
    totals: dict[tuple[str, str, str], list[int]] = {}
    sets = benign()
    for name, texts in sets.items():
        row: list[object] = [name, len(texts)]
        for version, (definitions, results) in versions.items():
            for kind, scan in (("definitions", definitions), ("results", results)):
                counts = {"tuning": [0, 0], "test": [0, 0]}
                for label, text in texts:
                    split = split_of(label)
                    counts[split][1] += 1
                    if scan(text):
                        counts[split][0] += 1
                        if args.misses and split == "tuning" and version == "now":
                            shown.append(f"  FP {kind} {label}: {scan(text)[0][:150]}")
                for split, (hit, n) in counts.items():
                    total = totals.setdefault((version, kind, split), [0, 0])
                    total[0] += hit
                    total[1] += n
                row += [_rate(*counts["test"]), _rate(*counts["tuning"])] if len(versions) == 1 else [
                    _rate(*counts["test"])]
        rows.append(row)
    total_row: list[object] = ["all benign text", sum(t[1] for (v, k, s), t in totals.items()
                                                     if v == "now" and k == "results")]
    for version in versions:
        for kind in ("definitions", "results"):
            total_row += [_rate(*totals[(version, kind, "test")])]
            if len(versions) == 1:
                total_row += [_rate(*totals[(version, kind, "tuning")])]
    rows.append(total_row)
    if len(versions) == 1:
        headers = ["benign set", "pieces", "definition scanner: test", "(tuning)", "result scanner: test", "(tuning)"]
    else:
        headers = ["benign set", "pieces"] + [f"{kind} scanner {version}: test" for version in versions
                                              for kind in ("definition", "result")]
    print_table("False positives: benign text flagged", headers, rows,
                note="test = the pieces never looked at while tuning (about two thirds of each set).")

    # what the common case pays: how often benign text gets a reading beyond its plain one
    from tabmcp.core.decoding import readings

    fired: dict[str, int] = {}
    pieces = 0
    for texts in sets.values():
        for _, text in texts:
            pieces += 1
            for how in {how for how, _ in readings(text)} - {"plain"}:
                fired[how] = fired.get(how, 0) + 1
    print_table(
        "Benign pieces read more than once (each extra reading is one more pass of the patterns)",
        ["extra reading", "pieces", "share"],
        [[how, n, f"{n / max(1, pieces):.1%}"] for how, n in sorted(fired.items())] or [["none", 0, "0%"]],
        note=f"of {pieces} benign pieces; the others are read once (their plain reading).",
    )

    hostile = [(h["text"], h["split"]) for h in json.loads(HOSTILE.read_text())["results"]]
    drows = []
    for encoding, encode in encodings().items():
        row = [encoding]
        for version, (_, results) in versions.items():
            for split in ("test", "tuning"):
                items = [encode(text) for text, s in hostile if s == split]
                hit = 0
                for item in items:
                    if results(item):
                        hit += 1
                    elif args.misses and split == "tuning" and version == "now":
                        shown.append(f"  MISS {encoding}: {item[:150]!r}")
                row.append(_rate(hit, len(items)))
        drows.append(row)
    print_table(
        "Detection: hostile results flagged, by disguise (result scanner)",
        ["disguise"] + [f"{version}: {split}" for version in versions for split in ("test", "tuning")],
        drows,
        note=f"{len(hostile)} orders of bench/data/trust_hostile.json, each in every disguise; its own split "
        "(test: never adjusted to). A disguise can only be caught as often as its plain order is.",
    )
    if shown:
        print("\n" + "\n".join(shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
