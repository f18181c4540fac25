"""The page-side telemetry capture (``extension/page/*.js``) on the demo's Diagnostics lab.

Plain Chromium, no extension: the capture scripts are injected with ``add_init_script`` in the
order ``manifest.json`` lists them (as the extension does at ``document_start``), after a small
collector that takes the capture's own line (the MessagePort it hands over, as content.js does)
and keeps what comes on it in ``window.__batches`` / ``window.__results``. As the extension's
content script does once it is connected, the page then gets the bridge's ``telemetry.config``
(``TelemetrySettings.page_config``) on that line: the rules it redacts with. The demo server runs
with its JSON API and WebSocket echo (``tabmcp.demo.api``).

Every page's batches are also fed to the bridge's real ``TelemetryState`` when the test ends:
no event may be rejected by the wire models, and the script may not have swallowed a single
internal error.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright
from tabmcp.core.telemetry import TelemetryState, analyze, configure, generate
from tabmcp.core.telemetry.settings import (
    DEFAULT_REDACTION_KEYS,
    DEFAULT_REDACTION_PATTERNS,
    TelemetrySettings,
)
from tabmcp.launch.browser import chromium_launch_args, find_chromium
from tabmcp.packaging.assets import capture_scripts

from .conftest import eventually

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = capture_scripts()
MARK = "[REDACTED]"
HOOK = "window[Symbol.for('tabmcp.telemetry')]"

COLLECTOR = """
window.__batches = []; window.__results = [];
// The capture hands its own line (a MessagePort) to the content script once, at document_start,
// on an event of its own (messages.js CAPTURE_EVENT); here the collector takes it, as content.js does.
window.__capture = new Promise((resolve) => addEventListener('tabmcp-capture-port', (e) => {
  e.preventDefault();
  const port = e.ports[0];
  port.onmessage = (m) => {
    if (m.data.type === 'telemetry') window.__batches.push(m.data);
    else if (m.data.type === 'page.result') window.__results.push(m.data);
  };
  resolve(port);
}));
"""

# What the bridge sends every page by default, sent as the content script sends it: once the
# capture handed over its line (page scripts may run before it), never at injection.
PAGE_CONFIG = TelemetrySettings().page_config()
RULES = f"""
window.__capture.then((port) => port.postMessage({{type: 'telemetry.config', config: {json.dumps(PAGE_CONFIG)}}}));
"""


def bridge_rules(*, keys: tuple[str, ...] = (), patterns: tuple[str, ...] = ()) -> dict[str, Any]:
    """The redaction rules the bridge sends with these keys and patterns added to its defaults."""
    settings = TelemetrySettings.model_validate(
        {
            "redaction": {
                "keys": [*DEFAULT_REDACTION_KEYS, *keys],
                "patterns": [*DEFAULT_REDACTION_PATTERNS, *patterns],
            }
        }
    )
    redact: dict[str, Any] = settings.page_config()["redact"]
    return redact


_request_ids = itertools.count(1)


# ------------------------------------------------------------------------------------ fixtures


@pytest_asyncio.fixture(scope="module")
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_launch_args())
        yield launched
        await launched.close()


class Lab:
    """One page of the lab with the capture script, and helpers to read what it posted."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url
        self.page_errors: list[str] = []
        page.on("pageerror", lambda err: self.page_errors.append(str(err)))

    async def open(self, path: str = "lab.html") -> None:
        await self.page.goto(self.base_url + path)
        await self.page.wait_for_selector("body[data-ready='true']")

    async def batches(self, drain: bool = False) -> list[dict[str, Any]]:
        """What the page sent so far; with ``drain``, after it sent everything it holds.

        A batch arrives on the capture's port as a later task: wait until as many arrived as the
        capture counts as sent, so nothing in flight is missed.
        """
        result: list[dict[str, Any]] = await self.page.evaluate(
            f"""async (drain) => {{
              const hook = {HOOK};
              for (let i = 0; drain && i < 100; i++) {{  // a flush sends at most one batch
                hook.flush();
                if (!hook.stats().queued) break;
              }}
              while (window.__batches.length < hook.stats().batches) await new Promise((r) => setTimeout(r, 5));
              return window.__batches;
            }}""",
            drain,
        )
        return result

    async def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Every event of ``kind`` (all kinds if None) the page captured so far."""
        return [
            e
            for b in await self.batches(drain=True)
            for e in b["events"]
            if kind is None or e["kind"] == kind
        ]

    async def wait_events(
        self, kind: str, check: Callable[[list[dict[str, Any]]], bool] = bool, timeout: float = 5.0
    ) -> list[dict[str, Any]]:
        """Events of ``kind`` once ``check(events)`` holds."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = await self.events(kind)
            if check(found):
                return found
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no {kind} events matching within {timeout}s; got {found!r}"[:3000])
            await asyncio.sleep(0.05)

    async def click(self, test_id: str) -> None:
        await self.page.get_by_test_id(test_id).click()

    async def result_text(self, scenario: str) -> str:
        loc = self.page.locator(f"[data-testid='lab-result'][data-scenario='{scenario}']").first
        await loc.wait_for()
        return await loc.inner_text()

    async def post(self, msg: dict[str, Any]) -> None:
        await self.page.evaluate("async (msg) => (await window.__capture).postMessage(msg)", msg)

    async def query(self, kind: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        request_id = f"q{next(_request_ids)}"
        await self.post({"type": "page.query", "requestId": request_id, "kind": kind, "args": args or {}})
        handle = await self.page.wait_for_function(
            "(id) => window.__results.find((r) => r.requestId === id)", arg=request_id, timeout=10_000
        )
        answer: dict[str, Any] = await handle.json_value()
        return answer

    async def config(self, **settings: Any) -> None:
        await self.post({"type": "telemetry.config", **settings})

    async def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = await self.page.evaluate(f"{HOOK}.stats()")
        return result

    async def ingest(self, store: TelemetryState | None = None, tab_id: int = 1) -> TelemetryState:
        """Feed every batch to the bridge's store; nothing may be rejected."""
        store = store or TelemetryState()
        for batch in await self.batches(drain=True):
            report = store.ingest({**batch, "tabId": tab_id})
            assert report.rejected == 0, f"the bridge rejected events of {batch['events']}"
        return store


@pytest_asyncio.fixture
async def new_lab(chromium: Browser, demo_url: str) -> AsyncIterator[Callable[..., Awaitable[Lab]]]:
    """``await new_lab(...)``: a fresh context on the lab page.

    ``telemetry``: inject the capture scripts (``copies`` times); ``rules``: then send the
    bridge's default config as the extension would; ``before``: a script to run before them;
    ``check``: validate what the page sent against the bridge's models at the end;
    ``collector_last``: the collector comes after the capture scripts and asks for the line, as
    content.js does when the capture ran first (document_start order is not fixed).
    """
    opened: list[tuple[Lab, bool]] = []

    async def make(
        *, telemetry: bool = True, rules: bool = True, copies: int = 1, before: str = "", check: bool = True,
        collector_last: bool = False,
    ) -> Lab:
        context = await chromium.new_context()
        await context.add_init_script(before if collector_last else COLLECTOR + before)
        for _ in range(copies if telemetry else 0):
            for script in SCRIPTS:
                await context.add_init_script(path=str(script))
        if collector_last:
            await context.add_init_script(COLLECTOR + "dispatchEvent(new Event('tabmcp-capture-ask'));")
        if telemetry and rules:
            await context.add_init_script(RULES)
        lab = Lab(await context.new_page(), demo_url)
        opened.append((lab, telemetry and check))
        await lab.open()
        return lab

    yield make
    for lab, telemetry in opened:
        if telemetry and not lab.page.is_closed():
            await lab.ingest()
            assert (await lab.stats())["internalErrors"] == 0, (
                "the capture script swallowed an internal error"
            )
        await lab.page.context.close()


@pytest_asyncio.fixture
async def lab(new_lab: Callable[..., Awaitable[Lab]]) -> Lab:
    return await new_lab()


def dump(events: list[dict[str, Any]]) -> str:
    """Every key and string of the events, one a line: where a secret could be. Numbers are left
    out: a timestamp such as 1795797574111.9 holds the digits of a card number."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                out.append(str(key))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(events)
    return "\n".join(out)


# ------------------------------------------------------------------------------------ console and errors


async def test_console_levels_serialization_and_error_twins(lab: Lab) -> None:
    await lab.page.evaluate(
        """() => {
          const cyc = {name: 'cyc', token: 'abc123-secret', deep: {a: {b: {c: {d: 1}}}}, list: [1, 2, 3]};
          cyc.self = cyc;
          console.log('plain', 42, true, null, undefined, cyc);
          console.info('%s has %d items', 'cart', 3);
          console.warn(document.querySelector('[data-testid=log-info]'));
          console.debug(new TypeError('boom'));
          console.error('payment failed for card 4111 1111 1111 1111',
            'Authorization: Bearer abcdefghijklmnop');
          console.log('x'.repeat(10000));
          console.assert(1 === 2, 'math is broken');
          console.log(JSON.stringify({user: 'ada', password: 'hunter2', apiKey: 'k-1'}));
        }"""
    )
    await lab.click("log-warn")
    logs = await lab.wait_events("console", lambda e: len(e) >= 9)
    by_level: dict[str, list[list[str]]] = {}
    for e in logs:
        by_level.setdefault(e["level"], []).append(e["args"])

    plain = by_level["log"][0]
    assert plain[:5] == ["plain", "42", "true", "null", "undefined"]
    obj = json.loads(plain[5])
    assert obj["self"] == "[Circular]" and obj["token"] == MARK and obj["list"] == [1, 2, 3]
    assert obj["deep"]["a"]["b"]["c"] == "[Object]"  # depth-capped
    assert by_level["info"] == [["cart has 3 items"]]
    assert by_level["warn"][0][0].startswith("<button") and 'data-testid="log-info"' in by_level["warn"][0][0]
    assert by_level["debug"][0][0].startswith("TypeError: boom\n") and "    at " in by_level["debug"][0][0]
    long_arg = by_level["log"][1][0]
    assert 1000 < len(long_arg) <= 2001, "one argument is capped"
    assert json.loads(by_level["log"][2][0]) == {"user": "ada", "password": MARK, "apiKey": MARK}

    card_error, assertion = by_level["error"]
    assert card_error == [f"payment failed for card {MARK}", f"Authorization: Bearer {MARK}"]
    assert assertion == ["Assertion failed:", "math is broken"]

    warn = next(e for e in logs if e["level"] == "warn" and "stock is low" in e["args"][0])
    assert warn["args"] == ["[lab] warning: stock is low for SKU-101 (3 left)"]
    assert warn["source"]["url"].endswith("/js/lab.js") and warn["source"]["line"] > 0

    # Each console.error also comes as an error event (its own budget), with the same text,
    # so the bridge files it under errors once and never twice.
    twins = [e for e in await lab.events("error") if e["errorType"] == "console"]
    assert [t["message"] for t in twins] == [" ".join(card_error), " ".join(assertion)]
    assert "4111" not in dump(await lab.events())


async def test_uncaught_exceptions_and_rejections_still_reach_the_page(lab: Lab) -> None:
    await lab.page.evaluate(
        "() => { window.__onerror = []; window.onerror = (m) => { window.__onerror.push(String(m)); }; }"
    )
    await lab.click("throw-error")
    await lab.click("reject-promise")
    await lab.page.evaluate("() => { Promise.reject({status: 42, secret: 's3cr3t'}); }")
    errors = await lab.wait_events("error", lambda e: len(e) >= 3)

    uncaught = next(e for e in errors if e["errorType"] == "uncaught")
    assert uncaught["message"] == "Error: Lab: an uncaught exception from a button"
    assert "lab.js" in uncaught["stack"]
    assert uncaught["source"]["url"].endswith("/js/lab.js") and uncaught["source"]["line"] > 0

    rejections = [e for e in errors if e["errorType"] == "unhandledrejection"]
    assert rejections[0]["message"] == "Error: Lab: an unhandled promise rejection"
    assert rejections[0]["source"]["url"].endswith("/js/lab.js")
    assert rejections[1]["message"] == f'Unhandled rejection: {{"status":42,"secret":"{MARK}"}}'

    # The page's own handlers and the browser still see every exception.
    assert any("uncaught exception" in m for m in await lab.page.evaluate("window.__onerror"))
    await eventually(lambda: any("uncaught exception" in m for m in lab.page_errors))
    await eventually(lambda: any("unhandled promise rejection" in m for m in lab.page_errors))


async def test_console_flood_drops_logs_counted_and_errors_survive(lab: Lab) -> None:
    flood = 5000
    await lab.page.evaluate(
        """(n) => {
          for (let i = 0; i < n; i++) console.log(i, 'flood line');
          console.error('after the flood');
          setTimeout(() => { throw new Error('thrown after the flood'); });
          Promise.reject(new Error('rejected after the flood'));
        }""",
        flood,
    )
    errors = await lab.wait_events("error", lambda e: len(e) >= 3)
    assert {e["errorType"] for e in errors} == {"console", "uncaught", "unhandledrejection"}
    batches = await lab.batches(drain=True)
    kept = sum(
        1 for b in batches for e in b["events"] if e["kind"] == "console" and e["args"][1:] == ["flood line"]
    )
    dropped = sum(b["dropped"].get("console", 0) for b in batches)
    assert dropped > 0
    # Every log is sent or counted; the console.error's own log event is among the dropped ones,
    # its error twin (separate budget) is not.
    assert kept + dropped == flood + 1
    assert all(len(b["events"]) <= 200 for b in batches)
    assert not any(b["dropped"].get("error") for b in batches)
    status = configure(await lab.ingest(), {"action": "status"}).data
    assert status["droppedByTab"]["1"]["logs"]["page"] == dropped, "the bridge counts the page's drops"


async def test_a_batch_of_three_byte_characters_stays_within_the_relays_bytes(lab: Lab) -> None:
    # Logs in CJK: 8 arguments of 2,000 characters, 48 KB of UTF-8 each. The content script drops a
    # batch over 1 MiB of UTF-8 (extension/limits.js SIZE.telemetry); the capture's own batches are
    # 512 KiB, counted in UTF-16 units they reached 1.5 MiB in 3-byte characters and were dropped whole.
    logs = 60
    await lab.page.evaluate(
        """(n) => {
          const s = '\\u4e2d'.repeat(2000);
          for (let i = 0; i < n; i++) console.log(`cjk ${i}`, s, s, s, s, s, s, s);
        }""",
        logs,
    )
    batches = await lab.batches(drain=True)
    sent = [e for b in batches for e in b["events"] if e["kind"] == "console" and str(e["args"][0]).startswith("cjk ")]
    assert len(sent) == logs and not any(b["dropped"].get("console") for b in batches)
    sizes = [len(json.dumps(b["events"], ensure_ascii=False, separators=(",", ":")).encode()) for b in batches]
    assert max(sizes) <= 512 * 1024 + 1024, sizes  # its events' bytes, a few brackets and commas more
    assert sum(sizes) > 2 * 1024 * 1024  # the logs are 2.9 MB of UTF-8: several batches


async def test_a_page_that_redefines_a_typed_arrays_length_does_not_size_its_batches(lab: Lab) -> None:
    # The capture counts an event's bytes by encoding it (natives.js saves TextEncoder's encode before
    # any page script); the encoded bytes' length was read through %TypedArray%.prototype.length, a
    # getter any page script may redefine later: one that says 1 made every event 1 byte, a batch of
    # 60 CJK logs 2.9 MB, and the content script dropped it whole.
    await lab.page.evaluate(
        """() => { const proto = Object.getPrototypeOf(Uint8Array.prototype);
                   const real = Object.getOwnPropertyDescriptor(proto, 'length').get;
                   Object.defineProperty(proto, 'length', { configurable: true,
                     get() { const n = real.call(this); return n > 4096 ? 1 : n; } }); }"""
    )
    logs = 60
    await lab.page.evaluate(
        """(n) => { const s = '\\u4e2d'.repeat(2000);
                    for (let i = 0; i < n; i++) console.log(`cjk ${i}`, s, s, s, s, s, s, s); }""",
        logs,
    )
    batches = await lab.batches(drain=True)
    sent = [e for b in batches for e in b["events"] if e["kind"] == "console" and str(e["args"][0]).startswith("cjk ")]
    assert len(sent) == logs and not any(b["dropped"].get("console") for b in batches)
    sizes = [len(json.dumps(b["events"], ensure_ascii=False, separators=(",", ":")).encode()) for b in batches]
    assert max(sizes) <= 512 * 1024 + 1024, sizes  # what the content script would relay (1 MiB at most)


# ------------------------------------------------------------------------------------ network


async def test_fetch_and_xhr_requests_redacted(lab: Lab) -> None:
    for test_id in ("fetch-users", "fetch-create", "fetch-missing", "xhr-order"):
        await lab.click(test_id)
        await lab.result_text(test_id)
    await lab.page.evaluate(
        """async () => {
          await fetch('/api/users/2?access_token=abc123&page=2', {headers: {
            'X-Api-Key': 'k-123', 'Cookie': 'sid=1',
            'X-Trace': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl'}});
          await fetch('http://127.0.0.1:1/unreachable').catch(() => {});
          await new Promise((resolve) => {
            const xhr = new XMLHttpRequest();
            xhr.open('POST', '/api/users');
            xhr.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
            xhr.onloadend = resolve;
            xhr.send('name=Ada&email=ada%40acme.test&password=hunter2');
          });
        }"""
    )
    requests = await lab.wait_events("network", lambda e: len(e) >= 7)

    # Events are sent when a request completes (its body read), so look them up, not by position.
    def find(method: str, path: str) -> dict[str, Any]:
        return next(e for e in requests if e["method"] == method and path in e["url"])

    users, create, missing = find("GET", "/api/users"), find("POST", "/api/users"), find("GET", "/missing")
    order, user2, unreachable = find("GET", "/orders/42"), find("GET", "/users/2"), find("GET", ":1/")
    form = next(e for e in requests if e["api"] == "xhr" and e["method"] == "POST")

    assert users["api"] == "fetch" and users["method"] == "GET" and users["status"] == 200
    assert users["url"] == lab.base_url + "api/users" and users["mimeType"] == "application/json"
    assert json.loads(users["responseBody"])["total"] == 5
    assert users["startTime"] > 1e12 and users["duration"] >= 0 and users["requestId"]
    assert users["responseHeaders"]["content-type"] == "application/json"

    assert create["method"] == "POST" and create["status"] == 201 and create["statusText"] == "Created"
    assert create["requestHeaders"]["authorization"] == MARK
    assert create["requestHeaders"]["content-type"] == "application/json"
    assert json.loads(create["requestBody"]) == {
        "name": "Barbara Liskov",
        "email": "barbara@acme.test",
        "password": MARK,
    }
    assert json.loads(create["responseBody"])["user"]["id"] == 6

    assert missing["status"] == 404 and json.loads(missing["responseBody"])["error"] == "not_found"
    assert (
        order["api"] == "xhr"
        and order["status"] == 200
        and order["requestHeaders"] == {"accept": "application/json"}
    )
    assert json.loads(order["responseBody"])["order"]["id"] == 42

    assert user2["url"].endswith(f"/api/users/2?access_token={MARK}&page=2")
    assert user2["requestHeaders"]["x-api-key"] == MARK and user2["requestHeaders"]["cookie"] == MARK
    assert user2["requestHeaders"]["x-trace"] == MARK  # a JWT, by pattern

    assert unreachable["status"] == 0 and unreachable["failure"].startswith("TypeError")
    assert form["api"] == "xhr" and form["requestBody"] == f"name=Ada&email=ada%40acme.test&password={MARK}"

    # What the page got is what it would have got without us.
    assert "GET /api/users → 200, 5 users" in await lab.result_text("fetch-users")
    assert "created user 6 (Barbara Liskov)" in await lab.result_text("fetch-create")
    assert "404 not_found" in await lab.result_text("fetch-missing")
    assert "shipped, total 267" in await lab.result_text("xhr-order")
    everything = dump(await lab.events())
    for secret in ("correct horse", "lab-demo-token", "abc123", "k-123", "hunter2", "eyJhbGci"):
        assert secret not in everything


# Issue 30, item 11: each shape reached observe unredacted; the page must redact it before it leaves.
SECRET_SHAPES = {
    "passcode": "passcode=981276",
    "pw": "pw=hunter2x",
    "mfa": "mfa_code: 493817",
    "apim": "Ocp-Apim-Subscription-Key: 3f2a9c1d8e7b4a60b5c4",
    "s3": "https://b.s3.amazonaws.com/r.pdf?X-Amz-Date=1&X-Amz-Signature=0f1e2d3c4b5a6978aa",
    "gcs": "https://storage.googleapis.com/b/o?X-Goog-Signature=a1b2c3d4e5f6a7b8",
    "sas": "https://a.blob.core.windows.net/c/f?sv=1&sig=Zm9vYmFyYmF6cXV4",
    "pem": "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oJ1w\n-----END EC PRIVATE KEY-----",
    "whsec": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "slack": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "nbsp": "4111\u00a01111\u00a01111\u00a01111",
    "nnbsp": "4111\u202f1111\u202f1111\u202f1111",
    "thin": "4111\u20091111\u20091111\u20091111",
}
SECRET_VALUES = ("981276", "hunter2x", "493817", "3f2a9c1d8e7b", "0f1e2d3c4b5a", "a1b2c3d4e5f6", "Zm9vYmFy",
                 "MHcCAQEEIBkg4", "MfKQ9r8GKYqr", "XXXXXXXXXXXX", "1111\u00a01111", "1111\u202f1111",
                 "1111\u20091111")


async def test_each_secret_shape_is_redacted_before_it_leaves_the_page(lab: Lab) -> None:
    await lab.page.evaluate(
        """async (shapes) => {
          for (const [name, text] of Object.entries(shapes)) console.log(`shape ${name}:`, text);
          console.log(JSON.stringify({passcode: '981276', mfa_code: '493817', pw: 'hunter2x', user: 'ada'}));
          await fetch('/api/users?X-Amz-Signature=0f1e2d3c4b5a6978aa&page=1', {headers: {
            'Ocp-Apim-Subscription-Key': '3f2a9c1d8e7b4a60b5c4', 'X-Goog-Signature': 'a1b2c3d4e5f6a7b8'}});
        }""",
        SECRET_SHAPES,
    )
    logs = await lab.wait_events("console", lambda e: len(e) >= len(SECRET_SHAPES) + 1)
    requests = await lab.wait_events("network", lambda e: any("X-Amz-Signature" in r["url"] for r in e))
    for name in SECRET_SHAPES:
        line = next(e["args"] for e in logs if e["args"][0] == f"shape {name}:")
        assert MARK in line[1], (name, line)
    assert json.loads(logs[len(SECRET_SHAPES)]["args"][0]) == {
        "passcode": MARK, "mfa_code": MARK, "pw": MARK, "user": "ada"}
    sent = next(r for r in requests if "X-Amz-Signature" in r["url"])
    assert sent["url"].endswith(f"?X-Amz-Signature={MARK}&page=1")
    assert sent["requestHeaders"]["ocp-apim-subscription-key"] == MARK
    assert sent["requestHeaders"]["x-goog-signature"] == MARK
    everything = dump(await lab.events())
    for secret in SECRET_VALUES:
        assert secret not in everything, secret


async def test_page_behaves_identically_with_and_without_capture(
    new_lab: Callable[..., Awaitable[Lab]],
) -> None:
    battery = """async () => {
      const out = {};
      const r = await fetch('/api/users');
      out.json = await r.json(); out.bodyUsed = r.bodyUsed;
      const r2 = await fetch('/api/orders/7');
      const copy = r2.clone();
      out.cloned = [await copy.text(), await r2.text()];
      const reader = (await fetch('/api/users')).body.getReader();
      let bytes = 0;
      for (;;) { const {done, value} = await reader.read(); if (done) break; bytes += value.length; }
      out.streamed = bytes;
      out.req = await (await fetch(new Request('/api/users', {method: 'POST',
        body: '{"name":"A","email":"a@b"}', headers: {'Content-Type': 'application/json'}}))).json();
      out.fetchFailure = await fetch('http://127.0.0.1:1/')
        .then(() => 'ok', (e) => `${e.name}: ${e.message}`);
      out.illegalFetch = await fetch.call({}, '/api/users').then(() => 'ok', (e) => e.name);
      out.unhandled = await new Promise((resolve) => {
        addEventListener('unhandledrejection', (e) => {
          e.preventDefault();
          resolve(e.reason.name);
        }, {once: true});
        fetch('http://127.0.0.1:1/nobody-catches-this');
        setTimeout(() => resolve('no unhandledrejection'), 3000);
      });
      out.names = [fetch.name, fetch.length, console.log.name, console.log.length, console.assert.name, console.assert.length,
        XMLHttpRequest.prototype.open.name,
        WebSocket.name, WebSocket.length, String(console.log('returns'))];

      const xhr = new XMLHttpRequest();
      const seen = [];
      for (const t of ['loadstart', 'progress', 'load', 'loadend']) {
        xhr.addEventListener(t, () => seen.push(t));
      }
      out.xhr = await new Promise((resolve) => {
        xhr.open('GET', '/api/orders/3');
        xhr.responseType = 'json';
        xhr.onload = function () {
          resolve({status: this.status, thisOk: this === xhr, body: this.response});
        };
        xhr.send();
      });
      out.xhrEvents = seen;
      const sync = new XMLHttpRequest();
      sync.open('GET', '/api/users/1', false);
      sync.send();
      out.syncXhr = [sync.status, JSON.parse(sync.responseText)];
      const errors = [];
      try { new XMLHttpRequest().send(); } catch (e) { errors.push(e.name); }
      try { XMLHttpRequest.prototype.open.call({}, 'GET', '/'); } catch (e) { errors.push(e.name); }
      try { new XMLHttpRequest().open('BAD METHOD', '/'); } catch (e) { errors.push(e.name); }
      try { WebSocket('ws://127.0.0.1/'); } catch (e) { errors.push(e.name); }
      try { new WebSocket('ftp://127.0.0.1/'); } catch (e) { errors.push(e.name); }
      out.errors = errors;

      const wsUrl = location.origin.replace('http', 'ws') + '/ws/echo';
      const ws = new WebSocket(wsUrl);
      try { ws.send('too early'); } catch (e) { out.earlySend = e.name; }
      ws.binaryType = 'arraybuffer';
      out.ws = await new Promise((resolve) => {
        const got = [];
        ws.onopen = () => { ws.send('ping'); ws.send(new Uint8Array([1, 2, 3])); };
        ws.onmessage = function (e) {
          got.push(typeof e.data === 'string' ? e.data : Array.from(new Uint8Array(e.data)));
          if (got.length === 2) { got.push(this === ws); ws.close(4000, 'bye'); }
        };
        ws.onclose = (e) => resolve({got, code: e.code, reason: e.reason});
      });
      class Chat extends WebSocket { hello() { return 'hi'; } }
      const chat = new Chat(wsUrl);
      out.subclass = [chat.hello(), chat instanceof Chat, chat instanceof WebSocket,
        chat.constructor === Chat];
      chat.close();
      out.ctor = [ws instanceof WebSocket, WebSocket.prototype.constructor === WebSocket,
        WebSocket.OPEN, WebSocket.CLOSED, Object.getPrototypeOf(WebSocket) === EventTarget,
        typeof WebSocket.prototype.send, 'CONNECTING' in WebSocket];
      out.globals = Object.keys(window).filter((k) => !k.startsWith('__')).sort();
      return out;
    }"""
    plain = await new_lab(telemetry=False)
    captured = await new_lab()
    without = await plain.page.evaluate(battery)
    with_capture = await captured.page.evaluate(battery)
    assert with_capture == without
    assert without["errors"] == ["InvalidStateError", "TypeError", "SyntaxError", "TypeError", "SyntaxError"]
    assert without["unhandled"] == "TypeError"
    assert without["ws"]["got"] == ["ping", [1, 2, 3], True]
    # ...and the capturing page saw it all.
    network = await captured.wait_events("network", lambda e: len(e) >= 9)
    posted = next(e for e in network if e["method"] == "POST")
    assert json.loads(posted["requestBody"]) == {
        "name": "A",
        "email": "a@b",
    }  # read from a clone of the Request
    frames = [e for e in await captured.events("websocket") if e["event"] == "message"]
    assert {(f["direction"], f["data"]) for f in frames} >= {
        ("out", "ping"),
        ("in", "ping"),
        ("out", "[binary 3 bytes]"),
    }


# ------------------------------------------------------------------------------------ websocket


async def test_websocket_connection_frames_and_sampling(lab: Lab) -> None:
    await lab.click("ws-open")
    await lab.result_text("ws-open")
    await lab.click("ws-send")
    await lab.click("ws-flood")
    await lab.page.wait_for_function(
        "document.querySelector('[data-testid=ws-received]').textContent === '201'"
    )
    await lab.click("ws-close")
    events = await lab.wait_events("websocket", lambda e: any(x["event"] == "close" for x in e))

    assert len({e["connectionId"] for e in events}) == 1, "one socket, one stable id"
    opened = events[0]
    assert opened["event"] == "open" and opened["url"] == lab.base_url.replace("http", "ws") + "ws/echo"
    close = events[-1]
    assert close["event"] == "close" and close["code"] == 1000 and close["reason"] == "closed from the lab"
    frames = [e for e in events if e["event"] == "message"]
    first_out = next(f for f in frames if f["direction"] == "out")
    assert json.loads(first_out["data"]) == {"type": "chat", "text": "hello from the lab", "n": 1}
    assert first_out["size"] == len(first_out["data"]) and "sampled" not in first_out
    for direction in ("out", "in"):
        mine = [f for f in frames if f["direction"] == direction]
        sampled = [f for f in mine if "sampled" in f]
        assert sampled and all(f["sampled"]["every"] > 1 for f in sampled)
        assert len(mine) < 120, "a flood is sampled, not sent whole"
        estimate = sum(f.get("sampled", {}).get("every", 1) for f in mine)
        assert 201 <= estimate <= 230, estimate  # each kept frame stands for `every` frames
    assert await lab.page.get_by_test_id("ws-received").inner_text() == "201"

    await lab.page.evaluate("() => { new WebSocket('ws://127.0.0.1:1/nobody-listens'); }")
    failed = await lab.wait_events(
        "websocket", lambda e: any(x["url"].endswith("/nobody-listens") for x in e[-1:])
    )
    refused = [e for e in failed if e["url"].endswith("/nobody-listens")]
    assert [e["event"] for e in refused] == ["error", "close"] and refused[1]["code"] == 1006


# ------------------------------------------------------------------------------------ user actions


async def test_user_actions_selectors_and_field_redaction(lab: Lab) -> None:
    page = lab.page
    await page.get_by_test_id("username").press_sequentially("ada", delay=20)
    await page.get_by_test_id("password").fill("hunter2-secret")
    await page.get_by_test_id("card").fill("4242 4242 4242 4242")
    await page.get_by_label("Display name").fill("Ada L")
    await page.get_by_label("Remember me").check()
    await page.keyboard.press("Control+k")
    await page.get_by_label("Display name").press("Enter")
    signed_in = await lab.result_text("login")
    await page.get_by_role("button", name="Clear the list").click()
    actions = await lab.wait_events(
        "action", lambda e: any(a["action"] == "click" and a.get("tag") == "button" for a in e)
    )
    flow = [
        (
            a["action"],
            a.get("key") or a.get("selectors", {}).get("testId") or a.get("selectors", {}).get("label"),
        )
        for a in actions
    ]
    assert flow[0] == ("navigate", None)
    assert [f for f in flow if f[0] in ("input", "keydown", "submit")] == [
        ("input", "username"),
        ("input", "password"),
        ("input", "card"),
        ("input", "Display name"),
        ("keydown", "Control+k"),
        ("keydown", "Enter"),
        ("submit", "login-form"),
    ], "one input per field (debounced), the value before the key, no click for Enter's implicit submit"

    values = {f[1]: a.get("value") for f, a in zip(flow, actions, strict=True) if a["action"] == "input"}
    assert values == {"username": "ada", "password": MARK, "card": MARK, "Display name": "Ada L"}

    username = next(a for a in actions if a["action"] == "input")
    assert username["selectors"] == {
        "testId": "username",
        "role": "textbox",
        "name": "Username",
        "label": "Username",
        "css": "#username",
    }
    assert username["tag"] == "input" and username["url"] == lab.base_url + "lab.html"
    display = next(a for a in actions if a.get("value") == "Ada L")["selectors"]
    assert "testId" not in display and display["label"] == "Display name" and display["role"] == "textbox"
    remember = [
        a for a in actions if a.get("selectors", {}).get("name") == "Remember me" and a["action"] != "keydown"
    ]
    assert [a["action"] for a in remember] == ["click", "change"] and remember[1]["value"] == "true"
    assert (
        remember[0]["selectors"]["role"] == "checkbox" and remember[0]["selectors"]["label"] == "Remember me"
    )
    clear = actions[-1]["selectors"]
    assert "testId" not in clear and clear["role"] == "button" and clear["name"] == "Clear the list"
    assert await page.evaluate("(css) => document.querySelectorAll(css).length", clear["css"]) == 1

    everything = dump(await lab.events())
    assert "hunter2" not in everything and "4242" not in everything
    assert "signed in as ada (card ending 4242)" in signed_in

    # The bridge turns them into a replayable script.
    store = await lab.ingest()
    script = generate(store, {"format": "reproduction"}).text
    compile(script, "reproduction.py", "exec")
    assert 'get_by_test_id("username").fill("ada")' in script
    assert 'get_by_role("textbox", name="Display name", exact=True).fill("Ada L")' in script
    assert "TABMCP_SECRET_1" in script and "hunter2" not in script


async def test_navigations_spa_routes_and_reload(lab: Lab) -> None:
    first = (await lab.wait_events("navigation"))[0]
    assert (
        first["navType"] == "load"
        and first["url"] == lab.base_url + "lab.html"
        and len(first["loadId"]) == 16
    )
    await lab.click("filter-errors")  # history.pushState
    await lab.click("nav-network")  # a hash link
    await lab.page.go_back()  # popstate
    navigations = await lab.wait_events("navigation", lambda e: len(e) >= 4)
    assert [(n["navType"], n["url"].removeprefix(lab.base_url)) for n in navigations] == [
        ("load", "lab.html"),
        ("spa", "lab.html?show=problems"),
        ("spa", "lab.html?show=problems#network"),
        ("spa", "lab.html?show=problems"),
    ]
    assert {n["loadId"] for n in navigations} == {first["loadId"]}, "SPA routes stay in the page load"
    routes = [a for a in await lab.events("action") if a["action"] in ("navigate", "route")]
    assert [a["action"] for a in routes] == ["navigate", "route", "route", "route"]

    await lab.page.reload()
    reloaded = (await lab.wait_events("navigation"))[0]
    assert reloaded["navType"] == "reload" and reloaded["loadId"] != first["loadId"]

    await lab.page.goto(lab.base_url + "favicon.svg")
    await lab.page.go_back()  # a new document, or the same one restored from the back/forward cache
    back = (await lab.wait_events("navigation", lambda e: e[-1]["navType"] == "back_forward"))[-1]
    assert back["url"] == reloaded["url"] == lab.base_url + "lab.html?show=problems"
    assert back["loadId"] not in (first["loadId"], reloaded["loadId"])


# ------------------------------------------------------------------------------------ performance


async def test_long_task_and_vitals(lab: Lab) -> None:
    await lab.click("slow-task")
    tasks = await lab.wait_events("longtask", lambda e: any(t["duration"] >= 100 for t in e))
    slow = max(tasks, key=lambda t: t["duration"])
    assert slow["startTime"] > 1e12 and slow["duration"] >= 100

    # Event Timing entries are dispatched after the next paint, not with the click. Wait until the
    # browser has queued the slow interaction's entry; the snapshot must then include it even if
    # our own observer's callback has not run yet (it drains pending records).
    await lab.page.evaluate(
        """() => new Promise((done, fail) => {
               setTimeout(() => fail(new Error('no event timing entry for the slow click')), 10000);
               new PerformanceObserver((list, po) => {
                 if (list.getEntries().some((e) => e.interactionId && e.duration >= 100)) { po.disconnect(); done(); }
               }).observe({ type: 'event', buffered: true, durationThreshold: 16 });
           })"""
    )
    # Hiding the page sends a snapshot at once...
    await lab.page.evaluate(
        """() => { Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true});
                   document.dispatchEvent(new Event('visibilitychange')); }"""
    )
    on_hide = (await lab.wait_events("vitals"))[-1]
    assert on_hide["metrics"]["INP"] >= 100

    # ...and so does a query, which also answers with it.
    answer = await lab.query("vitals")
    assert answer["ok"], answer
    vitals = answer["result"]
    load_id = (await lab.events("navigation"))[0]["loadId"]
    assert vitals["kind"] == "vitals" and vitals["loadId"] == load_id
    metrics = vitals["metrics"]
    assert {"FCP", "LCP", "TTFB", "CLS"} <= metrics.keys() and metrics["CLS"] < 0.1
    assert metrics["INP"] >= 100, "the slow click is the worst interaction"
    assert vitals["navigation"]["domContentLoaded"] > 0 and vitals["navigation"]["load"] > 0
    sent = await lab.wait_events("vitals", lambda e: len(e) >= 2)
    assert sent[-1]["metrics"] == metrics and sent[-1]["loadId"] == load_id
    store = await lab.ingest()
    report = analyze(store, {"target": "performance"})
    assert report.data["loads"][0]["loadId"] == load_id
    assert report.data["loads"][0]["longTasks"]["longestMs"] >= 100


# ------------------------------------------------------------------------------------ live queries


async def test_page_queries_dom_page_axe(lab: Lab) -> None:
    await lab.page.get_by_test_id("password").fill("hunter2")
    await lab.wait_events("action", lambda e: any(a["action"] == "input" for a in e))
    activity = ("console", "error", "action", "network", "navigation")
    captured_before = [e for e in await lab.events() if e["kind"] in activity]
    dom = await lab.query("dom", {"selector": "[data-testid^='fetch-']", "limit": 2})
    assert dom["ok"] and dom["result"]["matches"] == 3 and dom["result"]["truncated"]
    users = dom["result"]["elements"][0]
    assert users["tag"] == "button" and users["text"] == "GET /api/users" and users["visible"]
    assert users["attributes"] == {"class": "btn", "data-testid": "fetch-users"}
    assert users["selectors"]["testId"] == "fetch-users" and users["rect"]["width"] > 0

    field = await lab.query("dom", {"selector": "#password", "attributes": ["type", "name"], "html": True})
    password = field["result"]["elements"][0]
    assert password["attributes"] == {"type": "password", "name": "password"}
    assert password["value"] == MARK and password["html"].startswith("<input")

    await lab.page.evaluate(
        "() => document.body.insertAdjacentHTML('beforeend', '<p id=hidden hidden>secret</p>')"
    )
    hidden = await lab.query("dom", {"selector": "#hidden"})
    assert hidden["result"]["elements"][0]["visible"] is False

    bad = await lab.query("dom", {"selector": "div["})
    assert not bad["ok"] and bad["error"]["code"] == "INVALID_SELECTOR" and "div[" in bad["error"]["message"]
    unknown = await lab.query("nope")
    assert unknown["error"]["code"] == "UNKNOWN_QUERY"

    page = (await lab.query("page"))["result"]
    assert page["url"] == lab.base_url + "lab.html" and page["title"] == "Diagnostics lab · Acme Back Office"
    assert (
        page["readyState"] == "complete" and page["loadId"] == (await lab.events("navigation"))[0]["loadId"]
    )
    assert page["counts"]["forms"] == 1 and page["counts"]["inputs"] == 5 and page["counts"]["buttons"] >= 18
    assert page["headings"][0] == {"level": 1, "text": "Diagnostics lab"}
    assert page["activeElement"]["selectors"]["testId"] == "password"
    assert page["viewport"]["width"] > 0

    # Audits never run in the page's world (a page could define `axe`): the extension runs its
    # own axe-core in its isolated world (e2e/test_hostile_telemetry.py), the page answers none.
    await lab.page.evaluate("() => { window.axe = {run: async () => ({violations: []})}; }")
    refused = await lab.query("axe")
    assert not refused["ok"] and refused["error"]["code"] == "UNKNOWN_QUERY"

    # Queries and their answers are not page activity (the hidden <p> insertion is no event either).
    assert [e for e in await lab.events() if e["kind"] in activity] == captured_before


# ------------------------------------------------------------------------------------ the lab's own tools


async def test_lab_registers_webmcp_tools_that_drive_the_scenarios(lab: Lab) -> None:
    webmcp = "globalThis[Symbol.for('tabmcp.webmcp')]"
    names = await lab.page.evaluate(f"{webmcp}.snapshot().then((s) => s.tools.map((t) => t.name).sort())")
    assert names == ["lab_reset", "lab_run", "lab_status"]
    assert await lab.page.get_by_test_id("webmcp-status").inner_text() == "WebMCP · 3 tools"
    ran = await lab.page.evaluate(f"{webmcp}.call('lab_run', {{scenario: 'xhr-order'}})")
    assert ran["ok"] and "shipped" in json.dumps(ran["result"])
    assert (await lab.wait_events("network"))[0]["url"].endswith("/api/orders/42")
    status = await lab.page.evaluate(f"{webmcp}.call('lab_status', {{}})")
    assert '"results":1' in json.dumps(status["result"]).replace(" ", "")
    bad = await lab.page.evaluate(f"{webmcp}.call('lab_run', {{scenario: 'format-disk'}})")
    assert not bad["ok"] or bad["result"].get("isError")


# ------------------------------------------------------------------------------------ settings


async def test_config_disables_capture_and_changes_redaction(lab: Lab) -> None:
    activity = ("console", "error", "network", "action", "websocket")  # what the clicks below would produce
    before = [e for e in await lab.events() if e["kind"] in activity]
    await lab.config(enabled=False)
    await lab.click("log-info")
    await lab.click("fetch-users")
    assert "5 users" in await lab.result_text("fetch-users"), "the page works the same while capture is off"
    # Capture back on, then a marker: events leave the page in order, so anything captured while
    # off would arrive before the marker.
    await lab.config(enabled=True)
    await lab.page.evaluate("() => console.log('capture is back')")
    await lab.wait_events("console", lambda e: any(x["args"] == ["capture is back"] for x in e))
    after = [e for e in await lab.events() if e["kind"] in activity]
    assert [e.get("args") for e in after[len(before):]] == [["capture is back"]], "nothing is captured while off"

    await lab.config(
        enabled=True,
        redact={**bridge_rules(keys=("nickname",), patterns=(r"ACME-\d{4}",)), "headers": ["X-Tenant"]},
        bodyLimit=64,
        wsSampleThreshold=1000,
    )
    await lab.page.evaluate(
        """async () => {
          console.log('ticket ACME-1234 for', {nickname: 'Bobby', password: 'pw'});
          await fetch('/api/users', {method: 'POST',
            headers: {'X-Tenant': 'acme-7', 'Content-Type': 'application/json'},
            body: JSON.stringify({name: 'Bo', email: 'bo@acme.test', nickname: 'Bobby'})});
        }"""
    )
    log = (await lab.wait_events("console"))[-1]
    assert log["args"] == [f"ticket {MARK} for", f'{{"nickname":"{MARK}","password":"{MARK}"}}']
    post = (await lab.wait_events("network", lambda e: any(x["method"] == "POST" for x in e)))[-1]
    assert post["requestHeaders"]["x-tenant"] == MARK
    assert json.loads(post["requestBody"])["nickname"] == MARK
    assert post["bodyTruncated"] and len(post["responseBody"]) <= 64

    await lab.click("ws-flood")
    await lab.page.wait_for_function(
        "document.querySelector('[data-testid=ws-received]').textContent === '200'"
    )

    # Unsampled, 400 frames in a few ms may be more than the page holds between two batches
    # (how many depends on the machine's speed): whatever is not sent is counted as dropped,
    # never lost silently. The drop path itself is forced deterministically by the console flood.
    async def accounted() -> tuple[list[dict[str, Any]], int]:
        frames = [e for e in await lab.events("websocket") if e["event"] == "message"]
        return frames, sum(b["dropped"].get("websocket", 0) for b in await lab.batches(drain=True))

    for _ in range(40):
        frames, dropped = await accounted()
        if len(frames) + dropped >= 400:
            break
        await asyncio.sleep(0.05)
    assert len(frames) + dropped == 400
    assert not any("sampled" in f for f in frames), "under the raised threshold"

    await lab.config(redact=bridge_rules())  # each config's rules replace the previous ones
    await lab.page.evaluate("() => console.log('ticket ACME-5678', 'password=pw')")
    last = (await lab.wait_events("console", lambda e: "ACME-5678" in dump(e[-1:])))[-1]
    assert last["args"] == ["ticket ACME-5678", f"password={MARK}"]


async def test_idempotent_and_ignores_the_extensions_own_messages(
    new_lab: Callable[..., Awaitable[Lab]],
) -> None:
    lab = await new_lab(copies=2)
    await lab.page.evaluate(
        """async () => {
          console.log('once');
          console.warn('[tabmcp] could not read the page tools:', 'the extension speaking');
          await fetch('/api/users/1');
          const say = (type, msg) => dispatchEvent(new CustomEvent(type, {detail: JSON.stringify(msg)}));
          say('tabmcp-content', {type: 'resync'});
          say('tabmcp-page', {type: 'snapshot', tools: []});
        }"""
    )
    await lab.wait_events("network")
    # A marker logged last: a second copy of the script (or the extension's own messages) would
    # have added its events before it.
    await lab.page.evaluate("() => console.log('marker')")
    logs = await lab.wait_events("console", lambda e: any(x["args"] == ["marker"] for x in e))
    assert [e["args"] for e in logs] == [["once"], ["marker"]]
    assert len(await lab.events("network")) == 1
    assert [a["action"] for a in await lab.events("action")] == ["navigate"]
    assert len(await lab.events("navigation")) == 1


async def test_a_page_that_patches_natives_later_does_not_change_the_capture(lab: Lab) -> None:
    """natives.js keeps the browser's functions from before any page script: a page that replaces
    them afterwards (badly) neither breaks nor fools what the capture sends."""
    # Patched while the page logs, requests and is queried, until what the capture sent for them
    # arrived; put back before Playwright reads the results (its serializer in the page uses them).
    await lab.page.evaluate(
        """async () => {
          const doc = Document.prototype;
          const saved = [JSON.stringify, JSON.parse, Object.keys, Array.isArray, doc.querySelectorAll];
          JSON.stringify = () => '"tampered"';
          JSON.parse = () => { throw new Error('tampered'); };
          Object.keys = () => [];
          Array.isArray = () => false;
          doc.querySelectorAll = function () { return []; };
          const until = async (done) => { while (!done()) await new Promise((r) => setTimeout(r, 10)); };
          console.log('patched', {user: 'ada', password: 'pw', list: [1, 2]});
          await fetch('/api/users', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: '{"name":"Bo","email":"bo@acme.test","password":"hunter2"}'});
          const query = {type: 'page.query', requestId: 'patched', kind: 'dom',
            args: {selector: "[data-testid^='fetch-']"}};
          (await window.__capture).postMessage(query);
          const hook = window[Symbol.for('tabmcp.telemetry')];
          await until(() => {
            hook.flush();
            return window.__batches.some((b) => b.events.some((e) => e.kind === 'network'))
              && window.__results.some((r) => r.requestId === 'patched');
          });
          [JSON.stringify, JSON.parse, Object.keys, Array.isArray, doc.querySelectorAll] = saved;
        }"""
    )
    logs = await lab.events("console")
    patched = next(x for x in logs if x["args"][0] == "patched")
    assert json.loads(patched["args"][1]) == {"user": "ada", "password": MARK, "list": [1, 2]}
    post = next(x for x in await lab.events("network") if x["method"] == "POST")
    assert json.loads(post["requestBody"])["password"] == MARK and post["requestHeaders"]
    dom = next(r for r in await lab.page.evaluate("window.__results") if r["requestId"] == "patched")
    assert dom["ok"] and dom["result"]["matches"] == 3, dom


async def test_a_relay_that_comes_after_the_capture_asks_for_its_line_once(
    new_lab: Callable[..., Awaitable[Lab]],
) -> None:
    """content.js and the capture scripts run at document_start in no fixed order: a relay that
    comes second asks for the line (messages.js CAPTURE_EVENT.ask) and gets it; the capture offers
    it once more only, so a page script that asks later gets nothing."""
    lab = await new_lab(collector_last=True)
    await lab.page.evaluate("() => console.log('through the line asked for')")
    await lab.wait_events("console", lambda e: any(x["args"] == ["through the line asked for"] for x in e))
    offers = await lab.page.evaluate(
        """() => {
          let offers = 0;
          addEventListener('tabmcp-capture-port', () => offers++);
          dispatchEvent(new Event('tabmcp-capture-ask'));
          return offers;
        }"""
    )
    assert offers == 0


async def test_a_page_posting_as_the_content_script_changes_nothing(lab: Lab) -> None:
    """Settings and queries come on the capture's own line: a page that sends them as the content
    script speaks to the page scripts (its window event) or on a window message neither turns
    redaction off nor gets an answer."""
    configs = (await lab.stats())["configs"]
    await lab.page.evaluate(
        """() => new Promise((resolve) => {
          const off = {enabled: true, redact: {keys: [], exactKeys: [], patterns: [], cardNumbers: false}};
          const say = (msg) => dispatchEvent(new CustomEvent('tabmcp-content', {detail: JSON.stringify(msg)}));
          say({type: 'telemetry.config', config: off});
          say({type: 'page.query', requestId: 'forged', kind: 'page'});
          window.postMessage({__tabmcp: 'content', msg: {type: 'telemetry.config', config: off}}, '*');
          window.postMessage({__tabmcp: 'content', msg: {type: 'page.query', requestId: 'forged', kind: 'page'}}, '*');
          addEventListener('message', (e) => e.data === 'after' && resolve());
          window.postMessage('after', '*');  // the window's messages arrive in order
        })"""
    )
    await lab.page.evaluate("() => console.log('after the forged config', 'password=hunter2')")
    logs = await lab.wait_events("console", lambda e: any(x["args"][0] == "after the forged config" for x in e))
    assert logs[-1]["args"] == ["after the forged config", f"password={MARK}"]
    assert (await lab.stats())["configs"] == configs
    assert await lab.page.evaluate("window.__results") == []


async def test_nothing_leaves_the_page_before_the_bridges_rules(
    new_lab: Callable[..., Awaitable[Lab]],
) -> None:
    """The page has no rules of its own: what it captures before the first telemetry.config
    (page scripts can run first) stays in the page, and is redacted with those rules once they
    come, config-only ones included; a query waits for them too."""
    lab = await new_lab(rules=False)
    long_line = "x" * 1995 + " ZQX-123456"  # the secret straddles the 2000-character cap
    await lab.page.evaluate(
        """async (longLine) => {
          console.log('ticket ZQX-654321', {nickname: 'Bobby', password: 'hunter2'});
          console.log(longLine);
          console.error('card 4111 1111 1111 1111');
          await fetch('/api/users/2?access_token=abc123', {headers: {'X-Api-Key': 'k-123'}});
        }""",
        long_line,
    )
    await lab.post({"type": "page.query", "requestId": "early", "kind": "page", "args": {}})
    stats = await lab.stats()
    assert stats["rulesKnown"] is False and stats["queued"] >= 6 and stats["batches"] == 0
    # Even a flush sends nothing.
    assert await lab.batches(drain=True) == []
    assert await lab.page.evaluate("window.__results") == [], "the query waits for the rules"

    await lab.config(
        config={**PAGE_CONFIG, "redact": bridge_rules(keys=("nickname",), patterns=(r"ZQX-\d{6}",))}
    )
    logs = [e["args"] for e in await lab.wait_events("console", lambda e: len(e) >= 3)]
    assert ["ticket [REDACTED]", f'{{"nickname":"{MARK}","password":"{MARK}"}}'] in logs
    assert ["x" * 1995 + " [RED…"] in logs, "redacted before it was cut"
    assert [f"card {MARK}"] in logs
    request = (await lab.wait_events("network"))[0]
    assert request["url"].endswith(f"access_token={MARK}")
    assert request["requestHeaders"]["x-api-key"] == MARK
    assert [n["navType"] for n in await lab.events("navigation")] == ["load"], "the load, captured before"
    handle = await lab.page.wait_for_function("window.__results.find((r) => r.requestId === 'early')")
    early = await handle.json_value()
    assert early["ok"] and early["result"]["telemetry"]["enabled"] is True
    everything = dump(await lab.events())
    for secret in ("ZQX-", "Bobby", "hunter2", "4111", "abc123", "k-123"):
        assert secret not in everything, secret
    assert (await lab.stats())["rulesKnown"] is True


def test_the_page_scripts_hold_no_copy_of_the_bridges_rules() -> None:
    """The default rules live in core/telemetry/settings.py only: no capture script spells one."""
    source = "\n".join(script.read_text(encoding="utf-8") for script in SCRIPTS)
    for pattern in DEFAULT_REDACTION_PATTERNS:
        assert pattern not in source, pattern
    assert not re.search(r"'(?:sessionid|passphrase|creditcard|apikey)'", source)
