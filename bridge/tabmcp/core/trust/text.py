"""Page text as a type: what a page wrote, and what the gate made of it.

Every string a page writes enters the bridge as :class:`PageText`, made where the wire is parsed
(:mod:`tabmcp.protocol`, :mod:`tabmcp.core.models`). What the agent or the person is shown is
:data:`Shown`, which only the gate makes (:meth:`tabmcp.core.trust.gate.TextGate.field`,
:func:`tabmcp.core.trust.gate.definition_text`) or the bridge writes itself (:func:`ours`). The
builders of what the agent reads take :data:`Shown` where page words go, so strict mypy refuses a
page string handed to them past the gate (as Trusted Types make ``innerHTML`` take only
``TrustedHTML``).

``PageText`` is a ``str``, so the rest of the bridge (search, pins, routing) reads it as text;
what it cannot do is become :data:`Shown` without the gate.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NewType

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

__all__ = ["PageText", "Shown", "ours", "page_strings"]


class PageText(str):
    """A string a page wrote (a name, title, description, state, URL, schema or annotation text)."""

    __slots__ = ()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(cls, core_schema.str_schema())


Shown = NewType("Shown", str)
"""Text the agent or the person may be shown: made by the gate, or written by the bridge (:func:`ours`)."""


def ours(text: str) -> Shown:
    """Text the bridge itself wrote (never a page's): shown as it is."""
    assert not isinstance(text, PageText), "page text reaches the agent only through the gate"
    return Shown(text)


def page_strings(value: Any, place: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a page-written JSON value, keys too, with where it is (``properties/x/description``).

    Iterative, so no depth breaks it; used by the definition check, which must read every
    page-written field rather than a list of the fields someone thought of.
    """
    stack: list[tuple[Any, str]] = [(value, place)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            for key, sub in item.items():
                here = f"{where}/{key}" if where else str(key)
                if isinstance(key, str):
                    yield (where or "(root)"), key
                stack.append((sub, here))
        elif isinstance(item, list | tuple):
            stack.extend((sub, f"{where}/{i}") for i, sub in enumerate(item))
