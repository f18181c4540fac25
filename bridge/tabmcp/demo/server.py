"""Serve the demo site (and the polyfill at ``/webmcp-polyfill.js``) on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..assets import demo_site_dir, polyfill_path
from ..server.app import bind_socket

__all__ = ["demo_app", "serve_demo_site"]


def demo_app(site_dir: Path | None = None) -> Starlette:
    """The site in ``site_dir`` (default: the demo site) plus the polyfill at ``/webmcp-polyfill.js``."""
    async def polyfill(_request: object) -> Response:
        return FileResponse(polyfill_path(), media_type="text/javascript", headers={"Cache-Control": "no-store"})

    return Starlette(
        routes=[
            Route("/webmcp-polyfill.js", polyfill),
            Mount("/", StaticFiles(directory=site_dir or demo_site_dir(), html=True), name="site"),
        ]
    )


@contextlib.asynccontextmanager
async def serve_demo_site(
    host: str = "127.0.0.1", port: int = 0, *, site_dir: Path | None = None
) -> AsyncIterator[str]:
    """Run the demo site (or ``site_dir``) for the duration of the block; yields its base URL."""
    sock = bind_socket(host, port)
    real_port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(demo_app(site_dir), log_level="warning", lifespan="off"))
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task
        await asyncio.sleep(0.01)
    try:
        yield f"http://{host}:{real_port}/"
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)
        sock.close()
