#!/usr/bin/env bash
# Fails if include/mcp.h is not what gen-header.sh generates from the current
# mcp-ffi sources (CI runs this). Quiet on success.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
"$here/gen-header.sh" "$fresh"
if ! diff -u "$here/include/mcp.h" "$fresh" >&2; then
    echo "check-header: bindings/c/include/mcp.h is stale; run bindings/c/gen-header.sh" >&2
    exit 1
fi
