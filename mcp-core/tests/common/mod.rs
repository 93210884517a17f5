//! The helpers shared by integration tests live in the `mcp-test-support`
//! crate (`tests/support`); this module makes them `common::…` here.

#[allow(unused_imports, reason = "not every test file uses every helper")]
pub(crate) use mcp_test_support::*;
