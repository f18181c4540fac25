"""The wire protocol between the tabmcp extension and the bridge: one source of truth.

Every frame is one JSON object with a ``type``. Field names are camelCase on the wire
(they come from JavaScript) and snake_case in Python. ``docs/protocol.md`` describes the
same messages for humans, and ``extension/protocol.js`` mirrors the names; bump
:data:`PROTOCOL_VERSION` whenever a message or field changes meaning.

A connection starts with the extension's ``hello``; the bridge answers ``welcome`` (or an
``error`` with ``PROTOCOL_MISMATCH`` and closes). Either side may ``ping`` at any time.
Tool snapshots are lenient about individual tools (a bad tool is rejected alone by the
registry, with a named error), strict about the envelope.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from .capture.kinds import WireEvent
from .core.trust.text import PageJson, PageText, PageValue
from .errors import ErrorCode, MalformedMessage, UnknownMessageType

__all__ = [
    "MAX_FRAME_BYTES",
    "MAX_SYNC_PARTS",
    "PROTOCOL_VERSION",
    "ApprovalRequest",
    "ApprovalResult",
    "ApprovalWithdraw",
    "BridgeMessage",
    "CallCancel",
    "CallResult",
    "CallStart",
    "ControlSet",
    "ErrorCode",
    "ExtensionMessage",
    "FormsPolicy",
    "FormsSet",
    "FrameSnapshot",
    "Hello",
    "JsRegExp",
    "PageForms",
    "PageQuery",
    "PageResult",
    "PairCode",
    "PairDone",
    "PairRequest",
    "PairRequired",
    "PairingCredential",
    "PanelQuery",
    "PanelState",
    "Ping",
    "Pong",
    "SiteForget",
    "SiteOpen",
    "SitePermission",
    "SiteStatus",
    "SitesList",
    "TabClosed",
    "TabSnapshot",
    "TabUpdate",
    "TabsSync",
    "Telemetry",
    "TelemetryConfig",
    "Welcome",
    "WireError",
    "dump",
    "parse_extension_message",
]

PROTOCOL_VERSION = 2
"""Bumped whenever a message or a field changes meaning. Mirrored in extension/protocol.js."""

MAX_FRAME_BYTES = 16 * 1024 * 1024
"""Frames larger than this are refused (the WebSocket closes with 1009 Message Too Big)."""


class WireModel(BaseModel):
    """Base of every wire message: camelCase aliases, unknown fields ignored (forward compatible)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True, use_attribute_docstrings=True
    )


class ErrorBody(WireModel):
    """Why something failed: a named ``code`` (``ErrorCode``), a message, optional details."""

    code: str
    message: PageText
    """The worker's words for its own codes; any other code's message is the page's (page text either way)."""
    details: PageJson | None = None
    from_page: bool = False
    """The worker relays this error from the page (its code, message and details are the page's
    words): the bridge reports it as ``PAGE_ERROR`` with them as page data, never as its own code."""


# -- payloads ---------------------------------------------------------------------------


MAX_TAB_ID = 2**31 - 1
"""Browsers' tab ids are small positive 32-bit integers (Chrome's and Firefox's alike); anything
larger is garbage. The bound also keeps each browser's ids apart once the bridge qualifies them
(``tabmcp.core.browsers.TAB_STRIDE``)."""


MAX_FRAMES_PER_TAB = 16
"""Frames beyond this many (per tab) are ignored: a page with hundreds of ad frames is not a tool source."""


class FrameSnapshot(WireModel):
    """A child frame's document, reported only when the top page allows its origin to offer tools.

    The extension decides that (the frame is same-origin with the top page, or the top page's
    ``<iframe allow="tools ...">`` names its origin); ``origin`` comes from Chrome, not the frame.
    """

    frame_id: int = Field(ge=1, le=MAX_TAB_ID)
    document_id: str | None = None
    origin: str = ""
    url: PageText = PageText("")
    title: PageText = PageText("")
    tools: list[Any] = Field(default_factory=list)
    categories: list[Any] = Field(default_factory=list)
    states: list[Any] = Field(default_factory=list)


class PageForms(WireModel):
    """A page's ordinary forms described as tools by the extension's page script, sent only for
    origins whose forms-as-tools switch the bridge said is on (``forms.policy``).

    ``origin`` is Chrome's word for the page's origin (its port's ``sender.origin``), not the page's;
    the bridge decides on it again (``core/page_forms.py``). ``tools`` stay raw, like ``tools``.
    """

    origin: str = ""
    tools: list[Any] = Field(default_factory=list)


class TabSnapshot(WireModel):
    """Everything the bridge needs to know about one tab's top-level document.

    ``tools`` and ``categories`` stay raw dicts here: the registry validates each one on its
    own so that a single bad tool is rejected without losing the rest of the tab.
    """

    tab_id: int = Field(ge=0, le=MAX_TAB_ID)
    window_id: int | None = None
    origin: str = ""
    """Chrome's word for the top document's origin (its port's ``sender.origin``), never the
    page's: the bridge decides per-origin rules on it, and does not trust a ``url`` of another
    origin (a page script can post a snapshot claiming any URL)."""
    url: PageText = PageText("")
    title: PageText = PageText("")
    document_id: str | None = None
    active: bool = False
    focused: bool = False
    """Active in the browser's focused window: the tab the person looks at."""
    native: bool = False
    """True when the page runs Chromium's native ``document.modelContext``."""
    tools: list[Any] = Field(default_factory=list)
    categories: list[Any] = Field(default_factory=list)
    states: list[Any] = Field(default_factory=list)
    frames: list[FrameSnapshot] = Field(default_factory=list)
    """Child frames whose tools the top page allows (see :class:`FrameSnapshot`); at most
    ``MAX_FRAMES_PER_TAB``, the rest are ignored."""
    forms: PageForms | None = None
    """The top document's ordinary forms as tools, when its origin's forms-as-tools switch is on."""

    @field_validator("frames", mode="before")
    @classmethod
    def _cap_frames(cls, value: Any) -> Any:
        return value[:MAX_FRAMES_PER_TAB] if isinstance(value, list) else value


# -- extension → bridge -----------------------------------------------------------------


class PairingCredential(WireModel):
    """What a paired extension presents in every ``hello``: the pairing's id and its secret
    (``pair.done`` gave both; the extension keeps them in ``chrome.storage.local``)."""

    id: str = Field(max_length=64)
    secret: str = Field(max_length=256)


class Hello(WireModel):
    """The extension's first message on a connection; the bridge answers ``welcome``, or
    ``pair.required`` when the hello carries no valid pairing (nor the pre-shared token), or an error."""

    type: Literal["hello"]
    protocol: int
    extension_version: str = ""
    extension_id: str | None = None
    browser: str | None = None
    """The browser's user agent (``tabmcp pair --list`` names the pairing with it)."""
    brand: str | None = Field(default=None, max_length=64)
    """The browser's brand and major version from ``navigator.userAgentData`` ("Chromium 156",
    "Google Chrome 156"): every Chromium-based browser's user agent says "Chrome"."""
    browser_name: str | None = Field(default=None, max_length=32)
    """``chromium`` or ``firefox``: what ``_meta["tabmcp/source"]["browser"]`` says of this link's tabs."""
    profile_id: str | None = Field(default=None, max_length=64)
    """Random, made once per browser profile and kept in the extension's storage: links with the same
    one are the same browser (a newer one replaces the older); another profile is another browser,
    linked beside it (``tabmcp.core.browsers``)."""
    instance_id: str | None = None
    """Random per service-worker start: tells a reconnect from a restart in the logs."""
    token: str | None = None
    """``server.extension_token``, when the person set one (a pre-shared secret instead of pairing)."""
    pairing: PairingCredential | None = None
    """The pairing the person confirmed once (``tabmcp pair``); without it (or ``token``) the link
    gets nothing but the pairing ceremony."""
    batch: bool = False
    """The extension reads frames holding several messages, one per line, and would send such
    frames too (the bridge says in ``welcome`` whether it reads them)."""


MAX_SYNC_PARTS = 64
"""A sync in more parts than this is refused (``TOO_LARGE``): the extension sends parts of up to
6 MiB, so this is far more than any browser's tabs."""


class TabsSync(WireModel):
    """The full state of every tab; replaces whatever the bridge knew (sent after each connect).

    A sync too large for one frame comes in parts: each but the last says ``more``; the tabs of
    all of them together are the full state, applied when the last arrives.
    """

    type: Literal["tabs.sync"]
    tabs: list[TabSnapshot]
    more: bool = False
    """More parts of this sync follow (the extension splits a sync that would not fit one frame)."""


class TabUpdate(WireModel):
    """One tab changed: opened, navigated (also SPA routes), tools, categories or states."""

    type: Literal["tab.update"]
    tab: TabSnapshot


class TabClosed(WireModel):
    """A tab closed: its tools go, and its pending requests end with ``TAB_CLOSED``."""

    type: Literal["tab.closed"]
    tab_id: int = Field(ge=0, le=MAX_TAB_ID)


MAX_TRACE_STAMPS = 32
TraceStamp = tuple[Annotated[str, Field(max_length=40)], float]
"""One hop's timestamp in a traced call: its name and epoch milliseconds."""


class CallResult(WireModel):
    """The outcome of a ``call.start``. ``result`` is an MCP CallToolResult object."""

    type: Literal["call.result"]
    call_id: str
    ok: bool
    result: PageJson | None = None
    """The page's own value: page text through and through (only the gate shows it to the agent)."""
    error: ErrorBody | None = None
    trace: list[TraceStamp] | None = Field(default=None, max_length=MAX_TRACE_STAMPS)
    """The call's ``trace`` with the extension's stamps added (debug mode only, see ``CallStart``)."""


class FormsSet(WireModel):
    """The person turned forms-as-tools on or off for one origin in the extension's popup; the
    bridge keeps the choice (SQLite) and answers every extension with a new ``forms.policy``."""

    type: Literal["forms.set"]
    origin: str
    enabled: bool


class ApprovalResult(WireModel):
    """The person's answer to an ``approval.request`` (or why nobody answered)."""

    type: Literal["approval.result"]
    approval_id: str
    approved: bool
    reason: str = ""


class Telemetry(WireModel):
    """A batch of captured events from one tab (the event shapes are in docs/telemetry.md)."""

    type: Literal["telemetry"]
    tab_id: int = Field(ge=0, le=MAX_TAB_ID)
    document_id: str | None = None
    origin: str | None = None
    """The document's origin by Chrome's word (its port's ``sender.origin``), never the page's:
    the bridge holds the events' own URLs to it."""
    url: str = ""
    """Where the tab is as the batch leaves it: the page's claim only when of ``origin``."""
    page_reported: bool = False
    """Posted by the page's own scripts on the window, not by the extension's capture (which has
    its own line to the content script): the events are what the page says, and are marked so."""
    events: list[WireEvent] = Field(default_factory=list)
    """Typed by kind (``tabmcp/capture/kinds.py``); each parsed on its own, so a malformed event or one
    of a kind this bridge does not know is a ``RejectedEvent`` (counted), never the batch refused."""
    dropped: dict[str, int] = Field(default_factory=dict)
    """What the page had to drop since its previous batch, by event kind (counts above zero kept)."""

    @field_validator("dropped")
    @classmethod
    def _counted(cls, v: dict[str, int]) -> dict[str, int]:
        return {k: n for k, n in v.items() if n > 0}


class PageResult(WireModel):
    """The answer to a ``page.query`` (a live DOM query, page facts, an axe-core audit)."""

    type: Literal["page.result"]
    request_id: str
    ok: bool
    result: PageValue = PageValue(None)
    """What the page answered: page text through and through (only the gate shows it to the agent)."""
    error: ErrorBody | None = None


class PanelQuery(WireModel):
    """The popup asks what the person should see: their switches, activity (newest first,
    optionally of one tab or origin), per-tab insight, pending trust decisions. Answered by
    ``panel.state``. Only the extension link can ask (agents have no way to send it)."""

    type: Literal["panel.query"]
    request_id: str
    tab_id: int | None = Field(default=None, ge=0, le=MAX_TAB_ID)
    origin: str | None = None
    limit: int = Field(default=100, ge=1, le=1000)
    """How many activity rows, newest first."""
    expanded: list[int] = Field(default_factory=list, max_length=64)
    """Tabs whose tools to list one by one (the ones the person opened); the others get counts only."""


class ControlSet(WireModel):
    """The person flipped a switch in the popup; answered by ``panel.state`` (the state after it).

    ``action``: ``pause`` / ``resume`` (every agent call answers ``PAUSED`` meanwhile),
    ``writes`` (``enabled``: true, false, or null for the config's setting), ``origin``
    (``origin`` + ``enabled``: that origin's tools shown to agents or hidden), ``accept``
    (``origin`` + ``tool``: pin a changed definition), ``clear`` (end the lockdown), ``unbind``
    (``origin`` + ``secret``: that secret name no longer goes to that site; names only, never a
    value). Only the extension link can send it: no MCP tool changes these.
    """

    type: Literal["control.set"]
    request_id: str
    action: Literal["pause", "resume", "writes", "origin", "accept", "clear", "unbind"]
    enabled: bool | None = None
    origin: str = ""
    tool: str = ""
    secret: str = ""


class Ping(WireModel):
    """Either side, any time; answered with a ``pong`` carrying the same ``ts``."""

    type: Literal["ping"]
    ts: float | None = None


class Pong(WireModel):
    """The answer to a ``ping``."""

    type: Literal["pong"]
    ts: float | None = None


class WireError(WireModel):
    """A named error about a frame the other side sent (``ref`` names it when possible)."""

    type: Literal["error"]
    code: str
    message: str
    ref: str | None = None


class SiteStatus(WireModel):
    """How a ``site.open`` goes: the tab was ``opened`` (``tabId``), its page ``loaded``, it was
    ``redirected`` to another origin (the extension closed it), or opening ``failed``."""

    type: Literal["site.status"]
    request_id: str
    state: Literal["opened", "loaded", "redirected", "failed"]
    tab_id: int | None = Field(default=None, ge=0, le=MAX_TAB_ID)
    url: str = ""
    message: str = ""


class SitePermission(WireModel):
    """The person, in the extension's popup, lets agents open ``origin`` (or no longer does).
    Only the extension's own pages send it: a web page cannot make its site reachable."""

    type: Literal["site.permission"]
    origin: str
    reachable: bool


class SiteForget(WireModel):
    """The person, in the popup, forgets a site: its stored definitions, usage and permission."""

    type: Literal["site.forget"]
    origin: str


class PairRequest(WireModel):
    """An unpaired extension asks for a pairing code (the popup shows it; the person types
    ``tabmcp pair CODE`` in a terminal). Answered by ``pair.code``."""

    type: Literal["pair.request"]


ExtensionMessage = Annotated[
    Hello
    | PairRequest
    | TabsSync
    | TabUpdate
    | TabClosed
    | CallResult
    | ApprovalResult
    | FormsSet
    | Telemetry
    | PageResult
    | SiteStatus
    | SitePermission
    | SiteForget
    | PanelQuery
    | ControlSet
    | Ping
    | Pong
    | WireError,
    Field(discriminator="type"),
]

# -- bridge → extension -----------------------------------------------------------------


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


class PairRequired(WireModel):
    """The answer to a ``hello`` with no valid pairing: the link stays open for the pairing
    ceremony only (``pair.request``) and gets nothing else. ``reason``: ``unpaired`` (no pairing
    presented), ``unknown`` (a pairing this bridge does not hold: forgotten, or another bridge's),
    ``expired`` (the code ran out, or too many wrong codes were typed: ask again)."""

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


class FormsPolicy(WireModel):
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
    """Open a reachable site's URL for the agent: a background tab (never focused, the window never
    raised) in the agent tabs' group; answered by ``site.status`` messages. The tab rules travel
    with it: at most ``maxAgentTabs`` agent tabs (least recently used closed first), each closed
    after ``idleCloseMs`` without a call unless the person took it over."""

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
    | FormsPolicy
    | PageQuery
    | SiteOpen
    | SitesList
    | PanelState
    | Ping
    | Pong
    | WireError
)

_EXTENSION_ADAPTER: TypeAdapter[Any] = TypeAdapter(ExtensionMessage)
_KNOWN_TYPES = frozenset(
    {
        "hello", "pair.request", "tabs.sync", "tab.update", "tab.closed", "call.result", "approval.result", "forms.set",
        "telemetry", "page.result", "panel.query", "control.set", "site.status", "site.permission", "site.forget",
        "ping", "pong", "error",
    }
)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _fix_surrogates(value: Any) -> Any:
    """Replace lone UTF-16 surrogates (valid JSON escapes, but not encodable text) with U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_fix_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_fix_surrogates(k): _fix_surrogates(v) for k, v in value.items()}
    return value


def parse_extension_message(frame: str | bytes) -> Any:
    """Parse one frame from the extension into its message model.

    Raises:
        MalformedMessage: not JSON, not an object, nested too deeply, no ``type``, or fields of
            the wrong shape.
        UnknownMessageType: a ``type`` this protocol version does not define.
    """
    try:
        data = json.loads(frame)
    except RecursionError:
        raise MalformedMessage("frame is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedMessage(f"frame is not valid JSON: {exc}") from exc
    text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
    if _SURROGATE_ESCAPE.search(text):
        try:
            data = _fix_surrogates(data)
        except RecursionError:
            raise MalformedMessage("frame is nested too deeply") from None
    if not isinstance(data, dict):
        raise MalformedMessage(f"frame must be a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise MalformedMessage("frame has no string 'type' field")
    if kind not in _KNOWN_TYPES:
        raise UnknownMessageType(f"unknown message type {kind!r}", ref=kind)
    try:
        return _EXTENSION_ADAPTER.validate_python(data)
    except RecursionError:
        raise MalformedMessage(f"{kind}: nested too deeply", ref=kind) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "(root)"
        raise MalformedMessage(f"{kind}: {where}: {first['msg']}", ref=kind) from exc


def dump(message: WireModel) -> str:
    """Serialize a message for the wire (camelCase, no nulls)."""
    return message.model_dump_json(by_alias=True, exclude_none=True)
