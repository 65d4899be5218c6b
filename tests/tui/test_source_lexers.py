"""The source pane picks its lexer by file name without loading every lexer pygments has (a quarter second that
used to come before the TUI's first paint)."""

from __future__ import annotations

import subprocess
import sys


def test_lexer_by_name_loads_only_that_lexer() -> None:
    probe = (
        "import sys\n"
        "from pairdbg.tui.source_view import lexer_for\n"
        "files = ('a.py', 'b.ts', 'c.mjs', 'd.tsx', 'x.unknown', None)\n"
        "names = [getattr(lexer_for(f), 'name', 'text') for f in files]\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('pygments.lexers.'))\n"
        "print(names); print(len(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "['Python', 'TypeScript', 'JavaScript', 'TSX', 'text', 'text']"
    assert int(out[1]) < 15, f"{out[1]} pygments lexer modules loaded"  # guessing loads ~200
