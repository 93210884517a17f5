use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::Context;
use crate::extensions::ExtensionMethod;
use crate::jsonrpc::RpcError;
use crate::schema::{
    CallToolRequestParams, CallToolResult, CancelTaskRequestParams, CancelTaskResult,
    ClientRequestMethod, CompleteRequestParams, CompleteResult, CreateTaskResult, EmptyResult,
    GetPromptRequestParams, GetPromptResult, GetTaskPayloadRequestParams, GetTaskRequestParams,
    GetTaskResult, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListTasksResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResult, ServerCapabilities, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use crate::tasks::TasksRequest;

/// Who the server is, sent in the `initialize` result.
#[derive(Clone, Debug)]
pub struct ServerInfo {
    /// Name and version.
    pub implementation: Implementation,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Hints for the model about how to use the server.
    pub instructions: Option<String>,
}

/// Full control over every client request. Each method's default answers
/// "method not found", so implement those whose capability
/// [`info`](Self::info) declares.
///
/// The session engine handles the lifecycle (`initialize`, `ping`,
/// `notifications/initialized`), `logging/setLevel`, cancellation and progress
/// before any of these methods is called: they never need to check whether
/// the session is initialized.
///
/// Most servers use [`Server`](super::Server), which implements this trait
/// from registered tools, resources and prompts.
#[async_trait]
pub trait ServerHandler: Send + Sync + 'static {
    /// Name, version, capabilities and instructions.
    fn info(&self) -> ServerInfo;

    /// `tools/list`.
    async fn list_tools(
        &self,
        _params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListToolsResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::ListTools.as_str(),
        ))
    }

    /// `tools/call`.
    async fn call_tool(
        &self,
        _params: CallToolRequestParams,
        _cx: Context,
    ) -> Result<CallToolResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::CallTool.as_str(),
        ))
    }

    /// `resources/list`.
    async fn list_resources(
        &self,
        _params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListResourcesResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::ListResources.as_str(),
        ))
    }

    /// `resources/templates/list`.
    async fn list_resource_templates(
        &self,
        _params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::ListResourceTemplates.as_str(),
        ))
    }

    /// `resources/read`.
    async fn read_resource(
        &self,
        _params: ReadResourceRequestParams,
        _cx: Context,
    ) -> Result<ReadResourceResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::ReadResource.as_str(),
        ))
    }

    /// `resources/subscribe`.
    async fn subscribe(
        &self,
        _params: SubscribeRequestParams,
        _cx: Context,
    ) -> Result<EmptyResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::Subscribe.as_str(),
        ))
    }

    /// `resources/unsubscribe`.
    async fn unsubscribe(
        &self,
        _params: UnsubscribeRequestParams,
        _cx: Context,
    ) -> Result<EmptyResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::Unsubscribe.as_str(),
        ))
    }

    /// `prompts/list`.
    async fn list_prompts(
        &self,
        _params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListPromptsResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::ListPrompts.as_str(),
        ))
    }

    /// `prompts/get`.
    async fn get_prompt(
        &self,
        _params: GetPromptRequestParams,
        _cx: Context,
    ) -> Result<GetPromptResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::GetPrompt.as_str(),
        ))
    }

    /// `tools/call` with `task` params, when [`info`](Self::info) declares
    /// `tasks.requests.tools.call`: start the call and answer at once.
    async fn call_tool_as_task(
        &self,
        _params: CallToolRequestParams,
        _cx: Context,
    ) -> Result<CreateTaskResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::CallTool.as_str(),
        ))
    }

    /// `tasks/get`.
    async fn get_task(
        &self,
        _params: GetTaskRequestParams,
        _cx: Context,
    ) -> Result<GetTaskResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::GetTask.as_str(),
        ))
    }

    /// `tasks/result`: waits for the task to end; returns exactly what the
    /// underlying request returned (encoded), or its error.
    async fn get_task_payload(
        &self,
        _params: GetTaskPayloadRequestParams,
        _cx: Context,
    ) -> Result<Box<RawValue>, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::GetTaskPayload.as_str(),
        ))
    }

    /// `tasks/list`.
    async fn list_tasks(
        &self,
        _params: Option<PaginatedRequestParams>,
        _cx: Context,
    ) -> Result<ListTasksResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::ListTasks.as_str(),
        ))
    }

    /// `tasks/cancel`.
    async fn cancel_task(
        &self,
        _params: CancelTaskRequestParams,
        _cx: Context,
    ) -> Result<CancelTaskResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::CancelTask.as_str(),
        ))
    }

    /// Whether a `tools/call` of tool `name` becomes a task when the client
    /// allows it (2026-07-28, the tasks extension: the server decides, the
    /// client only opts in). Such calls go to
    /// [`call_tool_as_task`](Self::call_tool_as_task). Default: never.
    fn runs_as_task(&self, _name: &str) -> bool {
        false
    }

    /// The arguments of tool `name` that its input schema marks
    /// `x-mcp-header`. Over Streamable HTTP at 2026-07-28 the engine checks,
    /// before the call, that the request's `Mcp-Param-*` headers repeat
    /// them (-32020, HTTP 400 otherwise). Default: `None`, nothing checked.
    fn header_params(&self, _name: &str) -> Option<super::HeaderParams> {
        None
    }

    /// A request of the tasks extension (2026-07-28: `tasks/get`,
    /// `tasks/update`, `tasks/cancel`), once the engine has checked that
    /// [`info`](Self::info) offers task-augmented `tools/call` and that the
    /// client declared the extension. Answers the result object
    /// (`resultType` is added by the engine).
    async fn tasks_extension(
        &self,
        request: TasksRequest,
        _cx: Context,
    ) -> Result<Map<String, Value>, RpcError> {
        let method = match request {
            TasksRequest::Get { .. } => ExtensionMethod::TasksGet,
            TasksRequest::Update { .. } => ExtensionMethod::TasksUpdate,
            TasksRequest::Cancel { .. } => ExtensionMethod::TasksCancel,
        };
        Err(RpcError::method_not_found(method.as_str()))
    }

    /// A request of an extension the engine has no typed method for (the
    /// skills extension's `skills/list`, `skills/get` and
    /// `resources/directory/read`), with its params as sent (`_meta` taken
    /// out). Called only for a method of an extension that
    /// [`info`](Self::info) declares under `extensions` (and, where the
    /// method's table row says so, that the client declared). Answers the
    /// result object (`resultType` and, for cacheable methods, the caching
    /// hints are added by the engine). [`Server`](super::Server) answers
    /// the skills extension's from its [`SkillCatalog`](crate::skills::SkillCatalog).
    async fn extension_request(
        &self,
        method: ExtensionMethod,
        _params: Map<String, Value>,
        _cx: Context,
    ) -> Result<Map<String, Value>, RpcError> {
        Err(RpcError::method_not_found(method.as_str()))
    }

    /// `completion/complete`.
    async fn complete(
        &self,
        _params: CompleteRequestParams,
        _cx: Context,
    ) -> Result<CompleteResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::Complete.as_str(),
        ))
    }

    /// `subscriptions/listen` (2026-07-28): a stream of change
    /// notifications until the client ends it.
    async fn subscriptions_listen(
        &self,
        _params: crate::schema::SubscriptionsListenRequestParams,
        _cx: Context,
    ) -> Result<crate::schema::SubscriptionsListenResult, RpcError> {
        Err(RpcError::method_not_found(
            ClientRequestMethod::SubscriptionsListen.as_str(),
        ))
    }

    /// The key that seals `requestState` of input-required rounds
    /// (2026-07-28). Replicas behind one load balancer return the same key;
    /// `None` (the default) uses a random key drawn once per process.
    fn request_state_key(&self) -> Option<super::RequestStateKey> {
        None
    }

    /// The client's root list changed.
    async fn roots_list_changed(&self, _cx: Context) {}

    /// A new session finished initializing.
    async fn initialized(&self, _cx: Context) {}
}
