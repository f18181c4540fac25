# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""The polyfill's source modules (polyfill/src/) and the one script the generator joins them into."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import pytest
from tabmcp import polyfill_js
from tabmcp.testing import missing_from_setup
from webmcp_testlib import POLYFILL, script


def test_generated_script_is_the_join_of_the_modules() -> None:
    assert polyfill_js.GENERATED == POLYFILL
    assert POLYFILL.read_text(encoding="utf-8") == polyfill_js.render(), (
        "polyfill/webmcp-polyfill.js is stale: edit polyfill/src/ and run .venv/bin/python -m tabmcp.polyfill_js "
        "(or, after editing the script, .venv/bin/python -m tabmcp.polyfill_js --split)"
    )


def test_one_marker_line_per_module_in_order() -> None:
    lines = POLYFILL.read_text(encoding="utf-8").split("\n")
    markers = [line for line in lines if line.startswith("  // ==== src/")]
    assert markers == [f"  // ==== src/{name}.js ====" for name in polyfill_js.MODULES]


def test_split_gives_back_the_modules_and_lands_an_edit_on_its_module() -> None:
    sources = polyfill_js.read_sources()
    script_text = polyfill_js.render(sources)
    assert polyfill_js.split(script_text) == sources
    old = "  const RESULT_LIMIT = 1024 * 1024; // bytes of JSON\n"
    assert script_text.count(old) == 1
    edited = polyfill_js.split(script_text.replace(old, "  const RESULT_LIMIT = 2048 * 1024; // bytes of JSON\n"))
    changed = [name for name in polyfill_js.MODULES if edited[name] != sources[name]]
    assert changed == ["constants"]
    assert "const RESULT_LIMIT = 2048 * 1024; // bytes of JSON\n" in edited["constants"]
    assert polyfill_js.render(edited) == script_text.replace(old, "  const RESULT_LIMIT = 2048 * 1024; // bytes of JSON\n")


def test_split_refuses_an_edited_prologue_and_unknown_modules() -> None:
    script_text = polyfill_js.render()
    with pytest.raises(polyfill_js.SourceError, match="prologue"):
        polyfill_js.split(script_text.replace("'use strict';", "'use strict'; // edited", 1))
    with pytest.raises(polyfill_js.SourceError, match="MODULES"):
        polyfill_js.split(script_text.replace("// ==== src/hook.js ====", "// ==== src/hooks.js ===="))


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (lambda s: s.replace("export { extensionMethods };", "export const extra = 1;\nexport { extensionMethods };"), "not inline"),
        (lambda s: s.replace("import { getStates, setStates } from './states.js';", "import { getStates, setStates, nope } from './states.js';"), "does not export"),
        (lambda s: s.replace("import { getStates, setStates } from './states.js';", "import { getStates, setStates } from './gone.js';"), "not a module"),
        (lambda s: s.replace("export { extensionMethods };", "function isObjectLike() {}\nexport { extensionMethods };"), "share one scope"),
    ],
    ids=["inline-export", "missing-export", "unknown-module", "duplicate-top-level"],
)
def test_render_refuses_modules_that_break_the_join(edit: Any, error: str) -> None:
    sources = polyfill_js.read_sources()
    sources["extensions"] = edit(sources["extensions"])
    with pytest.raises(polyfill_js.SourceError, match=error):
        polyfill_js.render(sources)


def test_every_module_links_and_runs_as_an_es_module_in_node() -> None:
    node = shutil.which("node")
    if node is None:
        missing_from_setup("node is not installed")
    for name in polyfill_js.MODULES:
        url = (polyfill_js.SOURCES / f"{name}.js").as_uri()
        done = subprocess.run([node, "--input-type=module", "-e", f"await import({url!r}); console.log('ok');"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and done.stdout.strip() == "ok", f"src/{name}.js: {done.stderr}"


ESM_BODY = """
    const mc = document.modelContext;
    const hook = globalThis[Symbol.for('tabmcp.webmcp')];
    const out = { native: hook.native, version: hook.version };
    const calls = [];
    await mc.registerTool({ name: 'echo', description: 'Echo', inputSchema: { type: 'object', properties: { q: { type: 'string', format: 'email' } } },
                            execute: (input) => { calls.push(input); return 'got ' + input.q; } });
    await mc.registerCategory({ name: 'cart', description: 'Cart', tools: [
      { name: 'cart.add', description: 'Add', execute: () => 'added' }, { name: 'bad name!', description: 'x', execute: () => 1 }] });
    mc.setStates(['in']);
    out.names = (await mc.getTools()).map((t) => t.name).sort();
    const echo = (await mc.getTools()).find((t) => t.name === 'echo');
    out.executed = await mc.executeTool(echo, { q: 'a@b.c' });
    out.hookCall = await hook.call('cart.add', {});
    out.categories = mc.getCategories().map((c) => [c.name, c.tools, (c.refused || []).map((r) => r.name)]);
    out.states = mc.getStates();
    out.snapshotTools = (await hook.snapshot()).tools.map((t) => t.name);
    out.legacy = navigator.modelContext ? (await navigator.modelContext.executeTool('echo', { q: 'x' })).content[0].text : null;
    out.calls = calls;
    return out;
"""


async def test_the_es_modules_install_the_polyfill_in_chromium(open_page: Any, mode: str) -> None:
    """The sources are real ES modules: loaded as `<script type=module>` they install the same polyfill."""
    tab = await open_page(mode)
    await tab.page.add_script_tag(url="/src/install.js", type="module")
    await tab.page.wait_for_function("() => !!globalThis[Symbol.for('tabmcp.webmcp')]")
    out = await tab.js("async () => {" + ESM_BODY + "}")
    assert out["native"] is tab.native and out["version"] == polyfill_js.read_sources()["constants"].split("const VERSION = '")[1].split("'")[0]
    assert out["names"] == ["cart.add", "echo"]
    assert out["executed"] == "got a@b.c"
    assert out["hookCall"] == {"ok": True, "result": {"content": [{"type": "text", "text": "added"}]}}
    assert out["categories"] == [["cart", ["cart.add"], ["bad name!"]]]
    assert out["states"] == ["in"]
    assert out["snapshotTools"] == ["cart.add", "echo"]
    assert out["legacy"] == "got x"
    assert out["calls"] == [{"q": "a@b.c"}, {"q": "x"}]


async def test_the_classic_script_and_the_es_modules_agree(open_page: Any, mode: str) -> None:
    classic = await open_page(mode, "/poly.html")
    esm = await open_page(mode)
    await esm.page.add_script_tag(url="/src/install.js", type="module")
    await esm.page.wait_for_function("() => !!globalThis[Symbol.for('tabmcp.webmcp')]")
    assert await classic.js(script("return 1;")) == 1
    got_classic = await classic.js("async () => {" + ESM_BODY + "}")
    got_esm = await esm.js("async () => {" + ESM_BODY + "}")
    assert got_esm == got_classic
    assert [c for c in esm.console if c[0] == "error"] == [c for c in classic.console if c[0] == "error"]
