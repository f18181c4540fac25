"""Outcomes handed on in the order their work came, whatever order the work finishes in.

Definitions are read off the event loop (:mod:`tabmcp.server.reader`), yet the registry must see a
tab's snapshots in arrival order, or a tab closed mid-read would come back.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidState

__all__ = ["InOrder"]


@dataclass
class _Slot:
    then: Callable[[Any], None]
    done: bool = False
    ok: bool = False
    outcome: Any = None


class InOrder:
    """Tickets in order of arrival; :meth:`finish` gives back what may run now, in that order."""

    def __init__(self) -> None:
        self._tickets = itertools.count()
        self._waiting: OrderedDict[int, _Slot] = OrderedDict()

    @property
    def pending(self) -> int:
        """Work taken and not yet handed on (running, or finished behind one still running)."""
        return len(self._waiting)

    def take(self, then: Callable[[Any], None]) -> int:
        """A ticket for one piece of work whose outcome goes to ``then``, after every earlier one's."""
        ticket = next(self._tickets)
        self._waiting[ticket] = _Slot(then)
        return ticket

    def finish(self, ticket: int, outcome: Any = None, *, ok: bool = True) -> list[Callable[[], None]]:
        """The work of ``ticket`` finished (``ok`` False: failed, its ``then`` not called): the calls
        that may run now, first in line first (none while an earlier ticket runs)."""
        slot = self._waiting.get(ticket)
        if slot is None or slot.done:
            raise InvalidState(f"ticket {ticket} is not running")
        slot.done, slot.ok, slot.outcome = True, ok, outcome
        ready: list[Callable[[], None]] = []
        while self._waiting:
            first = next(iter(self._waiting.values()))
            if not first.done:
                break
            self._waiting.popitem(last=False)
            if first.ok:
                ready.append(_bound(first.then, first.outcome))
        return ready


def _bound(then: Callable[[Any], None], outcome: Any) -> Callable[[], None]:
    return lambda: then(outcome)
