"""The best Playwright locator for a recorded element, user-facing and stable first as Playwright
advises; a role only with a name, since ``get_by_role("button")`` alone rarely names one element.
"""

from __future__ import annotations

import json
import re
import typing
from dataclasses import dataclass
from typing import Literal

from ..models import Selectors

__all__ = ["Language", "Locator", "best_locator", "js_string", "py_string"]

Language = Literal["python", "typescript"]


def _known_roles() -> frozenset[str] | None:
    # Playwright's AriaRole literal is the authority on what get_by_role accepts; it lives in a
    # private module, so fall back to a shape check if a Playwright release moves it.
    try:
        from playwright._impl.internal_structures import AriaRole
    except ImportError:  # pragma: no cover - depends on the installed Playwright
        return None
    return frozenset(typing.get_args(AriaRole))


_ROLES = _known_roles()
_ROLE_SHAPE = re.compile(r"^[a-z]+$")


def _valid_role(role: str) -> bool:
    return role in _ROLES if _ROLES is not None else bool(_ROLE_SHAPE.match(role))


def py_string(text: str) -> str:
    """A Python string literal (JSON's escaping is valid Python)."""
    return json.dumps(text, ensure_ascii=False)


def js_string(text: str) -> str:
    """A JavaScript / TypeScript string literal."""
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


@dataclass(frozen=True)
class Locator:
    """One locator strategy and its arguments."""

    strategy: Literal["test_id", "role", "label", "text", "css"]
    value: str
    name: str | None = None

    def render(self, language: Language) -> str:
        """The expression, starting from ``page``."""
        if language == "python":
            q = py_string
            if self.strategy == "test_id":
                return f"page.get_by_test_id({q(self.value)})"
            if self.strategy == "role":
                return f"page.get_by_role({q(self.value)}, name={q(self.name or '')}, exact=True)"
            if self.strategy == "label":
                return f"page.get_by_label({q(self.value)}, exact=True)"
            if self.strategy == "text":
                return f"page.get_by_text({q(self.value)}, exact=True)"
            return f"page.locator({q(self.value)})"
        q = js_string
        if self.strategy == "test_id":
            return f"page.getByTestId({q(self.value)})"
        if self.strategy == "role":
            return f"page.getByRole({q(self.value)}, {{ name: {q(self.name or '')}, exact: true }})"
        if self.strategy == "label":
            return f"page.getByLabel({q(self.value)}, {{ exact: true }})"
        if self.strategy == "text":
            return f"page.getByText({q(self.value)}, {{ exact: true }})"
        return f"page.locator({q(self.value)})"


def best_locator(selectors: Selectors) -> Locator | None:
    """The most robust locator the recorded selectors allow; ``None`` if there is none."""
    if selectors.test_id:
        return Locator("test_id", selectors.test_id)
    if selectors.role and selectors.name and _valid_role(selectors.role):
        return Locator("role", selectors.role, selectors.name)
    if selectors.label:
        return Locator("label", selectors.label)
    if selectors.text and len(selectors.text) <= 80:
        return Locator("text", selectors.text)
    if selectors.css:
        return Locator("css", selectors.css)
    return None
