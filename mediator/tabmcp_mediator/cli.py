"""``tabmcp-mediator``: enhance a tool list from a file, to inspect it or curate overrides.

    tabmcp-mediator enhance tools.json --source example.com [--no-llm]
    tabmcp-mediator enhance tools.json --source example.com --format overrides > overrides.json

Exit status: 0 on success, 1 on a mediator error (message on stderr), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tabmcp_mediator import __version__
from tabmcp_mediator.config import MediatorConfig
from tabmcp_mediator.errors import MediatorError
from tabmcp_mediator.factory import build_mediator
from tabmcp_mediator.models import EnhancementResult, ToolContext

log = logging.getLogger("tabmcp_mediator.cli")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s"
    )
    try:
        config = _config(args)
    except ValidationError as exc:
        print(f"error: invalid options: {exc}", file=sys.stderr)
        return 2
    try:
        tools = _read_tools(args.file)
        result = asyncio.run(_enhance(config, tools, args.source, args.source_type))
    except MediatorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    output = (
        _as_overrides(result, args.source) if args.format == "overrides" else result.model_dump(mode="json")
    )
    print(json.dumps(output, indent=2, ensure_ascii=False))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabmcp-mediator", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    enhance = commands.add_parser("enhance", help="print the enhanced tools of FILE as JSON")
    enhance.add_argument(
        "file", help='tools JSON: [{"name", "description", "inputSchema"}] or {"tools": [...]}; - for stdin'
    )
    enhance.add_argument("--source", required=True, help="the site the tools come from, e.g. example.com")
    enhance.add_argument("--source-type", default="web", choices=["web", "api", "file", "manual"])
    enhance.add_argument(
        "--provider", choices=["anthropic", "openai", "local"], help="LLM provider (default: none)"
    )
    enhance.add_argument("--model", help="LLM model id (required with --provider)")
    enhance.add_argument("--base-url", help="LLM API root (local: http://127.0.0.1:11434/v1)")
    enhance.add_argument("--api-key-env", help="environment variable holding the API key")
    enhance.add_argument("--timeout", type=float, default=30.0, help="seconds per LLM call (default 30)")
    enhance.add_argument(
        "--no-llm", action="store_true", help="overrides and rules only, even with --provider"
    )
    enhance.add_argument("--overrides", help="overrides file or https:// URL")
    enhance.add_argument("--overrides-ca", help="CA bundle to verify an overrides URL with")
    enhance.add_argument(
        "--cache-dir", type=Path, help="SQLite cache directory (default: the user cache dir)"
    )
    enhance.add_argument("--no-cache", action="store_true", help="ask the LLM even if an answer is cached")
    enhance.add_argument("--grouping-threshold", type=int, help="group sources with more tools than this")
    enhance.add_argument(
        "--format",
        choices=["result", "overrides"],
        default="result",
        help="result: {tools, categories}; overrides: a file the overrides transformer reads",
    )
    enhance.add_argument("-v", "--verbose", action="store_true", help="log which stage enhanced what")
    return parser


def _config(args: argparse.Namespace) -> MediatorConfig:
    options: dict[str, Any] = {
        "provider": None if args.no_llm else args.provider,
        "model": args.model,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "timeout": args.timeout,
        "cache": not args.no_cache,
        "overrides": args.overrides,
        "overrides_verify": args.overrides_ca or True,
        "cache_dir": args.cache_dir,
        "grouping_threshold": args.grouping_threshold,
    }
    return MediatorConfig.model_validate({k: v for k, v in options.items() if v is not None})


def _read_tools(file: str) -> list[Any]:
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise MediatorError(f"cannot read tools from {file}: {exc}") from exc
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise MediatorError(f"{file}: expected a list of tools or an object with a 'tools' list")
    return tools


async def _enhance(
    config: MediatorConfig, tools: list[Any], source: str, source_type: str
) -> EnhancementResult:
    mediator = build_mediator(config)
    context = ToolContext.model_validate({"source": source, "source_type": source_type})
    return await mediator.process(tools, context)


def _as_overrides(result: EnhancementResult, source: str) -> dict[str, Any]:
    """The result in the overrides file format, ready to review and commit."""
    entries: dict[str, Any] = {}
    for tool in result.tools:
        entry = {
            "rename": tool.name,
            "description": tool.description,
            "inputSchema": tool.input_schema,
            "category": tool.category,
            "categoryDescription": tool.category_description,
            "argumentMap": tool.argument_map,
        }
        entries[tool.original_name] = {k: v for k, v in entry.items() if v not in (None, {}, "")}
    return {source: entries}


if __name__ == "__main__":
    raise SystemExit(main())
