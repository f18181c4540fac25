"""An MCP client in its own process, as users run one: the benchmarks drive it over stdin/stdout.

    python -m bench._client --stdio CMD [ARG...]    launch a server over stdio (tabmcp serve --stdio,
                                                    the peer relay) and talk to it
    python -m bench._client --http URL              Streamable HTTP

It connects with the official SDK ``mcp.Client``, waits (bounded) until every name given with
``--tool`` is listed, prints ``{"ready": true, "tools": N}`` and then answers one JSON command
a line on stdin, a JSON line on stdout each:

- ``{"op": "time", "tool": NAME, "calls": N, "warmup": W}``: W untimed calls, then N sequential
  timed ones; ``{"samples": [seconds, ...]}``.
- ``{"op": "load", "tools": [NAME, ...], "calls": N, "concurrency": C, "clients": K}``: N calls
  spread over the names round-robin, exactly C in flight through K connections (opened once,
  kept); ``{"samples": [...], "wall": seconds, "errors": {code: n}}``.
- ``{"op": "list", "rounds": N}``: N tools/list calls (no client cache); ``{"samples": [...]}``.
- ``{"op": "list_raw", "rounds": N}`` (HTTP only): the last tools/list the SDK sent, sent again
  N times as is, each response read whole and not parsed: the server's share.
  ``{"samples": [...], "bytes": size}``.
- ``{"op": "time_raw", "tool": NAME, "calls": N, "warmup": W}`` (HTTP only): as ``time``, but the
  last tools/call the SDK sent is sent again as is and its response read whole, not parsed: the
  call without the SDK client's share. ``{"samples": [...]}``.
- ``{"op": "time_stream", "url": WS_URL, "tool": NAME, "calls": N, "warmup": W}``: as
  ``time_raw``, over the bridge's ``/mcp-stream``. ``{"samples": [...]}``.
- ``{"op": "trace_stream", "url": WS_URL, "tool": NAME, "calls": N, "warmup": W}``: as
  ``time_stream``, each call asking for the bridge's hop timestamps (``TABMCP_TRACE=1``); answered
  as ``trace``, each call's stamps framed by ``client.send`` and ``client.recv`` (the answer read,
  then parsed for its stamps).
- ``{"op": "list_stream", "url": WS_URL, "rounds": N}``: N tools/list over the bridge's
  ``/mcp-stream`` (a handshake-era session kept open), sent raw, each answer read whole and not
  parsed: the server's share on a transport the bridge writes itself (as stdio).
  ``{"samples": [...], "bytes": size}``.
- ``{"op": "time_get", "url": URL, "calls": N, "warmup": W}`` (HTTP only): plain GETs with the
  same HTTP client (the HTTP stack without MCP). ``{"samples": [...]}``.
- ``{"op": "trace", "tool": NAME, "calls": N, "warmup": W}``: as ``time``, each call asking for the
  bridge's hop timestamps (request ``_meta["tabmcp/trace"]``; the bridge runs with
  ``TABMCP_TRACE=1``); ``{"traces": [[[hop, epoch ms], ...], ...]}``, each framed by
  ``client.send`` and ``client.recv``.
- ``{"op": "paced", "tool": NAME, "rate": R, "seconds": S, "start": T}``: calls started R a second
  for S seconds (from epoch T, else now) whether or not the earlier ones answered, each timed
  from when it was due; ``"trace": true``: each call's hop timestamps too, as ``traces``;
  ``{"samples": [...], "errors": {code: n}}``.
- ``{"op": "paced_start", ...}`` (as ``paced``, ``seconds`` a cap) answers ``{"started": true}`` at once
  while the calls go on; ``{"op": "paced_stop"}`` starts no more and answers as ``paced`` once those
  started are in (an open loop of any length, with no gap or wait between chunks).
- ``{"op": "call", "tool": NAME, "arguments": {...}, "timeout": S}``: one call, timed;
  ``{"seconds": s, "failed": code or null}`` (a failure is an answer here, not an error).
- ``{"op": "names"}``: the listed tool names; ``{"names": [...]}``.

It ends at EOF (closing the server it launched). A tool result flagged ``isError`` counts as an
error (``time`` stops with ``{"error": ...}``), so a benchmark never times failures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
import time
from collections import Counter
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class _Recorder:
    """The HTTP client under the SDK's Streamable HTTP transport, keeping the last tools/list
    request so ``list_raw`` can replay it (the server's share of a listing, without the SDK
    client's parsing and validation)."""

    def __init__(self) -> None:
        self.last: dict[str, httpx2.Request] = {}
        self.http = create_mcp_http_client()
        self.http.event_hooks["request"].append(self._record)

    async def _record(self, request: httpx2.Request) -> None:
        if request.method == "POST":
            for method in (b'"tools/list"', b'"tools/call"'):
                if method in request.content:
                    self.last[method.decode().strip('"')] = request

    async def replay(self, method: str) -> int:
        """Send the last ``method`` request again and read the whole response; its size in bytes."""
        req = self.last.get(method)
        if req is None:
            raise RuntimeError(f"no {method} request seen yet")
        copy = self.http.build_request(req.method, req.url, headers=req.headers, content=req.content)
        response = await self.http.send(copy)
        body = await response.aread()
        if response.status_code != 200 or b'"isError":true' in body:
            raise RuntimeError(f"replayed {method}: HTTP {response.status_code}: {body[:300]!r}")
        return len(body)


def _target(args: argparse.Namespace, recorder: _Recorder | None = None) -> Any:
    if args.http:
        if recorder is not None:
            return streamable_http_client(str(args.http), http_client=recorder.http)
        return str(args.http)
    command, *rest = args.stdio
    return StdioServerParameters(command=command, args=rest, env=dict(os.environ))


def _error_of(result: Any) -> str | None:
    if not result.is_error:
        return None
    body = (result.structured_content or {}).get("error") or {}
    return str(body.get("code") or result.content)[:200]


async def _wait_tools(client: Client, names: list[str], timeout: float) -> int:
    deadline = time.monotonic() + timeout
    listed: set[str] = set()
    while time.monotonic() < deadline:
        listed = {t.name for t in (await client.list_tools(cache_mode="bypass")).tools}
        if all(n in listed for n in names):
            return len(listed)
        await asyncio.sleep(0.1)
    raise TimeoutError(
        f"tools {sorted(set(names) - listed)} not listed after {timeout:g} s (listed: {sorted(listed)[:20]})"
    )


async def _time(client: Client, tool: str, calls: int, warmup: int) -> dict[str, Any]:
    samples = []
    for i in range(warmup + calls):
        start = time.perf_counter()
        result = await client.call_tool(tool, {})
        elapsed = time.perf_counter() - start
        if (error := _error_of(result)) is not None:
            return {"error": error}
        if i >= warmup:
            samples.append(elapsed)
    return {"samples": samples}


async def _trace(client: Client, tool: str, calls: int, warmup: int) -> dict[str, Any]:
    traces = []
    for i in range(warmup + calls):
        sent = time.time_ns() / 1e6
        # meta is a TypedDict with extra_items (PEP 728), which mypy does not read yet
        result = await client.call_tool(tool, {}, meta={"tabmcp/trace": True})  # type: ignore[arg-type]
        received = time.time_ns() / 1e6
        if (error := _error_of(result)) is not None:
            return {"error": error}
        stamps = (result.meta or {}).get("tabmcp/trace")
        if not stamps:
            return {"error": "no trace in the result: is the bridge running with TABMCP_TRACE=1?"}
        if i >= warmup:
            traces.append([["client.send", sent], *stamps, ["client.recv", received]])
    return {"traces": traces}


async def _paced(client: Client, tool: str, rate: float, seconds: float, timeout: float,
                 start_at: float | None = None, trace: bool = False,
                 stop: asyncio.Event | None = None) -> dict[str, Any]:
    """Calls started at a fixed rate whether or not the earlier ones came back (open loop), each
    timed from when it was due: a stall delays every call due during it, as it delays a person's
    or an agent's, instead of the one call a sequential loop would have waiting (coordinated
    omission). ``start_at`` (epoch seconds): when the first is due, so that chunks asked one after
    another leave no gap (calls already due go at once, timed from when they were due). ``stop``:
    no call is started once it is set (``seconds`` is then a cap). ``trace``:
    each call asks for the bridge's hop timestamps (``TABMCP_TRACE=1``), returned as ``traces``."""
    samples: list[float] = []
    dues: list[float] = []
    traces: list[list[list[Any]]] = []
    errors: Counter[str] = Counter()
    epoch = time.time() if start_at is None else start_at
    start = time.perf_counter() + (epoch - time.time())

    async def one(i: int) -> None:
        due = start + i / rate
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        sent = time.time_ns() / 1e6
        result = None
        try:
            meta = {"tabmcp/trace": True} if trace else None
            result = await asyncio.wait_for(client.call_tool(tool, {}, meta=meta), timeout)  # type: ignore[arg-type]
            error = _error_of(result)
        except Exception as exc:  # a timeout or a transport failure, by its type
            error = f"exception {type(exc).__name__}"
        if error is None:
            samples.append(time.perf_counter() - due)
            dues.append(epoch + i / rate)
            if trace and result is not None:
                stamps = (result.meta or {}).get("tabmcp/trace") or []
                traces.append([["client.due", (epoch + i / rate) * 1e3], ["client.send", sent], *stamps,
                               ["client.recv", time.time_ns() / 1e6]])
        else:
            errors[error] += 1

    n = max(1, round(seconds * rate))
    if stop is None:
        await asyncio.gather(*(one(i) for i in range(n)))
    else:  # started as they come due, until stopped
        running = []
        for i in range(n):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
            if stop.is_set():
                break
            running.append(asyncio.create_task(one(i)))
        await asyncio.gather(*running)
    out: dict[str, Any] = {"samples": samples, "due": dues, "errors": dict(errors)}
    if trace:
        out["traces"] = traces
    return out


async def _load(pool: list[Client], tools: list[str], calls: int, concurrency: int) -> dict[str, Any]:
    samples: list[float] = []
    errors: Counter[str] = Counter()
    counter = iter(range(calls))

    async def worker(w: int) -> None:
        client = pool[w % len(pool)]
        for i in counter:
            start = time.perf_counter()
            try:
                result = await asyncio.wait_for(client.call_tool(tools[i % len(tools)], {}), 30)
                error = _error_of(result)
            except Exception as exc:  # transport failure: counted under its type
                error = f"exception {type(exc).__name__}"
            if error is None:
                samples.append(time.perf_counter() - start)
            else:
                errors[error] += 1

    start = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    return {"samples": samples, "wall": time.perf_counter() - start, "errors": dict(errors)}


async def _time_stream(
    streams: dict[str, Any], stack: contextlib.AsyncExitStack, url: str, tool: str, calls: int, warmup: int
) -> dict[str, Any]:
    """tools/call over the bridge's ``/mcp-stream``, sent raw, each answer read whole, not parsed."""
    ws = await _stream(streams, stack, url)
    out: dict[str, Any] = {"samples": []}
    for i in range(warmup + calls):
        request = json.dumps({"jsonrpc": "2.0", "id": f"c{i}", "method": "tools/call",
                              "params": {"name": tool, "arguments": {}}})
        start = time.perf_counter()
        await ws.send(request)
        frame = await ws.recv(decode=False)
        while frame.startswith(b'{"jsonrpc":"2.0","method":"notifications/'):  # a list change: not the answer
            frame = await ws.recv(decode=False)
        if i >= warmup:
            out["samples"].append(time.perf_counter() - start)
        if b'"isError":true' in frame or b'"result"' not in frame:
            raise RuntimeError(f"tools/call over the stream: {frame[:300]!r}")
    return out


async def _trace_stream(
    streams: dict[str, Any], stack: contextlib.AsyncExitStack, url: str, tool: str, calls: int, warmup: int
) -> dict[str, Any]:
    """tools/call over ``/mcp-stream``, sent raw, each asking for the bridge's hop timestamps."""
    ws = await _stream(streams, stack, url)
    traces = []
    for i in range(warmup + calls):
        request = json.dumps({"jsonrpc": "2.0", "id": f"t{i}", "method": "tools/call",
                              "params": {"name": tool, "arguments": {}, "_meta": {"tabmcp/trace": True}}})
        sent = time.time_ns() / 1e6
        await ws.send(request)
        frame = await ws.recv(decode=False)
        while frame.startswith(b'{"jsonrpc":"2.0","method":"notifications/'):  # a list change: not the answer
            frame = await ws.recv(decode=False)
        received = time.time_ns() / 1e6
        stamps = ((json.loads(frame).get("result") or {}).get("_meta") or {}).get("tabmcp/trace")
        if not stamps:
            return {"error": f"no trace in the answer (is TABMCP_TRACE=1 set?): {frame[:300]!r}"}
        if i >= warmup:
            traces.append([["client.send", sent], *stamps, ["client.recv", received]])
    return {"traces": traces}


async def _stream(streams: dict[str, Any], stack: contextlib.AsyncExitStack, url: str) -> Any:
    """One handshake-era session on the bridge's ``/mcp-stream`` per URL, opened once and kept."""
    import websockets

    ws: Any = streams.get(url)
    if ws is None:
        ws = await stack.enter_async_context(websockets.connect(url, max_size=None, compression=None))
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}))
        await ws.recv()
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        streams[url] = ws
    return ws


async def _list_stream(streams: dict[str, Any], stack: contextlib.AsyncExitStack, url: str, rounds: int) -> dict[str, Any]:
    """tools/list over the bridge's ``/mcp-stream`` (a byte transport like stdio: one JSON-RPC
    message a WebSocket frame), sent raw and each answer read whole, not parsed: the server's
    share of a listing on a transport the bridge writes itself."""
    ws = await _stream(streams, stack, url)
    out: dict[str, Any] = {"samples": [], "bytes": 0}
    for i in range(rounds):
        request = f'{{"jsonrpc":"2.0","id":"l{i}","method":"tools/list"}}'
        start = time.perf_counter()
        await ws.send(request)
        frame = await ws.recv(decode=False)
        out["samples"].append(time.perf_counter() - start)
        out["bytes"] = len(frame)
        if b'"result"' not in frame[:200] and b'"result"' not in frame[-200:]:
            raise RuntimeError(f"tools/list over the stream: {frame[:300]!r}")
    return out


async def run(args: argparse.Namespace) -> None:
    # The SDK warns when a called name is missing from its last listing; not a benchmark's concern.
    logging.getLogger("mcp").setLevel(logging.ERROR)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with contextlib.AsyncExitStack() as stack:
        recorder = _Recorder() if args.http else None
        if recorder is not None:
            await stack.enter_async_context(recorder.http)
        client = await stack.enter_async_context(Client(_target(args, recorder), mode=args.mode))
        pool = [client]
        streams: dict[str, Any] = {}
        stop = asyncio.Event()
        paced: asyncio.Task[dict[str, Any]] | None = None
        n = await _wait_tools(client, args.tool, args.wait)
        _emit({"ready": True, "tools": n})
        while line := await reader.readline():
            cmd = json.loads(line)
            try:
                if cmd["op"] == "time":
                    out = await _time(client, cmd["tool"], cmd["calls"], cmd.get("warmup", 0))
                elif cmd["op"] == "trace":
                    out = await _trace(client, cmd["tool"], cmd["calls"], cmd.get("warmup", 0))
                elif cmd["op"] == "load":
                    while len(pool) < cmd.get("clients", 1):
                        pool.append(await stack.enter_async_context(Client(_target(args), mode=args.mode)))
                    out = await _load(
                        pool[: cmd.get("clients", 1)], cmd["tools"], cmd["calls"], cmd["concurrency"]
                    )
                elif cmd["op"] == "paced":
                    out = await _paced(client, cmd["tool"], cmd["rate"], cmd["seconds"], cmd.get("timeout", 60),
                                       cmd.get("start"), bool(cmd.get("trace")))
                elif cmd["op"] == "paced_start":
                    stop = asyncio.Event()
                    paced = asyncio.create_task(_paced(
                        client, cmd["tool"], cmd["rate"], cmd["seconds"], cmd.get("timeout", 60), cmd.get("start"),
                        bool(cmd.get("trace")), stop))
                    out = {"started": True}
                elif cmd["op"] == "paced_stop":
                    if paced is None:
                        raise RuntimeError("paced_stop before paced_start")
                    stop.set()
                    out, paced = await paced, None
                elif cmd["op"] == "call":
                    start = time.perf_counter()
                    try:
                        result = await asyncio.wait_for(
                            client.call_tool(cmd["tool"], cmd.get("arguments") or {}), cmd.get("timeout", 120))
                        error = _error_of(result)
                    except Exception as exc:  # a timeout or a transport failure, by its type
                        error = f"exception {type(exc).__name__}"
                    out = {"seconds": time.perf_counter() - start, "failed": error}
                elif cmd["op"] == "names":
                    out = {"names": [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]}
                elif cmd["op"] == "list":
                    out = {"samples": []}
                    for _ in range(cmd["rounds"]):
                        start = time.perf_counter()
                        await client.list_tools(cache_mode="bypass")
                        out["samples"].append(time.perf_counter() - start)
                elif cmd["op"] == "list_raw":
                    if recorder is None:
                        raise RuntimeError("list_raw needs --http")
                    if "tools/list" not in recorder.last:
                        await client.list_tools(cache_mode="bypass")  # a request to replay
                    out = {"samples": [], "bytes": 0}
                    for _ in range(cmd["rounds"]):
                        start = time.perf_counter()
                        out["bytes"] = await recorder.replay("tools/list")
                        out["samples"].append(time.perf_counter() - start)
                elif cmd["op"] == "time_stream":
                    out = await _time_stream(streams, stack, cmd["url"], cmd["tool"], cmd["calls"], cmd.get("warmup", 0))
                elif cmd["op"] == "trace_stream":
                    out = await _trace_stream(streams, stack, cmd["url"], cmd["tool"], cmd["calls"], cmd.get("warmup", 0))
                elif cmd["op"] == "list_stream":
                    out = await _list_stream(streams, stack, cmd["url"], cmd["rounds"])
                elif cmd["op"] == "time_get":
                    if recorder is None:
                        raise RuntimeError("time_get needs --http")
                    out = {"samples": []}
                    for i in range(cmd.get("warmup", 0) + cmd["calls"]):
                        start = time.perf_counter()
                        response = await recorder.http.get(cmd["url"])
                        await response.aread()
                        if i >= cmd.get("warmup", 0):
                            out["samples"].append(time.perf_counter() - start)
                elif cmd["op"] == "time_raw":
                    if recorder is None:
                        raise RuntimeError("time_raw needs --http")
                    if "tools/call" not in recorder.last:
                        await client.call_tool(cmd["tool"], {})  # a request to replay
                    out = {"samples": []}
                    for i in range(cmd.get("warmup", 0) + cmd["calls"]):
                        start = time.perf_counter()
                        await recorder.replay("tools/call")
                        if i >= cmd.get("warmup", 0):
                            out["samples"].append(time.perf_counter() - start)
                else:
                    out = {"error": f"unknown op {cmd['op']!r}"}
            except Exception as exc:  # reported to the parent, which stops with it
                out = {"error": f"{type(exc).__name__}: {exc}"[:500]}
            _emit(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench._client")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--http", metavar="URL")
    target.add_argument("--stdio", nargs=argparse.REMAINDER, metavar="CMD")
    parser.add_argument("--tool", action="append", default=[], help="wait until this tool is listed")
    parser.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the tools")
    parser.add_argument("--mode", default="auto", choices=["auto", "legacy"])
    args = parser.parse_args(argv)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


# -- the parent's side --------------------------------------------------------------------------


class ClientProcess:
    """``python -m bench._client`` as a child process of a benchmark: start, ask, close."""

    def __init__(self, label: str, proc: asyncio.subprocess.Process) -> None:
        self.label = label
        self.proc = proc
        self.ready: dict[str, Any] = {}

    @classmethod
    async def start(cls, label: str, *args: str, timeout: float = 90.0) -> ClientProcess:
        """Start the client (``args`` as for ``python -m bench._client``) and wait until it is ready."""
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench._client",
            *args,
            cwd=root,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=64 * 1024 * 1024,
        )
        self = cls(label, proc)
        try:
            self.ready = await self._read(timeout)
        except BaseException:
            await self.close()
            raise
        return self

    async def _read(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            raise RuntimeError(
                f"{self.label}: the client process ended (exit {await self.proc.wait()}); see stderr"
            )
        out: dict[str, Any] = json.loads(line)
        if "error" in out:
            raise RuntimeError(f"{self.label}: {out['error']}")
        return out

    async def ask(self, timeout: float = 300.0, **command: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(command) + "\n").encode())
        await self.proc.stdin.drain()
        return await self._read(timeout)

    async def close(self, timeout: float = 15.0) -> None:
        if self.proc.returncode is None and self.proc.stdin is not None:
            with contextlib.suppress(Exception):
                self.proc.stdin.close()
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
