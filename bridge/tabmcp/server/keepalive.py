"""uvicorn's HTTP protocol, with one change: an idle kept-alive connection is not closed while a
request waits unread on it.

After a stall longer than the keep-alive (a laptop's sleep, a stopped process), uvicorn's timer and
the request sent meanwhile come due together and the timer may run first, dropping the request
(docs/architecture.md, "Stalls"). Here the timer leaves a connection with bytes waiting to the reader.
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
