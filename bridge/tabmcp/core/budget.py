"""Budgets on the work a page chooses: schema checks and the regular expressions in them.

A page writes its schemas, so it chooses what checking them costs, and the bytes say little
about that (a ``$ref`` chain, ``^(a+)+$``). Every such check runs inside :func:`budget`, which
counts the validator's steps; what runs out is skipped and named (:data:`OVER_BUDGET_NOTE`),
never a dropped tool or a stalled event loop (docs/security.md §7, "Work is counted, not bytes").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

from attrs import fields
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend, validator_for

log = logging.getLogger(__name__)

__all__ = [
    "BACKTRACK_SECONDS",
    "COMPILE_STEPS",
    "CUT_AFTER",
    "CUT_OFF_REASON",
    "DOCUMENT_STEPS",
    "MAX_OVERRUNS",
    "META_STEPS",
    "NODES_PER_STEP",
    "OVER_BUDGET_NOTE",
    "OVER_BUDGET_RULE",
    "REF_STEPS",
    "RESULT_STEPS",
    "SCHEMA_STEPS",
    "TAB_OVER_BUDGET",
    "TEXT_STEP_CHARS",
    "BudgetScope",
    "OverBudget",
    "TabWork",
    "backtrack_deadline",
    "budget",
    "budget_scope",
    "check_schema",
    "counted",
    "counting",
    "keep_on_evolve",
    "scope_exhausted",
    "spend",
]

SCHEMA_STEPS = 10_000
"""Steps one schema check may take (a tool's probes, one call's arguments); the catalogs' costliest
tool takes about 100, and 10,000 is some 30 ms of one core on the costliest shape."""
META_STEPS = 30_000
"""Steps one meta-schema check may take (is the page's schema a JSON Schema at all?): the catalog's
largest schema takes about 3,200, and 30,000 is about 90 ms at most (docs/security.md §7)."""
RESULT_STEPS = 50_000
"""Steps one result's check may take: a result holds more (hundreds of rows), and it is checked
off the event loop (``core/tools/call.py``), so the loop goes on while it runs."""
REF_STEPS = 4
"""What following one reference costs, in steps (resolving it costs about four keywords)."""
BACKTRACK_SECONDS = 0.02
"""Time one check may spend in the backtracking engine (patterns with lookaround or
backreferences, which RE2 cannot run): a deadline, since steps cannot be counted inside it."""
COMPILE_STEPS = 10
"""Reading (parsing, translating, compiling) one pattern, in steps (about 30 µs)."""
TEXT_STEP_CHARS = 256
"""A pattern on a text costs one step plus one per this many characters (RE2 is linear in both)."""

OVER_BUDGET_RULE = "budget"
"""The ``rule`` of a result or argument check that ran out of budget and was not completed."""
OVER_BUDGET_NOTE = (
    "checking against it takes more work than the bridge gives one check "
    "(core/budget.py): skipped, not checked"
)
"""The ``unchecked`` note (and the dropped output schema's reason) for a schema over budget."""


class OverBudget(Exception):
    """The work a page chose ran past its budget; the check that raised it is skipped."""


class _Budget:
    __slots__ = ("deadline", "left")

    def __init__(self, steps: int) -> None:
        self.left = steps
        self.deadline: float | None = None


_CURRENT: ContextVar[_Budget | None] = ContextVar("tabmcp_budget", default=None)


class BudgetScope:
    """The checks of one snapshot: after :data:`MAX_OVERRUNS` overruns, or :data:`DOCUMENT_STEPS` in
    all, the rest are skipped (tools kept), so a list of bombs costs a bounded amount at any size."""

    __slots__ = ("limit", "overruns", "steps_left")

    def __init__(self, limit: int, steps: int) -> None:
        self.limit = limit
        self.overruns = 0
        self.steps_left = steps

    @property
    def exhausted(self) -> bool:
        return self.overruns >= self.limit or self.steps_left <= 0


MAX_OVERRUNS = 2
DOCUMENT_STEPS = 500_000
"""Steps all the checks of one snapshot may take together (the 682-tool catalog as one page takes
about 240,000); past it the rest is skipped and the tab charged half of :data:`CUT_AFTER`."""
_SCOPE: ContextVar[BudgetScope | None] = ContextVar("tabmcp_budget_scope", default=None)


@contextmanager
def budget_scope(limit: int = MAX_OVERRUNS, steps: int = DOCUMENT_STEPS) -> Iterator[BudgetScope]:
    """Run one snapshot's checks in a scope (nested scopes share the outer one)."""
    outer = _SCOPE.get()
    if outer is not None:
        yield outer
        return
    scope = BudgetScope(limit, steps)
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def scope_exhausted() -> bool:
    """Has the running :func:`budget_scope` used up its overruns or steps (checks now skipped)?"""
    scope = _SCOPE.get()
    return scope is not None and scope.exhausted


@contextmanager
def budget(steps: int = SCHEMA_STEPS) -> Iterator[None]:
    """Run one check with ``steps`` to spend; inner work raises :class:`OverBudget` past them.

    A nested ``budget`` shares the outer one, so a check inside a check cannot reset the count.

    Raises:
        OverBudget: at once when the running :func:`budget_scope` is exhausted.
    """
    if _CURRENT.get() is not None:
        yield
        return
    scope = _SCOPE.get()
    if scope is not None and scope.exhausted:
        raise OverBudget
    allowed = steps if scope is None else min(steps, scope.steps_left)
    current = _Budget(allowed)
    token = _CURRENT.set(current)
    try:
        yield
    except OverBudget:
        if scope is not None:
            scope.overruns += 1
        raise
    finally:
        _CURRENT.reset(token)
        if scope is not None:
            scope.steps_left -= allowed - max(current.left, 0)


def spend(steps: int = 1) -> None:
    """Take ``steps`` from the running budget (none running: free, for the bridge's own schemas).

    Raises:
        OverBudget: the budget ran out.
    """
    current = _CURRENT.get()
    if current is None:
        return
    current.left -= steps
    if current.left < 0:
        raise OverBudget


def backtrack_deadline() -> float | None:
    """Seconds the backtracking engine may still run in this check (None: no budget running).

    Raises:
        OverBudget: the check has used its :data:`BACKTRACK_SECONDS`.
    """
    current = _CURRENT.get()
    if current is None:
        return None
    now = time.monotonic()
    if current.deadline is None:
        current.deadline = now + BACKTRACK_SECONDS
    left = current.deadline - now
    if left <= 0:
        raise OverBudget
    return left


_REFS = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})
NODES_PER_STEP = 8
"""JSON values (nodes) one step compares: ``enum`` and ``const`` compare the instance with every
node of the schema's value, ``uniqueItems`` reads every node of the instance (about 0.4 µs each)."""


def _nodes(value: Any) -> int:
    """How many JSON values ``value`` holds, itself included (iteratively: no recursion)."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _canonical(value: Any) -> Any:
    """A hashable form equal for values JSON Schema calls equal (jsonschema's ``equal``: ``1`` is
    ``1.0``, ``true`` is not ``1``, an object's key order does not count)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    return value


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Any:
    """``uniqueItems`` in linear time: jsonschema's own compares every pair of items that do not
    sort (objects, arrays, mixed types), seconds for a few thousand objects in a page's result."""
    if not (unique and validator.is_type(instance, "array")):
        return
    seen: set[Any] = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield ValidationError("the array has non-unique elements")
            return
        seen.add(key)


def _counting(name: str, keyword: Any) -> Any:
    steps = REF_STEPS if name in _REFS else 1
    if name in ("enum", "const"):  # their work grows with the schema's value, not with one keyword

        def by_value(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            spend(steps + _nodes(value) // NODES_PER_STEP)
            return keyword(validator, value, instance, schema)

        return by_value
    if name == "uniqueItems":  # its work grows with the instance's size

        def by_instance(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            spend(steps + (_nodes(instance) // NODES_PER_STEP if value and isinstance(instance, list) else 0))
            return _unique_items(validator, value, instance, schema)

        return by_instance

    def counted_keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        spend(steps)
        return keyword(validator, value, instance, schema)

    return counted_keyword


def counting(keywords: Mapping[str, Any]) -> dict[str, Any]:
    """jsonschema keyword functions, each spending one step of the running :func:`budget` first.

    ``$ref`` is a keyword too, so a chain of references costs what it expands to, and a check
    stops after :data:`SCHEMA_STEPS` of them whatever the schema's shape."""
    return {name: _counting(name, fn) for name, fn in keywords.items()}


@cache
def counted(base: type[Validator]) -> type[Validator]:
    """``base`` (a plain jsonschema validator class) with every keyword counted (:func:`counting`)."""
    cls: type[Validator] = extend(base, validators=counting(base.VALIDATORS))  # type: ignore[no-untyped-call]
    return keep_on_evolve(cls, counted)


def check_schema(cls: type[Validator], schema: Any, format_checker: Any = None, steps: int = META_STEPS) -> None:
    """``cls.check_schema(schema)`` with the meta-schema's validator counted under ``steps``.

    Raises:
        SchemaError: ``schema`` is not valid under ``cls``'s meta-schema.
        OverBudget: the check ran out of steps (its answer is unknown).
    """
    meta = counted(validator_for(cls.META_SCHEMA, default=cls))
    validator = meta(cls.META_SCHEMA, format_checker=format_checker or meta.FORMAT_CHECKER)
    with budget(steps):
        for error in validator.iter_errors(schema):
            raise SchemaError.create_from(error)


def keep_on_evolve(cls: type[Validator], mapper: Callable[[type[Validator]], type[Validator]]) -> type[Validator]:
    """``cls`` whose subschemas stay on its kind of class.

    Otherwise a subschema's own ``$schema`` would move the check onto jsonschema's plain class,
    uncounted and with patterns on Python's ``re``."""

    def evolve(self: Any, **changes: Any) -> Any:
        schema = changes.setdefault("schema", self.schema)
        new_class = validator_for(schema, default=type(self))
        if new_class is not type(self):
            new_class = mapper(new_class)
        for each in fields(type(self)):
            if each.init and each.alias not in changes:
                changes[each.alias] = getattr(self, each.name)
        return new_class(**changes)

    cls.evolve = evolve  # type: ignore[method-assign]
    return cls


TAB_OVER_BUDGET = "TAB_OVER_BUDGET"
"""The named reason a tab is cut off: its pages kept sending schemas whose checks ran over budget."""
CUT_AFTER = 6
"""Overruns (checks that ran out of budget, a memoized outcome not counted again) within
:data:`WINDOW_S` after which a tab is cut off: three tool lists of fresh bombs."""
WINDOW_S = 60.0
CUT_FOR_S = 300.0
"""How long a cut-off tab's tool lists go unread (its tools as last read are kept)."""


class TabWork:
    """The per-tab rule for work, as :class:`tabmcp.core.flood.TabFlood` is for telemetry: a tab whose
    checks keep running over budget is not read for :data:`CUT_FOR_S`, alone, and the person is told why."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._runs: dict[tuple[int, str], list[float]] = {}
        self._cut: dict[tuple[int, str], float] = {}
        self.cut_total = 0

    def note(self, tab_id: int, origin: str, scope: BudgetScope) -> bool:
        """Count the overruns of one snapshot's checks; True when the tab is cut off by them."""
        overruns = scope.overruns + (CUT_AFTER // 2 if scope.steps_left <= 0 else 0)
        if overruns <= 0:
            return False
        now = self._clock()
        key = (tab_id, origin)
        runs = [t for t in self._runs.get(key, ()) if now - t < WINDOW_S] + [now] * overruns
        self._runs[key] = runs[-CUT_AFTER:]
        if len(runs) < CUT_AFTER:
            return False
        self._cut[key] = now + CUT_FOR_S
        self._runs.pop(key, None)
        self.cut_total += 1
        log.warning("tab %d (%s): its schemas ran over the work budget %d times in %g s: its tool lists are "
                    "not read for %g s (%s); other tabs are not affected", tab_id, origin, CUT_AFTER,
                    WINDOW_S, CUT_FOR_S, TAB_OVER_BUDGET)
        return True

    def cut_off(self, tab_id: int, origin: str) -> bool:
        """Are this tab's tool lists (from ``origin``) to go unread now?"""
        until = self._cut.get((tab_id, origin))
        if until is None:
            return False
        if self._clock() >= until:
            del self._cut[(tab_id, origin)]
            return False
        return True

    def forget(self, tab_id: int) -> None:
        """The tab closed."""
        for table in (self._runs, self._cut):
            for key in [k for k in table if k[0] == tab_id]:
                del table[key]


CUT_OFF_REASON = (
    f"{TAB_OVER_BUDGET}: this tab's tool schemas kept costing more work to check than the bridge "
    f"gives one page; its new tool lists are not read for {CUT_FOR_S:g} s (its tools as last read are kept)"
)
"""What the person (the extension's error report, the bridge's log) and ``introspect`` read."""
