#!/usr/bin/env bash
# Installs libmcp for C under PREFIX (default /usr/local):
#   PREFIX/include/mcp.h, PREFIX/lib/libmcp.{so,a}, PREFIX/lib/pkgconfig/mcp.pc
# Usage: install.sh [PREFIX] [PROFILE]   PROFILE is debug (default) or release;
# the library must be built first: cargo build -p mcp-ffi [--release]
# Then, with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig if PREFIX is not standard:
#   cc app.c $(pkg-config --cflags --libs mcp)                     (shared)
#   cc app.c $(pkg-config --cflags mcp) PREFIX/lib/libmcp.a -lpthread -ldl -lm   (static)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${1:-/usr/local}
profile=${2:-debug}
lib=${CARGO_TARGET_DIR:-$root/target}/$profile
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)

for file in "$lib/libmcp.so" "$lib/libmcp.a"; do
    if [ ! -f "$file" ]; then
        echo "install: $file is missing; build it with: cargo build -p mcp-ffi" >&2
        exit 1
    fi
done
mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
cp "$here/include/mcp.h" "$prefix/include/mcp.h"
cp "$lib/libmcp.so" "$lib/libmcp.a" "$prefix/lib/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" -e '/^#/d' \
    "$here/mcp.pc.in" >"$prefix/lib/pkgconfig/mcp.pc"
