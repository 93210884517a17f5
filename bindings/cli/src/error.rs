//! What can go wrong, and the exit status for each.

use std::fmt;
use std::process::ExitCode;

use mcp_core::ErrorKind;

/// A failure of the `mcp` command.
#[derive(Debug)]
pub enum CliError {
    /// The command line is wrong (exit status 2).
    Usage(String),
    /// No session with the server: it could not be started, reached or
    /// initialized (exit status 3).
    Connect(String),
    /// The request failed (exit status 1).
    Failed(String),
    /// The failure was already printed, e.g. a tool result with `isError`
    /// (exit status 1).
    Reported,
}

impl CliError {
    /// The process exit status for this failure.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.status())
    }

    /// The exit status as a number.
    pub fn status(&self) -> u8 {
        match self {
            Self::Failed(_) | Self::Reported => 1,
            Self::Usage(_) => 2,
            Self::Connect(_) => 3,
        }
    }

    /// A failed request, from the library's error: the exit status is its
    /// kind's ([`exit_status`]).
    pub fn request(error: mcp_core::Error) -> Self {
        let message = describe(&error);
        match exit_status(error.kind()) {
            2 => Self::Usage(message),
            3 => Self::Connect(message),
            _ => Self::Failed(message),
        }
    }

    /// A failed connection, from the library's error: no session, so exit
    /// status 3, unless an argument was bad (2).
    pub fn connect(error: mcp_core::Error) -> Self {
        let message = format!(
            "could not start a session with the server: {}",
            describe(&error)
        );
        match exit_status(error.kind()) {
            2 => Self::Usage(message),
            _ => Self::Connect(message),
        }
    }
}

/// The exit status of a request that failed with an error of `kind`: the
/// `mcp` column of the table on [`ErrorKind`], and the only place it is
/// chosen. 2 is a bad command line, 3 no session (the server could not be
/// reached or would not let us in), 1 any other failure.
pub fn exit_status(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::InvalidArgument => 2,
        ErrorKind::Transport | ErrorKind::Auth => 3,
        _ => 1,
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(m) | Self::Connect(m) | Self::Failed(m) => f.write_str(m),
            Self::Reported => f.write_str("failed (see above)"),
        }
    }
}

impl std::error::Error for CliError {}

/// The library's error in words; a JSON-RPC error shows its code and data.
fn describe(error: &mcp_core::Error) -> String {
    match error {
        mcp_core::Error::Rpc(e) => {
            let mut text = format!("the server answered with error {}: {}", e.code, e.message);
            if let Some(data) = &e.data {
                text.push_str(&format!(" (data: {data})"));
            }
            text
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::jsonrpc::RpcError;

    #[test]
    fn rpc_errors_show_code_message_and_data() {
        let e = CliError::request(mcp_core::Error::Rpc(
            RpcError::invalid_params("unknown tool `x`").with_data(serde_json::json!({"k": 1})),
        ));
        assert_eq!(
            e.to_string(),
            "the server answered with error -32602: Invalid params: unknown tool `x` (data: {\"k\":1})"
        );
        assert_eq!(e.status(), 1);
        assert_eq!(CliError::Usage(String::new()).status(), 2);
        assert_eq!(CliError::Connect(String::new()).status(), 3);
    }
}
