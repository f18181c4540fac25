"""``introspect``'s answer (:meth:`tabmcp.core.disclosure.Disclosure.introspect` builds it): what the
bridge refused of each document, and the overview with each document's page text framed by its gate."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypedDict

from .registry import Tab
from .trust.gate import TextGate
from .trust.text import Shown, ours

__all__ = ["MAX_REFUSALS_SHOWN", "CategoryView", "Introspection", "RefusalView", "refusals"]


MAX_REFUSALS_SHOWN = 50


class RefusalView(TypedDict):
    kind: str
    name: Shown
    reason: Shown


class CategoryView(TypedDict):
    name: str
    description: Shown
    toolCount: int


def refusals(tab: Tab, gate: TextGate) -> list[RefusalView]:
    """What the bridge refused of a document's definitions (``kind``, the page's name, why), shown
    through the document's gate; the first :data:`MAX_REFUSALS_SHOWN`."""
    return [
        RefusalView(kind=r.kind, name=gate.field(r.name, 128), reason=gate.field(r.reason, 500))
        for r in tab.rejected[:MAX_REFUSALS_SHOWN]
    ]


@dataclass
class Introspection:
    """``introspect``'s answer: the overview, and the gate each document's page text went through
    (the caller starts the lockdown on a flag: the disclosure does no I/O)."""

    data: dict[str, Any]
    gates: list[tuple[TextGate, dict[str, Any]]]
    """Each document's gate, and the ``trust`` record of its source in :attr:`data`."""

    def text(self) -> list[Shown]:
        """The answer as the agent reads it: the bridge's overview, then each document framed."""
        overview = {k: v for k, v in self.data.items() if k != "sources"}
        parts = [ours(json.dumps(overview, indent=1))]
        for (gate, _), src in zip(self.gates, self.data["sources"], strict=True):
            shown = {k: v for k, v in src.items() if k != "trust"}
            parts.append(gate.framed(json.dumps(shown, indent=1)))
        return parts
