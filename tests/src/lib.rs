//! Support for libmcp's cross-crate and interop tests.

pub mod interop;
