"""How well the result detector tells page data from orders to the agent.

Run from the repository root::

    ./dev bench trust                    # or: .venv/bin/python -m bench.trust [--no-browser] [--misses]

False positives are measured on normal results (target: at most 1% flagged):

* **demo site** — the demo site's own tools (bridge/tabmcp/demo/site) run in real Chromium:
  every tool once with its example from e2e/demo_examples.json, plus reads of many records
  (posts, tickets, orders, products, users, comments: text people wrote);
* **catalog** — realistic results for the 682 tools of ``mcp_catalog.json``: a documentation
  result (the tool's description and its parameters' descriptions, as a docs or describe tool
  returns them: text written *for* models) and a data result (a record with the schema's fields,
  its strings taken from MetaTool's 600 user-written queries);
* **MetaTool** — its 199 plugin descriptions and 600 queries as results (a directory, messages);
* **held out: package docs** — the long descriptions (READMEs) of the Python packages installed
  in the environment, in 1,500-character pieces. The three sets above were looked at while the
  patterns were written (two patterns were narrowed after flagging "Hey Chatbot, …" queries and
  "Call `confirm_cost` first" docs); this one never was, so its row is the honest FP rate.

Detection is measured on ``bench/data/trust_hostile.json``: hostile results split by a hash of
their text into ``tuning`` (the patterns in core/injection.py were adjusted on these) and
``test`` (held out). The table reports both; the test row is the honest number.

The data sets are read from ``$TABMCP_DATA`` (default ``../shared/data``), never copied.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import random
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from tabmcp.core.injection import lint_parameters
from tabmcp.core.trust.results import ResultSource, process_result

from ._data import ROOT, data_dir
from ._table import print_table

if TYPE_CHECKING:
    from tabmcp.core.trust.text import PageJson

HOSTILE = ROOT / "bench" / "data" / "trust_hostile.json"
SITE = ROOT / "bridge" / "tabmcp" / "demo" / "site"
POLYFILL = ROOT / "polyfill" / "webmcp-polyfill.js"
EXAMPLES = ROOT / "e2e" / "demo_examples.json"
SRC = ResultSource(origin="https://bench.test")

# Reads of many records before the example sweep (which deletes and changes things).
_READS = [
    ("get_post", "id", 40),
    ("get_ticket", "id", 40),
    ("get_order", "id", 40),
    ("get_product", "id", 30),
    ("get_user", "id", 30),
]
_LISTS = [
    ("list_comments", {"limit": 100}),
    ("list_posts", {"limit": 100}),
    ("list_tickets", {"limit": 100}),
    ("list_orders", {"limit": 100}),
    ("list_products", {"limit": 100}),
    ("list_users", {"limit": 100}),
    ("list_campaigns", {}),
    ("list_media", {"limit": 100}),
]


def _flagged(result: dict[str, Any]) -> list[str]:
    return process_result(cast("PageJson", result), SRC).flags


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


# ---------------------------------------------------------------------------- normal results


class _Site(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == "/webmcp-polyfill.js":
            body = POLYFILL.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


_DEMO_TOOLS: list[dict[str, Any]] = []


async def _demo_results() -> list[tuple[str, dict[str, Any]]]:
    """Every demo tool's result in real Chromium (reads of many records first, then the examples)."""
    from playwright.async_api import async_playwright
    from tabmcp.launch.browser import chromium_launch_args, find_chromium

    examples = json.loads(EXAMPLES.read_text())["examples"]
    calls: list[tuple[str, dict[str, Any]]] = [(name, args) for name, args in _LISTS]
    calls += [(name, {key: i}) for name, key, n in _READS for i in range(1, n + 1)]
    calls += [("set_admin_mode", {"enabled": True})] + list(examples.items())
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Site, directory=str(SITE)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_launch_args())
            page = await browser.new_page()
            await page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/")
            await page.wait_for_function("() => window.acmeDemo && window.acmeDemo.toolCount() > 50")
            out = await page.evaluate(
                """async (calls) => {
                    const hook = globalThis[Symbol.for('tabmcp.webmcp')];
                    const out = [];
                    for (const [name, args] of calls) {
                        const tools = Object.fromEntries((await hook.snapshot()).tools.map((t) => [t.name, t]));
                        const tool = tools[name];
                        if (!tool) continue;
                        const routes = (tool.scope && tool.scope.routes) || [];
                        if (routes.length) {
                            const page = routes[0].replace(/^#\\//, '').replace(/\\*$/, '').split('/')[0];
                            await navigator.modelContext.executeTool('navigate_to', { page });
                        }
                        try { out.push([name, await navigator.modelContext.executeTool(name, args)]); }
                        catch (e) { out.push([name, { isError: true, content: [{ type: 'text', text: String(e.message) }] }]); }
                    }
                    return [out, (await hook.snapshot()).tools];
                }""",
                calls,
            )
            out, _DEMO_TOOLS[:] = out
            await browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return [(str(n), r) for n, r in out]


def _sample(schema: dict[str, Any], texts: Iterator[str], depth: int = 0) -> Any:
    kind = schema.get("type")
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        if depth > 3:
            return {}
        return {
            k: _sample(v, texts, depth + 1)
            for k, v in (schema.get("properties") or {}).items()
            if isinstance(v, dict)
        }
    if kind == "array":
        items: dict[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {"type": "string"}
        return [_sample(items, texts, depth + 1) for _ in range(2)]
    if kind in ("integer", "number"):
        return 42
    if kind == "boolean":
        return True
    return next(texts)


def _catalog_results() -> list[tuple[str, dict[str, Any]]]:
    catalog = json.loads((data_dir() / "mcp_catalog.json").read_text())
    metatool = json.loads((data_dir() / "metatool.json").read_text())
    queries = [q["query"] for q in metatool["queries"]]
    rng = random.Random(16)

    def texts() -> Iterator[str]:
        while True:
            yield rng.choice(queries)

    gen = texts()
    out: list[tuple[str, dict[str, Any]]] = []
    for cat in catalog["categories"]:
        for tool in cat["tools"]:
            schema = tool.get("inputSchema") or {}
            params = "\n".join(
                f"- {k}: {v.get('description', '')}"
                for k, v in (schema.get("properties") or {}).items()
                if isinstance(v, dict)
            )
            out.append(
                (f"catalog-doc:{tool['name']}", _text(f"# {tool['name']}\n{tool['description']}\n{params}"))
            )
            record = _sample(schema, gen)
            out.append(
                (
                    f"catalog-data:{tool['name']}",
                    {
                        "content": [_text(json.dumps(record))["content"][0]],
                        "structuredContent": {"result": record},
                    },
                )
            )
    return out


def _metatool_results() -> list[tuple[str, dict[str, Any]]]:
    metatool = json.loads((data_dir() / "metatool.json").read_text())
    out = [(f"plugin:{t.get('name', i)}", _text(json.dumps(t))) for i, t in enumerate(metatool["tools"])]
    out += [
        (f"message:{i}", _text(json.dumps({"from": "customer", "body": q["query"]})))
        for i, q in enumerate(metatool["queries"])
    ]
    return out


def _package_docs() -> list[tuple[str, dict[str, Any]]]:
    """Held out: the long descriptions of the Python packages installed here, in 1,500-character
    pieces, as a page that shows documentation would return them (never used to tune)."""
    from importlib import metadata

    out: list[tuple[str, dict[str, Any]]] = []
    for dist in sorted(metadata.distributions(), key=lambda d: d.name or ""):
        body = dist.metadata.get_payload() or dist.metadata.get("Description") or ""  # type: ignore[attr-defined]
        name = dist.name or "?"
        for i in range(0, min(len(body), 30_000), 1_500):
            out.append((f"pypi:{name}:{i}", _text(body[i : i + 1_500])))
    return out


# ---------------------------------------------------------------------------- the bench


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.trust")
    parser.add_argument("--no-browser", action="store_true", help="skip the demo site (no Chromium)")
    parser.add_argument(
        "--misses",
        action="store_true",
        help="list false positives and the TUNING split's misses (never the test split's)",
    )
    args = parser.parse_args(argv)

    normal: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    if not args.no_browser:
        normal["demo site (Chromium)"] = asyncio.run(_demo_results())
    if (data_dir() / "mcp_catalog.json").is_file() and (data_dir() / "metatool.json").is_file():
        normal["catalog tools"] = _catalog_results()
        normal["MetaTool plugins + queries"] = _metatool_results()
    else:
        print(f"(catalog data not found in {data_dir()}; set TABMCP_DATA)")
    normal["held out: package docs"] = _package_docs()

    rows = []
    all_n = all_fp = 0
    false_positives: list[tuple[str, list[str]]] = []
    for name, results in normal.items():
        fp = 0
        for label, result in results:
            flags = _flagged(result)
            if flags:
                fp += 1
                false_positives.append((label, flags))
        all_n += len(results)
        all_fp += fp
        rows.append([name, len(results), fp, f"{fp / max(1, len(results)):.2%}"])
    rows.append(["all normal results", all_n, all_fp, f"{all_fp / max(1, all_n):.2%}"])
    print_table(
        "False positives: normal results flagged (target <= 1%)",
        ["set", "results", "flagged", "FP rate"],
        rows,
    )

    # over-parameterization lint on real definitions (every flag here is a false positive)
    lint_rows = []
    defs: dict[str, list[dict[str, Any]]] = {"demo site tools": list(_DEMO_TOOLS)}
    if (data_dir() / "mcp_catalog.json").is_file():
        catalog = json.loads((data_dir() / "mcp_catalog.json").read_text())
        defs["catalog tools"] = [t for c in catalog["categories"] for t in c["tools"]]
    for name, tools in defs.items():
        flagged = [t["name"] for t in tools if lint_parameters(t["name"], t.get("title"), t.get("description", ""),
                                                              t.get("inputSchema") or {})]
        lint_rows.append([name, len(tools), len(flagged), ", ".join(flagged[:5])])
    print_table("Over-parameterization lint on real tool definitions (flags are false positives)",
                ["set", "tools", "flagged", "examples"], lint_rows,
                note="The catalog was used to narrow ambiguous words (location, health): not held out.")

    hostile = json.loads(HOSTILE.read_text())["results"]
    drows = []
    misses: list[str] = []
    for split in ("tuning", "test"):
        items = [h for h in hostile if h["split"] == split]
        hit = 0
        for h in items:
            if _flagged(_text(h["text"])):
                hit += 1
            elif split == "tuning":
                misses.append(h["text"])
        drows.append([split, len(items), hit, f"{hit / max(1, len(items)):.1%}"])
    print_table(
        "Detection: hostile results flagged",
        ["split", "results", "flagged", "detection rate"],
        drows,
        note="The test split is held out: the patterns were never adjusted to it.",
    )
    if args.misses:
        print("\nFalse positives:")
        for label, flags in false_positives:
            print(f"  {label}: {flags[0][:160]}")
        print("\nMissed (tuning split):")
        for text in misses:
            print(f"  {text[:160]!r}")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
