"""HAR 1.2 (HTTP Archive) from the captured fetch/XHR requests.

Capture hooks the page, not the network stack, so unknowable fields get the spec's unknown values
(``-1`` sizes and timings) and the whole duration goes into ``wait``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .... import __version__ as _bridge_version
from ...trust.text import Captured
from ..answer import iso_time
from ..buffers import BufferKind, Entry
from ..models import NavigationEvent, NetworkEvent, VitalsEvent, header_value
from ..state import Scope, TelemetryState

__all__ = ["HAR_COMMENT", "build_har"]

HAR_COMMENT = (
    "Captured by tabmcp with in-page fetch/XHR hooks: timings are total durations, HTTP versions "
    "and cookies are unknown, secrets are redacted, bodies may be truncated."
)


def _pairs(mapping: dict[Captured, Captured]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in mapping.items()]


def _size(text: str | None) -> int:
    return len(text.encode("utf-8")) if text else 0


def _entry(e: Entry, page_ids: set[str], include_bodies: bool) -> dict[str, Any]:
    ev = e.event
    assert isinstance(ev, NetworkEvent)
    query = [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(ev.url).query, keep_blank_values=True)]
    request: dict[str, Any] = {
        "method": ev.method,
        "url": ev.url,
        "httpVersion": "",
        "cookies": [],
        "headers": _pairs(ev.request_headers),
        "queryString": query,
        "headersSize": -1,
        "bodySize": _size(ev.request_body) if ev.request_body is not None else 0,
    }
    if ev.request_body is not None and include_bodies:
        request["postData"] = {
            "mimeType": header_value(ev.request_headers, "content-type") or "",
            "text": ev.request_body,
        }
    content: dict[str, Any] = {"size": _size(ev.response_body), "mimeType": ev.mime_type or ""}
    if ev.response_body is not None and include_bodies:
        content["text"] = ev.response_body
    if ev.body_truncated:
        content["comment"] = "body truncated at capture"
    response: dict[str, Any] = {
        "status": ev.status,
        "statusText": ev.status_text,
        "httpVersion": "",
        "cookies": [],
        "headers": _pairs(ev.response_headers),
        "content": content,
        "redirectURL": header_value(ev.response_headers, "location") or "",
        "headersSize": -1,
        "bodySize": -1,
    }
    duration = max(ev.duration, 0.0)
    out: dict[str, Any] = {
        "startedDateTime": iso_time(ev.started_at),
        "time": duration,
        "request": request,
        "response": response,
        "cache": {},
        "timings": {
            "blocked": -1,
            "dns": -1,
            "connect": -1,
            "ssl": -1,
            "send": 0,
            "wait": duration,
            "receive": 0,
        },
        "_requestId": ev.request_id,
        "_resourceType": ev.api,
        "_tabId": e.tab_id,
    }
    if e.load_id in page_ids:
        out["pageref"] = e.load_id
    if ev.failure or ev.status == 0:
        out["_error"] = ev.failure or "failed"
    return out


def _pages(
    store: TelemetryState, scope: Scope, tab_id: int | None, requests: list[Entry]
) -> list[dict[str, Any]]:
    timings: dict[str, dict[str, Any]] = {}
    for v in store.select(BufferKind.VITALS, scope=scope, tab_id=tab_id):
        if isinstance(v.event, VitalsEvent) and v.event.navigation:
            timings.setdefault(v.event.load_id, {}).update(v.event.navigation)
    pages: dict[str, dict[str, Any]] = {}
    for n in store.select(BufferKind.NAVIGATIONS, scope=scope, tab_id=tab_id):
        ev = n.event
        if isinstance(ev, NavigationEvent) and ev.new_document and ev.load_id not in pages:
            nav = timings.get(ev.load_id, {})
            tab = store.tab(n.tab_id)
            title = tab.title if tab and tab.load_id == ev.load_id and tab.title else ev.url
            pages[ev.load_id] = {
                "startedDateTime": iso_time(ev.ts),
                "id": ev.load_id,
                "title": title,
                "pageTimings": {
                    "onContentLoad": _ms(nav.get("domContentLoaded")),
                    "onLoad": _ms(nav.get("load")),
                },
            }
    # Requests of a load whose navigation was evicted still get a page to point at.
    for r in requests:
        if r.load_id and r.load_id not in pages and isinstance(r.event, NetworkEvent):
            pages[r.load_id] = {
                "startedDateTime": iso_time(r.event.started_at),
                "id": r.load_id,
                "title": r.page_url,
                "pageTimings": {"onContentLoad": -1, "onLoad": -1},
            }
    return sorted(pages.values(), key=lambda p: p["startedDateTime"])


def _ms(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and value >= 0 else -1


def build_har(
    store: TelemetryState, *, scope: Scope = "tab", tab_id: int | None = None, include_bodies: bool = True
) -> dict[str, Any]:
    """The captured requests in scope as a HAR 1.2 document (``{"log": {...}}``)."""
    requests = store.select(BufferKind.NETWORK, scope=scope, tab_id=tab_id)
    pages = _pages(store, scope, tab_id, requests)
    page_ids = {p["id"] for p in pages}
    entries = sorted(
        (_entry(e, page_ids, include_bodies) for e in requests),
        key=lambda x: x["startedDateTime"],
    )
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "tabmcp", "version": _bridge_version},
            "pages": pages,
            "entries": entries,
            "comment": HAR_COMMENT,
        }
    }
