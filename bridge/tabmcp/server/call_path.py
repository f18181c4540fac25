"""One tools/call as every MCP path runs it: the activity row around the core's call path, a
failure as the agent sees it, and in debug mode the hop stamps.

The SDK's tools/call handler (:mod:`.mcp`) calls :meth:`CallPath.run`, on every transport.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from ..core import activity, tools
from ..core.secrets import Mask
from ..core.tools import ToolContext
from ..core.trust.guard import TrustGuard
from ..core.trust.text import ShownResult, amended, ours, shown_result
from ..errors import ErrorCode, InternalError, PageError, ToolCallError
from .trace import TRACE

if TYPE_CHECKING:  # the facade the call path reads: the composition root (tabmcp/wiring.py)
    from ..wiring import BridgeCore

__all__ = ["META_TRACE", "CallPath", "error_result"]

log = logging.getLogger("tabmcp.mcp")

META_TRACE = "tabmcp/trace"
"""Debug mode (``TABMCP_TRACE=1`` in the bridge's environment): a tools/call whose request
``_meta`` has this key true gets ``[[hop, epoch ms], ...]`` under it in its result's ``_meta``."""


def error_result(exc: ToolCallError) -> ShownResult:
    """A failed call as the agent sees it: ``isError`` with a structured body (a page's words as the
    trust gate framed them, :meth:`tabmcp.core.trust.guard.TrustGuard.page_error`).

    Raises:
        TypeError: ``exc`` is a page's error that did not go through the gate (a bug: never shown).
    """
    if isinstance(exc, PageError) and not exc.gated:
        raise TypeError("a page's error reaches the agent only through the gate (TrustGuard.page_error)")
    body = exc.to_dict()
    shown = exc.shown
    if shown is None:
        shown = ours(f"{exc.code}: {exc.message}\n{json.dumps(body, default=str)}")
    return amended(shown_result([shown], {"error": body}, meta=exc.meta or None), is_error=True)


class CallPath:
    """The call path of one bridge: what the tools/call handler runs."""

    def __init__(self, core: BridgeCore) -> None:
        self.core = core
        self.trust: TrustGuard = core.trust

    async def run(
        self,
        rctx: ToolContext,
        name: str,
        arguments: dict[str, Any],
        client: str,
        *,
        modern: bool,
        traced: bool = False,
        arrived: float | None = None,
    ) -> ShownResult:
        """One tools/call: the activity row, the call path, and in debug mode the hop stamps."""
        if traced and self.core.trace:
            # Debug mode, and the client asked: hop timestamps, returned in the result's _meta.
            trace = [("transport.in", arrived)] if arrived is not None else []
            trace.append(("bridge.handler", time.time_ns() / 1e6))
            token = TRACE.set(trace)
            try:
                result = await self._run(rctx, name, arguments, client)
            finally:
                TRACE.reset(token)
            trace.append(("bridge.result", time.time_ns() / 1e6))
            result = amended(result, meta={META_TRACE: [[hop, at] for hop, at in trace]})
        else:
            result = await self._run(rctx, name, arguments, client)
        if modern:  # 2026-07-28 results carry a type
            result = amended(result, result_type="complete")
        return result

    async def _run(self, rctx: ToolContext, name: str, arguments: dict[str, Any], client: str) -> ShownResult:
        await self.core.settle()
        target = activity.target_of(self.core.registry, name, arguments, self.core.focused_tab)
        pending = self.core.activity.begin(target, client) if target is not None else None
        try:
            result = await tools.run(rctx, name, arguments)
        except ToolCallError as exc:
            log.info("call %s failed: %s %.200s", name, exc.code, self._mask(target).text(exc.message))
            if isinstance(exc, PageError):  # a page's words, whichever path they came by: through the gate
                exc = self._page_error(exc, name, arguments)
            result = error_result(exc)
        except Exception as exc:  # a bug on the call path: logged with its traceback, answered by name
            log.exception("call %s failed unexpectedly", name)
            result = error_result(InternalError(
                f"the bridge failed on this call ({type(exc).__name__}); its log has the details", tool=name))
        except BaseException as exc:  # the client cancelled (or the task is torn down): the log still gets the row
            if pending is not None:
                cancelled = isinstance(exc, asyncio.CancelledError)
                self.core.activity.end(pending, None, defer=True,
                                      outcome=ErrorCode.CANCELLED if cancelled else ErrorCode.INTERNAL_ERROR)
            raise
        result = self._mask(target).apply(result)  # no secret's value reaches an agent or the log (core/secrets.py)
        if pending is not None:  # the activity log: every call that reaches a page
            self.core.activity.end(pending, result, defer=True)  # summarised when its batch is written
        return result

    def _mask(self, target: activity.Target | None) -> Mask:
        """The answer's mask (:meth:`tabmcp.core.secrets.Secrets.mask_for`): a page tool's answer masks
        its tab's origins' secrets; any other answer masks every bound secret, since its strings' pages are unknown."""
        if target is None or target.tool in activity.PAGE_BUILTINS:
            return self.core.secrets.mask_for(None)
        tab = self.core.registry.tab(target.tab_id) if target.tab_id is not None else None
        if tab is None or not tab.frames:
            return self.core.secrets.mask_for((target.origin,) if tab is None else (target.origin, tab.origin))
        return self.core.secrets.mask_for((target.origin, *(d.origin for d in tab.documents())))

    def _page_error(self, exc: PageError, name: str, arguments: dict[str, Any]) -> PageError:
        tab = self.core.registry.tab(exc.tab_id) if exc.tab_id is not None else None
        tool = str(arguments.get("name")) if name == "call_tool" and arguments.get("name") else name
        return self.trust.page_error(exc, tab.origin if tab else "", tab.url if tab else "", tool)
