"""Extension → bridge: every message the extension sends, their union :data:`ExtensionMessage`,
and :func:`parse_extension_message` (docs/protocol.md)."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError, field_validator

from ..capture.kinds import WireEvent
from ..core.trust.text import Captured, PageJson, PageValue
from ..errors import MalformedMessage, UnknownMessageType
from .base import MAX_TRACE_STAMPS, ErrorBody, TraceStamp, WireModel
from .snapshots import MAX_REVISION_CHARS, MAX_TAB_ID, TabRef, TabSnapshot

__all__ = [
    "MAX_CHUNK_CHARS",
    "MAX_KEPT_TABS",
    "MAX_SYNC_PARTS",
    "ApprovalResult",
    "CallResult",
    "Chunk",
    "ControlSet",
    "ExtensionMessage",
    "FormsSet",
    "Hello",
    "PageResult",
    "PairRequest",
    "PairingCredential",
    "PanelQuery",
    "Ping",
    "Pong",
    "SiteForget",
    "SitePermission",
    "SiteStatus",
    "TabClosedMessage",
    "TabUpdate",
    "TabsSync",
    "Telemetry",
    "WireError",
    "parse_extension_message",
]


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
    """Random, made once per browser profile: links with the same one are the same browser
    (``tabmcp.core.browsers``)."""
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
    revisions: bool = False
    """The extension gives each tab state it sends a ``revision`` and can keep an unchanged tab
    in a sync by it (``tabs.sync.kept``): the bridge says in ``welcome`` whether it stores them."""
    session_id: str | None = Field(default=None, max_length=MAX_REVISION_CHARS)
    """The ``welcome.sessionId`` of the bridge run this worker last synced with (none after a
    start): only to that run, with this ``instanceId``, does ``welcome`` list the tabs it holds."""


MAX_KEPT_TABS = 4096
"""Tabs one browser's sync may keep by revision, and revisions the bridge stores per browser (a
tab past them is sent whole on a reconnect)."""


MAX_SYNC_PARTS = 64
"""A sync in more parts than this is refused (``TOO_LARGE``): the extension sends parts of up to
6 MiB, so this is far more than any browser's tabs."""


class TabsSync(WireModel):
    """The full state of every tab; replaces whatever the bridge knew (sent after each connect).
    A sync too large for one frame comes in parts, applied when the last arrives."""

    type: Literal["tabs.sync"]
    tabs: list[TabSnapshot]
    more: bool = False
    """More parts of this sync follow (the extension splits a sync that would not fit one frame)."""
    kept: list[TabRef] = Field(default_factory=list, max_length=MAX_KEPT_TABS)
    """Tabs unchanged since the worker sent them in these revisions, which ``welcome.held`` said the
    bridge holds: not sent again, and not gone. A revision the bridge no longer holds refuses the
    whole sync (``UNKNOWN_REVISION``: the extension sends every tab)."""


MAX_CHUNK_CHARS = 256 * 1024
"""Characters of JSON text one ``chunk`` may carry (the extension sends at most 64 Ki UTF-16 units)."""


class Chunk(WireModel):
    """A piece of one big message of the tabs' lane (``tab.update``, a ``tabs.sync`` part,
    ``telemetry``): ``data`` is the next characters of its JSON text. Sent only to a bridge whose
    ``welcome`` said ``chunks``; a message's chunks come in order (``part`` 0, 1, …; the last says
    ``last``), other messages may come between them (answers go ahead of the tabs' data), and the
    message put together is read as if it were a frame (``tabmcp.core.chunks``)."""

    type: Literal["chunk"]
    id: int = Field(ge=0, le=2**53)
    """The message's number on this link (the worker counts them)."""
    part: int = Field(ge=0, le=2**53)
    data: str = Field(max_length=MAX_CHUNK_CHARS)
    last: bool = False
    tab_id: int | None = Field(default=None, ge=0, le=MAX_TAB_ID)
    """The tab whose update this is (names it in an error about its chunks)."""


class TabUpdate(WireModel):
    """One tab changed: opened, navigated (also SPA routes), tools, categories or states."""

    type: Literal["tab.update"]
    tab: TabSnapshot


class TabClosedMessage(WireModel):
    """A tab closed: its tools go, and its pending requests end with ``TAB_CLOSED``."""

    type: Literal["tab.closed"]
    tab_id: int = Field(ge=0, le=MAX_TAB_ID)


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
    url: Captured = Captured("")
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
    """The person flipped a switch in the popup (actions in docs/protocol.md); answered by
    ``panel.state``. Only the extension link can send it: no MCP tool changes these."""

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
    | Chunk
    | TabClosedMessage
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

_EXTENSION_ADAPTER: TypeAdapter[Any] = TypeAdapter(ExtensionMessage)
_KNOWN_TYPES = frozenset(
    {
        "hello", "pair.request", "tabs.sync", "tab.update", "chunk", "tab.closed", "call.result", "approval.result", "forms.set",
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
    """Parse one frame from the extension into its message model; raises
    :class:`MalformedMessage` or :class:`UnknownMessageType`.

    A well-formed frame is read in one pass by pydantic's own JSON parser (no ``dict`` built first,
    then validated: about half the CPU of a ``call.result``); any frame that pass refuses is read
    again by :func:`_parse_checked`, which names the fault and repairs lone surrogates, so what a
    frame becomes, or the error it gets, is the same either way (``test_protocol.py``)."""
    try:
        return _EXTENSION_ADAPTER.validate_json(frame)
    except (ValidationError, ValueError, RecursionError):
        return _parse_checked(frame)


def _parse_checked(frame: str | bytes) -> Any:
    """:func:`parse_extension_message` the long way: ``json.loads``, then each check by name."""
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
