//! The server role: [`Server`] (register tools, resources and prompts; the
//! capabilities follow from what is registered) and, for full control,
//! [`ServerHandler`].

mod builder;
mod catalog;
mod context;
mod handler;
mod handlers;
mod input;
pub(crate) mod pagination;
mod registry;
mod request_state;
mod resource;
mod service;
#[cfg(feature = "http-server")]
mod session_record;
mod session_state;
mod stateless;
mod subscriptions;
mod tasks;
mod tool;
mod tool_name;

// What the Streamable HTTP server (`crate::http`, a layer above) serves.
#[cfg(feature = "http-server")]
pub(crate) use context::peer_addr_of;
#[cfg(feature = "http-server")]
pub(crate) use service::attach;
#[cfg(feature = "http-server")]
pub(crate) use stateless::serve as serve_alone;

pub use builder::ServerBuilder;
pub use context::Context;
pub use handler::{ServerHandler, ServerInfo};
pub use handlers::{Handlers, IntoHandlers, IntoPromptResult, IntoReadResult, Parameters};
pub use registry::{CompletionFn, Server};
pub use request_state::RequestStateKey;
pub use resource::{PromptDef, ResourceDef, ResourceTemplateDef};
pub use service::{ServerSession, serve};
pub use subscriptions::{Change, ChangeBus};
pub use tool::{HeaderParams, IntoToolResult, Json, ToolDef, ToolOutput, validate_tool_name};
pub use tool_name::ToolName;
