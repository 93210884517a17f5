//! Several servers at once: a [`ClientGroup`] connects to every server of an
//! `mcpServers` configuration ([`GroupConfig`], the format of Claude
//! Desktop, Cursor and VS Code) in parallel, and offers their tools and
//! prompts as one list with namespaced names.
//!
//! **Names.** Tool `t` of server `s` is `s__t` (the separator is
//! configurable). Characters a tool name may not hold (SEP-986: `A-Z a-z
//! 0-9 _ - .`, at most 128) become `_`; a longer name is cut and ends with
//! `_` and 8 hex digits of a hash of the two names; a name already taken by
//! an earlier tool (configuration order, then each server's order) gets
//! `_2`, `_3`, …. [`ClientGroup::route_tool`] says where a name leads.
//! Prompts are named the same way; resources keep their URIs.
//!
//! **Failures stay with their server.** A server that cannot be started or
//! reached, or that goes away, is reported in [`ClientGroup::status`] (and
//! as a [`GroupEvent::Status`]); the others go on. A call that needs it
//! fails with [`Error::Member`](crate::Error::Member) naming it. A server
//! that went away (its process exited) is started again by the next call
//! that needs it; one that failed to connect is tried again by such a call
//! once the retry interval (5 s) has passed. Its tools stay in the merged
//! list meanwhile, so that calling one brings it back.
//!
//! **Changes.** A server's `notifications/tools/list_changed` (or
//! prompts) makes the group list that server's tools again; the merged list
//! is up to date when [`GroupEvent::ToolsChanged`] is sent. Under
//! 2026-07-28 the group opens a `subscriptions/listen` for list changes on
//! each server that has tools, prompts or resources.
//!
//! ```no_run
//! # async fn demo() -> mcp_core::Result<()> {
//! use mcp_core::client::ClientGroup;
//!
//! let group = ClientGroup::from_config_file("mcp.json").await?;
//! for status in group.status() {
//!     println!("{}: {}", status.name, status.state);
//! }
//! for tool in group.tools() {
//!     println!("{}", tool.name); // e.g. "files__read_file"
//! }
//! let result = group.call_tool("files__read_file", None).await?;
//! # let _ = result;
//! group.close().await;
//! # Ok(()) }
//! ```

mod client_group;
mod config;
mod naming;
mod shared;
mod status;
mod watch;

pub use client_group::{ClientGroup, ClientGroupBuilder};
pub use config::{GroupConfig, ServerConfig};
pub use status::{FromServer, GroupEvent, ServerState, ServerStatus};
