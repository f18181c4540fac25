"""Bounded work for what a page's schemas choose (core/budget.py, core/ecma_regex.py): each test is
an attack from issue 35 that froze the bridge before (the module's timeout is the hang guard; the
assertions are outcomes: the check named as skipped over budget, the tool kept, the verdict)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import regress
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tabmcp.core import budget as budget_mod
from tabmcp.core.budget import MAX_OVERRUNS, OVER_BUDGET_NOTE, OVER_BUDGET_RULE, OverBudget, budget, budget_scope
from tabmcp.core.ecma_regex import NOT_BOUNDED, compile_ecma, ecma_search
from tabmcp.core.models import PageTool, parse_tool
from tabmcp.core.output_schema import check_output_schema, check_structured
from tabmcp.core.validation import validate_arguments
from tabmcp.errors import BadResult, ToolValidationError

pytestmark = pytest.mark.timeout(60)


def ref_chain(levels: int, leaf: dict[str, Any] | None = None) -> dict[str, Any]:
    """The issue's bomb: ``$defs`` d0…dN, each an ``allOf`` of two refs to the next (2^N to expand)."""
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(levels)
    }
    defs[f"d{levels}"] = leaf if leaf is not None else {}
    return {"type": "object", "$ref": "#/$defs/d0", "$defs": defs}


def tool_with(**fields: Any) -> PageTool:
    parsed = parse_tool({"name": fields.pop("name", "bomb"), "description": "a tool", **fields})
    assert isinstance(parsed, PageTool), parsed
    return parsed


def test_the_bomb_is_small():
    assert len(json.dumps(ref_chain(20))) < 1500  # what a byte limit lets through


@pytest.mark.parametrize("leaf", [{}, {"type": "string"}], ids=["accepts", "refuses"])
def test_an_output_schema_ref_chain_is_dropped_over_budget_and_the_tool_kept(leaf):
    tool = tool_with(outputSchema=ref_chain(20, leaf))
    assert tool.output_schema is None
    assert tool.output_schema_dropped == f"outputSchema: {OVER_BUDGET_NOTE}"
    assert tool_with(name="fine", outputSchema=ref_chain(3, leaf)).output_schema is not None  # a short chain is read


@pytest.mark.parametrize("leaf", [{}, {"type": "string"}], ids=["accepts", "refuses"])
def test_an_input_schema_ref_chain_is_named_unchecked_and_calls_go_on(leaf, caplog):
    tool = tool_with(inputSchema=ref_chain(20, leaf))
    assert f"the input schema: {OVER_BUDGET_NOTE}" in tool.unchecked
    with caplog.at_level(logging.WARNING, "tabmcp.core.validation"):
        assert validate_arguments("bomb", tool.input_schema, {"q": "x"}) == {"q": "x"}  # as the browser runs it
    assert "over budget" in caplog.text
    assert tool_with(name="fine", inputSchema=ref_chain(3, leaf)).unchecked == ()


BACKTRACKERS = ["^(a+)+$", "^(a|a)+$"]  # the issue's; and one no backtracking engine's optimizer shortcuts


@pytest.mark.parametrize("evil", BACKTRACKERS)
def test_a_result_pattern_that_backtracks_is_judged_in_linear_time(evil):
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {"type": "string", "pattern": evil}}}}
    tool = tool_with(outputSchema=schema, annotations={"readOnlyHint": True})
    assert tool.output_schema is not None
    bad = {"content": [], "structuredContent": {"v": ["a" * 40 + "!"] * 12}}
    with pytest.raises(BadResult) as caught:
        check_structured("t", tool.output_schema, bad)
    assert caught.value.details["rule"] == "pattern"
    good = {"content": [], "structuredContent": {"v": ["a" * 4000] * 12}}
    assert check_structured("t", tool.output_schema, good) is good


def test_a_result_whose_check_runs_over_budget_is_a_named_error():
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {"type": "string", "maxLength": 9}}}}
    tool = tool_with(outputSchema=schema)
    assert tool.output_schema is not None
    huge = {"content": [], "structuredContent": {"v": ["x"] * (budget_mod.RESULT_STEPS + 1)}}
    with pytest.raises(BadResult) as caught:
        check_structured("t", tool.output_schema, huge)
    assert caught.value.details["rule"] == OVER_BUDGET_RULE


@pytest.mark.parametrize("evil", BACKTRACKERS)
@pytest.mark.parametrize("where", ["pattern", "patternProperties"])
def test_an_argument_pattern_that_backtracks_is_judged_in_linear_time(where, evil):
    if where == "pattern":
        schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": evil}}}
        bad, good = {"s": "a" * 40 + "!"}, {"s": "a" * 40}
    else:
        schema = {"type": "object", "patternProperties": {evil: {"type": "integer"}}, "additionalProperties": False}
        bad, good = {"a" * 40 + "!": 1}, {"a" * 40: 1}
    tool = tool_with(inputSchema=schema)
    assert tool.unchecked == ()
    with pytest.raises(ToolValidationError) as caught:
        validate_arguments("t", tool.input_schema, bad)
    assert caught.value.details["rule"] in ("pattern", "additionalProperties")
    assert validate_arguments("t", tool.input_schema, good) == good


def test_a_lookaround_pattern_runs_under_the_checks_deadline():
    evil = "^(?=a)(a|a)+$"  # lookahead: RE2 cannot, the backtracking engine runs it under a deadline
    assert compile_ecma(evil) is not None and compile_ecma(evil).linear is None  # type: ignore[union-attr]
    with pytest.raises(OverBudget), budget():
        ecma_search(evil, "a" * 60 + "!")
    tool = tool_with(inputSchema={"type": "object", "properties": {"s": {"type": "string", "pattern": evil}}})
    assert validate_arguments("t", tool.input_schema, {"s": "a" * 60 + "!"}) == {"s": "a" * 60 + "!"}  # unchecked
    with pytest.raises(ToolValidationError):
        validate_arguments("t", tool.input_schema, {"s": "b"})  # a quick verdict still holds


def test_a_list_of_bombs_costs_a_few_budgets_and_keeps_every_tool():
    from tabmcp.core.snapshot_reading import _document
    from tabmcp.protocol import TabSnapshot

    tools = [{"name": f"b{i}", "description": "x", "inputSchema": ref_chain(20 + i)} for i in range(12)]
    snap = TabSnapshot.model_validate({"tabId": 1, "url": "https://evil.test/", "title": "t", "tools": tools})
    with budget_scope() as scope:  # the registry's own scope joins this one: its count is seen here
        doc = _document(snap, 1, 0, "https://evil.test")
    assert scope.overruns == MAX_OVERRUNS  # the first ran out; the rest were skipped at once
    assert sorted(doc.tools) == sorted(t["name"] for t in tools)
    assert all(f"the input schema: {OVER_BUDGET_NOTE}" in t.unchecked for t in doc.tools.values())
    later = parse_tool(tools[-1])  # outside the document: skipped-at-once outcomes were not kept
    assert isinstance(later, PageTool) and f"the input schema: {OVER_BUDGET_NOTE}" in later.unchecked


# ECMA-262 semantics kept on the linear engine: each case is checked against regress (the ECMA
# engine) on texts that cannot make it backtrack.
CASES = [
    (r"^\d+[hdw]$", ["12h", "12h\n", "١٢h", "h"]),
    (r"^a.b$", ["a\nb", "a\rb", "a\u2028b", "a\u2029b", "axb", "a😀b"]),
    (r"^\s+$", [" \t", "\u00a0", "\ufeff", "\u2028", "\u200b", "\u3000", "\v", "x"]),
    (r"^\S+$", ["ab", "a\u00a0b", "\ufeff"]),
    (r"^[\s\d]+$", ["1\u00a02", "1x"]),
    (r"^\w+\b", ["abc", "é", "_1"]),
    (r"^[\w-\.]+@x$", ["a-b.c@x", "a b@x"]),
    (r"a{,3}", ["a{,3}", "aaa"]),
    (r"^[^]$", ["x", "\n", ""]),
    (r"^[]$", ["", "x"]),
    (r"\u00e9|\x41|\u{1F600}", ["é", "A", "😀", "e"]),
    (r"^(?<y>\d{4})-(?:0[1-9]|1[0-2])$", ["2024-12", "2024-13"]),
    (r"^\p{Lu}", ["Éa", "éa"]),
    (r"^[a-c\]]+$", ["ab]c", "abd"]),
    (r"^\/\.\*\$$", ["/.*$"]),
    (r"(a)\1", ["aa", "ab"]),
    (r"^(?!.*[Ll]inear).*$", ["my linear", "mine"]),
    (r"(?<=\$)\d+", ["$12", "12"]),
]


@pytest.mark.parametrize(("pattern", "texts"), CASES, ids=[c[0] for c in CASES])
def test_bounded_engines_agree_with_the_ecma_engine(pattern, texts):
    try:
        reference = regress.Regex(pattern, "u")
    except Exception:
        reference = regress.Regex(pattern, "")
    for text in texts:
        expected = reference.find(text) is not None
        assert ecma_search(pattern, text) is expected, (pattern, text)


@pytest.mark.parametrize("pattern", [r"\a", r"\p{Script=Greek}", r"a{2000}", r"\ud800"])
def test_what_no_bounded_engine_means_the_same_is_not_evaluated_and_said_so(pattern):
    assert compile_ecma(pattern) is None
    tool = tool_with(inputSchema={"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}})
    assert tool.unchecked == (f"pattern at /properties/s/pattern: {NOT_BOUNDED}, not checked",)


def test_refusals_name_the_place_and_rule_never_the_pages_text():
    marker = "IGNORE-PREVIOUS-MARKER"
    schema = {"type": "object", "properties": {
        "e": {"enum": [marker]}, "p": {"type": "string", "pattern": f"^{marker}$"},
        "f": {"type": "string", "format": marker}, "c": {"const": marker}}}
    tool = tool_with(inputSchema=schema)
    for args in ({"e": "x"}, {"p": "x"}, {"c": "x"}):
        with pytest.raises(ToolValidationError) as caught:
            validate_arguments("t", tool.input_schema, args)
        assert marker not in str(caught.value) and marker not in json.dumps(caught.value.details)
    _, why = check_output_schema({"type": "object", "properties": {"n": {"type": marker}}})
    assert why is not None and marker not in why and "properties/n/type" in why
    _, why = check_output_schema({"type": "object", "properties": {"x": {"$ref": f"#/$defs/{marker}"}}})
    assert why is not None and marker not in why
    tool = tool_with(name="refs", inputSchema={"type": "object", "properties": {"x": {"$ref": f"#/$defs/{marker}"}}})
    assert tool.unchecked and not any(marker in note for note in tool.unchecked)


def test_a_tab_that_keeps_sending_bombs_is_cut_off_alone_with_a_named_reason():
    from tabmcp.core.budget import CUT_AFTER, CUT_FOR_S, TAB_OVER_BUDGET, TabWork
    from tabmcp.core.registry import Registry
    from tabmcp.protocol import TabSnapshot

    now = [0.0]
    registry = Registry()
    registry.work = TabWork(clock=lambda: now[0])

    def snap(tab_id: int, url: str, tools: list[dict[str, Any]]) -> TabSnapshot:
        return TabSnapshot.model_validate({"tabId": tab_id, "url": url, "title": "t", "tools": tools})

    innocent = {"name": "add_note", "description": "x", "inputSchema": {"type": "object", "properties": {}}}
    registry.apply(snap(2, "https://fine.test/", [innocent]))
    cut_at = None
    for round_ in range(CUT_AFTER):  # fresh bombs each time (a memoized outcome costs nothing again)
        bombs = [{"name": f"cut{round_}", "description": "x", "inputSchema": ref_chain(20 + round_)}]
        change = registry.apply(snap(1, "https://evil.test/", bombs))
        if any(TAB_OVER_BUDGET in r.reason for r in change.rejected):
            cut_at = round_
            break
    assert cut_at is not None and cut_at < CUT_AFTER  # a few tool lists, then cut off
    kept = {e.tool.name for e in registry.tool_entries() if e.tab.tab_id == 1}
    assert kept == {f"cut{cut_at}"}  # its tools as last read stay
    change = registry.apply(snap(1, "https://evil.test/", [innocent]))  # not read while cut off
    assert not change.changed and any(TAB_OVER_BUDGET in r.reason for r in change.rejected)
    assert {e.tool.name for e in registry.tool_entries() if e.tab.tab_id == 1} == kept
    change = registry.apply(snap(2, "https://fine.test/", [innocent, {**innocent, "name": "more"}]))
    assert change.changed and not change.rejected  # every other tab goes on
    change = registry.apply(snap(1, "https://other.test/", [innocent]))  # the tab went elsewhere: read
    assert change.changed
    now[0] += CUT_FOR_S
    assert registry.apply(snap(1, "https://evil.test/", [innocent])).changed  # and the cut ends


def test_a_schema_too_large_to_verify_in_budget_is_kept_unread():
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(2000)}}
    assert len(json.dumps(wide)) < 64 * 1024  # under the byte limit: only the work tells
    tool = tool_with(inputSchema=wide)
    assert tool.unchecked == (f"the input schema: {OVER_BUDGET_NOTE}",)
    assert validate_arguments("wide", tool.input_schema, {"p1": ""}) == {"p1": ""}  # unread, unchecked
    dropped = tool_with(name="wide_out", outputSchema=wide)
    assert dropped.output_schema is None and dropped.output_schema_dropped == f"outputSchema: {OVER_BUDGET_NOTE}"


def test_a_subschema_naming_another_dialect_stays_counted_and_on_bounded_engines():
    draft7 = "http://json-schema.org/draft-07/schema#"
    bomb = ref_chain(14)  # 2^14 expansions: over budget when counted, a fraction of a second when not
    bomb["$defs"]["d1"]["$schema"] = draft7  # jsonschema would move to the plain Draft 7 class here
    assert f"the input schema: {OVER_BUDGET_NOTE}" in tool_with(inputSchema=bomb).unchecked
    schema = {"type": "object", "properties": {"s": {"$ref": "#/$defs/s"}},
              "$defs": {"s": {"$schema": draft7, "type": "string", "pattern": r"^\d+$"}}}
    tool = tool_with(name="mixed", inputSchema=schema)
    with pytest.raises(ToolValidationError):
        validate_arguments("mixed", tool.input_schema, {"s": "١٢"})  # ECMA's \d is ASCII (Python's re is not)
    assert validate_arguments("mixed", tool.input_schema, {"s": "12"}) == {"s": "12"}


_PIECES = ["a", "b", "é", "😀", ".", r"\s", r"\S", r"\d", r"\w", r"\W", r"\b", "[ab]", "[^a]", r"[\s\d]", "[a-c]",
           "(", ")", "(?:", "|", "*", "+", "?", "{1,2}", "^", "$", r"\u00a0", r"\x62", "[^]", "[]"]
_TEXT = st.text(alphabet="ab 1\n\r\t\u00a0\u2028\ufeffé😀_-", max_size=8)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("".join), st.lists(_TEXT, min_size=1, max_size=4))
def test_the_translation_agrees_with_the_ecma_engine_on_generated_patterns(pattern, texts):
    """Property: wherever the bridge evaluates a pattern on RE2, it says what ECMA-262 says."""
    try:
        reference = regress.Regex(pattern, "u")
    except Exception:
        assume(False)
        return
    compiled = compile_ecma(pattern)
    assume(compiled is not None and compiled.linear is not None)
    for text in texts:
        assert ecma_search(pattern, text) is (reference.find(text) is not None), (pattern, text)


def test_format_regex_is_an_annotation_so_no_page_text_is_compiled_for_it():
    schema = {"type": "object", "properties": {"r": {"type": "string", "format": "regex"}}}
    tool = tool_with(name="fmt", inputSchema=schema)
    for value in ("^(a+)+$", "(((", "a" * 40 + "!"):  # never compiled, never run: nothing to budget
        assert validate_arguments("fmt", tool.input_schema, {"r": value}) == {"r": value}
