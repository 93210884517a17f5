//! `python -m libmcp`: the `mcp` command's own code (`mcp_cli`), run in
//! this process, so that its verbs, output and exit statuses are `mcp`'s.

use pyo3::prelude::*;

/// Runs the `mcp` command with `args` (without the program name) and
/// returns its exit status. It prints to the process's stdout and stderr
/// and holds no GIL while it runs.
#[pyfunction]
pub(crate) fn run_cli(py: Python<'_>, args: Vec<String>) -> u8 {
    py.detach(|| mcp_cli::run_with_args("python -m libmcp", args))
}
