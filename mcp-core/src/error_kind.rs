//! [`ErrorKind`]: the one classification of [`Error`] that every face (C,
//! Python, the `mcp` command) maps to its own result codes, exception
//! classes and exit statuses.

use crate::error::Error;
use crate::jsonrpc::{ErrorCode, RpcError};

/// What kind of failure an [`Error`] is, independent of any face. Each face
/// maps a kind, and only a kind, to what its users see:
///
/// | Kind | `Error` variants | C `mcp_result` | Python exception | `mcp` exit status |
/// |---|---|---|---|---|
/// | `InvalidArgument` | `InvalidArgument`, `Config` | `MCP_ERR_INVALID_ARGUMENT` | `InvalidArgument` | 2 |
/// | `InvalidState` | `Lifecycle` | `MCP_ERR_INVALID_STATE` | `InvalidState` | 1 |
/// | `Timeout` | `Timeout` | `MCP_ERR_TIMEOUT` | `Timeout` | 1 |
/// | `Cancelled` | `Cancelled` | `MCP_ERR_CANCELLED` | `Cancelled` | 1 |
/// | `Closed` | `ConnectionClosed` | `MCP_ERR_CLOSED` | `ConnectionClosed` | 1 |
/// | `Transport` | `Transport`, `Store` | `MCP_ERR_TRANSPORT` | `TransportError` | 3 |
/// | `Capability` | `CapabilityNotSupported` | `MCP_ERR_CAPABILITY` | `CapabilityNotSupported` | 1 |
/// | `Protocol` | `Protocol`, `ProtocolVersion`, `Json` | `MCP_ERR_PROTOCOL` | `ProtocolError` | 1 |
/// | `Auth` | `Auth` | `MCP_ERR_AUTH` | `AuthError` | 3 |
/// | `RpcInvalidParams` | `Rpc` with code -32602 | `MCP_ERR_RPC` | `InvalidParams` | 1 |
/// | `RpcMethodNotFound` | `Rpc` with code -32601 | `MCP_ERR_RPC` | `MethodNotFound` | 1 |
/// | `RpcResourceNotFound` | `Rpc` with code -32002 | `MCP_ERR_RPC` | `ResourceNotFound` | 1 |
/// | `RpcInternalError` | `Rpc` with code -32603 | `MCP_ERR_RPC` | `InternalError` | 1 |
/// | `Rpc` | `Rpc` with any other code | `MCP_ERR_RPC` | `McpError` | 1 |
///
/// `Member` (a group's server failed) is the kind of its source; `Skill` is
/// `Protocol` when a file read fails verification against its entry and
/// `InvalidArgument` when a skill given to the library breaks a rule. The `mcp`
/// command exits 3 for any failure while it starts the session (except 2
/// for `InvalidArgument`): there is then no session. The faces' table test
/// (`mcp-ffi/src/error_kind_table.rs`) checks every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An argument or a configuration given to the library is not valid.
    InvalidArgument,
    /// The session is not in a state that allows the call.
    InvalidState,
    /// No answer came in time.
    Timeout,
    /// The request was cancelled.
    Cancelled,
    /// The connection is closed.
    Closed,
    /// A transport or a shared store failed (spawning, connecting, I/O).
    Transport,
    /// The peer did not declare the capability the call needs.
    Capability,
    /// The peer broke the protocol, or no protocol revision was agreed.
    Protocol,
    /// Authorization failed.
    Auth,
    /// The peer answered with JSON-RPC error -32602 (invalid params).
    RpcInvalidParams,
    /// The peer answered with JSON-RPC error -32601 (method not found).
    RpcMethodNotFound,
    /// The peer answered with MCP error -32002 (resource not found).
    RpcResourceNotFound,
    /// The peer answered with JSON-RPC error -32603 (internal error).
    RpcInternalError,
    /// The peer answered with any other JSON-RPC error.
    Rpc,
}

impl ErrorKind {
    /// Every kind, in the order of the table above.
    pub const ALL: [Self; 14] = [
        Self::InvalidArgument,
        Self::InvalidState,
        Self::Timeout,
        Self::Cancelled,
        Self::Closed,
        Self::Transport,
        Self::Capability,
        Self::Protocol,
        Self::Auth,
        Self::RpcInvalidParams,
        Self::RpcMethodNotFound,
        Self::RpcResourceNotFound,
        Self::RpcInternalError,
        Self::Rpc,
    ];

    /// The kind of a JSON-RPC error answer, by its code.
    pub fn of_rpc(error: &RpcError) -> Self {
        match error.code {
            ErrorCode::INVALID_PARAMS => Self::RpcInvalidParams,
            ErrorCode::METHOD_NOT_FOUND => Self::RpcMethodNotFound,
            ErrorCode::RESOURCE_NOT_FOUND => Self::RpcResourceNotFound,
            ErrorCode::INTERNAL_ERROR => Self::RpcInternalError,
            _ => Self::Rpc,
        }
    }

    /// Whether the peer answered with a JSON-RPC error.
    pub fn is_rpc(self) -> bool {
        matches!(
            self,
            Self::RpcInvalidParams
                | Self::RpcMethodNotFound
                | Self::RpcResourceNotFound
                | Self::RpcInternalError
                | Self::Rpc
        )
    }
}

impl Error {
    /// What kind of failure this is (see [`ErrorKind`] for the table).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Rpc(rpc) => ErrorKind::of_rpc(rpc),
            Self::InvalidArgument(_) | Self::Config(_) => ErrorKind::InvalidArgument,
            Self::Lifecycle(_) => ErrorKind::InvalidState,
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::Cancelled(_) => ErrorKind::Cancelled,
            Self::ConnectionClosed(_) => ErrorKind::Closed,
            Self::Transport(_) | Self::Store { .. } => ErrorKind::Transport,
            Self::CapabilityNotSupported { .. } => ErrorKind::Capability,
            Self::ProtocolVersion(_) | Self::Json(_) | Self::Protocol(_) => ErrorKind::Protocol,
            Self::Auth(_) => ErrorKind::Auth,
            Self::Member { source, .. } => source.kind(),
            #[cfg(any(feature = "server", feature = "client"))]
            Self::Skill { problem, .. } => problem.kind(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_its_source_and_rpc_goes_by_code() {
        let member = Error::Member {
            server: "s".into(),
            source: Box::new(Error::Lifecycle("x".into())),
        };
        assert_eq!(member.kind(), ErrorKind::InvalidState);
        let rpc = |code| Error::Rpc(RpcError::new(ErrorCode(code), "m")).kind();
        assert_eq!(rpc(-32602), ErrorKind::RpcInvalidParams);
        assert_eq!(rpc(-32002), ErrorKind::RpcResourceNotFound);
        assert_eq!(rpc(-32000), ErrorKind::Rpc);
        assert_eq!(ErrorKind::ALL.iter().filter(|k| k.is_rpc()).count(), 5);
    }
}
