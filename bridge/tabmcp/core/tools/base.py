"""What a built-in tool is, and what it may use: the bridge facade and one request's context.

Handlers do no I/O of their own: anything that leaves the process goes through the
:class:`ToolContext`, so a test context can drive them.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..trust.text import PageJson, PageValue, ShownResult

if TYPE_CHECKING:
    from ..disclosure import ClientView, Disclosure
    from ..reachable_sites import Sites
    from ..registry import Registry, ToolEntry
    from ..scoping import PolicyCheck
    from ..search import SearchIndex
    from ..secrets import Secrets
    from ..stalls import StallMeter
    from ..switches import PersonSwitches
    from ..telemetry import SnapshotStore, TelemetryState
    from ..trust.guard import TrustGuard

__all__ = ["META_BUILTIN", "Bridge", "BuiltinTool", "Handler", "ToolContext", "listed_schema", "text"]

META_BUILTIN = "tabmcp/builtin"


class Bridge(Protocol):
    """The facade the MCP layer and the built-in tools see (the bridge core, tabmcp/wiring.py, implements it)."""

    registry: Registry
    disclosure: Disclosure
    policy_check: PolicyCheck
    telemetry: TelemetryState
    sessions: SnapshotStore
    sites: Sites
    controls: PersonSwitches
    """The person's switches (pause, writes, origins off); agents read their effect, never set them."""
    stalls: StallMeter
    """Charges a page's work on the event loop to its origin (``with stalls.work(origin):``)."""
    secrets: Secrets
    """Secrets by name: put into a call at the last moment, masked in every answer (core/secrets.py)."""

    @property
    def search(self) -> SearchIndex: ...

    @property
    def search_as_is(self) -> SearchIndex:
        """The index without bringing it up to date (what reads no page's tools: learning from a call)."""
        ...

    def status(self) -> dict[str, Any]: ...

    def focused_tab(self) -> int | None: ...

    def sync_controls(self) -> None:
        """Pick up switches another process (``tabmcp controls``) set since the last look."""

    def page_config_changed(self) -> None:
        """The telemetry settings may have changed; pages get the new capture config."""

    async def page_query(
        self, tab_id: int, kind: str, args: dict[str, Any] | None = None, timeout_s: float = 15.0
    ) -> PageValue: ...

    async def open_site(self, url: str, *, tool: str = "", timeout_s: float | None = None,
                        focus: bool = False) -> int:
        """Open a reachable site's URL in a background agent tab; the tab's id once ``tool`` is
        registered there (``""``: once registration settled)."""

    async def call_tool(
        self, entry: ToolEntry, arguments: dict[str, Any], *, timeout_s: float | None = None,
        client_id: str | None = None,
    ) -> PageJson: ...


class ToolContext(Protocol):
    """One tools/call request, as a built-in tool sees it."""

    bridge: Bridge
    view: ClientView
    """The disclosure state of the client that called."""
    trust: TrustGuard
    """The trust defences: before a page tool runs (:meth:`TrustGuard.gate`) and on its result."""

    async def notify_changed(self, *, expanded: str | None = None) -> None:
        """Tell this client its own tools/list changed (it opened ``expanded``, or tools appeared)."""

    async def approve(
        self, entry: ToolEntry, arguments: dict[str, Any], *, reason: str = ""
    ) -> dict[str, Any] | None:
        """Ask for approval of a page tool (``reason``: why it needs it): ``None`` when approved,
        a result to return instead (2026-07-28 ``input_required``), or raise ``ApprovalDenied``."""

    async def offload(self, fn: Callable[[], Any]) -> Any:
        """Run slow CPU work (embedding a query) away from the event loop."""


Handler = Callable[["ToolContext", dict[str, Any]], Awaitable[ShownResult]]
"""A built-in's handler: its answer is a :data:`ShownResult` (the gate's, or :data:`Shown` texts), so
strict mypy refuses a handler that hands the agent a page's value past the gate."""


@dataclass(frozen=True)
class BuiltinTool:
    """A tool of the bridge's own: definition beside handler.

    ``definition`` is ``None`` for the telemetry tools (built per client); ``schema`` is what
    arguments are checked against (default: the definition's; ``None``: the handler checks).
    """

    name: str
    handler: Handler
    definition: dict[str, Any] | None = None
    schema: dict[str, Any] | None = None

    @property
    def input_schema(self) -> dict[str, Any] | None:
        if self.schema is not None:
            return self.schema
        return self.definition["inputSchema"] if self.definition else None

    def listed(self) -> dict[str, Any]:
        """A copy of the static definition with our ``_meta`` marker."""
        assert self.definition is not None, f"{self.name} has no static definition"
        tool = copy.deepcopy(self.definition)
        tool["_meta"] = {META_BUILTIN: True}
        return tool


_CHECK_ONLY = frozenset({"minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength"})


def listed_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The form of a built-in's input schema that tools/list shows: ``schema`` less what only the check needs.

    Every client pays for a listed definition in every session; the full ``schema`` still checks arguments.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _CHECK_ONLY or (key == "additionalProperties" and value is False):
            continue
        if key == "properties" and value == {}:
            continue
        if key == "properties" and isinstance(value, dict):
            value = {k: listed_schema(v) if isinstance(v, dict) else v for k, v in value.items()}
        elif key == "items" and isinstance(value, dict):
            value = listed_schema(value)
        out[key] = value
    return out


def text(value: str) -> dict[str, Any]:
    """One text content block."""
    return {"type": "text", "text": value}
