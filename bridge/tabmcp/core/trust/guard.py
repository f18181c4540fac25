"""The trust defences as the server's call path uses them: one object whose hooks run before a
call (:meth:`TrustGuard.gate`), on its result or error (:meth:`TrustGuard.result`,
:meth:`TrustGuard.page_error`) and in listings (:meth:`TrustGuard.mark_definition`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Protocol, cast

from ...errors import PageError
from ..lru import LRU
from ..registry import ToolEntry
from ..scoping import Decision
from ..stores import FlagTable, PinTable
from .gate import CUT_MARKER, PageSource, TextGate, definition_text
from .lockdown import Lockdown
from .pins import PinLimits, Pins, PinState, definition_of
from .results import META_TRUST, ResultSource, process_result
from .settings import TrustSettings
from .text import Listed, PageJson, Shown, ShownResult, relisted

__all__ = ["CHANGED_PREFIX", "ERROR_CHARS", "META_PIN", "TrustGuard"]

META_PIN = "tabmcp/pin"
ERROR_CHARS = 8_000
"""A page's error message (and, apart, its details as JSON) is cut here: an error is not a result."""
UNKNOWN_ORIGIN = "a web page"
CHANGED_PREFIX = "[changed since first seen; needs approval] "
_OBSERVED_MAX = 4_096


class TrustStoreLike(PinTable, FlagTable, Protocol):
    """What the guard keeps: pins and flags in one store (``tabmcp.storage.trust.TrustStore``)."""


class TrustGuard:
    """``store`` holds the pins and flags, unless ``pins`` (made already) brings them."""

    def __init__(
        self, settings: TrustSettings | None = None, store: TrustStoreLike | None = None, pins: Pins | None = None
    ) -> None:
        self.settings = settings or TrustSettings()
        found = pins.store if pins is not None else store
        if found is None:
            raise TypeError("TrustGuard needs a store (tabmcp.storage.trust.TrustStore) or pins")
        self.store = cast(TrustStoreLike, found)  # pins made by the core share the guard's store
        self.pins = pins or Pins(self.store, PinLimits.of(self.settings))
        self.lockdown = Lockdown(self.store)
        # (origin, name) -> the tool object last observed and its state: bounded, since a page
        # chooses the names (a miss asks the pins again), and dropped with the origin's pins
        self._observed: LRU[tuple[str, str], tuple[Any, PinState]] = LRU(_OBSERVED_MAX)
        self.pins.on_forget(self._forget_observed)

    def _forget_observed(self, origin: str) -> None:
        self._observed.drop_where(lambda k: k[0] == origin)

    # -- pins -----------------------------------------------------------------------------

    def observe(self, entry: ToolEntry) -> PinState:
        """The pin state of the tool's current definition (pinning it when first seen)."""
        if not self.settings.pin_definitions:
            return PinState("pinned")
        if not entry.tab.is_open:  # a closed site's stand-in shows the stored definition: read, never observed
            return self.pins.state(entry.tab.origin, entry.tool.name)
        key = (entry.tab.origin, entry.tool.name)
        seen = self._observed.get(key)
        if seen is not None and seen[0] is entry.tool and seen[1].status != "changed":
            return seen[1]  # the same definition object: nothing to compare
        tool = entry.tool
        state = self.pins.observe(
            entry.tab.origin,
            tool.name,
            definition_of(tool.title, tool.description, tool.input_schema, tool.annotations),
            entry.tab.url,
        )
        self._observed[key] = (tool, state)
        return state

    def mark_definition(self, entry: ToolEntry, definition: Listed) -> Listed:
        """A listed definition marked if it changed since it was pinned (its diff is of the page's
        definitions: cleaned as their listed text is); else the same one."""
        state = self.observe(entry)
        if not state.changed:
            return definition
        return relisted(definition, Shown(CHANGED_PREFIX + str(definition.get("description", ""))),
                        {META_PIN: {"status": "changed", "diff": definition_text(state.diff)}})

    @property
    def version(self) -> int:
        return self.pins.version

    def reload(self) -> None:
        """Another process accepted a definition or cleared the lockdown: drop what is remembered
        of the pins, so the next listing and call read them again."""
        self._observed.clear()
        self.pins.reload()

    # -- before and after a call ------------------------------------------------------------

    def gate(self, entry: ToolEntry, decision: Decision, *, as_write: bool = False) -> Decision:
        """The gate's decision, with the approvals the trust defences add (``as_write``: the call
        counts as a write whatever the tool says, as one that puts in a secret does)."""
        if not decision.visible or decision.code is not None:
            return decision
        base = [decision.reason] if decision.needs_approval and decision.reason else []
        extra: list[str] = []
        state = self.observe(entry)
        if state.changed:
            extra.append(
                f"Its definition changed since it was first seen on {entry.tab.origin} "
                f"(accept the change with: tabmcp trust accept {entry.tab.origin} {entry.tool.name}):\n{state.diff}"
            )
        if self.settings.lockdown and (as_write or not entry.tool.read_only):
            why = self.lockdown.reason()
            if why:
                extra.append(why)
        if not extra:
            return decision
        return dataclasses.replace(decision, needs_approval=True, reason="\n".join(base + extra))

    def result(self, entry: ToolEntry, result: PageJson) -> ShownResult:
        """The page's result as the agent may see it; a flagged one starts the lockdown."""
        return self._processed(result, ResultSource(
            origin=entry.tab.origin,
            url=entry.tab.url,
            tool=entry.public_name,
            untrusted_content=entry.tool.annotations.get("untrustedContentHint") is True,
        ))

    def page_content(self, origin: str, url: str, tool: str, result: PageJson) -> ShownResult:
        """What a built-in read from a live page (``query_dom``, ``observe(page)``): the page's own
        text, which may quote anyone (reviews, posts, emails), so it is untrusted content and
        gets the same cleaning, framing, scanning and lockdown as a page tool's result."""
        return self._processed(result, ResultSource(origin=origin, url=url, tool=tool, untrusted_content=True))

    def page_error(self, exc: PageError, origin: str = "", url: str = "", tool: str = "") -> PageError:
        """A page's failure as the agent may see it: a bridge-owned ``PAGE_ERROR`` whose page words
        (message, the page's code and details) went through the gate, framed as the page's; a
        flagged one starts the lockdown. Done once per error (a gated error is returned as it is)."""
        if exc.gated:
            return exc
        source = PageSource(origin=origin or UNKNOWN_ORIGIN, url=url, tool=tool)
        gate = TextGate(source, self.settings)
        page_code = exc.details.get("page_code")
        page_details = exc.details.get("page_details")
        ours = {k: v for k, v in exc.details.items() if k not in ("page_code", "page_details")}
        message = gate.field(exc.message, ERROR_CHARS, pool="error")
        code = gate.field(str(page_code), 200, pool="error") if page_code is not None else None
        details = gate.tree(page_details, pool="error") if page_details is not None else None
        gate.scan()
        words: list[str] = [message]
        if code is not None:
            words.append(f"(the page's own error code: {code})")
        if details is not None:
            dumped = json.dumps(details, ensure_ascii=False, default=str)
            if len(dumped) > ERROR_CHARS:
                dumped = dumped[:ERROR_CHARS] + " " + CUT_MARKER.format(removed=len(dumped) - ERROR_CHARS,
                                                                        total=len(dumped))
            words.append(f"(the page's details: {dumped})")
        gated = PageError(message, page_code=code, page_details=details, **ours)
        gated.gated, gated.tab_id = True, exc.tab_id
        what = f"{tool} on {source.origin}" if tool else source.origin
        gated.shown = Shown(f"{gated.code}: {what} failed; what the page said follows, as data.\n"
                            + gate.framed("\n".join(words)))
        trust = gate.trust_meta()
        self._flag(source, gate.flags, trust)
        gated.meta = {META_TRUST: trust}
        return gated

    def flag_answer(self, gate: TextGate, trust: dict[str, Any]) -> None:
        """A built-in's answer that carried page text through ``gate`` (``introspect``): a flag
        starts the lockdown, and ``trust`` (the answer's record of it) says so."""
        self._flag(gate.source, gate.flags, trust)

    def _processed(self, result: PageJson, source: ResultSource) -> ShownResult:
        processed = process_result(result, source, self.settings)
        self._flag(source, processed.flags, processed.result["_meta"][META_TRUST])
        return processed.result

    def _flag(self, source: PageSource, flags: list[str], trust: dict[str, Any]) -> None:
        """A flag starts the lockdown (and the answer's ``_meta`` says so)."""
        if flags and self.settings.lockdown:
            self.lockdown.flag(source.origin, source.tool, flags)
            trust["lockdown"] = True
