//! Requests of a revision without a handshake (2026-07-28): every request
//! carries the client's metadata in `params._meta`, every result says what
//! it is in `resultType`, and an `input_required` result is answered with
//! the user's handlers and the request sent again (MRTR), for a bounded
//! number of rounds.

use std::borrow::Cow;
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::service::ClientService;
use crate::request_meta::{CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, PROTOCOL_VERSION};
use crate::schema::{
    ClientCapabilities, ClientRequestMethod, Implementation, InputRequiredResult, InputResponses,
    LoggingLevel, RequestId,
};
use crate::session::{Peer, RequestContext, RequestOptions};
use crate::{Error, ProtocolVersion, Result};

/// Input-required rounds a request may take before the client gives up.
pub const DEFAULT_MAX_INPUT_ROUNDS: usize = 16;

/// The per-request metadata of one client under one revision.
pub(crate) struct Modern {
    pub(crate) version: ProtocolVersion,
    /// `protocolVersion`, `clientCapabilities` and `clientInfo`.
    meta: Map<String, Value>,
    /// The lowest log level the user asked for (none: no logs).
    log_level: Mutex<Option<LoggingLevel>>,
    pub(crate) max_rounds: usize,
    /// Whether every request declares the tasks extension
    /// ([`ClientBuilder::tasks_extension`](super::ClientBuilder::tasks_extension)).
    pub(crate) tasks_always: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What a result says it is.
pub(crate) enum ResultKind {
    Complete,
    InputRequired,
    /// A task of the tasks extension (`tools/call` only).
    Task,
}

pub(crate) fn result_kind(raw: &RawValue) -> Result<ResultKind> {
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "resultType", borrow)]
        result_type: Option<Cow<'a, str>>,
    }
    let kind: Kind<'_> = serde_json::from_str(raw.get())
        .map_err(|e| Error::Protocol(format!("the result is not an object: {e}")))?;
    match kind.result_type.as_deref() {
        // Absent: a result of an older server, which is complete.
        None | Some("complete") => Ok(ResultKind::Complete),
        Some("input_required") => Ok(ResultKind::InputRequired),
        Some("task") => Ok(ResultKind::Task),
        Some(other) => Err(Error::Protocol(format!(
            "the result has an unknown resultType `{other}`"
        ))),
    }
}

impl Modern {
    pub(crate) fn new(
        version: ProtocolVersion,
        capabilities: &ClientCapabilities,
        info: &Implementation,
        log_level: Option<LoggingLevel>,
        max_rounds: usize,
        tasks_always: bool,
    ) -> Result<Self> {
        let mut capabilities = serde_json::to_value(capabilities)?;
        let tasks_always = tasks_always && version.has_extensions();
        if let Value::Object(caps) = &mut capabilities {
            // Tasks left the core in 2026-07-28 (an extension now).
            if !version.has_tasks() {
                caps.remove("tasks");
            }
            if tasks_always {
                declare_extension(caps, crate::extensions::TASKS);
            }
        }
        let mut meta = Map::new();
        meta.insert(PROTOCOL_VERSION.into(), version.as_str().into());
        meta.insert(CLIENT_CAPABILITIES.into(), capabilities);
        meta.insert(CLIENT_INFO.into(), serde_json::to_value(info)?);
        Ok(Self {
            version,
            meta,
            log_level: Mutex::new(log_level),
            max_rounds,
            tasks_always,
        })
    }

    /// [`stamp`](Self::stamp), also declaring extension `id` in the
    /// request's client capabilities (the user asked for what it adds).
    pub(crate) fn stamp_declaring<P: Serialize + ?Sized>(
        &self,
        params: &P,
        id: Option<&str>,
    ) -> Result<Map<String, Value>> {
        let mut object = self.stamp(params)?;
        if let Some(id) = id {
            let caps = object
                .get_mut("_meta")
                .and_then(Value::as_object_mut)
                .and_then(|m| m.get_mut(CLIENT_CAPABILITIES))
                .and_then(Value::as_object_mut);
            if let Some(caps) = caps {
                declare_extension(caps, id);
            }
        }
        Ok(object)
    }

    /// Whether a request declaring `id` (or not) lets the server answer
    /// with a task.
    fn allows_tasks(&self, declared: Option<&str>) -> bool {
        self.tasks_always || declared == Some(crate::extensions::TASKS)
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level);
    }

    /// `params` as an object with the client's metadata in its `_meta`
    /// (keys the caller put there, such as a progress token, are kept).
    pub(crate) fn stamp<P: Serialize + ?Sized>(&self, params: &P) -> Result<Map<String, Value>> {
        let mut object = match serde_json::to_value(params)? {
            Value::Object(object) => object,
            Value::Null => Map::new(),
            other => {
                return Err(Error::InvalidArgument(format!(
                    "request params must be a JSON object, not {other}"
                )));
            }
        };
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Value::Object(meta) = meta {
            meta.extend(self.meta.iter().map(|(k, v)| (k.clone(), v.clone())));
            if let Some(level) = *lock(&self.log_level) {
                meta.insert(LOG_LEVEL.into(), serde_json::to_value(level)?);
            }
        }
        Ok(object)
    }

    /// Sends `method` until its result is complete, answering every
    /// input-required round with the client's handlers. Each round is a new
    /// request (new id) with the answers and the server's `requestState`
    /// exactly as received.
    pub(crate) async fn call<P: Serialize + ?Sized>(
        &self,
        peer: &Peer,
        service: &ClientService,
        method: &str,
        params: &P,
        options: RequestOptions,
    ) -> Result<Box<RawValue>> {
        self.call_declaring(peer, service, method, params, options, None)
            .await
    }

    /// [`call`](Self::call) declaring extension `declare` too; a
    /// `tools/call` may then be answered with a task (the raw task is
    /// returned; see [`result_kind`]).
    pub(crate) async fn call_declaring<P: Serialize + ?Sized>(
        &self,
        peer: &Peer,
        service: &ClientService,
        method: &str,
        params: &P,
        options: RequestOptions,
        declare: Option<&str>,
    ) -> Result<Box<RawValue>> {
        let core = ClientRequestMethod::from_name(method);
        let may_ask = core.is_some_and(|m| m.spec().input_required.contains(self.version));
        let may_be_task = core == Some(ClientRequestMethod::CallTool) && self.allows_tasks(declare);
        let mut params = self.stamp_declaring(params, declare)?;
        let mut round = 0;
        loop {
            let raw = peer.request_raw(method, &params, options.clone()).await?;
            match result_kind(&raw)? {
                ResultKind::Complete => return Ok(raw),
                ResultKind::Task if may_be_task => return Ok(raw),
                ResultKind::Task => {
                    return Err(Error::Protocol(format!(
                        "the server answered `{method}` with a task, which this request did \
                         not allow (it did not declare the `{}` extension)",
                        crate::extensions::TASKS
                    )));
                }
                ResultKind::InputRequired if !may_ask => {
                    return Err(Error::Protocol(format!(
                        "the server asked for input in answer to `{method}`, which cannot ask"
                    )));
                }
                ResultKind::InputRequired if round == self.max_rounds => {
                    return Err(Error::Protocol(format!(
                        "`{method}` still needs input after {round} rounds; giving up \
                         (ClientBuilder::max_input_rounds)"
                    )));
                }
                ResultKind::InputRequired => {}
            }
            round += 1;
            let asked: InputRequiredResult = serde_json::from_str(raw.get()).map_err(|e| {
                Error::Protocol(format!(
                    "malformed input-required result to `{method}`: {e}"
                ))
            })?;
            if asked.input_requests.is_none() && asked.request_state.is_none() {
                return Err(Error::Protocol(format!(
                    "malformed input-required result to `{method}`: neither inputRequests \
                     nor requestState"
                )));
            }
            let answers = self
                .answer(peer, service, method, asked.input_requests, &options)
                .await?;
            params.remove("inputResponses");
            params.remove("requestState");
            if let Some(answers) = answers {
                params.insert("inputResponses".into(), serde_json::to_value(answers)?);
            }
            if let Some(state) = asked.request_state {
                params.insert("requestState".into(), Value::String(state));
            }
        }
    }

    /// Answers each embedded request in turn through the user's handlers.
    pub(crate) async fn answer(
        &self,
        peer: &Peer,
        service: &ClientService,
        method: &str,
        requests: Option<crate::schema::InputRequests>,
        options: &RequestOptions,
    ) -> Result<Option<InputResponses>> {
        let Some(requests) = requests else {
            return Ok(None);
        };
        let mut answers = indexmap::IndexMap::new();
        for (key, request) in requests.0 {
            let asked = request.tag();
            let ctx = RequestContext {
                id: RequestId::String(key.clone()),
                peer: peer.unrelated(),
                cancel: options.cancel.clone().unwrap_or_default(),
                progress_token: None,
                http: None,
                span: tracing::Span::none(),
            };
            let answer = service.answer_input(request, ctx).await.map_err(|e| {
                Error::Protocol(format!(
                    "`{method}` needs input the client could not give (`{asked}` `{key}`): {}",
                    e.message
                ))
            })?;
            answers.insert(key, answer);
        }
        Ok(Some(InputResponses(answers)))
    }
}

/// Adds extension `id` (with no settings) to a capabilities object.
fn declare_extension(caps: &mut Map<String, Value>, id: &str) {
    let extensions = caps
        .entry("extensions")
        .or_insert_with(|| Value::Object(Map::new()));
    if !extensions.is_object() {
        *extensions = Value::Object(Map::new());
    }
    if let Value::Object(extensions) = extensions {
        extensions
            .entry(id.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn result_kinds() {
        assert!(matches!(result_kind(&raw("{}")), Ok(ResultKind::Complete)));
        assert!(matches!(
            result_kind(&raw(r#"{"resultType":"complete"}"#)),
            Ok(ResultKind::Complete)
        ));
        assert!(matches!(
            result_kind(&raw(r#"{"resultType":"input_required"}"#)),
            Ok(ResultKind::InputRequired)
        ));
        assert!(matches!(
            result_kind(&raw(r#"{"resultType":"task"}"#)),
            Ok(ResultKind::Task)
        ));
        assert!(result_kind(&raw(r#"{"resultType":"later"}"#)).is_err());
        assert!(result_kind(&raw("[1]")).is_err());
    }

    #[test]
    fn stamps_metadata_and_keeps_the_callers() {
        let modern = Modern::new(
            ProtocolVersion::V2026_07_28,
            &ClientCapabilities::new(),
            &Implementation::new("c", "1"),
            Some(LoggingLevel::Info),
            4,
            false,
        )
        .unwrap();
        let params = serde_json::json!({"name": "t", "_meta": {"progressToken": 3}});
        let stamped = modern.stamp(&params).unwrap();
        let meta = &stamped["_meta"];
        assert_eq!(meta["progressToken"], 3);
        assert_eq!(meta[PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(meta[CLIENT_INFO]["name"], "c");
        assert_eq!(meta[LOG_LEVEL], "info");
        assert!(meta[CLIENT_CAPABILITIES].is_object());
        assert!(modern.stamp(&serde_json::json!([1])).is_err());
        assert!(meta[CLIENT_CAPABILITIES].get("extensions").is_none());
        let declaring = modern
            .stamp_declaring(&params, Some(crate::extensions::TASKS))
            .unwrap();
        assert!(
            declaring["_meta"][CLIENT_CAPABILITIES]["extensions"][crate::extensions::TASKS]
                .is_object()
        );
    }
}
