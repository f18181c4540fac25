"""What keeping page text behind the gate costs on the listing and call paths: CPU time, one code
tree against another in the same run.

Run from the repository root::

    ./py -m bench page_text                          # this tree alone
    ./py -m bench page_text --against /tmp/before    # beside another checkout's bridge/ (the baseline)

Each row is one operation the gate's reach touches: applying a page's snapshot (the definition
check reads every page-written field of every new definition; a snapshot that re-sends known
definitions costs a memo lookup), rebuilding tools/list after a change (each definition's text
cleaned of hidden characters), ``introspect`` (each document's text through a gate: clean, cap,
frame, scan) and a short page result through the gate (the call path). Times are CPU time
(``time.process_time``) of the process doing the work, medians of several rounds, and the two trees
run alternately, round by round, so the load of a shared machine falls on both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._table import print_table

TOOLS = 100
TABS = 10


def _snapshot(tab_id: int, tools: int, salt: str) -> dict[str, Any]:
    return {
        "tabId": tab_id, "url": f"https://shop{tab_id}.test/orders", "title": f"Shop {tab_id}",
        "documentId": f"doc-{tab_id}",
        "tools": [{
            "name": f"tool_{i}", "title": f"Tool {i}",
            "description": f"Does thing {i} for the person's orders ({salt}). Returns the order list.",
            "inputSchema": {"type": "object", "properties": {
                "id": {"type": "integer", "description": "The order's number."},
                "note": {"type": "string", "description": "A note to keep with it."}}, "required": ["id"]},
            "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean", "description": "Done."}}},
            "annotations": {"readOnlyHint": i % 2 == 0, "title": f"Tool {i}"},
        } for i in range(tools)],
        "categories": [{"name": "orders", "description": "Orders: list them, refund them.",
                        "tools": [f"tool_{i}" for i in range(min(tools, 10))]}],
        "states": ["signed-in"],
    }


def _cpu(fn: Callable[[], Any], repeat: int) -> float:
    """Median CPU milliseconds of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def measure(repeat: int) -> dict[str, float]:
    """One round of every operation, in this process's tree."""
    from tabmcp.core.disclosure import Disclosure
    from tabmcp.core.registry import Registry
    from tabmcp.core.trust.results import ResultSource, process_result
    from tabmcp.protocol import TabSnapshot

    registry = Registry()
    disclosure = Disclosure(registry, profile="passthrough")
    counter = iter(range(10**9))

    def apply_new() -> None:
        registry.apply(TabSnapshot.model_validate(_snapshot(1, TOOLS, f"r{next(counter)}")))

    same = TabSnapshot.model_validate(_snapshot(1, TOOLS, "same"))
    registry.apply(same)

    def apply_same() -> None:
        registry.apply(TabSnapshot.model_validate(_snapshot(1, TOOLS, "same")))

    def listing_after_change(profile: str) -> Callable[[], Any]:
        def run() -> None:
            registry.apply(TabSnapshot.model_validate({**_snapshot(1, TOOLS, "same"),
                                                       "url": f"https://shop1.test/{next(counter)}"}))
            disclosure.listing(profile=profile)  # type: ignore[arg-type]
        return run

    def introspect() -> None:
        answer: Any = disclosure.introspect()
        if hasattr(answer, "text"):  # the gated answer: its framed text is what the agent reads
            answer.text()
        else:
            json.dumps(answer)

    src = ResultSource(origin="https://shop1.test")

    def result() -> None:
        process_result({"content": [{"type": "text", "text": "Order 42 shipped on Monday."}]}, src)

    out = {
        f"apply a snapshot, {TOOLS} new definitions": _cpu(apply_new, repeat),
        f"apply a snapshot, {TOOLS} known definitions": _cpu(apply_same, repeat),
        f"tools/list after a change, passthrough, {TOOLS} tools": _cpu(listing_after_change("passthrough"), repeat),
        f"tools/list after a change, categories, {TOOLS} tools": _cpu(listing_after_change("categories"), repeat),
    }
    for tab_id in range(2, TABS + 1):
        registry.apply(TabSnapshot.model_validate(_snapshot(tab_id, 10, "same")))
    out[f"introspect, {TABS} tabs"] = _cpu(introspect, repeat)
    out["a short page result through the gate"] = _cpu(result, repeat * 20)
    out.update(_call_path(repeat))
    return out


class _Context:
    """One tools/call's context over a real core, the page answering at once (no link)."""

    def __init__(self, core: Any) -> None:
        from tabmcp.core.disclosure import ClientView
        from tabmcp.core.trust.guard import install_trust

        self.bridge, self.view, self.trust = core, ClientView(dynamic=True), install_trust(core)

    async def notify_changed(self, *, expanded: str | None = None) -> None:
        return None

    async def approve(self, entry: Any, arguments: dict[str, Any], *, reason: str = "") -> None:
        return None

    async def offload(self, fn: Callable[[], Any]) -> Any:
        return fn()


def _call_path(repeat: int) -> dict[str, float]:
    """The call path below the transport (``CallPath.run``: the activity row, the call, the page's
    answer through the gate, the masks), the page answering at once: what typing the answers
    (``PageJson`` in, ``ShownResult`` out) could cost."""
    import asyncio

    from tabmcp.config import Config
    from tabmcp.errors import page_error
    from tabmcp.protocol import TabSnapshot
    from tabmcp.server.call_path import CallPath
    from tabmcp.wiring import BridgeCore

    core = BridgeCore(Config().with_overrides({"store": {"path": ":memory:"}, "policy": {"allow_writes": True}}))
    core.registry.apply(TabSnapshot.model_validate({"tabId": 1, "url": "https://shop1.test/", "title": "Shop",
                                                    "documentId": "d1", "tools": [
        {"name": "read_order", "description": "Read an order.", "annotations": {"readOnlyHint": True},
         "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}}}]}))
    ctx = _Context(core)
    path = CallPath(core)
    answer = {"content": [{"type": "text", "text": "Order 42 shipped on Monday."}]}
    failing = False

    async def call_tool(entry: Any, arguments: dict[str, Any], **_: Any) -> Any:
        if failing:
            exc = page_error("E_ORDER", "no such order", {"id": 42})
            exc.tab_id = 1
            raise exc
        return answer

    core.call_tool = call_tool  # type: ignore[method-assign]
    loop = asyncio.new_event_loop()

    def one() -> None:
        loop.run_until_complete(path.run(ctx, "read_order", {"id": 42}, "bench", modern=True))  # type: ignore[arg-type]

    def failed() -> None:
        nonlocal failing
        failing = True
        try:
            one()
        finally:
            failing = False

    out = {"a page tool call, core call path": _cpu(one, repeat * 20),
           "a page tool call failing with the page's error": _cpu(failed, repeat * 20)}
    loop.close()
    return out


def _round(tree: Path | None, repeat: int) -> dict[str, float]:
    env = dict(os.environ)
    here = Path(__file__).resolve().parent.parent
    bridge = (tree / "bridge") if tree else here / "bridge"
    env["PYTHONPATH"] = f"{bridge}{os.pathsep}{here}"
    done = subprocess.run([sys.executable, "-m", "bench.page_text", "--child", str(repeat)], env=env,
                          capture_output=True, text=True, check=True, cwd=here)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.page_text")
    parser.add_argument("--against", type=Path, help="another checkout (its bridge/ is the baseline)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child)))
        return 0
    trees: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.against:
        trees.insert(0, (f"baseline ({args.against})", args.against))
    runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
    for _ in range(args.rounds):
        for label, tree in trees:
            runs[label].append(_round(tree, args.repeat))
    ops = list(runs["this tree"][0])
    medians = {label: {op: statistics.median(r[op] for r in rs) for op in ops} for label, rs in runs.items()}
    rows = []
    for op in ops:
        row = [op] + [f"{medians[label][op]:.3f}" for label, _ in trees]
        if args.against:
            base, now = medians[trees[0][0]][op], medians["this tree"][op]
            row.append(f"{now / base:.2f}×" if base else "-")
        rows.append(row)
    load = os.getloadavg()
    print_table(
        "The gate's reach: CPU ms per operation (median of rounds × repeats)",
        ["operation"] + [label for label, _ in trees] + (["ratio"] if args.against else []),
        rows,
        note=f"{args.rounds} rounds × {args.repeat} repeats, the trees alternating round by round; "
        f"load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} at the end.",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
