"""Where the public tool catalogs live (read-only, outside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """``$TABMCP_DATA``, else the first ``shared/data`` beside the checkout or one level up
    (a git worktree in ``wt/NAME`` sees the same data as the main checkout)."""
    if os.environ.get("TABMCP_DATA"):
        return Path(os.environ["TABMCP_DATA"])
    candidates = [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]
    return next((c for c in candidates if c.is_dir()), candidates[0])


def catalog_path() -> Path | None:
    path = data_dir() / "mcp_catalog.json"
    return path if path.exists() else None
