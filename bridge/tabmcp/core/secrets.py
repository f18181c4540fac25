"""Secrets by name: the agent names a secret, the bridge puts its value in at the last moment, and
the value never comes back (docs/security.md §8 has the rules for names, placeholders, binding and masking).

No I/O: the module sees names and a :class:`Vault` (``tabmcp.storage.secret_store``), never the keychain.
"""

from __future__ import annotations

import base64
import html
import json
import logging
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from ..errors import InvalidSecretName, SecretNotBound, SecretToolChanged, ToolValidationError, UnknownSecret

__all__ = [
    "MARKER",
    "MIN_VALUE_CHARS",
    "NAME_RE",
    "PLACEHOLDER",
    "Mask",
    "Secrets",
    "Vault",
    "check_name",
    "check_use",
    "placeholder",
    "placeholders_in",
    "put_in",
    "secrets_line",
    "secrets_note",
]

NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
"""A secret's name: an identifier (a letter, then letters, digits, ``_``; 64 at most)."""
MARKER = "{{secret:"
PLACEHOLDER = re.compile(r"\{\{secret:([A-Za-z][A-Za-z0-9_]{0,63})\}\}")
"""``{{secret:NAME}}``: a string argument that is exactly this names a secret."""
MIN_VALUE_CHARS = 4
"""A shorter value would mask ordinary text everywhere it occurs, so it is refused when set."""
_T = TypeVar("_T")
log = logging.getLogger("tabmcp.secrets")
_MIN_FORM_CHARS = 4
"""A transformed form shorter than this (a base64 core of a short value) is not masked on its own."""


def check_name(name: str) -> str:
    """``name`` if it is a valid secret name; else raises :class:`InvalidSecretName`."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise InvalidSecretName(
            f"{name!r} is not a secret name: a letter, then letters, digits or _ (64 characters at most)"
        )
    return name


def placeholder(name: str) -> str:
    """The placeholder an agent passes for ``name``."""
    return "{{secret:" + check_name(name) + "}}"


class Vault(Protocol):
    """The secrets as the core sees them: bindings and values by name (``tabmcp.storage.secret_store``)."""

    def sites(self, name: str) -> frozenset[str]:
        """The origins ``name`` is bound to (empty: no such secret)."""

    def names_for(self, origin: str) -> list[str]:
        """The secret names bound to ``origin``, sorted."""

    def value(self, name: str) -> str | None:
        """The value of ``name`` (``None``: not stored)."""

    def used(self, names: Iterable[str]) -> None:
        """The secrets ``names`` were just put into a call (their last use)."""

    def unbind(self, name: str, site: str) -> None:
        """Take ``site`` off ``name``'s sites; raises :class:`tabmcp.errors.UnknownSecret` when it
        was not bound there."""

    def bound_origins(self) -> list[str]:
        """Every origin some secret is bound to, sorted."""


def _walk_strings(value: Any, path: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, str):
        out.append((path, value))
    elif isinstance(value, dict):
        for k, v in value.items():
            _walk_strings(v, f"{path}.{k}" if path else str(k), out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk_strings(v, f"{path}[{i}]", out)


def placeholders_in(arguments: Mapping[str, Any]) -> dict[str, str]:
    """Field path → secret name, for every string argument that is a placeholder.

    Raises:
        ToolValidationError: a string holds the placeholder marker among other text.
    """
    found: list[tuple[str, str]] = []
    _walk_strings(dict(arguments), "", found)
    names: dict[str, str] = {}
    for path, text in found:
        if MARKER not in text:
            continue
        match = PLACEHOLDER.fullmatch(text)
        if match is None:
            raise ToolValidationError(
                f"{path}: a secret placeholder must be the whole string, exactly {{{{secret:NAME}}}}",
                field=path,
            )
        names[path] = match.group(1)
    return names


def secrets_note(fields: Mapping[str, str]) -> str:
    """What an approval tells the person about the secrets a call puts in (``""``: none), e.g.
    ``Puts in your secrets: password: secret `bank_login```."""
    if not fields:
        return ""
    return "Puts in your secrets: " + ", ".join(f"{path}: secret `{name}`" for path, name in fields.items())


def secrets_line(secrets: dict[str, list[str]]) -> str:
    """What the agent reads about secrets: how to pass one, and which each tool may be given."""
    return ("Secrets you may pass by name, never by value: a string argument that is exactly "
            "{{secret:NAME}} (the bridge puts the value in; you never see it). "
            + "; ".join(f"{tool}: {', '.join(names)}" for tool, names in secrets.items()))


def _replace(value: Any, values: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        match = PLACEHOLDER.fullmatch(value) if value.startswith(MARKER) else None
        return values[match.group(1)] if match is not None else value
    if isinstance(value, dict):
        return {k: _replace(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, values) for v in value]
    return value


def check_use(
    names: Iterable[str], vault: Vault, *, origin: str, tool: str, definition_changed: bool
) -> None:
    """May the secrets ``names`` go into ``tool`` of ``origin``? Raises when not.

    Raises:
        SecretNotBound: a named secret does not exist or is not bound to ``origin`` (one answer
            for both: an agent learns no name another site holds).
        SecretToolChanged: the tool's definition changed since the person accepted it.
    """
    for name in sorted(set(names)):
        if origin not in vault.sites(name):
            raise SecretNotBound(
                f"secret {name!r} is not bound to {origin}: nothing was sent. The person binds it with: "
                f"tabmcp secrets set {name} --site {origin}",
                tool=tool, secret=name, origin=origin,
            )
    if definition_changed:
        raise SecretToolChanged(
            f"{tool}'s definition changed since it was accepted: no secret goes into it, nothing was sent "
            f"(the person accepts the change with: tabmcp trust accept {origin} <tool>)",
            tool=tool, origin=origin,
        )


def put_in(
    arguments: dict[str, Any], vault: Vault, *, origin: str, tool: str, definition_changed: bool
) -> tuple[dict[str, Any], dict[str, str]]:
    """``arguments`` with every placeholder replaced by its value, and the values put in (by name).

    Call it after approval, just before the call leaves; the rules are checked again because a
    binding may have been removed while the approval waited. ``arguments`` is left as it is.

    Raises:
        SecretNotBound: see :func:`check_use`; also a secret whose value is no longer stored.
        SecretToolChanged: see :func:`check_use`.
    """
    names = placeholders_in(arguments)
    if not names:
        return arguments, {}
    check_use(names.values(), vault, origin=origin, tool=tool, definition_changed=definition_changed)
    values: dict[str, str] = {}
    for name in sorted(set(names.values())):
        value = vault.value(name)
        if value is None:
            raise SecretNotBound(f"secret {name!r} has no stored value: nothing was sent", tool=tool,
                                 secret=name, origin=origin)
        values[name] = value
    vault.used(values)
    return _replace(arguments, values), values


class Secrets:
    """The bridge's secrets: the :class:`Vault` behind names, and the values to mask in answers.

    Values are kept in memory only; without a vault (``None``) every placeholder gets ``SECRET_NOT_BOUND``.
    """

    def __init__(self, vault: Vault | None) -> None:
        self.vault: Vault = vault if vault is not None else _NoVault()
        self._used: dict[str, str] = {}
        self.mask = Mask({})
        """The values put into a call in this run: masked in every answer."""
        self._bindings: dict[str, tuple[str, ...]] | None = None
        """Origin → the names bound to it, read when first needed and again when bindings change."""
        self._stored: dict[str, str | None] = {}
        """Name → its stored value (``None``: none, or the store could not be read), memory only."""
        self._masks: dict[frozenset[str], Mask] = {}
        self._unreadable: set[str] = set()
        self._sites_unreadable = False

    def mask_for(self, origins: Iterable[str] | None) -> Mask:
        """The mask for an answer from pages of ``origins`` (``None``: several pages, or the bridge's view).

        It holds this run's values and the stored values bound to those origins, so a page cannot echo a
        value it kept from an earlier run; a value the store cannot give is logged once and not masked.
        """
        bindings = self._bindings if self._bindings is not None else self._load_bindings()
        if not bindings:
            return self.mask
        if origins is None:
            names = {n for bound in bindings.values() for n in bound}
        else:
            names = set()
            for origin in origins:
                if bound := bindings.get(origin):
                    names.update(bound)
        if not names:
            return self.mask
        key = frozenset(names)
        mask = self._masks.get(key)
        if mask is None:
            stored = {n: v for n in sorted(key) if (v := self._stored_value(n)) is not None}
            mask = self._masks[key] = Mask(stored, also=tuple(self._used.items()))
        return mask

    def refresh(self) -> None:
        """Bindings may have changed (this bridge's unbind, ``tabmcp secrets`` in another process):
        read them again; when they changed, stored values are read again when next needed (a removed
        or unbound secret's value is no longer fetched nor kept)."""
        if self._bindings is None:
            return  # never read yet: read when first needed
        bindings = self._read_bindings()
        if bindings is not None and bindings != self._bindings:
            self._bindings = bindings
            self._stored.clear()
            self._masks.clear()
            self._unreadable.clear()

    def _read_bindings(self) -> dict[str, tuple[str, ...]] | None:
        try:
            return {o: names for o in self.vault.bound_origins() if (names := tuple(self.vault.names_for(o)))}
        except Exception:  # a locked or vanished database: as last read
            if not self._sites_unreadable:
                self._sites_unreadable = True
                log.warning("could not read the secrets' sites; masking the values used in this run (and "
                            "those of the sites last read) only", exc_info=True)
            return None

    def _load_bindings(self) -> dict[str, tuple[str, ...]]:
        bindings = self._read_bindings()
        if bindings is None:
            return {}  # not kept: the next answer reads them again
        self._bindings = bindings
        return bindings

    def _stored_value(self, name: str) -> str | None:
        if name not in self._stored:
            try:
                self._stored[name] = self.vault.value(name)
            except Exception as exc:  # a slow, locked or missing keychain must not fail the answer
                self._stored[name] = None
                if name not in self._unreadable:
                    self._unreadable.add(name)
                    log.warning("secret %r could not be read to mask it (%s: %s); it is masked only once "
                                "put into a call", name, type(exc).__name__, exc)
        return self._stored[name]

    def names_for(self, origin: str) -> list[str]:
        """The secret names an agent may pass to ``origin``'s tools."""
        return self.vault.names_for(origin) if origin else []

    def bound_origins(self) -> list[str]:
        """Every origin some secret is bound to (what the extension is told: no name, no value)."""
        return self.vault.bound_origins()

    def check_secret_fields(self, fields: Iterable[str], arguments: Mapping[str, Any], *, tool: str) -> None:
        """A page form's secret fields (``fields``, under the agent's names) take only a secret's
        name: a literal there is refused, before anything else, and nothing is sent.

        Raises:
            ToolValidationError: a secret field holds anything but ``{{secret:NAME}}``.
        """
        for name in fields:
            value = arguments.get(name)
            if value is not None and not (isinstance(value, str) and PLACEHOLDER.fullmatch(value)):
                raise ToolValidationError(
                    f"{tool}: {name} takes only a secret's name, exactly {{{{secret:NAME}}}} (a secret bound to "
                    "this site); a value is refused and nothing was sent", field=name)

    def bound(self, origins: Iterable[str]) -> dict[str, list[str]]:
        """Origin → the secret names bound to it, for each of ``origins`` that has any (what the
        popup shows the person: names only, never a value)."""
        out: dict[str, list[str]] = {}
        for origin in sorted(set(origins)):
            if names := self.names_for(origin):
                out[origin] = names
        return out

    def unbind(self, name: str, origin: str) -> None:
        """The person, in the popup: ``name`` no longer goes to ``origin``.

        Raises:
            InvalidSecretName: not a secret name.
            UnknownSecret: ``name`` is not bound to ``origin``.
        """
        self.vault.unbind(check_name(name), origin)
        self.refresh()

    def put_in(
        self, arguments: dict[str, Any], *, origin: str, tool: str, definition_changed: bool
    ) -> dict[str, Any]:
        """:func:`put_in`, remembering the values for :attr:`mask` before anything is sent."""
        sent, values = put_in(arguments, self.vault, origin=origin, tool=tool, definition_changed=definition_changed)
        if any(self._used.get(n) != v for n, v in values.items()):
            # One name per value, the one used last: an earlier name for the same value would name
            # the wrong secret, and tell the agent that two secrets share a value.
            reused = set(values.values())
            self._used = {n: v for n, v in self._used.items() if v not in reused}
            self._used.update(values)
            self.mask = Mask(dict(self._used))
            self._masks.clear()
        return sent


class _NoVault:
    def sites(self, name: str) -> frozenset[str]:
        return frozenset()

    def names_for(self, origin: str) -> list[str]:
        return []

    def value(self, name: str) -> str | None:
        return None

    def used(self, names: Iterable[str]) -> None:
        pass

    def bound_origins(self) -> list[str]:
        return []

    def unbind(self, name: str, site: str) -> None:
        raise UnknownSecret(f"secret {name!r} is not bound to {site} (no secrets are kept)")


def _base64_cores(raw: bytes) -> list[str]:
    """The part of ``raw``'s base64 that is the same wherever ``raw`` sits in a longer input
    (three alignments), so ``user:password`` encoded whole is masked too."""
    cores: list[str] = []
    for enc in (base64.b64encode, base64.urlsafe_b64encode):
        for shift in range(3):
            encoded = enc(b"\0" * shift + raw).decode("ascii").rstrip("=")
            start = (shift * 4 + 2) // 3  # characters touched by the padding bytes in front
            tail = (len(raw) + shift) % 3  # a last group shared with what follows
            end = len(encoded) - (1 if tail else 0)
            core = encoded[start:end]
            if len(core) >= _MIN_FORM_CHARS:
                cores.append(core)
    return cores


def _forms(value: str) -> set[str]:
    raw = value.encode("utf-8")
    forms = {
        value,
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value, safe=""),
        urllib.parse.quote(value),
        html.escape(value, quote=True),
        html.escape(value, quote=False),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(json.dumps(value))[3:-3],  # a JSON string inside a JSON string
        base64.b64encode(raw).decode("ascii"),
        base64.urlsafe_b64encode(raw).decode("ascii"),
        *_base64_cores(raw),
    }
    return {f for f in forms if len(f) >= _MIN_FORM_CHARS}


@dataclass
class Mask:
    """Replaces the used secrets' values (and their usual encodings) by their placeholders."""

    values: Mapping[str, str]
    also: tuple[tuple[str, str], ...] = ()
    """More (name, value) pairs: a name's value used in this run beside a newer stored one."""
    _pattern: re.Pattern[str] | None = field(init=False, default=None)
    _names: dict[str, str] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        for name, value in (*self.values.items(), *self.also):
            for form in _forms(value):
                self._names.setdefault(form, name)
        if self._names:  # the longest first: a form inside another is never left half-masked
            ordered = sorted(self._names, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(f) for f in ordered))

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, value: str) -> str:
        if self._pattern is None or not value:
            return value
        return self._pattern.sub(lambda m: "{{secret:" + self._names[m.group(0)] + "}}", value)

    def apply(self, value: _T) -> _T:
        """``value`` (a result, an error's details: any JSON) with every value masked, keys too."""
        return cast("_T", self._tree(value)) if self._pattern is not None else value

    def _tree(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self._tree(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._tree(v) for v in value]
        return value
