//! Inputs that once broke (or nearly broke) mcp-core, found by the fuzz
//! targets in `fuzz/` or by the bad-input corpus, replayed through the same
//! entry points: `tests/fixtures/fuzz/<target>/<name>`, one file each, in
//! the fuzz target's input format. Each must be handled without a panic and
//! in bounded time.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_core::jsonrpc::{Inbound, decode};
use mcp_core::schema::{ClientRequest, ClientRequestMethod, JsonrpcMessage, ServerResult};
use mcp_core::uri_template::UriTemplate;

/// The inputs of one target, sorted.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .map(|p| {
            let data = std::fs::read(&p).unwrap();
            (p, data)
        })
        .collect()
}

/// Runs `f` and fails if it takes longer than `limit` (a debug build).
fn within<T>(what: &Path, limit: Duration, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    assert!(
        started.elapsed() < limit,
        "{}: took {:?}",
        what.display(),
        started.elapsed()
    );
    out
}

#[test]
fn uri_template_inputs() {
    let inputs = inputs("uri_template");
    assert!(!inputs.is_empty(), "the fixtures are there");
    for (path, data) in inputs {
        let text = String::from_utf8(data).unwrap();
        let (template, uri) = text.split_once('\n').unwrap_or((&text, ""));
        let Ok(template) = UriTemplate::parse(template) else {
            continue;
        };
        let found = within(&path, Duration::from_secs(5), || template.matches(uri));
        if let Some(values) = found {
            for name in values.keys() {
                assert!(
                    template.variables().any(|v| v == name),
                    "{}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn jsonrpc_decode_inputs() {
    let inputs = inputs("jsonrpc_decode");
    assert!(!inputs.is_empty(), "the fixtures are there");
    for (path, data) in inputs {
        let _ = serde_json::from_slice::<JsonrpcMessage>(&data);
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        within(&path, Duration::from_secs(5), || match decode(text) {
            Err(e) => assert!(matches!(e.error.code.0, -32700 | -32600), "{e:?}"),
            Ok(Inbound::Request(r)) => {
                if let Some(method) = ClientRequestMethod::from_name(&r.method) {
                    let _ = ClientRequest::from_parts(method, r.id, r.params);
                }
            }
            Ok(Inbound::Response(r)) => {
                // A result is checked for syntax only; what is not valid
                // Unicode fails when the caller decodes it, as an error.
                let Ok(raw) = r.outcome else { return };
                if let Ok(value) = serde_json::from_str::<serde_json::Value>(raw.get()) {
                    for method in ClientRequestMethod::ALL {
                        let _ = ServerResult::from_value(*method, value.clone());
                    }
                }
            }
            Ok(Inbound::Notification(_)) => {}
        });
    }
}
