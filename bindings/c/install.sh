#!/usr/bin/env bash
# Installs libmcp for C under PREFIX (default /usr/local), like a system
# library:
#   PREFIX/include/mcp.h
#   PREFIX/lib/libmcp.so.VERSION, libmcp.so.MAJOR -> it (the SONAME),
#     libmcp.so -> libmcp.so.MAJOR (for linking), PREFIX/lib/libmcp.a
#   PREFIX/lib/pkgconfig/mcp.pc
#   PREFIX/lib/cmake/mcp/mcpConfig.cmake, mcpConfigVersion.cmake
# Usage: install.sh [PREFIX] [PROFILE]   PROFILE is release (default) or debug;
# the library is built first (cargo build -p mcp-ffi) when cargo is there,
# which does nothing when it is up to date. DESTDIR, when set, is put in
# front of every installed path (for packaging); the files still name PREFIX.
# Then, with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig if PREFIX is not standard:
#   cc app.c $(pkg-config --cflags --libs mcp)                          (shared)
#   cc app.c $(pkg-config --cflags mcp) PREFIX/lib/libmcp.a \
#       -Wl,--as-needed $(pkg-config --libs --static mcp)              (static)
# or in CMake (CMAKE_PREFIX_PATH=PREFIX): find_package(mcp) and link mcp::mcp
# or mcp::mcp_static.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${1:-/usr/local}
profile=${2:-release}
destdir=${DESTDIR:-}
case "$profile" in
release) cargo_profile=(--release) ;;
debug) cargo_profile=() ;;
*)
    echo "install: PROFILE is release or debug, not $profile" >&2
    exit 2
    ;;
esac
case "$prefix" in /*) ;; *)
    echo "install: PREFIX must be an absolute path, not $prefix" >&2
    exit 2
    ;;
esac
lib=${CARGO_TARGET_DIR:-$root/target}/$profile
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
major=${version%%.*}

if command -v cargo >/dev/null; then
    cargo build --quiet -p mcp-ffi "${cargo_profile[@]}" --manifest-path "$root/Cargo.toml"
fi
for file in "$lib/libmcp.so" "$lib/libmcp.a"; do
    if [ ! -f "$file" ]; then
        echo "install: $file is missing; build it with: cargo build -p mcp-ffi ${cargo_profile[*]}" >&2
        exit 1
    fi
done

dest=$destdir$prefix
mkdir -p "$dest/include" "$dest/lib/pkgconfig" "$dest/lib/cmake/mcp"
install -m 644 "$here/include/mcp.h" "$dest/include/mcp.h"
install -m 755 "$lib/libmcp.so" "$dest/lib/libmcp.so.$version"
ln -sfn "libmcp.so.$version" "$dest/lib/libmcp.so.$major"
ln -sfn "libmcp.so.$major" "$dest/lib/libmcp.so"
install -m 644 "$lib/libmcp.a" "$dest/lib/libmcp.a"
fill() {
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" -e "s|@MAJOR@|$major|g" "$1"
}
fill "$here/mcp.pc.in" | sed -e '/^#/d' >"$dest/lib/pkgconfig/mcp.pc"
fill "$here/cmake/mcpConfig.cmake.in" >"$dest/lib/cmake/mcp/mcpConfig.cmake"
fill "$here/cmake/mcpConfigVersion.cmake.in" >"$dest/lib/cmake/mcp/mcpConfigVersion.cmake"
