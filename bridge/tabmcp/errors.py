"""The bridge's exceptions, one tree under :class:`BridgeError`.

::

    BridgeError
    ├── ConfigError                  the config file or a flag is invalid
    ├── InvalidState                 an object was used in a state that forbids it
    ├── ProtocolError                the extension sent something we cannot accept
    │   ├── MalformedMessage         not JSON, not an object, or fields of the wrong shape
    │   ├── UnknownMessageType       a ``type`` this protocol version does not define
    │   ├── ProtocolVersionMismatch  the extension speaks another protocol version
    │   └── NotReady                 a message before the ``hello`` handshake
    └── ToolCallError                a tool call failed; ``code`` is what the agent sees
        ├── ToolNotFound             TOOL_NOT_FOUND (with the closest names)
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
        ├── PageError                PAGE_ERROR (the page's own exception message)
        ├── BadResult                BAD_RESULT (the page returned something unusable)
        ├── SiteNotReachable         SITE_NOT_REACHABLE (the person did not let agents open this site)
        ├── SiteNotRegistered        SITE_NOT_REGISTERED (the opened page did not offer the tool in time)
        ├── SiteToolGone             SITE_TOOL_GONE (the page loaded but no longer offers the tool)
        └── SiteRedirected           SITE_REDIRECTED (the page went to another origin; tab closed)

Third-party exceptions are translated where they enter (``raise ToolTimeout(...) from exc``),
so a ``jsonschema.ValidationError`` or a ``websockets`` error never leaks out of the API.
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = [
    "ApprovalDenied",
    "BadResult",
    "BridgeError",
    "CallCancelled",
    "ConfigError",
    "ErrorCode",
    "ExtensionDisconnected",
    "InvalidState",
    "MalformedMessage",
    "NotReady",
    "OutOfScope",
    "PageError",
    "SiteNotReachable",
    "SiteNotRegistered",
    "SiteRedirected",
    "SiteToolGone",
    "Paused",
    "ProtocolError",
    "ProtocolVersionMismatch",
    "TabClosed",
    "TabNavigated",
    "ToolCallError",
    "ToolNotFound",
    "ToolTimeout",
    "ToolValidationError",
    "UnknownMessageType",
    "WritesDisabled",
    "error_for_code",
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


class BridgeError(Exception):
    """Root of every exception the bridge raises on purpose."""


class ConfigError(BridgeError):
    """The configuration file or a command-line flag is invalid."""


class InvalidState(BridgeError):
    """An object was used in a state that does not allow the operation."""


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


class ToolCallError(BridgeError):
    """A tool call failed. The agent receives ``code``, ``message`` and ``details``."""

    code: str = ErrorCode.TOOL_ERROR

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: v for k, v in details.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class ToolNotFound(ToolCallError):
    code: str = ErrorCode.TOOL_NOT_FOUND


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
    code: str = ErrorCode.PAGE_ERROR


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
    )
}


def error_for_code(code: str, message: str, **details: Any) -> ToolCallError:
    """Build the exception for an error code reported by the extension or the page.

    Unknown codes become a :class:`PageError` that keeps the original code in ``details``,
    so nothing the page said is lost.
    """
    details = {k: v for k, v in details.items() if k not in ("message", "code", "page_code")}
    cls = _BY_CODE.get(code)
    if cls is None:
        return PageError(message, page_code=code, **details)
    return cls(message, **details)
