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

# cbindgen exports no string constants, so the MCP_METHOD_* names, which
# `cargo run -p codegen` writes to mcp-ffi/cbindgen-methods.h, go into the
# header as cbindgen's `after_includes` (a TOML literal string, which cannot
# hold ''').
methods=$root/mcp-ffi/cbindgen-methods.h
if grep -qF "'''" "$methods"; then
    echo "gen-header: $methods contains ''' and cannot be quoted" >&2
    exit 1
fi
# The version macros (and the one initializer macro, which cbindgen cannot
# write either), from the workspace's version (the one mcp_version()
# returns; run-tests.sh checks that they agree).
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
IFS=. read -r major minor patch <<<"${version%%[-+]*}"
if [ -z "$major" ] || [ -z "$minor" ] || [ -z "$patch" ]; then
    echo "gen-header: cannot read the version from $root/Cargo.toml" >&2
    exit 1
fi
versions="/** The version of libmcp this header belongs to (mcp_version() gives the
 * library's at run time). */
#define MCP_VERSION_MAJOR $major
#define MCP_VERSION_MINOR $minor
#define MCP_VERSION_PATCH $patch
#define MCP_VERSION_STRING \"$version\"

/** Initializes an mcp_call_options with its size set and every option at its
 * default: mcp_call_options options = MCP_CALL_OPTIONS_INIT; */
#define MCP_CALL_OPTIONS_INIT {sizeof(mcp_call_options), 0, NULL, NULL, NULL, NULL, NULL}"
config=$(mktemp)
trap 'rm -f "$config"' EXIT
{
    # $(cat) drops the final newline: cbindgen adds one.
    printf "after_includes = '''\n\n%s\n\n%s'''\n\n" "$versions" "$(cat "$methods")"
    cat "$root/mcp-ffi/cbindgen.toml"
} >"$config"
cd "$root/mcp-ffi"
"$cbindgen" --quiet --config "$config" --crate mcp-ffi --output "$out" .
