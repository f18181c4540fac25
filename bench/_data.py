"""Where the public tool catalogs live (read-only, outside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """``$TABMCP_DATA``, else ``../shared/data`` next to the checkout."""
    return Path(os.environ.get("TABMCP_DATA") or ROOT.parent / "shared" / "data")


def catalog_path() -> Path | None:
    path = data_dir() / "mcp_catalog.json"
    return path if path.exists() else None
