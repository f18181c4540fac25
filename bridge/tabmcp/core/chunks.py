"""A big message from the extension in bounded chunks, put back together (no I/O).

There is one link for every tab, and the extension's service worker has one thread: a heavy tab's
``tab.update`` (megabytes of definitions) sent as one frame held every answer sent after it (a
call's result, an approval) until its last byte had crossed. The worker sends tabs' data
(``tab.update``, the parts of a ``tabs.sync``, ``telemetry``) in a lane of its own, behind the
answers, and a message of that lane longer than a chunk as ``chunk`` messages
(:class:`tabmcp.protocol.Chunk`), each at most :data:`~tabmcp.protocol.MAX_CHUNK_CHARS` characters of its JSON text,
paced by the socket's ``bufferedAmount``: an answer waits behind one chunk at most. This object
puts one link's chunks back together, one message at a time (the lane is in order).

Bad chunks get a named error and lose nothing else: a chunk out of its place
(:class:`~tabmcp.errors.MalformedMessage`) or a message that grows past :data:`MAX_MESSAGE_BYTES`
(:class:`~tabmcp.errors.TooLarge`) drops that message's chunks so far, and its later chunks are
ignored (the message is cut off; the link, the other tabs and the next message go on). The
message put together is read like a frame, and only a message of the lane may come in chunks.
Its parse (some 4 ms a 3.8 MB message) is the bridge's to run off the loop: the links hand it out
(``ReadApart``) and the lane's later messages wait behind it (:data:`LANE_TYPES`).
"""

from __future__ import annotations

from ..errors import MalformedMessage, TooLarge
from ..protocol import MAX_FRAME_BYTES, Chunk

__all__ = ["CHUNKED_TYPES", "LANE_TYPES", "MAX_MESSAGE_BYTES", "Reassembly", "utf8_length"]
MAX_MESSAGE_BYTES = MAX_FRAME_BYTES
"""A message put together from chunks is at most what one frame may be: bytes of its JSON text in UTF-8
(a character counted as one, 3-byte characters made it three times what a frame may carry)."""
CHUNKED_TYPES = frozenset({"tabs.sync", "tab.update", "telemetry"})
"""The messages of the worker's lane for tabs' data: only they may come in chunks."""
LANE_TYPES = CHUNKED_TYPES | {"tab.closed", "site.status"}
"""The lane's messages, which keep their order: one that comes while a message put together from
chunks is read off the loop waits behind it (``ExtensionLinks.read_apart``)."""


class Reassembly:
    """One link's chunks, put back together: :meth:`add` each as it comes, in order."""

    def __init__(self, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.limit = limit
        self._id: int | None = None
        self._parts: list[str] = []
        self._bytes = 0
        self._ref = "chunk"
        self._cut: int | None = None
        """The message whose chunks went wrong: its later chunks are ignored."""
        self.abandoned: MalformedMessage | None = None
        """A message left unfinished when the next one began (its error, for the caller to report)."""

    @property
    def partial(self) -> bool:
        """A message's first chunks came, its last has not."""
        return self._id is not None

    def add(self, chunk: Chunk) -> str | None:
        """Take ``chunk``: the whole message's JSON text once its last chunk is in, else ``None``.

        A message begun while another was unfinished drops the unfinished one (:attr:`abandoned`
        says so) and goes on.

        Raises:
            MalformedMessage: a chunk out of its place (a part missing or repeated, or of a
                message never begun): that message is dropped.
            TooLarge: the message grew past :attr:`limit`: dropped, its later chunks ignored.
        """
        ref = _ref(chunk)
        if chunk.id == self._cut:
            return None  # the rest of a message already refused
        if chunk.part == 0:
            if self._id is not None:  # the unfinished one can never end now: dropped, said by the caller
                self.abandoned = MalformedMessage(
                    f"chunk: message {self._id} stopped after {len(self._parts)} part(s), before its last: dropped",
                    ref=self._ref)
                self._cut = self._id
            self._start(chunk)
        elif chunk.id != self._id or chunk.part != len(self._parts):
            # A part missing or repeated: that message is dropped (another one being put together goes on).
            expected = f"part {len(self._parts)}" if chunk.id == self._id else "its part 0"
            self._drop(chunk.id)
            raise MalformedMessage(f"chunk: part {chunk.part} of message {chunk.id} came where {expected} was due: "
                                   "the message is dropped", ref=ref)
        self._bytes += utf8_length(chunk.data)
        if self._bytes > self.limit:
            self._drop(chunk.id)
            raise TooLarge(f"chunk: message {chunk.id} is over {self.limit} bytes put together: dropped",
                           ref=ref)
        self._parts.append(chunk.data)
        if not chunk.last:
            return None
        text = "".join(self._parts)
        self._id, self._parts, self._bytes = None, [], 0
        return text

    def take_abandoned(self) -> MalformedMessage | None:
        """The error of a message :meth:`add` dropped unfinished (once), for the caller to report."""
        abandoned, self.abandoned = self.abandoned, None
        return abandoned

    def _start(self, chunk: Chunk) -> None:
        self._id, self._parts, self._bytes = chunk.id, [], 0
        self._ref = _ref(chunk)

    def _drop(self, message_id: int) -> None:
        self._cut = message_id
        if self._id == message_id:
            self._id, self._parts, self._bytes = None, [], 0


def _ref(chunk: Chunk) -> str:
    """What an error about ``chunk``'s message names: its tab when it is a tab's update."""
    return f"tab:{chunk.tab_id}" if chunk.tab_id is not None else "chunk"


def utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8, as a frame carries it: an ASCII text (most JSON) is its length, told
    without a scan (CPython keeps the flag ``isascii`` reads); another is encoded (C speed, one chunk of
    at most :data:`~tabmcp.protocol.MAX_CHUNK_CHARS`). A lone surrogate (a JSON escape) counts 3, as U+FFFD."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
