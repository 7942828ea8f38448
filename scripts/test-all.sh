#!/usr/bin/env bash
# The one command that runs every test: build, unit tests (Node's test runner), then the
# integration suite inside a real VS Code extension host (code-server + headless Chromium), the
# same suite in an untrusted workspace, the coexistence run (a Terraform language extension installed
# beside ours), and the UI smoke test (screenshot under test-output/).
# Ends with `tests: N passed, M failed` (unit + integration + UI); exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-output
PASSED=0
FAILED=0
STATUS=0
finish() { echo "tests: $PASSED passed, $FAILED failed"; exit "$STATUS"; }

# The outer `npm test` exports npm_config_* / npm_package_* to us; the nested npm runs, the unit
# tests and the editor must behave exactly as when this script is run on its own.
for v in $(compgen -e | grep -i '^npm_'); do unset "$v"; done

# A build or compile failure is one failed test: the summary line is still printed.
if ! npm run --silent build || ! npm run --silent compile; then
  echo "build failed"; FAILED=1; STATUS=1; finish
fi

# Real parts the unit tests start (an OCI registry, an LSP client): Debian packages. Tests that
# need one say so and fail when it is missing, so a failed install shows up as failed tests.
bash scripts/test-packages.sh || echo "test-packages failed"

# Unit tests: the runner's closing line "unit: N passed, M failed" (node's test runner summary
# plus the runner's own check that the suite left nothing in its private temp directory).
node scripts/run-unit-tests.mjs 2>&1 | tee test-output/unit.log
[ "${PIPESTATUS[0]}" -eq 0 ] || STATUS=1
u_line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed$' test-output/unit.log | tail -1)
if [ -z "$u_line" ]; then FAILED=$((FAILED + 1)); STATUS=1
else
  PASSED=$((PASSED + $(echo "$u_line" | cut -d' ' -f2)))
  FAILED=$((FAILED + $(echo "$u_line" | cut -d' ' -f4)))
fi

# Real VS Code extension host (code-server + headless Chromium): install once, then four runs.
# Each run prints a closing "N passed, M failed" line that is summed here.
if ! bash scripts/vscode-ci-setup.sh; then
  echo "vscode-ci-setup failed"; FAILED=$((FAILED + 1)); STATUS=1
else
  run_vscode() { # name, args...
    local name=$1; shift
    node scripts/run-vscode-tests.js "$@" 2>&1 | tee "test-output/vscode-$name.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || STATUS=1
    local line
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "test-output/vscode-$name.log" | tail -1)
    if [ -z "$line" ]; then FAILED=$((FAILED + 1)); STATUS=1; return; fi
    PASSED=$((PASSED + $(echo "$line" | cut -d' ' -f1)))
    FAILED=$((FAILED + $(echo "$line" | cut -d' ' -f3)))
  }
  run_vscode integration
  run_vscode untrusted --untrusted
  run_vscode coexist --coexist
  run_vscode ui --ui --screenshot test-output/ui-completion.png
fi

[ "$FAILED" -eq 0 ] || STATUS=1
finish
