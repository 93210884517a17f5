//! [`ClientGroup`]: the public face of a group of servers.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::config::GroupConfig;
use super::naming::{DEFAULT_SEPARATOR, valid_separator};
use super::shared::{Options, Route, Shared, StderrFn};
use super::status::{FromServer, GroupEvent, ServerState, ServerStatus};
use crate::client::{Client, ClientBuilder};
use crate::schema::{
    CallToolRequestParams, CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use crate::session::RequestOptions;
use crate::uri_template::UriTemplate;
use crate::{Error, Result};

/// How long a server that failed to connect is left alone by default.
const DEFAULT_RETRY_INTERVAL: Duration = Duration::from_secs(5);

/// Configures a [`ClientGroup`].
pub struct ClientGroupBuilder {
    client: ClientBuilder,
    options: Options,
}

impl fmt::Debug for ClientGroupBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientGroupBuilder")
            .field("client", &self.client)
            .field("separator", &self.options.separator)
            .field("retry_interval", &self.options.retry_interval)
            .finish_non_exhaustive()
    }
}

impl ClientGroupBuilder {
    /// A group whose members are connected with clones of `client` (its
    /// name, handlers, negotiation and timeouts apply to every server).
    pub fn new(client: ClientBuilder) -> Self {
        Self {
            client,
            options: Options {
                separator: DEFAULT_SEPARATOR.into(),
                retry_interval: DEFAULT_RETRY_INTERVAL,
                stderr: None,
            },
        }
    }

    /// What joins a server's name to its tools' and prompts' names
    /// (default `__`); characters a tool name may hold only.
    pub fn separator(mut self, separator: &str) -> Result<Self> {
        if !valid_separator(separator) {
            return Err(Error::InvalidArgument(format!(
                "separator `{separator}`: use 1 to 15 of A-Z a-z 0-9 _ - ."
            )));
        }
        self.options.separator = separator.into();
        Ok(self)
    }

    /// How long a server that failed to connect is left alone before a call
    /// that needs it tries again (default 5 s). A server that was connected
    /// and went away is started again at once.
    #[must_use]
    pub fn retry_interval(mut self, interval: Duration) -> Self {
        self.options.retry_interval = interval;
        self
    }

    /// Receives each line a stdio server writes to stderr, with the
    /// server's name (by default they go to `tracing`, target
    /// `mcp_core::child_stderr`, with a `server` field).
    #[must_use]
    pub fn on_stderr(mut self, sink: impl Fn(&str, &str) + Send + Sync + 'static) -> Self {
        let sink: StderrFn = Arc::new(sink);
        self.options.stderr = Some(sink);
        self
    }

    /// Connects to every server of `config` at once and returns when each
    /// has connected or failed; failures are in [`ClientGroup::status`].
    pub async fn connect(self, config: &GroupConfig) -> ClientGroup {
        let servers = config
            .servers()
            .map(|(name, server)| (name.to_string(), server.clone()))
            .collect();
        let shared = Arc::new(Shared::new(servers, self.client, self.options));
        let connecting = (0..shared.members.len()).map(|i| {
            let shared = shared.clone();
            async move {
                // A failure is recorded in the status.
                let _ = shared.client(i).await;
            }
        });
        futures::future::join_all(connecting).await;
        ClientGroup { shared }
    }
}

/// Clients of several servers used as one: merged, namespaced tools and
/// prompts, calls routed to their server, per-server failures. See the
/// [module documentation](super) for the naming and reconnection rules.
///
/// Close it with [`close`](Self::close); dropping it stops watching the
/// servers and closes their connections in the background.
pub struct ClientGroup {
    shared: Arc<Shared>,
}

impl fmt::Debug for ClientGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientGroup")
            .field("servers", &self.status())
            .finish_non_exhaustive()
    }
}

impl Drop for ClientGroup {
    fn drop(&mut self) {
        self.shared.stop.cancel();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let shared = self.shared.clone();
            runtime.spawn(async move { shared.close().await });
        }
    }
}

impl ClientGroup {
    /// Configures a group whose members connect with clones of `client`.
    pub fn builder(client: ClientBuilder) -> ClientGroupBuilder {
        ClientGroupBuilder::new(client)
    }

    /// Connects to every server of `config` with default settings (a client
    /// named `libmcp`).
    pub async fn connect(config: &GroupConfig) -> Self {
        Self::builder(default_client()).connect(config).await
    }

    /// Reads the `mcpServers` file at `path` and connects to every server
    /// in it; fails only when the file cannot be read or is not valid.
    pub async fn from_config_file(path: impl AsRef<Path>) -> Result<Self> {
        let config = GroupConfig::from_file(path)?;
        Ok(Self::connect(&config).await)
    }

    /// Every server's state, in configuration order.
    pub fn status(&self) -> Vec<ServerStatus> {
        (0..self.shared.members.len())
            .map(|i| self.shared.status(i))
            .collect()
    }

    /// The servers' names, in configuration order.
    pub fn servers(&self) -> impl Iterator<Item = &str> {
        self.shared.members.iter().map(|m| m.name.as_str())
    }

    /// A stream of what happens in the group: state changes, list changes
    /// (after the merged lists were updated), every server notification
    /// with its server's name. Slow receivers miss the oldest events.
    pub fn events(&self) -> broadcast::Receiver<GroupEvent> {
        self.shared.events.subscribe()
    }

    /// The merged tool list, names namespaced (`server__tool`).
    pub fn tools(&self) -> Vec<Tool> {
        self.shared.index().tools.clone()
    }

    /// The server and the server's own name of merged tool `name`.
    pub fn route_tool(&self, name: &str) -> Option<(&str, String)> {
        let (i, tool) = self.shared.index().tool_routes.get(name).cloned()?;
        Some((self.shared.members[i].name.as_str(), tool))
    }

    /// The client of server `server`, connected again if it went away.
    pub async fn client(&self, server: &str) -> Result<Arc<Client>> {
        let i = self.member(server)?;
        self.shared.client(i).await
    }

    /// Calls merged tool `name` (`server__tool`).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<CallToolResult> {
        let params = CallToolRequestParams {
            arguments,
            ..CallToolRequestParams::new(name)
        };
        self.call_tool_with(params, RequestOptions::default()).await
    }

    /// Calls merged tool `params.name` with full params and options; the
    /// server gets its own name for the tool.
    pub async fn call_tool_with(
        &self,
        mut params: CallToolRequestParams,
        options: RequestOptions,
    ) -> Result<CallToolResult> {
        let (i, client, tool) = self.routed(&params.name, Kind::Tool).await?;
        params.name = tool;
        client
            .call_tool_with(params, options)
            .await
            .map_err(|e| self.shared.failed(i, e))
    }

    /// The merged prompt list, names namespaced like tools.
    pub fn prompts(&self) -> Vec<Prompt> {
        self.shared.index().prompts.clone()
    }

    /// Gets merged prompt `name` (`server__prompt`).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<indexmap::IndexMap<String, String>>,
    ) -> Result<GetPromptResult> {
        let (i, client, prompt) = self.routed(name, Kind::Prompt).await?;
        client
            .get_prompt(&prompt, arguments)
            .await
            .map_err(|e| self.shared.failed(i, e))
    }

    /// Every resource of every server that offers resources, asked now, in
    /// configuration order; a server that fails is left out (and its state
    /// says why).
    pub async fn list_resources(&self) -> Vec<FromServer<Resource>> {
        let listed = self
            .each_server(
                |c| c.server_capabilities().resources.is_some(),
                |c| async move { c.list_all_resources().await },
            )
            .await;
        self.shared.remember_resources(
            listed
                .iter()
                .map(|(i, resource)| (*i, resource.uri.as_str())),
        );
        self.owned(listed)
    }

    /// Every resource template of every server that offers resources.
    pub async fn list_resource_templates(&self) -> Vec<FromServer<ResourceTemplate>> {
        let listed = self
            .each_server(
                |c| c.server_capabilities().resources.is_some(),
                |c| async move { c.list_all_resource_templates().await },
            )
            .await;
        self.owned(listed)
    }

    /// Reads `uri` from the server that listed it (or whose template
    /// matches it; the servers are asked for their lists if no listing
    /// named it yet).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        let known = self.shared.index().resources.get(uri).copied();
        let i = match known {
            Some(i) => i,
            None => {
                let listed = self.list_resources().await;
                match listed.iter().position(|r| r.item.uri == uri) {
                    Some(at) => self.member(&listed[at].server)?,
                    None => self.by_template(uri).await?,
                }
            }
        };
        self.read_resource_from(&self.shared.members[i].name, uri)
            .await
    }

    /// Reads `uri` from server `server`.
    pub async fn read_resource_from(&self, server: &str, uri: &str) -> Result<ReadResourceResult> {
        let i = self.member(server)?;
        let client = self.shared.client(i).await?;
        client
            .read_resource(uri)
            .await
            .map_err(|e| self.shared.failed(i, e))
    }

    /// Connects every server that is not connected (ignoring the retry
    /// interval) and lists every server's tools and prompts again.
    pub async fn refresh(&self) {
        let shared = &self.shared;
        let each = (0..shared.members.len()).map(|i| async move {
            let Ok(client) = shared.client(i).await else {
                return;
            };
            if client.server_capabilities().tools.is_some() {
                let _ = shared.refresh_tools(i, &client).await;
            }
            if client.server_capabilities().prompts.is_some() {
                let _ = shared.refresh_prompts(i, &client).await;
            }
        });
        futures::future::join_all(each).await;
    }

    /// Closes every connection (child processes are shut down); later
    /// calls fail.
    pub async fn close(&self) {
        self.shared.close().await;
    }

    fn member(&self, server: &str) -> Result<usize> {
        self.shared
            .members
            .iter()
            .position(|m| m.name == server)
            .ok_or_else(|| Error::InvalidArgument(format!("no server `{server}` in the group")))
    }

    /// The member, its client and the server's own name for merged `name`.
    async fn routed(&self, name: &str, kind: Kind) -> Result<(usize, Arc<Client>, String)> {
        let route = |shared: &Shared| -> Option<Route> {
            let index = shared.index();
            match kind {
                Kind::Tool => index.tool_routes.get(name).cloned(),
                Kind::Prompt => index.prompt_routes.get(name).cloned(),
            }
        };
        if let Some((i, own)) = route(&self.shared) {
            let client = self.shared.client(i).await?;
            return Ok((i, client, own));
        }
        // Not listed: maybe of a server not connected yet, named by prefix.
        let Some(i) = self.by_prefix(name) else {
            return Err(Error::InvalidArgument(format!(
                "no {} `{name}` in the group: no server lists it",
                kind.as_str()
            )));
        };
        let client = self.shared.client(i).await?;
        match route(&self.shared) {
            Some((j, own)) if j == i => Ok((i, client, own)),
            _ => Err(self.shared.failed(
                i,
                Error::InvalidArgument(format!("it lists no {} for `{name}`", kind.as_str())),
            )),
        }
    }

    /// The member whose name (as names start) begins `name`, the longest.
    fn by_prefix(&self, name: &str) -> Option<usize> {
        let separator = &self.shared.options.separator;
        self.shared
            .members
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                let prefix = format!("{}{separator}", super::naming::sanitize(&m.name));
                name.starts_with(&prefix)
            })
            .max_by_key(|(_, m)| m.name.len())
            .map(|(i, _)| i)
    }

    /// The first server (in configuration order) with a template matching
    /// `uri`.
    async fn by_template(&self, uri: &str) -> Result<usize> {
        let templates = self.list_resource_templates().await;
        for template in templates {
            let matches = UriTemplate::parse(&template.item.uri_template)
                .ok()
                .and_then(|t| t.matches(uri))
                .is_some();
            if matches {
                return self.member(&template.server);
            }
        }
        Err(Error::InvalidArgument(format!(
            "no server of the group lists the resource `{uri}` or a template matching it"
        )))
    }

    /// Runs `list` on every connected (or reconnectable) member that
    /// `offers` it, at once; gives each item with its member's index.
    async fn each_server<T, F, Fut>(
        &self,
        offers: impl Fn(&Client) -> bool,
        list: F,
    ) -> Vec<(usize, T)>
    where
        F: Fn(Arc<Client>) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<T>>>,
    {
        let shared = &self.shared;
        let (offers, list) = (&offers, &list);
        let each = (0..shared.members.len()).map(|i| async move {
            let client = shared.client(i).await.ok()?;
            if !offers(&client) {
                return None;
            }
            match list(client).await {
                Ok(items) => Some(items.into_iter().map(|item| (i, item)).collect::<Vec<_>>()),
                Err(e) => {
                    tracing::warn!(server = %shared.members[i].name, "listing failed: {e}");
                    None
                }
            }
        });
        futures::future::join_all(each)
            .await
            .into_iter()
            .flatten()
            .flatten()
            .collect()
    }

    fn owned<T>(&self, listed: Vec<(usize, T)>) -> Vec<FromServer<T>> {
        listed
            .into_iter()
            .map(|(i, item)| FromServer {
                server: self.shared.members[i].name.clone(),
                item,
            })
            .collect()
    }

    /// Whether every server is connected.
    pub fn all_connected(&self) -> bool {
        self.status()
            .iter()
            .all(|s| s.state == ServerState::Connected)
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Tool,
    Prompt,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
        }
    }
}

fn default_client() -> ClientBuilder {
    Client::builder("libmcp", env!("CARGO_PKG_VERSION"))
}
