//! [`Server`]: a [`ServerHandler`] made of registered tools, resources,
//! resource templates, prompts and a completion handler, changeable before
//! and while it is served (see `catalog.rs` for how a change is made).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};

use arc_swap::ArcSwap;
use async_trait::async_trait;
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::runtime::Handle;

use super::catalog::{Catalog, Kind};
use super::pagination::page;
use super::request_state::RequestStateKey;
use super::service::{ServerSession, serve};
use super::session_state::SessionState;
use super::subscriptions::{self, ChangeBus};
use super::tasks;
use super::{Context, ServerHandler, ServerInfo};

mod changes;
use crate::Result;
use crate::extensions::ExtensionMethod;
use crate::jsonrpc::{ErrorCode, RpcError};
use crate::schema::{
    CallToolRequestParams, CallToolResult, CancelTaskRequestParams, CancelTaskResult,
    ClientRequestMethod, CompleteRequestParams, CompleteResult, CompleteResultCompletion,
    CreateTaskResult, EmptyResult, GetPromptRequestParams, GetPromptResult,
    GetTaskPayloadRequestParams, GetTaskRequestParams, GetTaskResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListTasksResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult, SubscribeRequestParams,
    SubscriptionFilter, SubscriptionsListenRequestParams, SubscriptionsListenResult,
    ToolExecutionTaskSupport, UnsubscribeRequestParams,
};
use crate::session::SessionConfig;
use crate::tasks::{TaskManager, TasksRequest};
use crate::transport::Transport;

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
/// Everything can be registered on the built server too, before it is
/// served and while it is ([`register_tool`](Self::register_tool),
/// [`add_tool`](Self::add_tool), …): the capabilities follow from what is
/// registered until it is first served, and once served the clients hear of
/// every change of a list (`notifications/*/list_changed`, and
/// `subscriptions/listen` streams).
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

/// A task store shared by replicas, and the bus linking them.
type SharedTasks = (
    Arc<dyn crate::store::TaskStore>,
    Option<Arc<dyn crate::store::Bus>>,
);

struct Inner {
    page_size: usize,
    config: SessionConfig,
    bus: ChangeBus,
    request_state_key: Option<RequestStateKey>,
    /// What the server serves now; requests read it without a lock.
    catalog: ArcSwap<Catalog>,
    /// Serializes changes: each one copies the current catalog.
    changing: Mutex<()>,
    /// The runtime the server was last served on: announcements of changes
    /// made outside any runtime are sent from there.
    runtime: Mutex<Option<Handle>>,
    /// The key replicas share, from the HTTP server's stores; used when the
    /// builder set none.
    shared_request_state_key: std::sync::OnceLock<RequestStateKey>,
    /// The task store replicas share (and the bus linking them), from the
    /// HTTP server's stores; every task manager of this server uses it.
    shared_tasks: std::sync::OnceLock<SharedTasks>,
}

/// What [`ServerBuilder::build`] hands over.
pub(super) struct Parts {
    pub(super) page_size: usize,
    pub(super) config: SessionConfig,
    pub(super) bus: ChangeBus,
    pub(super) request_state_key: Option<RequestStateKey>,
    pub(super) catalog: Catalog,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("implementation", &self.catalog().info.implementation)
            .finish_non_exhaustive()
    }
}

fn lock<T>(lock: &Mutex<T>) -> MutexGuard<'_, T> {
    lock.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Server {
    pub(super) fn from_parts(parts: Parts) -> Self {
        Self {
            inner: Arc::new(Inner {
                page_size: parts.page_size,
                config: parts.config,
                bus: parts.bus,
                request_state_key: parts.request_state_key,
                catalog: ArcSwap::from_pointee(parts.catalog),
                changing: Mutex::new(()),
                runtime: Mutex::new(None),
                shared_request_state_key: std::sync::OnceLock::new(),
                shared_tasks: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Serves one client over `transport` (inside a Tokio runtime).
    pub fn serve(&self, transport: impl Transport) -> Result<ServerSession> {
        self.mark_served();
        let session = serve(Arc::new(self.clone()), transport, self.inner.config.clone())?;
        self.register(&session);
        Ok(session)
    }

    /// The settings of every session of this server.
    #[cfg(feature = "http-server")]
    pub(crate) fn session_config(&self) -> &SessionConfig {
        &self.inner.config
    }

    /// Called when the server starts serving (inside the runtime serving
    /// it): what it offers is settled, and announcements of later changes
    /// have a runtime to go out from.
    pub(crate) fn mark_served(&self) {
        if let Ok(handle) = Handle::try_current() {
            *lock(&self.inner.runtime) = Some(handle);
        }
        if !self.catalog().served {
            self.change(|catalog| catalog.settle());
        }
    }

    /// The current catalog.
    fn catalog(&self) -> arc_swap::Guard<Arc<Catalog>> {
        self.inner.catalog.load()
    }

    /// What answering a request that stands alone needs, as of now.
    #[cfg(feature = "http-server")]
    pub(crate) fn profile(&self) -> Option<Arc<super::stateless::Profile>> {
        self.catalog().profile.clone()
    }

    /// Keeps this server's tasks in `store`, shared with other replicas,
    /// which `bus` links (cancellations, answers, changes); a task manager
    /// the server gets later (a task tool registered while serving) too.
    #[cfg(feature = "http-server")]
    pub(crate) fn share_tasks(
        &self,
        store: Arc<dyn crate::store::TaskStore>,
        bus: Option<Arc<dyn crate::store::Bus>>,
    ) {
        let _ = self.inner.shared_tasks.set((store, bus));
        self.share_new_tasks();
    }

    /// Hands the shared task store to the current task manager, if both
    /// exist (from inside a runtime: following the bus spawns a task).
    pub(super) fn share_new_tasks(&self) {
        let Some((store, bus)) = self.inner.shared_tasks.get() else {
            return;
        };
        let Some(manager) = self.catalog().tasks.clone() else {
            return;
        };
        let handle = Handle::try_current()
            .ok()
            .or_else(|| lock(&self.inner.runtime).clone());
        if let Some(handle) = handle {
            let _entered = handle.enter();
            manager.share(store.clone(), bus.clone());
        }
    }

    /// Seals `requestState` with `key`, shared by the replicas, unless the
    /// builder gave a key (the first shared key sticks).
    #[cfg(feature = "http-server")]
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

    /// Sends `notifications/resources/updated` to every session subscribed
    /// to `uri` (of every server sharing this one's [`ChangeBus`]) and to
    /// every `subscriptions/listen` stream that asked for it; returns how
    /// many sessions were told.
    pub async fn notify_resource_updated(&self, uri: &str) -> usize {
        self.inner.bus.notify_resource_updated(uri).await
    }

    /// The bus this server announces its changes on.
    #[cfg(feature = "http-server")]
    pub(crate) fn change_bus(&self) -> &ChangeBus {
        &self.inner.bus
    }

    fn task_manager(&self, method: ClientRequestMethod) -> Result<Arc<TaskManager>, RpcError> {
        self.catalog()
            .tasks
            .clone()
            .ok_or_else(|| RpcError::method_not_found(method.as_str()))
    }
}

fn cursor(params: Option<&PaginatedRequestParams>) -> Option<&str> {
    params.and_then(|p| p.cursor.as_deref())
}

#[async_trait]
impl ServerHandler for Server {
    fn info(&self) -> ServerInfo {
        self.catalog().info.clone()
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
        let offers = self.catalog().offers;
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
            &self.catalog().tools,
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

    // Written out rather than `async`: the future is the tool's own (started
    // here, when the dispatch polls this the first time), with no future of
    // this method around it holding the params and context.
    fn call_tool<'life0, 'async_trait>(
        &'life0 self,
        params: CallToolRequestParams,
        cx: Context,
    ) -> Pin<Box<dyn Future<Output = Result<CallToolResult, RpcError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        match self.start_tool(params, cx) {
            Ok(call) => call,
            Err(error) => Box::pin(std::future::ready(Err(error))),
        }
    }

    async fn call_tool_as_task(
        &self,
        params: CallToolRequestParams,
        cx: Context,
    ) -> Result<CreateTaskResult, RpcError> {
        let manager = self.task_manager(ClientRequestMethod::CallTool)?;
        let tool = self.catalog().tools.get(&params.name).cloned();
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
        tasks::start(&manager, tool, params, cx).await
    }

    fn header_params(&self, name: &str) -> Option<super::HeaderParams> {
        self.catalog()
            .tools
            .get(name)
            .map(|tool| tool.header_params.clone())
    }

    fn runs_as_task(&self, name: &str) -> bool {
        let catalog = self.catalog();
        catalog.tasks.is_some()
            && catalog
                .tools
                .get(name)
                .is_some_and(|t| t.task_support_of() != ToolExecutionTaskSupport::Forbidden)
    }

    async fn tasks_extension(
        &self,
        request: TasksRequest,
        cx: Context,
    ) -> Result<Map<String, Value>, RpcError> {
        let manager = self.task_manager(ClientRequestMethod::CallTool)?;
        tasks::extension(&manager, request, &cx).await
    }

    async fn extension_request(
        &self,
        method: ExtensionMethod,
        params: Map<String, Value>,
        _cx: Context,
    ) -> Result<Map<String, Value>, RpcError> {
        use crate::skills::serve;
        let catalog = self.catalog();
        let skills = catalog.skills.as_ref();
        let size = self.inner.page_size;
        match (method, skills) {
            (ExtensionMethod::SkillsList, Some(skills)) => serve::list(skills, params, size),
            (ExtensionMethod::SkillsGet, Some(skills)) => serve::get(skills, params),
            (ExtensionMethod::DirectoryRead, Some(skills)) if skills.offers_directory_read() => {
                serve::directory_read(skills, params, size)
            }
            _ => Err(RpcError::method_not_found(method.as_str())),
        }
    }

    async fn get_task(
        &self,
        params: GetTaskRequestParams,
        cx: Context,
    ) -> Result<GetTaskResult, RpcError> {
        tasks::get(
            &*self.task_manager(ClientRequestMethod::GetTask)?,
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
            &*self.task_manager(ClientRequestMethod::GetTaskPayload)?,
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
            &*self.task_manager(ClientRequestMethod::ListTasks)?,
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
            &*self.task_manager(ClientRequestMethod::CancelTask)?,
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
            &self.catalog().resources,
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
            &self.catalog().templates,
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
        let catalog = self.catalog();
        if let Some(read_fn) = catalog.resources.get(&uri).map(|d| d.read.clone()) {
            drop(catalog);
            return read_fn(uri, cx).await;
        }
        if let Some(read) = catalog
            .skills
            .as_ref()
            .and_then(|skills| crate::skills::serve::read(skills, &uri))
        {
            return Ok(read);
        }
        let matched = catalog
            .templates
            .values()
            .find_map(|t| t.matcher.matches(&uri).map(|vars| (t.read.clone(), vars)));
        drop(catalog);
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
            &self.catalog().prompts,
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
        let prompt = self.catalog().prompts.get(&params.name).cloned();
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
        let Some(complete) = self.catalog().completion.clone() else {
            return Err(RpcError::method_not_found(
                ClientRequestMethod::Complete.as_str(),
            ));
        };
        let completion = complete(params, cx).await?;
        Ok(CompleteResult::new(completion))
    }
}

impl Server {
    /// Starts `tools/call` of a registered tool (see `call_tool`).
    fn start_tool(
        &self,
        params: CallToolRequestParams,
        cx: Context,
    ) -> Result<BoxFuture<'static, Result<CallToolResult, RpcError>>, RpcError> {
        let (tool, has_tasks) = {
            let catalog = self.catalog();
            (
                catalog.tools.get(&params.name).cloned(),
                catalog.tasks.is_some(),
            )
        };
        let Some(tool) = tool else {
            return Err(RpcError::invalid_params(format!(
                "unknown tool `{}`",
                params.name
            )));
        };
        if has_tasks && tool.task_support_of() == ToolExecutionTaskSupport::Required {
            // Under the tasks extension the client did not allow a task.
            if cx.protocol_version().is_some_and(|v| v.has_extensions()) {
                return Err(crate::extensions::missing(crate::extensions::TASKS));
            }
            return Err(RpcError::method_not_found(&format!(
                "tools/call of `{}` without a task (the tool requires task-augmented execution)",
                params.name
            )));
        }
        Ok(tool.start(params.arguments, cx))
    }
}
