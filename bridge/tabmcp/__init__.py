"""tabmcp: serve the WebMCP tools of browser tabs to MCP clients.

The bridge accepts one WebSocket from the tabmcp browser extension, keeps a registry of
every tab's tools and categories, and serves MCP (stdio or Streamable HTTP) to AI clients.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
