"""What the store holds, as plain numbers: the only input tools/list needs, apart from the store so
the availability rules can be tested and benchmarked with made-up counts."""

from __future__ import annotations

from ...capture.kinds import KINDS, BufferKind

__all__ = ["DataCounts"]


_BUFFERS = frozenset(k.buffer.value for k in KINDS)
_KNOWN = _BUFFERS | {"websocket_connections", "api_endpoints"}


class DataCounts:
    """Entries currently held, all tabs together: one count per capture kind's buffer, plus
    ``websocket_connections`` and ``api_endpoints`` (O(1), built on every tools/list)."""

    __slots__ = ("n", "total")

    def __init__(self, **counts: int) -> None:
        if "websocket_events" in counts:
            counts[BufferKind.WEBSOCKET.value] = counts.pop("websocket_events")
        if not counts.keys() <= _KNOWN:
            raise TypeError(f"DataCounts has no count named {', '.join(sorted(counts.keys() - _KNOWN))}")
        self.n: dict[str, int] = counts
        """Every count by name (a kind's buffer, or a derived one); absent is zero."""
        self.total: int = sum(n for name, n in counts.items() if name in _BUFFERS)
        """Buffered entries of every kind (connections and endpoints are derived, not counted)."""

    @classmethod
    def held(cls, buffered: dict[str, int], *, websocket_connections: int, api_endpoints: int) -> DataCounts:
        """The store's counts (``buffered``: by buffer name, every kind), unchecked: the fast path."""
        counts = cls.__new__(cls)
        counts.total = sum(buffered.values())
        buffered["websocket_connections"] = websocket_connections
        buffered["api_endpoints"] = api_endpoints
        counts.n = buffered
        return counts

    def of(self, name: str) -> int:
        """One buffer's count (a :class:`BufferKind` is its name), or a derived one."""
        return self.n.get(name, 0)

    @property
    def websocket_connections(self) -> int:
        return self.n.get("websocket_connections", 0)

    @property
    def api_endpoints(self) -> int:
        return self.n.get("api_endpoints", 0)

    def __getattr__(self, name: str) -> int:
        if name == "websocket_events":
            return self.of(BufferKind.WEBSOCKET)
        raise AttributeError(name)  # each kind's buffer is a property (set below)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataCounts) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.as_dict().items())))

    def __repr__(self) -> str:
        return f"DataCounts({', '.join(f'{k}={n}' for k, n in self.as_dict().items())})"

    def as_dict(self) -> dict[str, int]:
        """The counts that are not zero."""
        return {k: n for k, n in self.n.items() if n}

    def to_dict(self) -> dict[str, int]:
        """Every count, zeros too: one per kind's buffer, then the derived ones."""
        return {name: self.of(name) for name in (*(k.buffer.value for k in KINDS), "websocket_connections",
                                                   "api_endpoints")}


def _count_property(name: str) -> property:
    return property(lambda self: self.n.get(name, 0), doc=f"Entries in the {name} buffer.")


for _name in _BUFFERS:  # counts.logs, counts.errors...: one attribute per kind's buffer, read on every tools/list
    setattr(DataCounts, _name, _count_property(_name))
