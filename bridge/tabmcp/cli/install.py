"""The ``tabmcp`` commands that install and connect: setup · doctor · extension · browser, and
``--version`` (which names the search model in use).

The work is in :mod:`tabmcp.cli.clients` (config files), :mod:`tabmcp.cli.doctor` (the checks) and
:mod:`tabmcp.launch.agent_browser`; this module only parses and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .. import __version__
from ..config import DEFAULT_PORT, BridgeTarget, bridge_target

__all__ = ["COMMANDS", "VersionAction", "add_parsers", "bridge_for", "run"]

COMMANDS = ("setup", "doctor", "extension", "browser")


class VersionAction(argparse.Action):
    """``--version``: the version and the search model, looked up only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and the search model in use")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from ..model import version_line

        print(version_line(__version__))
        parser.exit()


def add_parsers(sub: Any) -> None:
    from .clients import CLIENTS

    setup = sub.add_parser("setup", help="connect an MCP client: write its config with this installation's path",
                           description="Add tabmcp to an MCP client's config file (idempotent; the previous file "
                                       "is kept as FILE.tabmcp.bak; other servers are never removed).")
    setup.add_argument("client", nargs="?", choices=list(CLIENTS), help="the client to set up")
    setup.add_argument("--http", nargs="?", const="", metavar="URL",
                       help="connect over Streamable HTTP to the running bridge (default URL http://127.0.0.1:PORT/mcp) "
                            "instead of starting tabmcp over stdio")
    setup.add_argument("--dry-run", action="store_true", help="show the change as a diff, write nothing")
    setup.add_argument("--print", action="store_true", help="print the server entry (for any other client)")
    setup.add_argument("--name", default="tabmcp", help="the server's name in the client (default tabmcp)")
    setup.add_argument("--port", type=int, help=f"bridge port (default: the config's, {DEFAULT_PORT})")
    setup.add_argument("--config-file", help="write this file instead of the client's usual one")
    setup.add_argument("--config", help="tabmcp's config file (its server.port)")

    doctor = sub.add_parser("doctor", help="check every link (install, config, bridge, extension, model, clients)")
    doctor.add_argument("--json", action="store_true", help="the checks as JSON")
    doctor.add_argument("--port", type=int, help="bridge port (default: the config's)")
    doctor.add_argument("--config", help="tabmcp's config file")
    doctor.add_argument("--no-load", action="store_true", help="do not load the search model (faster)")

    sub.add_parser("extension", help="where the packaged browser extension is, and how to load it")

    browser = sub.add_parser("browser", help="start Chromium/Chrome as an agent browser: own profile, extension "
                                             "loaded and paired, native WebMCP on")
    browser.add_argument("url", nargs="?", help="a page to open")
    browser.add_argument("--port", type=int, help="bridge port (default: the config's)")
    browser.add_argument("--config", help="tabmcp's config file")
    browser.add_argument("--profile-dir", help="the browser profile (default $XDG_STATE_HOME/tabmcp/browser-profile)")
    browser.add_argument("--headless", action="store_true", help=argparse.SUPPRESS)
    browser.add_argument("--exit-after", type=float, help=argparse.SUPPRESS)


def bridge_for(port: int | None, config: str | None = None) -> BridgeTarget:
    """:func:`tabmcp.config.bridge_target` for a command: a config that does not load is said on
    stderr, and the command goes on with ``--port`` or the default."""
    target = bridge_target(port, config)
    if target.error is not None:
        print(f"tabmcp: {target.error}\n  (ignored here: using port {target.port})", file=sys.stderr)
    return target


def _target(args: argparse.Namespace) -> BridgeTarget:
    return bridge_for(args.port, args.config)


def _setup(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .clients import CLIENTS, apply, plan, this_launch

    port = _target(args).port
    http = None if args.http is None else (args.http or f"http://127.0.0.1:{port}/mcp")
    launch = this_launch(port=port, http=http)
    if args.client is None:
        if not args.print:
            print("tabmcp setup: name a client (" + ", ".join(CLIENTS) + ") or use --print", file=sys.stderr)
            return 2
        entry: dict[str, Any] = {"url": launch.url} if launch.is_http else {
            "command": launch.command, "args": list(launch.args)}
        print(json.dumps({"mcpServers": {args.name: entry}}, indent=2))
        return 0
    client = CLIENTS[args.client]
    if args.print:
        print(json.dumps({client.servers_key: {args.name: client.entry(launch)}}, indent=2))
        return 0
    change = plan(client, launch, name=args.name, path=Path(args.config_file) if args.config_file else None)
    if args.dry_run:
        if change.changed:
            print(change.diff(), end="")
            print(f"(dry run: {change.path} not written)", file=sys.stderr)
        else:
            print(f"{change.path} already starts this tabmcp: nothing to change", file=sys.stderr)
        return 0
    if not change.changed:
        print(f"{client.label}: {change.path} already has tabmcp ({launch.url or launch.command}); nothing changed")
        return 0
    backup = apply(change)
    # What was done goes to stdout (it is the command's result); stderr is for what went wrong.
    print(f"{client.label}: tabmcp added to {change.path}" + (f" (previous file kept as {backup})" if backup else ""))
    print(f"  {'URL' if launch.is_http else 'command'}: {launch.url or ' '.join([launch.command or '', *launch.args])}")
    print(f"  restart {client.label} to load it; `tabmcp doctor` checks the rest")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from .doctor import diagnose, exit_code, gather, render, to_json

    facts = gather(config=args.config, port=args.port, load_model=not args.no_load)
    checks = diagnose(facts)
    if args.json:
        print(json.dumps(to_json(facts, checks), indent=2))
    else:
        print(render(checks))
    return exit_code(checks)


def _extension(args: argparse.Namespace) -> int:
    from ..launch.agent_browser import extension_folder, extension_steps

    print(extension_steps(extension_folder()))
    return 0


def _browser(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..event_loop import run_loop
    from ..launch.agent_browser import run_browser

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    target = _target(args)
    return run_loop(run_browser(port=target.port, url=args.url, headless=True if args.headless else None,
                                profile=Path(args.profile_dir) if args.profile_dir else None,
                                store_path=target.config.store.path, exit_after=args.exit_after, say=say))


def run(args: argparse.Namespace) -> int:
    return {"setup": _setup, "doctor": _doctor, "extension": _extension, "browser": _browser}[args.command](args)
