#!/usr/bin/env bash
# Build cost of a stdio-only echo server, libmcp against rmcp, in one run:
# each is a small program of its own (an `echo` tool with a typed argument
# over stdio), built in release mode in a fresh, empty target directory
# (every dependency compiled: a clean build), then stripped. Prints one
# Markdown table. Downloads are fetched before the clock starts.
#
#   bash tests/bench/build_size.sh [JOBS]      # JOBS: cargo -j (default: nproc)
#
# libmcp: mcp-core from this checkout, `default-features = false,
# features = ["server", "stdio", "macros"]`, the tool a method under
# `#[mcp_core::handlers]`: tests/stdio-echo/main.rs, the server
# `tests/features.sh` builds and drives.
# rmcp: from crates.io, `default-features = false, features = ["server",
# "transport-io"]` (its minimal set for a stdio server; no macros, so the tool
# is a hand-written `ServerHandler`).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${1:-$(nproc)}
rmcp_version=${RMCP_VERSION:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/libmcp-echo/src" "$work/rmcp-echo/src"

cat >"$work/libmcp-echo/Cargo.toml" <<TOML
[package]
name = "libmcp-echo"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
mcp-core = { path = "$root/mcp-core", default-features = false, features = ["server", "stdio", "macros"] }
tokio = { version = "1", features = ["rt", "macros"] }

[workspace]
TOML
# The same dependency versions as the workspace.
cp "$root/Cargo.lock" "$work/libmcp-echo/Cargo.lock"
cp "$root/tests/stdio-echo/main.rs" "$work/libmcp-echo/src/main.rs"

cat >"$work/rmcp-echo/Cargo.toml" <<TOML
[package]
name = "rmcp-echo"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
rmcp = { version = "$rmcp_version", default-features = false, features = ["server", "transport-io"] }
tokio = { version = "1", features = ["rt", "macros"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[workspace]
TOML
cat >"$work/rmcp-echo/src/main.rs" <<'RS'
// `ServerInfo` is deprecated from rmcp 3.x on, but still the handler's type.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerInfo, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct EchoArgs {
    text: String,
}

struct Echo;

fn echo_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string", "description": "The text to send back." } },
        "required": ["text"]
    });
    let serde_json::Value::Object(schema) = schema else { unreachable!() };
    Tool::new("echo", "Returns its text unchanged", Arc::new(schema))
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("echo", "0.1.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![echo_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params(format!("unknown tool {}", request.name), None));
        }
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let args: EchoArgs = serde_json::from_value(arguments)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(args.text)]).into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Echo.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
RS

# build NAME: a clean release build; prints seconds and the stripped size.
build() {
    local dir="$work/$1" target="$work/target-$1"
    (cd "$dir" && cargo fetch -q)
    local start end
    start=$(date +%s.%N)
    (cd "$dir" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 cargo build -q --release -j "$jobs")
    end=$(date +%s.%N)
    strip -o "$work/$1.stripped" "$target/release/$1"
    rm -rf "$target"
    echo "$(echo "$end - $start" | bc) $(stat -c %s "$work/$1.stripped")"
}

# check NAME: the program answers initialize and an echo call over stdio.
check() {
    local out
    out=$(printf '%s\n' \
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ping-echo"}}}' |
        timeout 10 "$work/$1.stripped" 2>/dev/null || true)
    grep -q '"id":2' <<<"$out" && grep -q 'ping-echo' <<<"$out" ||
        { echo "$1 did not echo: $out" >&2; exit 1; }
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r ours_s ours_b < <(build libmcp-echo)
read -r rmcp_s rmcp_b < <(build rmcp-echo)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
check libmcp-echo
check rmcp-echo
rmcp_resolved=$(cd "$work/rmcp-echo" && cargo tree -q -e normal --depth 1 --prefix none | grep -m1 '^rmcp ' | cut -d' ' -f2)
crates() { (cd "$work/$1" && cargo tree -q -e normal --prefix none | sed 's/ (\*)//' | sort -u | wc -l); }

echo "$(date -u '+%Y-%m-%d %H:%M UTC'); nproc $(nproc), cargo -j $jobs; load average $load_before before, $load_after after"
echo
echo "| workload | metric | libmcp | rmcp $rmcp_resolved | libmcp / rmcp |"
echo "|---|---|---:|---:|---:|"
printf '| stdio-only echo server | clean release build, s | %.1f | %.1f | %.2f |\n' \
    "$ours_s" "$rmcp_s" "$(echo "$ours_s / $rmcp_s" | bc -l)"
printf '| stdio-only echo server | stripped binary, KiB | %d | %d | %.2f |\n' \
    $((ours_b / 1024)) $((rmcp_b / 1024)) "$(echo "$ours_b / $rmcp_b" | bc -l)"
printf '| stdio-only echo server | crates in the dependency tree | %d | %d | %.2f |\n' \
    "$(crates libmcp-echo)" "$(crates rmcp-echo)" "$(echo "$(crates libmcp-echo) / $(crates rmcp-echo)" | bc -l)"
