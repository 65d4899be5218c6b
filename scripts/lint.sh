#!/usr/bin/env bash
# Static checks: ruff, and the layer contracts in pyproject.toml ([tool.importlinter]). Exits non-zero if either fails.
set -euo pipefail
cd "$(dirname "$0")/.."
rc=0
.venv/bin/ruff check --no-cache backends tui mcp_bridge src tests scripts || rc=1
# The folders become pairdbg.backends, pairdbg.tui, ... only once installed, and an editable install maps them with
# an import hook that the import graph cannot follow; so lint-imports reads a symlink tree shaped like the package.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/pairdbg"
ln -s "$PWD"/src/pairdbg/*.py "$tree/pairdbg/"
for folder in backends tui mcp_bridge themes; do
  ln -s "$PWD/$folder" "$tree/pairdbg/$folder"
done
PYTHONPATH="$tree" .venv/bin/lint-imports --no-cache || rc=1
exit "$rc"
