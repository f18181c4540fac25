"""uvicorn's HTTP protocol, with one change: an idle kept-alive connection is not closed while a
request waits unread on it.

Why: uvicorn closes a kept-alive connection ``timeout_keep_alive`` (5 s) after its last response.
After a stall longer than that (the process stopped, a laptop's sleep, a blocked loop) the timer
and the request the client sent meanwhile are due together, and the timer may run first: a
stopped process's ``epoll_wait`` returns ``EINTR`` on resume, and Python, past its deadline,
answers "no events" without polling again, so the loop runs the due timers before it reads.
The client's request, already sent on that connection, was then dropped (``ReadError``). Here
the timer looks first: a connection with bytes (or its end) waiting is left to the reader.
"""

from __future__ import annotations

import asyncio
import select

from uvicorn.protocols.http.auto import AutoHTTPProtocol

__all__ = ["StallSafeHTTP"]


def _readable(transport: asyncio.BaseTransport) -> bool:
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    try:
        ready, _, _ = select.select([sock.fileno()], [], [], 0)
    except (OSError, ValueError):  # closed meanwhile
        return False
    return bool(ready)


class StallSafeHTTP(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """The protocol uvicorn would pick (httptools, else h11), whose keep-alive timeout spares a
    connection with a request waiting (its reader comes next and re-arms the timer after answering)."""

    def timeout_keep_alive_handler(self) -> None:
        if _readable(self.transport):
            self.timeout_keep_alive_task = None
            return
        super().timeout_keep_alive_handler()
