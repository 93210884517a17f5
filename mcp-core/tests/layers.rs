//! The layers of mcp-core, enforced: no module of `src/` names a module of
//! a layer above it. Every `crate::…` path outside comments counts (a `use`
//! or a path in code), and so does a `super::…` path that climbs out of its
//! directory. The rules are the table [`RULES`]; ARCHITECTURE.md explains
//! them.

use std::fs;
use std::path::{Path, PathBuf};

/// Files under the first directory of `src/` (the layer) never name the
/// top-level modules that follow it.
#[rustfmt::skip] // one rule a line
const RULES: &[(&str, &str)] = &[
    // Byte pipes: know the wire and the protocol types, no role, no state.
    ("transport", "server client http tasks store session"),
    // Shared state defines what it keeps (event store, request-state key).
    ("store", "server client http tasks session transport"),
    // The wire and the protocol types are the bottom.
    ("jsonrpc", "server client http tasks store session transport"),
    ("schema", "server client http tasks store session transport jsonrpc"),
    // The engine serves either role and knows neither.
    ("session", "server client http tasks store"),
    // Tasks are shared by both roles.
    ("tasks", "server client http"),
    // The roles never name each other; the HTTP server is above them.
    ("server", "client http"),
    ("client", "server http"),
];

#[test]
fn no_module_names_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 50,
        "found only {} files under {}",
        files.len(),
        src.display()
    );

    let mut broken = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap_or(file);
        let text = fs::read_to_string(file).unwrap_or_default();
        broken.extend(violations(relative, &text));
    }
    assert!(
        broken.is_empty(),
        "imports against the layers:\n{}",
        broken.join("\n")
    );
}

/// The checker itself finds what it must (so that the test above can fail).
#[test]
fn the_checker_finds_upward_paths() {
    let transport = Path::new("transport/http/client/conn.rs");
    let found = |text: &str| violations(transport, text);
    assert_eq!(found("use crate::server::Server;\n").len(), 1);
    assert_eq!(
        found("use crate::{Error, store::Bus, schema::RequestId};\n").len(),
        1
    );
    assert_eq!(
        found("let key = crate::http::StreamKey { session, stream };\n").len(),
        1
    );
    assert_eq!(
        found("use super::super::super::super::client::Client;\n").len(),
        1
    );
    // Allowed: downward, inside its own layer, and in comments.
    assert!(found("use crate::schema::RequestId;\nuse super::sse::SseParser;\n").is_empty());
    assert!(found("/// See [`Server`](crate::server::Server).\n").is_empty());
    assert!(found("let x = 1; // crate::server is above\n").is_empty());
    // A file at the top of its layer climbs to the crate with one `super`.
    let store = Path::new("store/redis.rs");
    assert_eq!(
        violations(store, "use super::super::tasks::TaskConfig;\n").len(),
        1
    );
    assert!(violations(store, "use super::StoreError;\n").is_empty());
}

/// `file: line: module` for each forbidden module that `text` (the file at
/// `relative` under `src/`) names.
fn violations(relative: &Path, text: &str) -> Vec<String> {
    let module = module_path(relative);
    let Some(layer) = module.first() else {
        return Vec::new();
    };
    let Some((_, forbidden)) = RULES.iter().find(|(name, _)| name == layer) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for named in top_modules(code, &module) {
            if forbidden.split_whitespace().any(|module| module == named) {
                found.push(format!("{}:{}: {named}", relative.display(), number + 1));
            }
        }
    }
    found
}

/// The top-level modules that the `crate::` and `super::` paths of `code`
/// name, seen from module `module`.
fn top_modules(code: &str, module: &[String]) -> Vec<String> {
    let mut named = Vec::new();
    for (start, _) in code.match_indices("crate::") {
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        named.extend(first_segments(&code[start + "crate::".len()..]));
    }
    for (start, _) in code.match_indices("super::") {
        let before = &code[..start];
        let preceded = before.chars().next_back();
        if before.ends_with("::") || preceded.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut rest = &code[start..];
        let mut climbs = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = after;
        }
        // `module` is the file's module; `super` from it is its parent.
        // Otherwise still inside its own top-level module (or past the crate).
        if module.len() == climbs {
            named.extend(first_segments(rest));
        }
    }
    named
}

/// The first segment of a path (`server` of `server::Server`), or each
/// first segment of a group (`Error`, `store` of `{Error, store::Bus}`).
fn first_segments(path: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = path.trim_start().strip_prefix('{') else {
        return vec![ident(path)];
    };
    let mut segments = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && !c.is_whitespace() => {
                segments.push(ident(&group[i..]));
                item_start = false;
            }
            _ => {}
        }
    }
    segments
}

/// `transport/http/mod.rs` → `[transport, http]`; `store/redis.rs` →
/// `[store, redis]`; `lib.rs` → `[]`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}
