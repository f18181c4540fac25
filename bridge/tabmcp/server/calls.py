"""Requests to the pages: a tool call, the person's approval, a live page query, each sent to the
browser that owns the tab and awaited (one job: start it in the session, wait on the hub).

The composition root (tabmcp/wiring.py) builds one and hands out its methods as
``BridgeCore.call_tool``, ``request_approval`` and ``page_query`` (the :class:`tabmcp.core.tools.Bridge` facade).
"""

from __future__ import annotations

import time
from typing import Any

from ..config import Config
from ..core.extension_links import ExtensionLinks
from ..core.registry import Registry, ToolEntry
from ..core.trust.gate import definition_text, for_person
from ..core.trust.text import PageJson, PageValue
from ..errors import ToolCallError
from ..storage.database import UsageStore
from .hub import Hub
from .trace import TRACE

__all__ = ["PageRequests"]


class PageRequests:
    """Calls, approvals and page queries of one bridge."""

    def __init__(self, config: Config, registry: Registry, session: ExtensionLinks, hub: Hub, usage: UsageStore) -> None:
        self.config = config
        self.registry = registry
        self.session = session
        self.hub = hub
        self.usage = usage

    async def call_tool(
        self,
        entry: ToolEntry,
        arguments: dict[str, Any],
        *,
        timeout_s: float | None = None,
        client_id: str | None = None,
    ) -> PageJson:
        """Run a page tool in its tab and return the page's CallToolResult (page text: only the gate shows it).

        Raises:
            ToolCallError: a named failure (timeout, tab closed, navigation, disconnect,
                cancellation, or the page's own error).
        """
        trace = TRACE.get() if self.hub.trace else None
        call_trace = None
        if trace is not None:
            trace.append(("bridge.core", time.time_ns() / 1e6))
            call_trace = list(trace)
        call = self.session.start_call(
            tab_id=entry.tab.tab_id,
            document_id=entry.tab.document_id,
            frame_id=entry.tab.frame_id,
            page_tool=entry.tool.call_name,
            public_name=entry.public_name,
            arguments=entry.tool.page_arguments(arguments),
            timeout_s=timeout_s if timeout_s is not None else self.config.calls.timeout_s,
            client_id=client_id,
            source="form" if entry.tool.page_form else None,
            trace=call_trace,
        )
        try:
            result: PageJson = await self.hub.wait(call, traced=trace is not None)
        finally:
            if trace is not None:
                back = self.hub.trace_of(call.request_id)
                if back is not None:  # what was sent, the local stamps since ("bridge.sent"), the hops'
                    sent = len(call_trace or ())
                    trace[:] = [*back[:sent], *trace[sent:], *back[sent:]]
                trace.append(("bridge.resumed", time.time_ns() / 1e6))
        self.usage.record(entry.tab.origin, entry.tool.name)
        return result

    async def request_approval(
        self, entry: ToolEntry, arguments: dict[str, Any], reason: str, timeout_s: float, *,
        may_give_up: bool = False,
    ) -> tuple[bool, str]:
        """Ask the person at the tab (in its browser) to allow a call; ``(approved, why)``. Never raises.
        ``may_give_up``: nothing keeps the agent's client waiting (the window says so)."""
        try:
            approval = self.session.start_approval(
                tab_id=entry.tab.tab_id,
                document_id=entry.tab.document_id,
                origin=entry.tab.origin,
                frame_id=entry.tab.frame_id,
                tool_name=entry.tool.name,
                tool=entry.public_name,
                title=definition_text(entry.tool.title or entry.tool.name),
                description=definition_text(entry.tool.description),
                arguments=arguments,
                reason=for_person(reason),  # a changed definition's diff quotes the page
                timeout_s=timeout_s,
                may_give_up=may_give_up,
            )
            answer: tuple[bool, str] = await self.hub.wait(approval)
        except ToolCallError as exc:
            return False, exc.message
        return answer

    async def page_query(
        self, tab_id: int, kind: str, args: dict[str, Any] | None = None, timeout_s: float = 15.0
    ) -> PageValue:
        """Ask a tab's page something live (``dom``, ``page``, ``axe``, ``vitals``); its answer.

        Raises:
            ToolCallError: the tab closed or navigated, the extension went away, the page did
                not answer in time, or reported an error (``details`` name the tab).
        """
        tab = self.registry.tab(tab_id)
        query = self.session.start_query(
            tab_id=tab_id,
            document_id=tab.document_id if tab else None,
            kind=kind,
            args=args or {},
            timeout_s=timeout_s,
        )
        answer: PageValue = await self.hub.wait(query)
        return answer
