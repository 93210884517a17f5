//! Strings that cross the boundary: made by the library (or by C for the
//! library to take), freed with `mcp_string_free`.

use std::ffi::c_char;
use std::ptr;

use super::error::McpResult;
use super::ffi::{alloc_string, arg, boundary, boundary_or, free_string, to_json};

/// Copies `text` into a new string owned by the caller, to be freed with
/// `mcp_string_free`. This is how a callback hands its result to the library
/// (`*result_json = mcp_string_new(json)`). Returns NULL if `text` is NULL or
/// memory runs out.
///
/// Strings made by the library, and those given to it, are `malloc`
/// allocations: `mcp_string_free` is `free`, and a callback may equally hand
/// over a string from `strdup` or `malloc`.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_string_new(text: *const c_char) -> *mut c_char {
    boundary_or(ptr::null_mut(), || {
        if text.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: not NULL, and the caller guarantees a NUL-terminated string.
        let bytes = unsafe { std::ffi::CStr::from_ptr(text) }.to_bytes();
        // The text is copied as bytes: C may hand over any encoding here, and
        // whoever reads it later checks UTF-8.
        let text = String::from_utf8_lossy(bytes);
        alloc_string(&text).unwrap_or(ptr::null_mut())
    })
}

/// Frees a string returned by the library (or made with `mcp_string_new`).
/// NULL is a no-op.
///
/// # Safety
/// `text` is NULL or such a string that has not been freed yet, and is not
/// used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_string_free(text: *mut c_char) {
    boundary_or((), || {
        // SAFETY: forwarded from the caller.
        unsafe { free_string(text) }
    });
}

/// Writes `text` as a JSON string literal, quoted and escaped (`a"b` becomes
/// `"a\"b"`), to `*json_out`, to be freed with `mcp_string_free`. Handy for
/// building JSON text in C.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string; `json_out` is NULL or points to
/// writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_quote(
    text: *const c_char,
    json_out: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string json_out);
        let text = arg!(str text);
        out.set(&to_json(text)?)
    })
}

/// The library's version, such as `"0.1.0"` (a static string).
#[unsafe(no_mangle)]
pub extern "C" fn mcp_version() -> *const c_char {
    const VERSION: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(
        concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
    ) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };
    VERSION.as_ptr()
}
