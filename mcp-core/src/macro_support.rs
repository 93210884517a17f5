//! What the code `#[mcp_core::handlers]` generates reaches for; not API.

pub use schemars;
pub use serde;

use crate::jsonrpc::RpcError;
use crate::server::IntoToolResult;

/// What a `#[tool]` method returns, checked where its return type is
/// written.
pub fn tool_result<R: IntoToolResult>(result: R) -> R {
    result
}

/// A parameter of a `#[prompt]` method, or a URI template variable of a
/// `#[resource]` one: strings, required (`String`) or not (`Option<String>`).
#[diagnostic::on_unimplemented(
    message = "a prompt argument or URI template variable is a string, not `{Self}`",
    label = "take `String` (required) or `Option<String>` (optional) here",
    note = "prompt arguments and URI template variables arrive as strings: parse the string in \
            the method"
)]
pub trait StringArg: Sized {
    /// Whether the argument must be given.
    const REQUIRED: bool;

    /// The parameter's value from the argument `name`'s (if given).
    fn from_arg(name: &str, value: Option<&String>) -> Result<Self, RpcError>;
}

impl StringArg for String {
    const REQUIRED: bool = true;

    fn from_arg(name: &str, value: Option<&String>) -> Result<Self, RpcError> {
        value
            .cloned()
            .ok_or_else(|| RpcError::invalid_params(format!("the argument `{name}` is missing")))
    }
}

impl StringArg for Option<String> {
    const REQUIRED: bool = false;

    fn from_arg(_: &str, value: Option<&String>) -> Result<Self, RpcError> {
        Ok(value.cloned())
    }
}
