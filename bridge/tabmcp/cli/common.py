"""What every ``tabmcp`` command shares: stderr output, logging, the config with its flags."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from ..config import Config, load_config


def eprint(*parts: object, end: str = "\n") -> None:
    print(*parts, file=sys.stderr, flush=True, end=end)


def setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
        stream=sys.stderr,
    )


def load(args: argparse.Namespace) -> Config:
    config = load_config(getattr(args, "config", None))
    overrides: dict[str, dict[str, Any]] = {
        "server": {"port": getattr(args, "port", None), "host": getattr(args, "host", None)},
        "disclosure": {"profile": getattr(args, "profile", None)},
        "policy": {"allow_writes": getattr(args, "allow_writes", None), "focus": getattr(args, "focus", None)},
    }
    return config.with_overrides(overrides)


def client_snippets(port: int) -> str:
    from .clients import CLIENTS

    url = f"http://127.0.0.1:{port}/mcp"
    return (
        f"  MCP (Streamable HTTP): {url}\n"
        f"  Claude Code:  claude mcp add --transport http tabmcp {url}\n"
        f"  any client: tabmcp setup {' | '.join(CLIENTS)} (--print for others)\n"
    )
