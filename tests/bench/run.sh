#!/usr/bin/env bash
# The libmcp benchmark (see BENCHMARKS.md): builds in release mode, then
# measures our stdio and Streamable HTTP servers against floor programs in
# the same run, unpinned and pinned to one CPU (`taskset -c 0`), and prints
# one Markdown table on stdout (progress on stderr). Takes about 3 minutes.
#
#   bash tests/bench/run.sh            # the full table
#   bash tests/bench/run.sh --quick    # shorter repetitions, for a smoke run
#   bash tests/bench/run.sh --only stdio,http --reps 7
#
# The Python row compares the libmcp wheel (when `import libmcp` works in
# $LIBMCP_PYTHON, default target/interop/venv/bin/python) with the official
# Python SDK installed by tests/interop/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build --release -p mcp-bench >&2
if ! bash tests/interop/setup.sh >&2; then
    echo "run.sh: tests/interop/setup.sh failed; the Python row will show n/a" >&2
fi
exec target/release/mcp-bench "$@"
