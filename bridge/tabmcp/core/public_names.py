"""The public names of page tools across tabs: the reserved qualified form
``t<tabId>[f<frameId>].<name>`` and the registry's index from public names to entries.

The qualified form is reserved like a built-in name (:func:`is_qualified_form`), so a page tool
called ``t42.transfer`` can never take tab 42's name.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from .models import TOOL_NAME_RE
from .tab_records import CategoryEntry, SourceKey, Tab, ToolEntry

__all__ = ["is_qualified_form", "is_valid_tool_name"]


def _same_names(entries: tuple[ToolEntry | CategoryEntry, ...], doc: Tab | None) -> bool:
    """``doc`` offers exactly the names of ``entries`` (its previous version's), from the same origin."""
    if doc is None or not entries or entries[0].tab.origin != doc.origin:
        return bool(not entries and doc is not None and not doc.tools and not doc.categories)
    if len(entries) != len(doc.tools) + len(doc.categories):
        return False
    return all(
        (e.tool.name in doc.tools) if isinstance(e, ToolEntry) else (e.category.name in doc.categories)
        for e in entries
    )


def _plain(entry: ToolEntry | CategoryEntry) -> str:
    return entry.tool.name if isinstance(entry, ToolEntry) else entry.category.name


_QUALIFIED_FORM = re.compile(r"t-?[0-9]+(?:f[0-9]+)?\.|t[0-9a-f]{12}\.")
"""The head of every name :func:`_qualified` makes (a tab id, closed sites' negative ones too, an
optional frame id, or the hash of a very long id, then a dot)."""


def is_qualified_form(name: str) -> bool:
    """Whether ``name`` looks like the bridge's qualified form (``t42.x``, ``t42f7.x``): such a
    page name is never listed plainly, so a page cannot take another tab's qualified name."""
    return _QUALIFIED_FORM.match(name) is not None


def _qualified(key: SourceKey, name: str) -> str:
    tab_id, frame_id = key
    where = f"t{tab_id}f{frame_id}" if frame_id else f"t{tab_id}"
    prefixed = f"{where}.{name}"
    if len(prefixed) <= 128:
        return prefixed
    head = f"{where}." if len(where) <= 21 else f"t{hashlib.sha1(where.encode()).hexdigest()[:12]}."
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return head + name[: 128 - len(head) - 9] + "_" + digest


@dataclass
class _Index:
    by_public: dict[str, ToolEntry | CategoryEntry] = field(default_factory=dict)
    by_page: dict[tuple[SourceKey, str], str] = field(default_factory=dict)
    by_name: dict[str, dict[SourceKey, str]] = field(default_factory=dict)
    """Page name → the documents offering it → its public name there."""
    held: set[str] = field(default_factory=set)
    """Plain names kept from a claim because they were shown for another origin: named again on
    every update."""
    blocked: set[str] = field(default_factory=set)
    """Every public name (plain or qualified) a claim was refused because another origin holds it:
    never forgotten while so (:meth:`Registry._forget`)."""
    collided: bool = False
    """A qualified name had to be numbered: only the whole build settles numbering."""
    by_doc: dict[SourceKey, tuple[ToolEntry | CategoryEntry, ...]] = field(default_factory=dict)
    """Each document's entries in listing order: its categories, then its tools."""
    names: dict[SourceKey, tuple[str, ...]] = field(default_factory=dict)
    """Each document's public names, in the order of ``by_doc``."""



def is_valid_tool_name(name: str) -> bool:
    return bool(TOOL_NAME_RE.fullmatch(name))
