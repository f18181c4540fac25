"""One source for logic both sides run: shared case files, answered by the bridge and by the extension.

Each ``*.json`` here holds cases and the answer both sides must give. The Python tests run them
through the bridge's code; the node tests run them through the extension's own scripts
(``harness.mjs``), with the rules the bridge hands the extension (compiled for JavaScript by the
bridge: the extension has no translator). Node is installed by ``./dev setup``: under ``CI=true``
a missing node fails these tests instead of skipping them.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import regress
from hypothesis import given, settings
from hypothesis import strategies as st
from tabmcp.core.js_regex import JsPattern, NotForJs, glob_to_js, js_pattern
from tabmcp.core.page_forms import FormsPolicy, FormsRule
from tabmcp.core.telemetry import (
    InvalidTelemetryArguments,
    RedactionSettings,
    TelemetrySettings,
    TelemetryState,
    configure,
)
from tabmcp.core.telemetry.redact import PAGE_PATTERNS, Redactor, sensitive_field
from tabmcp.core.telemetry.settings import DEFAULT_PATTERN_GATE, DEFAULT_REDACTION_PATTERNS
from tabmcp.protocol_js import render
from tabmcp.testing import missing_from_setup

HERE = Path(__file__).resolve().parent
REDACTION = json.loads((HERE / "redaction.json").read_text(encoding="utf-8"))["cases"]
FIELDS = json.loads((HERE / "sensitive_fields.json").read_text(encoding="utf-8"))["cases"]
GLOBS = json.loads((HERE / "forms_globs.json").read_text(encoding="utf-8"))["cases"]


def node_answers(tmp_path: Path, request: dict[str, Any]) -> Any:
    """The extension's answers to a suite of cases (harness.mjs, in node)."""
    node = shutil.which("node")
    if node is None:
        missing_from_setup("node is not installed: cannot run the extension's side of the parity cases")
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    done = subprocess.run([node, str(HERE / "harness.mjs"), str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _bridge_redaction(case: dict[str, Any]) -> Any:
    r = Redactor()
    if case["fn"] == "body":
        return r.body(case["input"], case.get("mime"))
    return {"text": r.text, "url": r.url, "headers": r.headers, "secretKey": r.is_secret_key}[case["fn"]](case["input"])


# -- redaction ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", REDACTION, ids=lambda c: f"{c['fn']}:{str(c['input'])[:30]}")
def test_the_bridge_redacts_each_case_as_the_file_says(case: dict[str, Any]) -> None:
    assert _bridge_redaction(case) == case["expected"]


def test_the_page_redacts_each_case_as_the_file_says(tmp_path: Path) -> None:
    rules = TelemetrySettings().page_config()["redact"]
    answers = node_answers(tmp_path, {"suite": "redaction", "rules": rules, "cases": REDACTION, "protocol": render()})
    wrong = [(c["fn"], c["input"], got, c["expected"]) for c, got in zip(REDACTION, answers, strict=True)
             if got != c["expected"]]
    assert wrong == []


_CONFIGURED = [
    # Added patterns run after the defaults whatever order the config lists them in: one
    # replacement can hide the next match, so the bridge keeps the page's order.
    ([r"(?i)internal-(?P<secret>[a-z0-9]{6,})", *DEFAULT_REDACTION_PATTERNS], "Bearer INTERNAL-000000",
     "Bearer [REDACTED]"),
    # The page's patterns count UTF-16 code units: `.{4}` is two emoji there, and in the bridge.
    ([*DEFAULT_REDACTION_PATTERNS, r"note=(?P<secret>.{4})"], "note=\U0001f600\U0001f600ab", "note=[REDACTED]ab"),
]


@pytest.mark.parametrize(("patterns", "text", "expected"), _CONFIGURED, ids=["added-after-defaults", "utf16-units"])
def test_configured_patterns_redact_alike_on_both_sides(tmp_path: Path, patterns: list[str], text: str,
                                                        expected: str) -> None:
    settings = TelemetrySettings(redaction=RedactionSettings(patterns=patterns))
    answers = node_answers(tmp_path, {"suite": "redaction", "rules": settings.page_config()["redact"],
                                      "cases": [{"fn": "text", "input": text}], "protocol": render()})
    assert answers == [Redactor(settings.redaction).text(text)] == [expected]


def _bridge_field(case: dict[str, Any]) -> bool:
    f = case["field"]
    hints = " ".join(x for x in (f.get("name"), f.get("id"), f.get("testid"), f.get("ariaLabel"),
                                 f.get("placeholder"), case["labels"]) if x)
    input_type = f.get("type", "") if f.get("tag", "input") == "input" else ""
    return sensitive_field(input_type=input_type, autocomplete=f.get("autocomplete", ""), hints=hints,
                           value=case["value"])


@pytest.mark.parametrize("case", FIELDS, ids=lambda c: f"{c['field']}:{c['labels']}:{c['value'][:20]}")
def test_the_bridge_finds_each_sensitive_field_as_the_file_says(case: dict[str, Any]) -> None:
    assert _bridge_field(case) is case["expected"]


def test_the_page_finds_each_sensitive_field_as_the_file_says(tmp_path: Path) -> None:
    rules = TelemetrySettings().page_config()["redact"]
    answers = node_answers(tmp_path, {"suite": "sensitiveField", "rules": rules, "cases": FIELDS, "protocol": render()})
    wrong = [(c["field"], c["labels"], c["value"], got) for c, got in zip(FIELDS, answers, strict=True)
             if got is not c["expected"]]
    assert wrong == []


def test_the_page_gets_every_pattern_compiled_and_no_python_syntax() -> None:
    redact = TelemetrySettings().page_config()["redact"]
    for pattern in [*redact["patterns"], redact["gate"], *redact["customPatterns"]]:
        assert set(pattern) == {"source", "flags"}
        assert "(?P<" not in pattern["source"] and not pattern["source"].startswith("(?")
        regress.Regex(pattern["source"], pattern["flags"])  # an ECMA-262 engine takes it as sent
    assert len(redact["patterns"]) == len(DEFAULT_REDACTION_PATTERNS)
    assert js_pattern(DEFAULT_PATTERN_GATE).flags == "i"


_PIECES = ("Bearer ", "token ", "password=", "pw: ", "4111111111111111", "4111 1111 1111 1111", "eyJabcde.fghijk.lm",
           "sk-", "AKIA", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "hooks.slack.com/services/",
           "?sig=", "&x-amz-signature=", "a=1&b=2", "pin", "card", "abcdefghij0123456789", "_", "-", " ", "\n")
_DIALECT = ("é", "\u0664", "\u212a", "\u017f", "\x85", "\ufeff", "\u00a0", "İ", "\u2028", "\x1c", "\u0131", "ß", "\r",
            "É", "Ñ", "ñ", "ẞ", "Ǆ", "ǅ", "ǆ", "Σ", "σ", "ς", "ΐ", "ﬀ", "Ω", "ω", "Ω", "µ", "Μ", "ÿ", "Ÿ")
"""Where Python's ``re`` and ECMA-262 read ``\\d``, ``\\w``, ``\\b``, ``\\s``, ``.``, ``$`` and ``i``
apart: Unicode digits and letters, the Kelvin sign and long s, U+0085, U+001C, BOM, line separators."""


def test_every_fixed_and_default_rule_matches_alike_in_python_and_in_node(tmp_path: Path) -> None:
    import random

    rnd = random.Random(36)
    texts = ["".join(rnd.choice(_PIECES) if rnd.random() < 0.6 else rnd.choice(_DIALECT)
                     for _ in range(rnd.randint(1, 8))) for _ in range(2000)]
    patterns = {**PAGE_PATTERNS, "gate": js_pattern(DEFAULT_PATTERN_GATE),
                **{f"default {i}": js_pattern(p) for i, p in enumerate(DEFAULT_REDACTION_PATTERNS)},
                # one a person could add: non-ASCII letters under i, as letters, escapes and in classes
                "added, folded": js_pattern(r"(?i)é+|ñ|ß|ǆ|σ|ω|µ|ÿ|\u00c9t|[\xf1\u03c3x]|[à-ÿ]|[^éa-z\s\d]")}
    for pattern in patterns.values():
        regress.Regex(pattern.source, pattern.flags)
    answers = node_answers(tmp_path, {"suite": "patterns", "patterns": [p.to_wire() for p in patterns.values()],
                                      "texts": texts})
    wrong = []
    for (name, pattern), node in zip(patterns.items(), answers, strict=True):
        python = [[[m.start(), m.end()] for m in pattern.python().finditer(t)] for t in texts]
        wrong += [(name, t, py, js) for t, py, js in zip(texts, python, node, strict=True) if py != js]
    assert wrong == []
    assert any(node_spans for spans in answers for node_spans in spans), "the corpus matched nothing"


def test_python_reads_the_ecma_spellings_as_a_browser_does() -> None:
    assert JsPattern(r"\d").python().search("\u0664") is None
    assert JsPattern(r"\btoken").python().search("étoken") is not None
    assert JsPattern(r"a\sb").python().search("a\ufeffb") and not JsPattern(r"a\sb").python().search("a\x85b")
    assert JsPattern("x$").python().search("x\n") is None
    assert JsPattern("a.b").python().search("a\rb") is None and JsPattern("a.b", "s").python().search("a\rb")
    assert JsPattern("k", "i").python().search("\u212a") is None
    assert JsPattern(r"(?<n>a)\k<n>").python().match("aa")
    with pytest.raises(NotForJs):
        js_pattern(r"[^\S]")


def test_a_pattern_the_page_could_not_run_is_refused_where_it_is_configured() -> None:
    for bad in (r"(?x) a b", r"end\Z", r"a(?#note)b", r"(?i:x)y"):
        with pytest.raises(NotForJs):
            js_pattern(bad)
        with pytest.raises(ValueError, match="page could not redact"):
            RedactionSettings(patterns=[bad])
    assert js_pattern(r"(?i)\b(?P<secret>x+)(?P=secret)") == JsPattern(r"\b(?<secret>x+)\k<secret>", "i")
    assert RedactionSettings(patterns=[r"ZQX-\d{6}"]).patterns == [r"ZQX-\d{6}"]
    store = TelemetryState()
    with pytest.raises(InvalidTelemetryArguments, match="page could not redact"):
        configure(store, {"action": "redaction", "op": "add", "patterns": [r"end\Z"]})
    assert r"end\Z" not in store.settings.redaction.patterns


# -- forms-as-tools origin globs ---------------------------------------------------------------


@pytest.mark.parametrize("case", GLOBS, ids=lambda c: f"{c['glob']}~{c['origin']}")
def test_the_bridge_matches_each_glob_as_the_file_says(case: dict[str, Any]) -> None:
    assert fnmatch.fnmatchcase(case["origin"], case["glob"]) == case["expected"]
    policy = FormsPolicy([_Rule(case["glob"])])
    assert policy.enabled(case["origin"]) == case["expected"]


def test_the_worker_matches_each_glob_as_the_file_says(tmp_path: Path) -> None:
    rules = [[FormsRule(c["glob"], True, "config").to_wire()] for c in GLOBS]
    answers = node_answers(tmp_path, {"suite": "formsGlobs", "rules": rules, "cases": GLOBS})
    assert answers == [c["expected"] for c in GLOBS]


def test_the_person_s_exact_origin_is_no_glob(tmp_path: Path) -> None:
    rules = [FormsRule("https://*.shop.test", True, "config").to_wire(),
             FormsRule("https://www.shop.test", False, "person").to_wire()]
    assert "pattern" not in rules[1]
    cases = [{"origin": o} for o in ("https://www.shop.test", "https://a.shop.test", "", "null")]
    answers = node_answers(tmp_path, {"suite": "formsGlobs", "rules": [rules] * len(cases), "cases": cases})
    policy = FormsPolicy([_Rule("https://*.shop.test")], {"https://www.shop.test": False})
    assert answers == [policy.enabled(c["origin"]) for c in cases] == [False, True, False, False]


@settings(max_examples=400, deadline=None)
@given(glob=st.text(alphabet="ab*?[]!-.^$\\", max_size=8), text=st.text(alphabet="ab.-^$\\[]!\n", max_size=8))
def test_a_compiled_glob_reads_as_fnmatch_in_an_ecma_engine(glob: str, text: str) -> None:
    pattern = glob_to_js(glob)
    assert (regress.Regex(pattern.source, pattern.flags).find(text) is not None) == fnmatch.fnmatchcase(text, glob)


class _Rule:
    def __init__(self, match: str) -> None:
        self.match = match
        self.forms_as_tools = True


# -- the rules that end pending requests --------------------------------------------------------

END = json.loads((HERE / "end_rules.json").read_text(encoding="utf-8"))["cases"]


def _ended_by(rule: str) -> str:
    """The error code a call pending in the bridge's session ends with under ``rule``."""
    from tabmcp.core.extension_links import ExtensionLinks, Peer, RequestEnded
    from tabmcp.protocol import PROTOCOL_VERSION

    session = ExtensionLinks(session_id="s1", bridge_version="1", clock=lambda: 100.0)
    link = Peer("a")
    session.receive(link, json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION}))
    call = session.start_call(tab_id=7, document_id="d1", page_tool="t", public_name="t", arguments={}, timeout_s=5)
    session.data_to_send()
    events = {
        "timeout": lambda: session.expire(1000.0),
        "cancel": lambda: session.cancel(call.request_id),
        "tabClosed": lambda: session.tab_closed(7),
        "navigated": lambda: session.tab_navigated(7, "d2"),
        "bridgeGone": lambda: session.closed(link),
        "replaced": lambda: session.receive(Peer("b"), json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION})),
    }[rule]()
    [ended] = [e for e in events if isinstance(e, RequestEnded)]
    assert ended.error is not None
    return str(ended.error.code)


@pytest.mark.parametrize("case", [c for c in END if "bridge" in c["sides"]], ids=lambda c: c["rule"])
def test_the_session_ends_a_request_by_each_rule_as_the_file_says(case: dict[str, Any]) -> None:
    assert _ended_by(case["rule"]) == case["code"]


def test_the_worker_ends_a_request_by_each_rule_as_the_file_says(tmp_path: Path) -> None:
    answers = node_answers(tmp_path, {"suite": "pending", "cases": END})
    for case, got in zip(END, answers, strict=True):
        worker = "worker" in case["sides"]
        assert got == {"known": worker, "code": case["code"] if worker and case["reported"] else None,
                       "bridgeWaits": worker and case["reported"]}, case["rule"]
