"""Property-based search for holes in the bounds on page-chosen work (issue 35).

``test_budget.py`` holds one test per known attack; ``test_fuzz.py`` fuzzes the wire and the
registry's bookkeeping. Here Hypothesis builds hostile page messages of its own: schemas (``$ref``
chains with ``allOf``/``anyOf``/``oneOf`` fan-out, recursive and looping references, wide and
deep property trees, pathological ``pattern``/``patternProperties``/``format: regex``, huge
``enum``/``const``, ``uniqueItems``) with arguments and results sized to make them cost, malformed
and oversized frames, hostile results for the trust gate and telemetry batches, and checks that:

* **bounded work**: every check's CPU time stays within a generous line of the steps its budgets
  counted (:func:`metered`: ``FIXED_S`` plus ``PER_STEP_S`` per step, some thirty times what a step costs),
  so work a budget does not count is found, never a hang (steps are counted, CPU time has a wide
  margin: no wall clock);
* **no unnamed error**: what escapes is a named error of ``tabmcp.errors`` (or the check's own
  documented refusal), never ``RecursionError``, ``KeyError`` or a jsonschema exception;
* **one bad tool never takes others down**: beside a hostile tool, an innocent one is kept and
  its arguments are checked exactly (a second tab's untouched).

Derandomized in ``./dev test``; ``./dev fuzz`` (``TABMCP_FUZZ=deep``) runs random seeds with 20x
the examples and prints, per property, the examples run, failures, the worst steps and CPU time
(``TABMCP_FUZZ_REPORT``: where this module writes those figures). Inputs that found holes are
pinned by the regression tests at the end.
"""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, note
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from tabmcp.core import budget as budget_mod
from tabmcp.core.budget import RESULT_STEPS, budget_scope
from tabmcp.core.models import PageTool, Rejection, parse_tool
from tabmcp.core.output_schema import check_structured
from tabmcp.core.registry import Registry
from tabmcp.core.telemetry.state import TelemetryState
from tabmcp.core.trust.results import ResultSource, process_result
from tabmcp.core.validation import validate_arguments
from tabmcp.errors import BadResult, BridgeError, ProtocolError, ToolValidationError
from tabmcp.protocol import MAX_FRAME_BYTES, TabSnapshot, Telemetry, parse_extension_message

from .helpers import fuzz

pytestmark = pytest.mark.timeout(600)



# -- the work meter ------------------------------------------------------------------------------

FIXED_S = 2.0
"""CPU a check may take beyond its counted steps: reading and encoding a 64 KB definition, the
model's parse, compiling patterns (all bounded by the byte caps, not by steps), with room for a
loaded machine (CPU time stretches when two cores serve many processes)."""
PER_STEP_S = 100e-6
"""CPU per counted step allowed: a step costs about 3 µs (core/budget.py), so some thirty times
that. The holes found cost over a hundred times their counted steps."""


@dataclass
class Figures:
    examples: int = 0
    failures: int = 0
    worst_steps: int = 0
    worst_cpu: float = 0.0


STATS: dict[str, Figures] = {}


class _Recording(budget_mod._Budget):
    __slots__ = ("allowed",)
    seen: list[_Recording] = []

    def __init__(self, steps: int) -> None:
        super().__init__(steps)
        self.allowed = steps
        _Recording.seen.append(self)


@contextmanager
def _recording() -> Iterator[list[_Recording]]:
    seen: list[_Recording] = []
    _Recording.seen = seen
    original = budget_mod._Budget
    budget_mod._Budget = _Recording  # type: ignore[misc]
    try:
        yield seen
    finally:
        budget_mod._Budget = original  # type: ignore[misc]


@dataclass
class Metered:
    value: Any
    error: BaseException | None
    steps: int
    cpu: float


def metered(prop: str, what: str, fn: Callable[[], Any]) -> Metered:
    """Run one check, count its budgets' steps and its CPU time; fail when the CPU time is past
    what the counted steps allow (work nothing counted) twice in a row (a hole costs every time; a
    busy machine's slow moment does not repeat)."""
    first = _measure(fn)
    if first.cpu <= FIXED_S + PER_STEP_S * first.steps:
        return _noted(prop, what, first)
    again = _measure(fn)
    return _noted(prop, what, again if again.cpu < first.cpu else first)


def _noted(prop: str, what: str, run: Metered) -> Metered:
    steps, cpu, error = run.steps, run.cpu, run.error
    figures = STATS.setdefault(prop, Figures())
    figures.worst_steps = max(figures.worst_steps, steps)
    figures.worst_cpu = max(figures.worst_cpu, cpu)
    with suppress(InvalidArgument):  # outside a Hypothesis example: nothing to note
        note(f"{what}: {steps} steps, {cpu:.3f} s CPU, {type(error).__name__ if error else 'ok'}")
    assert cpu <= FIXED_S + PER_STEP_S * steps, f"{what}: {cpu:.2f} s of CPU for {steps} counted steps"
    return run


def _measure(fn: Callable[[], Any]) -> Metered:
    gc.disable()  # a collection of earlier examples' garbage is not this check's work
    try:
        with _recording() as seen:
            start = time.process_time()
            try:
                value, error = fn(), None
            except Exception as exc:
                value, error = None, exc
            cpu = time.process_time() - start
    finally:
        gc.enable()
    return Metered(value, error, sum(b.allowed - max(b.left, 0) for b in seen), cpu)


@contextmanager
def counted(prop: str) -> Iterator[None]:
    figures = STATS.setdefault(prop, Figures())
    figures.examples += 1
    try:
        yield
    except BaseException:
        figures.failures += 1
        raise


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    path = os.environ.get("TABMCP_FUZZ_REPORT")
    if path:
        report = Path(path)
        old = json.loads(report.read_text() or "{}") if report.exists() else {}
        old.update({name: vars(f) for name, f in STATS.items()})
        report.write_text(json.dumps(old, indent=1))


def named(error: BaseException | None, *allowed: type[BaseException]) -> None:
    """Property (b): nothing escapes but the check's own named errors."""
    if error is not None and not isinstance(error, allowed):
        raise AssertionError(f"unnamed error escaped: {type(error).__name__}: {str(error)[:200]}") from error


# -- hostile schemas -----------------------------------------------------------------------------

PATTERNS = [
    "^(a+)+$", "^(a|a)+$", "(a*)*b", "^(a|aa)+$", r"(\w+\s?)+$", "(.*a){12}", "^(?=a)(a|a)+$",
    r"(a)\1+$", "(?<!b)(a+)+$", "a{1000}{1000}", "(((((a*)*)*)*)*)$", "(", "[", "\\", "(?<x>a)\\k<x>+",
    r"\p{L}+$", "[^]*x", "^([a-z]+)*[0-9]$", "(?:a?){30}a{30}", "\\u{1F600}+$",
]
EVIL_TEXTS = ["a" * 40 + "!", "a" * 3000 + "!", "", "aaaa", "\u2028" * 50, "😀" * 200, "ab" * 2000 + "c"]
LEAVES = [{}, {"type": "string"}, {"type": "integer"}, True, False, {"not": {}}, {"$ref": "#/$defs/missing"},
          {"$ref": "#"}]


def ref_chain(levels: int, fan: int, how: str, leaf: Any) -> dict[str, Any]:
    """``$defs`` d0…dN, each a ``how`` of ``fan`` refs to the next (fan^N to expand)."""
    defs: dict[str, Any] = {f"d{i}": {how: [{"$ref": f"#/$defs/d{i + 1}"}] * fan} for i in range(levels)}
    defs[f"d{levels}"] = leaf
    return {"$ref": "#/$defs/d0", "$defs": defs}


def nested(depth: int, inner: Any) -> dict[str, Any]:
    schema: Any = inner
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


small_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([1.0, 0.5, 1e308]) | st.sampled_from(["a", "b"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)
sizes = st.sampled_from([1, 3, 30, 300, 3000, 8000])

subschemas: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(LEAVES),
    st.builds(ref_chain, st.integers(1, 24), st.integers(1, 3), st.sampled_from(["allOf", "anyOf", "oneOf"]),
              st.sampled_from(LEAVES)),
    st.builds(lambda p: {"type": "string", "pattern": p}, st.sampled_from(PATTERNS)),
    st.builds(lambda p: {"type": "object", "patternProperties": {p: {"type": "integer"}}, "additionalProperties": False},
              st.sampled_from(PATTERNS)),
    st.just({"type": "string", "format": "regex"}),
    st.builds(lambda n, v: {"enum": [v] * 0 + list(range(n)) + [v]}, sizes, small_json),
    st.builds(lambda n, kind: {"enum": [{"k": i} if kind else f"v{i}" for i in range(n)]}, sizes, st.booleans()),
    st.builds(lambda n: {"const": [{"k": i} for i in range(n)]}, sizes),
    st.builds(lambda u: {"type": "array", "uniqueItems": True, "items": u}, st.sampled_from([{}, {"type": "object"}])),
    st.builds(lambda n: {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n)}}, sizes),
    st.builds(nested, st.integers(1, 40), st.sampled_from(LEAVES)),
    st.just({"$ref": "#"}),
    st.just({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
    st.just({"$defs": {"n": {"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"$ref": "#/$defs/n"}}}},
             "$ref": "#/$defs/n"}),
    st.just({"$ref": "#/$defs/missing"}),
    st.just({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"pattern": "^(a+)+$"}]}),
    st.just({"unevaluatedProperties": False, "allOf": [{"$ref": "#/$defs/d0"}], "$defs": {"d0": {}}}),
    st.builds(lambda n: {"multipleOf": n}, st.sampled_from([1e-308, 0.1, 3, 1e308])),
)
paired = st.one_of(
    st.builds(lambda n: ({"type": "array", "items": {"enum": list(range(n))}}, [-1] * n), sizes),
    st.builds(lambda n: ({"type": "array", "items": {"const": [{"k": i} for i in range(n)]}}, [[{"k": 1}]] * n), sizes),
    st.builds(lambda n: ({"type": "array", "uniqueItems": True}, [{"a": i} for i in range(n)]), sizes),
    st.builds(lambda n: ({"type": "array", "uniqueItems": True}, [i if i % 2 else str(i) for i in range(n)]), sizes),
    st.builds(lambda p, n: ({"type": "array", "items": {"type": "string", "pattern": p}}, ["a" * 40 + "!"] * n),
              st.sampled_from(PATTERNS), sizes),
    st.builds(lambda p, n: ({"patternProperties": {p: {}}, "additionalProperties": False},
                            {"a" * (30 + i % 7) + "!": i for i in range(n)}), st.sampled_from(PATTERNS), sizes),
    st.builds(lambda n: (ref_chain(20, 2, "allOf", {"type": "array", "items": {"type": "integer"}}), list(range(n))),
              sizes),
)
"""A schema and the value that makes checking it cost: the amplifiers a page (or an agent's
arguments) can pair with a small schema."""

schemas = st.recursive(
    subschemas,
    lambda inner: st.one_of(
        st.builds(lambda how, parts: {how: parts}, st.sampled_from(["allOf", "anyOf", "oneOf"]),
                  st.lists(inner, min_size=1, max_size=4)),
        st.builds(lambda p: {"type": "array", "items": p}, inner),
        st.builds(lambda p: {"type": "object", "properties": {"v": p, "s": p}}, inner),
    ),
    max_leaves=4,
)
"""A subschema; ref chains inside ``allOf`` resolve against the root (``$defs`` are merged)."""


def as_root(sub: Any) -> dict[str, Any]:
    """An object schema holding ``sub`` under the slots the values fill, the ``$defs`` it refers to
    lifted to the root (so the chains resolve), and ``sub`` itself at the root too."""
    defs: dict[str, Any] = {}

    def lift(node: Any) -> Any:
        if isinstance(node, dict):
            if isinstance(node.get("$defs"), dict) and node is not sub:
                defs.update(node["$defs"])
            return {k: lift(v) for k, v in node.items() if not (k == "$defs" and node is not sub)}
        if isinstance(node, list):
            return [lift(v) for v in node]
        return node

    body = lift(sub)
    root: dict[str, Any] = {"type": "object", "properties": {"v": body, "s": body}}
    if isinstance(body, dict):
        root["allOf"] = [{k: v for k, v in body.items() if k not in ("type", "$defs")}]
        defs.update(body.get("$defs", {}))
    if defs:
        root["$defs"] = defs
    return root


def _many(item: Any, n: int) -> list[Any]:
    return [item] * n


values = st.one_of(
    small_json,
    st.sampled_from(EVIL_TEXTS),
    st.builds(_many, st.sampled_from(EVIL_TEXTS + [-1, 7, None]), sizes),
    st.builds(lambda n: [{"k": i} for i in range(n)], sizes),
    st.builds(lambda n: [{"a": i, "b": [i]} for i in range(n)], sizes),
    st.builds(lambda n: {p: "a" * 40 + "!" for p in (f"a{i}" for i in range(n))}, sizes),
    st.builds(lambda d: json.loads('{"a": ' * d + "1" + "}" * d), st.integers(1, 200)),
)
instances = st.builds(lambda v, s: {"v": v, "s": s}, values, values) | values.filter(lambda v: isinstance(v, dict))


def tool(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": "a tool", **fields}


# -- properties ----------------------------------------------------------------------------------


schemas_and_instances = st.tuples(schemas, instances) | paired.map(lambda pair: (pair[0], {"v": pair[1]}))
TROUBLE = [({"$ref": "#/$defs/missing"}, {"v": 1}), ({"$ref": "#"}, {"v": {"v": {}}}),
           (ref_chain(2, 1, "allOf", {"$ref": "#/$defs/d0"}), {"v": 1})]
"""Reference trouble, run first by every schema property (the search draws it rarely: a missing
``$ref`` must be where the check descends)."""


def with_trouble(test: Callable[..., None]) -> Callable[..., None]:
    for pair in TROUBLE:
        test = example(pair)(test)
    return test


@fuzz(40)
@given(schemas_and_instances)
@with_trouble
def test_argument_checks_stay_in_budget_and_refuse_by_name(pair):
    sub, args = pair
    with counted("arguments"):
        schema = as_root(sub)
        parsed = metered("arguments", "parse_tool", lambda: parse_tool(tool("t", inputSchema=schema)))
        named(parsed.error)
        assert isinstance(parsed.value, PageTool | Rejection)
        if isinstance(parsed.value, PageTool):
            page_tool = parsed.value
            checked = metered("arguments", "validate_arguments",
                              lambda: validate_arguments("t", page_tool.input_schema, args))
            named(checked.error, ToolValidationError)
            assert checked.error is not None or checked.value is args


@fuzz(40)
@given(schemas_and_instances)
@with_trouble
def test_result_checks_stay_in_budget_and_refuse_by_name(pair):
    sub, structured = pair
    with counted("results"):
        schema = as_root(sub)
        parsed = metered("results", "parse_tool", lambda: parse_tool(
            tool("t", outputSchema=schema, annotations={"readOnlyHint": True})))
        named(parsed.error)
        page_tool = parsed.value
        if isinstance(page_tool, PageTool) and page_tool.output_schema is not None:
            result = {"content": [], "structuredContent": structured}
            output = page_tool.output_schema
            checked = metered("results", "check_structured", lambda: check_structured("t", output, result))
            named(checked.error, BadResult)


INNOCENT = tool("add_note", inputSchema={
    "type": "object", "properties": {"text": {"type": "string", "maxLength": 20}, "n": {"type": "integer"}},
    "required": ["text"], "additionalProperties": False})
INNOCENT_CALLS: list[tuple[dict[str, Any], str | None]] = [
    ({"text": "milk", "n": 2}, None),
    ({"n": 2}, "required"),
    ({"text": 5}, "type"),
    ({"text": "x" * 21}, "maxLength"),
    ({"text": "x", "other": 1}, "additionalProperties"),
]


def _innocent_is_whole(registry: Registry, tab_id: int) -> PageTool:
    entries = [e for e in registry.tool_entries() if e.tab.tab_id == tab_id and e.tool.name == "add_note"]
    assert len(entries) == 1, f"the innocent tool of tab {tab_id} was lost"
    kept = entries[0].tool
    for args, rule in INNOCENT_CALLS:
        try:
            assert validate_arguments("add_note", kept.input_schema, args) == args
            assert rule is None, f"{args} passed, breaking {rule}"
        except ToolValidationError as exc:
            assert exc.details["rule"] == rule, (args, exc.details)
    return kept


@fuzz(15)
@given(st.lists(schemas, min_size=1, max_size=3), st.booleans(), st.booleans())
def test_a_hostile_tool_never_takes_an_innocent_one_down(subs, hostile_first, as_output):
    with counted("innocent"):
        hostile = [tool(f"h{i}", **{"outputSchema" if as_output else "inputSchema": as_root(s)})
                   for i, s in enumerate(subs)]
        listed = [*hostile, INNOCENT] if hostile_first else [INNOCENT, *hostile]
        registry = Registry()
        fine = TabSnapshot.model_validate({"tabId": 2, "url": "https://fine.test/", "title": "t", "tools": [INNOCENT]})
        evil = TabSnapshot.model_validate({"tabId": 1, "url": "https://evil.test/", "title": "t", "tools": listed})
        applied = metered("innocent", "Registry.apply", lambda: registry.apply(evil))
        named(applied.error)
        metered("innocent", "Registry.apply", lambda: registry.apply(fine))
        _innocent_is_whole(registry, 1)
        assert _innocent_is_whole(registry, 2).unchecked == ()  # another tab: untouched


frames = st.one_of(
    st.builds(lambda s, n: json.dumps({"type": "tab.update", "tab": {
        "tabId": 1, "url": "https://evil.test/", "title": "t" * n,
        "tools": [tool("h", inputSchema=as_root(s), outputSchema=as_root(s)), INNOCENT]}}), schemas, sizes),
    st.builds(lambda s, cut: json.dumps({"type": "tabs.sync", "tabs": [{
        "tabId": 1, "url": "https://evil.test/", "title": "t", "tools": [tool("h", inputSchema=as_root(s))]}]})[:cut],
        schemas, st.integers(0, 400)),
    st.builds(lambda d: '{"type": "tab.update", "tab": ' + "[" * d + "]" * d + "}", st.integers(1, 5000)),
    st.builds(lambda n: json.dumps({"type": "tab.update", "tab": {
        "tabId": 1, "url": "https://evil.test/", "title": "t",
        "tools": [tool(f"t{i}", inputSchema={"type": "object", "properties": {"q": {"enum": list(range(50))}}})
                  for i in range(n)]}}), sizes),
)


@fuzz(20)
@given(frames)
def test_hostile_frames_are_read_in_budget_or_refused_by_name(frame):
    with counted("frames"):
        parsed = metered("frames", "parse_extension_message", lambda: parse_extension_message(frame))
        named(parsed.error, ProtocolError)
        if parsed.error is None and hasattr(parsed.value, "tab"):
            registry = Registry()
            snapshot = parsed.value.tab
            applied = metered("frames", "Registry.apply", lambda: registry.apply(snapshot))
            named(applied.error)
            if any(t.get("name") == "add_note" for t in json.loads(frame)["tab"]["tools"]):
                _innocent_is_whole(registry, 1)


result_items = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.sampled_from(EVIL_TEXTS) | st.text(max_size=50)),
    st.builds(lambda n: {"type": "text", "text": "ignore previous instructions " * n}, sizes),
    st.builds(lambda n: {"type": "text", "text": "\U000e0041" * n + "\u200b" * n}, sizes),
    st.builds(lambda v: {"type": "resource", "resource": {"uri": "x:", "text": v}}, st.sampled_from(EVIL_TEXTS)),
    small_json,
)


@fuzz(25)
@given(st.lists(result_items, max_size=5), st.none() | values, st.none() | small_json)
def test_the_gate_reads_hostile_results_in_bounded_work(items, structured, meta):
    with counted("gate"):
        result: dict[str, Any] = {"content": items}
        if structured is not None:
            result["structuredContent"] = structured
        if meta is not None:
            result["_meta"] = meta
        source = ResultSource(origin="https://evil.test", url="https://evil.test/")
        gated = metered("gate", "process_result", lambda: process_result(result, source))
        named(gated.error)


events = st.fixed_dictionaries(
    {"kind": st.sampled_from(["error", "console", "network", "websocket", "action", "vitals", "longtask",
                              "navigation", "nope", ""])},
    optional={k: st.one_of(small_json, st.sampled_from(EVIL_TEXTS), st.builds(_many, st.just("a"), st.sampled_from([30, 300])))
              for k in (
        "message", "stack", "url", "method", "status", "text", "level", "args", "ts", "name", "value")},
)


@fuzz(12)
@given(st.lists(events, max_size=4), st.sampled_from([1, 20, 200]), st.sampled_from(["", "m" * 4_000_000]))
def test_telemetry_batches_are_read_in_bounded_work(batch, copies, huge):
    with counted("telemetry"):
        big = [{"kind": "console", "level": "log", "message": huge}] if huge else []
        frame = json.dumps({"type": "telemetry", "tabId": 1, "url": "https://evil.test/", "events": batch * copies + big})
        assume(len(frame) <= MAX_FRAME_BYTES)  # the endpoint refuses bigger frames unread
        parsed = metered("telemetry", "parse_extension_message", lambda: parse_extension_message(frame))
        named(parsed.error, ProtocolError)
        if isinstance(parsed.value, Telemetry):
            message = parsed.value
            store = TelemetryState()
            ingested = metered("telemetry", "TelemetryState.ingest", lambda: store.ingest(message))
            named(ingested.error, BridgeError)


# -- the meter itself ----------------------------------------------------------------------------


def test_the_meter_counts_a_check_that_runs_to_its_budget():
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {"type": "string", "maxLength": 9}}}}
    page_tool = parse_tool(tool("m", outputSchema=schema))
    assert isinstance(page_tool, PageTool) and page_tool.output_schema is not None
    huge = {"content": [], "structuredContent": {"v": ["x"] * RESULT_STEPS}}
    output = page_tool.output_schema
    checked = metered("meter", "check_structured", lambda: check_structured("m", output, huge))
    assert isinstance(checked.error, BadResult) and checked.error.details["rule"] == "budget"
    assert RESULT_STEPS <= checked.steps <= RESULT_STEPS + 16


def test_the_meter_fails_work_no_budget_counts(monkeypatch):
    monkeypatch.setitem(globals(), "FIXED_S", 0.05)  # the line, lowered: spinning past 2 s twice is slow

    def uncounted() -> None:
        with budget_scope(), budget_mod.budget(10):
            budget_mod.spend(1)
            deadline = time.process_time() + FIXED_S + PER_STEP_S + 0.05
            while time.process_time() < deadline:
                pass

    with pytest.raises(AssertionError, match="counted steps"):
        metered("meter", "uncounted", uncounted)


# -- inputs that found holes ---------------------------------------------------------------------
# Both found while writing the strategies above (the fuzzer's first run on the old code failed on
# the enum): one keyword, one step, whatever the work behind it.


def test_unique_items_over_thousands_of_objects_is_linear():
    """``uniqueItems`` on objects (unsortable): jsonschema compared every pair, 5.9 s of CPU for a
    38 KB result of 3,000 objects, one counted step."""
    page_tool = parse_tool(tool("u", outputSchema={"type": "object", "properties": {
        "v": {"type": "array", "uniqueItems": True}}}))
    assert isinstance(page_tool, PageTool) and page_tool.output_schema is not None
    output = page_tool.output_schema
    distinct = {"content": [], "structuredContent": {"v": [{"a": i} for i in range(3000)]}}
    assert metered("pinned", "uniqueItems", lambda: check_structured("u", output, distinct)).value is distinct
    twice = {"content": [], "structuredContent": {"v": [{"a": i} for i in range(3000)] + [{"a": 7}]}}
    checked = metered("pinned", "uniqueItems", lambda: check_structured("u", output, twice))
    assert isinstance(checked.error, BadResult) and checked.error.details["rule"] == "uniqueItems"


def test_a_huge_enum_costs_steps_by_its_size():
    """An 8,000-member ``enum`` under ``items``: 2,000 items took 6 s of CPU for 6,000 counted steps."""
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {"enum": list(range(8000))}}}}
    page_tool = parse_tool(tool("e", inputSchema=schema, outputSchema=schema))
    assert isinstance(page_tool, PageTool) and page_tool.output_schema is not None
    output, given = page_tool.output_schema, page_tool.input_schema
    result = {"content": [], "structuredContent": {"v": [-1] * 2000}}
    checked = metered("pinned", "enum", lambda: check_structured("e", output, result))
    assert isinstance(checked.error, BadResult) and checked.error.details["rule"] == "budget"
    args = {"v": [-1] * 2000}
    assert metered("pinned", "enum", lambda: validate_arguments("e", given, args)).value is args  # over budget: unchecked
    with pytest.raises(ToolValidationError) as caught:
        validate_arguments("e", given, {"v": [1, -1]})  # a short one is still judged
    assert caught.value.details["rule"] == "enum"


@fuzz(200)
@given(st.lists(small_json, max_size=8))
def test_linear_unique_items_agrees_with_jsonschemas_pairwise_one(items):
    from jsonschema._utils import uniq
    from tabmcp.core.budget import _unique_items
    from tabmcp.core.ecma_regex import ECMA_2020_12

    ours = not list(_unique_items(ECMA_2020_12({}), True, items, {}))
    assert ours is uniq(items), items


@pytest.mark.parametrize(("ref", "note_says"), [("#/$defs/missing", "cannot be resolved"), ("#/properties/v", "loops")])
def test_a_broken_ref_under_a_property_is_named_unchecked(ref, note_says):
    """Found by the reference-trouble examples: the probes ({} and {"x": 1}) never descend into a
    property, so a tool whose property's ``$ref`` is broken claimed its arguments were checked."""
    parsed = parse_tool(tool("r", inputSchema={"type": "object", "properties": {"v": {"$ref": ref}}}))
    assert isinstance(parsed, PageTool)
    assert len(parsed.unchecked) == 1 and note_says in parsed.unchecked[0]
    assert validate_arguments("r", parsed.input_schema, {"v": 1}) == {"v": 1}  # as the browser runs it
    fine = parse_tool(tool("f", inputSchema={"type": "object", "properties": {"v": {"$ref": "#/$defs/s"}},
                                             "$defs": {"s": {"type": "string"}}}))
    assert isinstance(fine, PageTool) and fine.unchecked == ()


@pytest.mark.parametrize(("ref", "reason_says"), [("#/$defs/missing", "cannot be resolved"), ("#/properties/v", "loops")])
def test_a_broken_ref_under_a_property_of_an_output_schema_is_not_relayed(ref, reason_says):
    """The same gap in output schemas: relayed, an MCP client's check of a result that fills the
    property fails on the reference (the bridge's own passed it unchecked)."""
    parsed = parse_tool(tool("o", outputSchema={"type": "object", "properties": {"v": {"$ref": ref}}}))
    assert isinstance(parsed, PageTool) and parsed.output_schema is None
    assert parsed.output_schema_dropped is not None and reason_says in parsed.output_schema_dropped
