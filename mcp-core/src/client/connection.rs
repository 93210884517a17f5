use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::ClientBuilder;
use super::modern::Modern;
use super::negotiation::{self, Setup};
use super::service::ClientService;
use super::subscription::{LISTEN_LIFETIME, Subscription};
use crate::capability::ServerOffers;
use crate::schema::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequestMethod, CompleteRequest,
    CompleteRequestParams, CompleteResult, DiscoverRequest, DiscoverResult, EmptyResult,
    GetPromptRequest, GetPromptRequestParams, GetPromptResult, Implementation, InitializeResult,
    ListPromptsRequest, ListPromptsResult, ListResourceTemplatesRequest,
    ListResourceTemplatesResult, ListResourcesRequest, ListResourcesResult, ListToolsRequest,
    ListToolsResult, LoggingLevel, McpRequest, PaginatedRequestParams, PingRequest, Prompt,
    ReadResourceRequest, ReadResourceRequestParams, ReadResourceResult, RequestParams, Resource,
    ResourceTemplate, Root, RootsListChangedNotification, ServerCapabilities, ServerNotification,
    SetLevelRequest, SetLevelRequestParams, SubscribeRequest, SubscribeRequestParams,
    SubscriptionFilter, SubscriptionsListenRequest, Tool, UnsubscribeRequest,
    UnsubscribeRequestParams,
};
use crate::session::{Peer, RequestOptions, Session};
use crate::transport::Transport;
use crate::{Error, ProtocolVersion, Result};

/// Most pages `list_all_*` follows before giving up on a server whose
/// cursors never end.
const MAX_PAGES: usize = 10_000;

/// How long to wait for the server to report URL-mode elicitations done.
const URL_ELICITATION_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// A connected, initialized MCP client.
///
/// ```no_run
/// # async fn demo() -> mcp_core::Result<()> {
/// use mcp_core::client::Client;
/// use mcp_core::transport::ChildProcess;
///
/// let client = Client::builder("my-app", "1.0.0")
///     .connect(ChildProcess::new("npx").args(["-y", "@modelcontextprotocol/server-everything"]))
///     .await?;
/// for tool in client.list_all_tools().await? {
///     println!("{}", tool.name);
/// }
/// client.close().await;
/// # Ok(()) }
/// ```
pub struct Client {
    session: Session,
    pub(super) server: InitializeResult,
    /// Per-request metadata, for revisions without a handshake.
    pub(super) modern: Option<Modern>,
    pub(super) discover: Option<DiscoverResult>,
    /// Answers server requests (in a session) and input-required rounds.
    pub(super) service: Arc<ClientService>,
    /// The longest wait for a task's result.
    pub(super) task_wait_limit: std::time::Duration,
    /// The requests the server's declared capabilities offer.
    offers: ServerOffers,
    pub(super) version: ProtocolVersion,
    roots: Option<Arc<Mutex<Vec<Root>>>>,
    url_elicitation: Option<crate::client::UrlElicitationFn>,
    notifications: broadcast::Sender<ServerNotification>,
    output_validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.server.server_info)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Collects every page of a `*/list` method, following cursors, with a
/// bound for servers whose cursors never end.
async fn all_pages<T, F, Fut>(method: &str, mut page: F) -> Result<Vec<T>>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>)>>,
{
    let mut all = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let (items, next) = page(cursor).await?;
        all.extend(items);
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(all),
        }
    }
    Err(Error::Protocol(format!(
        "{method} returned more than {MAX_PAGES} pages"
    )))
}

fn paginated(cursor: Option<String>) -> Option<PaginatedRequestParams> {
    cursor.map(|cursor| PaginatedRequestParams {
        cursor: Some(cursor),
        meta: None,
        ..PaginatedRequestParams::new()
    })
}

impl Client {
    /// Starts configuring a client named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(name, version)
    }

    pub(crate) async fn connect(builder: ClientBuilder, transport: impl Transport) -> Result<Self> {
        let setup = Setup {
            capabilities: builder.capabilities(),
            info: builder.info.clone(),
            negotiation: builder.negotiation,
            config: builder.config.clone(),
            log_level: builder.log_level,
            max_input_rounds: builder.max_input_rounds,
            probe_timeout: builder.probe_timeout,
            tasks_extension: builder.tasks_extension,
        };
        let (notifications, _) = broadcast::channel(256);
        let service = Arc::new(ClientService {
            sampling: builder.sampling.map(|(f, _)| f),
            elicitation: builder.elicitation.map(|(f, _)| f),
            url_elicitation: builder.url_elicitation.clone(),
            tasks: builder
                .tasks
                .clone()
                .map(|c| Arc::new(crate::tasks::TaskManager::new(c))),
            roots: builder.roots.clone(),
            on_notification: builder.on_notification,
            notifications: notifications.clone(),
            listens: super::subscription::Listens::default(),
            list_cache: builder
                .cache_lists
                .then(super::list_cache::ListCache::default),
        });
        let connected = negotiation::open(&setup, &service, transport).await?;
        connected
            .session
            .peer()
            .shared
            .set_protocol_version(connected.version.as_str());
        Ok(Self {
            session: connected.session,
            offers: ServerOffers::new(&connected.server.capabilities),
            server: connected.server,
            version: connected.version,
            modern: connected.modern,
            discover: connected.discover,
            service,
            task_wait_limit: builder.task_wait_limit,
            roots: builder.roots,
            url_elicitation: builder.url_elicitation,
            notifications,
            output_validators: Mutex::new(HashMap::new()),
        })
    }

    /// Sends a typed request the way the negotiated revision wants: in a
    /// session as is; without one with the client's `_meta`, answering
    /// input-required rounds until the result is complete.
    pub(crate) async fn send<R: McpRequest>(
        &self,
        params: R::Params,
        options: RequestOptions,
    ) -> Result<R::Result> {
        let raw = self.send_raw(R::METHOD, &params, options).await?;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// [`send`](Self::send) with any params, giving back the raw result.
    pub(crate) async fn send_raw<P: serde::Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        options: RequestOptions,
    ) -> Result<Box<serde_json::value::RawValue>> {
        match &self.modern {
            None => self.peer().request_raw(method, params, options).await,
            Some(modern) => {
                modern
                    .call(self.peer(), &self.service, method, params, options)
                    .await
            }
        }
    }

    /// Sends any request (an extension's, or a method with no function of
    /// its own) as the negotiated revision wants, like the typed methods:
    /// under 2026-07-28 with the client's `_meta`, answering input-required
    /// rounds through the same handlers. Gives back the raw result.
    pub async fn request_raw<P: serde::Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        options: RequestOptions,
    ) -> Result<Box<serde_json::value::RawValue>> {
        self.send_raw(method, params, options).await
    }

    /// The server's `server/discover` answer, for revisions without a
    /// handshake (its revisions, capabilities, instructions and caching
    /// hints `ttlMs`/`cacheScope`); `None` in a session.
    pub fn discover_result(&self) -> Option<&DiscoverResult> {
        self.discover.as_ref()
    }

    /// Asks the server for `server/discover` again (revisions without a
    /// handshake only).
    pub async fn discover(&self) -> Result<DiscoverResult> {
        self.check(ClientRequestMethod::Discover)?;
        self.send::<DiscoverRequest>(RequestParams::new(), RequestOptions::default())
            .await
    }

    /// The server's name and version.
    pub fn server_info(&self) -> &Implementation {
        &self.server.server_info
    }

    /// What the server declared it supports.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.server.capabilities
    }

    /// The server's instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.server.instructions.as_deref()
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// The server, for requests this type has no method for.
    pub fn peer(&self) -> &Peer {
        self.session.peer()
    }

    /// A stream of the server's notifications. Slow receivers miss the
    /// oldest ones (see `broadcast::error::RecvError::Lagged`).
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.notifications.subscribe()
    }

    /// Fails with a clear error when the server did not declare `capability`.
    pub(super) fn require(&self, declared: bool, method: &str, capability: &str) -> Result<()> {
        if declared {
            Ok(())
        } else {
            Err(Error::CapabilityNotSupported {
                method: method.to_string(),
                capability: capability.to_string(),
            })
        }
    }

    /// Fails with a clear error when the negotiated revision has no
    /// `method`, or the server's declared capabilities do not offer it (the
    /// method table names the capability).
    fn check(&self, method: ClientRequestMethod) -> Result<()> {
        if !method.in_revision(self.version) {
            return Err(Error::ProtocolVersion(format!(
                "`{method}` is not part of protocol revision {}, which this server speaks",
                self.version.as_str()
            )));
        }
        self.require(
            self.offers.allows(method),
            method.as_str(),
            method.spec().capability.unwrap_or_default(),
        )
    }

    /// `ping`.
    /// `ping`; revisions without it (2026-07-28) check the server is there
    /// with `server/discover`.
    pub async fn ping(&self) -> Result<()> {
        if !ClientRequestMethod::Ping.in_revision(self.version) {
            return self.discover().await.map(|_| ());
        }
        self.send::<PingRequest>(None, RequestOptions::default())
            .await
            .map(|_: EmptyResult| ())
    }

    /// One page of a `*/list` method, from the list cache when it has a
    /// fresh one ([`ClientBuilder::cache_lists`]).
    async fn list_page<R>(
        &self,
        method: ClientRequestMethod,
        cursor: Option<String>,
    ) -> Result<R::Result>
    where
        R: McpRequest<Params = Option<PaginatedRequestParams>>,
    {
        self.check(method)?;
        let cache = self.service.list_cache.as_ref();
        if let Some(page) = cache.and_then(|c| c.get(method, cursor.as_deref())) {
            return Ok(serde_json::from_str(page.get())?);
        }
        let raw = self
            .send_raw(
                R::METHOD,
                &paginated(cursor.clone()),
                RequestOptions::default(),
            )
            .await?;
        let result = serde_json::from_str(raw.get())?;
        if let Some(cache) = cache {
            cache.put(method, cursor.as_deref(), &raw);
        }
        Ok(result)
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult> {
        let result = self
            .list_page::<ListToolsRequest>(ClientRequestMethod::ListTools, cursor)
            .await?;
        self.remember_output_schemas(&result.tools);
        Ok(result)
    }

    /// Every tool, following cursors.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>> {
        all_pages(
            ClientRequestMethod::ListTools.as_str(),
            |cursor| async move {
                let page = self.list_tools(cursor).await?;
                Ok((page.tools, page.next_cursor))
            },
        )
        .await
    }

    /// `tools/call` with arguments as a JSON object.
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

    /// `tools/call` with full params and per-call options (timeout,
    /// progress, cancellation). A `structuredContent` is checked against the
    /// tool's `outputSchema` when the tool was seen in `tools/list`.
    pub async fn call_tool_with(
        &self,
        params: CallToolRequestParams,
        options: RequestOptions,
    ) -> Result<CallToolResult> {
        self.check(ClientRequestMethod::CallTool)?;
        let name = params.name.clone();
        let method = <CallToolRequest as McpRequest>::METHOD;
        let first = self.send_raw(method, &params, options.clone()).await;
        let raw = match first {
            Err(Error::Rpc(e)) if e.code == crate::jsonrpc::ErrorCode::URL_ELICITATION_REQUIRED => {
                self.complete_url_elicitations(e).await?;
                self.send_raw(method, &params, options).await?
            }
            other => other?,
        };
        if self.modern.as_ref().is_some_and(|m| m.tasks_always) {
            // The server may have made the call a task.
            return self.finish_tool_call(&name, &raw).await;
        }
        let result: CallToolResult = serde_json::from_str(raw.get())?;
        self.check_structured_content(&name, &result)?;
        Ok(result)
    }

    /// Runs the URL-mode elicitations a -32042 error lists: each is shown
    /// to the user through the URL handler; once all are accepted, waits for
    /// the server to report each complete. Gives back the error otherwise.
    async fn complete_url_elicitations(&self, error: crate::jsonrpc::RpcError) -> Result<()> {
        #[derive(serde::Deserialize)]
        struct Data {
            elicitations: Vec<crate::schema::ElicitRequestUrlParams>,
        }
        let Some(handler) = self.url_elicitation.clone() else {
            return Err(Error::Rpc(error));
        };
        let Some(Ok(data)) = error.data.clone().map(serde_json::from_value::<Data>) else {
            return Err(Error::Protocol(format!(
                "a -32042 error without valid `elicitations`: {error}"
            )));
        };
        // Subscribe before the user acts, so no completion is missed.
        let mut notifications = self.notifications.subscribe();
        let mut pending: HashSet<String> = HashSet::new();
        for elicitation in data.elicitations {
            let Some(id) = elicitation.elicitation_id.clone() else {
                return Err(Error::Protocol(format!(
                    "a -32042 error lists an elicitation without `elicitationId`: {error}"
                )));
            };
            pending.insert(id);
            if !handler(elicitation).await {
                return Err(Error::Rpc(error));
            }
        }
        let wait = async {
            while !pending.is_empty() {
                match notifications.recv().await {
                    Ok(ServerNotification::ElicitationComplete(done)) => {
                        pending.remove(&done.params.elicitation_id);
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return false,
                }
            }
            true
        };
        match tokio::time::timeout(URL_ELICITATION_WAIT, wait).await {
            Ok(true) => Ok(()),
            _ => Err(Error::Rpc(error)),
        }
    }

    fn remember_output_schemas(&self, tools: &[Tool]) {
        let mut validators = lock(&self.output_validators);
        for tool in tools {
            match &tool.output_schema {
                Some(schema) => {
                    match jsonschema::validator_for(&Value::Object(schema.as_map().clone())) {
                        Ok(v) => {
                            validators.insert(tool.name.clone(), Arc::new(v));
                        }
                        Err(e) => {
                            tracing::warn!("tool `{}` has an invalid outputSchema: {e}", tool.name)
                        }
                    }
                }
                None => {
                    validators.remove(&tool.name);
                }
            }
        }
    }

    pub(super) fn check_structured_content(
        &self,
        name: &str,
        result: &CallToolResult,
    ) -> Result<()> {
        let Some(validator) = lock(&self.output_validators).get(name).cloned() else {
            return Ok(());
        };
        if result.is_error() {
            return Ok(());
        }
        let Some(structured) = &result.structured_content else {
            return Err(Error::Protocol(format!(
                "tool `{name}` declares an outputSchema but returned no structuredContent"
            )));
        };
        let instance = structured.clone();
        let problems: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Protocol(format!(
                "structuredContent of tool `{name}` does not match its outputSchema: {}",
                problems.join("; ")
            )))
        }
    }

    /// One page of `resources/list`.
    pub async fn list_resources(&self, cursor: Option<String>) -> Result<ListResourcesResult> {
        self.list_page::<ListResourcesRequest>(ClientRequestMethod::ListResources, cursor)
            .await
    }

    /// Every resource, following cursors.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>> {
        all_pages(
            ClientRequestMethod::ListResources.as_str(),
            |cursor| async move {
                let page = self.list_resources(cursor).await?;
                Ok((page.resources, page.next_cursor))
            },
        )
        .await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult> {
        self.list_page::<ListResourceTemplatesRequest>(
            ClientRequestMethod::ListResourceTemplates,
            cursor,
        )
        .await
    }

    /// Every resource template, following cursors.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        all_pages(
            ClientRequestMethod::ListResourceTemplates.as_str(),
            |cursor| async move {
                let page = self.list_resource_templates(cursor).await?;
                Ok((page.resource_templates, page.next_cursor))
            },
        )
        .await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.check(ClientRequestMethod::ReadResource)?;
        let params = ReadResourceRequestParams::new(uri);
        self.send::<ReadResourceRequest>(params, RequestOptions::default())
            .await
    }

    /// `resources/subscribe` (needs the server's `resources.subscribe`).
    pub async fn subscribe(&self, uri: &str) -> Result<()> {
        self.check(ClientRequestMethod::Subscribe)?;
        let params = SubscribeRequestParams::new(uri);
        self.send::<SubscribeRequest>(params, RequestOptions::default())
            .await
            .map(|_| ())
    }

    /// `subscriptions/listen` (2026-07-28): opens a stream of the
    /// notifications `filter` asks for (resources updated for given URIs,
    /// list changes) and returns once the server has acknowledged it;
    /// [`Subscription::honoured`] says what the server will send. Dropping
    /// the subscription (or [`Subscription::close`]) cancels it. In a
    /// 2025-11-25 session use [`subscribe`](Self::subscribe) and
    /// [`notifications`](Self::notifications) instead.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription> {
        self.check(ClientRequestMethod::SubscriptionsListen)?;
        let Some(modern) = &self.modern else {
            return Err(Error::ProtocolVersion(
                "subscriptions/listen needs a revision without sessions".into(),
            ));
        };
        let mut params = Map::new();
        params.insert("notifications".into(), serde_json::to_value(&filter)?);
        let params = modern.stamp(&params)?;
        let peer = self.peer().clone();
        let id = peer.next_request_id();
        let ack_timeout = peer.shared.config.request_timeout;
        let request = {
            let id = id.clone();
            Box::pin(async move {
                let options = RequestOptions::default().timeout(LISTEN_LIFETIME);
                peer.request_raw_as(
                    id,
                    <SubscriptionsListenRequest as McpRequest>::METHOD,
                    &params,
                    options,
                )
                .await
            })
        };
        Subscription::open(self.service.clone(), id, request, ack_timeout).await
    }

    /// `resources/unsubscribe`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<()> {
        self.check(ClientRequestMethod::Unsubscribe)?;
        let params = UnsubscribeRequestParams::new(uri);
        self.send::<UnsubscribeRequest>(params, RequestOptions::default())
            .await
            .map(|_| ())
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult> {
        self.list_page::<ListPromptsRequest>(ClientRequestMethod::ListPrompts, cursor)
            .await
    }

    /// Every prompt, following cursors.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>> {
        all_pages(
            ClientRequestMethod::ListPrompts.as_str(),
            |cursor| async move {
                let page = self.list_prompts(cursor).await?;
                Ok((page.prompts, page.next_cursor))
            },
        )
        .await
    }

    /// `prompts/get` with string arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<indexmap::IndexMap<String, String>>,
    ) -> Result<GetPromptResult> {
        self.check(ClientRequestMethod::GetPrompt)?;
        let params = GetPromptRequestParams {
            arguments,
            ..GetPromptRequestParams::new(name)
        };
        self.send::<GetPromptRequest>(params, RequestOptions::default())
            .await
    }

    /// `completion/complete` (needs the server's `completions`).
    pub async fn complete(&self, params: CompleteRequestParams) -> Result<CompleteResult> {
        self.check(ClientRequestMethod::Complete)?;
        self.send::<CompleteRequest>(params, RequestOptions::default())
            .await
    }

    /// `logging/setLevel` (needs the server's `logging`); in revisions
    /// without it (2026-07-28), every later request asks for `level` in its
    /// `_meta` instead.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<()> {
        if let Some(modern) = &self.modern {
            modern.set_log_level(level);
            return Ok(());
        }
        self.check(ClientRequestMethod::SetLevel)?;
        let params = SetLevelRequestParams::new(level);
        self.send::<SetLevelRequest>(params, RequestOptions::default())
            .await
            .map(|_| ())
    }

    /// Replaces the roots offered to the server and sends
    /// `notifications/roots/list_changed`.
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<()> {
        let Some(current) = &self.roots else {
            return Err(Error::InvalidArgument(
                "this client offers no roots; configure them with ClientBuilder::roots".into(),
            ));
        };
        *lock(current) = roots;
        if self.modern.is_some() {
            // Nothing to tell: the server asks for roots in each round.
            return Ok(());
        }
        self.peer()
            .notify::<RootsListChangedNotification>(None)
            .await
    }

    /// Ends the session and closes the transport (a child process is shut
    /// down as the spec says).
    pub async fn close(&self) {
        self.session.close().await;
    }

    /// Waits until the session ends and returns why.
    pub async fn closed(&self) -> String {
        self.session.closed().await
    }
}
