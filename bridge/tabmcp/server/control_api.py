"""The control API (``tabmcp pair``, launchers) and ``/health``, behind the control key.

``/health`` gives liveness to anyone on loopback and the status only with a key. Only the control
key opens ``/control/`` (pairings: list, confirm, make, forget), never ``server.mcp_token``, since
an agent must not pair an extension of its own; every route wants a loopback ``Host`` and no ``Origin``.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import __version__
from ..errors import ErrorCode, PairingError
from ..protocol import PROTOCOL_VERSION
from .extension import is_loopback_host

if TYPE_CHECKING:
    from ..wiring import BridgeCore

__all__ = ["control_routes", "health_route"]


def _bearer(request: Request) -> bytes:
    return request.headers.get("authorization", "").encode("utf-8", "replace")


def _is(request: Request, secret: str | None) -> bool:
    return bool(secret) and hmac.compare_digest(_bearer(request), f"Bearer {secret}".encode())


def health_route(core: BridgeCore, control_key: str, extra: Any = None) -> Route:
    """``/health``: liveness for anyone, the status for the person (control key) or an MCP client
    holding ``server.mcp_token``. ``extra()`` adds fields to the full answer."""

    async def health(request: Request) -> Response:
        if not is_loopback_host(request.headers.get("host")):
            return Response("Invalid Host header", status_code=421)
        if not (_is(request, control_key) or _is(request, core.config.server.mcp_token)):
            return JSONResponse({"ok": True, "bridge": __version__, "protocol": PROTOCOL_VERSION})
        return JSONResponse({"ok": True, **core.status(), **(extra() if extra else {})})

    return Route("/health", health)


def control_routes(core: BridgeCore, control_key: str) -> list[Route]:
    def refused(request: Request) -> Response | None:
        if not is_loopback_host(request.headers.get("host")) or request.headers.get("origin"):
            return Response("Forbidden", status_code=403)
        if not _is(request, control_key):
            return JSONResponse({"error": ErrorCode.UNAUTHORIZED, "message": "missing or wrong control key"},
                                status_code=401, headers={"WWW-Authenticate": "Bearer"})
        return None

    async def body(request: Request) -> dict[str, Any]:
        try:
            data = await request.json()
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    async def pairings(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        if request.method == "POST":
            data = await body(request)
            pairing, secret = core.pairings.create(str(data.get("label") or "launcher"),
                                                  ephemeral=bool(data.get("ephemeral", True)))
            return JSONResponse({"id": pairing.id, "secret": secret, "pairing": pairing.to_dict()})
        now = core.pairings.codes.clock()
        return JSONResponse({
            "pairings": [p.to_dict() for p in core.pairings.all()],
            "pending": [p.to_dict(now) for p in core.pairings.codes.pending()],
            "connected": core.link.pairing_id if core.link is not None and core.connected else None,
            "linked": [link.pairing_id for link in core.links if link.pairing_id],  # every browser linked now
        })

    async def pair(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        code = str((await body(request)).get("code") or "")
        try:
            pairing = await core.confirm_pairing(code)
        except PairingError as exc:
            return JSONResponse({"error": exc.code, "message": exc.message}, status_code=400)
        return JSONResponse({"pairing": pairing.to_dict()})

    async def forget(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        pairing_id = request.path_params["pairing_id"]
        if not await core.forget_pairing(pairing_id):
            return JSONResponse({"error": ErrorCode.PAIRING_UNKNOWN, "message": f"no pairing {pairing_id!r}"},
                                status_code=404)
        return JSONResponse({"forgotten": True})

    return [
        Route("/control/pairings", pairings, methods=["GET", "POST"]),
        Route("/control/pair", pair, methods=["POST"]),
        Route("/control/pairings/{pairing_id}", forget, methods=["DELETE"]),
    ]
