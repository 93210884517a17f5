#!/usr/bin/env bash
# Regenerates include/mcp.h from the mcp-ffi crate (its doc comments become
# the header's Doxygen comments). Needs cbindgen 0.29.4:
#   cargo install cbindgen --version 0.29.4 --locked
# Usage: gen-header.sh [OUTPUT]   (default: include/mcp.h next to this script)
# Set CBINDGEN to use a cbindgen that is not on PATH.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$here/include/mcp.h}
cbindgen=${CBINDGEN:-cbindgen}
want="cbindgen 0.29.4"

have=$("$cbindgen" --version 2>/dev/null || true)
if [ "$have" != "$want" ]; then
    echo "gen-header: need $want (found: ${have:-none}); install it with" >&2
    echo "  cargo install cbindgen --version 0.29.4 --locked" >&2
    exit 1
fi
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
cd "$root/mcp-ffi"
"$cbindgen" --quiet --config cbindgen.toml --crate mcp-ffi --output "$out" .
