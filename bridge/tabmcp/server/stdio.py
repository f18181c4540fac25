"""MCP over stdin/stdout on the event loop itself, no thread per read or write.

The SDK's ``stdio_server`` hops to a worker thread for every line (bench/call-time.md); when stdin
and stdout are pipes or sockets, :func:`stdio_transport` uses asyncio's pipe transports instead,
and anything else goes to the SDK's transport unchanged. Like the SDK, it moves the wire to
private fds while serving, so a stray ``print`` never corrupts the protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

from .direct_writes import DirectWrites
from .mcp_streams import SPLICES, message_streams, parse
from .trace import ARRIVED, trace_enabled

__all__ = ["LINE_LIMIT", "StdLines", "pipes_usable", "std_lines", "stdio_transport"]

LINE_LIMIT = 256 * 1024 * 1024
"""The longest line read (a longer one is reported as a bad message and skipped)."""


def pipes_usable(*fds: int) -> bool:
    """Can asyncio's pipe transports serve these descriptors (pipes and sockets only: a terminal
    would be left non-blocking for the shell, a regular file cannot be polled)?"""
    try:
        return all(stat.S_ISFIFO(m) or stat.S_ISSOCK(m) for m in (os.fstat(fd).st_mode for fd in fds))
    except OSError:
        return False


@contextlib.contextmanager
def _claim(fd: int, diversion: int) -> Any:
    """Move the wire on ``fd`` to a private duplicate and point ``fd`` at ``diversion``."""
    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        os.dup2(diversion, fd)
        yield private
    finally:
        os.dup2(private, fd)
        os.close(private)


@contextlib.contextmanager
def _claimed_std() -> Iterator[tuple[int, int]]:
    """Claim fd 0 and fd 1 for the wire: ``(in_fd, out_fd)``, their private duplicates."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    with contextlib.ExitStack() as fds:
        try:
            in_fd = fds.enter_context(_claim(0, devnull))
            out_fd = fds.enter_context(_claim(1, 2))
        finally:
            os.close(devnull)
        yield in_fd, out_fd


@contextlib.asynccontextmanager
async def _pipes(in_fd: int, out_fd: int) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """Lines in and out over asyncio's own pipe transports (pipes and sockets only)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(os.dup(in_fd), "rb", buffering=0)
    )
    write_transport, write_protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(os.dup(out_fd), "wb", buffering=0)
    )
    try:
        yield reader, asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    finally:
        read_transport.close()
        write_transport.close()


@contextlib.asynccontextmanager
async def stdio_transport(fds: tuple[int, int] | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run`` over this process's stdin and stdout
    (claimed while serving), or over ``fds`` (a read and a write descriptor, pipes or sockets,
    not claimed: tests)."""
    if fds is not None:
        async with _pipes(*fds) as (reader, writer):
            async with _serve_lines(reader, writer) as streams:
                yield streams
        return
    if not pipes_usable(0, 1):
        async with stdio_server() as streams:
            yield streams
        return
    with _claimed_std() as (in_fd, out_fd):
        async with _pipes(in_fd, out_fd) as (reader, writer):
            async with _serve_lines(reader, writer) as streams:
                yield streams


@contextlib.asynccontextmanager
async def _serve_lines(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> AsyncIterator[tuple[Any, Any]]:
    read_stream_writer, read_stream, _, _ = message_streams()
    traced = trace_enabled()

    async def stdin_reader() -> None:
        SPLICES.set(True)  # (this task's context, carried to each request's handler)
        async with read_stream_writer:
            while True:
                try:
                    line = await reader.readline()
                except ValueError as exc:  # longer than LINE_LIMIT: skipped, reported
                    await read_stream_writer.send(exc)
                    continue
                if not line:
                    return
                if traced:  # debug mode: the handler sees when the line arrived
                    ARRIVED.set(time.time_ns() / 1e6)
                await read_stream_writer.send(parse(line))

    async def write_line(data: bytes) -> None:  # in the answering task (server/direct_writes.py)
        if writer.transport.is_closing():  # the client went away (a write found the pipe broken)
            raise BrokenPipeError
        writer.write(data + b"\n")
        await writer.drain()  # returns at once unless the client stopped reading

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdin_reader)
        yield read_stream, DirectWrites(write_line, gone=(ConnectionError,))  # gone: later sends refused
        tg.cancel_scope.cancel()


class StdLines:
    """This process's stdin and stdout as raw lines (the relay pipes them without parsing)."""

    def __init__(self, reader: Any, writer: Any) -> None:
        self._reader = reader
        self._writer = writer

    async def readline(self) -> bytes:
        """The next line (with its newline), ``b""`` at EOF; a line past ``LINE_LIMIT`` raises ValueError."""
        if isinstance(self._reader, asyncio.StreamReader):
            return await self._reader.readline()
        return await asyncio.to_thread(self._reader.readline)

    async def write(self, line: bytes) -> None:
        if isinstance(self._writer, asyncio.StreamWriter):
            self._writer.write(line)
            await self._writer.drain()
            return

        def blocking() -> None:
            self._writer.write(line)
            self._writer.flush()

        await asyncio.to_thread(blocking)


@contextlib.asynccontextmanager
async def std_lines() -> AsyncIterator[StdLines]:
    """Claim fd 0 and fd 1 (as :func:`stdio_transport` does) and read and write them as lines:
    with asyncio's pipe transports where they are pipes or sockets, else through a thread."""
    with _claimed_std() as (in_fd, out_fd):
        if not pipes_usable(in_fd, out_fd):
            with os.fdopen(os.dup(in_fd), "rb", buffering=0) as raw_in, os.fdopen(os.dup(out_fd), "wb") as raw_out:
                yield StdLines(raw_in, raw_out)
            return
        async with _pipes(in_fd, out_fd) as (reader, writer):
            yield StdLines(reader, writer)
