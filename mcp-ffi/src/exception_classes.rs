//! The Python exception class of each kind of failure: the Python column of
//! the table on [`ErrorKind`], and the only place it is chosen. The classes
//! are defined in `libmcp.errors`; `libmcp.errors._from_core` builds one by
//! the name given here. No PyO3, so that the faces' table test runs without
//! the `python` feature.

use mcp_core::ErrorKind;

/// The name of the `libmcp.errors` class raised for `kind`.
pub(crate) fn exception_class(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidArgument => "InvalidArgument",
        ErrorKind::InvalidState => "InvalidState",
        ErrorKind::Timeout => "Timeout",
        ErrorKind::Cancelled => "Cancelled",
        ErrorKind::Closed => "ConnectionClosed",
        ErrorKind::Transport => "TransportError",
        ErrorKind::Capability => "CapabilityNotSupported",
        ErrorKind::Protocol => "ProtocolError",
        ErrorKind::Auth => "AuthError",
        ErrorKind::RpcInvalidParams => "InvalidParams",
        ErrorKind::RpcMethodNotFound => "MethodNotFound",
        ErrorKind::RpcResourceNotFound => "ResourceNotFound",
        ErrorKind::RpcInternalError => "InternalError",
        // Any other JSON-RPC error, and a kind newer than this face.
        _ => "McpError",
    }
}
