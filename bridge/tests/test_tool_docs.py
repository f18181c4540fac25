"""A meta-tool is its module in core/tools/, its entry in core/tools/catalog.py and its words in
docs/guide.md (docs/architecture.md's recipe): the guide names every built-in tool, and its
profile table lists the meta tools each profile lists (``PROFILE_BUILTINS``)."""

from __future__ import annotations

import re
from pathlib import Path

import tabmcp
from tabmcp.core.tools import BUILTIN_TOOLS, PROFILE_BUILTINS

GUIDE = Path(tabmcp.__file__).resolve().parents[2] / "docs" / "guide.md"


def test_the_guide_names_every_builtin_tool() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    assert [name for name in BUILTIN_TOOLS if f"`{name}" not in text] == []


def test_the_guides_profile_table_lists_each_profiles_meta_tools() -> None:
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)`(?: \(default\))? \| (.*) \|$",
                                                       GUIDE.read_text(encoding="utf-8"), re.M)}
    assert set(PROFILE_BUILTINS) <= set(rows)
    for profile in ("categories", "meta"):  # the rows that name their meta tools one by one
        named = {n for n in re.findall(r"`(\w+)`", rows[profile]) if n in BUILTIN_TOOLS}
        assert named == set(PROFILE_BUILTINS[profile]), profile
