//! Result codes, failures on their way to C, and the per-thread last error
//! they are recorded as (read by `last_error.rs`).

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::sync::OnceLock;

use mcp_core::jsonrpc::RpcError;
use mcp_core::{Error, ErrorKind};

use super::cstring::c_string_lossy;

/// What every fallible function returns: `MCP_OK` (0) or one of the
/// `MCP_ERR_*` codes. The values are stable; new codes may be added, so
/// treat an unknown value as a failure. `mcp_last_error_message()` describes
/// the failure; `mcp_result_name()` names a code. Callbacks return one of
/// these too.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(
    non_camel_case_types,
    clippy::upper_case_acronyms,
    reason = "the variants are the C names, and their names are derived from them"
)]
pub enum McpResult {
    /// Success.
    MCP_OK = 0,
    /// A pointer argument that must not be NULL was NULL.
    MCP_ERR_NULL_ARGUMENT = 1,
    /// An argument is not valid: not UTF-8, an unknown name, a bad address, a
    /// tool name or URI template that does not parse, and so on.
    MCP_ERR_INVALID_ARGUMENT = 2,
    /// A JSON text argument does not parse, or does not have the expected
    /// shape.
    MCP_ERR_INVALID_JSON = 3,
    /// The handle is not in a state that allows the call (e.g. a request
    /// before `mcp_client_connect_*`, or configuring a client that is
    /// connected).
    MCP_ERR_INVALID_STATE = 4,
    /// The peer answered with a JSON-RPC error; see
    /// `mcp_last_error_rpc_code()` and `mcp_last_error_rpc_data()`.
    MCP_ERR_RPC = 5,
    /// No answer came in time; the request was cancelled.
    MCP_ERR_TIMEOUT = 6,
    /// The request was cancelled.
    MCP_ERR_CANCELLED = 7,
    /// The connection is closed: the peer went away (e.g. the server process
    /// died), the session was closed, or the handle is shutting down.
    MCP_ERR_CLOSED = 8,
    /// A transport failed: a process could not be started, a connection
    /// could not be made, an address could not be bound, a message was over
    /// the size limit.
    MCP_ERR_TRANSPORT = 9,
    /// The peer did not declare the capability this call needs (e.g. calling
    /// a tool on a server without tools).
    MCP_ERR_CAPABILITY = 10,
    /// The peer broke the protocol: a result that does not decode, an
    /// unsupported protocol version, structured content that does not match
    /// the tool's output schema.
    MCP_ERR_PROTOCOL = 11,
    /// A callback reported failure. Callbacks return this (or any code other
    /// than `MCP_OK`) to fail the request they answer.
    MCP_ERR_CALLBACK = 12,
    /// The library panicked. This is a bug in libmcp; the call had no effect
    /// beyond what it did before the panic, and the process can go on.
    MCP_ERR_PANIC = 13,
    /// Any other failure inside the library (e.g. the runtime could not
    /// start).
    MCP_ERR_INTERNAL = 14,
    /// Authorization failed: OAuth discovery, registration, the user's
    /// consent or the token endpoint, or the server refused every token.
    /// (Added in this version; auth failures were `MCP_ERR_INTERNAL` before.)
    MCP_ERR_AUTH = 15,
}

pub(crate) use McpResult::*;

/// What a C callback returns: an `mcp_result` as C wrote it, which may be
/// any number (so not the Rust enum until checked with
/// `McpResult::from_raw`). Declared in the header as `mcp_result`.
pub type CallbackResult = u32;

impl McpResult {
    /// Every code, in the order of its value (the test below checks the list
    /// against the enum's own source, so a new code cannot be left out).
    const ALL: [Self; 16] = [
        MCP_OK,
        MCP_ERR_NULL_ARGUMENT,
        MCP_ERR_INVALID_ARGUMENT,
        MCP_ERR_INVALID_JSON,
        MCP_ERR_INVALID_STATE,
        MCP_ERR_RPC,
        MCP_ERR_TIMEOUT,
        MCP_ERR_CANCELLED,
        MCP_ERR_CLOSED,
        MCP_ERR_TRANSPORT,
        MCP_ERR_CAPABILITY,
        MCP_ERR_PROTOCOL,
        MCP_ERR_CALLBACK,
        MCP_ERR_PANIC,
        MCP_ERR_INTERNAL,
        MCP_ERR_AUTH,
    ];

    /// The code a callback returned, if it is one.
    pub(crate) fn from_raw(raw: CallbackResult) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|code| *code as CallbackResult == raw)
    }

    /// The C name, such as `"MCP_ERR_TIMEOUT"` (the variant's own name).
    pub(crate) fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("MCP_ERR_UNKNOWN")
    }

    /// The C name as a static C string.
    pub(crate) fn c_name(self) -> &'static CStr {
        static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            Self::ALL
                .iter()
                .map(|code| c_string_lossy(&format!("{code:?}")))
                .collect()
        });
        Self::ALL
            .iter()
            .position(|code| *code == self)
            .and_then(|i| names.get(i))
            .map_or(c"MCP_ERR_UNKNOWN", CString::as_c_str)
    }
}

/// A failure on its way to C: the code, the message, and the JSON-RPC error
/// details when the peer answered with one.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: McpResult,
    pub(crate) message: String,
    pub(crate) rpc: Option<(i64, Option<String>)>,
}

impl Failure {
    pub(crate) fn new(code: McpResult, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            rpc: None,
        }
    }

    pub(crate) fn null(argument: &str) -> Self {
        Self::new(
            MCP_ERR_NULL_ARGUMENT,
            format!("`{argument}` must not be NULL"),
        )
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::new(MCP_ERR_INVALID_ARGUMENT, message)
    }

    pub(crate) fn state(message: impl Into<String>) -> Self {
        Self::new(MCP_ERR_INVALID_STATE, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(MCP_ERR_INTERNAL, message)
    }

    pub(crate) fn closed(message: impl Into<String>) -> Self {
        Self::new(MCP_ERR_CLOSED, message)
    }

    pub(crate) fn panic(payload: &(dyn Any + Send)) -> Self {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Self::new(
            MCP_ERR_PANIC,
            format!("libmcp panicked (a bug in libmcp): {detail}"),
        )
    }

    /// Stores this failure as the calling thread's last error and returns
    /// its code.
    pub(crate) fn record(self) -> McpResult {
        let code = self.code;
        let last = LastError {
            code,
            message: c_string_lossy(&self.message),
            rpc_code: self.rpc.as_ref().map(|(c, _)| *c),
            rpc_data: self
                .rpc
                .and_then(|(_, data)| data)
                .map(|d| c_string_lossy(&d)),
        };
        // During thread teardown the slot may be gone; the code still tells.
        let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = last);
        code
    }
}

impl From<RpcError> for Failure {
    fn from(error: RpcError) -> Self {
        let data = error.data.as_ref().map(|d| d.to_string());
        Self {
            code: MCP_ERR_RPC,
            message: format!("the peer answered with an error: {error}"),
            rpc: Some((error.code.0, data)),
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        match error {
            Error::Rpc(rpc) => rpc.into(),
            // A group member's failure keeps its source's code and JSON-RPC
            // details, and names the server.
            Error::Member { server, source } => {
                let inner = Self::from(*source);
                Self {
                    message: format!("server `{server}`: {}", inner.message),
                    ..inner
                }
            }
            other => Self::new(McpResult::of_kind(other.kind()), other.to_string()),
        }
    }
}

impl McpResult {
    /// The code of each kind of failure: the C column of the table on
    /// [`ErrorKind`], and the only place C codes are chosen for it.
    pub(crate) fn of_kind(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::InvalidArgument => MCP_ERR_INVALID_ARGUMENT,
            ErrorKind::InvalidState => MCP_ERR_INVALID_STATE,
            ErrorKind::Timeout => MCP_ERR_TIMEOUT,
            ErrorKind::Cancelled => MCP_ERR_CANCELLED,
            ErrorKind::Closed => MCP_ERR_CLOSED,
            ErrorKind::Transport => MCP_ERR_TRANSPORT,
            ErrorKind::Capability => MCP_ERR_CAPABILITY,
            ErrorKind::Protocol => MCP_ERR_PROTOCOL,
            ErrorKind::Auth => MCP_ERR_AUTH,
            rpc if rpc.is_rpc() => MCP_ERR_RPC,
            // A kind newer than this face.
            _ => MCP_ERR_INTERNAL,
        }
    }
}

/// The last failure of one thread, kept as C strings so that pointers to
/// them can be handed out.
pub(crate) struct LastError {
    pub(crate) code: McpResult,
    pub(crate) message: CString,
    pub(crate) rpc_code: Option<i64>,
    pub(crate) rpc_data: Option<CString>,
}

thread_local! {
    pub(crate) static LAST_ERROR: RefCell<LastError> = RefCell::new(LastError {
        code: MCP_OK,
        message: CString::default(),
        rpc_code: None,
        rpc_data: None,
    });
}

/// The lines of the body of the enum that `header` (`pub enum Name {`) opens
/// in `source`: tests compare what an enum declares with the lists kept of
/// its variants.
#[cfg(test)]
pub(crate) fn enum_body<'a>(source: &'a str, header: &str) -> std::str::Lines<'a> {
    let start = source.find(header).unwrap_or(0);
    let body = &source[start..];
    body[..body.find("\n}").unwrap_or(body.len())].lines()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `MCP_X = N,` lines of the `McpResult` enum, read from this file: the
    /// codes as declared, whatever `ALL` says.
    fn declared() -> Vec<(String, CallbackResult)> {
        enum_body(include_str!("error.rs"), "pub enum McpResult {")
            .filter_map(|line| {
                let (name, value) = line.trim().strip_suffix(',')?.split_once(" = ")?;
                Some((name.to_string(), value.parse().ok()?))
            })
            .collect()
    }

    #[test]
    fn every_declared_code_is_known_by_value_and_name() {
        let declared = declared();
        assert_eq!(declared.len(), McpResult::ALL.len(), "{declared:?}");
        for (name, value) in &declared {
            let code = McpResult::from_raw(*value);
            assert_eq!(code.map(McpResult::name), Some(name.as_str()));
            assert_eq!(
                code.map(|c| c.c_name().to_str().ok()),
                Some(Some(name.as_str()))
            );
        }
        let past = declared.iter().map(|(_, v)| v + 1).max().unwrap_or(0);
        assert_eq!(McpResult::from_raw(past), None);
    }
}
