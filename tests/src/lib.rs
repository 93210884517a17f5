//! Support for libmcp's cross-crate and interop tests.

pub mod everything;
pub mod interop;
