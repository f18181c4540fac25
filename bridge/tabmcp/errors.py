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
        ├── OutOfScope               OUT_OF_SCOPE (page state, route or policy rules it out)
        ├── ToolTimeout              TIMEOUT
        ├── TabClosed                TAB_CLOSED
        ├── TabNavigated             TAB_NAVIGATED (the page unloaded during the call)
        ├── ExtensionDisconnected    EXTENSION_DISCONNECTED
        ├── CallCancelled            CANCELLED
        ├── PageError                PAGE_ERROR (the page's own exception message)
        └── BadResult                BAD_RESULT (the page returned something unusable)

Third-party exceptions are translated where they enter (``raise ToolTimeout(...) from exc``),
so a ``jsonschema.ValidationError`` or a ``websockets`` error never leaks out of the API.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ApprovalDenied",
    "BadResult",
    "BridgeError",
    "CallCancelled",
    "ConfigError",
    "ExtensionDisconnected",
    "InvalidState",
    "MalformedMessage",
    "NotReady",
    "OutOfScope",
    "PageError",
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

    code = "PROTOCOL_ERROR"

    def __init__(self, message: str, *, ref: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.ref = ref


class MalformedMessage(ProtocolError):
    code = "MALFORMED_MESSAGE"


class UnknownMessageType(ProtocolError):
    code = "UNKNOWN_TYPE"


class ProtocolVersionMismatch(ProtocolError):
    code = "PROTOCOL_MISMATCH"


class NotReady(ProtocolError):
    code = "NOT_READY"


class ToolCallError(BridgeError):
    """A tool call failed. The agent receives ``code``, ``message`` and ``details``."""

    code = "TOOL_ERROR"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: v for k, v in details.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class ToolNotFound(ToolCallError):
    code = "TOOL_NOT_FOUND"


class ToolValidationError(ToolCallError):
    code = "VALIDATION_ERROR"


class WritesDisabled(ToolCallError):
    code = "WRITES_DISABLED"


class ApprovalDenied(ToolCallError):
    code = "APPROVAL_DENIED"


class OutOfScope(ToolCallError):
    code = "OUT_OF_SCOPE"


class ToolTimeout(ToolCallError):
    code = "TIMEOUT"


class TabClosed(ToolCallError):
    code = "TAB_CLOSED"


class TabNavigated(ToolCallError):
    code = "TAB_NAVIGATED"


class ExtensionDisconnected(ToolCallError):
    code = "EXTENSION_DISCONNECTED"


class CallCancelled(ToolCallError):
    code = "CANCELLED"


class PageError(ToolCallError):
    code = "PAGE_ERROR"


class BadResult(ToolCallError):
    code = "BAD_RESULT"


_BY_CODE: dict[str, type[ToolCallError]] = {
    cls.code: cls
    for cls in (
        ToolNotFound,
        ToolValidationError,
        WritesDisabled,
        ApprovalDenied,
        OutOfScope,
        ToolTimeout,
        TabClosed,
        TabNavigated,
        ExtensionDisconnected,
        CallCancelled,
        PageError,
        BadResult,
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
