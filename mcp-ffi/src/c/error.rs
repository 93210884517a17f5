//! Result codes, the per-thread last error and its accessors.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{CString, c_char};

use mcp_core::Error;
use mcp_core::jsonrpc::RpcError;

use super::ffi::{boundary_or, c_string_lossy};

/// What every fallible function returns: `MCP_OK` (0) or one of the
/// `MCP_ERR_*` codes. The values are stable; new codes may be added.
/// `mcp_last_error_message()` describes the failure.
pub type McpResult = u32;

/// Success.
pub const MCP_OK: McpResult = 0;
/// A pointer argument that must not be NULL was NULL.
pub const MCP_ERR_NULL_ARGUMENT: McpResult = 1;
/// An argument is not valid: not UTF-8, an unknown name, a bad address, a
/// tool name or URI template that does not parse, and so on.
pub const MCP_ERR_INVALID_ARGUMENT: McpResult = 2;
/// A JSON text argument does not parse, or does not have the expected shape.
pub const MCP_ERR_INVALID_JSON: McpResult = 3;
/// The handle is not in a state that allows the call (e.g. a request before
/// `mcp_client_connect_*`, or configuring a client that is connected).
pub const MCP_ERR_INVALID_STATE: McpResult = 4;
/// The peer answered with a JSON-RPC error; see `mcp_last_error_rpc_code()`
/// and `mcp_last_error_rpc_data()`.
pub const MCP_ERR_RPC: McpResult = 5;
/// No answer came in time; the request was cancelled.
pub const MCP_ERR_TIMEOUT: McpResult = 6;
/// The request was cancelled.
pub const MCP_ERR_CANCELLED: McpResult = 7;
/// The connection is closed: the peer went away (e.g. the server process
/// died), the session was closed, or the handle is shutting down.
pub const MCP_ERR_CLOSED: McpResult = 8;
/// A transport failed: a process could not be started, a connection could
/// not be made, an address could not be bound.
pub const MCP_ERR_TRANSPORT: McpResult = 9;
/// The peer did not declare the capability this call needs (e.g. calling a
/// tool on a server without tools).
pub const MCP_ERR_CAPABILITY: McpResult = 10;
/// The peer broke the protocol: a result that does not decode, an
/// unsupported protocol version, structured content that does not match the
/// tool's output schema.
pub const MCP_ERR_PROTOCOL: McpResult = 11;
/// A callback reported failure. Callbacks return this (or any code other than
/// `MCP_OK`) to fail the request they answer.
pub const MCP_ERR_CALLBACK: McpResult = 12;
/// The library panicked. This is a bug in libmcp; the call had no effect
/// beyond what it did before the panic, and the process can go on.
pub const MCP_ERR_PANIC: McpResult = 13;
/// Any other failure inside the library (e.g. the runtime could not start).
pub const MCP_ERR_INTERNAL: McpResult = 14;

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
        let error = match error {
            Error::Rpc(rpc) => return rpc.into(),
            other => other,
        };
        let code = match &error {
            Error::Timeout { .. } => MCP_ERR_TIMEOUT,
            Error::Cancelled(_) => MCP_ERR_CANCELLED,
            Error::ConnectionClosed(_) => MCP_ERR_CLOSED,
            Error::CapabilityNotSupported { .. } => MCP_ERR_CAPABILITY,
            Error::ProtocolVersion(_) | Error::Json(_) | Error::Protocol(_) => MCP_ERR_PROTOCOL,
            Error::Lifecycle(_) => MCP_ERR_INVALID_STATE,
            Error::Transport(_) => MCP_ERR_TRANSPORT,
            Error::InvalidArgument(_) => MCP_ERR_INVALID_ARGUMENT,
            _ => MCP_ERR_INTERNAL,
        };
        Self::new(code, error.to_string())
    }
}

/// The last failure of one thread, kept as C strings so that pointers to
/// them can be handed out.
struct LastError {
    code: McpResult,
    message: CString,
    rpc_code: Option<i64>,
    rpc_data: Option<CString>,
}

thread_local! {
    static LAST_ERROR: RefCell<LastError> = RefCell::new(LastError {
        code: MCP_OK,
        message: CString::default(),
        rpc_code: None,
        rpc_data: None,
    });
}

/// The message of the most recent call on the calling thread that failed
/// (an empty string if none has). Never NULL.
///
/// Successful calls do not clear it. The pointer belongs to the library and
/// stays valid until another call on this thread fails; copy the text to
/// keep it longer.
#[unsafe(no_mangle)]
pub extern "C" fn mcp_last_error_message() -> *const c_char {
    boundary_or(c"".as_ptr(), || {
        LAST_ERROR
            .try_with(|slot| slot.borrow().message.as_ptr())
            .unwrap_or(c"".as_ptr())
    })
}

/// The result code of the most recent call on the calling thread that
/// failed, or `MCP_OK` if none has.
#[unsafe(no_mangle)]
pub extern "C" fn mcp_last_error_code() -> McpResult {
    boundary_or(MCP_ERR_PANIC, || {
        LAST_ERROR
            .try_with(|slot| slot.borrow().code)
            .unwrap_or(MCP_OK)
    })
}

/// When the most recent failure on the calling thread was `MCP_ERR_RPC`,
/// writes the JSON-RPC error code (e.g. -32602) to `*code` and returns true;
/// otherwise returns false and leaves `*code` alone. `code` may be NULL to
/// only ask whether there is one.
///
/// # Safety
/// `code` is NULL or points to writable memory for one `int64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_last_error_rpc_code(code: *mut i64) -> bool {
    boundary_or(false, || {
        let Ok(Some(value)) = LAST_ERROR.try_with(|slot| slot.borrow().rpc_code) else {
            return false;
        };
        if !code.is_null() {
            // SAFETY: the caller passes NULL (checked above) or a valid,
            // writable `int64_t`.
            unsafe { code.write(value) };
        }
        true
    })
}

/// The `data` member of the JSON-RPC error of the most recent failure on the
/// calling thread, as JSON text, or NULL when that failure was not
/// `MCP_ERR_RPC` or the error had no data. Valid as long as
/// `mcp_last_error_message()`'s pointer.
#[unsafe(no_mangle)]
pub extern "C" fn mcp_last_error_rpc_data() -> *const c_char {
    boundary_or(std::ptr::null(), || {
        LAST_ERROR
            .try_with(|slot| {
                slot.borrow()
                    .rpc_data
                    .as_ref()
                    .map_or(std::ptr::null(), |d| d.as_ptr())
            })
            .unwrap_or(std::ptr::null())
    })
}

/// The name of a result code, such as `"MCP_ERR_TIMEOUT"` (a static string;
/// `"MCP_ERR_UNKNOWN"` for a value that is not a code).
#[unsafe(no_mangle)]
pub extern "C" fn mcp_result_name(result: McpResult) -> *const c_char {
    let name = match result {
        MCP_OK => c"MCP_OK",
        MCP_ERR_NULL_ARGUMENT => c"MCP_ERR_NULL_ARGUMENT",
        MCP_ERR_INVALID_ARGUMENT => c"MCP_ERR_INVALID_ARGUMENT",
        MCP_ERR_INVALID_JSON => c"MCP_ERR_INVALID_JSON",
        MCP_ERR_INVALID_STATE => c"MCP_ERR_INVALID_STATE",
        MCP_ERR_RPC => c"MCP_ERR_RPC",
        MCP_ERR_TIMEOUT => c"MCP_ERR_TIMEOUT",
        MCP_ERR_CANCELLED => c"MCP_ERR_CANCELLED",
        MCP_ERR_CLOSED => c"MCP_ERR_CLOSED",
        MCP_ERR_TRANSPORT => c"MCP_ERR_TRANSPORT",
        MCP_ERR_CAPABILITY => c"MCP_ERR_CAPABILITY",
        MCP_ERR_PROTOCOL => c"MCP_ERR_PROTOCOL",
        MCP_ERR_CALLBACK => c"MCP_ERR_CALLBACK",
        MCP_ERR_PANIC => c"MCP_ERR_PANIC",
        MCP_ERR_INTERNAL => c"MCP_ERR_INTERNAL",
        _ => c"MCP_ERR_UNKNOWN",
    };
    name.as_ptr()
}
