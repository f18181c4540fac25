"""generate: Playwright scripts and tests (Python, TypeScript), HAR 1.2, SARIF 2.1.0, PR summary."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tabmcp.core.telemetry import BufferKind, TelemetryState, generate
from tabmcp.core.telemetry.generate.locators import best_locator
from tabmcp.core.telemetry.generate.playwright import plan_steps
from tabmcp.core.telemetry.models import ActionEvent, Selectors
from tabmcp.testing import missing_from_setup

from .factory import ORIGIN, action, batch, console, error, make_store, nav, request, vitals, ws
from .schemas import har_validator, sarif_validator

AXE = Path(__file__).parent / "fixtures" / "axe_result.json"


def session_store() -> TelemetryState:
    store = make_store()
    store.set_tab_info(1, title="Shop")
    store.ingest(
        batch(
            [
                nav(0, "L1", f"{ORIGIN}/login"),
                action(100, "input", f"{ORIGIN}/login", label="Email", value="a"),
                action(110, "input", f"{ORIGIN}/login", label="Email", value="ada@shop.test"),
                action(120, "input", f"{ORIGIN}/login", label="Password", value="hunter2", css="#pw"),
                action(130, "click", f"{ORIGIN}/login", role="button", name="Sign in"),
                action(131, "submit", f"{ORIGIN}/login", css="form#login"),
                request(
                    132,
                    "/api/login",
                    method="POST",
                    request_body={"email": "ada@shop.test", "password": "x"},
                    response_body={"token": "t", "user": {"id": 1}},
                ),
                action(600, "navigate", f"{ORIGIN}/home"),
                nav(600, "L2", f"{ORIGIN}/home"),
                vitals(
                    900, "L2", LCP=1500.0, CLS=0.01, navigation={"domContentLoaded": 300.0, "load": 800.0}
                ),
                request(1000, "/api/items?page=1", response_body=[{"id": 1, "name": "Tea"}]),
                action(1100, "click", f"{ORIGIN}/home", test_id="item-1"),
                action(1150, "route", f"{ORIGIN}/home#/items/1"),
                action(1200, "change", f"{ORIGIN}/home#/items/1", label="Size", value="L", tag="select"),
                action(1300, "click", f"{ORIGIN}/home#/items/1", label="Gift wrap", css="#gift"),
                action(1301, "change", f"{ORIGIN}/home#/items/1", label="Gift wrap", value="on", css="#gift"),
                action(1400, "keydown", f"{ORIGIN}/home#/items/1", key="Shift", label="Note", css="#note"),
                action(1401, "keydown", f"{ORIGIN}/home#/items/1", key="Enter", label="Note", css="#note"),
                action(1500, "click", f"{ORIGIN}/home#/items/1", text='Add "Tea" to cart', css="button.add"),
                request(1510, "/api/cart", method="POST", status=500, response_body={"error": "db"}),
                error(1520, "Error: cart failed", source=f"{ORIGIN}/app.js"),
                console(1530, "retrying", level="warn"),
                request(1600, "/api/stream", status=0, failure="net::ERR_FAILED", mime=None),
                ws(1700, "c1", "open"),
            ],
            url=f"{ORIGIN}/home#/items/1",
        )
    )
    return store


def generated(store: TelemetryState, **args: Any) -> str:
    answer = generate(store, args)
    assert not answer.empty, answer.text
    return answer.text


# -- locators and planning ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("selectors", "python", "typescript"),
    [
        (
            {"testId": "buy", "role": "button", "name": "Buy", "css": "#b"},
            'page.get_by_test_id("buy")',
            'page.getByTestId("buy")',
        ),
        (
            {"role": "button", "name": "Buy now", "label": "x", "css": "#b"},
            'page.get_by_role("button", name="Buy now", exact=True)',
            'page.getByRole("button", { name: "Buy now", exact: true })',
        ),
        (
            {"role": "not-a-role", "name": "Buy", "label": "Email", "css": "#e"},
            'page.get_by_label("Email", exact=True)',
            'page.getByLabel("Email", { exact: true })',
        ),
        (
            {"role": "button", "text": "Go", "css": "#g"},
            'page.get_by_text("Go", exact=True)',
            'page.getByText("Go", { exact: true })',
        ),
        (
            {"css": "div > a:nth-child(2)"},
            'page.locator("div > a:nth-child(2)")',
            'page.locator("div > a:nth-child(2)")',
        ),
    ],
)
def test_best_locator_preference(selectors: dict[str, str], python: str, typescript: str) -> None:
    loc = best_locator(Selectors.model_validate(selectors))
    assert loc is not None
    assert loc.render("python") == python
    assert loc.render("typescript") == typescript


def test_plan_collapses_typing_and_drops_consequences() -> None:
    store = session_store()
    actions = [
        e.event for e in store.select(BufferKind.ACTIONS, scope="tab") if isinstance(e.event, ActionEvent)
    ]
    ops = [(s.op, s.value) for s in plan_steps(actions)]
    assert ops == [
        ("goto", f"{ORIGIN}/login"),
        ("fill", "ada@shop.test"),  # two input events, one fill
        ("fill", "[REDACTED]"),  # the password, redacted on ingest
        ("click", None),  # the submit right after the click is its consequence
        ("wait_url", f"{ORIGIN}/home"),  # navigation caused by the click: wait, not goto
        ("click", None),
        ("wait_url", f"{ORIGIN}/home#/items/1"),  # SPA route
        ("select", "L"),
        ("click", None),  # the checkbox change after its click is dropped
        ("press", "Enter"),  # Shift alone is dropped
        ("click", None),
    ]


# -- Playwright output --------------------------------------------------------------------


def test_python_reproduction_compiles_and_reads_base_url_and_secrets() -> None:
    code = generated(session_store(), format="reproduction")
    compile(code, "reproduction.py", "exec")
    assert 'BASE_URL = os.environ.get("BASE_URL", "https://shop.test")' in code
    assert 'page.goto(BASE_URL + "/login")' in code
    assert 'page.get_by_label("Email", exact=True).fill("ada@shop.test")' in code
    assert 'fill(os.environ.get("TABMCP_SECRET_1", ""))' in code and "hunter2" not in code
    assert 'page.wait_for_url(BASE_URL + "/home")' in code
    assert 'page.get_by_test_id("item-1").click()' in code
    assert 'select_option("L")' in code and '.press("Enter")' in code
    assert 'page.get_by_text("Add \\"Tea\\" to cart", exact=True).click()' in code
    assert 'executable_path=os.environ.get("CHROMIUM") or None' in code


def test_python_test_has_assertions() -> None:
    code = generated(session_store(), format="test", expect_texts=["Tea"], name="checkout flow")
    compile(code, "test_recorded.py", "exec")
    assert "def test_checkout_flow(recorded_page: Page) -> None:" in code
    assert 'expect(page).to_have_url(BASE_URL + "/home")' in code
    assert 'expect(page.get_by_label("Email", exact=True)).to_have_value("ada@shop.test")' in code
    assert 'expect(page.get_by_text("Tea").first).to_be_visible()' in code
    assert "assert console_errors == []" in code
    assert "Errors seen while recording" in code and "Error: cart failed" in code
    relaxed = generated(session_store(), format="test", assert_no_console_errors=False)
    assert "console_errors ==" not in relaxed


def _node_check(code: str, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        missing_from_setup("node is not installed: cannot syntax-check the TypeScript output")
    path = tmp_path / "generated.mjs"  # the output has no type annotations, so it is valid ESM
    path.write_text(code, encoding="utf-8")
    proc = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_typescript_reproduction_and_test_parse(tmp_path: Path) -> None:
    script = generated(session_store(), format="reproduction", language="typescript")
    assert "import { chromium } from 'playwright';" in script
    assert 'await page.getByTestId("item-1").click();' in script
    assert "(process.env.TABMCP_SECRET_1 ?? '')" in script
    _node_check(script, tmp_path)
    test = generated(session_store(), format="test", language="typescript", expect_texts=["Tea"])
    assert "import { test, expect } from '@playwright/test';" in test
    assert 'await expect(page).toHaveURL(BASE_URL + "/home");' in test
    assert "expect(consoleErrors).toEqual([]);" in test
    _node_check(test, tmp_path)
    answer = generate(session_store(), {"format": "test", "language": "typescript"})
    assert answer.data["filename"] == "recorded.spec.ts"


def test_hostile_recorded_text_cannot_break_the_script(tmp_path: Path) -> None:
    store = make_store()
    nasty = 'x"""\n);import os; os.system("boom") #\\N{x} `${x}` */ \u2028'
    store.ingest(
        batch(
            [
                nav(0),
                action(1, "click", text=nasty, css="a"),
                action(2, "input", label=nasty, value=nasty),
                error(3, nasty),
            ]
        )
    )
    for language in ("python", "typescript"):
        for fmt in ("reproduction", "test"):
            code = generated(store, format=fmt, language=language)
            if language == "python":
                compile(code, "x.py", "exec")
                assert "\nimport os; os.system" not in code
            else:
                _node_check(code, tmp_path)


def test_no_actions_is_an_explained_empty_answer() -> None:
    answer = generate(make_store(), {"format": "reproduction"})
    assert answer.empty and "nothing to replay" in answer.text


# -- HAR ------------------------------------------------------------------------------------


def test_har_validates_against_the_har_1_2_schema() -> None:
    validator = har_validator()
    answer = generate(session_store(), {"format": "har"})
    har = answer.data["har"]
    errors = sorted(validator.iter_errors(har), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    log = har["log"]
    assert log["version"] == "1.2" and log["creator"]["name"] == "tabmcp"
    assert [p["id"] for p in log["pages"]] == ["L1", "L2"]
    assert log["pages"][1]["pageTimings"] == {"onContentLoad": 300.0, "onLoad": 800.0}
    by_url = {e["request"]["url"]: e for e in log["entries"]}
    login = by_url[f"{ORIGIN}/api/login"]
    assert login["pageref"] == "L1" and login["request"]["method"] == "POST"
    assert json.loads(login["request"]["postData"]["text"])["password"] == "[REDACTED]"
    assert json.loads(login["response"]["content"]["text"])["token"] == "[REDACTED]"
    items = by_url[f"{ORIGIN}/api/items?page=1"]
    assert items["request"]["queryString"] == [{"name": "page", "value": "1"}]
    assert items["time"] == 120.0 and items["timings"]["wait"] == 120.0
    failed = by_url[f"{ORIGIN}/api/stream"]
    assert failed["response"]["status"] == 0 and failed["_error"] == "net::ERR_FAILED"
    starts = [e["startedDateTime"] for e in log["entries"]]
    assert starts == sorted(starts) and starts[0].endswith("Z")
    lean = generate(session_store(), {"format": "har", "include_bodies": False}).data["har"]
    assert not list(validator.iter_errors(lean))
    assert all("text" not in e["response"]["content"] for e in lean["log"]["entries"])


def test_empty_har_is_still_valid() -> None:
    validator = har_validator()
    answer = generate(make_store(), {"format": "har"})
    assert answer.empty and not list(validator.iter_errors(answer.data["har"]))


# -- SARIF ----------------------------------------------------------------------------------


def test_sarif_from_a_real_axe_result_validates_against_sarif_2_1_0() -> None:
    validator = sarif_validator()
    axe = json.loads(AXE.read_text(encoding="utf-8"))
    store = make_store()
    store.ingest(batch([nav(0)]))
    answer = generate(store, {"format": "sarif"}, axe_results=axe)
    sarif = answer.data["sarif"]
    errors = list(validator.iter_errors(sarif))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    run = sarif["runs"][0]
    assert sarif["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "axe-core"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    fails = [r for r in run["results"] if r["kind"] == "fail"]
    assert len(fails) == sum(len(v["nodes"]) for v in axe["violations"])
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    levels = {r["ruleId"]: r["level"] for r in fails}
    assert levels["image-alt"] == "error" and levels["heading-order"] == "warning"
    image = next(r for r in fails if r["ruleId"] == "image-alt")
    assert image["locations"][0]["logicalLocations"][0] == {"fullyQualifiedName": "img", "kind": "element"}
    assert (
        image["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "http://fixture.test/checkout"
    )
    # the audit is cached for the tab: no live audit needed the second time
    assert generate(store, {"format": "sarif"}).data["sarif"] == sarif


def test_sarif_review_results_have_level_none() -> None:
    validator = sarif_validator()
    axe = json.loads(AXE.read_text(encoding="utf-8"))
    axe["incomplete"] = [{**axe["violations"][0], "id": "color-contrast-review"}]
    store = make_store()
    sarif = generate(store, {"format": "sarif"}, axe_results=axe).data["sarif"]
    assert not list(validator.iter_errors(sarif))
    reviews = [r for r in sarif["runs"][0]["results"] if r["kind"] == "review"]
    assert reviews and all(r["level"] == "none" for r in reviews)


def test_sarif_without_audit_explains() -> None:
    assert generate(make_store(), {"format": "sarif"}).empty


# -- PR summary -----------------------------------------------------------------------------


def test_pr_summary_markdown() -> None:
    store = session_store()
    store.set_accessibility(1, json.loads(AXE.read_text(encoding="utf-8")))
    md = generated(store, format="pr_summary", title="Checkout fix")
    assert md.startswith("## Checkout fix\n")
    assert "**Page:** Shop — https://shop.test/home#/items/1 (tab 1)" in md
    assert "### Steps" in md and "1. input field \"Email\" = 'a'" in md
    assert "| 1 | uncaught | Error: cart failed | https://shop.test/app.js:42 |" in md
    assert "| 1 | `POST https://shop.test/api/cart` | 500 |" in md
    assert "| 1 | `GET https://shop.test/api/stream` | net::ERR_FAILED |" in md
    assert "| POST | `https://shop.test/api/login` | 200 | 1 |" in md
    assert "| LCP | 1500 ms | good |" in md and "Core Web Vitals: **good so far** (INP not measured)" in md
    assert "### Accessibility (axe-core)" in md and "`image-alt`" in md
    assert "### WebSockets" in md
    assert "hunter2" not in md


# -- the generated Python test really runs ---------------------------------------------------


PAGE = """<!doctype html>
<html lang="en"><head><title>Demo shop</title></head>
<body>
  <label for="qty">Quantity</label><input id="qty">
  <button data-testid="add" onclick="
    document.querySelector('#out').textContent = 'Added ' + document.querySelector('#qty').value;
    history.pushState({}, '', '#/cart');">Add</button>
  <p id="out"></p>
</body></html>"""


@pytest.mark.slow
def test_generated_python_test_passes_against_the_page(tmp_path: Path) -> None:
    import http.server
    import threading

    from tabmcp.launch.browser import BrowserNotFound, find_chromium

    try:
        chromium = find_chromium()
    except BrowserNotFound as exc:
        missing_from_setup(f"no Chromium: {exc}")
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, directory=str(tmp_path), **kw)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        store = make_store()
        recorded = "https://recorded.test"  # recorded elsewhere: BASE_URL retargets it
        store.ingest(
            batch(
                [
                    nav(0, "L1", f"{recorded}/index.html"),
                    action(10, "input", f"{recorded}/index.html", label="Quantity", value="3", css="#qty"),
                    action(20, "click", f"{recorded}/index.html", test_id="add", role="button", name="Add"),
                    action(30, "route", f"{recorded}/index.html#/cart"),
                ],
                url=f"{recorded}/index.html",
            )
        )
        test_file = tmp_path / "test_recorded.py"
        test_file.write_text(generated(store, format="test", expect_texts=["Added 3"]), encoding="utf-8")
        script = tmp_path / "reproduction.py"
        script.write_text(generated(store, format="reproduction"), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        env.update(BASE_URL=base, CHROMIUM=chromium)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--rootdir",
                str(tmp_path),
                str(test_file),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "1 passed" in proc.stdout
        proc = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    finally:
        server.shutdown()


def test_an_audit_is_page_text_and_is_redacted_like_it() -> None:
    """Element HTML in an axe result is the page's: a secret in it (a field's value) and in the
    audited URL is redacted before SARIF, the summary or the cache hold it."""
    axe = json.loads(AXE.read_text(encoding="utf-8"))
    axe["url"] = "http://fixture.test/checkout?token=abc123"
    node = axe["violations"][0]["nodes"][0]
    node["html"] = '<input type="text" value="sk-live-0123456789abcdefghij" data-note="password=hunter2">'
    store = make_store()
    store.ingest(batch([nav(0)]))
    sarif = json.dumps(generate(store, {"format": "sarif"}, axe_results=axe).data)
    for secret in ("abc123", "sk-live-0123456789", "hunter2"):
        assert secret not in sarif, secret
    assert "[REDACTED]" in sarif
    assert "hunter2" not in json.dumps(store.accessibility(None))
