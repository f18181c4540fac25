"""Defence-in-depth redaction: the bridge re-applies the page's rules to every event it keeps.

The extension redacts before anything leaves the page; the bridge does it again on ingest,
so a missed rule, an older extension or a page-side bug does not put a token into a buffer,
a snapshot, a HAR file or an agent's context. Rules (see :class:`RedactionSettings`):

* header, query-parameter and JSON / form field *names* containing a secret-looking key;
* free-text *patterns* (bearer tokens, JWTs, API key shapes, ``password=...``);
* payment card numbers (digit runs that start like a card and pass the Luhn check);
* passwords in URLs (``https://user:pass@host``).

Redaction is idempotent: running it twice changes nothing more.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ...capture.events import Selectors, SourceLocation, TelemetryEvent
from ...capture.kinds import Redact, kind_of
from ..js_regex import JsPattern, js_pattern
from ..sensitive_fields import secret_autocomplete
from .models import Event
from .settings import KEY_GAPS, RedactionSettings, normalize_key

__all__ = ["PAGE_PATTERNS", "Redactor", "luhn_valid", "sensitive_field"]

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
}
"""The fixed shapes both sides redact by, written once: a run of card digits, a card number's
first digits, the field names and labels that make a typed value secret, a form body, what may
sit between the digits a field holds, a field value that is all card digits, and what a key name
loses before it is compared. The page
gets them in ``protocol.generated.js`` (``PATTERNS``) before any rule arrives: it checks a field
when it copies its value."""

_CARD_RUN = PAGE_PATTERNS["cardRun"].python()
_CARD_PREFIX = PAGE_PATTERNS["cardPrefix"].python()
_SENSITIVE_FIELD_HINT = PAGE_PATTERNS["sensitiveHint"].python()
_FORM = PAGE_PATTERNS["form"].python()
_FIELD_GAPS = PAGE_PATTERNS["fieldGaps"].python()
_FIELD_CARD = PAGE_PATTERNS["fieldCard"].python()


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
        self._patterns = [js_pattern(p).python() for p in self.settings.patterns]

    # -- building blocks ------------------------------------------------------------------

    def is_secret_key(self, name: str) -> bool:
        """Is a header / parameter / field with this name redacted whatever its value?"""
        norm = normalize_key(name)
        return norm in self._exact or any(k in norm for k in self._keys)

    def text(self, value: str) -> str:
        """Redact secrets inside free text (patterns, then card numbers)."""
        if not value:
            return value
        for pattern in self._patterns:
            value = pattern.sub(self._replace, value)
        if self.settings.card_numbers:
            value = _CARD_RUN.sub(self._card, value)
        return value

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
        """Redact query (and fragment) parameters by name, URL passwords, then patterns."""
        if not url:
            return url
        try:
            parts = urlsplit(url)
        except ValueError:
            return self.text(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, host = netloc.rpartition("@")
            if ":" in userinfo:
                user = userinfo.split(":", 1)[0]
                netloc = f"{user}:{self.marker}@{host}"
        query = self._params(parts.query)
        fragment = parts.fragment
        if "=" in fragment:
            path, sep, frag_query = fragment.partition("?")
            if sep:
                fragment = f"{path}?{self._params(frag_query)}"
            elif "/" not in fragment:
                fragment = self._params(fragment)
        rebuilt = urlunsplit((parts.scheme, netloc, parts.path, query, fragment))
        return self.text(rebuilt)

    def _params(self, query: str) -> str:
        if not query or "=" not in query:
            return query
        pairs = parse_qsl(query, keep_blank_values=True)
        if not any(self.is_secret_key(k) and v != self.marker for k, v in pairs):
            return query
        return urlencode([(k, self.marker if self.is_secret_key(k) else v) for k, v in pairs], safe="[]/:@")

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        return {k: (self.marker if self.is_secret_key(k) else self.text(v)) for k, v in headers.items()}

    def json_value(self, value: Any) -> Any:
        """Walk parsed JSON: secret keys lose their values, strings go through :meth:`text`."""
        if isinstance(value, dict):
            return {
                k: (self.marker if self.is_secret_key(k) and v is not None else self.json_value(v))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.json_value(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, int) and not isinstance(value, bool) and self.settings.card_numbers:
            as_text = str(value)
            if self._card_digits(as_text):
                return self.marker
        return value

    def audit(self, results: dict[str, Any]) -> dict[str, Any]:
        """An accessibility audit's result: page text (element HTML, texts, the URL) like any
        other, so its strings get the rules and its ``url`` the URL rules."""
        redacted: dict[str, Any] = self.json_value(results)
        if isinstance(redacted.get("url"), str):
            redacted["url"] = self.url(redacted["url"])
        return redacted

    def _card_digits(self, digits: str) -> bool:
        return 13 <= len(digits) <= 19 and bool(_CARD_PREFIX.match(digits)) and luhn_valid(digits)

    def body(self, body: str | None, mime_type: str | None = None) -> str | None:
        """Redact a request/response body or a WebSocket frame, keeping its format.

        JSON is parsed and re-serialized (compact) so key-based rules apply; form bodies are
        parsed as such; anything else (including truncated JSON) gets the text patterns.
        """
        if not body:
            return body
        stripped = body.lstrip()
        mime = (mime_type or "").lower()
        if stripped[:1] in ("{", "[") or "json" in mime:
            try:
                parsed = json.loads(body)
            except ValueError:
                pass
            else:
                redacted = self.json_value(parsed)
                if redacted == parsed:
                    return body  # keep the page's own formatting when nothing was secret
                return json.dumps(redacted, ensure_ascii=False, separators=(",", ":"))
        if "x-www-form-urlencoded" in mime or _looks_like_form(stripped):
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


def _looks_like_form(text: str) -> bool:
    return len(text) < 100_000 and "=" in text and bool(_FORM.match(text))
