"""The console script, run as a subprocess like a curator would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mediator_testkit import FIXTURES, FakeProvider
from tabmcp_mediator.naming import is_valid_name

FIXTURE = str(FIXTURES / "cryptic_tools.json")


def run(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("tabmcp-mediator")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "tabmcp_mediator.cli"]
    return subprocess.run(
        [*command, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_enhance_without_llm_prints_tools_and_categories(tmp_path: Path) -> None:
    done = run("enhance", FIXTURE, "--source", "example.com", "--no-llm", "--cache-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    tools = result["tools"]
    assert len(tools) == len(json.loads(Path(FIXTURE).read_text()))
    assert all(is_valid_name(t["name"]) and t["originalName"] and t["enhancedBy"] == "rules" for t in tools)
    assert len({t["name"] for t in tools}) == len(tools)
    assert {"gt_usr": "get_user", "del": "delete", "upd_prf": "update_profile"}.items() <= {
        t["originalName"]: t["name"] for t in tools
    }.items()
    assert result["categories"] and all(c["tools"] for c in result["categories"])


def test_overrides_format_round_trips_into_the_overrides_transformer(tmp_path: Path) -> None:
    curated = run("enhance", FIXTURE, "--source", "example.com", "--no-llm", "--format", "overrides")
    assert curated.returncode == 0, curated.stderr
    overrides = json.loads(curated.stdout)
    assert overrides["example.com"]["add_crt"]["argumentMap"] == {"product_id": "pid", "quantity": "qty"}
    path = tmp_path / "overrides.json"
    path.write_text(curated.stdout)
    done = run("enhance", FIXTURE, "--source", "www.example.com", "--overrides", str(path))
    assert done.returncode == 0, done.stderr
    tools = json.loads(done.stdout)["tools"]
    assert {t["enhancedBy"] for t in tools} == {"overrides"}
    assert {t["confidence"] for t in tools} == {1.0}


def test_stdin_and_a_tools_list_result(tmp_path: Path) -> None:
    payload = json.dumps({"tools": [{"name": "srch", "description": "", "inputSchema": {}}]})
    done = run("enhance", "-", "--source", "example.com", stdin=payload)
    assert done.returncode == 0, done.stderr
    (tool,) = json.loads(done.stdout)["tools"]
    assert tool["name"] == "search" and tool["inputSchema"]["required"] == ["query"]


def test_llm_via_a_local_server_then_the_cache(
    provider: FakeProvider, shop_answer: dict[str, Any], tmp_path: Path
) -> None:
    provider.reply = shop_answer
    args = ["enhance", FIXTURE, "--source", "example.com", "--provider", "local", "--model", "llama3"]
    args += ["--base-url", f"{provider.base_url}/v1", "--cache-dir", str(tmp_path)]
    first = run(*args)
    assert first.returncode == 0, first.stderr
    by_original = {t["originalName"]: t for t in json.loads(first.stdout)["tools"]}
    assert by_original["gt_usr"]["enhancedBy"] == "llm" and by_original["lst_evt"]["enhancedBy"] == "rules"
    assert provider.count == 1 and provider.calls[0].path == "/v1/chat/completions"
    second = run(*args)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert provider.count == 1
    assert run(*args, "--no-cache").returncode == 0
    assert provider.count == 2


def test_a_provider_timeout_falls_back_to_rules_with_a_warning(
    provider: FakeProvider, shop_answer: dict[str, Any]
) -> None:
    provider.reply, provider.delay = shop_answer, 3.0
    done = run(
        "enhance",
        FIXTURE,
        "--source",
        "example.com",
        "--provider",
        "openai",
        "--model",
        "m",
        "--no-cache",
        "--base-url",
        f"{provider.base_url}/v1",
        "--api-key-env",
        "CLI_TEST_KEY",
        "--timeout",
        "0.5",
        env={"CLI_TEST_KEY": "k"},
    )
    assert done.returncode == 0, done.stderr
    assert {t["enhancedBy"] for t in json.loads(done.stdout)["tools"]} == {"rules"}
    assert "no answer within 0.5s" in done.stderr


def test_errors_and_usage() -> None:
    missing = run("enhance", "/nonexistent.json", "--source", "example.com")
    assert missing.returncode == 1 and missing.stderr.startswith("error: cannot read tools")
    assert run("enhance", FIXTURE).returncode == 2  # --source is required
    no_model = run("enhance", FIXTURE, "--source", "e.com", "--provider", "anthropic")
    assert no_model.returncode == 2 and "needs a model" in no_model.stderr
    no_key = run(
        "enhance",
        FIXTURE,
        "--source",
        "e.com",
        "--provider",
        "openai",
        "--model",
        "m",
        "--api-key-env",
        "UNSET_KEY_VAR_X",
    )
    assert no_key.returncode == 1 and "UNSET_KEY_VAR_X" in no_key.stderr
