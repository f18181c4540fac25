"""The ``tabmcp`` command: serve · demo · pair · tools · call · trust · sites · activity · secrets · config check,
and setup · doctor · extension · browser (cli_install.py).

Everything goes to stderr except command output meant for pipes (``tools``, ``call``,
``config check``), so ``serve --stdio`` keeps stdout for MCP alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from typing import Any

from . import __version__, cli_install
from .config import DEFAULT_PORT, BridgeTarget, Config, load_config
from .errors import BridgeError, ConfigError, SecretError
from .event_loop import run_loop

__all__ = ["main"]

log = logging.getLogger("tabmcp")


def _eprint(*parts: object, end: str = "\n") -> None:
    print(*parts, file=sys.stderr, flush=True, end=end)


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
        stream=sys.stderr,
    )


def _load(args: argparse.Namespace) -> Config:
    config = load_config(getattr(args, "config", None))
    overrides: dict[str, dict[str, Any]] = {
        "server": {"port": getattr(args, "port", None), "host": getattr(args, "host", None)},
        "disclosure": {"profile": getattr(args, "profile", None)},
        "policy": {"allow_writes": getattr(args, "allow_writes", None), "focus": getattr(args, "focus", None)},
    }
    return config.with_overrides(overrides)


def _client_snippets(port: int) -> str:
    from .clients import CLIENTS

    url = f"http://127.0.0.1:{port}/mcp"
    return (
        f"  MCP (Streamable HTTP): {url}\n"
        f"  Claude Code:  claude mcp add --transport http tabmcp {url}\n"
        f"  any client: tabmcp setup {' | '.join(CLIENTS)} (--print for others)\n"
    )


# -- serve -------------------------------------------------------------------------------


async def _serve(args: argparse.Namespace) -> int:
    from .server.app import BridgeApp, PortInUse

    config = _load(args)
    app = BridgeApp(config)

    def ready(port: int) -> None:
        _eprint(f"tabmcp {__version__} bridge on 127.0.0.1:{port}")
        _eprint(f"  extension WebSocket: ws://127.0.0.1:{port}/extension")
        if args.stdio:
            _eprint("  MCP: stdio (and Streamable HTTP at the URL below)")
        _eprint(_client_snippets(port), end="")
        _eprint(f"  disclosure profile: {config.disclosure.profile}")

    try:
        await app.serve(stdio=args.stdio, on_ready=ready, log_level="warning")
    except PortInUse as exc:
        if args.stdio:
            from .server.relay import Relay, bridge_on_port

            if await bridge_on_port(config.server.port):
                _eprint(f"tabmcp: a bridge already runs on port {config.server.port}; relaying to it over stdio")
                await Relay(config).run_stdio()
                return 0
        _eprint(f"tabmcp: {exc}. Is another bridge running? Try --port.")
        return 3
    return 0


# -- demo --------------------------------------------------------------------------------


async def _demo(args: argparse.Namespace) -> int:
    from .demo.server import serve_demo_site
    from .launcher import launch_browser
    from .server.app import PortInUse, running_bridge

    # The demo site is a sandbox: let the agent change it (writes stay off for `serve`).
    config = _load(args).with_overrides({"policy": {"allow_writes": True}})
    try:
        bridge_cm = running_bridge(config)
        bridge = await bridge_cm.__aenter__()
    except PortInUse as exc:
        _eprint(f"tabmcp: {exc}. Is another bridge running? Try --port.")
        return 3
    try:
        async with serve_demo_site(port=args.site_port) as site_url:
            port = bridge.port
            assert port is not None
            bridge_url = f"ws://127.0.0.1:{port}/extension"
            headless = True if args.headless else (False if args.headed else None)
            async with launch_browser(bridge_url=bridge_url, headless=headless, webmcp=args.webmcp) as browser:
                page = browser.context.pages[0] if browser.context.pages else await browser.context.new_page()
                await page.goto(site_url)
                connected = await bridge.core.wait_connected(15)
                # Pages register tools one by one: report once the count has settled (10 s at most).
                last, steady = -1, 0
                for _ in range(100):
                    count = bridge.core.registry.counts()["tools"]
                    steady = steady + 1 if count == last and count else 0
                    last = count
                    if steady >= 5:
                        break
                    await asyncio.sleep(0.1)
                counts = bridge.core.registry.counts()
                _eprint(f"tabmcp demo: Chromium with the extension on {site_url}")
                _eprint(
                    f"  extension {'connected' if connected else 'NOT connected'}; "
                    f"{counts['tools']} page tools in {counts['categories']} categories on {counts['tabs']} tab(s)"
                )
                _eprint(_client_snippets(port), end="")
                flag = "" if port == DEFAULT_PORT else f" --port {port}"
                _eprint(f"  try: tabmcp tools{flag}   |   tabmcp call user_management{flag}   |   Ctrl-C to stop")
                if args.exit_after is not None:
                    await asyncio.sleep(args.exit_after)
                else:
                    await asyncio.Event().wait()
    finally:
        await bridge_cm.__aexit__(None, None, None)
    return 0


# -- tools / call ------------------------------------------------------------------------


def _auth_headers(target: BridgeTarget) -> dict[str, str]:
    """The bearer token from the config file, for a bridge that requires one."""
    token = target.config.server.mcp_token
    return {"Authorization": f"Bearer {token}"} if token else {}


def _client(args: argparse.Namespace) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    target = cli_install.bridge_for(args.port)
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


async def _tools(args: argparse.Namespace) -> int:
    from .core.disclosure import read_category_marker

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


async def _call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args) if args.args else {}
    except json.JSONDecodeError as exc:
        _eprint(f"tabmcp: --args is not valid JSON: {exc}")
        return 2
    if not isinstance(arguments, dict):
        _eprint("tabmcp: --args must be a JSON object")
        return 2
    async with _client(args) as client:
        result = await client.call_tool(args.name, arguments)
    if args.json:
        print(json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"), indent=2))
    else:
        for block in result.content:
            print(getattr(block, "text", None) or block.model_dump_json())
    return 1 if result.is_error else 0


async def _tokens(args: argparse.Namespace) -> int:
    import httpx

    from .core.tokens import get_counter, profile_report

    target = cli_install.bridge_for(args.port)
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


# -- trust -------------------------------------------------------------------------------


def _trust(args: argparse.Namespace) -> int:
    """Show or clear the lockdown, show or accept changed tool definitions (the bridge's SQLite file)."""
    from .core.trust.guard import TrustGuard
    from .storage.build import db_path
    from .storage.trust import TrustStore

    config = load_config(args.config)
    guard = TrustGuard(config.trust, TrustStore(db_path(config.store.path)))
    lockdown, pins = guard.lockdown, guard.pins
    if args.trust_command == "clear":
        print(f"cleared {lockdown.clear()} flag(s): writes no longer need approval because of them")
        return 0
    if args.trust_command == "accept":
        if not pins.accept(args.origin, args.tool):
            _eprint(f"tabmcp: no changed definition of {args.tool} on {args.origin}")
            return 1
        print(f"accepted the new definition of {args.tool} on {args.origin}")
        return 0
    flags = lockdown.active()
    changed = pins.records(changed_only=True)
    if args.json:
        print(json.dumps({
            "lockdown": [f.__dict__ for f in flags],
            "changed": [{"origin": r.origin, "tool": r.name, "changedAt": r.changed_at, "documentUrl": r.document_url,
                         "diff": r.diff} for r in changed],
        }, indent=2, default=list))
        return 0
    if flags:
        print(f"LOCKDOWN: {len(flags)} flagged result(s); write tools need approval (clear: tabmcp trust clear)")
        for f in flags:
            print(f"  {f.tool} on {f.origin}: {'; '.join(f.reasons)}")
    else:
        print("no lockdown")
    if changed:
        print(f"{len(changed)} changed tool definition(s) (accept: tabmcp trust accept ORIGIN TOOL):")
        for r in changed:
            print(f"  {r.name} on {r.origin} (registered by {r.document_url or '?'})")
            print("    " + r.diff.replace("\n", "\n    "))
    else:
        print("no changed tool definitions")
    return 0


# -- sites -------------------------------------------------------------------------------


def _sites(args: argparse.Namespace) -> int:
    """List reachable sites and their stored tools by page; allow or forget one (the bridge's SQLite
    file; a running bridge follows within a second: server/shared_state.py)."""
    import datetime

    from .core.sites import Sites
    from .core.trust.pins import Pins
    from .storage.database import UsageStore, default_db_path
    from .storage.sites import SiteStore
    from .storage.trust import TrustStore

    config = load_config(args.config)
    path = config.store.path or default_db_path()
    usage = UsageStore(path)
    sites = Sites(config.policy, Pins(TrustStore(path)), SiteStore(path), usage=usage)
    try:
        if args.sites_command == "forget":
            if not sites.forget(args.origin):
                _eprint(f"tabmcp: nothing stored for {args.origin}")
                return 1
            print(f"forgot {args.origin}: its stored tool definitions, usage and permission")
            return 0
        if args.sites_command == "allow":
            if not sites.allow(args.origin) and not sites.reachable(args.origin):
                _eprint(f"tabmcp: {args.origin} is not an http(s) origin, or the config disables it")
                return 1
            print(f"agents may open {args.origin}")
            return 0
        listed = sites.list()
        if args.json:
            print(json.dumps([s.to_dict() for s in listed], indent=2, ensure_ascii=False))
            return 0
        if not listed:
            print("no reachable sites (allow one in the popup, or [[policy.origins]] reachable = true)")
            return 0
        for site in listed:
            seen = datetime.datetime.fromtimestamp(site.last_seen).isoformat(" ", "seconds") if site.last_seen else "never"
            state = "reachable" if site.reachable else "not reachable"
            pages = site.pages()
            print(f"{site.origin}  {state} ({site.allowed_by or '-'}), {len(site.tools)} tools on "
                  f"{len(pages)} page{'s' * (len(pages) != 1)}, last seen {seen}")
            for url, tools in pages.items():
                print(f"  {url}")
                for t in tools:
                    print(f"    {t.name}{'  (stale: its page no longer offers it)' if t.stale else ''}")
    finally:
        usage.close()
    return 0


# -- activity ----------------------------------------------------------------------------


def _activity(args: argparse.Namespace) -> int:
    """What agents did in the tabs, newest first (the activity log in the bridge's SQLite file)."""
    import datetime

    from .storage.build import activity_log

    config = load_config(args.config)
    log = activity_log(config.store.path, max_rows=config.store.activity_rows)
    try:
        entries = log.latest(args.limit, origin=args.origin, tab_id=args.tab)
    finally:
        log.close()
    if args.json:
        print(json.dumps([e.to_dict() for e in entries], indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        when = datetime.datetime.fromtimestamp(e.at).strftime("%Y-%m-%d %H:%M:%S")
        tab = f"tab {e.tab_id}" if e.tab_id is not None else "no tab"
        print(f"{when}  {e.client or '?'}  {e.tool}  {e.origin or '?'} ({tab})  {e.outcome}  {e.duration_ms:.0f} ms")
        if e.arguments:
            print(f"    args:   {e.arguments}")
        if e.result:
            print(f"    result: {e.result}")
    if not entries:
        print("no activity")
    return 0


# -- controls ----------------------------------------------------------------------------


def _controls(args: argparse.Namespace) -> int:
    """Show or set the person's switches (pause, writes, origins off) in the bridge's SQLite file;
    a running bridge picks a change up within a second."""
    from .core.controls import InvalidOrigin
    from .storage.build import person_controls

    config = load_config(args.config)
    controls = person_controls(config.store.path)
    try:
        what = args.controls_command
        if what in ("pause", "resume"):
            controls.set_paused(what == "pause")
        elif what == "writes":
            controls.set_writes({"on": True, "off": False, "config": None}[args.value])
        elif what == "origin":
            try:
                controls.set_origin(args.origin, args.value == "on")
            except InvalidOrigin as exc:
                _eprint(f"tabmcp: {exc}")
                return 2
        state = controls.state()
    finally:
        controls.close()
    if args.json:
        print(json.dumps(state.to_dict(), indent=2))
        return 0
    print("agents: PAUSED (calls answer PAUSED; resume: tabmcp controls resume)" if state.paused else "agents: running")
    writes = {True: "on (your switch)", False: "off (your switch)", None: f"as the config says ({config.policy.allow_writes})"}
    print(f"writes: {writes[state.writes]}")
    print("origins switched off: " + (", ".join(state.origins_off) or "none"))
    return 0


# -- secrets -----------------------------------------------------------------------------


def _read_value(name: str) -> str:
    """The value from a prompt that does not echo (a terminal), else from stdin: never from argv,
    where other users' ``ps`` and the shell's history would see it."""
    if sys.stdin.isatty():
        import getpass

        first = getpass.getpass(f"value of {name}: ")
        if getpass.getpass(f"value of {name} (again): ") != first:
            raise SecretError("the two values differ; nothing was kept")
        return first
    return sys.stdin.readline()


def _secrets(args: argparse.Namespace) -> int:
    """Keep, list, remove and import secrets bound to sites (storage/secret_store.py; docs/security.md)."""
    import datetime

    from .storage.secret_store import SecretStore

    config = load_config(args.config)
    store = SecretStore(config.store.path, kind=config.store.secrets)
    try:
        what = args.secrets_command
        if what == "set":
            info = store.set(args.name, _read_value(args.name), args.site)
            print(f"kept {info.name} in the {store.values.label}, for {', '.join(info.sites)}")
            print(f"agents pass it as {{{{secret:{info.name}}}}}")
            return 0
        if what == "remove":
            store.remove(args.name)
            print(f"removed {args.name}")
            return 0
        if what == "unbind":
            store.unbind(args.name, args.site)
            print(f"{args.name} is no longer put into {args.site}'s tools")
            return 0
        if what == "import":
            from dotenv import dotenv_values

            pairs = dotenv_values(args.file)
            kept = 0
            for name, value in pairs.items():
                if value is None:
                    _eprint(f"tabmcp: {name} has no value in {args.file}; skipped")
                    continue
                store.set(name, value, args.site)
                kept += 1
            print(f"kept {kept} secret(s) from {args.file} in the {store.values.label}, for {', '.join(args.site)}")
            return 0
        listed = store.all()
        if args.json:
            print(json.dumps({"store": store.values.label, "secrets": [i.to_dict() for i in listed]}, indent=2))
            return 0
        for info in listed:
            used = (datetime.datetime.fromtimestamp(info.last_used).isoformat(" ", "seconds")
                    if info.last_used else "never")
            print(f"{info.name}  {', '.join(info.sites)}  last used {used}")
        print(f"{len(listed)} secret(s); values in the {store.values.label}", file=sys.stderr)
        return 0
    finally:
        store.close()


# -- pair --------------------------------------------------------------------------------


async def _pair(args: argparse.Namespace) -> int:
    """Confirm the code the extension's popup shows, or list / forget pairings (the running
    bridge's control API, with the control key only this user can read)."""
    from .control import ControlClient
    from .errors import PairingError

    client = ControlClient(cli_install.bridge_for(args.port, args.config).port)
    if args.forget:
        try:
            await client.forget(args.forget)
        except PairingError as exc:
            _eprint(f"tabmcp: {exc.message}")
            return 1
        _eprint(f"forgot pairing {args.forget}; that browser must pair again")
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
            _eprint(f"waiting: {pending['label']} (code valid {pending['expiresInS']} s more; it is shown in that "
                    "browser's tabmcp popup)")
        if not args.code and not args.list:
            _eprint("to pair a browser: open the tabmcp popup there and run `tabmcp pair CODE` with the code it shows")
        return 0
    try:
        result = await client.pair(args.code)
    except PairingError as exc:
        _eprint(f"tabmcp: {exc.message}")
        return 1
    pairing = result["pairing"]
    _eprint(f"paired {pairing['label']} (id {pairing['id']}); the extension connects now")
    return 0


# -- config ------------------------------------------------------------------------------


def _config_check(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    config.check_binding()
    print(json.dumps(config.model_dump(mode="json"), indent=2))
    _eprint("config OK")
    return 0


# -- entry -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabmcp", description="Serve your browser tabs' WebMCP tools over MCP.")
    parser.add_argument("--version", action=cli_install.VersionAction)
    parser.add_argument("--log-level", default="warning", help="debug, info, warning (default), error")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", help="config file (default: $TABMCP_CONFIG or ~/.config/tabmcp/config.toml)")
        p.add_argument("--port", type=int, help=f"bridge port (default {DEFAULT_PORT})")
        p.add_argument("--host", help="address to bind (default 127.0.0.1; loopback only unless allowed)")
        p.add_argument("--profile", choices=["passthrough", "categories", "meta", "hybrid"], help="disclosure profile")
        p.add_argument("--allow-writes", action="store_true", default=None, help="let tools that may change data run")
        p.add_argument("--focus", help="focus mode: full, read-only, or one from the config")

    serve = sub.add_parser("serve", help="run the bridge (extension WebSocket + MCP)")
    common(serve)
    serve.add_argument("--stdio", action="store_true", help="serve MCP on stdin/stdout (for clients that launch it)")

    demo = sub.add_parser("demo", help="bridge + Chromium with the extension on the demo site")
    common(demo)
    demo.add_argument("--site-port", type=int, default=0, help="port of the demo site (default: any free)")
    demo.add_argument("--headless", action="store_true", help="no browser window (default when there is no display)")
    demo.add_argument("--headed", action="store_true", help="show the browser window")
    demo.add_argument("--webmcp", action="store_true", help="enable Chromium's native WebMCP (the polyfill layers on it)")
    demo.add_argument("--exit-after", type=float, help=argparse.SUPPRESS)

    tools = sub.add_parser("tools", help="list what the running bridge exposes")
    tools.add_argument("--port", type=int, help=f"bridge port (default: the config's, {DEFAULT_PORT})")
    tools.add_argument("--url", help="MCP URL (default http://127.0.0.1:PORT/mcp)")
    tools.add_argument("--json", action="store_true")

    call = sub.add_parser("call", help="run a tool through the running bridge")
    call.add_argument("name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--port", type=int, help=f"bridge port (default: the config's, {DEFAULT_PORT})")
    call.add_argument("--url")
    call.add_argument("--json", action="store_true", help="print the whole CallToolResult")

    tokens = sub.add_parser("tokens", help="tokens tools/list costs in each disclosure profile, now")
    tokens.add_argument("--port", type=int, help=f"bridge port (default: the config's, {DEFAULT_PORT})")
    tokens.add_argument("--json", action="store_true")

    trust = sub.add_parser("trust", help="the lockdown and changed tool definitions: show, clear, accept")
    trust_sub = trust.add_subparsers(dest="trust_command")
    trust.set_defaults(trust_command="status")
    status = trust_sub.add_parser("status", help="show the lockdown and changed definitions (the default)")
    status.add_argument("--json", action="store_true")
    trust_sub.add_parser("clear", help="clear the lockdown (after you checked the flagged results)")
    accept = trust_sub.add_parser("accept", help="accept a tool's changed definition")
    accept.add_argument("origin")
    accept.add_argument("tool")
    trust.add_argument("--config", help="config file (its store.path names the database)")
    for p in trust_sub.choices.values():
        p.add_argument("--config", default=argparse.SUPPRESS, help="config file (its store.path names the database)")
    trust.set_defaults(json=False)

    sites = sub.add_parser("sites", help="reachable sites (agents may open them): list, allow, forget")
    sites_sub = sites.add_subparsers(dest="sites_command")
    sites.set_defaults(sites_command="list")
    sites_sub.add_parser("list", help="list reachable sites and their stored tools (the default)")
    allow = sites_sub.add_parser("allow", help="let agents open a site (as the popup's switch does)")
    allow.add_argument("origin", help="e.g. https://ferry.example")
    forget = sites_sub.add_parser("forget", help="forget a site: stored definitions, usage, permission")
    forget.add_argument("origin")
    for p in (sites, *sites_sub.choices.values()):
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
        p.add_argument("--config", default=argparse.SUPPRESS, help="config file (its store.path names the database)")
    sites.set_defaults(json=False, config=None)

    activity = sub.add_parser("activity", help="what agents did in your tabs, newest first")
    activity.add_argument("--limit", type=int, default=20, help="how many entries (default 20)")
    activity.add_argument("--origin", help="only calls to this origin (e.g. https://example.com)")
    activity.add_argument("--tab", type=int, help="only calls to this tab id")
    activity.add_argument("--json", action="store_true")
    activity.add_argument("--config", help="config file (its store.path names the database)")

    controls = sub.add_parser("controls", help="your switches: pause agents, writes on/off, an origin's tools off")
    controls_sub = controls.add_subparsers(dest="controls_command")
    controls.set_defaults(controls_command="status")
    controls_sub.add_parser("status", help="show the switches (the default)")
    controls_sub.add_parser("pause", help="every agent call answers PAUSED until you resume")
    controls_sub.add_parser("resume", help="agents may call tools again")
    writes = controls_sub.add_parser("writes", help="tools that may change data: on, off, or as the config says")
    writes.add_argument("value", choices=["on", "off", "config"])
    origin = controls_sub.add_parser("origin", help="show (on) or hide (off) an origin's tools from agents")
    origin.add_argument("origin", help="e.g. https://shop.example")
    origin.add_argument("value", choices=["on", "off"])
    for p in (controls, *controls_sub.choices.values()):
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
        p.add_argument("--config", default=argparse.SUPPRESS, help="config file (its store.path names the database)")
    controls.set_defaults(json=False, config=None)

    secrets = sub.add_parser("secrets", help="secrets agents use by name, bound to sites: set, list, remove, import")
    secrets_sub = secrets.add_subparsers(dest="secrets_command")
    secrets.set_defaults(secrets_command="list")
    secrets_sub.add_parser("list", help="names, sites and last use (never values; the default)")
    secret_set = secrets_sub.add_parser("set", help="keep a secret (its value from a prompt, or stdin)")
    secret_set.add_argument("name", help="a letter, then letters, digits or _")
    secret_set.add_argument("--site", action="append", required=True, help="an origin it may go to (repeatable)")
    secret_remove = secrets_sub.add_parser("remove", help="forget a secret and its value")
    secret_remove.add_argument("name")
    secret_unbind = secrets_sub.add_parser("unbind", help="take one site off a secret")
    secret_unbind.add_argument("name")
    secret_unbind.add_argument("site")
    secret_import = secrets_sub.add_parser("import", help="keep every NAME=value of a dotenv file (Playwright MCP's --secrets)")
    secret_import.add_argument("file")
    secret_import.add_argument("--site", action="append", required=True, help="an origin they may go to (repeatable)")
    for p in (secrets, *secrets_sub.choices.values()):
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
        p.add_argument("--config", default=argparse.SUPPRESS, help="config file (its store.path names the database)")
    secrets.set_defaults(json=False, config=None)

    pair = sub.add_parser("pair", help="pair a browser's extension with the running bridge (the code its popup shows)")
    pair.add_argument("code", nargs="?", help="the code the extension's popup shows, e.g. 123-456")
    pair.add_argument("--list", action="store_true", help="list pairings and browsers waiting to pair")
    pair.add_argument("--forget", metavar="ID", help="remove a pairing (that browser must pair again)")
    pair.add_argument("--port", type=int, help=f"bridge port (default: the config's, {DEFAULT_PORT})")
    pair.add_argument("--config", help="config file")
    pair.add_argument("--json", action="store_true", help="--list as JSON")

    cli_install.add_parsers(sub)

    config = sub.add_parser("config", help="configuration")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    check = config_sub.add_parser("check", help="validate a config file and print the effective settings")
    check.add_argument("--config")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _setup_logging(args.log_level)
    try:
        if args.command in cli_install.COMMANDS:
            return cli_install.run(args)
        if args.command == "serve":
            return run_loop(_serve(args))
        if args.command == "demo":
            return run_loop(_demo(args))
        if args.command == "pair":
            return run_loop(_pair(args))
        if args.command == "tools":
            return run_loop(_tools(args))
        if args.command == "call":
            return run_loop(_call(args))
        if args.command == "tokens":
            return run_loop(_tokens(args))
        if args.command == "trust":
            return _trust(args)
        if args.command == "sites":
            return _sites(args)
        if args.command == "activity":
            return _activity(args)
        if args.command == "controls":
            return _controls(args)
        if args.command == "secrets":
            return _secrets(args)
        if args.command == "config":
            return _config_check(args)
    except KeyboardInterrupt:
        return 130
    except ConfigError as exc:
        _eprint(f"tabmcp: {exc}")
        return 2
    except BridgeError as exc:
        _eprint(f"tabmcp: {exc}")
        return 1
    except OSError as exc:
        _eprint(f"tabmcp: {exc}")
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
