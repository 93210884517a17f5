#!/usr/bin/env python3
"""What can be checked mechanically in the READMEs (README.md and the faces'):

- every `mcp …` command in a ```sh block parses: it is run with its server
  swapped for one that cannot answer (a missing program, a closed port, a
  config file naming a missing program, a Redis URL on a closed port), so it
  fails fast, and it must not fail with exit status 2 (bad command line);
  `mcp serve … --http` runs on 127.0.0.1:0 and is stopped after a moment;
- every `cargo … -p PACKAGE` in a ```sh block names a workspace package, and
  its `--example NAME` / `--bin NAME` exist;
- every script a ```sh block runs (`bash X.sh`, `X/run.sh`) exists;
- every path in backquotes that starts with a top-level directory of the
  repository exists (build outputs under target/ and fuzz/ aside).

Usage: check-readmes.py MCP_BINARY. Prints `readmes: N passed, M failed`.
"""

import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READMES = ["README.md", "bindings/c/README.md", "bindings/python/README.md"]
# Created by running things, not kept in the repository.
BUILD_OUTPUTS = ("target/", "fuzz/corpus", "fuzz/artifacts", "fuzz/target", "fuzz/coverage")
MISSING_SERVER = "/nonexistent/mcp-readme-check-server"
CLOSED_URL = "http://127.0.0.1:1/mcp"
CLOSED_STORE = "redis://127.0.0.1:1/0"
# A command that serves (and so does not end by itself) is stopped after this.
SERVE_SECONDS = 2
# Any other command fails fast against the servers above; this bounds it.
CLIENT_SECONDS = 20

failures = []
passed = 0


def check(ok, what):
    global passed
    if ok:
        passed += 1
    else:
        failures.append(what)


def sh_blocks(text):
    """The lines of the ```sh blocks, comments and continuations joined."""
    lines, inside, pending = [], False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            inside = line.strip() in ("```sh", "```bash")
            continue
        if not inside:
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return lines


def commands(line):
    """The simple commands of a shell line, as word lists (None if unparsable)."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = list(lexer)
    except ValueError:
        return None
    out, current = [], []
    for word in words:
        if word in (";", "&&", "||", "|", "&"):
            if current:
                out.append(current)
            current = []
        else:
            current.append(word)
    if current:
        out.append(current)
    return out


def workspace_packages():
    """Package name -> its directory, from the members of the root Cargo.toml."""
    root = (ROOT / "Cargo.toml").read_text()
    members = re.search(r"^members = \[(.*?)\]", root, re.M | re.S).group(1)
    packages = {}
    for member in re.findall(r'"([^"]+)"', members):
        manifest = (ROOT / member / "Cargo.toml").read_text()
        name = re.search(r'^name = "([^"]+)"', manifest, re.M).group(1)
        packages[name] = ROOT / member
    return packages


def check_cargo(words, where):
    packages = workspace_packages()
    package = None
    for flag, value in zip(words, words[1:]):
        if flag in ("-p", "--package"):
            package = value
            check(value in packages, f"{where}: `-p {value}` is no workspace package")
    if package not in packages:
        return
    directory = packages[package]
    manifest = (directory / "Cargo.toml").read_text()
    for flag, value in zip(words, words[1:]):
        if flag == "--example":
            check(
                (directory / "examples" / f"{value}.rs").exists(),
                f"{where}: no example {value} in {package}",
            )
        if flag == "--bin":
            check(f'name = "{value}"' in manifest, f"{where}: no binary {value} in {package}")


def rewritten(words, config):
    """The mcp command line with its server swapped for one that cannot answer."""
    out, serving = [], False
    args = iter(words[1:])
    for word in args:
        if word == "--":
            out += ["--", MISSING_SERVER]
            break
        out.append(word)
        if word in ("--url", "--config", "--http", "--store"):
            value = next(args, "")
            out.append(
                {"--url": CLOSED_URL, "--config": config, "--http": "127.0.0.1:0", "--store": CLOSED_STORE}[word]
            )
            if word == "--http":
                serving = True
    return out, serving


def check_mcp(binary, words, where, config):
    args, serving = rewritten(words, config)
    shown = shlex.join(["mcp"] + words[1:])
    try:
        done = subprocess.run(
            [binary] + args,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SERVE_SECONDS if serving else CLIENT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        # subprocess.run kills the child it started when the time is up.
        check(serving, f"{where}: `{shown}` did not end within {CLIENT_SECONDS} s")
        return
    check(
        done.returncode != 2,
        f"{where}: `{shown}` is a bad command line (exit status 2): {done.stderr.strip()}",
    )


def check_paths(text, where, base):
    top = {p.name for p in ROOT.iterdir() if not p.name.startswith(".")}
    for path in set(re.findall(r"`([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]*)`", text)):
        if path.split("/")[0] not in top or path.startswith(BUILD_OUTPUTS):
            continue
        check((ROOT / path).exists() or (base / path).exists(), f"{where}: `{path}` does not exist")


def main():
    if len(sys.argv) != 2:
        print("usage: check-readmes.py MCP_BINARY", file=sys.stderr)
        return 2
    binary = str(Path(sys.argv[1]).resolve())
    with tempfile.TemporaryDirectory() as work:
        config = str(Path(work) / "mcp.json")
        # The server names the READMEs use with --server.
        Path(config).write_text(json.dumps({"mcpServers": {"files": {"command": MISSING_SERVER}}}))
        for readme in READMES:
            text = (ROOT / readme).read_text()
            check_paths(text, readme, (ROOT / readme).parent)
            for line in sh_blocks(text):
                parsed = commands(line)
                check(parsed is not None, f"{readme}: cannot split `{line}`")
                for words in parsed or []:
                    program = words[0]
                    where = f"{readme}: `{line.strip()}`"
                    if program == "mcp" or program.endswith("/mcp"):
                        check_mcp(binary, words, readme, config)
                    elif program == "cargo":
                        check_cargo(words, where)
                    if program == "bash" and len(words) > 1:
                        program = words[1]
                    if program.endswith(".sh"):
                        check((ROOT / program).exists(), f"{where}: no script {program}")
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"readmes: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
