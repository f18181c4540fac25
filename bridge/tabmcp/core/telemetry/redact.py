"""Defence-in-depth redaction: the bridge re-applies the page's rules to every event it keeps.

The extension redacts before anything leaves the page; the bridge does it again on ingest,
so a missed rule, an older extension or a page-side bug does not put a token into a buffer,
a snapshot, a HAR file or an agent's context. Rules (see :class:`RedactionSettings`):

* header, query-parameter and JSON / form field *names* containing a secret-looking key;
* free-text *patterns* (bearer tokens, JWTs, API key shapes, ``password=...``);
* payment card numbers (digit runs that start like a card and pass the Luhn check);
* passwords in URLs (``https://user:pass@host``).

Redaction is idempotent: running it twice changes nothing more. The page runs the same steps
(``extension/page/redact.js``); ``bridge/tests/parity/`` holds both to one behaviour (shared
vectors, and a differential test on generated inputs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ...capture.events import Selectors, SourceLocation, TelemetryEvent
from ...capture.kinds import Redact, kind_of
from ..js_regex import JsPattern, js_pattern
from ..sensitive_fields import secret_autocomplete
from .errors import InvalidTelemetryArguments
from .models import Event
from .settings import KEY_GAPS, RedactionSettings, normalize_key

__all__ = ["JSON_DEPTH", "PAGE_PATTERNS", "Redactor", "luhn_valid", "sensitive_field"]

_CARD_SEPARATORS = "\u0020\u00a0\u1680\u2000-\u200d\u2060\u202f\u205f\u3000\ufeff-"
"""What may sit between a card's digits: a space, a hyphen, and the no-break, thin, narrow and
zero-width spaces a page can use so that a plain ``[ -]`` rule misses the number."""

PAGE_PATTERNS: dict[str, JsPattern] = {
    "cardRun": JsPattern(rf"(?<![\d-])(?:\d[{_CARD_SEPARATORS}]?){{12,18}}\d(?![\d-])"),
    "cardPrefix": JsPattern(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6(?:011|5|4[4-9]|22))"),
    "sensitiveHint": JsPattern(
        r"pass(?:word|wd|code|phrase)?|secret|token|card|cvv|cvc|ssn|pin\b|otp|mfa|(?<![a-z])pw(?![a-z])", "i"
    ),
    "form": JsPattern(r"^[\w.\-\[\]%+]+=[^&\s]*(?:&[\w.\-\[\]%+]+=[^&\s]*)*$"),
    "fieldGaps": JsPattern(r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200d\u2028\u2029\u202f\u205f\u2060\u3000\ufeff-]+"),
    "fieldCard": JsPattern(r"^[0-9]{13,19}$"),
    "keyGaps": KEY_GAPS,
    "jsonStart": JsPattern(r'^\s*(?:\{\s*(?:"|\})|\[\s*(?:[\]["{\d-]|true|false|null))'),
    "jsonEnd": JsPattern(r"[}\]]\s*$"),
    "urlPassword": JsPattern(r"^(?<scheme>(?:[a-z][a-z0-9+.\-]*:)?//)(?<user>[^/?#:]*):(?<password>[^/?#]*)@", "i"),
}
"""The fixed shapes both sides redact by, written once: a run of card digits, a card number's
first digits, the field names and labels that make a typed value secret, a form body, what may
sit between the digits a field holds, a field value that is all card digits, what a key name
loses before it is compared, how a JSON body starts and ends, and a URL's user and password (to
the last ``@`` of its authority, as browsers read it). The page gets them in
``protocol.generated.js`` (``PATTERNS``) before any rule arrives: it checks a field when it copies
its value."""

_CARD_RUN = PAGE_PATTERNS["cardRun"].python()
_CARD_PREFIX = PAGE_PATTERNS["cardPrefix"].python()
_SENSITIVE_FIELD_HINT = PAGE_PATTERNS["sensitiveHint"].python()
_FORM = PAGE_PATTERNS["form"].python()
_FIELD_GAPS = PAGE_PATTERNS["fieldGaps"].python()
_FIELD_CARD = PAGE_PATTERNS["fieldCard"].python()
_URL_PASSWORD = PAGE_PATTERNS["urlPassword"].python()
_JSON_START = PAGE_PATTERNS["jsonStart"].python()
_JSON_END = PAGE_PATTERNS["jsonEnd"].python()
JSON_DEPTH = 64
"""Levels of JSON walked (redact.js ``JSON_DEPTH``): a body nested deeper is replaced whole, so it
neither exhausts the stack nor passes unread."""


class _TooDeep(Exception):
    """JSON nested deeper than :data:`JSON_DEPTH`."""


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum that every payment card number satisfies."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def sensitive_field(*, input_type: str = "", autocomplete: str = "", hints: str = "", value: str = "") -> bool:
    """Should a field's value never leave the page, whatever the rules? A password field, an
    ``autocomplete`` token of a secret or card field, names or labels (``hints``) that say so, or
    a value that is a card number. The page runs the same steps (redact.js ``sensitiveField``) on
    the element; the bridge runs them again on what an action event carries (its names)."""
    if input_type.lower() == "password" or secret_autocomplete(autocomplete):
        return True
    if hints and _SENSITIVE_FIELD_HINT.search(hints):
        return True
    digits = _FIELD_GAPS.sub("", value)
    return bool(_FIELD_CARD.match(digits)) and luhn_valid(digits)


class Redactor:
    """Applies one :class:`RedactionSettings` to events; rebuilt when the settings change."""

    def __init__(self, settings: RedactionSettings | None = None) -> None:
        self.settings = settings or RedactionSettings()
        self.marker = self.settings.replacement
        self._keys = tuple(self.settings.keys)
        self._exact = frozenset(self.settings.exact_keys)
        defaults, custom = self.settings.in_page_order()  # the page's order: one replacement can hide the next match
        self._patterns = [js_pattern(p).python() for p in [*defaults, *custom]]

    # -- building blocks ------------------------------------------------------------------

    def is_secret_key(self, name: str) -> bool:
        """Is a header / parameter / field with this name redacted whatever its value?"""
        norm = normalize_key(name)
        return norm in self._exact or any(k in norm for k in self._keys)

    def text(self, value: str) -> str:
        """Redact secrets inside free text (patterns, then card numbers)."""
        if not value:
            return value
        astral = _ASTRAL.search(value) is not None
        if astral:  # the page's patterns count UTF-16 code units (`.{4}` is two emoji there): so do these
            value = _ASTRAL.sub(_surrogate_pair, value)
        for pattern in self._patterns:
            value = pattern.sub(self._replace, value)
        if self.settings.card_numbers:
            value = _CARD_RUN.sub(self._card, value)
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass") if astral else value

    def _replace(self, match: re.Match[str]) -> str:
        whole = match.group(0)
        if "secret" not in match.re.groupindex or match.group("secret") is None:
            return self.marker
        if match.group("secret") == self.marker:
            return whole
        start, end = (i - match.start(0) for i in match.span("secret"))
        return whole[:start] + self.marker + whole[end:]

    def _card(self, match: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and luhn_valid(digits):
            return self.marker
        return match.group(0)

    def url(self, url: str) -> str:
        """Redact a URL's password, its query and fragment parameters by name, then the text rules.

        The URL stays as written (no parsing and re-encoding): only values are replaced, as the
        page does (redact.js ``redactUrl``), step for step."""
        if not url:
            return url
        url = _URL_PASSWORD.sub(self._password, url, count=1)
        base, hash_, fragment = url.partition("#")
        path, q, query = base.partition("?")
        if q:
            base = f"{path}?{self._params(query)}"
        if "=" in fragment:
            route, fq, frag_query = fragment.partition("?")
            if fq:
                fragment = f"{route}?{self._params(frag_query)}"
            elif "/" not in fragment:
                fragment = self._params(fragment)
        return self.text(f"{base}#{fragment}" if hash_ else base)

    def _password(self, match: re.Match[str]) -> str:
        if match.group("password") == self.marker:
            return match.group(0)
        return f"{match.group('scheme')}{match.group('user')}:{self.marker}@"

    def _params(self, query: str) -> str:
        """``name=value`` pairs split on ``&``; a secret name (percent-decoded) loses its value."""
        if not query or "=" not in query:
            return query
        parts = query.split("&")
        changed = False
        for i, part in enumerate(parts):
            eq = part.find("=")
            if eq <= 0 or part[eq + 1:] == self.marker:
                continue
            if self.is_secret_key(_decode_component(part[:eq].replace("+", " "))):
                parts[i] = f"{part[:eq]}={self.marker}"
                changed = True
        return "&".join(parts) if changed else query

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        return {k: (self.marker if self.is_secret_key(k) else self.text(v)) for k, v in headers.items()}

    def json_value(self, value: Any) -> Any:
        """Walk parsed JSON: secret keys lose their values, strings go through :meth:`text`, whole
        numbers that are card numbers (as the page writes them) are replaced; a value nested
        deeper than :data:`JSON_DEPTH` is replaced whole."""
        try:
            return self._json(value, 0)
        except _TooDeep:
            return self.marker

    def _json(self, value: Any, depth: int) -> Any:
        if depth > JSON_DEPTH:
            raise _TooDeep
        if isinstance(value, dict):
            return {
                k: (self.marker if self.is_secret_key(k) and v is not None else self._json(v, depth + 1))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self._json(v, depth + 1) for v in value]
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bool) or not self.settings.card_numbers:
            return value
        if isinstance(value, int) and self._card_digits(str(value)):
            return self.marker
        if isinstance(value, float) and value.is_integer() and value > 1e12 and self._card_digits(_js_number(value)):
            return self.marker
        return value

    def audit(self, results: dict[str, Any]) -> dict[str, Any]:
        """An accessibility audit's result: page text (element HTML, texts, the URL) like any
        other, so its strings get the rules and its ``url`` the URL rules."""
        redacted = self.json_value(results)
        if not isinstance(redacted, dict):  # nested past the depth rule: replaced whole, refused by name
            raise InvalidTelemetryArguments("accessibility results nested too deep to redact", field="axe_results")
        if isinstance(redacted.get("url"), str):
            redacted["url"] = self.url(redacted["url"])
        return redacted

    def _card_digits(self, digits: str) -> bool:
        return 13 <= len(digits) <= 19 and bool(_CARD_PREFIX.match(digits)) and luhn_valid(digits)

    def body(self, body: str | None, mime_type: str | None = None) -> str | None:
        """Redact a request/response body or a WebSocket frame, keeping its format.

        JSON is parsed as a browser does and, when something was replaced, written back as
        ``JSON.stringify`` writes it; form bodies are parsed as such; anything else (including
        truncated JSON) gets the text patterns. The same steps as redact.js ``redactBody``.
        """
        if not body:
            return body
        mime = (mime_type or "").lower()
        if ("json" in mime or _JSON_START.match(body)) and _json_ends(body):
            try:
                parsed = json.loads(body, parse_int=float, parse_constant=_not_json)
                redacted = self._json(parsed, 0)
            except ValueError:
                pass
            except (_TooDeep, RecursionError):  # RecursionError: deeper than Python parses, far past JSON_DEPTH
                return self.marker
            else:
                if redacted == parsed:
                    return body  # keep the page's own formatting when nothing was secret
                return _js_json(redacted)
        if "x-www-form-urlencoded" in mime or _looks_like_form(body):
            return self.text(self._params(body))
        return self.text(body)

    def _source(self, source: SourceLocation | None) -> SourceLocation | None:
        if source is None or not source.url:
            return source
        return source.model_copy(update={"url": self.url(source.url)})

    # -- events ---------------------------------------------------------------------------

    def event(self, event: Event) -> Event:
        """A copy of ``event`` with every rule applied to the fields its kind's record names
        (:mod:`tabmcp.capture.kinds`, ``redact``); the event itself is frozen."""
        fields = kind_of(event).redact
        update: dict[str, Any] = {}
        for name, rule in fields.items():
            value = getattr(event, name)
            if value:
                update[name] = self._RULES[rule](self, event, name, value)
        return event.model_copy(update=update) if update else event

    def _input(self, event: TelemetryEvent, value: str) -> str:
        if value == self.marker:
            return value
        return self.marker if sensitive_field(hints=event.secret_hints(), value=value) else self.text(value)

    def _selectors(self, selectors: Selectors) -> Selectors:
        update = {k: self.text(v) for k in ("name", "label", "text") if (v := getattr(selectors, k))}
        return selectors.model_copy(update=update) if update else selectors

    _RULES: dict[Redact, Callable[[Redactor, TelemetryEvent, str, Any], Any]] = {
        Redact.TEXT: lambda r, e, f, v: r.text(v),
        Redact.URL: lambda r, e, f, v: r.url(v),
        Redact.BODY: lambda r, e, f, v: r.body(v, e.mime_of(f)),
        Redact.BODIES: lambda r, e, f, v: [r.body(a) or "" for a in v],
        Redact.HEADERS: lambda r, e, f, v: r.headers(v),
        Redact.SOURCE: lambda r, e, f, v: r._source(v),
        Redact.INPUT: lambda r, e, f, v: r._input(e, v),
        Redact.SELECTORS: lambda r, e, f, v: r._selectors(v),
    }


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogate_pair(match: re.Match[str]) -> str:
    """A character beyond the BMP as JavaScript's strings hold it: two UTF-16 code units."""
    code = ord(match.group(0)) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _decode_component(text: str) -> str:
    """JavaScript's ``decodeURIComponent``, or ``text`` as it is where that would throw (a ``%``
    without two hex digits after it, bytes that are not UTF-8), as the page reads a name."""
    if "%" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        run = _PERCENT_RUN.match(text, i)
        if run is None:
            if text[i] == "%":
                return text
            out.append(text[i])
            i += 1
            continue
        try:
            out.append(bytes.fromhex(run.group(0).replace("%", "")).decode("utf-8"))
        except UnicodeDecodeError:
            return text
        i = run.end()
    return "".join(out)


def _json_ends(body: str) -> bool:
    """``jsonEnd`` matches: tried on the last characters first, since a search from the start tries
    every position of the body (the same answer either way)."""
    tail = max(0, len(body) - 256)
    return bool(_JSON_END.search(body, tail) or (tail and _JSON_END.search(body)))


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")  # Python reads NaN and Infinity; JSON.parse does not


def _js_number(x: float) -> str:
    """A number as JavaScript writes it (``Number.prototype.toString``, ECMA-262 Number::toString):
    the same shortest digits as Python's ``repr``, another choice of when to use an exponent."""
    if x != x or x in (float("inf"), float("-inf")):
        return "null"  # JSON.stringify's spelling; JSON.parse("1e400") is Infinity
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    _, digits_, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digits_))
    k, n = len(digits), int(exponent) + len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{sign}{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return f"{sign}0.{'0' * -n}{digits}"
    e = f"e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + (digits if k == 1 else f"{digits[0]}.{digits[1:]}") + e


_LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")


def _js_string(s: str) -> str:
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json.dumps(s, ensure_ascii=False))


def _array_index(key: str) -> bool:
    # (a long run of digits is no index, and int() refuses one of over 4,300: checked by length first)
    return len(key) <= 10 and key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1


def _js_json(value: Any) -> str:
    """Parsed JSON written back as the page's ``JSON.stringify`` writes it: compact, numbers as
    JavaScript writes them, lone surrogates escaped, and an object's array-index keys first in
    ascending order (JavaScript's property order), so both sides hand out the same text."""
    if isinstance(value, str):
        return _js_string(value)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return f"[{','.join(_js_json(v) for v in value)}]"
    keys = sorted((k for k in value if _array_index(k)), key=int) + [k for k in value if not _array_index(k)]
    return "{" + ",".join(f"{_js_string(k)}:{_js_json(value[k])}" for k in keys) + "}"


def _looks_like_form(text: str) -> bool:
    return len(text) < 100_000 and "=" in text and bool(_FORM.match(text))
