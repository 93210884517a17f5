//! The foreign faces of libmcp over [`mcp_core`]: a C ABI (module [`c`],
//! built into `libmcp.so` and `libmcp.a`, declared in
//! `bindings/c/include/mcp.h`) and, later, a Python module beside it.
//!
//! These faces add no protocol logic: they convert between C and Rust
//! (strings, JSON text, callbacks, result codes) and own the Tokio runtimes
//! that `mcp-core` runs on.

#[allow(
    unsafe_code,
    reason = "the C ABI reads pointers that C passes in and calls C function pointers; each unsafe block says why it is sound"
)]
pub mod c;

#[cfg(any(test, feature = "python"))]
mod exception_classes;
#[cfg(feature = "python")]
mod python;

#[cfg(test)]
mod error_kind_table;
