//! The `mcp` command; see the `mcp_cli` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    mcp_cli::main()
}
