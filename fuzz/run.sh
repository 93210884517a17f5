#!/usr/bin/env bash
# Runs every fuzz target for a bounded time, one after the other:
#   fuzz/run.sh [SECONDS_PER_TARGET]      (default 60)
# Installs cargo-fuzz if missing; uses the nightly toolchain if rustup has
# one, else the default toolchain with RUSTC_BOOTSTRAP=1. The corpus grows
# in fuzz/corpus/<target> (seeded from fuzz/seeds/<target>); crashes land in
# fuzz/artifacts/<target>. Exits non-zero if any target found a crash.
# FUZZ_SANITIZER=address builds with AddressSanitizer (default: none, since
# mcp-core forbids unsafe code; it fuzzes about twice as fast).
# CARGO_BUILD_JOBS defaults to 1 (the build is a release build).
set -uo pipefail
cd "$(dirname "$0")"

seconds=${1:-60}
targets=(jsonrpc_decode stdio_framing sse_parser uri_template http_request)
sanitizer=${FUZZ_SANITIZER:-none}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked || exit 1
fi
toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

cargo "${toolchain[@]}" fuzz build --sanitizer "$sanitizer" || exit 1

failed=()
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "seeds/$target"
    log=$(mktemp)
    # -timeout: a single input taking over 10 s is a finding too.
    cargo "${toolchain[@]}" fuzz run --sanitizer "$sanitizer" "$target" \
        "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1
    status=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
    corpus=$(find "corpus/$target" -type f | wc -l)
    if [ "$status" -eq 0 ]; then
        printf '  ok    %-16s %ss, %s execs, corpus %s\n' "$target" "$seconds" "${execs:-?}" "$corpus"
    else
        printf '  FAIL  %-16s (exit %s)\n' "$target" "$status"
        grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -n 20
        failed+=("$target")
    fi
    rm -f "$log"
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]} (inputs in fuzz/artifacts/)"
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, no crash"
