"""``generate``: turn recorded telemetry into artifacts a developer keeps (scripts, tests, SARIF, HAR)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..accessibility import check_axe_results
from ..answer import ToolAnswer, parse_args
from ..buffers import BufferKind
from ..models import ActionEvent, ErrorEvent
from ..spec import ToolSpec
from ..state import Scope, TelemetryState
from .har import build_har
from .playwright import playwright_test, reproduction_script
from .sarif import build_sarif
from .summary import pr_summary

__all__ = ["GENERATE_SPEC", "GenerateArgs", "build_har", "build_sarif", "generate", "pr_summary"]

GenerateFormat = Literal["reproduction", "test", "pr_summary", "sarif", "har"]

_FILENAMES = {
    ("reproduction", "python"): "reproduction.py",
    ("reproduction", "typescript"): "reproduction.ts",
    ("test", "python"): "test_recorded.py",
    ("test", "typescript"): "recorded.spec.ts",
}


class GenerateArgs(BaseModel):
    """Arguments of ``generate`` (:data:`GENERATE_SPEC`'s input schema is derived from them)."""

    model_config = ConfigDict(extra="forbid")

    format: GenerateFormat
    language: Literal["python", "typescript"] = "python"
    scope: Scope = "tab"
    tab_id: int | None = Field(None, description="Tab to use; default: the current tab.")
    base_url: str | None = Field(
        None, max_length=2000, description="Default BASE_URL of generated scripts (default: recorded origin).")
    expect_texts: list[str] = Field(
        default_factory=list, max_length=20, description="test: texts that must be visible at the end.")
    assert_no_console_errors: bool = Field(True, description="test: fail on console errors.")
    name: str = Field("recorded session", min_length=1, max_length=200, description="test: the test's name.")
    title: str | None = Field(None, max_length=200, description="pr_summary: heading.")
    include_bodies: bool = Field(True, description="har: include request/response bodies.")
    include_incomplete: bool = Field(True, description="sarif: include results axe marked for manual review.")


GENERATE_SPEC = ToolSpec(
    name="generate",
    title="Generate from browser telemetry",
    intro="Turn what the tab recorded into an artifact (default scope: every page load of the current tab).",
    args=GenerateArgs,
    mode_param="format",
    mode_help={
        "reproduction": "runnable Playwright script replaying the actions (language: python | typescript)",
        "test": "Playwright test: the replay plus URL, value, expect_texts and no-console-error checks",
        "pr_summary": "Markdown for a pull request: steps, errors, failed requests, endpoints, vitals",
        "sarif": "SARIF 2.1.0 log of an axe-core accessibility audit of the page",
        "har": "HAR 1.2 archive of the captured fetch/XHR requests (include_bodies)",
    },
    annotations={"title": "Generate from browser telemetry", "readOnlyHint": True, "openWorldHint": False},
)


def generate(
    store: TelemetryState,
    arguments: Mapping[str, Any] | GenerateArgs,
    *,
    axe_results: dict[str, Any] | None = None,
) -> ToolAnswer:
    """Answer a ``generate`` call; the artifact is the text, with its filename in ``data``
    (``axe_results``, for ``sarif``, is cached like :func:`analyze`'s)."""
    args = arguments if isinstance(arguments, GenerateArgs) else parse_args(GenerateArgs, arguments)
    tab_id = store.resolve_tab(args.tab_id)
    if args.format in ("reproduction", "test"):
        return _playwright(store, args, tab_id)
    if args.format == "pr_summary":
        content = pr_summary(store, scope=args.scope, tab_id=tab_id, title=args.title)
        data = {"format": "pr_summary", "filename": "pr_summary.md", "content": content}
        return ToolAnswer(text=content, data=data)
    if args.format == "har":
        return _har(store, args, tab_id)
    return _sarif(store, args, tab_id, axe_results)


def _playwright(store: TelemetryState, args: GenerateArgs, tab_id: int | None) -> ToolAnswer:
    actions = [
        e.event
        for e in store.select(BufferKind.ACTIONS, scope=args.scope, tab_id=tab_id)
        if isinstance(e.event, ActionEvent)
    ]
    if not actions:
        text = (
            "No user actions recorded in this scope, so there is nothing to replay. Click, type or "
            "navigate in the page (the extension records it), or widen scope."
        )
        return ToolAnswer(text=text, data={"format": args.format, "message": text}, empty=True)
    if args.format == "reproduction":
        content = reproduction_script(actions, language=args.language, base_url=args.base_url)
    else:
        errors = [
            e.event.message
            for e in store.select(BufferKind.ERRORS, scope=args.scope, tab_id=tab_id)
            if isinstance(e.event, ErrorEvent)
        ]
        content = playwright_test(
            actions,
            language=args.language,
            base_url=args.base_url,
            expect_texts=args.expect_texts,
            assert_no_console_errors=args.assert_no_console_errors,
            recorded_errors=errors,
            ignore_console=[
                r.pattern if r.regex else re.escape(r.pattern)
                for r in store.settings.noise
                if r.match == "console"
            ],
            name=args.name,
        )
    filename = _FILENAMES[(args.format, args.language)]
    data = {"format": args.format, "language": args.language, "filename": filename, "content": content}
    return ToolAnswer(text=content, data=data)


def _har(store: TelemetryState, args: GenerateArgs, tab_id: int | None) -> ToolAnswer:
    har = build_har(store, scope=args.scope, tab_id=tab_id, include_bodies=args.include_bodies)
    count = len(har["log"]["entries"])
    data: dict[str, Any] = {"format": "har", "filename": "session.har", "har": har, "entries": count}
    text = json.dumps(har, indent=1, ensure_ascii=False)
    if not count:
        return ToolAnswer(
            text="No fetch/XHR requests captured in this scope; the HAR below is empty.\n" + text,
            data=data,
            empty=True,
        )
    return ToolAnswer(text=text, data=data)


def _sarif(
    store: TelemetryState, args: GenerateArgs, tab_id: int | None, axe_results: dict[str, Any] | None
) -> ToolAnswer:
    if axe_results is not None:
        axe_results = store.redactor.audit(check_axe_results(axe_results))  # page text
        if tab_id is not None:
            store.set_accessibility(tab_id, axe_results)
    results = axe_results if axe_results is not None else store.accessibility(tab_id)
    if results is None:
        text = "No accessibility audit of this tab yet: the bridge runs axe-core in the page to produce one."
        return ToolAnswer(text=text, data={"format": "sarif", "message": text}, empty=True)
    sarif = build_sarif(results, include_incomplete=args.include_incomplete)
    data: dict[str, Any] = {"format": "sarif", "filename": "accessibility.sarif", "sarif": sarif}
    return ToolAnswer(text=json.dumps(sarif, indent=1, ensure_ascii=False), data=data)
