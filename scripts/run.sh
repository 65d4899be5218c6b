#!/usr/bin/env bash
# Runs pairdbg from this checkout, installing it into .venv first if needed: `scripts/run.sh demo`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/setup.sh" >&2
exec "$here/../.venv/bin/pairdbg" "$@"
