//! The C ABI. cbindgen turns the items of these modules into
//! `bindings/c/include/mcp.h`; the overview at the top of the header (runtime
//! ownership, threads, strings, errors) is in `mcp-ffi/cbindgen.toml`.
//!
//! Conventions, the same for every function:
//! - handles are opaque (`mcp_client`, `mcp_server`, `mcp_context`), made by
//!   `mcp_<object>_new` and released by `mcp_<object>_free` (NULL is a no-op);
//! - every fallible function returns an [`error::McpResult`]; other outputs go
//!   through out-parameters, which are set to NULL first and written only on
//!   success (no partial successes);
//! - every exported function runs behind a panic boundary (`ffi::boundary`);
//! - JSON crosses as UTF-8 text; strings the library returns are freed with
//!   `mcp_string_free`, strings the caller passes are copied.

mod callback;
pub mod cancel;
pub mod cleanup;
pub mod client;
pub mod context;
mod cstring;
pub mod error;
mod ffi;
pub mod group;
pub mod http_options;
pub mod last_error;
mod runtime;
pub mod server;
pub mod string;
pub mod trace;
