#!/usr/bin/env bash
# The deployment test: three `mcp serve everything --http` replicas sharing
# state through Redis, behind HAProxy balancing round-robin without
# stickiness; tests/deploy/check.py checks sessions, deletion, resource
# updates, 2026-07-28 input-required rounds, tasks, resumption and Redis
# faults across them. Installs redis-server and haproxy from the Debian packages if
# missing; everything runs on loopback with throw-away configuration (no
# persistence) and is stopped by PID at the end, also on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tests/deploy/install.sh
# Started by hand below, never as the system's services.

cargo build -q --locked -p mcp-cli --bin mcp
bin="${CARGO_TARGET_DIR:-target}/debug/mcp"

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}" $(cat "$work/redis.pid" 2>/dev/null); do
        kill -KILL "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT: until something listens there (at most 10 s).
wait_port() {
    for _ in $(seq 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    >"$work/redis.log" 2>&1 &
echo $! >"$work/redis.pid"
wait_port "$redis_port"
store="redis://127.0.0.1:$redis_port/0"

# Faults at start: a store nobody answers at is named, non-zero, within 10 s.
dead_port=$(free_port)
started=$SECONDS
if timeout 15 "$bin" serve everything --http 127.0.0.1:0 --store "redis://127.0.0.1:$dead_port/0" \
    2>"$work/dead.log"; then
    echo "FAIL: mcp serve started with an unreachable store" >&2
    exit 1
fi
if [ $((SECONDS - started)) -gt 10 ] || ! grep -q "redis://127.0.0.1:$dead_port/0" "$work/dead.log"; then
    echo "FAIL: an unreachable store: $(cat "$work/dead.log") after $((SECONDS - started)) s" >&2
    exit 1
fi
echo "  ok   an unreachable store at start: named, exit non-zero within 10 s"

replica_args=()
servers=""
for name in r1 r2 r3; do
    port=$(free_port)
    "$bin" serve everything --http "127.0.0.1:$port" --store "$store" 2>"$work/$name.log" &
    pid=$!
    pids+=("$pid")
    wait_port "$port"
    replica_args+=(--replica "$name=$port:$pid")
    servers+="    server $name 127.0.0.1:$port"$'\n'
done

balancer=$(free_port)
cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 256
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 2
    option redispatch
frontend mcp
    bind 127.0.0.1:$balancer
    default_backend replicas
backend replicas
    balance roundrobin
    http-response set-header X-Replica %[srv_name]
$servers
CFG
haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=($!)
wait_port "$balancer"

if ! python3 tests/deploy/check.py --balancer "$balancer" "${replica_args[@]}" \
    --redis-port "$redis_port" --redis-pidfile "$work/redis.pid"; then
    for log in "$work"/r*.log "$work/haproxy.log"; do
        echo "--- $log"
        tail -n 20 "$log"
    done
    exit 1
fi
