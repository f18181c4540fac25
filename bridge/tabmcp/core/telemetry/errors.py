"""The telemetry core's exceptions, one subtree under :class:`tabmcp.errors.BridgeError`.

The tool errors are ``ToolCallError``s, so the MCP layer answers them like any other. A mode with
no data yet is not an error (:mod:`.answer`); ``sqlite3`` and ``pydantic`` exceptions are
translated where they enter.
"""

from __future__ import annotations

from ...errors import BridgeError, ErrorCode, MalformedMessage, ToolCallError, ToolValidationError

__all__ = [
    "InvalidTelemetryArguments",
    "MalformedBatch",
    "SessionStoreError",
    "SnapshotFormatError",
    "SnapshotNotFound",
    "TelemetryError",
]


class TelemetryError(BridgeError):
    """Root of every exception the telemetry core raises on purpose."""


class MalformedBatch(TelemetryError, MalformedMessage):
    """The extension sent a telemetry message whose envelope is unusable.

    A malformed event inside a good envelope is counted as ``rejected``, never raised.
    """


class InvalidTelemetryArguments(TelemetryError, ToolValidationError):
    """Arguments of a telemetry tool failed validation; ``details`` names the field."""


class SnapshotNotFound(TelemetryError, ToolCallError, code=ErrorCode.SNAPSHOT_NOT_FOUND, uses=("telemetry",)):
    """``configure(load_snapshot)`` named a snapshot that is not in the session store."""


class SnapshotFormatError(TelemetryError, ToolCallError, code=ErrorCode.SNAPSHOT_UNREADABLE, uses=("telemetry",)):
    """A stored snapshot is corrupt or was written by an incompatible version."""


class SessionStoreError(TelemetryError, ToolCallError, code=ErrorCode.SESSION_STORE_ERROR, uses=("telemetry",)):
    """The SQLite session store failed, or none was configured for a snapshot action."""
