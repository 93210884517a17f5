#!/usr/bin/env bash
# The whole test suite: the README's test command, and what CI runs.
# Installs what it needs from the package registries, is idempotent, and is
# quiet on success except for one summary line per step and a total.
set -uo pipefail
cd "$(dirname "$0")/.."

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0
failed=0

# step NAME COMMAND…: runs the command, prints its output only if it fails.
step() {
    local name=$1
    shift
    local log="$logs/$name.log"
    local started=$SECONDS
    if "$@" >"$log" 2>&1; then
        printf '  ok    %-16s (%ds)\n' "$name" $((SECONDS - started))
    else
        printf '  FAIL  %-16s (%ds)\n' "$name" $((SECONDS - started))
        cat "$log"
        echo "tests: $passed passed, $((failed + 1)) failed"
        exit 1
    fi
}

# count_tests LOG: adds up cargo's "test result" lines.
count_tests() {
    local counts
    counts=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
        END { print p + 0, f + 0 }' "$1")
    passed=$((passed + ${counts% *}))
    failed=$((failed + ${counts#* }))
}

# count_plain LABEL LOG: adds up a "LABEL: N passed, M failed" line.
count_plain() {
    local line
    line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed" "$2" | tail -n 1)
    [ -n "$line" ] || return 0
    passed=$((passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
    failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
}

# count_pytest LOG: adds up pytest's closing line ("N passed, M failed in …").
count_pytest() {
    local line p f
    line=$(grep -E '[0-9]+ passed' "$1" | tail -n 1)
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
}

echo "libmcp test suite"
step fmt cargo fmt --all -- --check
step fmt-fuzz cargo fmt --manifest-path fuzz/Cargo.toml -- --check
step clippy cargo clippy --workspace --all-targets --locked -- -D warnings
step codegen-drift cargo run -q --locked -p codegen -- --check
step interop-setup bash tests/interop/setup.sh
step build cargo build --workspace --locked --bins
# What the READMEs say that a program can check: their `mcp` commands parse,
# the packages, examples, scripts and paths they name exist.
step readmes python3 tests/check-readmes.py "${CARGO_TARGET_DIR:-target}/debug/mcp"
# The publishable crates package with only what a build needs (no verify
# build), and type-check with the declared rust-version.
step packages bash tests/check-packages.sh
step msrv bash tests/check-msrv.sh
step features bash tests/features.sh
step rust-tests cargo test --workspace --locked --no-fail-fast
count_tests "$logs/rust-tests.log"
step cbindgen bash -c '[ "$(cbindgen --version 2>/dev/null)" = "cbindgen 0.29.4" ] ||
    cargo install cbindgen --version 0.29.4 --locked --quiet'
# The C tests build the examples with CMake against an installed libmcp.
step cmake bash -c 'command -v cmake >/dev/null ||
    { apt-get update -qq && apt-get install -y -qq cmake >/dev/null; }'
# redis-server (and haproxy) for the C and Python `store` tests and the
# deployment test.
step redis bash tests/deploy/install.sh
# Python first: its release wheel compiles the release dependencies that
# the C tests' release install (install.sh's default) then reuses.
step python bash bindings/python/run-tests.sh
count_pytest "$logs/python.log"
step c-bindings bash bindings/c/run-tests.sh
count_plain "c tests" "$logs/c-bindings.log"
step conformance bash tests/conformance/run.sh
step deploy bash tests/deploy/run.sh
count_plain "deploy" "$logs/deploy.log"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
