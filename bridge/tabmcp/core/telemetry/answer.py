"""The one result shape of every telemetry tool, and the helpers that validate their arguments.

"No data yet" is an ordinary answer with a hint, never an error: a mode called without data
explains itself rather than failing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..trust.text import Captured, PageJson
from .errors import InvalidTelemetryArguments

__all__ = ["ToolAnswer", "fmt_time", "iso_time", "parse_args"]

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, init=False)
class ToolAnswer:
    """A telemetry tool's answer: readable ``text`` (many clients show only that), the same as
    ``data`` for ``structuredContent``, and ``empty`` when the scope had no data.

    Both are page text (:data:`Captured`, :data:`PageJson`), so they reach the agent only through
    :meth:`to_call_result` and the gate.
    """

    text: Captured
    data: PageJson
    empty: bool

    def __init__(self, text: str, data: dict[str, Any] | None = None, empty: bool = False) -> None:
        object.__setattr__(self, "text", Captured(text))
        object.__setattr__(self, "data", PageJson({} if data is None else data))
        object.__setattr__(self, "empty", empty)

    def to_call_result(self) -> PageJson:
        """The MCP ``CallToolResult`` body (never ``isError``: errors are raised instead). Built of
        what pages captured (console output, errors, bodies, URLs): page text, shown only through the gate."""
        return PageJson({"content": [{"type": "text", "text": self.text}], "structuredContent": self.data})


def parse_args(model: type[M], arguments: Mapping[str, Any] | None) -> M:
    """Validate tool arguments, turning pydantic's error into :class:`InvalidTelemetryArguments`
    (with ``field`` and ``expected`` details)."""
    try:
        return model.model_validate(dict(arguments or {}))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        msg = err["msg"].removeprefix("Value error, ")
        raise InvalidTelemetryArguments(
            f"{where}: {msg}", field=where, input=_short(err.get("input"))
        ) from None


def _short(value: Any) -> Any:
    text = repr(value)
    return value if len(text) <= 200 else text[:200] + "…"


def iso_time(ms: float) -> str:
    """Epoch milliseconds as ISO 8601 UTC with milliseconds (HAR, SARIF, summaries)."""
    return (
        datetime.fromtimestamp(ms / 1000.0, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def fmt_time(ms: float) -> str:
    """Epoch milliseconds as ``HH:MM:SS.mmm`` UTC, for compact text listings."""
    return datetime.fromtimestamp(ms / 1000.0, tz=UTC).strftime("%H:%M:%S.%f")[:-3]
