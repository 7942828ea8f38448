#!/usr/bin/env bash
# Debian packages the tests start as real parts (idempotent; well under a second when present):
# - docker-registry: CNCF Distribution, the real OCI registry the OCI tests run on 127.0.0.1;
# - neovim: a real LSP client for the language server's end-to-end test.
set -euo pipefail
need=()
command -v docker-registry >/dev/null 2>&1 || need+=(docker-registry)
command -v nvim >/dev/null 2>&1 || need+=(neovim)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "[test-packages] apt-get install ${need[*]}"
  $SUDO apt-get update -qq
  # the package's service is not started here (no init system in CI; tests start their own)
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "[test-packages] $(docker-registry --version 2>/dev/null | head -1); $(nvim --version 2>/dev/null | head -1)"
