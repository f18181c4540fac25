"""Bridge → extension: every message the bridge sends (``welcome``, pairing, calls and their
cancels, approvals, telemetry and forms settings, page queries, sites, the popup's state), and
:data:`BridgeMessage`, their union."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import PROTOCOL_VERSION, ErrorBody, TraceStamp, WireModel
from .from_extension import MAX_KEPT_TABS, Ping, Pong, WireError
from .snapshots import TabRef

__all__ = [
    "ApprovalRequest",
    "ApprovalWithdraw",
    "BridgeMessage",
    "CallCancel",
    "CallStart",
    "ChunkRead",
    "FormsPolicyMessage",
    "FormsPolicyRule",
    "JsRegExp",
    "PageQuery",
    "PairCode",
    "PairDone",
    "PairRequired",
    "PanelState",
    "SiteOpen",
    "SitesList",
    "TelemetryConfig",
    "Welcome",
]


class Welcome(WireModel):
    """The bridge accepted the ``hello``: the link is ready (a ``tabs.sync`` should follow)."""

    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    bridge_version: str
    session_id: str
    heartbeat_ms: int = 20_000
    """How often the extension should ping: under MV3's 30 s idle limit, so the worker stays alive."""
    batch: bool = False
    """Answers ``hello.batch``: from now on both sides may join messages into one frame, one per
    line (JSON text holds no raw newline), and split every frame they read."""
    chunks: bool = False
    """The bridge puts ``chunk`` messages back together: the extension may send a big message of
    the tabs' lane in chunks (``tabmcp.core.chunks``)."""
    revisions: bool = False
    """Answers ``hello.revisions``: the bridge stores each tab's revision and takes ``tabs.sync.kept``."""
    held: list[TabRef] = Field(default_factory=list, max_length=MAX_KEPT_TABS)
    """The tabs of this browser the bridge still holds (the reconnect grace) and the revision of
    each, only to the worker instance that sent them and that names this run's ``sessionId``: the
    sync may keep these by revision instead of sending them again."""


class ChunkRead(WireModel):
    """The bridge read a ``chunk`` (or refused it): the extension sends the tabs' lane on while
    at most two of its chunks are unread, so the tabs' data never piles up in the sockets ahead of
    an answer when the bridge reads slower than the browser sends (``tabmcp.core.chunks``)."""

    type: Literal["chunk.read"] = "chunk.read"
    id: int
    part: int


class PairRequired(WireModel):
    """The answer to a ``hello`` with no valid pairing: the link stays open for the pairing
    ceremony only (``pair.request``); ``reason`` is ``unpaired``, ``unknown`` or ``expired``."""

    type: Literal["pair.required"] = "pair.required"
    reason: Literal["unpaired", "unknown", "expired"]
    message: str = ""


class PairCode(WireModel):
    """The code for this link's pairing request: shown in the popup, typed by the person in
    ``tabmcp pair CODE``. Valid for ``expires_ms``; never sent to any other connection."""

    type: Literal["pair.code"] = "pair.code"
    code: str
    expires_ms: int


class PairDone(WireModel):
    """The person confirmed the code: the extension stores this pairing and presents it in every
    ``hello`` from now on (it sends a new ``hello`` at once)."""

    type: Literal["pair.done"] = "pair.done"
    pairing_id: str
    secret: str


class CallStart(WireModel):
    """Run a page tool in a tab (or one of its allowed frames); answered by ``call.result``."""

    type: Literal["call.start"] = "call.start"
    call_id: str
    tab_id: int
    document_id: str | None = None
    frame_id: int | None = None
    """The child frame whose tool this is; absent for the tab's top-level document."""
    tool: str
    """The tool's name as the page registered it (not the bridge's public name)."""
    arguments: dict[str, Any]
    timeout_ms: int
    source: Literal["form"] | None = None
    """``form``: a page form (``TabSnapshot.forms``), run by the extension's forms script; absent:
    a WebMCP tool, run through the page's ``document.modelContext``."""
    trace: list[TraceStamp] | None = None
    """Debug mode only (``TABMCP_TRACE=1``): ``[hop, epoch ms]`` stamps so far; each hop that
    relays the call appends its own and ``call.result`` carries the list back."""


class CallCancel(WireModel):
    """The bridge gave up on a call (timeout, the MCP client cancelled): the page gets ``toolcancel``."""

    type: Literal["call.cancel"] = "call.cancel"
    call_id: str
    reason: str = ""


class ApprovalRequest(WireModel):
    """Ask the person at a tab whether a tool may run (when the MCP client cannot ask)."""

    type: Literal["approval.request"] = "approval.request"
    approval_id: str
    tab_id: int
    tool: str
    title: str
    description: str = ""
    arguments: dict[str, Any]
    reason: str
    timeout_ms: int
    origin: str = ""
    """The origin of the document that offers the tool (a frame's own origin for frame tools)."""
    frame_id: int = 0
    """The frame whose document offers the tool (0: the tab's top document). The extension asks,
    and remembers the answer, under that frame's origin as Chrome reports it."""
    tool_name: str = ""
    """The tool's name as its page registered it (``tool`` is the public name, which may be
    qualified): a remembered answer is per owning origin and this name."""
    may_give_up: bool = False
    """The agent's call carries no progress token, so nothing keeps its client waiting: it may
    stop waiting (many clients after 60 s) before the deadline. The window says so."""


class ApprovalWithdraw(WireModel):
    """An ``approval.request`` ended without the person's answer (timeout, the call was
    cancelled): the extension removes the question from the page."""

    type: Literal["approval.withdraw"] = "approval.withdraw"
    approval_id: str
    reason: str = ""


class TelemetryConfig(WireModel):
    """The page-side capture's settings: sent after ``welcome`` and whenever they change; the
    extension keeps the latest and hands it to every page (see ``TelemetrySettings.page_config``)."""

    type: Literal["telemetry.config"] = "telemetry.config"
    config: dict[str, Any]


class JsRegExp(WireModel):
    """A regular expression the bridge compiled for the extension: ``new RegExp(source, flags)``."""

    source: str
    flags: str = ""


class FormsPolicyRule(WireModel):
    """One say about forms-as-tools, applied in order (the last match wins)."""

    match: str
    """An origin glob from ``[[policy.origins]]`` or an exact origin the person chose."""
    enabled: bool
    source: Literal["config", "person"]
    pattern: JsRegExp | None = None
    """A config rule's glob compiled by the bridge for ``new RegExp(source, flags)`` (fnmatch's
    reading of it, ``core/js_regex.py``); unset for the person's exact origins."""


class FormsPolicyMessage(WireModel):
    """Which origins have forms-as-tools on: sent after ``welcome`` and whenever it changes. The
    extension scans ordinary forms only on matching pages; the bridge checks again on every
    listing and call."""

    type: Literal["forms.policy"] = "forms.policy"
    rules: list[FormsPolicyRule] = Field(default_factory=list)
    secret_sites: list[str] = Field(default_factory=list)
    """The origins with at least one secret bound (never a name or a value): on them a sign-in
    form may be described, its password, one-time-code or card fields taking only a secret's name."""


class PageQuery(WireModel):
    """Ask a tab's page something live: ``dom`` (query_dom), ``page`` (facts), ``axe`` (audit), ``vitals``."""

    type: Literal["page.query"] = "page.query"
    request_id: str
    tab_id: int
    kind: Literal["dom", "page", "axe", "vitals"]
    args: dict[str, Any] = Field(default_factory=dict)
    timeout_ms: int


class SiteOpen(WireModel):
    """Open a reachable site's URL for the agent in a background tab of the agent group; answered by
    ``site.status``. The tab rules (``maxAgentTabs``, ``idleCloseMs``) travel with it."""

    type: Literal["site.open"] = "site.open"
    request_id: str
    url: str
    origin: str
    timeout_ms: int
    max_agent_tabs: int = 5
    idle_close_ms: int = 300_000
    group_title: str = "tabmcp agent"
    focus: bool = False
    """``open_page(focus=true)``: bring an existing tab of the site to the front instead, if there is one."""


class SitesList(WireModel):
    """The reachable sites and their stored tools (``Sites.list``), for the popup: sent after
    ``welcome`` and whenever they change."""

    type: Literal["sites.list"] = "sites.list"
    sites: list[dict[str, Any]]


class PanelState(WireModel):
    """The answer to ``panel.query`` and ``control.set``: ``state`` is what the popup shows
    (docs/protocol.md lists its fields), or ``error`` says why the request was refused."""

    type: Literal["panel.state"] = "panel.state"
    request_id: str
    ok: bool = True
    state: dict[str, Any] | None = None
    error: ErrorBody | None = None


BridgeMessage = (
    Welcome
    | PairRequired
    | PairCode
    | PairDone
    | CallStart
    | CallCancel
    | ApprovalRequest
    | ApprovalWithdraw
    | TelemetryConfig
    | FormsPolicyMessage
    | PageQuery
    | SiteOpen
    | SitesList
    | PanelState
    | ChunkRead
    | Ping
    | Pong
    | WireError
)

