#!/usr/bin/env bash
# The crates that go to the Rust package registry package, with nothing in
# them but what a build needs: `cargo package --no-verify` of each publishable
# crate (every workspace member without `publish = false`), then each .crate's
# file list against what may be in it. Without the verify build (it would
# compile the whole dependency tree again, minutes on 2 cores); the test
# suite builds and tests these crates from the workspace anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}

# The publishable members, from cargo's own view of the workspace.
mapfile -t crates < <(cargo metadata --format-version 1 --no-deps --locked |
    python3 -c 'import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] != []:
        print(p["name"], p["version"])')
[ "${#crates[@]}" -gt 0 ] || { echo "packages: no publishable crate" >&2; exit 1; }

args=()
for crate in "${crates[@]}"; do args+=(-p "${crate% *}"); done
# --allow-dirty: this checks the tree as it is, uncommitted changes included.
cargo package --quiet --locked --no-verify --allow-dirty "${args[@]}"

failed=0
for crate in "${crates[@]}"; do
    name=${crate% *} version=${crate#* }
    file=$target/package/$name-$version.crate
    # What a published crate holds: its sources and examples, the manifest,
    # the lock file and the README; tests, fixtures and scripts stay here.
    files=$(tar -tzf "$file" | sed "s|^$name-$version/||")
    unexpected=$(echo "$files" |
        grep -vE '^(src/.*|examples/.*|Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|README\.md|\.cargo_vcs_info\.json|)$' || true)
    if [ -n "$unexpected" ]; then
        echo "packages: $name holds files a build does not need:" >&2
        echo "$unexpected" >&2
        failed=1
    fi
    for needed in Cargo.toml README.md src/lib.rs; do
        if ! grep -qxF "$needed" <<<"$files"; then
            echo "packages: $name lacks $needed" >&2
            failed=1
        fi
    done
    echo "packages: $name $version, $(wc -l <<<"$files") files, $(stat -c %s "$file") bytes"
done
exit "$failed"
