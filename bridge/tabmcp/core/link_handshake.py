"""The handshake of an extension link: ``hello`` (protocol, admission, which browser it is) and the
pairing ceremony a link without a valid pairing is limited to.

A part of :class:`tabmcp.core.extension_links.ExtensionLinks` (it inherits :class:`LinkHandshake`),
kept apart so the links' protocol reads in pieces with one job each.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from typing import TYPE_CHECKING

from ..errors import InvalidState, PairingError, PairingLocked, ProtocolVersionMismatch
from ..protocol import PROTOCOL_VERSION, ErrorCode, Hello, PairCode, PairDone, PairRequired, Welcome, WireModel
from .browsers import BrowserSlots, browser_key, browser_name
from .end_rules import EndRule
from .link_events import Disconnected, Event, HandshakeDone
from .link_peer import LinkState, Peer
from .pairing import Pairing, Pairings, TokenOnly, Verdict, format_code
from .tab_revisions import TabRevisions

__all__ = ["LinkHandshake"]

log = logging.getLogger("tabmcp.session")

_Rule = EndRule


class LinkHandshake:
    """Admits links (``hello``) and runs the pairing ceremony for those it does not admit."""

    session_id: str
    bridge_version: str
    pairing: Pairings | None
    _admission: Pairings | TokenOnly
    links: dict[Hashable, Peer]
    slots: BrowserSlots
    revisions: TabRevisions

    if TYPE_CHECKING:
        def send(self, peer: Peer | None, message: WireModel) -> None: ...
        def report(self, peer: Peer, code: str, message: str, ref: str | None = None) -> None: ...
        def _close(self, peer: Peer, code: int, reason: str) -> None: ...
        def _end_link(self, peer: Peer, rule: _Rule) -> list[Event]: ...

    def _on_hello(self, peer: Peer, hello: Hello) -> list[Event]:
        if hello.protocol != PROTOCOL_VERSION:
            raise ProtocolVersionMismatch(
                f"extension speaks protocol {hello.protocol}, this bridge speaks {PROTOCOL_VERSION}: "
                "update the extension or the bridge so they match",
                ref="hello",
            )
        admission = self._admission.admit(hello)
        if admission.verdict is Verdict.WRONG_TOKEN:
            log.warning("extension %s: refused, wrong or missing token", peer.name)
            self.report(peer, ErrorCode.UNAUTHORIZED, "wrong or missing extension token")
            self._close(peer, 1008, "unauthorized")
            return []
        if not admission.admitted:
            return self._unpaired(peer, hello, admission.verdict)
        # a second hello on a link is the same browser (its tabs keep their ids)
        key = peer.key if self.links.get(peer.key) is peer else browser_key(hello, admission.pairing_id)
        old = self.links.pop(key, None)
        peer.hello = hello
        peer.pairing_id = admission.pairing_id
        peer.key = key
        peer.slot = self.slots.slot(key)
        peer.browser = browser_name(hello) or ""
        peer.profile = (hello.profile_id or "")[:8] if peer.browser else ""  # which profile of that browser
        self.slots.name(peer.slot, peer.browser, peer.profile)
        peer.state = LinkState.READY
        self.links[key] = peer  # last: the browser linked most recently
        events: list[Event] = []
        replaced = None
        if old is not None and old is not peer:
            log.info("extension reconnected; closing the previous connection of that browser")
            events += self._end_link(old, _Rule.REPLACED)
            self._close(old, 4000, "replaced by a newer connection")
            replaced = old
        held = self.revisions.welcome(key, hello, self.session_id)  # the tabs a reconnect's sync may keep
        self.send(peer, Welcome(bridge_version=self.bridge_version, session_id=self.session_id,
                                batch=hello.batch, chunks=True, revisions=hello.revisions, held=held))
        log.info("extension %s connected (version %s, instance %s, %s browser slot %d)", hello.extension_id,
                 hello.extension_version, hello.instance_id, peer.browser or "a", peer.slot)
        events.append(HandshakeDone(peer, replaced))
        return events

    def _unpaired(self, peer: Peer, hello: Hello, verdict: Verdict) -> list[Event]:
        """A ``hello`` without a valid pairing: the ceremony only. Never a browser's link, so it
        displaces nothing; if it was one (a later hello dropped its pairing) that link ends."""
        log.warning("extension %s: not paired (%s); only the pairing ceremony is open to it", peer.name, verdict.value)
        events: list[Event] = []
        if self.links.get(peer.key) is peer:
            del self.links[peer.key]
            events += self._end_link(peer, _Rule.DISCONNECTED)
            events.append(Disconnected(peer))
        peer.hello = hello
        peer.pairing_id = None
        peer.state = LinkState.PAIRING
        reason = "unknown" if verdict is Verdict.UNKNOWN else "unpaired"
        self.send(peer, PairRequired(reason=reason, message=(
            "this bridge does not know that pairing: pair again" if reason == "unknown"
            else "pair this browser with the bridge: ask for a code, then run `tabmcp pair CODE`")))
        return events

    def _on_pair_request(self, peer: Peer) -> list[Event]:
        if peer.state is not LinkState.PAIRING or self.pairing is None:
            return []  # already admitted (or no pairing on this bridge): nothing to pair
        try:
            pending = self.pairing.codes.issue(peer, label=_label(peer.hello))
        except PairingError as exc:
            self.report(peer, exc.code, exc.message, "pair.request")
            return []
        self.send(peer, PairCode(code=format_code(pending.code), expires_ms=int(self.pairing.codes.ttl_s * 1000)))
        return []

    def confirm_pairing(self, typed: str) -> Pairing:
        """The person typed a code (``tabmcp pair CODE``): pair the connection that asked for it
        and send it its secret (``pair.done``); it says ``hello`` again with it.

        Raises:
            InvalidState: this session has no pairing.
            PairingCodeWrong, PairingLocked: see :meth:`PairingCodes.redeem`.
        """
        if self.pairing is None:
            raise InvalidState("this bridge does not pair")
        try:
            owner, pairing, secret = self.pairing.confirm(typed)
        except PairingLocked as exc:
            for voided in getattr(exc, "voided", []):
                if isinstance(voided, Peer):
                    self.send(voided, PairRequired(reason="expired", message="too many wrong codes: ask for a new one"))
            raise
        if isinstance(owner, Peer) and owner.state is LinkState.PAIRING:
            self.send(owner, PairDone(pairing_id=pairing.id, secret=secret))
        log.info("paired extension %s (%s)", pairing.id, pairing.label)
        return pairing

    def forget_pairing(self, pairing_id: str) -> tuple[bool, list[Event]]:
        """Remove a pairing; the link it admitted (if any) is closed. Whether it existed, and events."""
        if self.pairing is None:
            return False, []
        existed = self.pairing.forget(pairing_id)
        events: list[Event] = []
        for key, peer in list(self.links.items()):
            if peer.pairing_id == pairing_id:
                del self.links[key]
                events += self._end_link(peer, _Rule.DISCONNECTED)
                events.append(Disconnected(peer))
                self._close(peer, 4001, "pairing forgotten")
        return existed, events


def _label(hello: Hello | None) -> str:
    """How ``tabmcp pair --list`` names a pairing: the browser's user agent, shortened."""
    if hello is None:
        return "extension"
    if hello.brand:  # Chromium's own word for itself (its user agent says "Chrome" whatever the build)
        return hello.brand[:60]
    browser = hello.browser or ""
    for name in ("Firefox", "Edg", "OPR", "Chrome", "Chromium"):
        if name in browser:
            version = browser.split(name + "/", 1)[-1].split(" ", 1)[0].split(".", 1)[0]
            return f"{'Edge' if name == 'Edg' else name} {version}".strip()[:60]
    return (browser or hello.extension_id or "extension")[:60]
