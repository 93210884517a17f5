//! The client role: [`Client`] connects to a server over any transport,
//! initializes, and offers a typed method per request. Handlers registered
//! on the [`ClientBuilder`] answer the server's requests (sampling, roots,
//! elicitation) and determine the capabilities the client declares.

mod builder;
mod connection;
#[cfg(all(feature = "stdio", feature = "http-client"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "stdio", feature = "http-client"))))]
pub mod group;
mod list_cache;
mod modern;
mod negotiation;
mod service;
mod skills;
mod subscription;
mod tool_tasks;

pub use builder::{ClientBuilder, ElicitationFn, SamplingFn, UrlElicitationFn};
pub use connection::Client;
#[cfg(all(feature = "stdio", feature = "http-client"))]
pub use group::{ClientGroup, ClientGroupBuilder, GroupConfig, ServerConfig};
pub use modern::DEFAULT_MAX_INPUT_ROUNDS;
pub use negotiation::Negotiation;
pub use skills::{LoadedSkill, SkillsPage};
pub use subscription::Subscription;
pub use tool_tasks::ToolTaskStart;
