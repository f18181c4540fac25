"""tools/list as ready-made JSON bytes: a cached rendering of :meth:`Disclosure.listing`.

The bytes are what the MCP SDK's server would send (each tool through its per-version sieve),
kept per document (re-encoded only when that tab, its names, the profile, the policy or the pins
change), shared by protocol versions with the same result model, and per listing, so an
unchanged listing is one lookup. No I/O.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_types.methods import SERVER_RESULTS, serialize_server_result
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import TypeAdapter

from .disclosure import ClientView, Disclosure, Profile
from .registry import SourceKey, Tab

__all__ = ["ListingRenderer", "sieve_tools", "surface_of"]

_METHOD = "tools/list"
_ENVELOPE_MODERN = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
"""Fields a 2026-era ListToolsResult requires besides its tools (they do not shape the tools)."""


def surface_of(protocol_version: str) -> str:
    """The first known protocol version whose tools/list result model is ``protocol_version``'s:
    versions with equal representatives sieve tools alike, so they share rendered bytes.

    Raises:
        ValueError: ``protocol_version`` is not one the MCP SDK knows.
    """
    surface = _SURFACES.get(protocol_version)
    if surface is None:
        raise ValueError(f"unknown MCP protocol version {protocol_version!r} (known: {', '.join(KNOWN_PROTOCOL_VERSIONS)})")
    return surface


_SURFACES = {
    version: next(v for v in KNOWN_PROTOCOL_VERSIONS if SERVER_RESULTS[(_METHOD, v)] is SERVER_RESULTS[(_METHOD, version)])
    for version in KNOWN_PROTOCOL_VERSIONS
}


def sieve_tools(protocol_version: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` as the SDK's server puts them on the wire at ``protocol_version`` (its
    per-version sieve of a tools/list result, the ``tools`` key of it)."""
    result: dict[str, Any] = {"tools": tools}
    if protocol_version in MODERN_PROTOCOL_VERSIONS:
        result.update(_ENVELOPE_MODERN)
    sieved: list[dict[str, Any]] = serialize_server_result(_METHOD, protocol_version, result)["tools"]
    return sieved


@functools.cache
def _tools_adapter(surface: str) -> TypeAdapter[Any]:
    """The ``tools`` field of ``surface``'s tools/list result model: a list of its ``Tool``."""
    model = SERVER_RESULTS[(_METHOD, surface)]
    return TypeAdapter(model.model_fields["tools"].annotation)  # type: ignore[union-attr,arg-type,maybe-unrecognized-str-typeform]


def _encode(surface: str, tools: Sequence[Mapping[str, Any]]) -> bytes:
    """``tools`` sieved as :func:`sieve_tools` does (the same ``Tool`` model, the same dump
    options) and encoded in the same pass: the JSON array's elements, without the brackets."""
    if not tools:
        return b""
    adapter = _tools_adapter(surface)
    return adapter.dump_json(adapter.validate_python(tools, by_name=False), by_alias=True, exclude_none=True)[1:-1]


def _array(chunks: list[bytes]) -> bytes:
    """``[chunk,chunk,...]`` (empty chunks left out) in one join: one copy of the bytes, not three
    (``b"[" + ... + b"]"`` copies a 5 MB listing twice more, and costs more than the join)."""
    pieces = [b"["]
    for chunk in chunks:
        if chunk:
            pieces += (chunk, b",")
    if len(pieces) > 1:
        pieces[-1] = b"]"
    else:
        pieces.append(b"]")
    return b"".join(pieces)


@dataclass(frozen=True)
class _Part:
    doc: Tab
    names: tuple[str, ...]
    data: bytes


class ListingRenderer:
    """Renders and caches :meth:`Disclosure.listing` as the JSON bytes of its ``tools`` array."""

    def __init__(self, disclosure: Disclosure, *, arrays: int = 32) -> None:
        self.disclosure = disclosure
        self._parts: dict[tuple[Any, ...], _Part] = {}
        self._builtins: dict[tuple[Profile, str], bytes] = {}
        self._arrays: dict[tuple[Any, ...], bytes] = {}
        self._arrays_max = arrays
        self.encodes: Counter[SourceKey] = Counter()
        """How many times each document's part was sieved and encoded (tests read it)."""
        self.array_builds = 0
        """How many whole arrays were assembled (memo misses)."""

    def clear(self) -> None:
        """Forget every rendered part and array."""
        self._parts.clear()
        self._builtins.clear()
        self._arrays.clear()

    def render(
        self,
        view: ClientView | None = None,
        *,
        protocol_version: str,
        profile: Profile | None = None,
        salt: tuple[Any, ...] = (),
    ) -> bytes:
        """The UTF-8 JSON ``tools`` array of ``disclosure.listing(view, profile=profile)`` as the
        SDK would send it at ``protocol_version``. ``salt`` joins the memo key (the bridge core passes its
        revision, as its listings carry it)."""
        surface = surface_of(protocol_version)
        view = view or ClientView()
        profile = profile or self.disclosure.profile
        key = (salt, self.disclosure.listing_key(view, profile=profile), surface)
        hit = self._arrays.get(key)
        if hit is not None:
            return hit
        data = self._assemble(view, profile, surface)
        # Keep it only if nothing it depends on moved while it was built (the trust hook may
        # pin a definition as it is shown, which can bump the hook's version).
        if self.disclosure.listing_key(view, profile=profile) == key[1]:
            if len(self._arrays) >= self._arrays_max or any(k[0] != salt for k in self._arrays):
                self._arrays.clear()
            self._arrays[key] = data
        return data

    def _assemble(self, view: ClientView, profile: Profile, surface: str) -> bytes:
        self.array_builds += 1
        disclosure = self.disclosure
        registry = disclosure.registry
        chunks = [self._builtin_bytes(profile, surface)]
        if profile != "meta" and disclosure.extra_tools is not None:
            chunks.append(_encode(surface, disclosure.extra_tools(view)))
        if profile != "meta":
            core = disclosure.core_set(profile)
            context = (profile, surface, registry.touches, disclosure.policy_check.version, disclosure.hook_version(), core)
            opened: dict[SourceKey, frozenset[str]] = {}
            if view.dynamic and profile == "categories":
                for doc_key, name in view.expanded:
                    opened[doc_key] = opened.get(doc_key, frozenset()) | {name}
            parts = self._parts
            seen: set[SourceKey] = set()
            for doc in registry.documents():
                doc_key = doc.key
                seen.add(doc_key)
                names = registry.document_names(doc_key)
                part_key = (doc_key, context, opened.get(doc_key))
                part = parts.get(part_key)
                if part is None or part.doc is not doc or part.names != names:
                    with registry.charge(doc.origin):  # its tools set the cost (core/stalls.py)
                        tools = disclosure.document_part(doc, view, profile, core=core)
                        part = parts[part_key] = _Part(doc, names, _encode(surface, tools))
                    self.encodes[doc_key] += 1
                chunks.append(part.data)
            if len(parts) > 4 * len(seen) + 64:  # documents gone, counters past: drop what no listing uses now
                for stale in [k for k in parts if k[0] not in seen or k[1][2:] != context[2:]]:
                    del parts[stale]
                for gone in [k for k in self.encodes if k not in seen]:  # a page reloading itself: bounded
                    del self.encodes[gone]
        return _array(chunks)

    def _builtin_bytes(self, profile: Profile, surface: str) -> bytes:
        key = (profile, surface)
        data = self._builtins.get(key)
        if data is None:
            data = self._builtins[key] = _encode(surface, Disclosure.builtins(profile))
        return data
