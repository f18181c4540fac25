"""Noise rules: telemetry the user asked to ignore, checked on ingest (counted as ``ignored``
drops) and, when a rule is added, against what is already buffered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .models import ConsoleEvent, ErrorEvent, Event, NetworkEvent, WebSocketEvent
from .settings import NoiseRule

__all__ = ["NoiseFilter"]


class NoiseFilter:
    """Compiled noise rules; immutable, rebuilt whenever the rule list changes."""

    def __init__(self, rules: Iterable[NoiseRule] = ()) -> None:
        self.rules = list(rules)
        self._console = [_compile(r) for r in self.rules if r.match == "console"]
        self._url = [_compile(r) for r in self.rules if r.match == "url"]

    def __bool__(self) -> bool:
        return bool(self.rules)

    def matches(self, event: Event) -> bool:
        """Should this event be ignored?"""
        if not self.rules:
            return False
        if isinstance(event, ConsoleEvent | ErrorEvent):
            text = event.text if isinstance(event, ConsoleEvent) else event.message
            if any(p.search(text) for p in self._console):
                return True
            source = event.source.url if event.source else None
            return bool(source) and any(p.search(source or "") for p in self._url)
        if isinstance(event, NetworkEvent | WebSocketEvent):
            return any(p.search(event.url) for p in self._url)
        return False


def _compile(rule: NoiseRule) -> re.Pattern[str]:
    return re.compile(rule.pattern if rule.regex else re.escape(rule.pattern), re.IGNORECASE)
