"""Playwright reproduction scripts and tests (Python and TypeScript) from recorded actions.

:func:`plan_steps` turns the action stream into replayable steps, then a renderer writes them;
the generated files' environment variables are listed in docs/telemetry.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import urlsplit

from ..models import ActionEvent
from .locators import Language, Locator, best_locator, js_string, py_string

__all__ = ["Step", "plan_steps", "playwright_test", "recorded_origin", "reproduction_script"]

FAVICON_PATTERN = r"/favicon\.ico(\?|$)"
"""Browsers request /favicon.ico on their own; a 404 for it is not the page's console error."""
_CONSEQUENCE_MS = 5000.0
"""A navigation this soon after a click, submit or key press is taken as its consequence."""
_MODIFIER_KEYS = frozenset({"Shift", "Control", "Alt", "Meta", "CapsLock", "Fn"})
_REDACTED = ("[REDACTED", "%5BREDACTED")


@dataclass(frozen=True)
class Step:
    """One replayable step."""

    op: Literal["goto", "wait_url", "click", "fill", "select", "press", "submit", "note"]
    locator: Locator | None = None
    value: str | None = None
    """URL (goto / wait_url), text (fill / select), key (press), or the note's text."""
    secret: str | None = None
    """Environment variable that supplies a value redacted when recorded."""
    ts: float = 0.0
    label: str = ""


def recorded_origin(actions: Sequence[ActionEvent]) -> str | None:
    """``scheme://host[:port]`` of the first action with an http(s) URL."""
    for a in actions:
        parts = urlsplit(a.url)
        if parts.scheme in ("http", "https") and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    return None


def _one_line(text: str, limit: int = 120) -> str:
    """Safe inside a ``#`` / ``//`` comment or a raw docstring: one line, no triple quotes."""
    flat = " ".join(text.split()).replace('"""', "'''")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _redacted(value: str | None) -> bool:
    return value is not None and any(marker in value for marker in _REDACTED)


def plan_steps(actions: Sequence[ActionEvent]) -> list[Step]:
    """Turn recorded actions (in time order) into steps: one ``fill`` per field rather than per
    keystroke, a URL wait for a navigation an interaction caused, and events that were only a
    click's consequence (its ``change``, ``submit``) dropped, so the replay does each thing once."""
    steps: list[Step] = []
    current: str | None = None
    prev: ActionEvent | None = None
    secrets = 0
    for a in actions:
        if a.action in ("navigate", "route"):
            label = f"{a.action} to {a.url}"
        else:
            label = f"{a.action} {a.selectors.describe()}"
        if a.action in ("navigate", "route"):
            caused = (
                prev is not None
                and prev.action in ("click", "submit", "keydown")
                and a.ts - prev.ts <= _CONSEQUENCE_MS
            )
            if current is None:
                steps.append(Step("goto", value=a.url, ts=a.ts, label=label))
            elif a.url != current:
                op: Literal["goto", "wait_url"] = "wait_url" if a.action == "route" or caused else "goto"
                steps.append(Step(op, value=a.url, ts=a.ts, label=label))
            current = a.url
            prev = a
            continue
        if current is None:
            steps.append(Step("goto", value=a.url, ts=a.ts, label="open the recorded page"))
        elif a.url != current:
            steps.append(Step("wait_url", value=a.url, ts=a.ts, label="the page moved"))
        current = a.url
        loc = best_locator(a.selectors)
        if loc is None:
            steps.append(
                Step("note", value=f"skipped {a.action}: the element had no usable selector", ts=a.ts)
            )
            prev = a
            continue
        last = steps[-1] if steps else None
        if a.action == "click":
            steps.append(Step("click", loc, ts=a.ts, label=label))
        elif a.action in ("input", "change"):
            if (
                a.action == "change"
                and last is not None
                and last.op == "click"
                and last.locator == loc
                and a.ts - last.ts <= 1000
            ):
                pass  # the click already toggled it
            elif (a.tag or "").lower() == "select":
                steps.append(Step("select", loc, value=a.value or "", ts=a.ts, label=label))
            else:
                secret = None
                if _redacted(a.value):
                    secrets += 1
                    secret = f"TABMCP_SECRET_{secrets}"
                step = Step("fill", loc, value=a.value or "", secret=secret, ts=a.ts, label=label)
                if last is not None and last.op == "fill" and last.locator == loc:
                    if last.secret and secret:  # keep the first variable name for this field
                        secrets -= 1
                        step = replace(step, secret=last.secret)
                    steps[-1] = step
                else:
                    steps.append(step)
        elif a.action == "keydown":
            key = a.key or ""
            if len(key) > 1 and key not in _MODIFIER_KEYS:
                steps.append(Step("press", loc, value=key, ts=a.ts, label=label))
        elif a.action == "submit":
            consequence = (
                prev is not None
                and a.ts - prev.ts <= 2000
                and (prev.action == "click" or (prev.action == "keydown" and prev.key == "Enter"))
            )
            if not consequence:
                steps.append(Step("submit", loc, ts=a.ts, label=label))
        prev = a
    return steps


# -- rendering --------------------------------------------------------------------------


class _Renderer:
    """Language-specific expressions; the two subclasses below stay line-for-line parallel."""

    language: Language
    quote = staticmethod(py_string)

    def __init__(self, origin: str | None) -> None:
        self.origin = origin

    def url(self, url: str) -> str:
        if self.origin and (
            url == self.origin or url.startswith(self.origin + "/") or url.startswith(self.origin + "?")
        ):
            rest = url[len(self.origin) :] or "/"
            return f"BASE_URL + {self.quote(rest)}"
        return self.quote(url)

    def loc(self, step: Step) -> str:
        assert step.locator is not None
        return step.locator.render(self.language)


class _Py(_Renderer):
    language: Language = "python"

    def value(self, step: Step) -> str:
        if step.secret:
            return f'os.environ.get({py_string(step.secret)}, "")'
        return py_string(step.value or "")

    def step(self, step: Step, *, test: bool) -> list[str]:
        out = [f"# {_one_line(step.label)}"] if step.label else []
        if step.op == "goto":
            out.append(f"page.goto({self.url(step.value or '')})")
        elif step.op == "wait_url":
            if test and not _redacted(step.value):
                out.append(f"expect(page).to_have_url({self.url(step.value or '')})")
            else:
                out.append(f"page.wait_for_url({self._url_match(step.value or '')})")
        elif step.op == "click":
            out.append(f"{self.loc(step)}.click()")
        elif step.op == "fill":
            out.append(f"{self.loc(step)}.fill({self.value(step)})")
            if test and not step.secret:
                out.append(f"expect({self.loc(step)}).to_have_value({self.value(step)})")
        elif step.op == "select":
            out.append(f"{self.loc(step)}.select_option({self.value(step)})")
        elif step.op == "press":
            out.append(f"{self.loc(step)}.press({py_string(step.value or '')})")
        elif step.op == "submit":
            out.append(f'{self.loc(step)}.evaluate("form => form.requestSubmit()")')
        else:
            out = [f"# {_one_line(step.value or '')}"]
        return out

    def _url_match(self, url: str) -> str:
        if not _redacted(url):
            return self.url(url)
        prefix = _before_redaction(url)
        return f"lambda url: url.startswith({self.url(prefix)})"


class _Ts(_Renderer):
    language: Language = "typescript"
    quote = staticmethod(js_string)

    def value(self, step: Step) -> str:
        if step.secret:
            return f"(process.env.{step.secret} ?? '')"
        return js_string(step.value or "")

    def step(self, step: Step, *, test: bool) -> list[str]:
        out = [f"// {_one_line(step.label)}"] if step.label else []
        if step.op == "goto":
            out.append(f"await page.goto({self.url(step.value or '')});")
        elif step.op == "wait_url":
            if test and not _redacted(step.value):
                out.append(f"await expect(page).toHaveURL({self.url(step.value or '')});")
            else:
                out.append(f"await page.waitForURL({self._url_match(step.value or '')});")
        elif step.op == "click":
            out.append(f"await {self.loc(step)}.click();")
        elif step.op == "fill":
            out.append(f"await {self.loc(step)}.fill({self.value(step)});")
            if test and not step.secret:
                out.append(f"await expect({self.loc(step)}).toHaveValue({self.value(step)});")
        elif step.op == "select":
            out.append(f"await {self.loc(step)}.selectOption({self.value(step)});")
        elif step.op == "press":
            out.append(f"await {self.loc(step)}.press({js_string(step.value or '')});")
        elif step.op == "submit":
            out.append(f"await {self.loc(step)}.evaluate((form) => form.requestSubmit());")
        else:
            out = [f"// {_one_line(step.value or '')}"]
        return out

    def _url_match(self, url: str) -> str:
        if not _redacted(url):
            return self.url(url)
        return f"(url) => url.href.startsWith({self.url(_before_redaction(url))})"


def _before_redaction(url: str) -> str:
    cut = min(i for i in (url.find(m) for m in _REDACTED) if i >= 0)
    head = url[:cut]
    # Stop at the parameter's start so "?token=" is not required to be literally present.
    for sep in ("?", "#"):
        if sep in head:
            return head[: head.index(sep)]
    return head


def _indent(lines: list[str], spaces: int) -> str:
    pad = " " * spaces
    return "\n".join(pad + ln if ln else "" for ln in lines)


def _secrets(steps: list[Step]) -> list[str]:
    return sorted({s.secret for s in steps if s.secret})


def _header_lines(origin: str, steps: list[Step], what: str, run: str) -> list[str]:
    lines = [
        f"{what} generated by tabmcp from a recorded browser session ({len(steps)} steps).",
        "",
        f"Run: {run}",
        f"BASE_URL: the site to run against (default: the recorded origin, {_one_line(origin)}).",
        "CHROMIUM: path of a Chromium executable (default: Playwright's own browser). HEADED=1 shows it.",
    ]
    secrets = _secrets(steps)
    if secrets:
        lines.append(f"Values redacted when recorded come from: {', '.join(secrets)}.")
    return lines


def reproduction_script(
    actions: Sequence[ActionEvent], *, language: Language = "python", base_url: str | None = None
) -> str:
    """A runnable script that replays the actions (no assertions beyond URL waits)."""
    steps = plan_steps(actions)
    origin = (base_url or recorded_origin(actions) or "http://localhost").rstrip("/")
    if language == "python":
        py = _Py(recorded_origin(actions))
        body = [ln for s in steps for ln in py.step(s, test=False)] or ["pass"]
        doc = _header_lines(origin, steps, "Reproduction script", "python reproduction.py")
        return (
            'r"""' + "\n".join(doc) + '\n"""\n\n'
            "from __future__ import annotations\n\n"
            "import os\n\n"
            "from playwright.sync_api import Page, sync_playwright\n\n"
            f'BASE_URL = os.environ.get("BASE_URL", {py_string(origin)}).rstrip("/")\n\n\n'
            "def reproduce(page: Page) -> None:\n"
            f"{_indent(body, 4)}\n\n\n"
            "def main() -> None:\n"
            "    with sync_playwright() as p:\n"
            "        browser = p.chromium.launch(\n"
            '            executable_path=os.environ.get("CHROMIUM") or None,\n'
            '            headless=not os.environ.get("HEADED"),\n'
            "        )\n"
            "        try:\n"
            "            reproduce(browser.new_page())\n"
            "        finally:\n"
            "            browser.close()\n\n\n"
            'if __name__ == "__main__":\n'
            "    main()\n"
        )
    ts = _Ts(recorded_origin(actions))
    body = [ln for s in steps for ln in ts.step(s, test=False)]
    doc = _header_lines(
        origin, steps, "Reproduction script", "npx tsx reproduction.ts (or node reproduction.mjs)"
    )
    return (
        "\n".join(f"// {ln}".rstrip() for ln in doc) + "\nimport { chromium } from 'playwright';\n\n"
        f"const BASE_URL = (process.env.BASE_URL ?? {js_string(origin)}).replace(/\\/$/, '');\n\n"
        "const browser = await chromium.launch({\n"
        "  executablePath: process.env.CHROMIUM || undefined,\n"
        "  headless: !process.env.HEADED,\n"
        "});\n"
        "try {\n"
        "  const page = await browser.newPage();\n"
        f"{_indent(body, 2)}\n"
        "} finally {\n"
        "  await browser.close();\n"
        "}\n"
    )


def playwright_test(
    actions: Sequence[ActionEvent],
    *,
    language: Language = "python",
    base_url: str | None = None,
    expect_texts: Sequence[str] = (),
    assert_no_console_errors: bool = True,
    recorded_errors: Sequence[str] = (),
    ignore_console: Sequence[str] = (),
    name: str = "recorded session",
) -> str:
    """A Playwright test: the replay plus assertions (URLs, filled values, ``expect_texts``, and no
    console errors but those matching ``ignore_console``). ``recorded_errors`` are listed in a
    comment, since the test fails on them until they are fixed."""
    ignored = [FAVICON_PATTERN, *ignore_console]
    steps = plan_steps(actions)
    origin = (base_url or recorded_origin(actions) or "http://localhost").rstrip("/")
    final_url = next((s.value for s in reversed(steps) if s.op in ("goto", "wait_url")), None)
    if steps and steps[-1].op == "wait_url":
        final_url = None  # the last step already asserts it
    ident = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_") or "recorded_session"
    if language == "python":
        py = _Py(recorded_origin(actions))
        body = [
            "console_errors: list[str] = []",
            "",
            "def on_console(msg: ConsoleMessage) -> None:",
            '    where = msg.location.get("url", "")',
            "    ignored = any(p.search(msg.text) or p.search(where) for p in IGNORED_CONSOLE)",
            '    if msg.type == "error" and not ignored:',
            "        console_errors.append(msg.text)",
            "",
            'page.on("console", on_console)',
            'page.on("pageerror", lambda exc: console_errors.append(str(exc)))',
        ]
        body += [ln for s in steps for ln in py.step(s, test=True)]
        if final_url and not _redacted(final_url):
            body += ["# where the session ended", f"expect(page).to_have_url({py.url(final_url)})"]
        body += [f"expect(page.get_by_text({py_string(t)}).first).to_be_visible()" for t in expect_texts]
        if assert_no_console_errors:
            body.append('assert console_errors == [], f"console errors during the run: {console_errors}"')
        doc = _header_lines(origin, steps, "Playwright test", "pytest test_recorded.py")
        doc += _recorded_error_lines(recorded_errors)
        return (
            'r"""' + "\n".join(doc) + '\n"""\n\n'
            "from __future__ import annotations\n\n"
            "import os\n"
            "import re\n"
            "from collections.abc import Iterator\n\n"
            "import pytest\n"
            "from playwright.sync_api import ConsoleMessage, Page, expect, sync_playwright\n\n"
            f'BASE_URL = os.environ.get("BASE_URL", {py_string(origin)}).rstrip("/")\n'
            "# Console errors matching these (text or source URL) are not failures.\n"
            "IGNORED_CONSOLE = [\n"
            + "".join(f"    re.compile({py_string(p)}, re.IGNORECASE),\n" for p in ignored)
            + "]\n\n\n"
            "@pytest.fixture\n"
            "def recorded_page() -> Iterator[Page]:\n"
            "    with sync_playwright() as p:\n"
            "        browser = p.chromium.launch(\n"
            '            executable_path=os.environ.get("CHROMIUM") or None,\n'
            '            headless=not os.environ.get("HEADED"),\n'
            "        )\n"
            "        try:\n"
            "            yield browser.new_page()\n"
            "        finally:\n"
            "            browser.close()\n\n\n"
            f"def test_{ident}(recorded_page: Page) -> None:\n"
            "    page = recorded_page\n"
            f"{_indent(body, 4)}\n"
        )
    ts = _Ts(recorded_origin(actions))
    body = [
        "const consoleErrors = [];",
        "page.on('console', (msg) => {",
        "  const where = msg.location().url;",
        "  const ignored = IGNORED_CONSOLE.some((p) => p.test(msg.text()) || p.test(where));",
        "  if (msg.type() === 'error' && !ignored) consoleErrors.push(msg.text());",
        "});",
        "page.on('pageerror', (error) => { consoleErrors.push(String(error)); });",
    ]
    body += [ln for s in steps for ln in ts.step(s, test=True)]
    if final_url and not _redacted(final_url):
        body += ["// where the session ended", f"await expect(page).toHaveURL({ts.url(final_url)});"]
    body += [f"await expect(page.getByText({js_string(t)}).first()).toBeVisible();" for t in expect_texts]
    if assert_no_console_errors:
        body.append("expect(consoleErrors).toEqual([]);")
    doc = _header_lines(origin, steps, "Playwright test", "npx playwright test recorded.spec.ts")
    doc += _recorded_error_lines(recorded_errors)
    return (
        "\n".join(f"// {ln}".rstrip() for ln in doc)
        + "\nimport { test, expect } from '@playwright/test';\n\n"
        f"const BASE_URL = (process.env.BASE_URL ?? {js_string(origin)}).replace(/\\/$/, '');\n"
        "// Console errors matching these (text or source URL) are not failures.\n"
        "const IGNORED_CONSOLE = [\n"
        + "".join(f"  new RegExp({js_string(p)}, 'i'),\n" for p in ignored)
        + "];\n\n"
        "test.use({ launchOptions: { executablePath: process.env.CHROMIUM || undefined } });\n\n"
        f"test({js_string(name)}, async ({{ page }}) => {{\n"
        f"{_indent(body, 2)}\n"
        "});\n"
    )


def _recorded_error_lines(errors: Sequence[str]) -> list[str]:
    if not errors:
        return []
    lines = ["", "Errors seen while recording (this test fails on them until they are fixed):"]
    lines += [f"  - {_one_line(e, 200)}" for e in errors[:5]]
    if len(errors) > 5:
        lines.append(f"  ... and {len(errors) - 5} more")
    return lines
