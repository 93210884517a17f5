//! The faces' table test: every `mcp_core::Error` variant, its kind, and
//! what C, Python and the `mcp` command make of it (the table on
//! `mcp_core::ErrorKind`, row by row).

use std::time::Duration;

use mcp_core::jsonrpc::{ErrorCode, RpcError};
use mcp_core::skills::SkillProblem;
use mcp_core::{Error, ErrorKind};

use crate::c::error::{Failure, McpResult, enum_body};
use crate::exception_classes::exception_class;

/// One variant: its name in `mcp-core/src/error.rs`, a value, and what each
/// face must make of it (kind, C code, Python class, `mcp` exit status).
type Row = (&'static str, Error, ErrorKind, McpResult, &'static str, u8);

fn rpc(code: i64) -> Error {
    Error::Rpc(RpcError::new(ErrorCode(code), "m"))
}

fn table() -> Vec<Row> {
    use ErrorKind as K;
    use McpResult::*;
    let json = serde_json::from_str::<serde_json::Value>("{").map_or_else(Error::Json, |_| {
        Error::Protocol("`{` parsed as JSON".into())
    });
    let member = |source: Error| Error::Member {
        server: "s".into(),
        source: Box::new(source),
    };
    vec![
        (
            "Rpc",
            rpc(-32602),
            K::RpcInvalidParams,
            MCP_ERR_RPC,
            "InvalidParams",
            1,
        ),
        (
            "Rpc",
            rpc(-32601),
            K::RpcMethodNotFound,
            MCP_ERR_RPC,
            "MethodNotFound",
            1,
        ),
        (
            "Rpc",
            rpc(-32002),
            K::RpcResourceNotFound,
            MCP_ERR_RPC,
            "ResourceNotFound",
            1,
        ),
        (
            "Rpc",
            rpc(-32603),
            K::RpcInternalError,
            MCP_ERR_RPC,
            "InternalError",
            1,
        ),
        ("Rpc", rpc(-32000), K::Rpc, MCP_ERR_RPC, "McpError", 1),
        (
            "Timeout",
            Error::Timeout {
                method: "ping".into(),
                timeout: Duration::from_secs(1),
            },
            K::Timeout,
            MCP_ERR_TIMEOUT,
            "Timeout",
            1,
        ),
        (
            "Cancelled",
            Error::Cancelled("m".into()),
            K::Cancelled,
            MCP_ERR_CANCELLED,
            "Cancelled",
            1,
        ),
        (
            "ConnectionClosed",
            Error::ConnectionClosed("m".into()),
            K::Closed,
            MCP_ERR_CLOSED,
            "ConnectionClosed",
            1,
        ),
        (
            "CapabilityNotSupported",
            Error::CapabilityNotSupported {
                method: "tools/call".into(),
                capability: "tools".into(),
            },
            K::Capability,
            MCP_ERR_CAPABILITY,
            "CapabilityNotSupported",
            1,
        ),
        (
            "ProtocolVersion",
            Error::ProtocolVersion("m".into()),
            K::Protocol,
            MCP_ERR_PROTOCOL,
            "ProtocolError",
            1,
        ),
        (
            "Lifecycle",
            Error::Lifecycle("m".into()),
            K::InvalidState,
            MCP_ERR_INVALID_STATE,
            "InvalidState",
            1,
        ),
        (
            "Json",
            json,
            K::Protocol,
            MCP_ERR_PROTOCOL,
            "ProtocolError",
            1,
        ),
        (
            "Protocol",
            Error::Protocol("m".into()),
            K::Protocol,
            MCP_ERR_PROTOCOL,
            "ProtocolError",
            1,
        ),
        (
            "Transport",
            Error::Transport(std::io::Error::other("m")),
            K::Transport,
            MCP_ERR_TRANSPORT,
            "TransportError",
            3,
        ),
        (
            "InvalidArgument",
            Error::InvalidArgument("m".into()),
            K::InvalidArgument,
            MCP_ERR_INVALID_ARGUMENT,
            "InvalidArgument",
            2,
        ),
        (
            "Auth",
            Error::Auth("m".into()),
            K::Auth,
            MCP_ERR_AUTH,
            "AuthError",
            3,
        ),
        (
            "Config",
            Error::Config("m".into()),
            K::InvalidArgument,
            MCP_ERR_INVALID_ARGUMENT,
            "InvalidArgument",
            2,
        ),
        (
            "Member",
            member(Error::Auth("m".into())),
            K::Auth,
            MCP_ERR_AUTH,
            "AuthError",
            3,
        ),
        (
            "Member",
            member(rpc(-32602)),
            K::RpcInvalidParams,
            MCP_ERR_RPC,
            "InvalidParams",
            1,
        ),
        (
            "Skill",
            Error::Skill {
                uri: "skill://a/SKILL.md".into(),
                problem: SkillProblem::Name("m".into()),
            },
            K::InvalidArgument,
            MCP_ERR_INVALID_ARGUMENT,
            "InvalidArgument",
            2,
        ),
        (
            "Skill",
            Error::Skill {
                uri: "skill://a/SKILL.md".into(),
                problem: SkillProblem::SizeMismatch {
                    uri: "skill://a/SKILL.md".into(),
                    expected: 2,
                    actual: 3,
                },
            },
            K::Protocol,
            MCP_ERR_PROTOCOL,
            "ProtocolError",
            1,
        ),
        (
            "Store",
            Error::Store {
                store: "redis://127.0.0.1:6379/0".into(),
                message: "m".into(),
            },
            K::Transport,
            MCP_ERR_TRANSPORT,
            "TransportError",
            3,
        ),
    ]
}

/// The variants of `pub enum Error` as declared (lines `    Name(` or
/// `    Name {` directly in its body), whatever the table says.
fn declared_variants() -> Vec<String> {
    enum_body(
        include_str!("../../mcp-core/src/error.rs"),
        "pub enum Error {",
    )
    .filter_map(|line| {
        let name = line.strip_prefix("    ")?;
        let end = name.find(['(', ' ', ','])?;
        let name = &name[..end];
        let variant =
            name.chars().next()?.is_ascii_uppercase() && name.chars().all(char::is_alphanumeric);
        variant.then(|| name.to_string())
    })
    .collect()
}

#[test]
fn every_variant_has_one_kind_and_the_faces_agree() {
    let table = table();
    let mut covered: Vec<String> = table.iter().map(|r| r.0.to_string()).collect();
    covered.dedup();
    let declared = declared_variants();
    assert_eq!(
        covered, declared,
        "the table must have a row per variant, in order"
    );
    for (variant, error, kind, c, python, cli) in table {
        assert_eq!(error.kind(), kind, "{variant}: {error}");
        assert_eq!(McpResult::of_kind(kind), c, "{variant}");
        assert_eq!(
            Failure::from(error).code,
            c,
            "{variant}: through From<Error>"
        );
        assert_eq!(exception_class(kind), python, "{variant}");
        assert_eq!(mcp_cli::error::exit_status(kind), cli, "{variant}");
    }
}

#[test]
fn every_kind_has_its_own_python_class_or_is_a_plain_rpc_error() {
    let mut classes: Vec<&str> = ErrorKind::ALL.iter().map(|k| exception_class(*k)).collect();
    classes.sort_unstable();
    classes.dedup();
    assert_eq!(classes.len(), ErrorKind::ALL.len(), "{classes:?}");
    let c_codes = ErrorKind::ALL
        .iter()
        .filter(|k| !k.is_rpc())
        .map(|k| McpResult::of_kind(*k) as u32);
    let mut c_codes: Vec<u32> = c_codes.collect();
    c_codes.sort_unstable();
    c_codes.dedup();
    assert_eq!(
        c_codes.len(),
        ErrorKind::ALL.iter().filter(|k| !k.is_rpc()).count()
    );
}
