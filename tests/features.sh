#!/usr/bin/env bash
# mcp-core's cargo features: every combination that matters compiles with
# no warning (clippy, -D warnings), the examples build and the client example
# talks to the stdio server example, and the parts that are not Unix-only
# compile for Windows. `tests/features.rs` checks the dependency trees.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}

combos=(
    "server,stdio,macros"
    "client,stdio"
    "server,http-server,auth"
    "client,http-client,auth"
    ""
)
for features in "${combos[@]}"; do
    echo "== mcp-core --no-default-features --features '$features'"
    cargo clippy --locked -q -p mcp-core --no-default-features --features "$features" \
        --lib --examples -- -D warnings
done

echo "== examples (default features)"
cargo build --locked -q -p mcp-core --examples
out=$(timeout 60 "$target/debug/examples/client" "$target/debug/examples/stdio_echo")
echo "$out"
grep -qx 'echo: hello' <<<"$out"

# Windows: everything but the HTTP client (whose TLS needs a C compiler for
# the target to build `ring`); ChildProcess there has no process group.
echo "== windows (x86_64-pc-windows-gnu)"
rustup target list --installed | grep -qx x86_64-pc-windows-gnu ||
    rustup target add x86_64-pc-windows-gnu
cargo check --locked -q -p mcp-core --target x86_64-pc-windows-gnu --no-default-features \
    --features server,client,stdio,http-server,auth
echo "features: ok"
