"""The demo: a back-office web app whose pages register WebMCP tools, and its little server."""
