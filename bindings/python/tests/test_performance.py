"""libmcp against the official SDK: the same sequential tools/call round
trips over stdio, client and server from the same library."""

from __future__ import annotations

import subprocess
import sys
import time

import libmcp
from conftest import LIBMCP_SERVER, OFFICIAL_SERVER, PYTHON, child_env, run

CALLS = 300
#: How much faster libmcp must be (measured: about 4-6x on a 2-core machine).
MIN_SPEEDUP = 2.0


def official_seconds() -> float:
    out = subprocess.run(
        [PYTHON, str(HERE_BENCH), str(CALLS), PYTHON, str(OFFICIAL_SERVER), "stdio"],
        capture_output=True,
        text=True,
        timeout=300,
        env=child_env(),
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def libmcp_seconds() -> float:
    async def go() -> float:
        async with libmcp.Client.stdio([PYTHON, str(LIBMCP_SERVER), "stdio"]) as client:
            await client.call_tool("add", {"a": 0, "b": 0})
            started = time.perf_counter()
            for i in range(CALLS):
                assert (await client.call_tool("add", {"a": i, "b": 1})).data == i + 1
            return time.perf_counter() - started

    return run(go(), timeout=300)


HERE_BENCH = OFFICIAL_SERVER.parent / "bench_client.py"


def test_libmcp_is_much_faster_than_the_official_sdk() -> None:
    # Best of two, to be fair to both on a busy machine.
    ours = min(libmcp_seconds() for _ in range(2))
    theirs = min(official_seconds() for _ in range(2))
    print(
        f"\n{CALLS} sequential calls over stdio: libmcp {ours * 1000:.0f} ms "
        f"({ours / CALLS * 1e6:.0f} µs/call), official SDK {theirs * 1000:.0f} ms "
        f"({theirs / CALLS * 1e6:.0f} µs/call): {theirs / ours:.1f}x",
        file=sys.stderr,
    )
    assert theirs / ours >= MIN_SPEEDUP, (ours, theirs)
