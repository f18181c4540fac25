"""The bridge's exceptions, one tree under :class:`BridgeError`.

::

    BridgeError
    ├── ConfigError                  the config file or a flag is invalid
    ├── InvalidState                 an object was used in a state that forbids it
    ├── PairingError                 ``tabmcp pair`` could not pair (``code`` names why)
    │   ├── PairingCodeWrong         no pending request has this code
    │   ├── PairingLocked            too many wrong codes: every pending code is void
    │   └── PairingBusy              too many pending requests (ask again in a few minutes)
    ├── ControlError                 the control API (``tabmcp pair``, ``status``) could not be used
    ├── SecretError                  ``tabmcp secrets`` could not do what was asked
    │   ├── InvalidSecretName        not a letter, then letters, digits or ``_`` (64 at most)
    │   ├── InvalidSecretValue       empty, too short to mask safely, or not one line
    │   ├── InvalidSecretSite        a site that is not an http(s) origin
    │   ├── UnknownSecret            no secret has this name
    │   └── SecretStoreUnavailable   the keychain chosen in the config cannot be used
    ├── ProtocolError                the extension sent something we cannot accept
    │   ├── MalformedMessage         not JSON, not an object, or fields of the wrong shape
    │   ├── UnknownMessageType       a ``type`` this protocol version does not define
    │   ├── ProtocolVersionMismatch  the extension speaks another protocol version
    │   ├── NotReady                 a message before the ``hello`` handshake
    │   └── NotPaired                a message other than pairing from a link the person never paired
    └── ToolCallError                a tool call failed; ``code`` is what the agent sees
        ├── ToolNotFound             TOOL_NOT_FOUND (with the closest names)
        ├── ToolGone                 TOOL_GONE (the name meant an origin's tool that left; never another's)
        ├── ToolValidationError      VALIDATION_ERROR (which field, what was expected)
        ├── WritesDisabled           WRITES_DISABLED (with the setting that enables writes)
        ├── ApprovalDenied           APPROVAL_DENIED
        ├── Paused                   PAUSED (the person paused all agent access in the popup)
        ├── OutOfScope               OUT_OF_SCOPE (page state, route or policy rules it out)
        ├── ToolTimeout              TIMEOUT
        ├── TabClosed                TAB_CLOSED
        ├── TabNavigated             TAB_NAVIGATED (the page unloaded during the call)
        ├── ExtensionDisconnected    EXTENSION_DISCONNECTED
        ├── CallCancelled            CANCELLED
        ├── PageError                PAGE_ERROR (the page's own words: message, code and details as page data)
        ├── BadResult                BAD_RESULT (the page returned something unusable)
        ├── SiteNotReachable         SITE_NOT_REACHABLE (the person did not let agents open this site)
        ├── SiteNotRegistered        SITE_NOT_REGISTERED (the opened page did not offer the tool in time)
        ├── SiteToolGone             SITE_TOOL_GONE (the page loaded but no longer offers the tool)
        ├── SiteRedirected           SITE_REDIRECTED (the page went to another origin; tab closed)
        ├── SecretNotBound           SECRET_NOT_BOUND (a named secret is not bound to the tool's origin)
        ├── SecretToolChanged        SECRET_TOOL_CHANGED (no secret goes into a changed definition)
        └── InternalError            INTERNAL_ERROR (a bug in the bridge; logged with its traceback)

Third-party exceptions are translated where they enter (``raise ToolTimeout(...) from exc``),
so a ``jsonschema.ValidationError`` or a ``websockets`` error never leaks out of the API.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core.trust.text import Shown

__all__ = [
    "EXTENSION_CODES",
    "ApprovalDenied",
    "BadResult",
    "BridgeError",
    "CallCancelled",
    "ConfigError",
    "ControlError",
    "ErrorCode",
    "ExtensionDisconnected",
    "InternalError",
    "InvalidSecretName",
    "InvalidSecretSite",
    "InvalidSecretValue",
    "InvalidState",
    "MalformedMessage",
    "NotPaired",
    "NotReady",
    "OutOfScope",
    "PageError",
    "PairingBusy",
    "PairingCodeWrong",
    "PairingError",
    "PairingLocked",
    "Paused",
    "ProtocolError",
    "ProtocolVersionMismatch",
    "SecretError",
    "SecretNotBound",
    "SecretStoreUnavailable",
    "SecretToolChanged",
    "SiteNotReachable",
    "SiteNotRegistered",
    "SiteRedirected",
    "SiteToolGone",
    "TabClosed",
    "TabNavigated",
    "ToolCallError",
    "ToolGone",
    "ToolNotFound",
    "ToolTimeout",
    "ToolValidationError",
    "UnknownMessageType",
    "UnknownSecret",
    "WritesDisabled",
    "error_for_code",
    "page_error",
    "tool_error_class",
]


class ErrorCode(enum.StrEnum):
    """Every error code on the wire and in tool results, by name (never as a string literal).

    The extension gets the same names in ``extension/protocol.generated.js`` (generated from
    this class by ``tabmcp.protocol_js``; a test fails when the two drift).
    """

    # frames the extension sent (``error`` messages from the bridge)
    PROTOCOL_ERROR = "PROTOCOL_ERROR"
    MALFORMED_MESSAGE = "MALFORMED_MESSAGE"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    PROTOCOL_MISMATCH = "PROTOCOL_MISMATCH"
    NOT_READY = "NOT_READY"
    UNAUTHORIZED = "UNAUTHORIZED"
    NOT_PAIRED = "NOT_PAIRED"
    """The link presented no valid pairing: until the person pairs it (``tabmcp pair``), it may only ask to."""
    FLOODED = "FLOODED"
    """A connection sent more messages than any tab rule explains: told so, then closed (1008)."""
    TAB_FLOODED = "TAB_FLOODED"
    """One tab (one page) sent past its rate: throttled, then cut off alone (its telemetry dropped
    and counted, its tools kept); the link and every other tab are untouched."""
    TOO_LARGE = "TOO_LARGE"
    """A definition, a tab or a result over its size limit: refused by name before it was sent
    (its neighbours kept), never a frame the bridge must refuse."""
    INVALID_TOOL = "INVALID_TOOL"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    # tool calls, approvals and page queries
    TOOL_ERROR = "TOOL_ERROR"
    TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
    TOOL_GONE = "TOOL_GONE"
    """The name was listed for one origin's tool, which no longer offers it; names never move to
    another origin, so the call runs nothing (``details.origin`` is the origin it meant)."""
    VALIDATION_ERROR = "VALIDATION_ERROR"
    WRITES_DISABLED = "WRITES_DISABLED"
    APPROVAL_DENIED = "APPROVAL_DENIED"
    OUT_OF_SCOPE = "OUT_OF_SCOPE"
    TIMEOUT = "TIMEOUT"
    TAB_CLOSED = "TAB_CLOSED"
    TAB_NAVIGATED = "TAB_NAVIGATED"
    EXTENSION_DISCONNECTED = "EXTENSION_DISCONNECTED"
    CANCELLED = "CANCELLED"
    PAGE_ERROR = "PAGE_ERROR"
    BAD_RESULT = "BAD_RESULT"
    AXE_MISSING = "AXE_MISSING"
    """The extension could not load axe-core into the page (an accessibility audit)."""
    # reachable sites (core/sites.py): a call or open_page that opens a site
    SITE_NOT_REACHABLE = "SITE_NOT_REACHABLE"
    """The origin is not one the person lets agents open (popup, or ``[[policy.origins]] reachable``)."""
    SITE_NOT_REGISTERED = "SITE_NOT_REGISTERED"
    """The page opened for a call did not register the tool within ``sites.open_timeout_s``."""
    SITE_TOOL_GONE = "SITE_TOOL_GONE"
    """The page opened for a call loaded and settled without the tool: its stored entry is now stale."""
    SITE_REDIRECTED = "SITE_REDIRECTED"
    """The page opened for a call went to another origin: the tab was closed, nothing was called."""
    # secrets by name (core/secrets.py)
    SECRET_NOT_BOUND = "SECRET_NOT_BOUND"
    """A ``{{secret:NAME}}`` argument names a secret that is not bound to the tool's origin (or does
    not exist: the same answer, so no other site's names leak); nothing was sent."""
    SECRET_TOOL_CHANGED = "SECRET_TOOL_CHANGED"
    """The tool's definition changed since the person accepted it: no secret goes into it; nothing was sent."""
    PAUSED = "PAUSED"
    """The person paused all agent access (the extension popup, or ``tabmcp controls pause``)."""
    AXE_FAILED = "AXE_FAILED"
    """axe-core ran in the page and threw."""
    INVALID_SELECTOR = "INVALID_SELECTOR"
    """A page query's selector is empty or not valid CSS."""
    UNKNOWN_QUERY = "UNKNOWN_QUERY"
    """A page query of a kind the page does not answer."""
    QUERY_FAILED = "QUERY_FAILED"
    """The page could not answer a query (or send its answer)."""
    # telemetry snapshots (``configure``: save, load, list, delete; core/telemetry/errors.py)
    SNAPSHOT_NOT_FOUND = "SNAPSHOT_NOT_FOUND"
    """No session snapshot has that name."""
    SNAPSHOT_UNREADABLE = "SNAPSHOT_UNREADABLE"
    """A stored snapshot is corrupt or was written by an incompatible version."""
    SESSION_STORE_ERROR = "SESSION_STORE_ERROR"
    """The SQLite session store failed, or none is configured for a snapshot action."""
    # pairing (``tabmcp pair``, the bridge's control API)
    PAIRING_CODE_WRONG = "PAIRING_CODE_WRONG"
    """No pending pairing request has the code typed (or it expired)."""
    PAIRING_LOCKED = "PAIRING_LOCKED"
    """Too many wrong codes in a row: every pending code was voided; ask for a new one in the popup."""
    PAIRING_BUSY = "PAIRING_BUSY"
    """Too many pairing requests are pending at once."""
    PAIRING_UNKNOWN = "PAIRING_UNKNOWN"
    """No pairing has this id (``tabmcp pair --forget``)."""


class BridgeError(Exception):
    """Root of every exception the bridge raises on purpose."""


class ConfigError(BridgeError):
    """The configuration file or a command-line flag is invalid."""


class InvalidState(BridgeError):
    """An object was used in a state that does not allow the operation."""


class PairingError(BridgeError):
    """Pairing an extension failed; ``code`` names why (the control API answers it)."""

    code: str = ErrorCode.PAIRING_CODE_WRONG

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ControlError(BridgeError):
    """The running bridge's control API could not be reached or refused the request (no bridge on
    the port, no control key to read, or another user's bridge)."""


class SecretError(BridgeError):
    """``tabmcp secrets`` could not do what was asked (the message says why)."""


class InvalidSecretName(SecretError):
    pass


class InvalidSecretValue(SecretError):
    pass


class InvalidSecretSite(SecretError):
    pass


class UnknownSecret(SecretError):
    pass


class SecretStoreUnavailable(SecretError):
    pass


class PairingCodeWrong(PairingError):
    code: str = ErrorCode.PAIRING_CODE_WRONG


class PairingLocked(PairingError):
    code: str = ErrorCode.PAIRING_LOCKED


class PairingBusy(PairingError):
    code: str = ErrorCode.PAIRING_BUSY


class ProtocolError(BridgeError):
    """The extension sent something the wire protocol does not allow.

    ``code`` is the named error sent back to the extension in an ``error`` message.
    """

    code: str = ErrorCode.PROTOCOL_ERROR

    def __init__(self, message: str, *, ref: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.ref = ref


class MalformedMessage(ProtocolError):
    code: str = ErrorCode.MALFORMED_MESSAGE


class UnknownMessageType(ProtocolError):
    code: str = ErrorCode.UNKNOWN_TYPE


class ProtocolVersionMismatch(ProtocolError):
    code: str = ErrorCode.PROTOCOL_MISMATCH


class NotReady(ProtocolError):
    code: str = ErrorCode.NOT_READY


class NotPaired(ProtocolError):
    code: str = ErrorCode.NOT_PAIRED


class ToolCallError(BridgeError):
    """A tool call failed. The agent receives ``code``, ``message`` and ``details``."""

    code: str = ErrorCode.TOOL_ERROR
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


class ToolNotFound(ToolCallError):
    code: str = ErrorCode.TOOL_NOT_FOUND


class ToolGone(ToolCallError):
    code: str = ErrorCode.TOOL_GONE


class ToolValidationError(ToolCallError):
    code: str = ErrorCode.VALIDATION_ERROR


class WritesDisabled(ToolCallError):
    code: str = ErrorCode.WRITES_DISABLED


class ApprovalDenied(ToolCallError):
    code: str = ErrorCode.APPROVAL_DENIED


class Paused(ToolCallError):
    code: str = ErrorCode.PAUSED


class OutOfScope(ToolCallError):
    code: str = ErrorCode.OUT_OF_SCOPE


class ToolTimeout(ToolCallError):
    code: str = ErrorCode.TIMEOUT


class TabClosed(ToolCallError):
    code: str = ErrorCode.TAB_CLOSED


class TabNavigated(ToolCallError):
    code: str = ErrorCode.TAB_NAVIGATED


class ExtensionDisconnected(ToolCallError):
    code: str = ErrorCode.EXTENSION_DISCONNECTED


class CallCancelled(ToolCallError):
    code: str = ErrorCode.CANCELLED


class PageError(ToolCallError):
    """A page's tool or query failed. ``message`` is the page's own words; the code and details
    the page gave are kept only as ``page_code`` and ``page_details`` (page data, never the
    bridge's own fields). The trust gate cleans, caps, frames and scans all three before the
    agent sees them (:meth:`tabmcp.core.trust.guard.TrustGuard.page_error`)."""

    code: str = ErrorCode.PAGE_ERROR

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message, **details)
        self.gated = False
        """The trust gate has made this error's page words safe (done once)."""
        self.tab_id: int | None = None
        """The tab whose page said it (the gate names its origin)."""


class BadResult(ToolCallError):
    code: str = ErrorCode.BAD_RESULT


class SiteNotReachable(ToolCallError):
    code: str = ErrorCode.SITE_NOT_REACHABLE


class SiteNotRegistered(ToolCallError):
    code: str = ErrorCode.SITE_NOT_REGISTERED


class SiteToolGone(ToolCallError):
    code: str = ErrorCode.SITE_TOOL_GONE


class SiteRedirected(ToolCallError):
    code: str = ErrorCode.SITE_REDIRECTED


class SecretNotBound(ToolCallError):
    code: str = ErrorCode.SECRET_NOT_BOUND


class SecretToolChanged(ToolCallError):
    code: str = ErrorCode.SECRET_TOOL_CHANGED


class InternalError(ToolCallError):
    """An unexpected exception in a tool path: the bridge logs it with its traceback and the agent
    gets this named error, never the SDK's generic "Internal server error". Its message names the
    exception's type only (what it said may hold page text or internals). Not in the codes the
    extension or a page may report (:func:`error_for_code`)."""

    code: str = ErrorCode.INTERNAL_ERROR


_BY_CODE: dict[str, type[ToolCallError]] = {
    cls.code: cls
    for cls in (
        ToolNotFound,
        ToolValidationError,
        WritesDisabled,
        ApprovalDenied,
        Paused,
        OutOfScope,
        ToolTimeout,
        TabClosed,
        TabNavigated,
        ExtensionDisconnected,
        CallCancelled,
        PageError,
        BadResult,
        SiteNotReachable,
        SiteNotRegistered,
        SiteToolGone,
        SiteRedirected,
        SecretNotBound,
        SecretToolChanged,
    )
}


EXTENSION_CODES: frozenset[str] = frozenset({
    ErrorCode.TAB_CLOSED,
    ErrorCode.TAB_NAVIGATED,
    ErrorCode.TIMEOUT,
    ErrorCode.CANCELLED,
    ErrorCode.OUT_OF_SCOPE,
    ErrorCode.TOOL_NOT_FOUND,
    ErrorCode.AXE_MISSING,
    ErrorCode.AXE_FAILED,
    ErrorCode.SITE_REDIRECTED,
    ErrorCode.TOO_LARGE,
    ErrorCode.TAB_FLOODED,
    ErrorCode.EXTENSION_DISCONNECTED,
})
"""The codes the extension's worker itself ends a call or page query with. Any other code in
an extension's error (``WRITES_DISABLED``, ``APPROVAL_DENIED``, a code of its own) can only be a
page's, and is reported as the page's words."""


def page_error(code: str | None, message: str, details: dict[str, Any] | None = None) -> PageError:
    """A page's failure as a bridge-owned ``PAGE_ERROR``: the page's code and details kept only as
    page data (``page_code``, ``page_details``), never as the bridge's own code or fields."""
    return PageError(
        message,
        page_code=code if code is not None and code != ErrorCode.PAGE_ERROR else None,
        page_details=details or None,
    )


def tool_error_class(code: str) -> type[ToolCallError]:
    """The exception class of one of the bridge's own tool-call error codes.

    Raises:
        KeyError: no exception class has this code.
    """
    return _BY_CODE[code]


def error_for_code(code: str, message: str, *, from_page: bool = False,
                   details: dict[str, Any] | None = None, **extra: Any) -> ToolCallError:
    """The exception for an error the extension reported for a call or a page query.

    Only the codes the worker itself ends requests with (:data:`EXTENSION_CODES`) become the
    bridge's own errors; an error the worker relays from a page (``from_page``), ``PAGE_ERROR``
    and every other code become a :func:`page_error`, whose words are the page's.
    """
    cls = _BY_CODE.get(code)
    if from_page or cls is None or code not in EXTENSION_CODES:
        return page_error(code, message, details)
    safe = {k: v for k, v in (details or {}).items() if k not in ("message", "code")}
    return cls(message, **{**safe, **extra})
