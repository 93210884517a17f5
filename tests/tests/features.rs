//! Cargo features of mcp-core: a stdio-only build (`server,stdio,macros` — what
//! `examples/stdio_echo.rs` needs — or `client,stdio`) pulls in no HTTP
//! stack. Reads `cargo tree` (resolution only, nothing is built); the
//! feature combinations themselves are compiled by `tests/features.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::BTreeSet;
use std::path::PathBuf;

use mcp_tests::interop::{run_bounded, workspace_root};

/// Crates of the HTTP stack that a stdio-only build must not contain.
const HTTP_STACK: &[&str] = &[
    "axum",
    "hyper",
    "hyper-util",
    "reqwest",
    "rustls",
    "ring",
    "h2",
    "tower",
    "http",
    "url",
];

/// The names of the crates in mcp-core's normal dependency tree with
/// `features` (and the defaults unless `defaults`).
fn dependency_names(defaults: bool, features: &str) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from);
    let mut args = vec![
        "tree", "--locked", "-p", "mcp-core", "-e", "normal", "--prefix", "none", "--format", "{p}",
    ];
    if !defaults {
        args.push("--no-default-features");
    }
    if !features.is_empty() {
        args.extend(["--features", features]);
    }
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let (code, stdout, stderr) = run_bounded(&cargo, &args);
    assert_eq!(
        code,
        Some(0),
        "cargo tree failed in {}:\n{stderr}",
        workspace_root().display()
    );
    // Lines are `name vX.Y.Z (path)` with ` (*)` for repeats.
    let names: BTreeSet<String> = stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(names.contains("mcp-core"), "no mcp-core in:\n{stdout}");
    names
}

fn http_crates(names: &BTreeSet<String>) -> Vec<&str> {
    HTTP_STACK
        .iter()
        .copied()
        .filter(|c| names.contains(*c))
        .collect()
}

#[test]
fn stdio_server_has_no_http_stack() {
    let names = dependency_names(false, "server,stdio,macros");
    assert_eq!(http_crates(&names), Vec::<&str>::new(), "tree: {names:?}");
    // The server role is there (so the check looked at a real build).
    assert!(names.contains("jsonschema") && names.contains("schemars"));
}

#[test]
fn stdio_client_has_no_http_stack() {
    let names = dependency_names(false, "client,stdio");
    assert_eq!(http_crates(&names), Vec::<&str>::new(), "tree: {names:?}");
    assert!(names.contains("nix") && names.contains("jsonschema"));
}

#[test]
fn defaults_hold_the_http_stack() {
    // The control: the same check finds the stack where it belongs.
    let names = dependency_names(true, "");
    for needed in ["axum", "hyper", "reqwest", "rustls"] {
        assert!(
            names.contains(needed),
            "`{needed}` missing from the default tree"
        );
    }
}

#[test]
fn http_server_alone_has_no_http_client() {
    let names = dependency_names(false, "server,http-server,auth");
    assert!(names.contains("axum"));
    for absent in ["reqwest", "rustls", "ring"] {
        assert!(!names.contains(absent), "`{absent}` in a server-only tree");
    }
}
