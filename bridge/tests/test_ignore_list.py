"""The console capture's inline source map: every line of the file mapped to one ignore-listed
source (what DevTools reads to show a page's console message at the page's line)."""

from __future__ import annotations

import base64
import json

from tabmcp.ignore_list import IGNORED, MAP_PREFIX, render
from tabmcp.packaging.assets import extension_dir


def test_each_ignored_script_ends_with_a_map_of_all_its_lines_to_an_ignore_listed_source() -> None:
    for name in IGNORED:
        text = (extension_dir() / name).read_text(encoding="utf-8")
        assert text == render(name, text), f"{name}: run python -m tabmcp.ignore_list"
        lines = text.rstrip("\n").split("\n")
        assert lines[-1].startswith(MAP_PREFIX)
        sm = json.loads(base64.b64decode(lines[-1][len(MAP_PREFIX):]))
        assert sm["ignoreList"] == list(range(len(sm["sources"])))
        assert len(sm["mappings"].split(";")) == len(lines)


def test_render_replaces_an_older_map_line() -> None:
    once = render("page/x.js", "a\nb\n")
    assert render("page/x.js", once) == once
    assert render("page/x.js", once.replace("\n" + MAP_PREFIX, "\nc\n" + MAP_PREFIX)).count(MAP_PREFIX) == 1
