"""Pinned tool definitions: the first definition seen per origin + tool is the one trusted, so a
tool that later says more ("... and share the contact with our partners") needs approval again.

Behaviour and bounds: docs/security.md ("Pinned definitions", "A page churning tool names");
expiry of never-trusted origins' pins is :mod:`.retention`'s job.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..lru import LRU
from ..stores import PinTable

__all__ = ["PinLimits", "PinRecord", "PinState", "Pins", "definition_of"]

Status = Literal["new", "pinned", "changed"]
_TOUCH_EVERY_S = 60.0
_SEEN_MAX = 20_000
"""Last-seen digests kept in memory (a miss reads the row)."""


@dataclass(frozen=True)
class PinLimits:
    """How much state the pins hold for what pages register (``[trust]`` in the config)."""

    per_origin: int = 1_000
    """Pins of one origin, the person's kept ones included."""
    transient_total: int = 20_000
    """Pins of all origins the person never trusted together (:meth:`Pins.cap_transient`)."""
    grace_s: float = 86_400.0
    """A never-trusted origin's pins outlive its last open tab by this long (:mod:`.retention`)."""

    @classmethod
    def of(cls, settings: Any) -> PinLimits:
        """The limits of a ``[trust]`` section (:class:`~tabmcp.core.trust.settings.TrustSettings`)."""
        return cls(settings.pins_per_origin, settings.transient_pins, settings.transient_grace_s)


def definition_of(
    title: str | None, description: str, input_schema: dict[str, Any], annotations: dict[str, Any]
) -> dict[str, Any]:
    """The parts of a tool definition that are pinned."""
    return {
        "title": title,
        "description": description,
        "inputSchema": input_schema,
        "annotations": annotations,
    }


def _canon(definition: dict[str, Any]) -> str:
    return json.dumps(definition, sort_keys=True, ensure_ascii=False, default=str)


def _hash(definition: dict[str, Any]) -> str:
    return hashlib.sha256(_canon(definition).encode()).hexdigest()


def diff_definitions(old: dict[str, Any], new: dict[str, Any]) -> str:
    """A unified diff of two definitions (pretty JSON, keys sorted)."""
    a = json.dumps(old, sort_keys=True, indent=1, ensure_ascii=False, default=str).splitlines()
    b = json.dumps(new, sort_keys=True, indent=1, ensure_ascii=False, default=str).splitlines()
    return "\n".join(difflib.unified_diff(a, b, "pinned", "now", lineterm="", n=1))


@dataclass(frozen=True)
class PinState:
    """What :meth:`Pins.observe` found."""

    status: Status
    diff: str = ""

    @property
    def changed(self) -> bool:
        return self.status == "changed"


@dataclass(frozen=True)
class PinRecord:
    origin: str
    name: str
    status: str
    pinned: dict[str, Any]
    current: dict[str, Any]
    document_url: str
    first_seen: float
    last_seen: float
    changed_at: float | None

    @property
    def diff(self) -> str:
        return diff_definitions(self.pinned, self.current) if self.status == "changed" else ""


def _record(row: tuple[Any, ...]) -> PinRecord:
    o, n, st, p, c, url, first, last, changed = row
    return PinRecord(
        str(o),
        str(n),
        str(st),
        json.loads(p),
        json.loads(c),
        str(url),
        float(first),
        float(last),
        None if changed is None else float(changed),
    )


class Pins:
    """The pins of one store (``tabmcp.storage.trust.TrustStore``); ``trusted`` says whether the
    person allowed an origin (the bridge wires it to the sites' permissions)."""

    def __init__(
        self, store: PinTable, limits: PinLimits | None = None, trusted: Callable[[str], bool] | None = None
    ) -> None:
        self.store = store
        self.limits = limits or PinLimits()
        self.trusted: Callable[[str], bool] = trusted or (lambda _origin: False)
        self.version = 0
        """Goes up whenever a tool's pin status changes (listing caches key on it)."""
        self.evicted = 0
        """Pins evicted by the caps since this object was made (tests and the churn bench read it)."""
        self._forget_listeners: list[Callable[[str], None]] = []
        # (origin, name) -> (hash seen last, status, last written last_seen)
        self._seen: LRU[tuple[str, str], tuple[str, str, float]] = LRU(_SEEN_MAX)

    def observe(self, origin: str, name: str, definition: dict[str, Any], document_url: str = "") -> PinState:
        """Record that ``origin`` offers ``name`` with ``definition`` now; pin it if it is the first."""
        key = (origin, name)
        digest = _hash(definition)
        now = time.time()
        seen = self._seen.get(key)
        if seen is not None and seen[0] == digest and seen[1] == "pinned":
            if now - seen[2] > _TOUCH_EVERY_S:
                with self.store.lock:
                    self.store.touch_pin(origin, name, now, document_url)
                self._seen[key] = (digest, "pinned", now)
            return PinState("pinned")
        canon = _canon(definition)
        with self.store.lock:
            row = self.store.pin_row(origin, name)
            if row is None and not self._room_for(origin):
                return PinState("new")  # a trusted origin at its cap: nothing of it is pushed out
            if row is None:
                self.store.insert_pin(origin, name, digest, canon, document_url, now)
                state = PinState("new")
                status = "pinned"
            else:
                pinned_hash, pinned_def, current_hash, old_status = row
                if digest == pinned_hash:
                    self.store.repin(origin, name, now, document_url)
                    state, status = PinState("pinned"), "pinned"
                else:
                    since_now = not (current_hash == digest and old_status == "changed")
                    self.store.mark_pin_changed(origin, name, digest, canon, now, document_url, since_now=since_now)
                    state = PinState("changed", diff_definitions(json.loads(pinned_def), definition))
                    status = "changed"
                if status != old_status:
                    self.version += 1
        self._seen[key] = (digest, status, now)
        return state

    def state(self, origin: str, name: str) -> PinState:
        """The stored pin state of a tool, read only (for a closed site's tool: nothing is observed)."""
        record = self.get(origin, name)
        if record is None:
            return PinState("new")
        return PinState("changed", record.diff) if record.status == "changed" else PinState("pinned")

    def forget_cached(self, origin: str) -> None:
        """Drop what this object and its listeners remember of ``origin`` (its rows were deleted)."""
        self._seen.drop_where(lambda k: k[0] == origin)
        for listener in list(self._forget_listeners):
            listener(origin)
        self.version += 1

    def on_forget(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(origin)`` whenever an origin's pins were deleted (memos of it must go)."""
        self._forget_listeners.append(listener)

    # -- bounds ------------------------------------------------------------------------------

    def is_trusted(self, origin: str) -> bool:
        """Did the person trust ``origin``: allowed it as a site, or kept one of its pins?"""
        if self.trusted(origin):
            return True
        with self.store.lock:
            return self.store.has_kept(origin)

    def _room_for(self, origin: str) -> bool:
        """Make room for one more pin of ``origin`` (called under the lock); False: none is made."""
        count = self.store.pin_count(origin)
        if count < self.limits.per_origin:
            return True
        if self.trusted(origin) or self.store.has_kept(origin):
            return False  # the person trusts it: a churning page cannot push out what they rely on
        victims = self.store.evictable(origin, count - self.limits.per_origin + 1)
        self.store.delete_pins([(origin, n) for n in victims])
        for name in victims:
            self._seen.pop((origin, name))
        self.evicted += len(victims)
        return bool(victims)

    def keep(self, origin: str, name: str) -> bool:
        """The person approved a call of this tool: its pin is kept (never evicted, never expired)."""
        with self.store.lock:
            return self.store.keep(origin, name)

    def origins(self) -> dict[str, tuple[int, float]]:
        """Every origin with pins: (how many, when one was last seen)."""
        with self.store.lock:
            return self.store.pin_origins()

    def drop(self, origin: str) -> int:
        """Delete the pins of ``origin`` the person did not keep (it expired); how many."""
        with self.store.lock:
            dropped = self.store.drop_unkept(origin)
        if dropped:
            self.forget_cached(origin)
        return dropped

    def cap_transient(self, keep_origins: frozenset[str] | set[str] = frozenset()) -> int:
        """Hold the pins of never-trusted origins to ``limits.transient_total`` together: the
        least recently seen go first. ``keep_origins`` are spared (trusted ones, found here
        too). Returns how many were evicted."""
        counts = self.origins()
        transient = {o for o in counts if o not in keep_origins and not self.is_trusted(o)}
        excess = sum(counts[o][0] for o in transient) - self.limits.transient_total
        if excess <= 0:
            return 0
        victims: list[tuple[str, str]] = []
        with self.store.lock:
            for origin, name in self.store.evictable_all():
                if origin in transient:
                    victims.append((origin, name))
                    if len(victims) >= excess:
                        break
            self.store.delete_pins(victims)
        for key in victims:
            self._seen.pop(key)
        for origin in {o for o, _ in victims}:
            self.forget_cached(origin)
        self.evicted += len(victims)
        return len(victims)

    def accept(self, origin: str, name: str) -> bool:
        """Pin the tool's current definition (the person accepted the change); False if nothing was changed."""
        with self.store.lock:
            accepted = self.store.accept(origin, name)
        self._seen.pop((origin, name))
        if accepted:
            self.version += 1
        return accepted

    def reload(self) -> None:
        """Another process changed the pins (accepted a definition, forgot a site): forget what
        this object remembers of them and move :attr:`version` (listings are built again)."""
        self._seen.clear()
        self.version += 1

    def get(self, origin: str, name: str) -> PinRecord | None:
        with self.store.lock:
            rows = self.store.pin_rows(origin, name)
        return _record(rows[0]) if rows else None

    def records(self, *, changed_only: bool = False, origin: str | None = None) -> list[PinRecord]:
        with self.store.lock:
            rows = self.store.pin_rows(origin, changed_only=changed_only)
        return [_record(r) for r in rows]
