//! C strings made from Rust text.

use std::ffi::CString;

/// A C string for passing to a callback; interior NULs (impossible in JSON
/// text, possible in a child's stderr) become U+FFFD.
pub(crate) fn c_string_lossy(text: &str) -> CString {
    CString::new(text).unwrap_or_else(|_| {
        let cleaned = text.replace('\0', "\u{fffd}");
        CString::new(cleaned).unwrap_or_default()
    })
}
