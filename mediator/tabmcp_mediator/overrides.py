"""Curated per-domain overrides: the file format and how to load it (file or HTTPS URL).

The format is the one community overrides are shared in::

    {"example.com": {"gt_usr": {"rename": "get_user", "description": "...",
                                "inputSchema": {...}, "category": "account",
                                "argumentMap": {"user_id": "uid"}}}}

Unknown keys are errors: a typo in a hand-written file should fail loudly, not be ignored.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from tabmcp_mediator.errors import OverrideLoadError
from tabmcp_mediator.models import CamelModel, ToolName
from tabmcp_mediator.naming import normalize_source

DEFAULT_TIMEOUT = 10.0

Verify = bool | str | ssl.SSLContext
"""TLS verification: ``True`` (system CAs), ``False``, a CA bundle path, or a context."""


class ToolOverride(CamelModel):
    """What a curator says about one tool; every field is optional."""

    model_config = ConfigDict(extra="forbid")

    rename: ToolName | None = None
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    category: ToolName | None = None
    category_description: str | None = None
    argument_map: dict[str, str] = Field(default_factory=dict)


Overrides = dict[str, dict[str, ToolOverride]]
"""Source (domain) -> the page's tool name -> override."""

_ADAPTER: TypeAdapter[Overrides] = TypeAdapter(Overrides)


def parse_overrides(data: str | bytes, origin: str) -> Overrides:
    """Validate overrides JSON; keys are normalised with :func:`normalize_source`.

    Raises:
        OverrideLoadError: Not JSON, or not in the overrides format.
    """
    try:
        parsed = _ADAPTER.validate_json(data)
    except ValidationError as exc:
        raise OverrideLoadError(f"invalid overrides in {origin}: {exc}") from exc
    return _normalized(parsed)


def validate_overrides(data: Mapping[str, Mapping[str, ToolOverride | Mapping[str, Any]]]) -> Overrides:
    """Validate overrides built in code (dicts or :class:`ToolOverride`), keys normalised.

    Raises:
        OverrideLoadError: Not in the overrides format.
    """
    try:
        parsed = _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise OverrideLoadError(f"invalid overrides: {exc}") from exc
    return _normalized(parsed)


def _normalized(parsed: Overrides) -> Overrides:
    merged: Overrides = {}
    for source, tools in parsed.items():
        merged.setdefault(normalize_source(source), {}).update(tools)
    return merged


def is_url(location: str | Path) -> bool:
    """Tell a URL from a file path (a path never contains ``://``)."""
    return "://" in str(location)


def load_overrides_file(path: str | Path) -> Overrides:
    """Read and validate an overrides file.

    Raises:
        OverrideLoadError: The file cannot be read or is invalid.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise OverrideLoadError(f"cannot read overrides file {path}: {exc}") from exc
    return parse_overrides(data, str(path))


async def fetch_overrides(url: str, *, verify: Verify = True, timeout: float = DEFAULT_TIMEOUT) -> Overrides:
    """Download and validate community overrides over HTTPS.

    Plain HTTP is refused: overrides rewrite what an agent believes a tool does.

    Args:
        url: An ``https://`` URL of an overrides JSON file.
        verify: TLS verification (a CA bundle path for a private or test CA).
        timeout: Seconds for the whole request.

    Raises:
        OverrideLoadError: Not HTTPS, unreachable, TLS failure, non-200, or invalid.
    """
    if urlsplit(url).scheme != "https":
        raise OverrideLoadError(f"overrides URL must use https: {url}")
    try:
        async with httpx.AsyncClient(
            verify=_ssl_verify(verify), timeout=timeout, follow_redirects=True
        ) as client:
            response = await client.get(url)
            response.raise_for_status()
    except httpx.HTTPError as exc:
        raise OverrideLoadError(f"cannot fetch overrides from {url}: {exc}") from exc
    if response.url.scheme != "https":
        raise OverrideLoadError(f"overrides URL redirected away from https: {response.url}")
    return parse_overrides(response.content, url)


def _ssl_verify(verify: Verify) -> bool | ssl.SSLContext:
    """httpx wants a context for a custom CA bundle (a path string is deprecated)."""
    if isinstance(verify, str):
        try:
            return ssl.create_default_context(cafile=verify)
        except (OSError, ssl.SSLError) as exc:
            raise OverrideLoadError(f"cannot load CA bundle {verify}: {exc}") from exc
    return verify
