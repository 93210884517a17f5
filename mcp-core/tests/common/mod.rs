//! The helpers shared by integration tests live in the `mcp-test-support`
//! crate (`tests/support`); this module makes them `common::…` here, and
//! adds the ones that only mcp-core's tests use.

#[allow(unused_imports, reason = "not every test file uses every helper")]
pub(crate) use mcp_test_support::*;

#[allow(dead_code, reason = "not every test file uses every helper")]
pub(crate) mod stream;
