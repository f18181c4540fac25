"""The bridge's redaction and the page's, run on the same generated inputs: one behaviour, not two.

The algorithm exists twice (``core/telemetry/redact.py`` and ``extension/page/redact.js``, the
reasons are in docs/architecture.md, "One source for what both sides run"). ``redaction.json``
pins the cases someone thought of; this module generates the rest with Hypothesis (texts with
secret shapes and the characters where Python and ECMA-262 read patterns apart, URLs with
userinfo, percent-encoded and secret-looking parameter names, headers, JSON and form bodies,
card-like digit runs with every separator, fields and their hints) and asserts the two answers
are equal. One node process answers every example of a test (``harness.mjs`` reading one
request per line on stdin).

Inputs stay inside what both sides promise alike: the page cuts a URL at 4,096 characters and
a header value at 4,000 (``safeText``); the bridge does not cut. Both replace JSON nested deeper
than 64 levels whole; past about 1,000 levels, where Python's parser gives up, the bridge replaces
the body whole even when it is not valid JSON (the page redacts such a body as text).

Derandomized with a few hundred examples per property in the normal suite; ``TABMCP_FUZZ=deep``
(``./dev fuzz``) explores at random with 20x the examples.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tabmcp.core.telemetry import RedactionSettings, TelemetrySettings
from tabmcp.core.telemetry.redact import Redactor, sensitive_field
from tabmcp.protocol_js import render
from tabmcp.testing import missing_from_setup

from ..helpers import fuzz

MARK = "[REDACTED]"

HERE = Path(__file__).resolve().parent


class Page:
    """``harness.mjs`` in one node process: a request a line in, an answer a line out."""

    def __init__(self, node: str) -> None:
        self._proc = subprocess.Popen([node, str(HERE / "harness.mjs")], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._rules: dict[str, Any] | None = None

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put("")

    def ask(self, suite: str, cases: list[dict[str, Any]], rules: dict[str, Any]) -> list[Any]:
        """The page's answers to ``cases`` under ``rules`` (sent only when they change)."""
        assert self._proc.stdin is not None
        request: dict[str, Any] = {"suite": suite, "cases": cases}
        if rules != self._rules:
            request |= {"rules": rules, "protocol": render()}
            self._rules = rules
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        try:
            line = self._lines.get(timeout=60)
        except queue.Empty:
            raise AssertionError("harness.mjs did not answer within 60 s") from None
        if not line:
            assert self._proc.stderr is not None
            raise AssertionError(f"harness.mjs stopped: {self._proc.stderr.read()}")
        answers: list[Any] = json.loads(line)
        return answers

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait(timeout=10)


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    node = shutil.which("node")
    if node is None:
        missing_from_setup("node is not installed: cannot run the page's side of the differential tests")
    p = Page(node)
    yield p
    p.close()


DEFAULT = TelemetrySettings()


def rules_of(settings_: TelemetrySettings) -> dict[str, Any]:
    rules: dict[str, Any] = settings_.page_config()["redact"]
    return rules


# -- what is generated ---------------------------------------------------------------------------

_DIALECT = ("é", "\u0664", "\u212a", "\u017f", "\x85", "\ufeff", "\u00a0", "İ", "\u2028", "\x1c", "\x1f", "\u0131",
            "ß", "\r", "\n", "\t", "\v", "\u3000", "\u200b", "\u2007", "\u180e", "😀", "\x00", "Σ", "\ud83d")
"""Where Python and ECMA-262 read text apart: Unicode digits and letters, the Kelvin sign and long s,
U+0085, U+001C-U+001F, BOM, line separators, spaces one side calls space and the other not, a
character beyond the BMP, a lone high surrogate (a low one could pair with it here: the bridge never
holds such a pair, JSON hands it one character)."""

SECRET_NAMES = ("password", "passwd", "pwd", "pw", "pass", "secret", "token", "api_key", "apiKey", "X-Api-Key",
                "access_token", "client-secret", "Authorization", "cookie", "set-cookie", "sig", "signature",
                "x-amz-signature", "X-Goog-Signature", "code", "otp", "pin", "key", "sid", "sessionid", "cvv",
                "card_number", "mfa_code", "subscription-key", "Ocp-Apim-Subscription-Key", "pass word",
                "pass\x85word", "pass\x1cword", "pass\ufeffword", "pass\u00a0word", "PASSWORD", "Pa-ss.Wo_rd")
BENIGN_NAMES = ("q", "page", "id", "name", "monkey", "zipcode", "keyboard", "passenger", "token_count", "a", "b",
                "redirect", "lang", "x", "", "1", "0", "__proto__", "constructor", "toString", "hasOwnProperty")

_PIECES = ("Bearer ", "bearer\t", "Basic ", "token ", "TOKEN\u00a0", "password=", "password: ", "pw: ", "pwd=",
           "\"api_key\": \"", "'secret':'", "client_secret=", "x-amz-signature=", "?sig=", "&signature=",
           "&X-Goog-Signature=", "eyJhbGciOi", "eyJ", ".", "sk-", "sk_live_", "pk_test_", "rk_live_", "AKIA",
           "ghp_", "gho_", "xoxb-", "xoxp-", "AIza", "glpat-", "whsec_", "hooks.slack.com/services/",
           "discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "-----BEGIN PRIVATE KEY-----",
           "-----BEGIN RSA PRIVATE KEY-----", "-----END PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----",
           "abcdefghij0123456789", "ABCDEFGHIJKLMNOP", "0123456789", "=", "&", ";", ",", "}", "\"", "'", ":", "/",
           "+", "_", "-", " ", "[REDACTED]", "mfa-code=", "subscription_key: ", "passcode=", "sig=")

_ALNUM = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+=~", min_size=1,
                 max_size=40)

CARD_SEPARATORS = (" ", "-", "\u00a0", "\u1680", "\u2000", "\u2007", "\u2009", "\u200a", "\u200b", "\u200c",
                   "\u200d", "\u2060", "\u202f", "\u205f", "\u3000", "\ufeff", "\u200e", "\u2028", "\u2029",
                   "\t", "\n", ".", "/", "_", "\x85", "\x1c", "--", "  ")
"""What a page can put between a card's digits: every separator the rules allow (PAGE_PATTERNS
``cardRun``, ``fieldGaps``), doubled ones, and some they do not."""

CARD_PREFIXES = ("4", "51", "55", "22", "27", "34", "37", "30", "36", "38", "39", "35", "6011", "65", "644", "649",
                 "622", "1", "7", "8", "9", "0", "28", "50")


def _luhn_digit(body: str) -> str:
    """The check digit that makes ``body + digit`` pass Luhn."""
    for d in "0123456789":
        total = 0
        for i, ch in enumerate(reversed(body + d)):
            n = int(ch) * (2 if i % 2 else 1)
            total += n - 9 if n > 9 else n
        if total % 10 == 0:
            return d
    raise AssertionError("unreachable")


@st.composite
def card_digits(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(CARD_PREFIXES))
    length = draw(st.integers(min_value=11, max_value=21))
    rest = max(0, length - len(prefix) - 1)
    body = prefix + draw(st.text(alphabet="0123456789", min_size=rest, max_size=rest))
    return body + (_luhn_digit(body) if draw(st.booleans()) else draw(st.sampled_from("0123456789")))


@st.composite
def card_runs(draw: st.DrawFn) -> str:
    """Card-like digits, grouped with separators (one kind or mixed: ``where`` and ``which`` say
    after which digits and which), sometimes inside a longer run."""
    digits = draw(card_digits())
    where, which = draw(st.integers(0, 2**21 - 1)), draw(st.integers(0, 2**32 - 1))
    out = []
    for i, d in enumerate(digits):
        if i and where >> i & 1:
            out.append(CARD_SEPARATORS[which % len(CARD_SEPARATORS)])
            which //= 3 if which % 2 else 1  # every separator the same, or changing
        out.append(d)
    before, after = draw(st.sampled_from(("", "x", "-", "1", " ", "#"))), draw(st.sampled_from(("", "x", "-", "9", " ", ".")))
    return before + "".join(out) + after


def _pieces(*extra: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(st.sampled_from(_PIECES), st.sampled_from(_DIALECT), _ALNUM, card_runs(),
                              st.text(max_size=6), *extra), max_size=8).map("".join)


texts = _pieces(st.sampled_from(SECRET_NAMES), st.sampled_from(BENIGN_NAMES))

_PCT = st.sampled_from(("%20", "%3D", "%26", "%23", "%5F", "%2D", "%2E", "%77", "%70", "%C3%A9", "%E2%80%8B", "%C2%85",
                        "%1C", "%ZZ", "%", "%C3", "%ED%A0%80", "%F0%9F%98%80", "+", "%2B", "%00", "%c2%a0"))


@st.composite
def param_names(draw: st.DrawFn) -> str:
    name = draw(st.one_of(st.sampled_from(SECRET_NAMES), st.sampled_from(BENIGN_NAMES), _ALNUM))
    if draw(st.booleans()):  # percent-encode or spell some of it otherwise
        at = draw(st.integers(0, len(name)))
        name = name[:at] + draw(_PCT) + name[at:]
    return name


param_values = st.one_of(st.just(""), st.just(MARK), _ALNUM, _pieces(_PCT), st.sampled_from(("a=b", "x#y", "?", "/")))


@st.composite
def query_strings(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(
        st.builds(lambda n, v: f"{n}={v}", param_names(), param_values),
        param_names(),
        st.sampled_from(("", "=", "=x", "&", "a==b"))), max_size=6))
    return "&".join(parts)


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(("https://", "http://", "HTTPS://", "wss://", "ftp://", "chrome-extension://",
                                   "x+y.z-1://", "//", "", "https:/", "mailto:", "data:text/plain,", "1http://")))
    user = draw(st.sampled_from(("", "user@", "user:pass@", "user:s3cr%40t@", ":pass@", "user:@", "us er:p w@",
                                 "user:a:b@", "u@x:p@ss@", "user:pa@ss@", "user:[REDACTED]@", "user:p/w@",
                                 "user:p?w@", "us%3Aer:pw@", "USER:PASS@", "ü:ß@")))
    host = draw(st.sampled_from(("example.com", "a.test:8080", "[::1]", "localhost", "xn--bcher-kva.example",
                                 "bücher.de", "", "192.168.0.1")))
    path = draw(st.sampled_from(("", "/", "/a/b", "/p;x=1", "/token=abc", "/a%20b", "/😀", "/pass:word@x")))
    url = scheme + user + host + path
    if draw(st.booleans()):
        url += "?" + draw(query_strings())
    if draw(st.booleans()):
        url += "#" + draw(st.one_of(query_strings(), st.builds(lambda a, b: f"{a}?{b}", st.sampled_from(
            ("", "/route", "section", "!/x")), query_strings()), st.builds(lambda q: "/x/" + q, query_strings())))
    if draw(st.integers(0, 5)) == 0:
        url = draw(_pieces()) + url + draw(_pieces())
    return url


header_names = st.one_of(st.sampled_from(SECRET_NAMES), st.sampled_from(BENIGN_NAMES), _ALNUM,
                         st.text(max_size=8))
headers = st.dictionaries(header_names, _pieces(), max_size=4)


json_keys = st.one_of(st.sampled_from(SECRET_NAMES), st.sampled_from(BENIGN_NAMES), st.text(max_size=6),
                      st.sampled_from(("10", "2", "-1", "01", "4294967295", "4294967294", "1.5")))
json_numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    card_digits().map(int),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from((4111111111111111.0, 1e21, 1e-7, 5e-324, 0.1, -0.0, 1e16, 123456789012345678901234567890)),
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), json_numbers, texts, card_runs()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(json_keys, inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """A JSON document written as a page might (compact, indented, escaped, with odd whitespace),
    sometimes cut short or made invalid."""
    value = draw(json_values)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from((None, None, 1, "\t"))),
                      separators=draw(st.sampled_from(((",", ":"), (", ", ": "), (",", ": ")))))
    change = draw(st.integers(0, 9))
    if change == 0:
        text = text[:draw(st.integers(0, len(text)))]
    elif change == 1:
        text = draw(st.sampled_from((" ", "\n", "\ufeff", "\x85", "\u00a0", "\t"))) + text + draw(
            st.sampled_from(("", " ", "\n", "\x85", "\u3000", "x")))
    elif change == 2:
        text = text.replace("1", draw(st.sampled_from(("NaN", "Infinity", "1e400", "-0", "1.0", "1E2"))), 1)
    elif change == 3:
        text = text.replace('"', '"\\ud83d', 1)  # a lone surrogate, escaped
    return text


@st.composite
def deep_json(draw: st.DrawFn) -> str:
    """JSON nested around the 64 levels both sides walk (deeper is replaced whole)."""
    value = draw(json_values)
    for key in draw(st.lists(st.one_of(st.none(), json_keys), min_size=60, max_size=70)):
        value = [value] if key is None else {key: value}
    return json.dumps(value)


form_bodies = st.builds(lambda parts: "&".join(parts), st.lists(
    st.builds(lambda n, v: f"{n}={v}", param_names(), st.one_of(_ALNUM, st.just(""), st.just(MARK), _PCT)),
    min_size=1, max_size=5))
MIMES = (None, "", "application/json", "application/json; charset=utf-8", "application/problem+json", "text/plain",
         "application/x-www-form-urlencoded", "APPLICATION/X-WWW-FORM-URLENCODED; charset=UTF-8", "text/html",
         "application/JSON")
bodies = st.one_of(json_texts(), form_bodies, texts, query_strings(), deep_json(),
                   st.sampled_from(('"password=abc12345"', "4111111111111111", " [1, 2]", "[NaN]", "{}", "[]",
                                    '{"password": null}', '{"__proto__": {"token": "x"}}')))


# -- the properties ------------------------------------------------------------------------------


def _same(page: Page, fn: str, cases: list[dict[str, Any]], redactor: Redactor,
          settings_: TelemetrySettings = DEFAULT) -> None:
    call = {"text": redactor.text, "url": redactor.url, "headers": redactor.headers, "secretKey": redactor.is_secret_key}
    bridge = [redactor.body(c["input"], c.get("mime")) if fn == "body" else call[fn](c["input"]) for c in cases]
    answers = page.ask("redaction", [{"fn": fn, **c} for c in cases], rules_of(settings_))
    assert answers == bridge


BRIDGE = Redactor()


@fuzz(200)
@given(text=texts)
def test_free_text_is_redacted_alike(page: Page, text: str) -> None:
    _same(page, "text", [{"input": text}], BRIDGE)


@fuzz(200)
@given(url=urls())
def test_urls_are_redacted_alike(page: Page, url: str) -> None:
    _same(page, "url", [{"input": url}], BRIDGE)


@fuzz(100)
@given(value=headers)
def test_headers_are_redacted_alike(page: Page, value: dict[str, str]) -> None:
    _same(page, "headers", [{"input": value}], BRIDGE)


@fuzz(200)
@given(body=bodies, mime=st.sampled_from(MIMES))
def test_bodies_are_redacted_alike(page: Page, body: str, mime: str | None) -> None:
    _same(page, "body", [{"input": body, "mime": mime}], BRIDGE)


@fuzz(200)
@given(name=st.one_of(param_names(), header_names, st.text(max_size=12)))
def test_key_names_are_judged_alike(page: Page, name: str) -> None:
    _same(page, "secretKey", [{"input": name}], BRIDGE)


_hints = st.one_of(st.none(), st.sampled_from(SECRET_NAMES), st.sampled_from(BENIGN_NAMES), texts,
                   st.sampled_from(("PIN", "pin code", "spin", "pinned", "PW", "pw2", "my-pw", "OTP", "Card",
                                    "cvc", "one time passcode", "mfa", "SSN")))
fields = st.fixed_dictionaries({}, optional={
    "tag": st.sampled_from(("input", "textarea", "select")),
    "type": st.sampled_from(("text", "password", "PASSWORD", "tel", "number", "email", "hidden")),
    "name": _hints, "id": _hints, "testid": _hints, "ariaLabel": _hints, "placeholder": _hints,
    "autocomplete": st.sampled_from(("", "off", "cc-number", "CC-CSC", "current-password", "new-password",
                                     "one-time-code", "username", "section-a cc-exp", "billing\u00a0cc-number",
                                     "x\x85cc-number", "x\x1ccurrent-password", "x\u2028one-time-code",
                                     "x\ufeffcc-name", "x\tnew-password", " cc-type ", "shipping cc-given-name")),
}).map(lambda f: {k: v for k, v in f.items() if v is not None})


@fuzz(200)
@given(field=fields, labels=st.one_of(st.just(""), _hints.map(lambda h: h or "")),
       value=st.one_of(card_runs(), texts, card_digits()))
def test_sensitive_fields_are_found_alike(page: Page, field: dict[str, str], labels: str, value: str) -> None:
    hints = " ".join(x for x in (field.get("name"), field.get("id"), field.get("testid"), field.get("ariaLabel"),
                                 field.get("placeholder"), labels) if x)
    input_type = field.get("type", "text") if field.get("tag", "input") == "input" else ""
    bridge = sensitive_field(input_type=input_type, autocomplete=field.get("autocomplete", ""), hints=hints,
                             value=value)
    [answer] = page.ask("sensitiveField", [{"field": field, "labels": labels, "value": value}], rules_of(DEFAULT))
    assert answer is bridge


_custom = TelemetrySettings(redaction=RedactionSettings(
    keys=["mysecretthing", "sessiontoken"], exact_keys=["k", "t0"], card_numbers=False,
    patterns=[r"(?i)internal-(?P<secret>[a-z0-9]{6,})", *RedactionSettings().patterns, r"\bTKT\d{4,}\b",
              r"note=(?P<secret>.{4})", r"(?<=id:)[^,]{1,3}", r"(?i)contraseña=(?P<secret>\w+)"]))
CUSTOM = Redactor(_custom.redaction)


@fuzz(100)
@given(text=_pieces(st.sampled_from(("internal-", "INTERNAL-abcdef", "TKT12345", "mysecretthing", "t0=", "k=",
                                     "note=", "id:", "😀", "𝒳", "CONTRASEÑA=", "Contraseña="))),
       url=urls(), name=st.one_of(param_names(), st.sampled_from(("K", "T-0", "my_secret_thing", "session.token"))))
def test_configured_rules_are_applied_alike(page: Page, text: str, url: str, name: str) -> None:
    """Custom key names, custom patterns (before and after the defaults), card numbers off."""
    _same(page, "text", [{"input": text}], CUSTOM, _custom)
    _same(page, "url", [{"input": url}], CUSTOM, _custom)
    _same(page, "secretKey", [{"input": name}], CUSTOM, _custom)
