#!/usr/bin/env bash
# Installs everything the tests need into .venv (on a fresh machine too), runs the static checks and the whole suite.
# Extra arguments go to pytest, e.g. `scripts/test.sh -k mcp -x`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The JavaScript targets (Bun into .tools/, Node, Chromium, WebKitGTK MiniBrowser). Outside CI a missing one only
# makes its tests skip with the install hint; under CI=true it is a failure.
if ! bash scripts/setup-targets.sh; then
  ci=${CI:-}
  case "${ci,,}" in
    1 | true | yes) exit 1 ;;
  esac
  echo "test.sh: continuing without the missing JS targets; their tests will skip" >&2
fi
# The debug targets the suite drives for real: debugpy (a Python dependency above). Fail loudly if missing.
.venv/bin/python -c "import debugpy, textual, mcp; print('debugpy', debugpy.__version__, '| textual', textual.__version__, '| mcp ok')"
# ruff and the import-linter layer contracts first: a broken layer fails the run before any test starts.
bash scripts/lint.sh
set +e
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$rc"
