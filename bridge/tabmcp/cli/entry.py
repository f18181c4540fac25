"""The ``tabmcp`` command's parser and dispatch: serve · demo (serve.py) · pair · tools · call · tokens (remote.py) ·
trust · sites · activity · controls · secrets · config check (state.py), and setup · doctor · extension · browser
(install.py).

Everything goes to stderr except command output meant for pipes (``tools``, ``call``,
``config check``), so ``serve --stdio`` keeps stdout for MCP alone.
"""

from __future__ import annotations

import argparse

from ..config import DEFAULT_PORT
from ..errors import BridgeError, ConfigError
from ..event_loop import run_loop
from . import common, install, remote, serve, state

__all__ = ["build_parser", "main"]


# -- entry -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabmcp", description="Serve your browser tabs' WebMCP tools over MCP.")
    parser.add_argument("--version", action=install.VersionAction)
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

    install.add_parsers(sub)

    config = sub.add_parser("config", help="configuration")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    check = config_sub.add_parser("check", help="validate a config file and print the effective settings")
    check.add_argument("--config")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    common.setup_logging(args.log_level)
    try:
        if args.command in install.COMMANDS:
            return install.run(args)
        if args.command == "serve":
            return run_loop(serve.serve(args))
        if args.command == "demo":
            return run_loop(serve.demo(args))
        if args.command == "pair":
            return run_loop(remote.pair(args))
        if args.command == "tools":
            return run_loop(remote.tools(args))
        if args.command == "call":
            return run_loop(remote.call(args))
        if args.command == "tokens":
            return run_loop(remote.tokens(args))
        if args.command == "trust":
            return state.trust(args)
        if args.command == "sites":
            return state.sites(args)
        if args.command == "activity":
            return state.activity(args)
        if args.command == "controls":
            return state.controls(args)
        if args.command == "secrets":
            return state.secrets(args)
        if args.command == "config":
            return state.config_check(args)
    except KeyboardInterrupt:
        return 130
    except ConfigError as exc:
        common.eprint(f"tabmcp: {exc}")
        return 2
    except BridgeError as exc:
        common.eprint(f"tabmcp: {exc}")
        return 1
    except OSError as exc:
        common.eprint(f"tabmcp: {exc}")
        return 1
    return 2

