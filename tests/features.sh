#!/usr/bin/env bash
# mcp-core's cargo features: every combination that matters compiles with
# no warning (clippy, -D warnings), a server crate with only `server,stdio,
# macros` builds and answers a tool call, the examples build and the client
# example talks to both stdio server examples, the fuzz targets compile with
# no warning, the docs (mcp-core's, and
# mcp-ffi's with its Python face) build with no warning, and the parts
# that are not Unix-only compile for Windows. `tests/features.rs` checks
# the dependency trees.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}

combos=(
    "server,stdio,macros"
    "client,stdio"
    "server,http-server,auth"
    "client,http-client,auth"
    "server,stdio,otel"
    "client,otel"
    ""
)
for features in "${combos[@]}"; do
    echo "== mcp-core --no-default-features --features '$features'"
    # `--lib` only: an example or test target brings in the dev-dependencies,
    # whose mcp-core (through mcp-test-support) has the default features.
    cargo clippy --locked -q -p mcp-core --no-default-features --features "$features" \
        --lib -- -D warnings
done

# A server crate of its own, as a user writes it: the dev-dependencies give
# in-package examples the default features, so it lives outside the
# workspace (in a temporary directory, with the workspace's Cargo.lock and
# target directory), depends on mcp-core with `server,stdio,macros` only and
# answers a tools/call on its stdin.
echo "== a stdio-only server crate (--no-default-features --features server,stdio,macros)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cat >"$work/Cargo.toml" <<TOML
[package]
name = "features-stdio-echo"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
mcp-core = { path = "$PWD/mcp-core", default-features = false, features = ["server", "stdio", "macros"] }
tokio = { version = "1", features = ["rt", "macros"] }

[workspace]
TOML
cp Cargo.lock "$work/Cargo.lock"
cp tests/stdio-echo/main.rs "$work/src/main.rs"
case $target in /*) abs_target=$target ;; *) abs_target=$PWD/$target ;; esac
# Not --locked: the copied lock file names the workspace's packages, not
# this one; the versions it pins stay.
cargo build -q --manifest-path "$work/Cargo.toml" --target-dir "$abs_target"
answer=$(timeout 30 python3 - "$abs_target/debug/features-stdio-echo" <<'PY'
import json, subprocess, sys

server = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

def send(message):
    server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()

def answer(id):
    for line in server.stdout:
        message = json.loads(line)
        if message.get("id") == id:
            return message
    sys.exit(f"the server closed its stdout before answering request {id}")

send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "features.sh", "version": "1"}}})
init = answer(1)
assert init["result"]["serverInfo"]["name"] == "echo", init
assert "tools" in init["result"]["capabilities"], init
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "echo", "arguments": {"text": "hello, stdio"}}})
call = answer(2)
server.stdin.close()
server.wait(timeout=10)
print(call["result"]["content"][0]["text"])
PY
)
echo "echo: $answer"
[ "$answer" = "hello, stdio" ]

echo "== examples (default features)"
cargo clippy --locked -q -p mcp-core --examples -- -D warnings
cargo build --locked -q -p mcp-core --examples
out=$(timeout 60 "$target/debug/examples/client" "$target/debug/examples/stdio_echo")
echo "$out"
grep -qx 'echo: hello' <<<"$out"
out=$(timeout 60 "$target/debug/examples/client" --tool add --args '{"a": 2, "b": 3}' -- \
    "$target/debug/examples/stdio_macros")
echo "$out"
grep -qx 'add: {"sum":5}' <<<"$out"

echo "== docs (rustdoc, -D warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --locked -q --no-deps -p mcp-core
# The FFI crate with its Python face, whose docs no other step builds.
RUSTDOCFLAGS="-D warnings" cargo doc --locked -q --no-deps -p mcp-ffi --features python
echo "== mcp-ffi --features python (clippy, -D warnings)"
# The Python face, which the workspace clippy (default features) leaves out.
cargo clippy --locked -q -p mcp-ffi --features python --all-targets -- -D warnings

# The fuzz targets (their own workspace, not built by `cargo test`; a
# library change that breaks them would otherwise go unseen until the next
# `fuzz/run.sh`). Their Cargo.lock holds the workspace's versions (with
# --locked, a workspace change that needs it updated fails here), so the
# shared target directory has everything but libfuzzer-sys and mcp-core
# with its `fuzzing` feature.
echo "== fuzz targets (clippy, -D warnings)"
cargo clippy --locked -q --manifest-path fuzz/Cargo.toml --all-targets -- -D warnings

# Windows: every default feature but the HTTP client (whose TLS needs a C
# compiler for the target to build `ring`), with no warning; ChildProcess
# there has no process group. mcp-core/src/lib.rs ("Platforms") names this
# list: keep the two the same.
echo "== windows (x86_64-pc-windows-gnu)"
rustup target list --installed | grep -qx x86_64-pc-windows-gnu ||
    rustup target add x86_64-pc-windows-gnu
RUSTFLAGS="-D warnings" cargo check --locked -q -p mcp-core --target x86_64-pc-windows-gnu \
    --no-default-features --features server,client,stdio,http-server,auth,macros
echo "features: ok"
