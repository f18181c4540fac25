"""The WebSocket endpoint the extension connects to (``ws://127.0.0.1:PORT/extension``).

The handshake needs an extension ``Origin`` (keeps web pages out) and a loopback ``Host`` (DNS
rebinding); a local program can forge any ``Origin``, so what admits a link is its pairing, on
``hello`` (docs/security.md §1). A peer that asked for ``batch`` gets one frame per loop turn
(:class:`Outbox`), so ten calls started together cost the worker one frame, not ten; on a quiet
link (nothing else in flight) a message is written at once instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Iterator, Sequence
from typing import Protocol

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..core.extension_links import Peer
from ..core.flood import SHED_COST
from ..errors import ErrorCode
from ..protocol import WireError
from .hub import Hub, Link

__all__ = [
    "ABORT", "CLOSE_TIMEOUT_S", "IDLE_TIMEOUT_S", "WRITE_TIMEOUT_S", "FloodGate", "Outbox", "TransportAbort",
    "extension_endpoint", "is_firefox_extension", "is_loopback_host",
]

log = logging.getLogger("tabmcp.extension")

IDLE_TIMEOUT_S = 75.0
"""A connection that sends nothing (not even its 20 s heartbeat) for this long is closed."""
SECOND_LOOK_S = 0.5
"""After a quiet ``IDLE_TIMEOUT_S``, the watchdog looks once more this much later (a stall's frames get read first)."""

CLOSE_TIMEOUT_S = 5.0
"""How long closing a link waits for what is queued to be written and for its close frame to go: a
peer that stopped reading (its TCP window full) takes neither, so its connection is cut instead."""

WRITE_TIMEOUT_S = 20.0
"""How long one frame's write may wait for a peer that stopped reading (its TCP window and the
transport's buffer full) before the connection is cut: a call's ``call.start`` and every
message behind it would otherwise wait for as long as the peer does not read."""

FLOOD_RATE = 2_000.0
"""Messages per second a connection may sustain (a busy browser sends tens; a batched frame
counts each of its messages)."""
FLOOD_BURST = 10_000.0


class FloodGate:
    """Token bucket: ``allow()`` is False once a peer exceeds the rate beyond the burst."""

    def __init__(
        self, rate: float | None = None, burst: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = FLOOD_RATE if rate is None else rate  # read at call time: tests may patch them
        self._burst = FLOOD_BURST if burst is None else burst
        self._tokens = self._burst
        self._clock = clock
        self._last = clock()

    def allow(self, n: int = 1) -> bool:
        """Take ``n`` tokens (the messages of one frame); False once there are not enough."""
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < n:
            return False
        self._tokens -= n
        return True


ABORT = "tabmcp.abort"
"""The ASGI scope key :class:`TransportAbort` sets: a callable that cuts the connection at once."""


class TransportAbort:
    """Gives a WebSocket endpoint ``scope[ABORT]``: ASGI has no way to cut a connection, and its
    ``websocket.close`` waits, as every send does, until the peer has read what is queued.

    Outermost middleware, where ``send`` is still the server's own (uvicorn's protocol, whose
    transport can ``abort``); under another server the key is absent and closing gives up waiting
    without cutting.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            abort = getattr(transport, "abort", None)
            if callable(abort):
                scope[ABORT] = abort
        await self.app(scope, receive, send)


class _Socket(Protocol):
    async def send_text(self, data: str) -> None: ...
    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


def _never() -> bool:
    return False


class Outbox:
    """The socket as the hub's :class:`Link` sees it, joining one loop turn's texts once the peer reads batches.

    ``send_text`` then returns before the write (a failed write is raised by the next ``send_text``),
    except while ``quiet()`` (nothing else in flight on the bridge's links): what is sent then is
    written at once by the sending task, with what comes while it writes, so a lone call's
    ``call.start`` does not wait a loop turn for company that will not come. A burst that starts on a
    quiet link leaves as two frames (its first message, then the rest of the turn).
    """

    def __init__(self, socket: _Socket, *, quiet: Callable[[], bool] = _never,
                 abort: Callable[[], None] | None = None) -> None:
        self._socket = socket
        self._abort = abort
        """Cuts the connection (:class:`TransportAbort`), for a peer that does not read."""
        self.peer: Peer | None = None
        """Whose hello decides (the :class:`Link` this outbox writes for)."""
        self._quiet = quiet
        self._lines: list[str] = []
        self._writer: asyncio.Task[None] | None = None
        self._writing: asyncio.Future[None] | None = None
        """A sending task writing at once (quiet): later texts wait in ``_lines`` for it, close waits for it."""
        self._failed: BaseException | None = None
        self._writes: dict[object, float] = {}
        """The writes under way, each with when it began (loop time), oldest first: an extension that
        does not batch is written by each sender, side by side, and the oldest write is the one bounded."""
        self._write_timer: asyncio.TimerHandle | None = None
        """Looks at the write under way ``WRITE_TIMEOUT_S`` on: armed by a write when unarmed, so
        a busy link arms one timer per ``WRITE_TIMEOUT_S``, not one per frame."""
        self.frames = 0
        self.messages = 0
        """Frames written and the messages in them (logged when the connection ends)."""

    async def send_text(self, data: str) -> None:
        await self.send_texts((data,))

    async def send_texts(self, texts: Sequence[str]) -> None:
        """``texts`` in order, queued together before any write: a quiet write that waits for the
        socket, or whose sender is cancelled, keeps them all and lets nothing in between."""
        if self._failed is not None:
            raise self._failed
        if (self.peer is None or not self.peer.batched) and self._writer is None:
            for data in texts:
                write = self._watch_write()
                try:
                    await self._socket.send_text(data)
                finally:
                    del self._writes[write]
                self.frames += 1
                self.messages += 1
            return
        self._lines.extend(texts)
        if self._writer is not None or self._writing is not None:
            return  # behind what is being written
        if self._quiet():
            self._writing = asyncio.get_running_loop().create_future()
            try:
                await self._write()
            finally:
                self._writing.set_result(None)
                self._writing = None
                if self._lines and self._failed is None:  # cancelled mid-write: a writer finishes
                    self._writer = asyncio.get_running_loop().create_task(self._write())
            return
        self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        unsent: list[str] = []
        try:
            while self._lines:
                lines, self._lines = self._lines, []
                self.messages += len(lines)
                if len(lines) > 1 and self.peer is not None and self.peer.batched:
                    lines = ["\n".join(lines)]
                unsent = lines
                while unsent:  # one frame, or each alone (a later hello took batching back)
                    write = self._watch_write()
                    try:
                        await self._socket.send_text(unsent[0])
                    finally:
                        del self._writes[write]
                    unsent = unsent[1:]
                    self.frames += 1
        except asyncio.CancelledError:  # a sending task writing at once was cancelled: its texts are not lost
            self._lines[:0] = unsent
            self.messages -= len(unsent)
            raise
        except Exception as exc:  # the peer is gone; the next send (or the endpoint) sees it
            self._failed = exc
            self._lines.clear()
        finally:
            self._writer = None

    def _watch_write(self) -> object:
        """A write begins: noted with its start (the token to remove it by when it ends), with the timer
        that will look at it armed."""
        loop = asyncio.get_running_loop()
        if self._write_timer is None:
            self._write_timer = loop.call_later(WRITE_TIMEOUT_S, self._look_at_write)
        write = object()
        self._writes[write] = loop.time()
        return write

    def _look_at_write(self) -> None:
        self._write_timer = None
        if not self._writes:
            return  # no write under way: the next one arms the timer again
        since = next(iter(self._writes.values()))  # the oldest write under way
        loop = asyncio.get_running_loop()
        waited = loop.time() - since
        if waited < WRITE_TIMEOUT_S:
            self._write_timer = loop.call_later(WRITE_TIMEOUT_S - waited, self._look_at_write)
            return
        self._cut(f"a frame waited {waited:.0f}s to be written")

    def _cut(self, why: str) -> None:
        """Cut a peer that does not read: what is queued is dropped, the blocked write fails and the
        server sees the connection lost (its requests end as the link does)."""
        log.warning("extension %s is not reading: cut (%s) with %d messages unwritten",
                    self.peer.name if self.peer is not None else "?", why, len(self._lines))
        self._failed = self._failed or ConnectionAbortedError("the peer did not read; its connection was cut")
        self._lines.clear()
        if self._abort is not None:
            self._abort()  # the blocked write fails at once (the server sees the connection lost)
        if self._writer is not None and self._writer is not asyncio.current_task():
            self._writer.cancel()  # under a server that cannot cut, at least nothing waits on it

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close once what is queued is written, within ``CLOSE_TIMEOUT_S``: a peer that does not
        read is cut then (what it did not take is dropped; its requests end as the link does)."""
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                while True:  # a quiet write whose sender was cancelled leaves its texts to a writer task: wait for both
                    if self._writer is not None and self._writer is not asyncio.current_task():
                        await asyncio.wait([self._writer])
                    elif self._writing is not None:
                        await asyncio.wait([self._writing])
                    else:
                        break
                await self._socket.close(code=code, reason=reason)
        except TimeoutError:
            self._cut(f"closing waited {CLOSE_TIMEOUT_S:.0f}s")
        finally:
            if self._write_timer is not None:
                self._write_timer.cancel()
                self._write_timer = None


class _IdleWatchdog:
    """Ends a receive that waited ``IDLE_TIMEOUT_S`` with nothing arriving.

    One timer per connection, moved on lazily, instead of a ``wait_for`` (a task and a timer) per frame.
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._last = self._loop.time()
        self._waiting = False
        self._second_look = False
        self.idle = False
        self._timer: asyncio.TimerHandle | None = self._loop.call_later(IDLE_TIMEOUT_S, self._check)

    def _check(self) -> None:
        quiet = self._loop.time() - self._last
        if self._waiting and quiet >= IDLE_TIMEOUT_S and self._task is not None:
            if not self._second_look:
                # Quiet that long, or the bridge was stalled (stopped, asleep, a blocked loop) and
                # the frames that came meanwhile are not read yet (a due timer may run before the
                # reads on resume): look again once reading had its turn.
                self._second_look = True
                self._timer = self._loop.call_later(SECOND_LOOK_S, self._check)
                return
            self.idle = True
            self._timer = None
            self._task.cancel()
            return
        self._second_look = False
        self._timer = self._loop.call_later(max(0.05, IDLE_TIMEOUT_S - quiet), self._check)

    @contextlib.contextmanager
    def receiving(self) -> Iterator[None]:
        self._waiting = True
        try:
            yield
        except asyncio.CancelledError:
            if not self.idle or self._task is None or self._task.uncancel() > 0:
                raise  # cancelled by someone else (shutdown): not ours to swallow
        finally:
            self._waiting = False
            self._last = self._loop.time()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def is_firefox_extension(origin: str | None) -> bool:
    """A ``moz-extension://<uuid>`` origin: some Firefox extension (which one, only its pairing says)."""
    if not origin or not origin.startswith("moz-extension://"):
        return False
    uuid = origin.removeprefix("moz-extension://")
    return len(uuid) == 36 and all(c in "0123456789abcdef-" for c in uuid.lower())


def is_loopback_host(host_header: str | None) -> bool:
    if not host_header:
        return False
    host = host_header.rsplit(":", 1)[0] if not host_header.endswith("]") else host_header
    return host in ("127.0.0.1", "localhost", "[::1]")


def extension_endpoint(hub: Hub, allowed: Collection[str]) -> Callable[[WebSocket], Awaitable[None]]:
    """The ``/extension`` endpoint: a socket from an ``allowed`` origin (or a Firefox extension,
    which its pairing must then prove) and a loopback Host feeds ``hub``, one link per socket."""

    async def endpoint(ws: WebSocket) -> None:
        origin = ws.headers.get("origin")
        peer = f"{ws.client.host}:{ws.client.port}" if ws.client else "?"
        if origin not in allowed and not is_firefox_extension(origin):
            log.warning("refused extension WebSocket from %s: origin %r is not an allowed extension", peer, origin)
            await ws.close(code=1008)
            return
        if not is_loopback_host(ws.headers.get("host")):
            log.warning("refused extension WebSocket from %s: Host %r is not loopback", peer, ws.headers.get("host"))
            await ws.close(code=1008)
            return
        await ws.accept()
        outbox = Outbox(ws, quiet=lambda: len(hub.session.requests) <= 1,  # the request being sent, at most
                        abort=ws.scope.get(ABORT))
        link = Link(outbox, peer=peer)
        outbox.peer = link
        gate = FloodGate()
        log.debug("extension socket open from %s (%s)", peer, origin)
        watchdog = _IdleWatchdog()
        frames = messages_in = 0
        try:
            while True:
                with watchdog.receiving():
                    message = await ws.receive()
                if watchdog.idle:
                    log.info("extension %s idle for %.0fs; closing", peer, IDLE_TIMEOUT_S)
                    await link.close(1001, "idle")
                    break
                if message["type"] == "websocket.disconnect":
                    break
                frame = message.get("text")
                if frame is None:
                    frame = message.get("bytes") or b""
                messages = 1 + frame.count("\n" if isinstance(frame, str) else b"\n") if link.batched else 1  # type: ignore[arg-type]
                frames += 1
                messages_in += messages
                # One tab's flood is that tab's (core/flood.py): what its rule shed costs the link
                # a tenth. Closing the link is the last resort, for floods beyond any tab rule.
                shed_before = hub.session.tab_flood.shed_total
                await hub.handle_frame(link, frame)
                shed = hub.session.tab_flood.shed_total - shed_before
                if not gate.allow(messages - shed * (1 - SHED_COST)) and not link.socket_closed:  # type: ignore[arg-type]
                    log.warning("extension %s: more than %.0f messages/s; closing the connection",
                                peer, FLOOD_RATE)
                    await link.send(WireError(type="error", code=ErrorCode.FLOODED,
                                              message=f"more than {FLOOD_RATE:.0f} messages per second"))
                    await link.close(1008, "flood")
                    break
        except WebSocketDisconnect:
            pass
        finally:
            watchdog.stop()
            log.info("extension %s closed: in %d frames of %d messages, out %d frames of %d", peer, frames,
                     messages_in, outbox.frames, outbox.messages)
            await hub.link_closed(link)

    return endpoint
