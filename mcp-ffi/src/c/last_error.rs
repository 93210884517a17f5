//! The per-thread last error, read from C: its message, code and JSON-RPC
//! details, and the names of result codes.

use std::ffi::c_char;

use super::error::{CallbackResult, LAST_ERROR, MCP_ERR_PANIC, MCP_OK, McpResult};
use super::ffi::boundary_or;

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
pub extern "C" fn mcp_result_name(result: CallbackResult) -> *const c_char {
    boundary_or(c"MCP_ERR_UNKNOWN".as_ptr(), || {
        McpResult::from_raw(result)
            .map_or(c"MCP_ERR_UNKNOWN", McpResult::c_name)
            .as_ptr()
    })
}
