#!/usr/bin/env bash
# The Python binding's test command: into the venv target/pyvenv it
# installs pytest, the official MCP Python SDK (pinned to the version
# tests/interop/setup.sh uses, for the interop tests), pydantic, FastAPI and
# uvicorn (the ASGI tests mount the app in FastAPI), opentelemetry-api and
# opentelemetry-sdk (the trace-context tests), mypy (the package is
# checked with --strict), maturin and auditwheel; builds the release wheel with `maturin build --release` and
# checks that it is an abi3 wheel with a manylinux tag that `auditwheel show`
# agrees with (maturin itself refuses to tag a wheel whose extension needs
# newer glibc symbols); installs that wheel; builds the sdist and a wheel
# from it (sharing target/, so only what changed is compiled: a file missing
# from the sdist fails the build); and runs pytest on bindings/python/tests.
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
maturin_spec=$(sed -n 's/^requires = \["\(maturin[^"]*\)"\]$/\1/p' "$here/pyproject.toml")
installed=$("$py" - "$mcp_version" <<'PY' 2>/dev/null || true
import importlib.metadata as m, sys
try:
    ok = m.version("mcp") == sys.argv[1] and all(
        m.version(p)
        for p in ("pytest", "maturin", "auditwheel", "pydantic", "fastapi", "uvicorn", "mypy",
                  "opentelemetry-api", "opentelemetry-sdk")
    )
except m.PackageNotFoundError:
    ok = False
print("yes" if ok else "no")
PY
)
if [ "$installed" != "yes" ]; then
    run "installing pytest, mcp==$mcp_version, pydantic, fastapi, uvicorn, mypy, opentelemetry, $maturin_spec and auditwheel" \
        "$py" -m pip install --quiet --disable-pip-version-check pytest "mcp==$mcp_version" pydantic \
        fastapi uvicorn mypy opentelemetry-api opentelemetry-sdk "$maturin_spec" auditwheel
fi

# The package is typed (py.typed, _libmcp.pyi): it stays `mypy --strict` clean.
run "type-checking the package (mypy --strict)" \
    env -C "$here/python" "$py" -m mypy --strict --no-incremental libmcp

# The release wheel, as `maturin build --release` makes it for users.
wheels="$root/target/python-dist"
rm -rf "$wheels"
run "building the wheel (maturin build --release)" \
    env -C "$here" "$venv/bin/maturin" build --release --out "$wheels"
wheel=$(ls "$wheels"/libmcp-*.whl)
case "$(basename "$wheel")" in
    *-abi3-manylinux_*.whl) ;;
    *) echo "python tests: $(basename "$wheel") is not an abi3 manylinux wheel" >&2; exit 1 ;;
esac
tag=$(basename "$wheel" .whl | sed 's/.*-abi3-//')
run "checking the wheel's tag (auditwheel show)" "$venv/bin/auditwheel" show "$wheel"
if ! tr -s ' \n' '  ' <"$log" | grep -q "consistent with the following platform tag: \"$tag\""; then
    echo "python tests: auditwheel does not confirm the tag $tag of $(basename "$wheel"):" >&2
    cat "$log" >&2
    exit 1
fi
run "installing the wheel" \
    "$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"

# The sdist, and a wheel built from it alone.
run "building the sdist (maturin sdist)" env -C "$here" "$venv/bin/maturin" sdist --out "$wheels/sdist"
# CARGO_TARGET_DIR: the sdist's build shares target/ (cargo hashes path
# crates relative to their workspace), so only what changed is compiled.
run "building a wheel from the sdist" \
    env CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" PATH="$venv/bin:$PATH" "$py" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
    --wheel-dir "$wheels/from-sdist" "$wheels"/sdist/libmcp-*.tar.gz

# The `mcp` binary, whose `mcp serve everything` some tests talk to.
run "cargo build -p mcp-cli" cargo build --quiet -p mcp-cli --bin mcp --manifest-path "$root/Cargo.toml"

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
