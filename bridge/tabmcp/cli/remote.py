"""Commands that talk to the running bridge: ``tools``, ``call``, ``tokens`` (its MCP and HTTP API) and
``pair`` (its control API)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from typing import Any

from ..config import BridgeTarget
from . import install
from .common import eprint

# -- tools / call ------------------------------------------------------------------------


def _auth_headers(target: BridgeTarget) -> dict[str, str]:
    """The bearer token from the config file, for a bridge that requires one."""
    token = target.config.server.mcp_token
    return {"Authorization": f"Bearer {token}"} if token else {}


def _client(args: argparse.Namespace) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    target = install.bridge_for(args.port)
    url = args.url or f"http://127.0.0.1:{target.port}/mcp"
    headers = _auth_headers(target)
    if not headers:
        return Client(url)
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers)))


class _UnlistedToolNote(logging.Filter):
    """The SDK client warns when a called tool is not in its list; ``introspect`` is not listed in
    the default profile on purpose, and the CLI reads its answer without a schema."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "not listed by server" not in record.getMessage()


async def tools(args: argparse.Namespace) -> int:
    from ..core.disclosure import read_category_marker

    async with _client(args) as client:
        result = await client.list_tools(cache_mode="bypass")
        quiet = _UnlistedToolNote()
        sdk_log = logging.getLogger("client")  # the SDK's session logger (mcp/client/session.py)
        sdk_log.addFilter(quiet)
        try:
            overview = None if args.json else await client.call_tool("introspect", {})
        finally:
            sdk_log.removeFilter(quiet)
    tools = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in result.tools]
    if args.json:
        print(json.dumps(tools, indent=2))
        return 0
    for tool in tools:
        meta = tool.get("_meta") or {}
        # A listed category carries no _meta: the bridge's bracket opening its description says it.
        cat = read_category_marker(tool.get("description") or "")
        kind = "builtin" if meta.get("tabmcp/builtin") else ("category" if cat else "tool")
        source = (meta.get("tabmcp/source") or {}).get("origin", "") or (cat[0] if cat else "")
        extra = f" ({cat[1]} tools)" if cat else ""
        print(f"{tool['name']:<40} {kind:<9}{extra:<12} {source}")
    # Nothing a page offered is dropped silently: what the bridge refused, and why (introspect's word).
    data = overview.structured_content if overview is not None and not overview.is_error else None
    for src in (data or {}).get("sources", []):
        for r in src.get("refused", []):
            print(f"refused {r['kind']} {r['name']!r} on {src.get('origin', '')}: {r['reason']}")
    print(f"{len(tools)} tools", file=sys.stderr)
    return 0


async def call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args) if args.args else {}
    except json.JSONDecodeError as exc:
        eprint(f"tabmcp: --args is not valid JSON: {exc}")
        return 2
    if not isinstance(arguments, dict):
        eprint("tabmcp: --args must be a JSON object")
        return 2
    async with _client(args) as client:
        result = await client.call_tool(args.name, arguments)
    if args.json:
        print(json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"), indent=2))
    else:
        for block in result.content:
            print(getattr(block, "text", None) or block.model_dump_json())
    return 1 if result.is_error else 0


async def tokens(args: argparse.Namespace) -> int:
    import httpx

    from ..core.tokens import get_counter, profile_report

    target = install.bridge_for(args.port)
    async with httpx.AsyncClient(timeout=30, headers=_auth_headers(target)) as http:
        response = await http.get(f"http://127.0.0.1:{target.port}/api/listings")
        response.raise_for_status()
        listings = response.json()
    counter = get_counter()
    reports = profile_report(listings, counter)
    if args.json:
        print(json.dumps({"encoding": counter.label, "profiles": [r.__dict__ for r in reports]}, indent=2))
        return 0
    print(f"tools/list cost per disclosure profile ({counter.label})")
    print(f"{'profile':<12} {'tools':>6} {'tokens':>8}  below passthrough")
    for r in reports:
        saving = "baseline" if r.saving is None else f"{r.saving:.1%}"
        print(f"{r.profile:<12} {r.tools:>6} {r.tokens:>8}  {saving}")
    return 0


# -- pair --------------------------------------------------------------------------------


async def pair(args: argparse.Namespace) -> int:
    """Confirm the code the extension's popup shows, or list / forget pairings (the running
    bridge's control API, with the control key only this user can read)."""
    from ..control_key import ControlClient
    from ..errors import PairingError

    client = ControlClient(install.bridge_for(args.port, args.config).port)
    if args.forget:
        try:
            await client.forget(args.forget)
        except PairingError as exc:
            eprint(f"tabmcp: {exc.message}")
            return 1
        eprint(f"forgot pairing {args.forget}; that browser must pair again")
        return 0
    if args.list or not args.code:
        data = await client.pairings()
        if args.json:
            print(json.dumps(data, indent=2))
            return 0
        rows = data.get("pairings") or []
        for row in rows:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row["created"]))
            seen = time.strftime("%Y-%m-%d %H:%M", time.localtime(row["lastSeen"])) if row.get("lastSeen") else "never"
            tags = " (connected)" if row["id"] in (data.get("linked") or [data.get("connected")]) else ""
            tags += " (launcher, this run only)" if row.get("ephemeral") else ""
            print(f"{row['id']}  {row['label']:<24} paired {when}  last seen {seen}{tags}")
        print(f"{len(rows)} pairing(s)", file=sys.stderr)
        for pending in data.get("pending") or []:
            eprint(f"waiting: {pending['label']} (code valid {pending['expiresInS']} s more; it is shown in that "
                    "browser's tabmcp popup)")
        if not args.code and not args.list:
            eprint("to pair a browser: open the tabmcp popup there and run `tabmcp pair CODE` with the code it shows")
        return 0
    try:
        result = await client.pair(args.code)
    except PairingError as exc:
        eprint(f"tabmcp: {exc.message}")
        return 1
    pairing = result["pairing"]
    eprint(f"paired {pairing['label']} (id {pairing['id']}); the extension connects now")
    return 0
