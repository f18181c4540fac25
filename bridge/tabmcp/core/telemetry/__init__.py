"""Telemetry core: what the browser recorded, kept bounded and redacted, served as tools.

Pure Python (no sockets, no asyncio, no browser); how the bridge wires it is in docs/telemetry.md.
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
