"""The hub: moves the extension links' messages, and nothing else.

It feeds frames to :class:`tabmcp.core.extension_links.ExtensionLinks` (the I/O-free protocol),
sends what it queues, pairs its requests with futures (:meth:`Hub.wait`), runs one deadline timer,
and hands every other message to the one handler the root registered for its type (:meth:`Hub.on`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from ..core.extension_links import (
    Close,
    Disconnected,
    Event,
    ExtensionLinks,
    HandshakeDone,
    LinkState,
    MessageReceived,
    Peer,
    PendingRequest,
    ReadApart,
    RequestEnded,
    read_apart,
)
from ..core.stalls import LINK_WORK
from ..errors import InvalidState
from ..protocol import WireModel, dump
from .trace import ARRIVED, TRACE, stamp

__all__ = ["ARRIVED", "TRACE", "Handler", "Hub", "Link", "LinkState"]  # ARRIVED, TRACE: see server/trace.py

log = logging.getLogger("tabmcp.hub")


class _Socket(Protocol):
    async def send_text(self, data: str) -> None: ...
    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


@runtime_checkable
class _Texts(Protocol):
    """A socket that takes several texts at once (the extension's outbox, server/extension.py)."""

    async def send_texts(self, texts: Sequence[str]) -> None: ...


class Link(Peer):
    """One WebSocket connection from an extension: the session's :class:`Peer` plus its socket."""

    def __init__(self, socket: _Socket, *, peer: str = "") -> None:
        super().__init__(peer)
        self._socket = socket
        self._texts: Callable[[Sequence[str]], Awaitable[None]] | None = (
            socket.send_texts if isinstance(socket, _Texts) else None)
        self._lock = asyncio.Lock()
        self.socket_closed = False

    @property
    def peer(self) -> str:
        return self.name

    async def send(self, message: WireModel) -> None:
        await self.send_all((message,))

    async def send_all(self, messages: Sequence[WireModel]) -> None:
        """Send ``messages`` in order, with no other sender's between them (a write may wait for the
        socket: the extension's outbox writes a quiet link's message in the sending task)."""
        if self.socket_closed:
            raise InvalidState("link is closed")
        async with self._lock:
            if self._texts is not None:  # all handed over before a write can wait or be cancelled
                await self._texts([dump(message) for message in messages])
                return
            for message in messages:
                await self._socket.send_text(dump(message))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the socket (the session decides when; this only does it)."""
        self.state = LinkState.CLOSED
        if self.socket_closed:
            return
        self.socket_closed = True
        try:
            await self._socket.close(code=code, reason=reason)
        except Exception:  # the socket may already be gone; closing is best effort
            log.debug("closing link %s failed", self.peer, exc_info=True)


Handler = Callable[[Peer, Any], None]
"""What the hub calls with a message the session passed on (``MessageReceived``), and its link."""
OffLoop = Callable[[Callable[[], Any] | None, Callable[[Any], None]], None]
"""``submit(work, then)`` of :class:`tabmcp.server.reader.OffLoop`: ``work`` off the loop, ``then`` on
it in submission order."""


def _ignore(_event: Any) -> None:
    return None


class Hub:
    """The extension links' I/O around one :class:`ExtensionLinks`.

    Args:
        session: the links' protocol.
        trace: debug mode: calls carry hop timestamps (see :data:`TRACE`); off, the call path pays one check.
        work: charges a block of work to an origin (:meth:`tabmcp.core.stalls.StallMeter.work`): a
            frame's is the link's until a handler names its tab's origin.
        off_loop: where a message put together from chunks is parsed (the snapshot reader's
            thread, in the order of its readings); None: on the loop, at once.
    """

    def __init__(self, session: ExtensionLinks, *, trace: bool = False,
                 work: Callable[[str], AbstractContextManager[None]] | None = None,
                 on_connected: Callable[[HandshakeDone], None] = _ignore,
                 on_disconnected: Callable[[Disconnected], None] = _ignore,
                 after: Callable[[], list[Event]] = list, off_loop: OffLoop | None = None) -> None:
        self.session = session
        self.off_loop = off_loop
        if session.read_apart and off_loop is None:
            raise ValueError("the links hand out messages to be read off the loop: give the hub off_loop")
        self.trace = trace
        self.work: Callable[[str], AbstractContextManager[None]] = work or (lambda _origin: contextlib.nullcontext())
        self._handlers: dict[type[WireModel], Handler] = {}
        self.on_connected = on_connected
        """A browser's link completed its handshake."""
        self.on_disconnected = on_disconnected
        """A browser's link went away (its requests already ended)."""
        self.after = after
        """Called after every batch of events: more events the state now implies (opened sites' tools)."""
        self._futures: dict[str, asyncio.Future[Any]] = {}
        self._frame_at = 0.0
        self._traces: dict[str, list[tuple[str, float]]] = {}
        self._deadline: asyncio.TimerHandle | None = None
        self._deadline_at: float | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._link_ready = asyncio.Event()

    def set_trace(self, on: bool) -> None:
        """Debug mode on or off for a running bridge (calls carry hop timestamps)."""
        self.trace = on

    def on(self, *types: type[WireModel], handler: Handler) -> None:
        """Send messages of these types to ``handler`` (one handler per type)."""
        for kind in types:
            if kind in self._handlers:
                raise InvalidState(f"{kind.__name__} already has a handler")
            self._handlers[kind] = handler

    # -- the links ---------------------------------------------------------------------------

    @property
    def link(self) -> Link | None:
        """The browser link admitted last (one browser: its link)."""
        current = self.session.current
        return current if isinstance(current, Link) else None

    @property
    def links(self) -> list[Link]:
        """Every browser's link, oldest first."""
        return [p for p in self.session.links.values() if isinstance(p, Link)]

    @property
    def connected(self) -> bool:
        return self.session.ready

    async def wait_connected(self, timeout: float) -> bool:
        """Wait until an extension has completed its handshake (for the CLI and tests)."""
        try:
            await asyncio.wait_for(self._link_ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def handle_frame(self, link: Link, frame: str | bytes) -> None:
        """Process one frame from an extension. Never raises for bad input: it answers it."""
        if link.state is LinkState.CLOSED:
            return  # the bridge closed it; the socket's last frames are dropped
        if self.trace:
            self._frame_at = time.time_ns() / 1e6
        try:
            with self.work(LINK_WORK):
                self.handle(self.session.receive(link, frame))
        except Exception as exc:  # last line: a frame must never take the link (or the bridge) down
            log.exception("extension %s: frame could not be handled", link.peer)
            self.session.internal_error(link, exc)
        await self.flush()

    def _taken_apart(self, event: ReadApart, outcome: Any) -> None:
        """A message read off the loop, in its turn: handled as its frame would have been."""
        try:
            with self.work(LINK_WORK):
                self.handle(self.session.take_apart(event, outcome))
        except Exception as exc:  # as handle_frame: a message must never take the link down
            log.exception("extension %s: a message put together from chunks could not be handled", event.peer.name)
            self.session.internal_error(event.peer, exc)
        with contextlib.suppress(RuntimeError):  # no running loop (the core driven by tests): nothing to send on
            self.flush_soon()

    async def link_closed(self, link: Link) -> None:
        """The socket closed. Requests sent on it end now."""
        link.socket_closed = True
        self.handle(self.session.closed(link))
        await self.flush()

    def handle(self, events: list[Event]) -> None:
        """Act on what the session reports (all synchronous; sending is :meth:`flush`'s job).

        A failing handler is logged and answered as an internal error, and the events after it
        are still acted on, else their futures would never settle."""
        for event in events:
            try:
                self._dispatch(event)
            except Exception as exc:
                log.exception("the bridge could not act on %s", type(event).__name__)
                if isinstance(event, MessageReceived):
                    self.session.internal_error(event.peer, exc)
        more = self.after()
        if more:
            self.handle(more)
        self._arm_deadline()

    def _dispatch(self, event: Event) -> None:
        if isinstance(event, RequestEnded):
            self._settle(event)
        elif isinstance(event, MessageReceived):
            handler = self._handlers.get(type(event.message))
            if handler is not None:
                handler(event.peer, event.message)
        elif isinstance(event, ReadApart) and self.off_loop is not None:
            work = None if event.text is None else functools.partial(read_apart, event.text)
            self.off_loop(work, functools.partial(self._taken_apart, event))
        elif isinstance(event, HandshakeDone):
            self._link_ready.set()
            self.on_connected(event)
        elif isinstance(event, Disconnected):
            if not self.session.ready:
                self._link_ready.clear()
            self.on_disconnected(event)

    async def flush(self) -> None:
        """Send what the session queued, in order; a socket that fails is closed for good.

        A link's messages go in one :meth:`Link.send_all` (up to a close of it), so a later flush's
        cannot go between them while a write waits for the socket."""
        batches: dict[Link, list[WireModel]] = {}
        for action in self.session.data_to_send():
            link = action.peer
            if not isinstance(link, Link):
                continue
            if isinstance(action, Close):
                await self._send(link, batches.pop(link, []))
                await link.close(action.code, action.reason)
                continue
            batches.setdefault(link, []).append(action.message)
        for link, messages in batches.items():
            await self._send(link, messages)

    async def _send(self, link: Link, messages: list[WireModel]) -> None:
        if not messages:
            return
        try:
            await link.send_all(messages)
        except Exception:  # the peer is gone; its close handler (or this) ends its requests
            log.debug("could not send %d messages to %s", len(messages), link.peer, exc_info=True)
            if not link.socket_closed:
                link.socket_closed = True
                self.handle(self.session.closed(link))

    def flush_soon(self) -> None:
        """Send queued messages from synchronous code (timers, cancellation)."""
        task = asyncio.get_running_loop().create_task(self.flush())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- requests: one future each, one timer for all ----------------------------------------

    async def wait(self, request: PendingRequest, *, traced: bool = False) -> Any:
        """Send the request and wait for the session to end it (by answer or by rule)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._futures[request.request_id] = future
        self._arm_deadline()
        try:
            if traced:  # before the write: the sending task may resume only after the worker got it
                stamp("bridge.sent")
            await self.flush()
            return await future
        except asyncio.CancelledError:
            self.handle(self.session.cancel(request.request_id))
            self.flush_soon()
            raise
        finally:
            self._futures.pop(request.request_id, None)
            if not future.done():
                future.cancel()

    def trace_of(self, request_id: str) -> list[tuple[str, float]] | None:
        """A traced call's stamps as they came back (debug mode), once; ``None`` if none."""
        return self._traces.pop(request_id, None)

    def _arm_deadline(self) -> None:
        """One timer for the session's next deadline.

        Armed lazily (an earlier timer stays and re-arms when it fires), so a call that ends in time costs no timer.
        """
        deadline = self.session.next_deadline()
        if deadline is None or (self._deadline_at is not None and self._deadline_at <= deadline):
            return
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline_at = deadline
        delay = max(0.0, deadline - self.session.clock())
        self._deadline = asyncio.get_running_loop().call_later(delay, self._deadline_passed)

    def _deadline_passed(self) -> None:
        self._deadline = None
        self._deadline_at = None
        events = self.session.expire()
        self.handle(events)  # arms the timer again for what is left
        if events:
            self.flush_soon()

    def _settle(self, event: RequestEnded) -> None:
        future = self._futures.pop(event.request.request_id, None)
        if future is None or future.done():
            return
        if event.trace is not None and self.trace:
            self._traces[event.request.request_id] = [
                *event.trace,
                ("bridge.frame", self._frame_at),
                ("bridge.ended", time.time_ns() / 1e6),
            ]
        if event.error is not None:
            future.set_exception(event.error)
        else:
            future.set_result(event.result)
