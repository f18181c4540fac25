"""May the agent see this tool, and may it run it now? Page scope and user policy, decided together.

Pure functions evaluated at request time, so a page's state or route change changes the answer at
once. Checks, the first that says no wins (a ``debugging: true`` tool is hidden before all of them
unless ``trust.show_debugging``):

1. the origin is disabled (config, or the person's switch) → hidden; a page form also needs its
   forms-as-tools switch on, for the origin Chrome reported, which must be the tab's
2. the page says ``aiEnabled: false`` → hidden
3. the page's routes do not match the URL, or a required page state is not set → hidden
4. the allow/block globs (allow first) → hidden
5. the focus mode (``read-only`` or a named set) → hidden
6. the role forbids destructive tools → hidden
7. writes are off and the tool may write → visible, a call answers ``WRITES_DISABLED``
8. approval required, destructive, consequential, or a page form → visible, a call asks a human first
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .models import Scope
from .page_forms import FormsPolicy
from .registry import CategoryEntry, Tab, ToolEntry
from .trust.settings import TrustSettings

if TYPE_CHECKING:
    from .switches import PersonSwitches

__all__ = [
    "ApprovalSettings",
    "Decision",
    "FocusMode",
    "OriginRule",
    "PolicyCheck",
    "PolicySettings",
    "Role",
    "effective_scope",
    "is_consequential",
    "is_debugging",
    "route_matches",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FocusMode(_Section):
    """A named set of tools the agent may see (globs over tool and category names)."""

    description: str = ""
    allow: list[str] = Field(default_factory=list)
    block: list[str] = Field(default_factory=list)
    read_only: bool = False


class Role(_Section):
    description: str = ""
    allow_destructive: bool = False
    allow_writes: bool | None = None
    """Overrides ``policy.allow_writes`` for this role when set."""


class OriginRule(_Section):
    """Policy for origins matching ``match`` (a glob: ``https://*.shop.test``)."""

    match: str
    enabled: bool = True
    allow: list[str] = Field(default_factory=list)
    block: list[str] = Field(default_factory=list)
    allow_writes: bool | None = None
    reachable: bool = False
    """Agents may open this site: its tools stay findable when no tab of it is open, and a call
    opens it in a background tab (core/reachable_sites.py). Off unless the person says so, here or in the popup."""
    forms_as_tools: bool | None = None
    """Offer this origin's ordinary forms (no WebMCP ``toolname``) as tools, named and described from
    their labels (docs/security.md, "Page forms as tools"). Off unless a rule or the popup turns it on;
    the last matching rule that sets it wins, and the person's choice in the popup wins over every rule."""


class ApprovalSettings(_Section):
    mode: Literal["auto", "elicitation", "browser", "off"] = "auto"
    """auto: MCP elicitation when the client supports it, else ask in the browser; off: never ask."""
    destructive: bool = True
    """Destructive tools need approval even when the page does not ask for it."""
    timeout_s: float = Field(120.0, gt=0)
    page_forms: bool = True
    """Page forms offered by the forms-as-tools switch need approval (they submit the site's forms)."""


BUILTIN_FOCUS_MODES = {
    "full": FocusMode(description="every tool"),
    "read-only": FocusMode(description="only tools marked readOnlyHint", read_only=True),
}
BUILTIN_ROLES = {
    "admin": Role(description="every tool", allow_destructive=True),
    "editor": Role(description="no destructive tools"),
    "viewer": Role(description="read-only", allow_writes=False),
}


class PolicySettings(_Section):
    """The ``[policy]`` section of the config file."""

    allow_writes: bool = False
    """Writes are off until you turn them on: tools without ``readOnlyHint`` answer WRITES_DISABLED."""
    focus: str = "full"
    focus_modes: dict[str, FocusMode] = Field(default_factory=dict)
    role: str = "admin"
    roles: dict[str, Role] = Field(default_factory=dict)
    allow: list[str] = Field(default_factory=list)
    block: list[str] = Field(default_factory=list)
    origins: list[OriginRule] = Field(default_factory=list)
    approval: ApprovalSettings = Field(default_factory=ApprovalSettings)
    quarantine_suspicious: bool = False
    """Hide tools whose definitions look like prompt injection (they are always flagged in _meta)."""

    @model_validator(mode="after")
    def _known_names(self) -> PolicySettings:
        if self.focus not in self.all_focus_modes:
            raise ValueError(f"focus {self.focus!r} is not a focus mode ({', '.join(self.all_focus_modes)})")
        if self.role not in self.all_roles:
            raise ValueError(f"role {self.role!r} is not a role ({', '.join(self.all_roles)})")
        return self

    @property
    def all_focus_modes(self) -> dict[str, FocusMode]:
        return {**BUILTIN_FOCUS_MODES, **self.focus_modes}

    @property
    def all_roles(self) -> dict[str, Role]:
        return {**BUILTIN_ROLES, **self.roles}



_TOKEN = re.compile(r"[A-Za-z0-9_.:/*#?=&-]{1,64}")


def _token(text: str) -> str:
    """A page-written state or route as a refusal reason may name it: as written when it is an
    identifier (like a tool name), else only as "a state/route the page wrote" (a reason reaches the
    agent unframed, so it never quotes the page's free text)."""
    return text if _TOKEN.fullmatch(text) else "(one the page wrote: introspect shows it)"

@dataclass(frozen=True)
class Decision:
    """What the policy check says about one tool right now."""

    visible: bool
    code: str | None = None
    """Why it may not run: OUT_OF_SCOPE or WRITES_DISABLED."""
    reason: str = ""
    needs_approval: bool = False
    setting: str | None = None
    """For WRITES_DISABLED: the config setting that enables writes."""

    @property
    def callable(self) -> bool:
        return self.visible and self.code is None


_VISIBLE = Decision(visible=True)


def _merge(tool: Scope | None, category: Scope | None) -> Scope:
    """A tool's own scope, with its category's scope filling what it leaves open."""
    if tool is None and category is None:
        return Scope()
    if tool is None:
        return category or Scope()
    if category is None:
        return tool
    data = category.model_dump(exclude_none=True)
    data.update(tool.model_dump(exclude_none=True))
    if tool.states and category.states:
        data["states"] = tuple(dict.fromkeys([*category.states, *tool.states]))
    return Scope.model_validate(data)


def effective_scope(entry: ToolEntry) -> Scope:
    cat = entry.category
    return _merge(entry.tool.scope, cat.scope if cat else None)


def route_matches(patterns: Iterable[str], url: str) -> bool:
    """Does any pattern match the URL? ``#/x*`` patterns match the hash; others the path (and query).

    Globs use ``*`` and ``?``; a pattern with a scheme (``https://shop.test/admin/*``) matches the
    whole URL.
    """
    parts = urlsplit(url)
    path = parts.path or "/"
    with_query = f"{path}?{parts.query}" if parts.query else path
    fragment = f"#{parts.fragment}" if parts.fragment else "#"
    for pattern in patterns:
        if "://" in pattern:
            target = url
        elif pattern.startswith("#"):
            target = fragment
        else:
            target = with_query if "?" in pattern else path
        if fnmatch.fnmatchcase(target, pattern):
            return True
    return False


def _glob_hit(globs: Iterable[str], names: Iterable[str]) -> bool:
    names = list(names)
    return any(fnmatch.fnmatchcase(n, g) for g in globs for n in names)


def _is_write(entry: ToolEntry) -> bool:
    return not entry.tool.read_only


def is_consequential(entry: ToolEntry) -> bool:
    """WebMCP ``consequentialHint``: the call has effects in the world (a booking, a payment)."""
    return entry.tool.annotations.get("consequentialHint") is True


def is_debugging(entry: ToolEntry) -> bool:
    """WebMCP ``debugging``: a tool for the site's developers, not meant for agents."""
    return entry.tool.annotations.get("debugging") is True


class PolicyCheck:
    """Decides visibility and callability of page tools under one policy."""

    def __init__(
        self,
        policy: PolicySettings | None = None,
        trust: TrustSettings | None = None,
        forms: FormsPolicy | None = None,
        controls: PersonSwitches | None = None,
    ) -> None:
        self.policy = policy or PolicySettings()
        self.trust = trust or TrustSettings()
        self.forms = forms if forms is not None else FormsPolicy(self.policy.origins)
        """Which origins' ordinary forms may be offered as tools (core/page_forms.py)."""
        self.controls = controls
        """The person's switches (origins switched off, writes on/off), applied over the policy."""

    @property
    def version(self) -> int:
        """Goes up when the person's switches change (listing caches key on it)."""
        return self.controls.version if self.controls is not None else 0

    def _origin_rules(self, tab: Tab) -> list[OriginRule]:
        return [r for r in self.policy.origins if fnmatch.fnmatchcase(tab.origin, r.match)]

    def origin_enabled(self, tab: Tab) -> bool:
        return all(r.enabled for r in self._origin_rules(tab)) and self._person_allows(tab)

    def _person_allows(self, tab: Tab) -> bool:
        return self.controls is None or self.controls.origin_enabled(tab.origin)

    def decide(self, entry: ToolEntry, *, as_write: bool = False) -> Decision:
        """May ``entry`` run, and how; ``as_write``: the call counts as a write whatever the tool
        says (a call that puts in a secret, core/secrets.py)."""
        policy = self.policy
        tab = entry.tab
        rules = self._origin_rules(tab)
        if not all(r.enabled for r in rules):
            return Decision(False, "OUT_OF_SCOPE", f"tools of {tab.origin} are disabled by policy")
        if not self._person_allows(tab):
            return Decision(False, "OUT_OF_SCOPE", f"tools of {tab.origin} are switched off by the person "
                            "(tabmcp popup, or: tabmcp controls origin ORIGIN on)")
        page_form = entry.tool.page_form
        if page_form and (refused := self.forms.refusal(tab.forms_origin, tab.origin,
                                                         secret_fields=bool(entry.tool.secret_fields))):
            return Decision(False, "OUT_OF_SCOPE", refused)
        if is_debugging(entry) and not self.trust.show_debugging:
            return Decision(False, "OUT_OF_SCOPE", "a debugging tool (trust.show_debugging = true lists them)")
        if entry.tool.warnings and policy.quarantine_suspicious:
            # the rule, not the findings: they quote the page's words, and this reason reaches the agent
            return Decision(False, "OUT_OF_SCOPE", "quarantined: its definition looks like text addressed to "
                            "the model (policy.quarantine_suspicious)")
        scope = effective_scope(entry)
        if scope.ai_enabled is False:
            return Decision(False, "OUT_OF_SCOPE", "the page does not offer this tool to AI agents")
        if scope.routes and not route_matches(scope.routes, tab.url):
            return Decision(
                False, "OUT_OF_SCOPE", f"only available on {', '.join(map(_token, scope.routes))} (not this page)"
            )
        if scope.states:
            missing = [s for s in scope.states if s not in tab.states]
            if missing:
                return Decision(False, "OUT_OF_SCOPE", f"needs page state {', '.join(map(_token, missing))}")
        names = [entry.public_name, entry.tool.name]
        if entry.category is not None:
            names += [entry.category.name, f"{entry.category.name}/{entry.tool.name}"]
        for allow, block, where in [(policy.allow, policy.block, "policy")] + [
            (r.allow, r.block, f"policy for {r.match}") for r in rules
        ]:
            if allow and not _glob_hit(allow, names):
                return Decision(False, "OUT_OF_SCOPE", f"not in the allow list of the {where}")
            if block and _glob_hit(block, names):
                return Decision(False, "OUT_OF_SCOPE", f"blocked by the {where}")
        focus = policy.all_focus_modes[policy.focus]
        if focus.read_only and (as_write or not entry.tool.read_only):
            return Decision(False, "OUT_OF_SCOPE", f"focus mode {policy.focus!r} shows read-only tools only")
        if focus.allow and not _glob_hit(focus.allow, names):
            return Decision(False, "OUT_OF_SCOPE", f"not part of focus mode {policy.focus!r}")
        if focus.block and _glob_hit(focus.block, names):
            return Decision(False, "OUT_OF_SCOPE", f"excluded by focus mode {policy.focus!r}")
        role = policy.all_roles[policy.role]
        destructive = entry.tool.destructive or scope.danger_level == "destructive"
        if destructive and not role.allow_destructive:
            return Decision(False, "OUT_OF_SCOPE", f"role {policy.role!r} may not use destructive tools")
        writes = policy.allow_writes if role.allow_writes is None else role.allow_writes
        person_writes = self.controls.writes if self.controls is not None else None
        if person_writes is True and role.allow_writes is None:
            writes = True
        for rule in rules:
            if rule.allow_writes is not None:
                writes = rule.allow_writes
        if person_writes is False:
            writes = False
        consequential = is_consequential(entry) and self.trust.consequential_approval
        form_approval = page_form and policy.approval.page_forms
        needs_approval = (bool(scope.requires_approval) or (destructive and policy.approval.destructive)
                          or consequential or form_approval)
        why = ""
        if needs_approval:
            why = ("A form of this page, offered by your forms-as-tools switch: the call fills it in and submits it."
                   if form_approval
                   else "This tool is destructive." if destructive and policy.approval.destructive
                   else "The page marks this tool as consequential (consequentialHint)." if consequential
                   else "The page marks this tool as needing approval.")
        if policy.approval.mode == "off":
            needs_approval, why = False, ""
        if (as_write or _is_write(entry)) and not writes:
            return Decision(
                True,
                "WRITES_DISABLED",
                ("writes are disabled: a call that puts in a secret counts as a write" if as_write
                 else "writes are disabled: this tool is not marked read-only"),
                needs_approval=needs_approval,
                setting=("the Writes switch in the tabmcp popup (or: tabmcp controls writes on)"
                         if person_writes is False else "policy.allow_writes = true (config file) or --allow-writes"),
            )
        return Decision(True, reason=why, needs_approval=True) if needs_approval else _VISIBLE

    def visible(self, entry: ToolEntry) -> bool:
        return self.decide(entry).visible

    def visible_members(self, entry: CategoryEntry) -> tuple[ToolEntry, ...]:
        return tuple(m for m in entry.members if self.visible(m))
