//! The mistakes users make with `#[mcp_core::handlers]` are compile errors
//! that say what is wrong (`tests/ui/*.stderr`; `TRYBUILD=overwrite`
//! rewrites them after a deliberate change).

#[test]
fn mistakes_do_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
