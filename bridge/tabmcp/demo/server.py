"""Serve the demo site (and the polyfill at ``/webmcp-polyfill.js``) on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..packaging.assets import demo_site_dir, polyfill_path
from ..server.app import bind_socket
from .api import api_routes

__all__ = ["demo_app", "serve_demo_site"]


def demo_app(site_dir: Path | None = None, files: dict[str, Path] | None = None) -> Starlette:
    """The site in ``site_dir`` (default: the demo site), the polyfill at ``/webmcp-polyfill.js``,
    and any extra ``files`` (URL path → file), e.g. a tool catalog for a benchmark page."""

    def serve(path: Path, media_type: str | None = None) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(_request: Request) -> Response:
            return FileResponse(path, media_type=media_type, headers={"Cache-Control": "no-store"})

        return endpoint

    routes: list[Route | Mount] = [Route("/webmcp-polyfill.js", serve(polyfill_path(), "text/javascript"))]
    routes += [Route(url, serve(path)) for url, path in (files or {}).items()]
    routes += api_routes()  # type: ignore[arg-type]  # a WebSocketRoute is neither Route nor Mount
    routes.append(Mount("/", StaticFiles(directory=site_dir or demo_site_dir(), html=True), name="site"))
    return Starlette(routes=routes)


@contextlib.asynccontextmanager
async def serve_demo_site(
    host: str = "127.0.0.1", port: int = 0, *, site_dir: Path | None = None, files: dict[str, Path] | None = None
) -> AsyncIterator[str]:
    """Run the demo site (or ``site_dir``) for the duration of the block; yields its base URL."""
    sock = bind_socket(host, port)
    real_port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(demo_app(site_dir, files), log_level="warning", lifespan="off"))
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
