#!/usr/bin/env bash
# The declared `rust-version` is true: the published crates (mcp-core with its
# macros, and mcp-cli) type-check with that toolchain, which rustup installs
# when it is missing. A check, not a build, in a target directory of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "msrv: no rust-version in Cargo.toml" >&2; exit 1; }
command -v rustup >/dev/null || { echo "msrv: rustup is needed to install Rust $version" >&2; exit 1; }
rustup toolchain list | grep -q "^$version-" ||
    rustup toolchain install "$version" --profile minimal --no-self-update
cargo "+$version" check --quiet --locked -p mcp-core -p mcp-cli \
    --target-dir "${CARGO_TARGET_DIR:-target}/msrv"
echo "msrv: mcp-core and mcp-cli check with Rust $version"
