//! The state every handle and task of one group shares: the members, their
//! connections (started, watched, started again), and the merged lists.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::config::ServerConfig;
use super::naming::Namer;
use super::status::{GroupEvent, ServerState, ServerStatus};
use crate::client::{Client, ClientBuilder};
use crate::schema::{Prompt, Tool};
use crate::transport::ChildProcess;
use crate::transport::http::StreamableHttpClient;
use crate::{Error, Result};

/// Receives each line a stdio server writes to stderr, with its name.
pub(super) type StderrFn = Arc<dyn Fn(&str, &str) + Send + Sync>;

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How a group behaves.
#[derive(Clone)]
pub(super) struct Options {
    pub(super) separator: String,
    pub(super) retry_interval: Duration,
    pub(super) stderr: Option<StderrFn>,
}

/// One server of the group.
pub(super) struct Member {
    pub(super) name: String,
    pub(super) config: ServerConfig,
    /// The connection; held while connecting, so that callers needing the
    /// server at once share one attempt.
    slot: tokio::sync::Mutex<Slot>,
    status: Mutex<ServerStatus>,
    /// What it listed last, in its order.
    tools: Mutex<Vec<Tool>>,
    prompts: Mutex<Vec<Prompt>>,
}

#[derive(Default)]
struct Slot {
    client: Option<Arc<Client>>,
    /// When the last attempt to connect failed.
    failed_at: Option<Instant>,
    closed: bool,
}

/// Where a merged name leads: the member and the server's own name.
pub(super) type Route = (usize, String);

/// The merged lists, rebuilt from the members' lists on every change.
#[derive(Default)]
pub(super) struct Index {
    pub(super) tools: Vec<Tool>,
    pub(super) tool_routes: HashMap<String, Route>,
    pub(super) prompts: Vec<Prompt>,
    pub(super) prompt_routes: HashMap<String, Route>,
    /// Which member listed a resource URI last.
    pub(super) resources: HashMap<String, usize>,
}

pub(super) struct Shared {
    pub(super) members: Vec<Member>,
    pub(super) builder: ClientBuilder,
    pub(super) options: Options,
    pub(super) index: RwLock<Index>,
    pub(super) events: broadcast::Sender<GroupEvent>,
    pub(super) stop: CancellationToken,
}

impl Shared {
    pub(super) fn new(
        servers: Vec<(String, ServerConfig)>,
        builder: ClientBuilder,
        options: Options,
    ) -> Self {
        let members = servers
            .into_iter()
            .map(|(name, config)| Member {
                status: Mutex::new(ServerStatus::new(&name, config.kind())),
                name,
                config,
                slot: tokio::sync::Mutex::new(Slot::default()),
                tools: Mutex::new(Vec::new()),
                prompts: Mutex::new(Vec::new()),
            })
            .collect();
        Self {
            members,
            builder,
            options,
            index: RwLock::new(Index::default()),
            events: broadcast::channel(1024).0,
            stop: CancellationToken::new(),
        }
    }

    pub(super) fn index(&self) -> std::sync::RwLockReadGuard<'_, Index> {
        self.index
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn index_mut(&self) -> std::sync::RwLockWriteGuard<'_, Index> {
        self.index
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn emit(&self, event: GroupEvent) {
        // No receiver is fine: nobody asked to be told.
        let _ = self.events.send(event);
    }

    pub(super) fn status(&self, i: usize) -> ServerStatus {
        lock(&self.members[i].status).clone()
    }

    /// Changes member `i`'s status and tells the group's listeners.
    fn set_status(&self, i: usize, change: impl FnOnce(&mut ServerStatus)) {
        let status = {
            let mut status = lock(&self.members[i].status);
            change(&mut status);
            status.clone()
        };
        tracing::debug!(server = %status.name, state = %status.state, "group member");
        self.emit(GroupEvent::Status(status));
    }

    /// The error of a call that needed member `i`.
    pub(super) fn failed(&self, i: usize, source: Error) -> Error {
        Error::Member {
            server: self.members[i].name.clone(),
            source: Box::new(source),
        }
    }

    /// Member `i`'s client: the connected one, or a new connection if the
    /// server went away (at once) or failed to connect (once the retry
    /// interval has passed since).
    pub(super) async fn client(self: &Arc<Self>, i: usize) -> Result<Arc<Client>> {
        let member = &self.members[i];
        let mut slot = member.slot.lock().await;
        if slot.closed {
            return Err(self.failed(i, Error::ConnectionClosed("the group was closed".into())));
        }
        if let Some(client) = &slot.client {
            if !client.peer().is_closed() {
                return Ok(client.clone());
            }
            let reason = client.peer().close_reason().unwrap_or_default();
            tracing::info!(server = %member.name, "reconnecting a server that went away: {reason}");
            slot.client = None;
        } else if let Some(at) = slot.failed_at {
            let wait = self.options.retry_interval.saturating_sub(at.elapsed());
            if !wait.is_zero() {
                let why = self.status(i).error.unwrap_or_default();
                return Err(self.failed(
                    i,
                    Error::ConnectionClosed(format!(
                        "not connected ({why}); tried again in {:.1} s",
                        wait.as_secs_f64()
                    )),
                ));
            }
        }
        self.connect(i, &mut slot).await
    }

    /// Connects member `i` (its slot locked by the caller), lists its tools
    /// and prompts, and starts watching it.
    async fn connect(self: &Arc<Self>, i: usize, slot: &mut Slot) -> Result<Arc<Client>> {
        self.set_status(i, |s| {
            s.state = ServerState::Connecting;
            s.error = None;
        });
        match self.open(i).await {
            Ok((client, tools, prompts)) => {
                let client = Arc::new(client);
                slot.client = Some(client.clone());
                slot.failed_at = None;
                *lock(&self.members[i].tools) = tools;
                *lock(&self.members[i].prompts) = prompts;
                self.rebuild();
                self.set_status(i, |s| {
                    s.state = ServerState::Connected;
                    s.protocol_version = Some(client.protocol_version());
                    s.server_info = Some(client.server_info().clone());
                    s.connections += 1;
                });
                tokio::spawn(super::watch::watch(
                    Arc::downgrade(self),
                    i,
                    client.clone(),
                    self.stop.clone(),
                ));
                let server = self.members[i].name.clone();
                self.emit(GroupEvent::ToolsChanged {
                    server: server.clone(),
                });
                self.emit(GroupEvent::PromptsChanged { server });
                Ok(client)
            }
            Err(e) => {
                slot.failed_at = Some(Instant::now());
                let message = e.to_string();
                tracing::warn!(server = %self.members[i].name, "cannot connect: {message}");
                self.set_status(i, |s| {
                    s.state = ServerState::Failed;
                    s.error = Some(message);
                });
                Err(self.failed(i, e))
            }
        }
    }

    /// Starts or reaches the server, initializes, and lists what the merged
    /// lists need; a server that cannot list is not usable.
    async fn open(&self, i: usize) -> Result<(Client, Vec<Tool>, Vec<Prompt>)> {
        let member = &self.members[i];
        let builder = self.builder.clone();
        let client = match &member.config {
            ServerConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut child = ChildProcess::new(command).args(args);
                for (key, value) in env {
                    child = child.env(key, value);
                }
                if let Some(cwd) = cwd {
                    child = child.current_dir(cwd);
                }
                let name = member.name.clone();
                child = match self.options.stderr.clone() {
                    Some(sink) => child.on_stderr(move |line| sink(&name, line)),
                    None => child.on_stderr(move |line| {
                        tracing::info!(target: "mcp_core::child_stderr", server = %name, "{line}");
                    }),
                };
                builder.connect(child).await?
            }
            ServerConfig::Http { url, headers } => {
                let mut http = StreamableHttpClient::new(url.clone());
                for (name, value) in headers {
                    http = http.header(name, value)?;
                }
                builder.connect(http).await?
            }
        };
        let capabilities = client.server_capabilities();
        let (has_tools, has_prompts) =
            (capabilities.tools.is_some(), capabilities.prompts.is_some());
        let listed = async {
            let tools = if has_tools {
                client.list_all_tools().await?
            } else {
                Vec::new()
            };
            let prompts = if has_prompts {
                client.list_all_prompts().await?
            } else {
                Vec::new()
            };
            Ok::<_, Error>((tools, prompts))
        }
        .await;
        match listed {
            Ok((tools, prompts)) => Ok((client, tools, prompts)),
            Err(e) => {
                client.close().await;
                Err(e)
            }
        }
    }

    /// Called by the watcher when member `i`'s connection `client` ended.
    pub(super) async fn went_away(&self, i: usize, client: &Arc<Client>, reason: String) {
        let slot = self.members[i].slot.lock().await;
        let current = slot.client.as_ref().is_some_and(|c| Arc::ptr_eq(c, client));
        if current && !slot.closed {
            tracing::warn!(server = %self.members[i].name, "the server went away: {reason}");
            self.set_status(i, |s| {
                s.state = ServerState::Disconnected;
                s.error = Some(reason);
            });
        }
    }

    /// Lists member `i`'s tools again (it announced a change).
    pub(super) async fn refresh_tools(&self, i: usize, client: &Client) -> Result<()> {
        let tools = client.list_all_tools().await?;
        *lock(&self.members[i].tools) = tools;
        self.rebuild();
        self.emit(GroupEvent::ToolsChanged {
            server: self.members[i].name.clone(),
        });
        Ok(())
    }

    /// Lists member `i`'s prompts again (it announced a change).
    pub(super) async fn refresh_prompts(&self, i: usize, client: &Client) -> Result<()> {
        let prompts = client.list_all_prompts().await?;
        *lock(&self.members[i].prompts) = prompts;
        self.rebuild();
        self.emit(GroupEvent::PromptsChanged {
            server: self.members[i].name.clone(),
        });
        Ok(())
    }

    /// Rebuilds the merged tool and prompt lists from the members' lists,
    /// in configuration order. A server that went away keeps its tools
    /// listed: calling one starts it again.
    fn rebuild(&self) {
        let separator = self.options.separator.as_str();
        let (mut tool_namer, mut prompt_namer) = (Namer::new(separator), Namer::new(separator));
        let mut tools = Vec::new();
        let mut tool_routes = HashMap::new();
        let mut prompts = Vec::new();
        let mut prompt_routes = HashMap::new();
        for (i, member) in self.members.iter().enumerate() {
            let own = lock(&member.tools);
            for tool in own.iter() {
                let name = tool_namer.name(&member.name, &tool.name);
                tool_routes.insert(name.clone(), (i, tool.name.clone()));
                tools.push(Tool {
                    name,
                    ..tool.clone()
                });
            }
            let count = own.len();
            drop(own);
            lock(&member.status).tools = count;
            for prompt in lock(&member.prompts).iter() {
                let name = prompt_namer.name(&member.name, &prompt.name);
                prompt_routes.insert(name.clone(), (i, prompt.name.clone()));
                prompts.push(Prompt {
                    name,
                    ..prompt.clone()
                });
            }
        }
        let mut index = self.index_mut();
        index.tools = tools;
        index.tool_routes = tool_routes;
        index.prompts = prompts;
        index.prompt_routes = prompt_routes;
    }

    /// Remembers which member listed each resource URI.
    pub(super) fn remember_resources<'a>(&self, listed: impl Iterator<Item = (usize, &'a str)>) {
        let mut index = self.index_mut();
        for (i, uri) in listed {
            index.resources.insert(uri.to_string(), i);
        }
    }

    /// Closes every connection; later calls fail.
    pub(super) async fn close(&self) {
        self.stop.cancel();
        let closing = self
            .members
            .iter()
            .enumerate()
            .map(|(i, member)| async move {
                let client = {
                    let mut slot = member.slot.lock().await;
                    slot.closed = true;
                    slot.client.take()
                };
                if let Some(client) = client {
                    client.close().await;
                }
                self.set_status(i, |s| s.state = ServerState::Closed);
            });
        futures::future::join_all(closing).await;
    }
}
