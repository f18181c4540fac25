"""Client configs with comments and trailing commas (VS Code's ``mcp.json``): read, and changed in
place with every comment kept (tabmcp/cli/jsonc.py, through ``tabmcp setup``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tabmcp.cli import main
from tabmcp.cli.clients import BACKUP_SUFFIX, CLIENTS, EntryState, entry_state, this_launch
from tabmcp.cli.jsonc import JsoncError, loads, set_member

VSCODE_MCP_JSON = """{
  // Servers I use every day.
  "servers": {
    /* the browser automation one */
    "playwright": {
      "command": "npx",
      "args": ["@playwright/mcp@latest"], // pinned later
    },
  },
  "inputs": [
    // none yet
  ],
}
"""
COMMENTS = re.findall(r"//[^\n]*|/\*.*?\*/", VSCODE_MCP_JSON)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("TABMCP_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setattr("sys.platform", "linux")
    return tmp_path


def test_setup_vscode_keeps_the_persons_comments(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = CLIENTS["vscode"].config_path(home=home, platform="linux", environ={})
    path.parent.mkdir(parents=True)
    path.write_text(VSCODE_MCP_JSON)
    assert main(["setup", "vscode"]) == 0
    said = capsys.readouterr()
    assert f"VS Code: tabmcp added to {path}" in said.out and "tabmcp added" not in said.err  # the result: stdout
    text = path.read_text()
    for comment in COMMENTS:
        assert comment in text, f"setup lost {comment!r}:\n{text}"
    data = loads(text)
    launch = this_launch()
    assert data["servers"]["tabmcp"] == {"type": "stdio", "command": launch.command, "args": list(launch.args)}
    assert data["servers"]["playwright"]["args"] == ["@playwright/mcp@latest"] and data["inputs"] == []
    assert text.startswith(VSCODE_MCP_JSON[:VSCODE_MCP_JSON.index('"inputs"') - 6])  # untouched up to the insertion
    assert path.with_name(path.name + BACKUP_SUFFIX).read_text() == VSCODE_MCP_JSON
    assert entry_state(CLIENTS["vscode"], launch, path=path)[0] == EntryState.CURRENT
    # Again: nothing to change, the file as it was.
    capsys.readouterr()
    assert main(["setup", "vscode"]) == 0
    assert path.read_text() == text and "nothing changed" in capsys.readouterr().out


def test_an_old_entry_is_replaced_in_place(home: Path) -> None:
    path = CLIENTS["cursor"].config_path(home=home)
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "mcpServers": {\n    "tabmcp": { "command": "/old/bin/tabmcp" }, // my old one\n  }\n}\n')
    assert main(["setup", "cursor"]) == 0
    text = path.read_text()
    assert "// my old one" in text and "/old/bin/tabmcp" not in text
    assert loads(text)["mcpServers"]["tabmcp"]["command"] == this_launch().command


def test_a_file_that_is_not_even_jsonc_is_left_alone(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = CLIENTS["vscode"].config_path(home=home, platform="linux", environ={})
    path.parent.mkdir(parents=True)
    path.write_text('{"servers": {"x": 1},, // two commas\n}')
    assert main(["setup", "vscode"]) == 2
    assert "not valid JSON, even with comments" in capsys.readouterr().err
    assert path.read_text() == '{"servers": {"x": 1},, // two commas\n}'


@pytest.mark.parametrize("text", ['{"servers": 3 /* no object */}', "[1, 2] // a list"])
def test_a_path_through_no_object_raises(text: str) -> None:
    with pytest.raises(JsoncError):
        set_member(text, ["servers", "tabmcp"], {})


# What people write in these files (json5 counts a few control characters as line breaks).
_text = st.text(st.characters(categories=["L", "N", "P", "S", "Zs"]), max_size=8)
_keys = _text
_scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | _text
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
                       max_leaves=8)


def _with_comments(data: dict[str, Any], trailing: bool) -> str:
    """``data`` as a person might write it: a comment at the end of every line, trailing commas."""
    lines = json.dumps(data, indent=2, ensure_ascii=False).splitlines()
    out = []
    for n, line in enumerate(lines):
        if trailing and line.rstrip().endswith(("}", "]")) and n + 1 < len(lines) and lines[n + 1].strip()[:1] in "}]":
            line += ","
        out.append(f"{line} // c{n} /* x */")
    return "\n".join(out) + "\n"


@settings(max_examples=40, deadline=None)
@given(data=st.dictionaries(_keys, _values, max_size=4), servers=st.dictionaries(_keys, _values, max_size=3),
       name=_keys, entry=st.dictionaries(_keys, _values, max_size=3), trailing=st.booleans())
def test_any_commented_file_keeps_its_comments_and_gets_the_entry(
        data: dict[str, Any], servers: dict[str, Any], name: str, entry: dict[str, Any], trailing: bool) -> None:
    if name in servers:
        servers[name] = 0  # a value replaced loses the comments inside it (as VS Code's edit does); none here
    data = {**data, "servers": servers}
    text = _with_comments(data, trailing)
    out = set_member(text, ["servers", name], entry)
    want = loads(text)
    want["servers"][name] = entry
    assert loads(out) == want
    for comment in re.findall(r"// c\d+ /\* x \*/", text):
        assert out.count(comment) == text.count(comment)
