"""Telemetry settings (:class:`TelemetrySettings`, the config's ``[telemetry]`` section).

``configure`` changes a live copy at run time; the file is never rewritten.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from ...capture.kinds import KINDS, BufferKind
from ..js_regex import JsPattern, NotForJs, js_pattern

__all__ = [
    "DEFAULT_BUFFER_LIMITS",
    "DEFAULT_EXACT_KEYS",
    "DEFAULT_PATTERN_GATE",
    "DEFAULT_REDACTION_KEYS",
    "DEFAULT_REDACTION_PATTERNS",
    "KEY_GAPS",
    "BufferLimits",
    "CaptureSettings",
    "NoiseRule",
    "RedactionSettings",
    "TelemetrySettings",
    "normalize_key",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


DEFAULT_BUFFER_LIMITS: dict[str, int] = {
    **{k.buffer.value: k.cap for k in KINDS},
    "websocket_connections": 50,
}
"""Entries kept per tab and kind (``websocket_connections``: connections tracked per tab); each
kind's default is its record's ``cap`` (:mod:`tabmcp.capture.kinds`)."""


class _BufferLimits(_Section):
    """How many entries each tab keeps per kind before the oldest goes: per tab, so a chatty tab
    never pushes another tab's data out (:attr:`TelemetrySettings.max_bytes` bounds the total)."""

    if TYPE_CHECKING:  # a field of the model below (create_model), spelled for the type checker
        websocket_connections: int = 50

    def of(self, kind: BufferKind | str) -> int:
        """The limit of one buffer (or ``websocket_connections``)."""
        return int(getattr(self, str(kind)))


if TYPE_CHECKING:
    BufferLimits = _BufferLimits
else:
    BufferLimits = create_model(
        "BufferLimits",
        __base__=_BufferLimits,
        __module__=__name__,
        **{k.buffer.value: (int, Field(default=k.cap, ge=1, le=k.max_cap)) for k in KINDS},
        websocket_connections=(int, Field(default=DEFAULT_BUFFER_LIMITS["websocket_connections"], ge=1, le=10_000)),
    )


DEFAULT_REDACTION_KEYS: list[str] = [
    "authorization",
    "cookie",
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "sessionid",
    "creditcard",
    "cardnumber",
    "cvv",
    "cvc",
    "ssn",
    "passcode",
    "mfacode",
    "otpcode",
    "onetimecode",
    "verificationcode",
    "securitycode",
    "signature",
    "subscriptionkey",
    "webhooksecret",
    "signingsecret",
]
"""Substrings of header, query-parameter and field names whose values are replaced, compared
after :func:`normalize_key` (so ``X-Api-Key`` contains ``apikey``)."""

DEFAULT_EXACT_KEYS: list[str] = [
    "key",
    "pwd",
    "pass",
    "pin",
    "sig",
    "signature",
    "auth",
    "code",
    "otp",
    "totp",
    "mfa",
    "pincode",
    "pw",
    "sid",
]
"""Short names redacted only on an exact (normalized) match, since as substrings they would
hit ``monkey`` or ``zipcode``."""

DEFAULT_REDACTION_PATTERNS: list[str] = [
    # Authorization schemes inside free text (a header echoed in a log line, for example).
    r"(?i)\b(?:bearer|basic|token)\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
    # JSON Web Tokens.
    r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    # Well-known API key shapes: OpenAI/Anthropic, Stripe, AWS, GitHub, Slack, Google, GitLab.
    r"\bsk-[A-Za-z0-9_-]{16,}",
    r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    # Webhook signing secrets (Stripe, Svix) and webhook URLs whose path is the credential. Each
    # starts with a literal (no \b, no (?i)), so the engine skips to it: about 20x cheaper.
    r"whsec_[A-Za-z0-9+/=_-]{16,}",
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{8,})",
    r"discord(?:app)?\.com/api/webhooks/(?P<secret>[0-9]+/[A-Za-z0-9_-]{16,})",
    # PEM / PGP private keys, whole (to the end of the text when the END line was cut off).
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)",
    # name=value / "name": "value" pairs in free text, for secret-looking names (the lookahead on
    # their first letters makes the scan about 3x cheaper; only the value is replaced).
    r"(?i)\b(?=[pstacmox])(?:password|passwd|passcode|pwd|pw|secret|token|api[_-]?key|access[_-]?token|client[_-]?secret"
    r"|mfa[_-]?code|(?:ocp-apim-)?subscription[_-]?key|x-(?:amz|goog)-signature)[\"']?"
    r"\s*[:=]\s*[\"']?(?P<secret>[^\s\"'&,;}]+)",
    # Signed-URL parameters inside free text (a URL in a log line): AWS, Google Cloud, Azure SAS.
    r"(?i)[?&](?:x-amz-signature|x-goog-signature|x-amz-security-token|sig|signature)=(?P<secret>[^&#\s\"'<>]+)",
]
"""Regular expressions applied to every free-text value (bodies, log arguments, stacks,
URLs, WebSocket frames). A named group ``secret`` limits the replacement to that group."""

DEFAULT_PATTERN_GATE = (
    r"(?i)bearer|basic|token|eyJ|sk-|[spr]k_(?:live|test)_|AKIA|gh[pousr]_|xox[abposr]-|AIza|glpat-|passw|pwd"
    r"|secret|api[_-]?key|access[_-]?token|whsec_|hooks\.slack|webhooks/|PRIVATE KEY|passc|pw|mfa|subscription"
    r"|signature|sig="
)
"""Every default pattern needs one of these words or prefixes: the page skips them all on text
without any (one scan instead of ten). Patterns you add always run."""


class RedactionSettings(_Section):
    """The redaction rules the page applies and the bridge applies again on ingest, in case a
    page-side rule was missed or the extension is an older build."""

    keys: list[str] = Field(default_factory=lambda: list(DEFAULT_REDACTION_KEYS))
    exact_keys: list[str] = Field(default_factory=lambda: list(DEFAULT_EXACT_KEYS))
    patterns: list[str] = Field(default_factory=lambda: list(DEFAULT_REDACTION_PATTERNS))
    card_numbers: bool = True
    """Replace digit runs that pass the Luhn check and start like a payment card number."""
    replacement: str = "[REDACTED]"

    def in_page_order(self) -> tuple[list[str], list[str]]:
        """The patterns as the page runs them: the defaults kept (skipped together on text the
        gate does not match), then the ones added, each list in its configured order. The bridge
        runs them in the same order, since one pattern's replacement can change what the next sees."""
        defaults = set(DEFAULT_REDACTION_PATTERNS)
        return [p for p in self.patterns if p in defaults], [p for p in self.patterns if p not in defaults]

    @field_validator("keys", "exact_keys")
    @classmethod
    def _normalize_keys(cls, v: list[str]) -> list[str]:
        out: list[str] = []
        for key in v:
            norm = normalize_key(key)
            if not norm:
                raise ValueError(f"{key!r} is empty once normalized")
            if norm not in out:
                out.append(norm)
        return out

    @field_validator("patterns")
    @classmethod
    def _compile(cls, v: list[str]) -> list[str]:
        """Each pattern must run on both sides: Python's ``re`` here, the page's JavaScript
        (the bridge compiles it for the page, :func:`tabmcp.core.js_regex.js_pattern`)."""
        for pattern in v:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
            try:
                js_pattern(pattern)
            except NotForJs as exc:
                raise ValueError(f"{exc}: the page could not redact with it") from None
        return v


KEY_GAPS = JsPattern(r"[-_.\s\x1c-\x1f\x85]")
"""What a field or header name loses before it is compared: ``-``, ``_``, ``.`` and spaces (ECMA's
and Python's alike); the page gets it as ``PATTERNS.keyGaps``."""
_KEY_GAPS = KEY_GAPS.python()


def normalize_key(name: str) -> str:
    """Lower-case a field or header name and drop ``-``, ``_``, ``.`` and spaces (:data:`KEY_GAPS`)."""
    return _KEY_GAPS.sub("", name.lower())


class CaptureSettings(_Section):
    """What the page-side capture keeps (sent to every page, with the redaction rules)."""

    enabled: bool = True
    """Off: pages capture nothing and send nothing (live page queries still work)."""
    body_limit: int = Field(default=32 * 1024, ge=0, le=1024 * 1024)
    """Characters of a request or response body kept (then ``bodyTruncated``)."""
    ws_sample_threshold: int = Field(default=20, ge=1, le=100_000)
    """WebSocket messages per second and direction above which a socket is sampled."""


class NoiseRule(_Section):
    """Ignore matching telemetry at ingest (and purge what is already buffered); ``console``
    rules match message text, ``url`` rules request, socket and source URLs."""

    id: str = ""
    """Assigned by ``configure`` when empty; used to remove the rule."""
    match: Literal["console", "url"]
    pattern: str = Field(min_length=1, max_length=1000)
    regex: bool = False
    """Treat ``pattern`` as a regular expression; otherwise a case-insensitive substring."""

    @model_validator(mode="after")
    def _valid_regex(self) -> NoiseRule:
        if self.regex:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"{self.pattern!r} is not a valid regular expression: {exc}") from None
        return self


class TelemetrySettings(_Section):
    """The ``[telemetry]`` section: every knob of the telemetry core."""

    buffers: BufferLimits = Field(default_factory=lambda: BufferLimits())
    max_bytes: int = Field(default=8 * 1024 * 1024, ge=64 * 1024, le=4 * 1024 * 1024 * 1024)
    """Ceiling on the serialized (JSON) size of everything buffered, all tabs together. Over it,
    the lowest-priority kinds lose their oldest entries first (logs before errors). The Python
    objects behind it take about eight times as much memory (measured by bench.telemetry_flood)."""
    max_event_bytes: int = Field(default=256 * 1024, ge=1024)
    """One event larger than this is truncated (bodies, frames, arguments), then dropped if
    it still does not fit. Must be at most a quarter of ``max_bytes``."""
    dynamic_exposure: bool = True
    """Filter tools/list to modes that have data (and, on pre-2026-07-28 connections, hide
    analyze/generate/configure until the first observe). Off: every mode, always."""
    api_max_endpoints: int = Field(default=300, ge=1, le=100_000)
    """Endpoints kept by the API schema store; the least recently seen goes first."""
    redaction: RedactionSettings = Field(default_factory=lambda: RedactionSettings())
    capture: CaptureSettings = Field(default_factory=lambda: CaptureSettings())
    noise: list[NoiseRule] = Field(default_factory=list)
    session_db: str | None = None
    """Path of the SQLite session store for named snapshots. The core never opens it; the
    bridge passes a :class:`SqliteSnapshots` built from it (its own default when unset)."""

    @model_validator(mode="after")
    def _event_fits(self) -> TelemetrySettings:
        if self.max_event_bytes * 4 > self.max_bytes:
            raise ValueError("max_event_bytes must be at most a quarter of max_bytes")
        return self

    def page_config(self) -> dict[str, Any]:
        """The settings every page's capture script gets (``telemetry.config``): the capture
        switches and the redaction rules, patterns compiled here for JavaScript, since the page has
        no rules of its own and sends nothing until this arrives (docs/telemetry.md, Redaction)."""
        rules = self.redaction
        defaults, custom = rules.in_page_order()

        def compiled(patterns: list[str]) -> list[dict[str, str]]:
            return [js_pattern(p).to_wire() for p in patterns]

        return {
            "enabled": self.capture.enabled,
            "bodyLimit": self.capture.body_limit,
            "wsSampleThreshold": self.capture.ws_sample_threshold,
            "redact": {
                "replace": True,
                "keys": list(rules.keys),
                "exactKeys": list(rules.exact_keys),
                "patterns": compiled(defaults),
                "gate": js_pattern(DEFAULT_PATTERN_GATE).to_wire(),
                "customPatterns": compiled(custom),
                "cardNumbers": rules.card_numbers,
            },
        }
