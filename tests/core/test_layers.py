"""The front ends read the core through its actions and queries: no reaching into a session's backend, no handles
minted outside the core. Import-linter cannot see attribute paths, so this reads the source."""

from __future__ import annotations

import re

from support import ROOT

FRONT_ENDS = ("tui", "mcp_bridge")
REACHING_IN = re.compile(r"session\.backend\b|\.handles\.(frame|var|value|mint)\b|\._(require_paused|ended_error)\(")


def reaching_in() -> list[str]:
    found = []
    for folder in FRONT_ENDS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if REACHING_IN.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_front_ends_do_not_reach_into_a_session():
    assert reaching_in() == []
