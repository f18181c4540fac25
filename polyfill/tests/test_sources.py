# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""The polyfill's source modules (polyfill/src/) and the one script esbuild bundles them into."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tabmcp import polyfill_js
from tabmcp.testing import missing_from_setup
from webmcp_testlib import POLYFILL, script

MODULES = sorted(p.stem for p in polyfill_js.SOURCES.glob("*.js"))


def _build(root: Path | None = None) -> str:
    try:
        return polyfill_js.build() if root is None else polyfill_js.build(root)
    except polyfill_js.BuildError as exc:
        if "is missing" in str(exc):
            missing_from_setup(str(exc))
        raise


def _copy_of_the_sources(tmp_path: Path) -> Path:
    shutil.copytree(polyfill_js.SOURCES, tmp_path / "polyfill" / "src")
    return tmp_path


def test_the_committed_script_is_esbuilds_build_of_the_modules() -> None:
    assert polyfill_js.GENERATED == POLYFILL
    assert POLYFILL.read_text(encoding="utf-8") == _build(), (
        "polyfill/webmcp-polyfill.js is stale: edit polyfill/src/ and run .venv/bin/python -m tabmcp.polyfill_js")


def test_the_build_is_the_same_bytes_wherever_the_checkout_is(tmp_path: Path) -> None:
    """No timestamps, no absolute paths: a copy of the modules elsewhere builds the committed bytes."""
    assert _build(_copy_of_the_sources(tmp_path)) == _build() == POLYFILL.read_text(encoding="utf-8")


def test_check_fails_on_a_stale_script_and_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "webmcp-polyfill.js"
    stale.write_text(_build().replace('var VERSION = "', 'var VERSION = "stale-'), encoding="utf-8")
    monkeypatch.setattr(polyfill_js, "GENERATED", stale)
    assert polyfill_js.main(["--check"]) == 1
    assert str(stale) in capsys.readouterr().err
    stale.write_text(_build(), encoding="utf-8")
    assert polyfill_js.main(["--check"]) == 0


def test_the_build_refuses_an_import_nobody_exports(tmp_path: Path) -> None:
    """The script would link anyway in a join; esbuild fails the build, as the browser fails the modules."""
    root = _copy_of_the_sources(tmp_path)
    _build(root)  # esbuild is there: the refusal below is the modules', not a missing tool's
    extensions = root / "polyfill" / "src" / "extensions.js"
    text = extensions.read_text(encoding="utf-8")
    old = "import { getStates, setStates } from './states.js';"
    assert text.count(old) == 1
    extensions.write_text(text.replace(old, "import { getStates, setStates, nope } from './states.js';"), encoding="utf-8")
    with pytest.raises(polyfill_js.BuildError, match="nope"):
        polyfill_js.build(root)


def test_the_script_is_strict_and_holds_every_module() -> None:
    """The modules ran strict; the classic script must too (its first statement is the directive).
    A module nothing imports would be left out silently: each is in the script (types.js holds only
    JSDoc, so nothing of it is)."""
    text = POLYFILL.read_text(encoding="utf-8")
    banner, body = text.split(" */\n", 1)
    assert banner.startswith("/*!") and body.startswith('"use strict";\n(() => {\n')
    assert sorted(re.findall(r"^  // polyfill/src/([\w-]+)\.js$", body, re.M)) == [m for m in MODULES if m != "types"]


def test_every_module_links_and_runs_as_an_es_module_in_node() -> None:
    node = shutil.which("node")
    if node is None:
        missing_from_setup("node is not installed")
    for name in MODULES:
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
    assert out["native"] is tab.native and out["version"] == (polyfill_js.SOURCES / "constants.js").read_text().split("const VERSION = '")[1].split("'")[0]
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
