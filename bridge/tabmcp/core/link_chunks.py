"""Big messages of an extension link: a sync in parts, a message of the tabs' lane in chunks, and a
message put together from chunks read off the loop (``ReadApart``, then :meth:`LinkChunks.take_apart`).

A part of :class:`tabmcp.core.extension_links.ExtensionLinks` (it inherits :class:`LinkChunks`),
kept apart so the links' protocol reads in pieces with one job each.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..errors import MalformedMessage, ProtocolError
from ..protocol import MAX_KEPT_TABS, MAX_SYNC_PARTS, Chunk, ChunkRead, ErrorCode, TabsSync, WireModel, parse_extension_message
from .link_events import Event, MessageReceived, ReadApart
from .link_peer import LinkState, Peer
from .tab_revisions import TabRevisions

__all__ = ["LinkChunks", "read_apart"]

log = logging.getLogger("tabmcp.session")


class LinkChunks:
    """Puts a link's big messages back together (see the module's doc)."""

    read_apart: bool
    """A message put together from chunks is handed out to be parsed off the loop (``ReadApart``,
    then :meth:`take_apart`), as the bridge does; False: parsed at once (the core driven alone)."""
    protocol_errors: int
    messages_received: int
    revisions: TabRevisions

    if TYPE_CHECKING:
        def send(self, peer: Peer | None, message: WireModel) -> None: ...
        def report(self, peer: Peer, code: str, message: str, ref: str | None = None) -> None: ...
        def _receive(self, peer: Peer, frame: str | bytes, *, chunked: bool = False) -> list[Event]: ...
        def _take(self, peer: Peer, frame: str | bytes, message: Any, *, chunked: bool = False) -> list[Event]: ...
        def _refused(self, peer: Peer, frame: str | bytes, exc: ProtocolError) -> list[Event]: ...

    def take_apart(self, apart: ReadApart, outcome: Any) -> list[Event]:
        """A :class:`ReadApart`'s message, in its turn (after every earlier one of its link's):
        ``outcome`` is what :func:`read_apart` made of its text (unused for an already parsed
        message). A link closed meanwhile takes nothing."""
        peer = apart.peer
        peer.apart -= 1
        if peer.state is LinkState.CLOSED:
            return []
        if apart.read is not None:
            self.send(peer, apart.read)
        if apart.message is not None:
            return self._take(peer, "", apart.message)
        text = apart.text or ""
        self.messages_received += 1
        if isinstance(outcome, ProtocolError):
            return self._refused(peer, text, outcome)
        return self._take(peer, text, outcome, chunked=True)

    def _on_sync(self, peer: Peer, message: TabsSync) -> list[Event]:
        """A sync, or a part of one: the full state goes on once its last part has arrived, if
        every tab it keeps by revision is held in that revision (else ``UNKNOWN_REVISION``: the
        sync is refused whole, the bridge's tabs stay as they were and the worker sends them all)."""
        if message.more:
            if len(peer.sync_parts) >= MAX_SYNC_PARTS - 1:
                peer.sync_parts = []
                self.report(peer, ErrorCode.TOO_LARGE,
                            f"a sync in more than {MAX_SYNC_PARTS} parts: dropped (the next sync replaces it)",
                            ref="tabs.sync")
                return []
            peer.sync_parts.append(message)
            return []
        if peer.sync_parts:
            tabs = [tab for part in peer.sync_parts for tab in part.tabs]
            kept = [ref for part in peer.sync_parts for ref in part.kept]
            peer.sync_parts = []
            if len(kept) + len(message.kept) > MAX_KEPT_TABS:  # each part within it, together not
                raise MalformedMessage(f"a sync keeps at most {MAX_KEPT_TABS} tabs by revision, its parts together "
                                       f"{len(kept) + len(message.kept)}: dropped (send every tab)", ref="tabs.sync")
            message = TabsSync(type="tabs.sync", tabs=[*tabs, *message.tabs], kept=[*kept, *message.kept])
        self.revisions.synced(peer.key, message.tabs, message.kept)  # a kept tab not held so: refused whole
        return [MessageReceived(peer, message)]

    def _on_chunk(self, peer: Peer, chunk: Chunk) -> list[Event]:
        """A piece of a big message of the tabs' lane: said read at once (the worker sends the lane
        on while at most two are unread), and once its last piece is in, the message is read as a
        frame of its own (a bad chunk raises its named error, :mod:`tabmcp.core.chunks`)."""
        read = ChunkRead(id=chunk.id, part=chunk.part)
        text = None
        try:
            text = peer.chunks.add(chunk)
        finally:  # read or refused: the lane goes on (a message read apart is said read once parsed)
            if text is None or not self.read_apart:
                self.send(peer, read)
        if (abandoned := peer.chunks.take_abandoned()) is not None:
            self.protocol_errors += 1
            log.warning("extension %s: %s: %s", peer.name, abandoned.code, abandoned.message)
            self.report(peer, abandoned.code, abandoned.message, abandoned.ref)
        if text is None:
            return []
        if self.read_apart:  # its chunk.read waits for the parse: the worker's two unread bound the backlog
            peer.apart += 1
            return [ReadApart(peer, text=text, read=read)]
        return self._receive(peer, text, chunked=True)


def read_apart(text: str) -> Any:
    """Parse a message put together from chunks (a :class:`ReadApart`'s text): its message, or the
    :class:`~tabmcp.errors.ProtocolError` it is refused with. Touches no state: the bridge runs it
    on its reader's thread (server/reader.py), and :meth:`ExtensionLinks.take_apart` takes the outcome."""
    try:
        return parse_extension_message(text)
    except ProtocolError as exc:
        return exc
    except Exception:  # a bridge bug: this message is refused by name, the link's turns go on
        log.exception("reading a message put together from chunks failed")
        return MalformedMessage("the message could not be read", ref="chunk")
