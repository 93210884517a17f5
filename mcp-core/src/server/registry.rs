use std::fmt;
use std::future::Future;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use futures::future::BoxFuture;
use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::pagination::page;
use super::request_state::RequestStateKey;
use super::service::{ServerSession, serve};
use super::session_state::SessionState;
use super::subscriptions::{self, Change, ChangeBus};
use super::tasks;
use super::{
    Context, PromptDef, ResourceDef, ResourceTemplateDef, ServerHandler, ServerInfo, ToolDef,
};
use crate::jsonrpc::{ErrorCode, RpcError};
use crate::schema::{
    CallToolRequestParams, CallToolResult, CancelTaskRequestParams, CancelTaskResult,
    ClientRequestMethod, CompleteRequestParams, CompleteResult, CompleteResultCompletion,
    CreateTaskResult, EmptyResult, GetPromptRequestParams, GetPromptResult,
    GetTaskPayloadRequestParams, GetTaskRequestParams, GetTaskResult, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListTasksResult,
    ListToolsResult, PaginatedRequestParams, PromptListChangedNotification,
    ReadResourceRequestParams, ReadResourceResult, ResourceListChangedNotification,
    ServerCapabilities, ServerCapabilitiesPrompts, ServerCapabilitiesResources,
    ServerCapabilitiesTasks, ServerCapabilitiesTasksRequests, ServerCapabilitiesTasksRequestsTools,
    ServerCapabilitiesTools, SubscribeRequestParams, SubscriptionFilter,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, ToolExecutionTaskSupport,
    ToolListChangedNotification, UnsubscribeRequestParams,
};
use crate::session::SessionConfig;
use crate::tasks::{TaskConfig, TaskManager, TasksRequest};
use crate::transport::Transport;
use crate::{Error, Result};
use serde_json::value::RawValue;

/// Answers `completion/complete`.
pub type CompletionFn = Arc<
    dyn Fn(
            CompleteRequestParams,
            Context,
        ) -> BoxFuture<'static, Result<CompleteResultCompletion, RpcError>>
        + Send
        + Sync,
>;

/// An MCP server made of registered tools, resources, resource templates,
/// prompts and a completion handler. Cheap to clone; every clone is the same
/// server. Serve it over any number of transports at once.
///
/// ```
/// use mcp_core::server::{Json, Server, ToolDef};
/// # use schemars::JsonSchema;
/// # use serde::Deserialize;
/// #[derive(Deserialize, JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// let server = Server::builder("calculator", "1.0.0")
///     .tool(ToolDef::new("add", "Adds two integers", |args: Add, _cx| async move {
///         Ok::<_, String>(format!("{}", args.a + args.b))
///     }).unwrap())
///     .build();
/// // server.serve(mcp_core::transport::Stdio::new())?.closed().await;
/// ```
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    implementation: Implementation,
    instructions: Option<String>,
    page_size: usize,
    config: SessionConfig,
    offers: Offers,
    tools: RwLock<IndexMap<String, ToolDef>>,
    resources: RwLock<IndexMap<String, ResourceDef>>,
    templates: RwLock<IndexMap<String, ResourceTemplateDef>>,
    prompts: RwLock<IndexMap<String, PromptDef>>,
    completion: Option<CompletionFn>,
    tasks: Option<Arc<TaskManager>>,
    bus: ChangeBus,
    request_state_key: Option<RequestStateKey>,
    /// The key replicas share, from the HTTP server's stores; used when the
    /// builder set none.
    shared_request_state_key: std::sync::OnceLock<RequestStateKey>,
}

/// Which capabilities the server declares, fixed when it is built.
#[derive(Clone, Copy, Debug, Default)]
struct Offers {
    tools: bool,
    resources: bool,
    prompts: bool,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("implementation", &self.inner.implementation)
            .finish_non_exhaustive()
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    implementation: Implementation,
    instructions: Option<String>,
    page_size: usize,
    config: SessionConfig,
    offers: Offers,
    tools: IndexMap<String, ToolDef>,
    resources: IndexMap<String, ResourceDef>,
    templates: IndexMap<String, ResourceTemplateDef>,
    prompts: IndexMap<String, PromptDef>,
    completion: Option<CompletionFn>,
    tasks: Option<TaskConfig>,
    bus: Option<ChangeBus>,
    request_state_key: Option<RequestStateKey>,
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("implementation", &self.implementation)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Sets the instructions sent to clients at initialization.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets the server's human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.implementation.title = Some(title.into());
        self
    }

    /// Items per page of `*/list` results (default 100).
    #[must_use]
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// Session limits and timeouts for every session of this server.
    #[must_use]
    pub fn session_config(mut self, config: SessionConfig) -> Self {
        self.config = config;
        self
    }

    /// Registers a tool (replacing one of the same name).
    #[must_use]
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.tools.insert(tool.tool.name.clone(), tool);
        self
    }

    /// Declares the tools capability even with no tools yet (for servers
    /// that add tools at run time).
    #[must_use]
    pub fn offer_tools(mut self) -> Self {
        self.offers.tools = true;
        self
    }

    /// Registers a resource.
    #[must_use]
    pub fn resource(mut self, resource: ResourceDef) -> Self {
        self.resources
            .insert(resource.resource.uri.clone(), resource);
        self
    }

    /// Registers a resource template.
    #[must_use]
    pub fn resource_template(mut self, template: ResourceTemplateDef) -> Self {
        self.templates
            .insert(template.template.uri_template.clone(), template);
        self
    }

    /// Declares the resources capability even with no resources yet.
    #[must_use]
    pub fn offer_resources(mut self) -> Self {
        self.offers.resources = true;
        self
    }

    /// Registers a prompt.
    #[must_use]
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.insert(prompt.prompt.name.clone(), prompt);
        self
    }

    /// Declares the prompts capability even with no prompts yet.
    #[must_use]
    pub fn offer_prompts(mut self) -> Self {
        self.offers.prompts = true;
        self
    }

    /// Sets the handler of `completion/complete` (declares `completions`).
    #[must_use]
    pub fn completion<F, Fut>(mut self, complete: F) -> Self
    where
        F: Fn(CompleteRequestParams, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CompleteResultCompletion, RpcError>> + Send + 'static,
    {
        self.completion = Some(Arc::new(move |params, cx| Box::pin(complete(params, cx))));
        self
    }

    /// Runs tool calls as tasks (declares `tasks`). Tools opt in with
    /// [`ToolDef::task_support`]; a server with such a tool gets the default
    /// [`TaskConfig`] without calling this.
    #[must_use]
    pub fn tasks(mut self, config: TaskConfig) -> Self {
        self.tasks = Some(config);
        self
    }

    /// Announces changes (list changes, resource updates) on `bus`, which
    /// servers of one process share so that a change reaches every
    /// `subscriptions/listen` stream (by default each server has its own).
    #[must_use]
    pub fn change_bus(mut self, bus: ChangeBus) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Seals the `requestState` of input-required rounds with `key`: give
    /// every replica behind one load balancer the same key (by default each
    /// process draws its own).
    #[must_use]
    pub fn request_state_key(mut self, key: RequestStateKey) -> Self {
        self.request_state_key = Some(key);
        self
    }

    /// Builds the server.
    pub fn build(self) -> Server {
        let wants_tasks = self
            .tools
            .values()
            .any(|t| t.task_support_of() != ToolExecutionTaskSupport::Forbidden);
        let tasks = self
            .tasks
            .or_else(|| wants_tasks.then(TaskConfig::default))
            .map(|c| Arc::new(TaskManager::new(c)));
        let offers = Offers {
            tools: self.offers.tools || !self.tools.is_empty(),
            resources: self.offers.resources
                || !self.resources.is_empty()
                || !self.templates.is_empty(),
            prompts: self.offers.prompts || !self.prompts.is_empty(),
        };
        Server {
            inner: Arc::new(Inner {
                implementation: self.implementation,
                instructions: self.instructions,
                page_size: self.page_size,
                config: self.config,
                offers,
                tools: RwLock::new(self.tools),
                resources: RwLock::new(self.resources),
                templates: RwLock::new(self.templates),
                prompts: RwLock::new(self.prompts),
                completion: self.completion,
                tasks,
                bus: self.bus.unwrap_or_default(),
                request_state_key: self.request_state_key,
                shared_request_state_key: std::sync::OnceLock::new(),
            }),
        }
    }
}

impl Server {
    /// Starts building a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            implementation: Implementation::new(name, version),
            instructions: None,
            page_size: 100,
            config: SessionConfig::default(),
            offers: Offers::default(),
            tools: IndexMap::new(),
            resources: IndexMap::new(),
            templates: IndexMap::new(),
            prompts: IndexMap::new(),
            completion: None,
            tasks: None,
            bus: None,
            request_state_key: None,
        }
    }

    /// Serves one client over `transport` (inside a Tokio runtime).
    pub fn serve(&self, transport: impl Transport) -> Result<ServerSession> {
        let session = serve(Arc::new(self.clone()), transport, self.inner.config.clone())?;
        self.register(&session);
        Ok(session)
    }

    /// The settings of every session of this server.
    pub(crate) fn session_config(&self) -> &SessionConfig {
        &self.inner.config
    }

    /// Keeps this server's tasks in `store`, shared with other replicas,
    /// which `bus` links (cancellations, answers, changes). A server without
    /// tasks has nothing to share.
    pub(crate) fn share_tasks(
        &self,
        store: Arc<dyn crate::store::TaskStore>,
        bus: Option<Arc<dyn crate::store::Bus>>,
    ) {
        if let Some(manager) = &self.inner.tasks {
            manager.share(store, bus);
        }
    }

    /// Seals `requestState` with `key`, shared by the replicas, unless the
    /// builder gave a key (the first shared key sticks).
    pub(crate) fn share_request_state_key(&self, key: RequestStateKey) {
        let _ = self.inner.shared_request_state_key.set(key);
    }

    /// Sessions are kept on the change bus, so that every server sharing it
    /// reaches them.
    fn register(&self, session: &ServerSession) {
        self.register_state(session.state());
    }

    /// Adds a session to those told about changes (list changes, resource
    /// updates): kept on the change bus, so that every server sharing it
    /// reaches them.
    pub(crate) fn register_state(&self, state: &Arc<SessionState>) {
        self.inner.bus.register(state);
    }

    fn ready_sessions(&self) -> Vec<Arc<SessionState>> {
        self.inner.bus.ready_sessions()
    }

    /// Adds or replaces a tool at run time and tells every client.
    pub async fn add_tool(&self, tool: ToolDef) -> Result<()> {
        self.require(self.inner.offers.tools, "tools")?;
        write(&self.inner.tools).insert(tool.tool.name.clone(), tool);
        self.broadcast_list_changed::<ToolListChangedNotification>(Change::ToolsListChanged)
            .await;
        Ok(())
    }

    /// Removes a tool at run time and tells every client; returns whether it existed.
    pub async fn remove_tool(&self, name: &str) -> bool {
        let removed = write(&self.inner.tools).shift_remove(name).is_some();
        if removed {
            self.broadcast_list_changed::<ToolListChangedNotification>(Change::ToolsListChanged)
                .await;
        }
        removed
    }

    /// Adds or replaces a resource at run time and tells every client.
    pub async fn add_resource(&self, resource: ResourceDef) -> Result<()> {
        self.require(self.inner.offers.resources, "resources")?;
        write(&self.inner.resources).insert(resource.resource.uri.clone(), resource);
        self.broadcast_list_changed::<ResourceListChangedNotification>(
            Change::ResourcesListChanged,
        )
        .await;
        Ok(())
    }

    /// Removes a resource at run time and tells every client.
    pub async fn remove_resource(&self, uri: &str) -> bool {
        let removed = write(&self.inner.resources).shift_remove(uri).is_some();
        if removed {
            self.broadcast_list_changed::<ResourceListChangedNotification>(
                Change::ResourcesListChanged,
            )
            .await;
        }
        removed
    }

    /// Adds or replaces a prompt at run time and tells every client.
    pub async fn add_prompt(&self, prompt: PromptDef) -> Result<()> {
        self.require(self.inner.offers.prompts, "prompts")?;
        write(&self.inner.prompts).insert(prompt.prompt.name.clone(), prompt);
        self.broadcast_list_changed::<PromptListChangedNotification>(Change::PromptsListChanged)
            .await;
        Ok(())
    }

    /// Removes a prompt at run time and tells every client.
    pub async fn remove_prompt(&self, name: &str) -> bool {
        let removed = write(&self.inner.prompts).shift_remove(name).is_some();
        if removed {
            self.broadcast_list_changed::<PromptListChangedNotification>(
                Change::PromptsListChanged,
            )
            .await;
        }
        removed
    }

    /// Sends `notifications/resources/updated` to every session subscribed
    /// to `uri` (of every server sharing this one's [`ChangeBus`]) and to
    /// every `subscriptions/listen` stream that asked for it; returns how
    /// many sessions were told.
    pub async fn notify_resource_updated(&self, uri: &str) -> usize {
        self.inner.bus.notify_resource_updated(uri).await
    }

    /// The bus this server announces its changes on.
    pub(crate) fn change_bus(&self) -> &ChangeBus {
        &self.inner.bus
    }

    fn require(&self, offered: bool, capability: &str) -> Result<()> {
        if offered {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "the server did not declare `{capability}` when built; use `offer_{capability}()` to add them at run time"
            )))
        }
    }

    async fn broadcast_list_changed<N>(&self, change: Change)
    where
        N: crate::schema::McpNotification<Params = Option<crate::schema::NotificationParams>>,
    {
        self.inner.bus.publish(change);
        for session in self.ready_sessions() {
            // A session closing meanwhile is not an error for the others.
            let _ = session.peer.notify::<N>(None).await;
        }
    }

    fn capabilities(&self) -> ServerCapabilities {
        let offers = self.inner.offers;
        ServerCapabilities {
            tools: offers.tools.then_some(ServerCapabilitiesTools {
                list_changed: Some(true),
                ..ServerCapabilitiesTools::new()
            }),
            resources: offers.resources.then_some(ServerCapabilitiesResources {
                list_changed: Some(true),
                subscribe: Some(true),
                ..ServerCapabilitiesResources::new()
            }),
            prompts: offers.prompts.then_some(ServerCapabilitiesPrompts {
                list_changed: Some(true),
                ..ServerCapabilitiesPrompts::new()
            }),
            logging: Some(Map::new()),
            completions: self.inner.completion.is_some().then(Map::new),
            experimental: None,
            extensions: None,
            tasks: self.inner.tasks.as_ref().map(|_| ServerCapabilitiesTasks {
                list: Some(Map::new()),
                cancel: Some(Map::new()),
                requests: Some(ServerCapabilitiesTasksRequests {
                    tools: Some(ServerCapabilitiesTasksRequestsTools {
                        call: Some(Map::new()),
                        ..ServerCapabilitiesTasksRequestsTools::new()
                    }),
                    ..ServerCapabilitiesTasksRequests::new()
                }),
                ..ServerCapabilitiesTasks::new()
            }),
            ..ServerCapabilities::new()
        }
    }

    fn task_manager(&self, method: ClientRequestMethod) -> Result<&Arc<TaskManager>, RpcError> {
        self.inner
            .tasks
            .as_ref()
            .ok_or_else(|| RpcError::method_not_found(method.as_str()))
    }
}

fn cursor(params: Option<&PaginatedRequestParams>) -> Option<&str> {
    params.and_then(|p| p.cursor.as_deref())
}

#[async_trait]
impl ServerHandler for Server {
    fn info(&self) -> ServerInfo {
        ServerInfo {
            implementation: self.inner.implementation.clone(),
            capabilities: self.capabilities(),
            instructions: self.inner.instructions.clone(),
        }
    }

    fn request_state_key(&self) -> Option<RequestStateKey> {
        self.inner
            .request_state_key
            .as_ref()
            .or_else(|| self.inner.shared_request_state_key.get())
            .cloned()
    }

    async fn subscriptions_listen(
        &self,
        params: SubscriptionsListenRequestParams,
        cx: Context,
    ) -> Result<SubscriptionsListenResult, RpcError> {
        // What this server announces: list changes of what it offers, and
        // updates of its resources.
        let offers = self.inner.offers;
        let offered = SubscriptionFilter {
            tools_list_changed: offers.tools.then_some(true),
            prompts_list_changed: offers.prompts.then_some(true),
            resources_list_changed: offers.resources.then_some(true),
            resource_subscriptions: offers.resources.then(Vec::new),
            ..SubscriptionFilter::new()
        };
        subscriptions::listen(&self.inner.bus, &offered, params, &cx).await
    }

    async fn list_tools(
        &self,
        params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListToolsResult, RpcError> {
        let (defs, next_cursor) = page(
            &read(&self.inner.tools),
            cursor(params.as_ref()),
            self.inner.page_size,
        )?;
        Ok(ListToolsResult {
            next_cursor,
            ..ListToolsResult::new(
                defs.into_iter()
                    .map(|d| Arc::unwrap_or_clone(d.tool))
                    .collect(),
            )
        })
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        cx: Context,
    ) -> Result<CallToolResult, RpcError> {
        let tool = read(&self.inner.tools).get(&params.name).cloned();
        let Some(tool) = tool else {
            return Err(RpcError::invalid_params(format!(
                "unknown tool `{}`",
                params.name
            )));
        };
        if self.inner.tasks.is_some()
            && tool.task_support_of() == ToolExecutionTaskSupport::Required
        {
            // Under the tasks extension the client did not allow a task.
            if cx.protocol_version().is_some_and(|v| v.has_extensions()) {
                return Err(crate::extensions::missing(crate::extensions::TASKS));
            }
            return Err(RpcError::method_not_found(&format!(
                "tools/call of `{}` without a task (the tool requires task-augmented execution)",
                params.name
            )));
        }
        tool.call(params.arguments, cx).await
    }

    async fn call_tool_as_task(
        &self,
        params: CallToolRequestParams,
        cx: Context,
    ) -> Result<CreateTaskResult, RpcError> {
        let manager = self.task_manager(ClientRequestMethod::CallTool)?;
        let tool = read(&self.inner.tools).get(&params.name).cloned();
        let Some(tool) = tool else {
            return Err(RpcError::invalid_params(format!(
                "unknown tool `{}`",
                params.name
            )));
        };
        if tool.task_support_of() == ToolExecutionTaskSupport::Forbidden {
            return Err(RpcError::method_not_found(&format!(
                "tools/call of `{}` as a task (the tool does not support task-augmented execution)",
                params.name
            )));
        }
        tasks::start(manager, tool, params, cx).await
    }

    fn header_params(&self, name: &str) -> Option<super::HeaderParams> {
        read(&self.inner.tools)
            .get(name)
            .map(|tool| tool.header_params.clone())
    }

    fn runs_as_task(&self, name: &str) -> bool {
        self.inner.tasks.is_some()
            && read(&self.inner.tools)
                .get(name)
                .is_some_and(|t| t.task_support_of() != ToolExecutionTaskSupport::Forbidden)
    }

    async fn tasks_extension(
        &self,
        request: TasksRequest,
        cx: Context,
    ) -> Result<Map<String, Value>, RpcError> {
        let manager = self.task_manager(ClientRequestMethod::CallTool)?;
        tasks::extension(manager, request, &cx).await
    }

    async fn get_task(
        &self,
        params: GetTaskRequestParams,
        cx: Context,
    ) -> Result<GetTaskResult, RpcError> {
        tasks::get(
            self.task_manager(ClientRequestMethod::GetTask)?,
            &params.task_id,
            &cx,
        )
        .await
    }

    async fn get_task_payload(
        &self,
        params: GetTaskPayloadRequestParams,
        cx: Context,
    ) -> Result<Box<RawValue>, RpcError> {
        tasks::result(
            self.task_manager(ClientRequestMethod::GetTaskPayload)?,
            &params.task_id,
            &cx,
        )
        .await
    }

    async fn list_tasks(
        &self,
        params: Option<PaginatedRequestParams>,
        cx: Context,
    ) -> Result<ListTasksResult, RpcError> {
        tasks::list(
            self.task_manager(ClientRequestMethod::ListTasks)?,
            cursor(params.as_ref()),
            self.inner.page_size,
            &cx,
        )
        .await
    }

    async fn cancel_task(
        &self,
        params: CancelTaskRequestParams,
        cx: Context,
    ) -> Result<CancelTaskResult, RpcError> {
        tasks::cancel(
            self.task_manager(ClientRequestMethod::CancelTask)?,
            &params.task_id,
            &cx,
        )
        .await
    }

    async fn list_resources(
        &self,
        params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListResourcesResult, RpcError> {
        let (defs, next_cursor) = page(
            &read(&self.inner.resources),
            cursor(params.as_ref()),
            self.inner.page_size,
        )?;
        Ok(ListResourcesResult {
            next_cursor,
            ..ListResourcesResult::new(defs.into_iter().map(|d| d.resource).collect())
        })
    }

    async fn list_resource_templates(
        &self,
        params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        let (defs, next_cursor) = page(
            &read(&self.inner.templates),
            cursor(params.as_ref()),
            self.inner.page_size,
        )?;
        Ok(ListResourceTemplatesResult {
            next_cursor,
            ..ListResourceTemplatesResult::new(defs.into_iter().map(|d| d.template).collect())
        })
    }

    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        cx: Context,
    ) -> Result<ReadResourceResult, RpcError> {
        let uri = params.uri;
        let exact = read(&self.inner.resources)
            .get(&uri)
            .map(|d| d.read.clone());
        if let Some(read_fn) = exact {
            return read_fn(uri, cx).await;
        }
        let matched = read(&self.inner.templates)
            .values()
            .find_map(|t| t.matcher.matches(&uri).map(|vars| (t.read.clone(), vars)));
        match matched {
            Some((read_fn, vars)) => read_fn(uri, vars, cx).await,
            None => Err(RpcError::new(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!("Resource not found: {uri}"),
            )
            .with_data(serde_json::json!({ "uri": uri }))),
        }
    }

    async fn subscribe(
        &self,
        params: SubscribeRequestParams,
        cx: Context,
    ) -> Result<EmptyResult, RpcError> {
        cx.session.subscribe(params.uri);
        Ok(EmptyResult::new())
    }

    async fn unsubscribe(
        &self,
        params: UnsubscribeRequestParams,
        cx: Context,
    ) -> Result<EmptyResult, RpcError> {
        cx.session.unsubscribe(&params.uri);
        Ok(EmptyResult::new())
    }

    async fn list_prompts(
        &self,
        params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListPromptsResult, RpcError> {
        let (defs, next_cursor) = page(
            &read(&self.inner.prompts),
            cursor(params.as_ref()),
            self.inner.page_size,
        )?;
        Ok(ListPromptsResult {
            next_cursor,
            ..ListPromptsResult::new(defs.into_iter().map(|d| d.prompt).collect())
        })
    }

    async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        cx: Context,
    ) -> Result<GetPromptResult, RpcError> {
        let prompt = read(&self.inner.prompts).get(&params.name).cloned();
        let Some(prompt) = prompt else {
            return Err(RpcError::invalid_params(format!(
                "unknown prompt `{}`",
                params.name
            )));
        };
        let arguments = params.arguments.unwrap_or_default();
        prompt.check_arguments(&arguments)?;
        (prompt.get)(arguments, cx).await
    }

    async fn complete(
        &self,
        params: CompleteRequestParams,
        cx: Context,
    ) -> Result<CompleteResult, RpcError> {
        let Some(complete) = &self.inner.completion else {
            return Err(RpcError::method_not_found(
                ClientRequestMethod::Complete.as_str(),
            ));
        };
        let completion = complete(params, cx).await?;
        Ok(CompleteResult::new(completion))
    }
}
