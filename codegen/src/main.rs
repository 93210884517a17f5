//! `cargo run -p codegen` regenerates `mcp-core`'s protocol types;
//! `cargo run -p codegen -- --check` fails when the checked-in file is stale.

#![allow(clippy::print_stderr, reason = "a command-line tool reports on stderr")]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    match run(&root, check) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!(
                "codegen: generated code is stale: run `cargo run -p codegen` and commit the result"
            );
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("codegen: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Generates every file; returns whether the files on disk are (now)
/// current.
fn run(root: &Path, check: bool) -> Result<bool, String> {
    let mut current = true;
    for (output, code) in codegen::generate_workspace(root)? {
        current &= write_if_changed(root, &output, &code, check)?;
    }
    Ok(current)
}

/// Compares one generated file with the one on disk and (unless checking)
/// rewrites it; returns whether it is (now) current.
fn write_if_changed(
    root: &Path,
    output: &str,
    generated: &str,
    check: bool,
) -> Result<bool, String> {
    let output_path: PathBuf = root.join(output);
    let current = std::fs::read_to_string(&output_path).unwrap_or_default();
    if current == generated {
        return Ok(true);
    }
    if check {
        eprintln!("codegen: {output} differs from what the schemas generate");
        return Ok(false);
    }
    std::fs::write(&output_path, generated)
        .map_err(|e| format!("cannot write {}: {e}", output_path.display()))?;
    eprintln!("codegen: wrote {output}");
    Ok(true)
}
