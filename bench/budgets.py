"""What the work budgets on page schemas cost on the normal path, and what an attack costs now.

Run from the repository root::

    ./dev bench budgets            # or: .venv/bin/python -m bench.budgets [--rounds N]

**Normal path**: every tool of the public catalog (``mcp_catalog.json``, 682 tools of 17 MCP
servers) has its arguments checked with arguments that fill every property; CPU time per check
with the bridge's validator (ECMA patterns on RE2, every keyword counted under a budget) against
the same schemas checked the way the bridge did before the budgets (the same ECMA keywords on
``regress``, nothing counted), both measured in this run. The steps the costliest catalog tool
takes are printed beside the budget.

**Under attack**: the attacks of issue 35, each the CPU one check now costs (before the budgets:
doubling per level, minutes at 24 levels; the baseline row measures the old path at a size that
ends).

The figures are CPU time (``time.process_time``) so that other load on the machine counts less;
print ``uptime`` beside them.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import regress
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend
from tabmcp.core import budget as budget_mod
from tabmcp.core import models
from tabmcp.core.budget import DOCUMENT_STEPS, SCHEMA_STEPS, OverBudget, budget, budget_scope
from tabmcp.core.ecma_regex import ECMA_DRAFT7, ecma_search
from tabmcp.core.models import PageTool, parse_tool, schema_validator_class
from tabmcp.core.output_schema import check_structured
from tabmcp.core.validation import validate_arguments
from tabmcp.errors import BadResult

from ._data import catalog_path
from ._table import fmt_ms, print_table


def _catalog() -> list[dict[str, Any]]:
    path = catalog_path()
    if path is None:
        raise SystemExit("mcp_catalog.json not found (set TABMCP_DATA)")
    data = json.loads(path.read_text())
    return [t for c in data["categories"] for t in c.get("tools", []) if t.get("inputSchema")]


def _instance(schema: Any, depth: int = 0) -> Any:
    """Arguments that fill every property the schema declares (two items per array)."""
    if not isinstance(schema, dict) or depth > 6:
        return None
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        return {k: _instance(v, depth + 1) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [_instance(schema.get("items") or {}, depth + 1)] * 2
    return {"integer": 1, "number": 1.5, "boolean": True, "null": None}.get(str(kind), "abc")


@functools.cache
def _old_ecma_class(base: type[Validator] = Draft202012Validator) -> type[Validator]:
    """The bridge's input validator before the budgets: ECMA patterns on regress, nothing counted."""
    compiled: dict[str, Any] = {}

    def search(pattern: str, text: str) -> bool | None:
        if pattern not in compiled:
            try:
                compiled[pattern] = regress.Regex(pattern, "u")
            except Exception:
                try:
                    compiled[pattern] = regress.Regex(pattern, "")
                except Exception:
                    compiled[pattern] = None
        regex = compiled[pattern]
        return None if regex is None else regex.find(text) is not None

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if validator.is_type(instance, "string") and search(patrn, instance) is False:
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    cls: type[Validator] = extend(base, validators={"pattern": pattern})  # type: ignore[no-untyped-call]
    return cls


def _cpu(fn: Callable[[], Any], rounds: int) -> float:
    start = time.process_time()
    for _ in range(rounds):
        fn()
    return (time.process_time() - start) / rounds


def _chain(levels: int, leaf: dict[str, Any] | None = None) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(levels)
    }
    defs[f"d{levels}"] = leaf if leaf is not None else {}
    return {"type": "object", "$ref": "#/$defs/d0", "$defs": defs}


def normal_path(rounds: int) -> None:
    tools = _catalog()
    cases = []
    for tool in tools:
        schema = tool["inputSchema"]
        if "type" not in schema:
            schema = {"type": "object", **schema}
        cases.append((schema, _instance(schema)))
    old = [(_old_ecma_class(Draft7Validator if schema_validator_class(s) is ECMA_DRAFT7 else Draft202012Validator)(s), a)
           for s, a in cases]
    new = [(schema_validator_class(s)(s), a) for s, a in cases]
    steps = []
    for validator, args in new:
        with budget(10**9):
            for _ in validator.iter_errors(args):
                pass
            current = budget_mod._CURRENT.get()
            assert current is not None
            steps.append(10**9 - current.left)

    def run_old() -> None:
        for validator, args in old:
            for _ in validator.iter_errors(args):
                pass

    def run_new() -> None:
        for validator, args in new:
            with budget():
                for _ in validator.iter_errors(args):
                    pass

    run_old()
    run_new()  # warm both
    t_old, t_new = 0.0, 0.0
    for _ in range(rounds):  # interleaved, so the machine's load falls on both alike
        t_old += _cpu(run_old, 1)
        t_new += _cpu(run_new, 1)
    per_old, per_new = t_old / rounds / len(cases), t_new / rounds / len(cases)
    patterned = [(s, a) for s, a in cases if "pattern" in json.dumps(s)]
    print_table(
        f"Normal path: argument checks of the catalog's {len(cases)} tools (CPU per check, {rounds} rounds)",
        ["validator", "µs per check", "ratio"],
        [["before: ECMA keywords on regress, nothing counted", f"{per_old * 1e6:.1f}", "1.00"],
         ["now: ECMA on RE2, every keyword counted under a budget", f"{per_new * 1e6:.1f}", f"{per_new / per_old:.2f}"]],
        note=f"Steps a catalog check takes: median {sorted(steps)[len(steps) // 2]}, most {max(steps)} "
             f"(budget {SCHEMA_STEPS}); {len(patterned)} of the tools have a pattern.",
    )

    def parse_all() -> None:
        for memo in (models._PARSED, models._VERIFIED, models._DIALECTS):
            memo.clear()
        with budget_scope() as scope:
            for tool in tools:
                parse_tool(tool)
        spent.append(DOCUMENT_STEPS - scope.steps_left)

    spent: list[int] = []

    parse_all()
    per_parse = _cpu(parse_all, max(1, rounds // 5)) / len(tools)
    print_table("Normal path: reading the catalog as one page's tool list (memos cleared)", ["", "value"],
                [["CPU per tool (meta-schema, dialect, probes, all counted)", f"{per_parse * 1e6:.0f} µs"],
                 ["steps the whole list takes", f"{spent[-1]} (budget of one snapshot: {DOCUMENT_STEPS})"]])


def under_attack() -> None:
    rows: list[list[str]] = []

    def row(what: str, fn: Callable[[], Any], outcome: Callable[[Any], str]) -> None:
        start = time.process_time()
        got = fn()
        rows.append([what, fmt_ms(time.process_time() - start), outcome(got)])

    def fresh(**fields: Any) -> Any:
        fields.setdefault("description", f"bench {time.perf_counter_ns()}")  # never a memo hit
        return parse_tool({"name": "bomb", **fields})

    def unchecked(tool: Any) -> str:
        return "; ".join(tool.unchecked) or "(none)"

    old_cls = _old_ecma_class()

    def old_chain(levels: int) -> None:
        for _ in old_cls(_chain(levels)).iter_errors({}):
            pass

    row("before: $ref chain of 14 levels, one argument check (old path)", lambda: old_chain(14), lambda _: "completes")
    row("before: ^(a+)+$ on 22 characters + '!' (regress)",
        lambda: regress.Regex("^(a+)+$", "u").find("a" * 22 + "!"), lambda _: "completes")
    row("$ref chain, 24 levels, as outputSchema (read when the tool list arrives)",
        lambda: fresh(outputSchema=_chain(24)), lambda t: t.output_schema_dropped or "relayed")
    row("$ref chain, 24 levels, as inputSchema (read when the tool list arrives)",
        lambda: fresh(inputSchema=_chain(24)), unchecked)
    bomb = fresh(inputSchema=_chain(24, {"type": "string"}))
    assert isinstance(bomb, PageTool)
    row("… and each call's argument check", lambda: validate_arguments("bomb", bomb.input_schema, {"q": 1}),
        lambda _: "passed on unchecked (logged)")
    out = fresh(outputSchema={"type": "object", "properties": {
        "v": {"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}}}})

    def backtrack_result() -> str:
        try:
            check_structured("t", out.output_schema, {"content": [], "structuredContent": {"v": ["a" * 5000 + "!"] * 12}})
        except BadResult as exc:
            return f"BAD_RESULT rule {exc.details['rule']}"
        return "passed"

    row("result: ^(a+)+$ against twelve 'aaa…a!' of 5,000 characters (RE2)", backtrack_result, str)

    def lookaround() -> str:
        try:
            with budget():
                ecma_search("^(?=a)(a|a)+$", "a" * 60 + "!")
        except OverBudget:
            return "over budget: skipped"
        return "answered"

    row("argument: ^(?=a)(a|a)+$ (lookahead: backtracking engine, deadline)", lookaround, str)

    def document() -> str:
        from tabmcp.core.snapshot_reading import _document
        from tabmcp.protocol import TabSnapshot

        stamp = time.perf_counter_ns()  # every schema its own (a memo hit would cost nothing)
        tools = [{"name": f"b{i}", "description": "x", "inputSchema": {**_chain(24), "title": f"{stamp} {i}"},
                  "outputSchema": {**_chain(24), "title": f"{stamp} {i}"}} for i in range(100)]
        snap = TabSnapshot.model_validate({"tabId": 1, "url": "https://evil.test/", "title": "t", "tools": tools})
        with budget_scope() as scope:
            doc = _document(snap, 1, 0, "https://evil.test")
        return (f"{len(doc.tools)} kept, {scope.overruns} checks ran out of budget, "
                f"{DOCUMENT_STEPS - max(scope.steps_left, 0)} steps, the rest skipped")

    row("one tool list of 100 such tools (both schemas bombs)", document, str)
    print_table("Under attack: CPU of one check, on the bridge's event loop unless said", ["attack", "CPU ms", "outcome"], rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.budgets")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    normal_path(args.rounds)
    under_attack()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
