"""Where a running pairdbg keeps its state (endpoint entries, the log): its own module, so the stdio path can find
its log without importing the HTTP server (uvicorn and h11 are ~5% of `pairdbg --mcp`'s start)."""

from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    """Where the running instance leaves its endpoint for `mcp-config` and `--join` (user-only permissions)."""
    base = (
        os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    )
    return Path(base) / "pairdbg"
