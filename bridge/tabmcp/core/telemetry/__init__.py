"""Telemetry core: what the browser recorded, kept bounded and redacted, served as four tools.

Pure Python (no sockets, no asyncio, no browser). The bridge wires it like this::

    store = TelemetryState(config.telemetry)            # one per bridge
    store.add_listener(notifier.schedule)               # availability changed → tools/list changed
    sessions = SqliteSnapshots(path)                       # tabmcp.storage: SQLite snapshots (":memory:" in tests)

    store.ingest(message)                               # each {"type": "telemetry", ...} batch

    state = ExposureState(dynamic=is_dynamic(protocol)) # per MCP client connection
    tools = build_tool_definitions(store.counts(), dynamic=state.dynamic,
                                   observed=state.observed,
                                   exposure_enabled=store.settings.dynamic_exposure)

    answer = observe(store, arguments)                  # → ToolAnswer(text, data)
    if state.note_observe(exposure_enabled=store.settings.dynamic_exposure):
        ...                                             # notify this client: tools/list changed
    answer = analyze(store, arguments, axe_results=...) # axe result fetched live for accessibility
    answer = generate(store, arguments, axe_results=...)
    answer = configure(store, arguments, sessions=sessions)
    result = answer.to_call_result()

Errors raised are :class:`TelemetryError` subclasses that are also ``ToolCallError`` (or, for
a bad envelope, ``ProtocolError``); a mode with no data answers with a hint instead.
"""

from __future__ import annotations

from ..stores import SnapshotInfo, SnapshotStore
from .analyze import AnalyzeArgs, analyze
from .answer import ToolAnswer
from .availability import (
    ANALYZE_MODES,
    CONFIGURE_MODES,
    GENERATE_MODES,
    LIVE_MODES,
    OBSERVE_MODES,
    TELEMETRY_TOOLS,
    ExposureState,
    available_modes,
    mode_counts,
)
from .buffers import BufferKind, DropReason
from .configure import ConfigureArgs, configure
from .counts import DataCounts
from .definitions import build_tool_definitions
from .errors import (
    InvalidTelemetryArguments,
    MalformedBatch,
    SessionStoreError,
    SnapshotFormatError,
    SnapshotNotFound,
    TelemetryError,
)
from .generate import GenerateArgs, generate
from .models import TelemetryBatch
from .observe import ObserveArgs, observe
from .settings import BufferLimits, NoiseRule, RedactionSettings, TelemetrySettings
from .state import IngestReport, TelemetryState

__all__ = [
    "ANALYZE_MODES",
    "CONFIGURE_MODES",
    "GENERATE_MODES",
    "LIVE_MODES",
    "OBSERVE_MODES",
    "TELEMETRY_TOOLS",
    "AnalyzeArgs",
    "BufferKind",
    "BufferLimits",
    "ConfigureArgs",
    "DataCounts",
    "DropReason",
    "ExposureState",
    "GenerateArgs",
    "IngestReport",
    "InvalidTelemetryArguments",
    "MalformedBatch",
    "NoiseRule",
    "ObserveArgs",
    "RedactionSettings",
    "SessionStoreError",
    "SnapshotFormatError",
    "SnapshotInfo",
    "SnapshotNotFound",
    "SnapshotStore",
    "TelemetryBatch",
    "TelemetryError",
    "TelemetrySettings",
    "TelemetryState",
    "ToolAnswer",
    "analyze",
    "available_modes",
    "build_tool_definitions",
    "configure",
    "generate",
    "mode_counts",
    "observe",
]
