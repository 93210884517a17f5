use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Context;
use crate::jsonrpc::RpcError;
use crate::param_headers::{self, ParamHeader};
use crate::schema::{CallToolResult, ContentBlock, ObjectSchema, Tool, ToolAnnotations};
use crate::{Error, Result};

type Handler = Arc<
    dyn Fn(
            Map<String, Value>,
            Context,
        ) -> BoxFuture<'static, std::result::Result<CallToolResult, RpcError>>
        + Send
        + Sync,
>;

/// A tool: its definition as listed to clients, a validator for its input
/// schema, and its handler. Cheap to clone (a call clones it).
#[derive(Clone)]
pub struct ToolDef {
    pub(crate) tool: Arc<Tool>,
    validator: Arc<InputValidator>,
    handler: Handler,
    /// Under the tasks extension: questions come before the task.
    pub(crate) asks_before_task: bool,
    /// The arguments its input schema marks `x-mcp-header` (read once).
    pub(crate) header_params: HeaderParams,
}

/// The arguments a tool's input schema marks `x-mcp-header`: a 2026-07-28
/// client mirrors them as `Mcp-Param-*` headers over Streamable HTTP, and the
/// server checks that those headers repeat the body (SEP-2243). Read once,
/// when the tool is defined.
#[derive(Clone, Debug, Default)]
pub struct HeaderParams(pub(crate) Arc<[ParamHeader]>);

impl HeaderParams {
    /// Reads the declarations of an input schema; an invalid one (on a
    /// non-primitive, unreachable property, a bad header name, a name used
    /// twice) is an error naming it.
    pub fn of_input_schema(input_schema: &Value) -> std::result::Result<Self, String> {
        param_headers::declarations(input_schema).map(|found| Self(found.into()))
    }

    /// Whether no argument is mirrored.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The validator of a tool's input schema. A schema given as is is compiled
/// when the tool is defined, so that a bad one is refused then; one derived
/// from a type (always valid) is compiled at the first call, because the
/// first compile in a process also compiles the meta-schema (milliseconds),
/// which a server should not spend before it answers `initialize`.
struct InputValidator {
    /// The schema, until compiled (`Null` once it is).
    schema: Value,
    compiled: OnceLock<std::result::Result<jsonschema::Validator, String>>,
}

impl InputValidator {
    fn eager(schema: &Value) -> std::result::Result<Self, String> {
        let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
        Ok(Self {
            schema: Value::Null,
            compiled: OnceLock::from(Ok(validator)),
        })
    }

    fn lazy(schema: Value) -> Self {
        Self {
            schema,
            compiled: OnceLock::new(),
        }
    }

    fn get(&self) -> std::result::Result<&jsonschema::Validator, &str> {
        self.compiled
            .get_or_init(|| jsonschema::validator_for(&self.schema).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }
}

impl fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDef")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

/// What a typed tool handler may return: text, content, a full result, or
/// [`Json`] for structured output.
pub trait ToolOutput: Send + 'static {
    /// The `outputSchema` this output type implies, if any.
    fn output_schema() -> Option<Value> {
        None
    }

    /// Turns the output into a tool result.
    fn into_result(self) -> CallToolResult;
}

impl ToolOutput for CallToolResult {
    fn into_result(self) -> CallToolResult {
        self
    }
}

impl ToolOutput for String {
    fn into_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl ToolOutput for &'static str {
    fn into_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl ToolOutput for ContentBlock {
    fn into_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl ToolOutput for Vec<ContentBlock> {
    fn into_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

/// Structured tool output: serialized into `structuredContent` (and, as JSON
/// text, into `content`); its type's schema becomes the tool's `outputSchema`.
#[derive(Clone, Debug, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema + Send + 'static> ToolOutput for Json<T> {
    fn output_schema() -> Option<Value> {
        Some(schemars::schema_for!(T).to_value())
    }

    fn into_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(Value::Object(map)) => CallToolResult::structured(map),
            Ok(other) => CallToolResult::error(format!(
                "structured output must be a JSON object, got {other}"
            )),
            Err(e) => CallToolResult::error(format!("could not encode the tool's output: {e}")),
        }
    }
}

impl ToolOutput for () {
    fn into_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

/// What a tool handler of [`ToolDef::typed`] (and a `#[tool]` method) may
/// return: any [`ToolOutput`], or a `Result` of one. An `Err` becomes a
/// result with `isError: true` carrying its message, so that the model sees
/// it, except an [`RpcError`], which is answered as that JSON-RPC error.
pub trait IntoToolResult: Send + 'static {
    /// The `outputSchema` this type implies, if any.
    fn output_schema() -> Option<Value>;

    /// Turns the value into the answer to `tools/call`.
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError>;
}

impl<T: ToolOutput> IntoToolResult for T {
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }

    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        Ok(self.into_result())
    }
}

impl<T: ToolOutput, E: fmt::Display + Send + 'static> IntoToolResult for std::result::Result<T, E> {
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }

    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        match self {
            Ok(output) => Ok(output.into_result()),
            Err(e) => tool_error(e),
        }
    }
}

/// An error of a tool handler: an [`RpcError`] is answered as such, anything
/// else becomes `isError: true` with its message.
fn tool_error<E: fmt::Display + 'static>(e: E) -> std::result::Result<CallToolResult, RpcError> {
    match (&e as &dyn std::any::Any).downcast_ref::<RpcError>() {
        Some(rpc) => Err(rpc.clone()),
        None => Ok(CallToolResult::error(e.to_string())),
    }
}

/// Checks a tool name against SEP-986: 1 to 128 characters from
/// `A-Z a-z 0-9 _ - .`.
pub fn validate_tool_name(name: &str) -> Result<()> {
    let ok_len = (1..=128).contains(&name.len());
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')));
    match (ok_len, bad) {
        (true, None) => Ok(()),
        (false, _) => Err(Error::InvalidArgument(format!(
            "tool name `{name}` must be 1 to 128 characters long"
        ))),
        (_, Some(c)) => Err(Error::InvalidArgument(format!(
            "tool name `{name}` contains `{c}`; allowed are A-Z, a-z, 0-9, `_`, `-` and `.`"
        ))),
    }
}

impl ToolDef {
    /// A typed tool: arguments are validated against `A`'s JSON Schema
    /// (derived with schemars), then deserialized into `A`. An `Err` from the
    /// handler becomes a result with `isError: true` carrying its message —
    /// except an [`RpcError`], which is answered as that JSON-RPC error (for
    /// protocol-level conditions such as -32042, URL elicitation required).
    pub fn new<A, O, E, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Result<Self>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        O: ToolOutput,
        E: fmt::Display + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<O, E>> + Send + 'static,
    {
        let input_schema = schemars::schema_for!(A).to_value();
        let handler = Arc::new(handler);
        let mut def = Self::build(
            name,
            input_schema,
            false,
            move |args: Map<String, Value>, cx: Context| {
                let call = start_typed(args, |args| handler(args, cx));
                async move {
                    let call = match call {
                        Ok(call) => call,
                        Err(invalid) => return Ok(*invalid),
                    };
                    match call.await {
                        Ok(output) => Ok(output.into_result()),
                        Err(e) => match (&e as &dyn std::any::Any).downcast_ref::<RpcError>() {
                            Some(rpc) => Err(rpc.clone()),
                            None => Ok(CallToolResult::error(e.to_string())),
                        },
                    }
                }
            },
        )?;
        Arc::make_mut(&mut def.tool).description = Some(description.into());
        if let Some(schema) = O::output_schema() {
            def = def.output_schema(schema)?;
        }
        Ok(def)
    }

    /// A typed tool that cannot fail to be defined: its name was checked
    /// already (with [`tool_name!`](crate::tool_name) while compiling, or
    /// [`ToolName::new`](super::ToolName::new)), and its schemas come from
    /// types. Arguments are validated against `A`'s JSON Schema, then
    /// deserialized into `A`; the handler returns any [`IntoToolResult`]
    /// (text, [`Json`] for structured output with an `outputSchema`, a
    /// `Result` of those), so no error type needs naming.
    ///
    /// ```
    /// use mcp_core::server::{Json, ToolDef};
    /// # use schemars::JsonSchema;
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Add { a: i64, b: i64 }
    /// #[derive(Serialize, JsonSchema)]
    /// struct Sum { sum: i64 }
    ///
    /// let add = ToolDef::typed(mcp_core::tool_name!("add"), |args: Add, _cx| async move {
    ///     Json(Sum { sum: args.a + args.b })
    /// })
    /// .description("Adds two integers");
    /// ```
    ///
    /// The root `title` schemars gives the schema (the Rust type's name) is
    /// left out. A schema derived from `A` that does not say `"type": "object"`
    /// (arguments are always an object: an enum of structs, say) is served
    /// with it; an output type whose schema is no object schema gives the
    /// tool no `outputSchema` (and a warning in the log).
    pub fn typed<A, R, F, Fut>(name: super::ToolName, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
    {
        let mut input_schema = match schemars::schema_for!(A).to_value() {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        // The Rust type's name is no title for clients (the tool has one).
        input_schema.remove("title");
        let header_params =
            match HeaderParams::of_input_schema(&Value::Object(input_schema.clone())) {
                Ok(found) => found,
                Err(e) => {
                    tracing::warn!(tool = %name, "arguments mirrored in headers ignored: {e}");
                    HeaderParams::default()
                }
            };
        let validator = InputValidator::lazy(Value::Object(input_schema.clone()));
        let handler = Arc::new(handler);
        let handler: Handler = Arc::new(move |args: Map<String, Value>, cx: Context| {
            let call = start_typed(args, |args| handler(args, cx));
            Box::pin(async move {
                match call {
                    Ok(call) => call.await.into_tool_result(),
                    Err(invalid) => Ok(*invalid),
                }
            })
        });
        let mut tool = Tool::new(
            ObjectSchema::with_object_type(input_schema),
            name.as_str().to_owned(),
        );
        if let Some(schema) = R::output_schema() {
            match ObjectSchema::try_from(schema) {
                Ok(schema) => tool.output_schema = Some(schema.into()),
                Err(e) => tracing::warn!(tool = %name, "no outputSchema: {e}"),
            }
        }
        Self {
            tool: Arc::new(tool),
            validator: Arc::new(validator),
            handler,
            asks_before_task: false,
            header_params,
        }
    }

    /// A tool with a JSON Schema given as is (served exactly as given) and a
    /// handler that receives the validated arguments object.
    pub fn raw<F, Fut>(name: impl Into<String>, input_schema: Value, handler: F) -> Result<Self>
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CallToolResult> + Send + 'static,
    {
        let handler = Arc::new(handler);
        Self::fallible(name, input_schema, move |args, cx| {
            let handler = handler.clone();
            async move { Ok(handler(args, cx).await) }
        })
    }

    /// Like [`raw`](Self::raw), but the handler may answer with a JSON-RPC
    /// error instead of a result (e.g. -32042, URL elicitation required).
    pub fn fallible<F, Fut>(
        name: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Result<Self>
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<CallToolResult, RpcError>> + Send + 'static,
    {
        Self::build(name, input_schema, true, handler)
    }

    /// A tool whose input schema is compiled now (`eager`) or at its first
    /// call (see [`InputValidator`]).
    fn build<F, Fut>(
        name: impl Into<String>,
        input_schema: Value,
        eager: bool,
        handler: F,
    ) -> Result<Self>
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<CallToolResult, RpcError>> + Send + 'static,
    {
        let name = name.into();
        validate_tool_name(&name)?;
        let validator = if eager {
            InputValidator::eager(&input_schema).map_err(|e| {
                Error::InvalidArgument(format!(
                    "input schema of tool `{name}` is not a valid JSON Schema: {e}"
                ))
            })?
        } else {
            InputValidator::lazy(input_schema.clone())
        };
        let header_params = HeaderParams::of_input_schema(&input_schema)
            .map_err(|e| Error::InvalidArgument(format!("input schema of tool `{name}`: {e}")))?;
        let input_schema = ObjectSchema::try_from(input_schema)
            .map_err(|e| Error::InvalidArgument(format!("input schema of tool `{name}`: {e}")))?;
        let handler: Handler = Arc::new(move |args, cx| Box::pin(handler(args, cx)));
        Ok(Self {
            tool: Arc::new(Tool::new(input_schema, name)),
            validator: Arc::new(validator),
            handler,
            asks_before_task: false,
            header_params,
        })
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.tool).description = Some(description.into());
        self
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.tool).title = Some(title.into());
        self
    }

    /// Sets behaviour hints (read-only, destructive, idempotent, open world).
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        Arc::make_mut(&mut self.tool).annotations = Some(annotations);
        self
    }

    /// Sets icons.
    #[must_use]
    pub fn icons(mut self, icons: Vec<crate::schema::Icon>) -> Self {
        Arc::make_mut(&mut self.tool).icons = Some(icons);
        self
    }

    /// Whether the tool may (or must) run as a task (default: forbidden).
    #[must_use]
    pub fn task_support(mut self, support: crate::schema::ToolExecutionTaskSupport) -> Self {
        Arc::make_mut(&mut self.tool).execution = Some(crate::schema::ToolExecution {
            task_support: Some(support),
            ..crate::schema::ToolExecution::new()
        });
        self
    }

    /// Under the tasks extension (2026-07-28), the questions this tool asks
    /// before it first waits on anything else are input-required rounds of
    /// the `tools/call` itself, and the task begins once it waits on
    /// something else (SEP-2663: input gathered synchronously, then the
    /// task); questions after that wait in the task's `inputRequests`. By
    /// default the task begins at once and every question waits there.
    #[must_use]
    pub fn asks_before_task(mut self) -> Self {
        self.asks_before_task = true;
        self
    }

    /// The tool's declared task support.
    pub fn task_support_of(&self) -> crate::schema::ToolExecutionTaskSupport {
        self.tool
            .execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or(crate::schema::ToolExecutionTaskSupport::Forbidden)
    }

    /// Sets the output schema (a JSON object schema, served as given).
    pub fn output_schema(mut self, schema: Value) -> Result<Self> {
        let schema = ObjectSchema::try_from(schema).map_err(|e| {
            Error::InvalidArgument(format!("output schema of tool `{}`: {e}", self.tool.name))
        })?;
        Arc::make_mut(&mut self.tool).output_schema = Some(schema.into());
        Ok(self)
    }

    /// Sets the tool's `_meta` (served as given).
    #[must_use]
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        Arc::make_mut(&mut self.tool).meta = Some(meta);
        self
    }

    /// The definition clients see.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Validates and runs the tool. Validation failures are tool errors
    /// (`isError: true`) so that the model can correct its call (SEP-1303).
    pub(crate) async fn call(
        &self,
        arguments: Option<Map<String, Value>>,
        cx: Context,
    ) -> std::result::Result<CallToolResult, RpcError> {
        self.start(arguments, cx).await
    }

    /// Validates the arguments and starts the handler now; the future is
    /// the handler's own (what [`call`](Self::call) awaits), so a caller
    /// that is itself being polled adds no future of its own around it.
    pub(crate) fn start(
        &self,
        arguments: Option<Map<String, Value>>,
        cx: Context,
    ) -> BoxFuture<'static, std::result::Result<CallToolResult, RpcError>> {
        match self.checked(arguments) {
            Ok(arguments) => (self.handler)(arguments, cx),
            Err(answer) => Box::pin(std::future::ready(*answer)),
        }
    }

    /// The arguments if they are valid, else the answer to give.
    fn checked(
        &self,
        arguments: Option<Map<String, Value>>,
    ) -> std::result::Result<Map<String, Value>, Box<std::result::Result<CallToolResult, RpcError>>>
    {
        let validator = match self.validator.get() {
            Ok(validator) => validator,
            Err(e) => {
                return Err(Box::new(Err(RpcError::internal(format!(
                    "input schema of tool `{}` is not a valid JSON Schema: {e}",
                    self.tool.name
                )))));
            }
        };
        let arguments = arguments.unwrap_or_default();
        let instance = Value::Object(arguments);
        // Valid arguments (the usual case) skip collecting the errors.
        let problems: Vec<String> = if validator.is_valid(&instance) {
            Vec::new()
        } else {
            validator
                .iter_errors(&instance)
                .map(|e| {
                    let path = e.instance_path().to_string();
                    if path.is_empty() {
                        e.to_string()
                    } else {
                        format!("{path}: {e}")
                    }
                })
                .collect()
        };
        if !problems.is_empty() {
            return Err(Box::new(Ok(CallToolResult::error(format!(
                "Invalid arguments for tool `{}`: {}",
                self.tool.name,
                problems.join("; ")
            )))));
        }
        let Value::Object(arguments) = instance else {
            return Err(Box::new(Ok(CallToolResult::error(
                "arguments must be an object",
            ))));
        };
        Ok(arguments)
    }
}

/// Deserializes a typed tool's arguments and starts its handler now, so that
/// the tool's future holds only the handler's (not the context and the
/// arguments too); arguments that do not fit `A` are the tool's error.
fn start_typed<A: DeserializeOwned, R>(
    args: Map<String, Value>,
    start: impl FnOnce(A) -> R,
) -> std::result::Result<R, Box<CallToolResult>> {
    serde_json::from_value::<A>(Value::Object(args))
        .map(start)
        .map_err(|e| Box::new(CallToolResult::error(format!("Invalid arguments: {e}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_sep_986() {
        assert!(validate_tool_name("get_weather.v2-beta").is_ok());
        assert!(validate_tool_name("").is_err());
        assert!(validate_tool_name(&"x".repeat(129)).is_err());
        assert!(validate_tool_name("has space").is_err());
        assert!(validate_tool_name("slash/name").is_err());
    }

    #[test]
    fn raw_schema_is_kept_exactly() {
        let schema = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"z": {"type": "string"}, "a": {"$ref": "#/$defs/n"}},
            "$defs": {"n": {"type": "number"}},
            "additionalProperties": false
        });
        let def = ToolDef::raw("t", schema.clone(), |_, _| async {
            CallToolResult::text("")
        })
        .unwrap();
        let text = serde_json::to_string(&def.tool().input_schema).unwrap();
        assert_eq!(text, serde_json::to_string(&schema).unwrap());
    }

    #[test]
    fn rejects_non_object_schemas() {
        let err = ToolDef::raw("t", serde_json::json!({"type": "string"}), |_, _| async {
            CallToolResult::text("")
        })
        .unwrap_err();
        assert!(err.to_string().contains("\"type\": \"object\""), "{err}");
    }
}
