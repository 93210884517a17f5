//! What `#[mcp_core::handlers]` builds on: the [`Handlers`] trait it
//! implements, and the conversions of what its methods return.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use super::{Json, ServerBuilder};
use crate::jsonrpc::RpcError;
use crate::schema::{ContentBlock, GetPromptResult, PromptMessage, ReadResourceResult, Role};

/// A set of tools, prompts and resources that registers itself on a
/// [`ServerBuilder`]: what `#[mcp_core::handlers]` implements for a struct
/// from its marked methods. Register with [`ServerBuilder::handlers`].
pub trait Handlers: Send + Sync + 'static {
    /// Adds every tool, prompt and resource to `builder`; they share `self`.
    fn register(self: Arc<Self>, builder: ServerBuilder) -> ServerBuilder;
}

/// A [`Handlers`] value, or an `Arc` of one (to keep a handle on the state).
pub trait IntoHandlers {
    /// The handlers.
    type Handlers: Handlers;

    /// Shares them.
    fn into_handlers(self) -> Arc<Self::Handlers>;
}

impl<H: Handlers> IntoHandlers for H {
    type Handlers = H;

    fn into_handlers(self) -> Arc<H> {
        Arc::new(self)
    }
}

impl<H: Handlers> IntoHandlers for Arc<H> {
    type Handlers = H;

    fn into_handlers(self) -> Arc<H> {
        self
    }
}

impl ServerBuilder {
    /// Registers every tool, prompt and resource of `handlers` (a struct
    /// whose `impl` block is marked `#[mcp_core::handlers]`), which they
    /// share. Pass the struct itself or an `Arc` of it (to keep a handle).
    #[must_use]
    pub fn handlers(self, handlers: impl IntoHandlers) -> Self {
        handlers.into_handlers().register(self)
    }
}

/// The whole arguments object of a `#[tool]` method as one `T`
/// (`Deserialize + JsonSchema`), instead of one parameter per argument.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parameters<T>(pub T);

/// What a `#[prompt]` method may return: the full result, its messages,
/// one user message as text, or a `Result` of those (an `Err` is answered
/// as a JSON-RPC error: an [`RpcError`] as itself, anything else as an
/// internal error with its message).
pub trait IntoPromptResult {
    /// Turns the value into the answer to `prompts/get`.
    fn into_prompt_result(self) -> Result<GetPromptResult, RpcError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, RpcError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, RpcError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, RpcError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, RpcError> {
        PromptMessage::new(ContentBlock::text(self), Role::User).into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: fmt::Display + 'static> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, RpcError> {
        self.map_err(rpc_error)?.into_prompt_result()
    }
}

/// What a `#[resource]` method may return: the full result, its text
/// (`String`), JSON text of a value ([`Json`]), or a `Result` of those (an
/// `Err` as for prompts). Text is served with the URI read and the
/// resource's `mime_type`.
pub trait IntoReadResult {
    /// Turns the value into the answer to `resources/read` of `uri`.
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, RpcError>;
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, RpcError> {
        Ok(self)
    }
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, RpcError> {
        Ok(ReadResourceResult::text(
            uri,
            mime_type.map(str::to_owned),
            self,
        ))
    }
}

impl<T: Serialize> IntoReadResult for Json<T> {
    /// JSON text, `application/json` unless the resource names a MIME type.
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, RpcError> {
        let text = serde_json::to_string(&self.0)
            .map_err(|e| RpcError::internal(format!("could not encode `{uri}`: {e}")))?;
        Ok(ReadResourceResult::text(
            uri,
            Some(mime_type.unwrap_or("application/json").to_owned()),
            text,
        ))
    }
}

impl<T: IntoReadResult, E: fmt::Display + 'static> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, RpcError> {
        self.map_err(rpc_error)?.into_read_result(uri, mime_type)
    }
}

/// An [`RpcError`] as itself, anything else as an internal error.
fn rpc_error<E: fmt::Display + 'static>(e: E) -> RpcError {
    match (&e as &dyn std::any::Any).downcast_ref::<RpcError>() {
        Some(rpc) => rpc.clone(),
        None => RpcError::internal(e.to_string()),
    }
}
