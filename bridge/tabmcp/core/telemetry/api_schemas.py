"""The API schema store: endpoints (method, origin, templated path) with their JSON bodies' schemas
merged across samples by ``genson``.

Fed on ingest, not from the network buffer, so what was learnt survives the requests' eviction.
"""

from __future__ import annotations

import json
import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from genson import SchemaBuilder  # type: ignore[import-untyped]

from .models import NetworkEvent, header_value

__all__ = ["ApiSchemas", "Endpoint", "template_path"]

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEX = re.compile(r"^[0-9a-fA-F]{16,}$")
_ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
_MIXED = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_-]{20,}$")
_DIGITS = re.compile(r"^\d+$")
_MAX_EXAMPLES = 3


def template_path(path: str) -> str:
    """Replace identifier-like path segments with ``{id}`` (``{uuid}`` for UUIDs); slugs such as
    ``/users/alice`` cannot be told from words and stay literal."""
    out: list[str] = []
    for seg in path.split("/"):
        if not seg:
            out.append(seg)
        elif _UUID.match(seg):
            out.append("{uuid}")
        elif _DIGITS.match(seg) or _HEX.match(seg) or _ULID.match(seg) or _MIXED.match(seg):
            out.append("{id}")
        elif "REDACTED" in seg:
            out.append("{secret}")
        else:
            out.append(seg)
    return "/".join(out) or "/"


def _json(body: str | None, mime_type: str | None) -> tuple[bool, Any]:
    if not body:
        return False, None
    stripped = body.lstrip()
    if "json" not in (mime_type or "").lower() and stripped[:1] not in ("{", "["):
        return False, None
    try:
        return True, json.loads(body)
    except ValueError:
        return False, None


def _builder() -> SchemaBuilder:
    return SchemaBuilder(schema_uri=None)


@dataclass
class Endpoint:
    """What is known about one method + templated path."""

    method: str
    origin: str
    path: str
    samples: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    query_params: set[str] = field(default_factory=set)
    request: SchemaBuilder | None = None
    request_samples: int = 0
    responses: dict[str, SchemaBuilder] = field(default_factory=dict)
    """JSON Schema of response bodies by status code (error bodies differ from success)."""
    response_samples: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    first_seq: int = 0
    last_seq: int = 0
    first_seen: float = 0.0
    last_seen: float = 0.0
    total_ms: float = 0.0
    max_ms: float = 0.0

    @property
    def key(self) -> str:
        return f"{self.method} {self.origin}{self.path}"

    def to_dict(self, *, schemas: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "origin": self.origin,
            "path": self.path,
            "samples": self.samples,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "queryParams": sorted(self.query_params),
            "examples": list(self.examples),
            "avgMs": round(self.total_ms / self.samples, 1) if self.samples else None,
            "maxMs": round(self.max_ms, 1),
            "firstSeen": self.first_seen,
            "lastSeen": self.last_seen,
        }
        if schemas:
            if self.request is not None:
                out["requestSchema"] = self.request.to_schema()
            out["responseSchemas"] = {code: b.to_schema() for code, b in sorted(self.responses.items())}
        return out


class ApiSchemas:
    """Endpoints by ``METHOD origin/templated/path``; bounded, least recently seen evicted."""

    def __init__(self, max_endpoints: int = 300) -> None:
        self.max_endpoints = max_endpoints
        self._endpoints: OrderedDict[str, Endpoint] = OrderedDict()
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._endpoints)

    def observe(self, event: NetworkEvent, seq: int) -> bool:
        """Learn from one request; ``False`` if neither body was JSON (not an API call)."""
        has_req, req_body = _json(event.request_body, header_value(event.request_headers, "content-type"))
        has_resp, resp_body = _json(event.response_body, event.mime_type)
        if not (has_req or has_resp):
            return False
        parts = urlsplit(event.url)
        origin = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
        path = template_path(parts.path or "/")
        key = f"{event.method} {origin}{path}"
        ep = self._endpoints.get(key)
        if ep is None:
            ep = Endpoint(event.method, origin, path, first_seq=seq, first_seen=event.ts)
            self._endpoints[key] = ep
            while len(self._endpoints) > self.max_endpoints:
                self._endpoints.popitem(last=False)
                self.evicted += 1
        else:
            self._endpoints.move_to_end(key)
        ep.samples += 1
        ep.statuses[event.status] += 1
        ep.query_params.update(k for k, _ in parse_qsl(parts.query, keep_blank_values=True))
        if parts.path not in ep.examples and len(ep.examples) < _MAX_EXAMPLES:
            ep.examples.append(parts.path)
        ep.last_seq, ep.last_seen = seq, event.ts
        ep.total_ms += event.duration
        ep.max_ms = max(ep.max_ms, event.duration)
        if has_req:
            ep.request = ep.request or _builder()
            ep.request.add_object(req_body)
            ep.request_samples += 1
        if has_resp:
            code = str(event.status)
            ep.responses.setdefault(code, _builder()).add_object(resp_body)
            ep.response_samples[code] += 1
        return True

    def endpoints(self, url_contains: str | None = None) -> list[Endpoint]:
        """Endpoints sorted by path then method, optionally filtered by URL substring."""
        items = list(self._endpoints.values())
        if url_contains:
            needle = url_contains.lower()
            items = [e for e in items if needle in (e.origin + e.path).lower()]
        return sorted(items, key=lambda e: (e.origin, e.path, e.method))

    def new_since(self, seq: int) -> list[Endpoint]:
        return [e for e in self._endpoints.values() if e.first_seq > seq]

    def clear(self) -> None:
        self._endpoints.clear()

    def resize(self, max_endpoints: int) -> None:
        self.max_endpoints = max_endpoints
        while len(self._endpoints) > max_endpoints:
            self._endpoints.popitem(last=False)
            self.evicted += 1

    # -- snapshots ------------------------------------------------------------------------

    def export(self) -> list[dict[str, Any]]:
        """Plain data for a snapshot (schemas, not builders: genson re-seeds from schemas)."""
        rows = []
        for ep in self._endpoints.values():
            row = ep.to_dict()
            row.update(
                firstSeq=ep.first_seq,
                lastSeq=ep.last_seq,
                totalMs=ep.total_ms,
                requestSamples=ep.request_samples,
                responseSamples=dict(ep.response_samples),
            )
            rows.append(row)
        return rows

    def restore(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            ep = Endpoint(
                method=row["method"],
                origin=row["origin"],
                path=row["path"],
                samples=row["samples"],
                statuses=Counter({int(k): v for k, v in row["statuses"].items()}),
                query_params=set(row.get("queryParams", [])),
                examples=list(row.get("examples", [])),
                first_seq=row.get("firstSeq", 0),
                last_seq=row.get("lastSeq", 0),
                first_seen=row.get("firstSeen", 0.0),
                last_seen=row.get("lastSeen", 0.0),
                total_ms=row.get("totalMs", 0.0),
                max_ms=row.get("maxMs", 0.0),
                request_samples=row.get("requestSamples", 0),
                response_samples=Counter(row.get("responseSamples", {})),
            )
            if "requestSchema" in row:
                ep.request = _builder()
                ep.request.add_schema(row["requestSchema"])
            for code, schema in row.get("responseSchemas", {}).items():
                ep.responses[code] = _builder()
                ep.responses[code].add_schema(schema)
            self._endpoints[ep.key] = ep
        self.resize(self.max_endpoints)
