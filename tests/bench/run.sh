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
# The Python row compares the libmcp wheel with the official Python SDK
# installed by tests/interop/setup.sh. The wheel is the one in $LIBMCP_PYTHON
# if set; otherwise the one bindings/python/run-tests.sh installs in
# target/pyvenv, built and installed here (release, a few minutes) if missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build --release -p mcp-bench >&2
if ! bash tests/interop/setup.sh >&2; then
    echo "run.sh: tests/interop/setup.sh failed; the Python row will show n/a" >&2
fi
if [ -z "${LIBMCP_PYTHON:-}" ]; then
    venv=target/pyvenv
    if ! "$venv/bin/python" -c 'import libmcp' 2>/dev/null; then
        echo "run.sh: building the libmcp wheel into $venv (release; a few minutes)" >&2
        { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } >&2 &&
            "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
                bindings/python >&2 ||
            echo "run.sh: building the wheel failed; the Python row will show n/a" >&2
    fi
    export LIBMCP_PYTHON=$venv/bin/python
fi
exec "${CARGO_TARGET_DIR:-target}/release/mcp-bench" "$@"
