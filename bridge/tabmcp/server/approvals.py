"""Ask a human before a tool that needs approval runs.

Through the client's elicitation where it can show a form (a signed, stateless
``InputRequiredResult`` on 2026-07-28), else in the extension's window. One deadline
(``policy.approval.timeout_s``) bounds every way; a decline, a timeout or nobody to ask is
``APPROVAL_DENIED``, and a late answer never runs the tool (docs/security.md §4).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from typing import TYPE_CHECKING, Any, Literal

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from ..core.progress import PHASE, doing
from ..core.registry import ToolEntry
from ..core.scoping import ApprovalSettings
from ..errors import ApprovalDenied

if TYPE_CHECKING:
    from ..wiring import BridgeCore

__all__ = ["APPROVAL_KEY", "Approvals"]

APPROVAL_KEY = "tabmcp.approval"
_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def _fingerprint(entry: ToolEntry, arguments: dict[str, Any]) -> str:
    canon = json.dumps({"tool": entry.public_name, "tab": entry.tab.tab_id, "args": arguments}, sort_keys=True)
    return hashlib.sha256(canon.encode()).hexdigest()


class Approvals:
    def __init__(self, core: BridgeCore, settings: ApprovalSettings) -> None:
        self.core = core
        self.settings = settings
        self._secret = secrets.token_bytes(32)
        self.asked = {"elicitation": 0, "input_required": 0, "browser": 0}

    # -- signed request state (2026-07-28 multi-round-trip) ----------------------------------

    def _sign(self, fingerprint: str) -> str:
        payload = json.dumps({"fp": fingerprint, "exp": time.time() + self.settings.timeout_s}).encode()
        mac = hmac.new(self._secret, payload, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(payload).decode() + "." + base64.urlsafe_b64encode(mac).decode()

    def _verify(self, state: str | None, fingerprint: str) -> Literal["valid", "expired", "invalid"]:
        """Whether ``state`` is ours for this call: ``expired`` once the approval deadline passed
        (the answer came too late: a timeout, never a new question)."""
        if not state or "." not in state:
            return "invalid"
        try:
            raw_payload, raw_mac = state.split(".", 1)
            payload = base64.urlsafe_b64decode(raw_payload)
            mac = base64.urlsafe_b64decode(raw_mac)
            data = json.loads(payload)
            expires = float(data.get("exp", 0))
        except (ValueError, TypeError, AttributeError):  # JSONDecodeError is a ValueError
            return "invalid"
        if not hmac.compare_digest(mac, hmac.new(self._secret, payload, hashlib.sha256).digest()):
            return "invalid"
        if data.get("fp") != fingerprint:
            return "invalid"
        return "valid" if expires > time.time() else "expired"

    # -- the decision --------------------------------------------------------------------

    def _message(self, entry: ToolEntry, arguments: dict[str, Any], reason: str) -> str:
        """The question, naming the origin that owns the tool: a frame's own origin for a frame's
        tool, and the page it sits in (never the top page's origin as if the tool were its)."""
        args = json.dumps(arguments, ensure_ascii=False)
        if len(args) > 500:
            args = args[:499] + "…"
        where = entry.tab.origin
        top = self.core.registry.tab(entry.tab.tab_id) if entry.tab.frame_id else None
        if top is not None and top.origin != entry.tab.origin:
            where += f", in a frame of {top.origin}"
        return (
            # not the tab's title: the page's own text, which would speak to the person unframed
            f"Allow the agent to run {entry.public_name} on {where}?\n"
            f"{reason}\nArguments: {args}"
        )

    async def check(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        entry: ToolEntry,
        arguments: dict[str, Any],
        *,
        modern: bool,
        reason: str = "",
    ) -> dict[str, Any] | None:
        """Return ``None`` when approved, an ``InputRequiredResult`` dict to send back, or raise.

        An approval keeps the tool's pin from then on (docs/security.md §7).

        Raises:
            ApprovalDenied: declined, cancelled, timed out, or nobody could be asked.
        """
        answer = await self._ask(ctx, params, entry, arguments, modern=modern, reason=reason)
        if answer is None:
            self.core.pins.keep(entry.tab.origin, entry.tool.name)
        return answer

    async def _ask(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        entry: ToolEntry,
        arguments: dict[str, Any],
        *,
        modern: bool,
        reason: str = "",
    ) -> dict[str, Any] | None:
        mode = self.settings.mode
        reason = reason or ("The page marks this tool as needing approval." if not entry.tool.destructive else (
            "This tool is destructive."
        ))
        caps = ctx.session.client_capabilities
        can_elicit = caps is not None and caps.elicitation is not None
        if mode in ("auto", "elicitation") and can_elicit:
            message = self._message(entry, arguments, reason)
            if modern:
                fingerprint = _fingerprint(entry, arguments)
                responses = params.input_responses or {}
                answer = responses.get(APPROVAL_KEY)
                verdict = self._verify(params.request_state, fingerprint) if answer is not None else "invalid"
                if verdict == "expired":
                    raise ApprovalDenied(
                        f"{entry.public_name} was not approved: the answer came after the "
                        f"{self.settings.timeout_s:g}s approval deadline", channel="elicitation", timed_out=True,
                    )
                if verdict == "valid":
                    if isinstance(answer, types.ElicitResult) and answer.action == "accept":
                        return None
                    raise ApprovalDenied(
                        f"the user declined {entry.public_name}", channel="elicitation",
                        action=getattr(answer, "action", None),
                    )
                self.asked["input_required"] += 1
                request = types.ElicitRequest(
                    params=types.ElicitRequestFormParams(message=message, requested_schema=_SCHEMA)
                )
                return {
                    "resultType": "input_required",
                    "inputRequests": {APPROVAL_KEY: request.model_dump(by_alias=True, mode="json", exclude_none=True)},
                    "requestState": self._sign(fingerprint),
                }
            self.asked["elicitation"] += 1
            try:
                with doing(f"waiting for the person to approve {entry.public_name} in the client"), \
                        anyio.fail_after(self.settings.timeout_s):
                    result = await ctx.session.elicit_form(message, _SCHEMA, related_request_id=ctx.request_id)
            except TimeoutError as exc:  # withdrawn at the deadline: an answer after it runs nothing
                raise ApprovalDenied(
                    f"{entry.public_name} was not approved: nobody answered within {self.settings.timeout_s:g}s"
                    f"{self._no_progress_note()}", channel="elicitation", timed_out=True,
                ) from exc
            except MCPError as exc:  # the client could not ask (its elicitation failed): nobody said yes
                raise ApprovalDenied(
                    f"{entry.public_name} was not approved: the client could not ask the person "
                    f"({exc.error.message[:200]})", channel="elicitation",
                ) from exc
            if result.action == "accept":
                return None
            raise ApprovalDenied(f"the user declined {entry.public_name}", channel="elicitation", action=result.action)
        if mode == "elicitation":
            raise ApprovalDenied(
                f"{entry.public_name} needs approval and this client cannot ask (no elicitation support); "
                "approval.mode = 'auto' would ask in the browser instead",
                channel="none",
            )
        self.asked["browser"] += 1
        with doing(f"waiting for the person to approve {entry.public_name} in the browser"):
            approved, why = await self.core.request_approval(
                entry, arguments, reason, self.settings.timeout_s, may_give_up=PHASE.get() is None)
        if approved:
            return None
        note = self._no_progress_note() if why.startswith("nobody answered") else ""
        raise ApprovalDenied(f"{entry.public_name} was not approved in the browser: {why}{note}", channel="browser")

    @staticmethod
    def _no_progress_note() -> str:
        """Said in a denial when the call carried no progress token: nothing could keep the client
        waiting, and many give up after 60 s (before the approval deadline)."""
        if PHASE.get() is not None:
            return ""
        return (" (this call carried no progressToken, so the bridge could not keep the client waiting; "
                "a client that stops waiting first never sees this answer)")
