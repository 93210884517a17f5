#!/usr/bin/env bash
# The Python binding's test command: builds libmcp from this directory with
# pip (maturin is fetched as the build backend), installs it with pytest and
# the official MCP Python SDK (pinned to the version tests/interop/setup.sh
# uses, for the interop tests) into the venv target/pyvenv, and runs pytest
# on bindings/python/tests.
#
# Idempotent (the venv is reused; libmcp is rebuilt and reinstalled each
# time, incrementally). Quiet on success except for pytest's summary line;
# on failure prints the failing step's output and exits non-zero (also when
# pytest collected no tests). Extra arguments go to pytest.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/target/pyvenv"
py="$venv/bin/python"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run DESCRIPTION COMMAND…: runs quietly, shows the output only on failure.
run() {
    local what=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "python tests: $what failed:" >&2
        cat "$log" >&2
        exit 1
    fi
}

mcp_version=$(sed -n 's/^PYTHON_MCP_VERSION=//p' "$root/tests/interop/setup.sh")
if [ -z "$mcp_version" ]; then
    echo "python tests: no PYTHON_MCP_VERSION in tests/interop/setup.sh" >&2
    exit 1
fi

if [ ! -x "$py" ]; then
    run "creating the venv $venv" python3 -m venv "$venv"
fi
installed=$("$py" - "$mcp_version" <<'PY' 2>/dev/null || true
import importlib.metadata as m, sys
try:
    ok = m.version("mcp") == sys.argv[1] and m.version("pytest")
except m.PackageNotFoundError:
    ok = False
print("yes" if ok else "no")
PY
)
if [ "$installed" != "yes" ]; then
    run "installing pytest and mcp==$mcp_version" \
        "$py" -m pip install --quiet --disable-pip-version-check pytest "mcp==$mcp_version"
fi
run "building and installing libmcp (pip install bindings/python)" \
    "$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$here"

# Run from outside the source tree, so that `import libmcp` is the installed
# wheel and not python/libmcp.
cd "$root/target"
status=0
PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -q -p no:cacheprovider --rootdir "$here" "$here/tests" "$@" \
    >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    cat "$log"
    if [ "$status" -eq 5 ]; then
        echo "python tests: pytest collected no tests" >&2
    fi
    exit "$status"
fi
tail -n 1 "$log"
