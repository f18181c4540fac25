"""``tabmcp serve`` and ``tabmcp demo``: run the bridge (and, for the demo, a browser on the demo site)."""

from __future__ import annotations

import argparse
import asyncio

from .. import __version__
from ..config import DEFAULT_PORT
from .common import client_snippets, eprint, load

# -- serve -------------------------------------------------------------------------------


async def serve(args: argparse.Namespace) -> int:
    from ..server.app import BridgeApp, PortInUse

    config = load(args)
    app = BridgeApp(config)

    def ready(port: int) -> None:
        eprint(f"tabmcp {__version__} bridge on 127.0.0.1:{port}")
        eprint(f"  extension WebSocket: ws://127.0.0.1:{port}/extension")
        if args.stdio:
            eprint("  MCP: stdio (and Streamable HTTP at the URL below)")
        eprint(client_snippets(port), end="")
        eprint(f"  disclosure profile: {config.disclosure.profile}")

    try:
        await app.serve(stdio=args.stdio, on_ready=ready, log_level="warning")
    except PortInUse as exc:
        if args.stdio:
            from ..server.relay import Relay, bridge_on_port

            if await bridge_on_port(config.server.port):
                eprint(f"tabmcp: a bridge already runs on port {config.server.port}; relaying to it over stdio")
                await Relay(config).run_stdio()
                return 0
        eprint(f"tabmcp: {exc}. Is another bridge running? Try --port.")
        return 3
    return 0


# -- demo --------------------------------------------------------------------------------


async def demo(args: argparse.Namespace) -> int:
    from ..demo.server import serve_demo_site
    from ..launch.launcher import launch_browser
    from ..server.app import PortInUse, running_bridge

    # The demo site is a sandbox: let the agent change it (writes stay off for `serve`).
    config = load(args).with_overrides({"policy": {"allow_writes": True}})
    try:
        bridge_cm = running_bridge(config)
        bridge = await bridge_cm.__aenter__()
    except PortInUse as exc:
        eprint(f"tabmcp: {exc}. Is another bridge running? Try --port.")
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
                eprint(f"tabmcp demo: Chromium with the extension on {site_url}")
                eprint(
                    f"  extension {'connected' if connected else 'NOT connected'}; "
                    f"{counts['tools']} page tools in {counts['categories']} categories on {counts['tabs']} tab(s)"
                )
                eprint(client_snippets(port), end="")
                flag = "" if port == DEFAULT_PORT else f" --port {port}"
                eprint(f"  try: tabmcp tools{flag}   |   tabmcp call user_management{flag}   |   Ctrl-C to stop")
                if args.exit_after is not None:
                    await asyncio.sleep(args.exit_after)
                else:
                    await asyncio.Event().wait()
    finally:
        await bridge_cm.__aexit__(None, None, None)
    return 0
