"""The demo's small JSON API and WebSocket echo, used by the Diagnostics lab (``lab.html``).

Deterministic and stateless, so tests assert on exact answers: ``/api/users`` (a created user comes
back without secret-looking fields), ``/api/orders/{id}``, a JSON 404 for the rest, and ``/ws/echo``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

__all__ = ["ORDER_STATUSES", "USERS", "api_routes", "order_for"]

USERS: tuple[dict[str, Any], ...] = (
    {"id": 1, "name": "Ada Lovelace", "email": "ada@acme.test", "role": "admin", "active": True},
    {"id": 2, "name": "Grace Hopper", "email": "grace@acme.test", "role": "editor", "active": True},
    {"id": 3, "name": "Alan Turing", "email": "alan@acme.test", "role": "viewer", "active": True},
    {"id": 4, "name": "Katherine Johnson", "email": "katherine@acme.test", "role": "editor", "active": False},
    {"id": 5, "name": "Edsger Dijkstra", "email": "edsger@acme.test", "role": "viewer", "active": True},
)
"""The users ``GET /api/users`` lists (a tuple, so nothing can change them)."""

ORDER_STATUSES = ("pending", "paid", "shipped", "delivered")
_PRODUCTS = (
    ("SKU-100", "Desk lamp", 39.0),
    ("SKU-101", "Notebook", 4.5),
    ("SKU-102", "Monitor arm", 89.0),
    ("SKU-103", "USB-C hub", 24.99),
    ("SKU-104", "Cable set", 12.0),
)
_MAX_ORDER_ID = 9999
_SECRET_HINTS = ("password", "passwd", "secret", "token", "card", "cvv", "cvc", "pin")
_NO_STORE = {"Cache-Control": "no-store"}


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=_NO_STORE)


def _not_found(what: str) -> JSONResponse:
    return _json({"error": "not_found", "message": f"{what} not found"}, 404)


def order_for(order_id: int) -> dict[str, Any]:
    """The order with this id: the same answer every time."""
    lines: list[dict[str, Any]] = []
    total = 0.0
    for i in range(order_id % 3 + 1):
        sku, title, price = _PRODUCTS[(order_id + i) % len(_PRODUCTS)]
        qty = (order_id + i) % 4 + 1
        lines.append({"sku": sku, "title": title, "qty": qty, "price": price})
        total += qty * price
    return {
        "id": order_id,
        "userId": order_id % len(USERS) + 1,
        "status": ORDER_STATUSES[order_id % len(ORDER_STATUSES)],
        "items": lines,
        "total": round(total, 2),
        "currency": "EUR",
    }


async def _users(request: Request) -> JSONResponse:
    if request.method == "GET":
        return _json({"users": list(USERS), "total": len(USERS)})
    try:
        body = json.loads(await request.body() or b"null")
    except ValueError:
        return _json({"error": "bad_request", "message": "the body is not JSON"}, 400)
    if not isinstance(body, dict):
        return _json({"error": "bad_request", "message": "the body must be a JSON object"}, 400)
    missing = [f for f in ("name", "email") if not isinstance(body.get(f), str) or not body[f].strip()]
    if missing:
        return _json({"error": "bad_request", "message": f"missing field(s): {', '.join(missing)}"}, 400)
    created = {
        k: v
        for k, v in body.items()
        if not any(hint in k.lower().replace("_", "").replace("-", "") for hint in _SECRET_HINTS)
    }
    created.update(id=len(USERS) + 1, role=body.get("role") or "viewer", active=True)
    return _json({"user": created, "created": True}, 201)


async def _user(request: Request) -> JSONResponse:
    user_id = request.path_params["user_id"]
    for user in USERS:
        if user["id"] == user_id:
            return _json({"user": user})
    return _not_found(f"user {user_id}")


async def _order(request: Request) -> JSONResponse:
    order_id = request.path_params["order_id"]
    if not 1 <= order_id <= _MAX_ORDER_ID:
        return _not_found(f"order {order_id}")
    return _json({"order": order_for(order_id)})


async def _unknown(request: Request) -> JSONResponse:
    return _not_found(f"{request.method} {request.url.path}")


async def _echo(websocket: WebSocket) -> None:
    await websocket.accept()
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if message.get("text") is not None:
                await websocket.send_text(message["text"])
            elif message.get("bytes") is not None:
                await websocket.send_bytes(message["bytes"])


_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def api_routes() -> list[BaseRoute]:
    """The lab's JSON API under ``/api/`` and the WebSocket echo at ``/ws/echo``."""
    return [
        Route("/api/users", _users, methods=["GET", "POST"]),
        Route("/api/users/{user_id:int}", _user, methods=["GET"]),
        Route("/api/orders/{order_id:int}", _order, methods=["GET"]),
        Route("/api/{rest:path}", _unknown, methods=_ALL_METHODS),
        WebSocketRoute("/ws/echo", _echo),
    ]
