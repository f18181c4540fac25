"""The ``tabmcp`` command (entry.py: parser and dispatch; a module per command group; install.py: setup ·
doctor · extension · browser, with clients.py, doctor.py and jsonc.py for the MCP clients' config files)."""

from .entry import build_parser, main

__all__ = ["build_parser", "main"]
