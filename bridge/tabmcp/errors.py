"""The bridge's exceptions, one tree under :class:`BridgeError`.

::

    BridgeError
    ├── ConfigError                  The config file or a flag is invalid.
    ├── InvalidState                 An object was used in a state that forbids it.
    ├── SpliceError                  A kept listing's bytes could not go into the SDK's answer: refused by name, never
    │   │                            answered wrong.
    │   ├── PlaceholderMissing       The SDK's answer holds no placeholder array to replace (core/listing_splice.py).
    │   └── PlaceholderRepeated      The SDK's answer holds the placeholder more than once (core/listing_splice.py).
    ├── PairingError                 ``tabmcp pair`` could not pair (``code`` names why; the control API answers it).
    │   ├── PairingCodeWrong         PAIRING_CODE_WRONG: No pending pairing request has the code typed (or it expired).
    │   ├── PairingLocked            PAIRING_LOCKED: Too many wrong codes in a row: every pending code is void (ask for a
    │   │                            new one in the popup).
    │   ├── PairingBusy              PAIRING_BUSY: Too many pairing requests are pending at once (ask again in a few
    │   │                            minutes).
    │   └── PairingUnknown           PAIRING_UNKNOWN: No pairing has this id (``tabmcp pair --forget``).
    ├── ControlError                 The control API (``tabmcp pair``, ``status``) could not be used.
    ├── SecretError                  ``tabmcp secrets`` could not do what was asked (the message says why).
    │   ├── InvalidSecretName        Not a letter, then letters, digits or ``_`` (64 at most).
    │   ├── InvalidSecretValue       Empty, too short to mask safely, or not one line.
    │   ├── InvalidSecretSite        A site that is not an http(s) origin.
    │   ├── UnknownSecret            No secret has this name.
    │   └── SecretStoreUnavailable   The keychain chosen in the config cannot be used.
    ├── ProtocolError                PROTOCOL_ERROR: The extension sent something the wire protocol does not allow.
    │   ├── MalformedMessage         MALFORMED_MESSAGE: Not JSON, not an object, or fields of the wrong shape.
    │   ├── UnknownMessageType       UNKNOWN_TYPE: A ``type`` this protocol version does not define.
    │   ├── ProtocolVersionMismatch  PROTOCOL_MISMATCH: The extension speaks another protocol version (the connection is
    │   │                            closed).
    │   ├── NotReady                 NOT_READY: A message before the ``hello`` handshake.
    │   ├── NotPaired                NOT_PAIRED: A message other than pairing from a link the person never paired
    │   │                            (``tabmcp pair``).
    │   ├── Unauthorized             UNAUTHORIZED: A wrong or missing extension token or control key (the connection is
    │   │                            closed).
    │   ├── Flooded                  FLOODED: A connection sent more messages than any tab rule explains: told so, then
    │   │                            closed (1008).
    │   ├── TabFlooded               TAB_FLOODED: One tab sent past its rate: throttled, then cut off alone (its tools
    │   │                            kept, the link untouched).
    │   ├── TooLarge                 TOO_LARGE: A definition, a tab or a result over its size limit: refused by name
    │   │                            before it was sent.
    │   ├── InvalidTool              INVALID_TOOL: A tool definition the bridge refuses (its neighbours kept).
    │   └── UnknownRevision          UNKNOWN_REVISION: A sync kept a tab by a revision the bridge does not hold: the sync
    │                                is refused whole, the extension sends every tab.
    └── ToolCallError                TOOL_ERROR: A tool call failed; ``code`` is what the agent sees.
        ├── ToolNotFound             TOOL_NOT_FOUND: No tool has this name (with the closest names).
        ├── ToolGone                 TOOL_GONE: The name meant an origin's tool that left; names never move to another
        │                            origin, so nothing ran.
        ├── ToolValidationError      VALIDATION_ERROR: The arguments do not match the schema (which field, what was
        │                            expected).
        ├── WritesDisabled           WRITES_DISABLED: Writes are off (with the setting that enables them).
        ├── ApprovalDenied           APPROVAL_DENIED: The person said no, or could not be asked.
        ├── Paused                   PAUSED: The person paused all agent access (the popup, or ``tabmcp controls pause``).
        ├── OutOfScope               OUT_OF_SCOPE: Page state, route or policy rules the call out.
        ├── ToolTimeout              TIMEOUT: The request's deadline passed.
        ├── TabClosed                TAB_CLOSED: The request's tab closed.
        ├── TabNavigated             TAB_NAVIGATED: The page unloaded or the tab moved to another document during the
        │                            request.
        ├── ExtensionDisconnected    EXTENSION_DISCONNECTED: The link the request was sent on closed or was replaced.
        ├── CallCancelled            CANCELLED: The asker gave up (the MCP client cancelled).
        ├── PageError                PAGE_ERROR: The page's tool or query failed: its message, code and details, as page
        │                            data.
        ├── BadResult                BAD_RESULT: The page returned something unusable.
        ├── SiteNotReachable         SITE_NOT_REACHABLE: The person did not let agents open this site (popup, or
        │                            ``[[policy.origins]] reachable``).
        ├── SiteNotRegistered        SITE_NOT_REGISTERED: The page opened for a call did not register the tool within
        │                            ``sites.open_timeout_s``.
        ├── SiteToolGone             SITE_TOOL_GONE: The page opened for a call loaded and settled without the tool
        │                            (marked stale).
        ├── SiteRedirected           SITE_REDIRECTED: The page went to another origin: its tab was closed, nothing was
        │                            called.
        ├── SecretNotBound           SECRET_NOT_BOUND: A ``{{secret:NAME}}`` argument names a secret not bound to the
        │                            tool's origin; nothing was sent.
        ├── SecretToolChanged        SECRET_TOOL_CHANGED: The tool's definition changed since the person accepted it: no
        │                            secret goes into it.
        ├── AxeMissing               AXE_MISSING: The extension could not load axe-core into the page (an accessibility
        │                            audit).
        ├── AxeFailed                AXE_FAILED: axe-core ran in the page and threw.
        ├── InvalidSelector          INVALID_SELECTOR: A page query's selector is empty or not valid CSS.
        ├── UnknownQuery             UNKNOWN_QUERY: A page query of a kind the page does not answer.
        ├── QueryFailed              QUERY_FAILED: The page could not answer a query (or send its answer).
        └── InternalError            INTERNAL_ERROR: A bug in the bridge: logged with its traceback; the agent gets the
                                     exception's type only.

Third-party exceptions are translated where they enter (``raise ToolTimeout(...) from exc``),
so a ``jsonschema.ValidationError`` or a ``websockets`` error never leaks out of the API.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .core.trust.text import Shown

__all__ = [
    "EXTENSION_CODES",
    "REGISTRY",
    "USES",
    "ApprovalDenied",
    "AxeFailed",
    "AxeMissing",
    "BadResult",
    "BridgeError",
    "CallCancelled",
    "ConfigError",
    "ControlError",
    "ErrorCode",
    "ExtensionDisconnected",
    "Flooded",
    "InternalError",
    "InvalidSecretName",
    "InvalidSecretSite",
    "InvalidSecretValue",
    "InvalidSelector",
    "InvalidState",
    "InvalidTool",
    "MalformedMessage",
    "NotPaired",
    "NotReady",
    "OutOfScope",
    "PageError",
    "PairingBusy",
    "PairingCodeWrong",
    "PairingError",
    "PairingLocked",
    "PairingUnknown",
    "Paused",
    "PlaceholderMissing",
    "PlaceholderRepeated",
    "ProtocolError",
    "ProtocolVersionMismatch",
    "QueryFailed",
    "Registration",
    "SecretError",
    "SecretNotBound",
    "SecretStoreUnavailable",
    "SecretToolChanged",
    "SiteNotReachable",
    "SiteNotRegistered",
    "SiteRedirected",
    "SiteToolGone",
    "SpliceError",
    "TabClosed",
    "TabFlooded",
    "TabNavigated",
    "TooLarge",
    "ToolCallError",
    "ToolGone",
    "ToolNotFound",
    "ToolTimeout",
    "ToolValidationError",
    "Unauthorized",
    "UnknownMessageType",
    "UnknownQuery",
    "UnknownRevision",
    "UnknownSecret",
    "Use",
    "WritesDisabled",
    "error_for_code",
    "page_error",
    "summary",
    "tool_error_class",
]


class ErrorCode(enum.StrEnum):
    """Every error code on the wire and in tool results, by name (never as a string literal).

    A name only: its one exception class registers it (:data:`REGISTRY`), and every other list
    of codes is generated from that (``python -m tabmcp.protocol_js``).
    """

    PROTOCOL_ERROR = "PROTOCOL_ERROR"
    MALFORMED_MESSAGE = "MALFORMED_MESSAGE"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    PROTOCOL_MISMATCH = "PROTOCOL_MISMATCH"
    NOT_READY = "NOT_READY"
    UNAUTHORIZED = "UNAUTHORIZED"
    NOT_PAIRED = "NOT_PAIRED"
    FLOODED = "FLOODED"
    TAB_FLOODED = "TAB_FLOODED"
    TOO_LARGE = "TOO_LARGE"
    INVALID_TOOL = "INVALID_TOOL"
    UNKNOWN_REVISION = "UNKNOWN_REVISION"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    TOOL_ERROR = "TOOL_ERROR"
    TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
    TOOL_GONE = "TOOL_GONE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    WRITES_DISABLED = "WRITES_DISABLED"
    APPROVAL_DENIED = "APPROVAL_DENIED"
    PAUSED = "PAUSED"
    OUT_OF_SCOPE = "OUT_OF_SCOPE"
    TIMEOUT = "TIMEOUT"
    TAB_CLOSED = "TAB_CLOSED"
    TAB_NAVIGATED = "TAB_NAVIGATED"
    EXTENSION_DISCONNECTED = "EXTENSION_DISCONNECTED"
    CANCELLED = "CANCELLED"
    PAGE_ERROR = "PAGE_ERROR"
    BAD_RESULT = "BAD_RESULT"
    SITE_NOT_REACHABLE = "SITE_NOT_REACHABLE"
    SITE_NOT_REGISTERED = "SITE_NOT_REGISTERED"
    SITE_TOOL_GONE = "SITE_TOOL_GONE"
    SITE_REDIRECTED = "SITE_REDIRECTED"
    SECRET_NOT_BOUND = "SECRET_NOT_BOUND"
    SECRET_TOOL_CHANGED = "SECRET_TOOL_CHANGED"
    AXE_MISSING = "AXE_MISSING"
    AXE_FAILED = "AXE_FAILED"
    INVALID_SELECTOR = "INVALID_SELECTOR"
    UNKNOWN_QUERY = "UNKNOWN_QUERY"
    QUERY_FAILED = "QUERY_FAILED"
    SNAPSHOT_NOT_FOUND = "SNAPSHOT_NOT_FOUND"
    SNAPSHOT_UNREADABLE = "SNAPSHOT_UNREADABLE"
    SESSION_STORE_ERROR = "SESSION_STORE_ERROR"
    PAIRING_CODE_WRONG = "PAIRING_CODE_WRONG"
    PAIRING_LOCKED = "PAIRING_LOCKED"
    PAIRING_BUSY = "PAIRING_BUSY"
    PAIRING_UNKNOWN = "PAIRING_UNKNOWN"


Use = Literal["frame", "call", "query", "control", "telemetry"]
"""Where a code is used."""

USES: dict[Use, str] = {
    "frame": "an `error` message on the extension link",
    "call": "a tool call's or request's end, as the agent sees it (`structuredContent.error.code`)",
    "query": "a live page query's answer (`page.result.error.code`)",
    "control": "the control API (`tabmcp pair`, `controls`)",
    "telemetry": "a telemetry tool's snapshot actions (`configure`)",
}


@dataclass(frozen=True, slots=True)
class Registration:
    """One error code as its class registered it."""

    code: ErrorCode
    error: type[BridgeError]
    uses: frozenset[Use]
    worker: bool
    """The extension's worker itself ends requests with it (:data:`EXTENSION_CODES`)."""
    meaning: str
    """The first line of the class's docstring."""


REGISTRY: dict[str, Registration] = {}
"""Every error code, by the class that registered it (in the order they were defined)."""


def summary(cls: type) -> str:
    """The first line of a class's own docstring (its one-line meaning)."""
    return (cls.__dict__.get("__doc__") or "").strip().split("\n", 1)[0].strip()


class BridgeError(Exception):
    """Root of every exception the bridge raises on purpose."""

    def __init_subclass__(cls, *, code: ErrorCode | None = None, uses: tuple[Use, ...] = (),
                          worker: bool = False, **kwargs: Any) -> None:
        """``class X(Base, code=ErrorCode.X, uses=(...))`` registers the code: the class is its one record."""
        super().__init_subclass__(**kwargs)
        if code is None:
            if uses or worker:
                raise TypeError(f"{cls.__qualname__}: uses and worker need a code")
            return
        if not summary(cls) or not uses or not set(uses) <= set(USES):
            raise TypeError(f"{cls.__qualname__}: a registered code needs a one-line docstring and uses from {list(USES)}")
        if code in REGISTRY:
            raise TypeError(f"{code} is registered by {REGISTRY[code].error.__qualname__} already")
        cls.code = code  # type: ignore[attr-defined]  # (declared on each branch that carries one)
        REGISTRY[code] = Registration(ErrorCode(code), cls, frozenset(uses), worker, summary(cls))


class ConfigError(BridgeError):
    """The config file or a flag is invalid."""


class InvalidState(BridgeError):
    """An object was used in a state that forbids it."""


class SpliceError(BridgeError):
    """A kept listing's bytes could not go into the SDK's answer: refused by name, never answered wrong."""


class PlaceholderMissing(SpliceError):
    """The SDK's answer holds no placeholder array to replace (core/listing_splice.py)."""


class PlaceholderRepeated(SpliceError):
    """The SDK's answer holds the placeholder more than once (core/listing_splice.py)."""


class PairingError(BridgeError):
    """``tabmcp pair`` could not pair (``code`` names why; the control API answers it)."""

    code: str = ErrorCode.PAIRING_CODE_WRONG

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ControlError(BridgeError):
    """The control API (``tabmcp pair``, ``status``) could not be used."""


class SecretError(BridgeError):
    """``tabmcp secrets`` could not do what was asked (the message says why)."""


class InvalidSecretName(SecretError):
    """Not a letter, then letters, digits or ``_`` (64 at most)."""


class InvalidSecretValue(SecretError):
    """Empty, too short to mask safely, or not one line."""


class InvalidSecretSite(SecretError):
    """A site that is not an http(s) origin."""


class UnknownSecret(SecretError):
    """No secret has this name."""


class SecretStoreUnavailable(SecretError):
    """The keychain chosen in the config cannot be used."""


class PairingCodeWrong(PairingError, code=ErrorCode.PAIRING_CODE_WRONG, uses=("control",)):
    """No pending pairing request has the code typed (or it expired)."""


class PairingLocked(PairingError, code=ErrorCode.PAIRING_LOCKED, uses=("control",)):
    """Too many wrong codes in a row: every pending code is void (ask for a new one in the popup)."""


class PairingBusy(PairingError, code=ErrorCode.PAIRING_BUSY, uses=("control",)):
    """Too many pairing requests are pending at once (ask again in a few minutes)."""


class PairingUnknown(PairingError, code=ErrorCode.PAIRING_UNKNOWN, uses=("control",)):
    """No pairing has this id (``tabmcp pair --forget``)."""


class ProtocolError(BridgeError, code=ErrorCode.PROTOCOL_ERROR, uses=("frame",)):
    """The extension sent something the wire protocol does not allow."""

    code: str

    def __init__(self, message: str, *, ref: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.ref = ref


class MalformedMessage(ProtocolError, code=ErrorCode.MALFORMED_MESSAGE, uses=("frame",)):
    """Not JSON, not an object, or fields of the wrong shape."""


class UnknownMessageType(ProtocolError, code=ErrorCode.UNKNOWN_TYPE, uses=("frame",)):
    """A ``type`` this protocol version does not define."""


class ProtocolVersionMismatch(ProtocolError, code=ErrorCode.PROTOCOL_MISMATCH, uses=("frame",)):
    """The extension speaks another protocol version (the connection is closed)."""


class NotReady(ProtocolError, code=ErrorCode.NOT_READY, uses=("frame",)):
    """A message before the ``hello`` handshake."""


class NotPaired(ProtocolError, code=ErrorCode.NOT_PAIRED, uses=("frame",)):
    """A message other than pairing from a link the person never paired (``tabmcp pair``)."""


class Unauthorized(ProtocolError, code=ErrorCode.UNAUTHORIZED, uses=("frame", "control")):
    """A wrong or missing extension token or control key (the connection is closed)."""


class Flooded(ProtocolError, code=ErrorCode.FLOODED, uses=("frame",)):
    """A connection sent more messages than any tab rule explains: told so, then closed (1008)."""


class TabFlooded(ProtocolError, code=ErrorCode.TAB_FLOODED, uses=("frame",), worker=True):
    """One tab sent past its rate: throttled, then cut off alone (its tools kept, the link untouched)."""


class TooLarge(ProtocolError, code=ErrorCode.TOO_LARGE, uses=("frame",), worker=True):
    """A definition, a tab or a result over its size limit: refused by name before it was sent."""


class InvalidTool(ProtocolError, code=ErrorCode.INVALID_TOOL, uses=("frame",)):
    """A tool definition the bridge refuses (its neighbours kept)."""


class UnknownRevision(ProtocolError, code=ErrorCode.UNKNOWN_REVISION, uses=("frame",)):
    """A sync kept a tab by a revision the bridge does not hold: the sync is refused whole, the extension sends every tab."""


class ToolCallError(BridgeError, code=ErrorCode.TOOL_ERROR, uses=("call",)):
    """A tool call failed; ``code`` is what the agent sees."""

    code: str
    shown: Shown | None = None
    """The text the agent reads instead of ``code: message`` (the trust gate's, for a page's words)."""
    meta: dict[str, Any] | None = None
    """``_meta`` of the error result (the trust gate's ``tabmcp/trust``)."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: v for k, v in details.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class ToolNotFound(ToolCallError, code=ErrorCode.TOOL_NOT_FOUND, uses=("call",), worker=True):
    """No tool has this name (with the closest names)."""


class ToolGone(ToolCallError, code=ErrorCode.TOOL_GONE, uses=("call",)):
    """The name meant an origin's tool that left; names never move to another origin, so nothing ran."""


class ToolValidationError(ToolCallError, code=ErrorCode.VALIDATION_ERROR, uses=("call",)):
    """The arguments do not match the schema (which field, what was expected)."""


class WritesDisabled(ToolCallError, code=ErrorCode.WRITES_DISABLED, uses=("call",)):
    """Writes are off (with the setting that enables them)."""


class ApprovalDenied(ToolCallError, code=ErrorCode.APPROVAL_DENIED, uses=("call",)):
    """The person said no, or could not be asked."""


class Paused(ToolCallError, code=ErrorCode.PAUSED, uses=("call",)):
    """The person paused all agent access (the popup, or ``tabmcp controls pause``)."""


class OutOfScope(ToolCallError, code=ErrorCode.OUT_OF_SCOPE, uses=("call",), worker=True):
    """Page state, route or policy rules the call out."""


class ToolTimeout(ToolCallError, code=ErrorCode.TIMEOUT, uses=("call", "query"), worker=True):
    """The request's deadline passed."""


class TabClosed(ToolCallError, code=ErrorCode.TAB_CLOSED, uses=("call", "query"), worker=True):
    """The request's tab closed."""


class TabNavigated(ToolCallError, code=ErrorCode.TAB_NAVIGATED, uses=("call", "query"), worker=True):
    """The page unloaded or the tab moved to another document during the request."""


class ExtensionDisconnected(ToolCallError, code=ErrorCode.EXTENSION_DISCONNECTED, uses=("call", "query"),
                            worker=True):
    """The link the request was sent on closed or was replaced."""


class CallCancelled(ToolCallError, code=ErrorCode.CANCELLED, uses=("call",), worker=True):
    """The asker gave up (the MCP client cancelled)."""


class PageError(ToolCallError, code=ErrorCode.PAGE_ERROR, uses=("call", "query")):
    """The page's tool or query failed: its message, code and details, as page data.

    The gate makes all three safe before the agent sees them
    (:meth:`tabmcp.core.trust.guard.TrustGuard.page_error`)."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message, **details)
        self.gated = False
        """The trust gate has made this error's page words safe (done once)."""
        self.tab_id: int | None = None
        """The tab whose page said it (the gate names its origin)."""


class BadResult(ToolCallError, code=ErrorCode.BAD_RESULT, uses=("call",)):
    """The page returned something unusable."""


class SiteNotReachable(ToolCallError, code=ErrorCode.SITE_NOT_REACHABLE, uses=("call",)):
    """The person did not let agents open this site (popup, or ``[[policy.origins]] reachable``)."""


class SiteNotRegistered(ToolCallError, code=ErrorCode.SITE_NOT_REGISTERED, uses=("call",)):
    """The page opened for a call did not register the tool within ``sites.open_timeout_s``."""


class SiteToolGone(ToolCallError, code=ErrorCode.SITE_TOOL_GONE, uses=("call",)):
    """The page opened for a call loaded and settled without the tool (marked stale)."""


class SiteRedirected(ToolCallError, code=ErrorCode.SITE_REDIRECTED, uses=("call",), worker=True):
    """The page went to another origin: its tab was closed, nothing was called."""


class SecretNotBound(ToolCallError, code=ErrorCode.SECRET_NOT_BOUND, uses=("call",)):
    """A ``{{secret:NAME}}`` argument names a secret not bound to the tool's origin; nothing was sent."""


class SecretToolChanged(ToolCallError, code=ErrorCode.SECRET_TOOL_CHANGED, uses=("call",)):
    """The tool's definition changed since the person accepted it: no secret goes into it."""


class AxeMissing(ToolCallError, code=ErrorCode.AXE_MISSING, uses=("query",), worker=True):
    """The extension could not load axe-core into the page (an accessibility audit)."""


class AxeFailed(ToolCallError, code=ErrorCode.AXE_FAILED, uses=("query",), worker=True):
    """axe-core ran in the page and threw."""


class InvalidSelector(ToolCallError, code=ErrorCode.INVALID_SELECTOR, uses=("query",)):
    """A page query's selector is empty or not valid CSS."""


class UnknownQuery(ToolCallError, code=ErrorCode.UNKNOWN_QUERY, uses=("query",)):
    """A page query of a kind the page does not answer."""


class QueryFailed(ToolCallError, code=ErrorCode.QUERY_FAILED, uses=("query",)):
    """The page could not answer a query (or send its answer)."""


class InternalError(ToolCallError, code=ErrorCode.INTERNAL_ERROR, uses=("call", "frame")):
    """A bug in the bridge: logged with its traceback; the agent gets the exception's type only.

    Only the type, because the exception's words may hold page text or internals."""


EXTENSION_CODES: frozenset[str] = frozenset(r.code for r in REGISTRY.values() if r.worker)
"""The codes the extension's worker itself ends a request with (``worker=True``); any other code
in an extension's error is a page's words."""


def page_error(code: str | None, message: str, details: dict[str, Any] | None = None) -> PageError:
    """A page's failure as a bridge-owned ``PAGE_ERROR``: the page's code and details kept only as
    page data (``page_code``, ``page_details``), never as the bridge's own code or fields."""
    return PageError(
        message,
        page_code=code if code is not None and code != ErrorCode.PAGE_ERROR else None,
        page_details=details or None,
    )


def _call_error(code: str) -> type[ToolCallError] | None:
    """The class of a code the bridge ends a call with by name (registered for ``call``)."""
    reg = REGISTRY.get(code)
    if reg is None or "call" not in reg.uses or not issubclass(reg.error, ToolCallError):
        return None
    return reg.error


def tool_error_class(code: str) -> type[ToolCallError]:
    """The exception class of one of the bridge's own tool-call error codes.

    Raises:
        KeyError: no exception class has this code.
    """
    cls = _call_error(code)
    if cls is None:
        raise KeyError(code)
    return cls


def error_for_code(code: str, message: str, *, from_page: bool = False,
                   details: dict[str, Any] | None = None, **extra: Any) -> ToolCallError:
    """The exception for an error the extension reported for a call or a page query.

    Only :data:`EXTENSION_CODES` become the bridge's own errors, so a page cannot claim one.
    """
    cls = _call_error(code)
    if from_page or cls is None or code not in EXTENSION_CODES:
        return page_error(code, message, details)
    safe = {k: v for k, v in (details or {}).items() if k not in ("message", "code")}
    return cls(message, **{**safe, **extra})
