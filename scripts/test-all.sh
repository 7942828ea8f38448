#!/usr/bin/env bash
# The one command that runs every test: build, unit tests (Node's test runner), then the
# integration suite inside a real VS Code extension host (code-server + headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
npm run --silent compile
node scripts/run-unit-tests.mjs
