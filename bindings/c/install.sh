#!/usr/bin/env bash
# Installs libmcp for C under PREFIX (default /usr/local), like a system
# library:
#   PREFIX/include/mcp.h
#   PREFIX/lib/libmcp.so.VERSION, libmcp.so.MAJOR -> it (the SONAME),
#     libmcp.so -> libmcp.so.MAJOR (for linking), PREFIX/lib/libmcp.a
#   PREFIX/lib/libmcp.so.VERSION.debug (its debug info, see below)
#   PREFIX/lib/pkgconfig/mcp.pc
#   PREFIX/lib/cmake/mcp/mcpConfig.cmake, mcpConfigVersion.cmake
# Usage: install.sh [--debug-info=split|none|keep] [PREFIX] [PROFILE]
# PROFILE is release (default) or debug; the library is built first (cargo
# build -p mcp-ffi) when cargo is there, which does nothing when it is up to
# date. DESTDIR, when set, is put in front of every installed path (for
# packaging); the files still name PREFIX.
# Debug info, as distributions ship it: with split (the default) libmcp.so
# is installed stripped, its debug info (compressed) in libmcp.so.VERSION.debug
# beside it, found by gdb through the library's GNU debuglink; none leaves that
# file out; keep installs the libraries as cargo built them. libmcp.a ships
# without debug info unless keep.
# Then, with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig if PREFIX is not standard:
#   cc app.c $(pkg-config --cflags --libs mcp)                          (shared)
#   cc app.c $(pkg-config --cflags mcp) PREFIX/lib/libmcp.a \
#       -Wl,--as-needed $(pkg-config --libs --static mcp)              (static)
# or in CMake (CMAKE_PREFIX_PATH=PREFIX): find_package(mcp) and link mcp::mcp
# or mcp::mcp_static.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
debug_info=split
case "${1:-}" in --debug-info=*)
    debug_info=${1#--debug-info=}
    shift
    ;;
esac
case "$debug_info" in split | none | keep) ;; *)
    echo "install: --debug-info is split, none or keep, not $debug_info" >&2
    exit 2
    ;;
esac
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
shared=$dest/lib/libmcp.so.$version
rm -f "$shared.debug"
if [ "$debug_info" = keep ]; then
    install -m 755 "$lib/libmcp.so" "$shared"
    install -m 644 "$lib/libmcp.a" "$dest/lib/libmcp.a"
else
    # The debug file is made first: the debuglink carries its name and CRC.
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    objcopy --only-keep-debug --compress-debug-sections=zlib "$lib/libmcp.so" "$work/libmcp.so.$version.debug"
    objcopy --strip-unneeded --add-gnu-debuglink="$work/libmcp.so.$version.debug" \
        "$lib/libmcp.so" "$work/libmcp.so.$version"
    install -m 755 "$work/libmcp.so.$version" "$shared"
    if [ "$debug_info" = split ]; then
        install -m 644 "$work/libmcp.so.$version.debug" "$shared.debug"
    fi
    objcopy --strip-debug --enable-deterministic-archives "$lib/libmcp.a" "$work/libmcp.a"
    install -m 644 "$work/libmcp.a" "$dest/lib/libmcp.a"
fi
ln -sfn "libmcp.so.$version" "$dest/lib/libmcp.so.$major"
ln -sfn "libmcp.so.$major" "$dest/lib/libmcp.so"
fill() {
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" -e "s|@MAJOR@|$major|g" "$1"
}
fill "$here/mcp.pc.in" | sed -e '/^#/d' >"$dest/lib/pkgconfig/mcp.pc"
fill "$here/cmake/mcpConfig.cmake.in" >"$dest/lib/cmake/mcp/mcpConfig.cmake"
fill "$here/cmake/mcpConfigVersion.cmake.in" >"$dest/lib/cmake/mcp/mcpConfigVersion.cmake"
