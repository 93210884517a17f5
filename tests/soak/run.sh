#!/usr/bin/env bash
# The libmcp soak and scale checks (see BENCHMARKS.md, "Soak and scale"):
# builds in release mode, then runs `mcp-soak`, which prints one Markdown
# table on stdout (progress on stderr) and exits 0 only if every criterion
# holds. Not part of the test suite.
#
#   bash tests/soak/run.sh                 # full (about 80 s): 10,000 sessions,
#                                          # 1,000,000 calls per transport,
#                                          # 1,000 SSE streams
#   bash tests/soak/run.sh --quick         # smoke run, well under a minute
#   bash tests/soak/run.sh --calls 200000 --only stdio,http
#
# Bounded in time: `mcp-soak` stops itself after 14 minutes (2 in --quick;
# --time-limit SECS changes it), and this script kills it after 15 (the
# build before it is not counted). Servers bind 127.0.0.1 and exit when the
# driver's pipe to them closes.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build --release -p mcp-bench --bin mcp-soak --bin bench-server >&2

# One descriptor per SSE stream on each side: raise the soft limit to the
# hard one where it is lower (mcp-soak reports it if still too low).
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$(ulimit -Sn)" -lt "$hard" ]; then
    ulimit -Sn "$hard" 2>/dev/null || true
fi

bin="${CARGO_TARGET_DIR:-target}/release/mcp-soak"
exec timeout --kill-after=10 900 "$bin" "$@"
