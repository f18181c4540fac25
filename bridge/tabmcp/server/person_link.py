"""The person's side of the extension link: the popup's panel, their switches, forms as tools.

Only the extension link reaches this module (``panel.query``, ``control.set``, ``forms.set``), never
an MCP tool. It holds what the root built (the switches, the forms policy, the policy check) and
answers with :func:`tabmcp.core.popup.panel_state`.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.activity import ActivityLog
from ..core.extension_links import ExtensionLinks, Peer
from ..core.page_forms import FormsPolicy, normalize_origin
from ..core.popup import ControlRefused, Insight, apply_control, for_browser, panel_state
from ..core.scoping import PolicyCheck
from ..core.switches import PersonSwitches
from ..errors import ErrorCode
from ..protocol import ControlSet, ErrorBody, FormsPolicyMessage, FormsPolicyRule, FormsSet, PanelQuery, PanelState
from ..storage.database import FormsSwitchStore

if TYPE_CHECKING:
    from ..core.registry import Registry
    from ..core.secrets import Secrets
    from ..core.trust.guard import TrustGuard

__all__ = ["PersonLink"]

log = logging.getLogger("tabmcp.panel")

class PersonLink:
    """The popup's panel, the person's switches and the forms-as-tools switch, for one bridge core.

    Args:
        changed: agents' listings may differ now (the bridge core notifies its listeners).
        touch: the registry's listings must be recomputed (forms offered or withdrawn).
        flush_soon: send what the session queued, from synchronous code.
        trust: the trust defences, once installed (read at each use: they come later).
        secrets: the secrets by name (read at each use: made after the panel).
    """

    def __init__(
        self,
        registry: Registry,
        session: ExtensionLinks,
        activity: ActivityLog,
        *,
        controls: PersonSwitches,
        forms: FormsPolicy,
        forms_switches: FormsSwitchStore,
        policy_check: PolicyCheck,
        changed: Callable[[], None],
        touch: Callable[[], None],
        flush_soon: Callable[[], None],
        trust: Callable[[], TrustGuard | None],
        secrets: Callable[[], Secrets | None] = lambda: None,
    ) -> None:
        self.controls = controls  # the person's switches (popup, CLI)
        self.forms_switches = forms_switches
        self.forms = forms
        self.policy_check = policy_check
        self._registry = registry
        self._session = session
        self._activity = activity
        self._changed = changed
        self._touch = touch
        self._flush_soon = flush_soon
        self._trust = trust
        self._secrets = secrets
        self._secret_sites: list[str] | None = None
        """The origins with a secret bound, as the extension was last told (forms.policy)."""
        self._revision = 0
        self._insight = Insight()

    @property
    def revision(self) -> int:
        """Grows with every switch of the person that changes listings (part of ``BridgeCore.revision``)."""
        return self.controls.version + self._revision

    # -- the link's life -----------------------------------------------------------------

    def connected(self, peer: Peer) -> None:
        """An extension completed its handshake: send it the forms policy."""
        self._session.send(peer, self._forms_policy_message())

    def disconnected(self) -> None:
        """The extension went away (nothing of the person's side depends on it)."""

    # -- panel.query / control.set -------------------------------------------------------

    def on_message(self, peer: Peer, message: PanelQuery | ControlSet) -> None:
        """Answer the popup: apply a ``control.set``, then send the panel's state either way."""
        if isinstance(message, ControlSet):
            try:
                done = apply_control(message, self.controls, self._trust(), self._secrets())
            except ControlRefused as exc:
                self._session.send(peer, PanelState(request_id=message.request_id, ok=False, error=ErrorBody(
                    code=ErrorCode.MALFORMED_MESSAGE, message=str(exc))))
                return
            log.info("the person set %s %s %s", message.action, message.origin or message.tool,
                     message.secret or message.enabled)
            if message.action == "unbind":  # its forms that need a secret go (core/page_forms.py)
                self.follow_secrets()
            if done.listing:
                if message.action == "accept":  # the switches themselves count in controls.version
                    self.trust_changed()
                else:
                    self._changed()
        state = self.state(message if isinstance(message, PanelQuery) else None)
        shown = for_browser(state, peer.slot, self._session.slots.labels(),  # its own tab numbers
                            this_run=self._activity.first_id)
        self._session.send(peer, PanelState(request_id=message.request_id, state=shown))

    def trust_changed(self) -> None:
        """An accepted definition (here or in another process) changes listings: a new revision,
        and agents are told."""
        self._revision += 1
        self._changed()

    def state(self, query: PanelQuery | None = None) -> dict[str, Any]:
        """What the popup shows (:func:`tabmcp.core.popup.panel_state`)."""
        self.sync_controls()
        return panel_state(registry=self._registry, policy_check=self.policy_check, controls=self.controls,
                           activity=self._activity, trust=self._trust(), query=query, insight=self._insight,
                           secrets=self._secrets())

    # -- the person's switches, also set from the CLI ------------------------------------

    def sync_controls(self) -> None:
        """Pick up switches ``tabmcp controls`` changed in the database; notify if listings differ.
        Cheap enough for every tools/call to run it, so a pause from the CLI holds at once."""
        before = self.controls.version
        try:
            synced = self.controls.sync()
        except sqlite3.Error:  # a locked or vanished file: the switches as last read hold
            log.debug("could not read the person's switches", exc_info=True)
            return
        if synced and self.controls.version != before:
            self._changed()

    # -- page forms as tools (core/page_forms.py) ----------------------------------------

    def _forms_policy_message(self) -> FormsPolicyMessage:
        secrets = self._secrets()
        self._secret_sites = secrets.bound_origins() if secrets is not None else []
        return FormsPolicyMessage(rules=[FormsPolicyRule(**r.to_wire()) for r in self.forms.rules()],
                                  secret_sites=self._secret_sites)

    def follow_secrets(self) -> None:
        """The origins with a secret bound may have changed (the popup's unbind, or ``tabmcp secrets``
        in another process): when they did, the extension hears it (``forms.policy``) and listings are
        recomputed, so a sign-in form comes or goes (core/page_forms.py)."""
        secrets = self._secrets()
        if secrets is None:
            return
        try:
            sites = secrets.bound_origins()
        except sqlite3.Error:  # a locked or vanished file: as last read
            log.debug("could not read the secrets' sites", exc_info=True)
            return
        if sites != self._secret_sites:
            self._secret_sites = sites
            self._resend_forms_policy()
            self._touch()

    def _resend_forms_policy(self) -> None:
        if self._session.ready:
            self._session.send(None, self._forms_policy_message())
            self._flush_soon()

    def set_forms_as_tools(self, origin: str, enabled: bool) -> None:
        """The person's choice for one origin: kept, applied at once, and sent to the extension.

        Raises:
            ValueError: ``origin`` is not an http(s) origin.
        """
        origin = normalize_origin(origin)
        self.forms_switches.set(origin, enabled)  # kept first: a failed write changes nothing
        changed = self.forms.choose(origin, enabled)
        self._resend_forms_policy()
        if changed:
            self._touch()

    def forms_set(self, peer: Peer, message: FormsSet) -> None:
        """The popup's ``forms.set``; a bad origin is reported to the extension, not raised."""
        try:
            self.set_forms_as_tools(message.origin, message.enabled)
        except ValueError as exc:
            self._session.report(peer, ErrorCode.MALFORMED_MESSAGE, f"forms.set: {exc}", ref="forms.set")
            return
        log.info("forms-as-tools %s for %s (the person, in the popup)", "on" if message.enabled else "off",
                 message.origin)
