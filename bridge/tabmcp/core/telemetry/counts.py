"""What the store holds, as plain numbers: the only input tools/list needs.

Kept apart from the store so the availability rules and the tool-definition builder can be
tested (and benchmarked) with made-up counts, no store at all.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...capture.kinds import KINDS, BufferKind

__all__ = ["DataCounts"]


class DataCounts:
    """Entries currently held, all tabs together (read in O(1) from maintained counters).

    One count per capture kind's buffer (``DataCounts(logs=5)``, ``counts.of(BufferKind.LOGS)``,
    ``counts.logs``), and two derived ones: ``websocket_connections`` and ``api_endpoints``.
    ``websocket_events`` is the ``websocket`` buffer's count.
    """

    __slots__ = ("_n",)
    DERIVED = ("websocket_connections", "api_endpoints")

    def __init__(self, **counts: int) -> None:
        if "websocket_events" in counts:
            counts[BufferKind.WEBSOCKET.value] = counts.pop("websocket_events")
        unknown = set(counts) - {k.buffer.value for k in KINDS} - set(self.DERIVED)
        if unknown:
            raise TypeError(f"DataCounts has no count named {', '.join(sorted(unknown))}")
        self._n: Mapping[str, int] = counts

    def of(self, name: BufferKind | str) -> int:
        """One buffer's count (or a derived one)."""
        return self._n.get(str(name), 0)

    def __getattr__(self, name: str) -> int:
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "websocket_events":
            return self.of(BufferKind.WEBSOCKET)
        if name in self.DERIVED or name in BufferKind._value2member_map_:
            return self.of(name)
        raise AttributeError(name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataCounts) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.as_dict().items())))

    def __repr__(self) -> str:
        return f"DataCounts({', '.join(f'{k}={n}' for k, n in self.as_dict().items())})"

    def as_dict(self) -> dict[str, int]:
        """The counts that are not zero."""
        return {k: n for k, n in self._n.items() if n}

    def to_dict(self) -> dict[str, int]:
        """Every count, zeros too: one per kind's buffer, then the derived ones."""
        return {name: self.of(name) for name in (*(k.buffer.value for k in KINDS), *self.DERIVED)}

    @property
    def total(self) -> int:
        """Buffered entries of every kind (connections and endpoints are derived, not counted)."""
        return sum(self.of(k.buffer) for k in KINDS)
