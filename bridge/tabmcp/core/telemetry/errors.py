"""The telemetry core's exceptions, one subtree under :class:`tabmcp.errors.BridgeError`.

::

    BridgeError
    └── TelemetryError                    root of everything this package raises on purpose
        ├── MalformedBatch                a telemetry message we cannot accept at all
        │                                 (also a ProtocolError: code MALFORMED_MESSAGE)
        ├── InvalidTelemetryArguments     bad observe/analyze/generate/configure arguments
        │                                 (also a ToolValidationError: code VALIDATION_ERROR)
        ├── SnapshotNotFound              no session snapshot of that name (SNAPSHOT_NOT_FOUND)
        ├── SnapshotFormatError           a stored snapshot we cannot read (SNAPSHOT_UNREADABLE)
        └── SessionStoreError             SQLite failed or no session store is configured
                                          (SESSION_STORE_ERROR)

The ``ToolCallError`` branches mean the MCP layer can turn any of them into an ``isError``
result with its existing ``error_result`` helper: no new plumbing. A mode that simply has
no data yet is *not* an error and never raises (see :mod:`.answer`).

``sqlite3`` and ``pydantic`` exceptions are translated where they enter, so they never leak.
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

    Single malformed *events* inside a good envelope never raise: they are counted as
    ``rejected`` drops, so one bad event does not cost the whole batch.
    """


class InvalidTelemetryArguments(TelemetryError, ToolValidationError):
    """Arguments of a telemetry tool failed validation; ``details`` names the field."""


class SnapshotNotFound(TelemetryError, ToolCallError, code=ErrorCode.SNAPSHOT_NOT_FOUND, uses=("telemetry",)):
    """``configure(load_snapshot)`` named a snapshot that is not in the session store."""


class SnapshotFormatError(TelemetryError, ToolCallError, code=ErrorCode.SNAPSHOT_UNREADABLE, uses=("telemetry",)):
    """A stored snapshot is corrupt or was written by an incompatible version."""


class SessionStoreError(TelemetryError, ToolCallError, code=ErrorCode.SESSION_STORE_ERROR, uses=("telemetry",)):
    """The SQLite session store failed, or none was configured for a snapshot action."""
