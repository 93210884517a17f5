//! `cargo run -p codegen` regenerates `mcp-core`'s protocol types;
//! `cargo run -p codegen -- --check` fails when the checked-in file is stale.

#![allow(clippy::print_stderr, reason = "a command-line tool reports on stderr")]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `(schema, output)` pairs, relative to the workspace root.
const TARGETS: &[(&str, &str)] = &[(
    "schema/2025-11-25/schema.json",
    "mcp-core/src/schema/generated.rs",
)];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = match args.as_slice() {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => {
            eprintln!("usage: cargo run -p codegen [-- --check]");
            return ExitCode::from(2);
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut stale = false;
    for (schema, output) in TARGETS {
        match run(&root, schema, output, check) {
            Ok(true) => {}
            Ok(false) => stale = true,
            Err(message) => {
                eprintln!("codegen: {message}");
                return ExitCode::FAILURE;
            }
        }
    }
    if stale {
        eprintln!(
            "codegen: generated code is stale: run `cargo run -p codegen` and commit the result"
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Generates one target; returns whether the file on disk is (now) current.
fn run(root: &Path, schema: &str, output: &str, check: bool) -> Result<bool, String> {
    let schema_path: PathBuf = root.join(schema);
    let output_path: PathBuf = root.join(output);
    let text = std::fs::read_to_string(&schema_path)
        .map_err(|e| format!("cannot read {}: {e}", schema_path.display()))?;
    let generated = codegen::generate(&text, schema).map_err(|e| format!("{schema}: {e}"))?;
    let current = std::fs::read_to_string(&output_path).unwrap_or_default();
    if current == generated {
        return Ok(true);
    }
    if check {
        eprintln!("codegen: {output} differs from what {schema} generates");
        return Ok(false);
    }
    std::fs::write(&output_path, generated)
        .map_err(|e| format!("cannot write {}: {e}", output_path.display()))?;
    eprintln!("codegen: wrote {output}");
    Ok(true)
}
