"""Page forms as tools: a site's ordinary forms, offered only where the person turned the switch on.

The extension's page script describes a page's ordinary forms as tools; the page is untrusted, so
nothing it says decides anything here: :class:`FormsPolicy` says which origins have the switch on
(off by default), :func:`merge_page_forms` marks the forms ``pageForm``, and :func:`secret_field`
refuses again every password or payment form, except as secret-only fields for a site with a
secret bound (docs/security.md §4b and §8).
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from ..protocol import TabSnapshot
from .js_regex import glob_to_js
from .sensitive_fields import card_pattern, said, secret_autocomplete

__all__ = [
    "PAGE_FORM_FIELD",
    "PAGE_FORM_MARK",
    "SECRET_FIELDS_FIELD",
    "SECRET_FIELD_SCHEMA",
    "FormsPolicy",
    "FormsRule",
    "merge_page_forms",
    "normalize_origin",
    "secret_field",
]

log = logging.getLogger("tabmcp.page_forms")

PAGE_FORM_FIELD = "pageForm"
"""The bridge-only field that marks a tool as a page form (stripped from what pages send)."""

SECRET_FIELDS_FIELD = "secretFields"
"""The bridge-only field that names a page form's secret fields (they take only a secret's name)."""

SECRET_FIELD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": r"^\{\{secret:[A-Za-z][A-Za-z0-9_]{0,63}\}\}$",
    "description": ("Only a secret's name, exactly {{secret:NAME}} (a secret the person bound to this site; "
                    "describe_tools lists them): the bridge puts the value in. A value typed here is refused."),
}
"""What a page form's password, one-time-code or card field becomes: it matches only the placeholder."""

PAGE_FORM_MARK = (
    "[page form: offered by your forms-as-tools switch, not declared by the site; it submits the form]"
)
"""Starts every page form's description, after the ``[origin]``: what the agent sees says who offers it."""

MAX_PAGE_FORMS = 64
"""Forms beyond this many per page are ignored."""


class _RuleLike(Protocol):
    match: str
    forms_as_tools: bool | None


@dataclass(frozen=True)
class FormsRule:
    """One say about the switch, in the order they apply (later wins)."""

    match: str
    """An origin glob (config) or an exact origin (the person's choice)."""
    enabled: bool
    source: Literal["config", "person"]

    def to_wire(self) -> dict[str, Any]:
        """The rule for the extension: a config glob also compiled for JavaScript (``pattern``),
        so the worker matches origins with the bridge's reading of the glob, not a port of it."""
        wire: dict[str, Any] = {"match": self.match, "enabled": self.enabled, "source": self.source}
        if self.source == "config":
            wire["pattern"] = glob_to_js(self.match).to_wire()
        return wire


def normalize_origin(text: str) -> str:
    """``scheme://host[:port]`` of an http(s) origin, lower-cased, default port dropped.

    Raises:
        ValueError: not an http or https origin (the switch is for web pages only).
    """
    try:
        parts = urlsplit(str(text).strip())
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not an origin: {text!r}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) origin: {text!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"an origin has no path, query, fragment or user: {text!r}")
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


class FormsPolicy:
    """Which origins have forms-as-tools on: config rules, then the person's choices.

    A change bumps the registry's version (``Registry.touch``) so listings built before it are stale.
    """

    def __init__(
        self, rules: Iterable[_RuleLike] = (), chosen: Mapping[str, bool] | None = None,
        has_secret: Callable[[str], bool] | None = None,
    ) -> None:
        self._config = tuple(
            FormsRule(r.match, bool(r.forms_as_tools), "config")
            for r in rules
            if r.forms_as_tools is not None
        )
        self._chosen: dict[str, bool] = dict(chosen or {})
        self.has_secret: Callable[[str], bool] = has_secret or (lambda origin: False)
        """Whether a secret is bound to an origin (the bridge core gives it: core/secrets.py)."""

    def enabled(self, origin: str) -> bool:
        """Whether ``origin``'s ordinary forms may be offered as tools."""
        if not origin:
            return False
        if origin in self._chosen:
            return self._chosen[origin]
        on = False
        for rule in self._config:
            if fnmatch.fnmatchcase(origin, rule.match):
                on = rule.enabled
        return on

    def choose(self, origin: str, enabled: bool) -> bool:
        """The person turned the switch on or off for ``origin`` (normalized); True if that changed it."""
        origin = normalize_origin(origin)
        before = self.enabled(origin)
        self._chosen[origin] = bool(enabled)
        return before != bool(enabled)

    def rules(self) -> list[FormsRule]:
        """Every say, in the order it applies (the extension evaluates them the same way)."""
        return [*self._config, *(FormsRule(o, on, "person") for o, on in sorted(self._chosen.items()))]

    def refusal(self, forms_origin: str, tab_origin: str, *, secret_fields: bool = False) -> str | None:
        """Why a document's page forms may not be listed or called now (None: they may);
        ``secret_fields``: a form with password, one-time-code or card fields, offered only while a
        secret is bound to its origin."""
        if not forms_origin:
            return "page forms need the origin Chrome reported for the page, and none came"
        if forms_origin != tab_origin:
            return f"page forms of {forms_origin} cannot be offered for a tab at {tab_origin or 'no origin'}"
        if not self.enabled(forms_origin):
            return (f"page forms of {forms_origin} are not offered: the forms-as-tools switch is off "
                    "(turn it on in the extension's popup, or forms_as_tools = true in [[policy.origins]])")
        if secret_fields and not self.has_secret(forms_origin):
            return (f"this form of {forms_origin} has a password, one-time-code or card field, and no secret is "
                    f"bound to {forms_origin}: it is offered only once the person binds one "
                    f"(tabmcp secrets set NAME --site {forms_origin})")
        return None


_MAX_DEPTH = 8


def _secret_property(name: Any, prop: dict[str, Any]) -> str | None:
    """Why one property is a password, one-time-code or payment field itself (not what it holds)."""
    if str(prop.get("format", "")).lower() == "password":
        return f"{name!r} is a password field"
    for text in (name, prop.get("title"), prop.get("description")):
        if isinstance(text, str) and (why := said(text)):
            return f"{str(name)[:64]!r} is {why}"
    if card_pattern(prop.get("pattern")):
        return f"{str(name)[:64]!r} asks for a card number's digits"
    ac = prop.get("autocomplete") or prop.get("x-autocomplete")
    if isinstance(ac, str) and secret_autocomplete(ac):
        return f"{str(name)[:64]!r} is a password, one-time code or payment field"
    return None


def secret_field(schema: Any, depth: int = 0) -> str | None:
    """Why a page form's input schema has a field forms.js never offers (password, one-time code,
    payment), judged on each property's name, title, description and ``format``; None if it has none."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return None
    properties = schema.get("properties")
    for name, prop in (properties.items() if isinstance(properties, dict) else ()):
        prop = prop if isinstance(prop, dict) else {}
        if why := _secret_property(name, prop):
            return why
        if why := secret_field(prop, depth + 1):
            return why
    for key in ("items", "additionalProperties"):
        if why := secret_field(schema.get(key), depth + 1):
            return why
    for key in ("anyOf", "oneOf", "allOf"):
        subs = schema.get(key)
        for sub in subs if isinstance(subs, list) else ():
            if why := secret_field(sub, depth + 1):
                return why
    return None


def secret_fields(schema: Any) -> tuple[dict[str, Any], list[str]] | None:
    """A page form's schema with its secret fields rewritten to :data:`SECRET_FIELD_SCHEMA`, and their
    names; None when a secret field is not a top-level string, so the form is refused."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    properties: dict[str, Any] = dict(schema["properties"])
    names: list[str] = []
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            continue
        if prop.get("x-tabmcp-secret") is True or _secret_property(name, prop):
            if prop.get("type", "string") != "string" or any(k in prop for k in ("enum", "const", "properties", "items")):
                return None
            names.append(name)
    if not names:
        return None
    rest = {**schema, "properties": {k: v for k, v in properties.items() if k not in names}}
    if secret_field(rest):  # another secret, deeper in: refused
        return None
    for name in names:
        title = properties[name].get("title")
        properties[name] = {**SECRET_FIELD_SCHEMA, **({"title": title} if isinstance(title, str) else {})}
    return {**schema, "properties": properties}, names


def _clean(raw: Any) -> dict[str, Any] | None:
    """A page form's definition as a tool: what the page may say, marked as the bridge's; None for
    a form the page script would never have offered (the page may have sent it itself). A form
    whose secret fields can take a secret's name is kept with them rewritten (:func:`secret_fields`)."""
    if not isinstance(raw, dict):
        return None
    tool = {k: raw[k] for k in ("name", "title", "description", "inputSchema") if k in raw}
    if why := secret_field(raw.get("inputSchema")):
        rewritten = secret_fields(raw.get("inputSchema"))
        if rewritten is None:
            log.warning("refused the page form %r: %s (never offered as a tool)", str(raw.get("name"))[:64], why)
            return None
        tool["inputSchema"], tool[SECRET_FIELDS_FIELD] = rewritten
    tool[PAGE_FORM_FIELD] = True
    return tool


def merge_page_forms(snap: TabSnapshot) -> TabSnapshot:
    """The snapshot with its page forms among its tools, marked; WebMCP tools win a name clash.

    Call after pages' own tools lost the bridge-only fields (so only these carry ``pageForm``).
    """
    if snap.forms is None or not snap.forms.tools:
        return snap
    taken = {t.get("name") for t in snap.tools if isinstance(t, dict)}
    added: list[Any] = []
    for raw in snap.forms.tools[:MAX_PAGE_FORMS]:
        tool = _clean(raw)
        if tool is None or tool.get("name") in taken:
            continue
        taken.add(tool.get("name"))
        added.append(tool)
    return snap.model_copy(update={"tools": [*snap.tools, *added]}) if added else snap
