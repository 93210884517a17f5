"""Scores the extension scenarios the conformance runner ran by name.

usage: extensions.py RESULTS_DIR BASELINE

RESULTS_DIR holds `server/` and `client/` (the suite's `-o` output of each
scenario run) and `rc/<leg>/<scenario>` (the suite's exit status). A
scenario passes when its run exited 0, no check failed or warned, and some
check other than `wire-schema-valid` succeeded. Compares with BASELINE (see
expected-failures-extensions.yml) and exits 1 on a new failure, a stale
baseline entry, or a suite skip that the suite now scores.
"""

import json
import pathlib
import re
import sys


def read_baseline(path: pathlib.Path) -> dict[str, set[str]]:
    lists: dict[str, set[str]] = {}
    key = None
    for line in path.read_text().splitlines():
        text = line.split("#")[0].rstrip()
        if not text:
            continue
        if not text.startswith(" "):
            key = text.rstrip(":").strip()
            lists[key] = set()
        elif text.strip().startswith("- ") and key is not None:
            lists[key].add(text.strip()[2:].strip())
    return lists


def checks_of(leg_dir: pathlib.Path, leg: str, scenario: str) -> list[dict]:
    # server: <dir>/server-<scenario>-<ts>/; client: <dir>/<scenario>-<ts>/
    # (auth/x one folder deeper).
    prefix = f"server-{scenario}" if leg == "server" else scenario
    found = []
    for checks in leg_dir.glob("**/checks.json"):
        rel = checks.parent.relative_to(leg_dir).as_posix()
        if re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", rel) == prefix:
            found.extend(json.loads(checks.read_text()))
    return found


def main() -> int:
    out, baseline_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    baseline = read_baseline(baseline_path)
    skips = baseline.get("suite-skips", set())
    problems, lines = [], []
    for leg in ("server", "client"):
        expected = baseline.get(leg, set())
        for rc_file in sorted((out / "rc" / leg).glob("**/*")):
            if not rc_file.is_file():
                continue
            scenario = rc_file.relative_to(out / "rc" / leg).as_posix()
            rc = int(rc_file.read_text().strip() or "1")
            checks = checks_of(out / leg, leg, scenario)
            statuses = [c.get("status") for c in checks]
            if scenario in skips:
                if checks and all(s == "SKIPPED" for s in statuses):
                    lines.append(f"{leg} {scenario}: skipped by the suite")
                    continue
                problems.append(f"{leg} {scenario}: the suite now scores it; remove it from suite-skips")
                continue
            scored = [c for c in checks if c.get("id") != "wire-schema-valid"]
            passed = (
                rc == 0
                and not any(s in ("FAILURE", "WARNING") for s in statuses)
                and any(c.get("status") == "SUCCESS" for c in scored)
            )
            lines.append(f"{leg} {scenario}: {'pass' if passed else 'FAIL'}"
                         f"{' (expected)' if not passed and scenario in expected else ''}")
            if passed and scenario in expected:
                problems.append(f"{leg} {scenario}: passes now; remove it from {baseline_path.name}")
            elif not passed and scenario not in expected:
                failing = [c.get("id") for c in checks if c.get("status") in ("FAILURE", "WARNING")]
                why = f"failing checks {failing}" if failing else f"exit {rc}, no scored check succeeded"
                problems.append(f"{leg} {scenario}: fails ({why})")
        for scenario in sorted(expected):
            if not (out / "rc" / leg / scenario).is_file():
                problems.append(f"{leg} {scenario}: listed but not run")
    passes = sum(1 for l in lines if l.endswith(": pass"))
    print(f"extensions: {passes} of {len(lines)} scenarios pass")
    if problems:
        print("\n".join(lines))
        print("conformance extensions:", "; ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
