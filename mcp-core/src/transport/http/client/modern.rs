//! Requests that stand alone (2026-07-28): their own headers, tool header
//! declarations learnt from `tools/list`, cancellation by closing the stream.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{
    Answer, Conn, METHOD_HEADER, NAME_HEADER, Outgoing, VERSION_HEADER, forward_error, lock,
    read_answer,
};
use crate::jsonrpc::{Inbound, decode};
use crate::param_headers;
use crate::schema::{RequestId, methods};

impl Conn {
    /// The headers of a 2026-07-28 request (`None`: a request of a session).
    pub(super) fn modern_headers(
        &self,
        method: &str,
        params: Option<&serde_json::value::RawValue>,
    ) -> Option<Vec<(String, String)>> {
        let version = claimed_version(params)?;
        let revision = crate::ProtocolVersion::parse(&version);
        let mut headers = vec![
            (VERSION_HEADER.to_string(), version),
            (
                METHOD_HEADER.to_string(),
                param_headers::encode_value(method),
            ),
        ];
        #[derive(serde::Deserialize)]
        struct Named {
            name: Option<String>,
            uri: Option<String>,
            arguments: Option<serde_json::Map<String, serde_json::Value>>,
            #[serde(rename = "taskId")]
            task_id: Option<String>,
        }
        use crate::extensions::{NameParam, RequestMethod};
        use crate::schema::ClientRequestMethod as M;
        // An extension method names what the extension table says.
        if let Some(RequestMethod::Extension(m)) = RequestMethod::resolve(method, revision) {
            let value = params.and_then(|p| serde_json::from_str::<Named>(p.get()).ok());
            let name = match m.spec().name_param {
                Some(NameParam::TaskId) => value.and_then(|v| v.task_id),
                None => None,
            };
            if let Some(name) = name {
                headers.push((NAME_HEADER.to_string(), param_headers::encode_value(&name)));
            }
            return Some(headers);
        }
        let known = M::from_name(method);
        let named = params
            .and_then(|p| serde_json::from_str::<Named>(p.get()).ok())
            .filter(|_| matches!(known, Some(M::CallTool | M::ReadResource | M::GetPrompt)));
        if let Some(named) = named {
            if let Some(name) = named.name.as_deref().or(named.uri.as_deref()) {
                headers.push((NAME_HEADER.to_string(), param_headers::encode_value(name)));
            }
            if known == Some(M::CallTool) {
                if let Some(declared) = named
                    .name
                    .and_then(|n| lock(&self.tool_headers).get(&n).cloned())
                {
                    headers.extend(param_headers::param_values(
                        &declared,
                        named.arguments.as_ref(),
                    ));
                }
            }
        }
        Some(headers)
    }

    /// Learns the `x-mcp-header` declarations of a 2026-07-28 `tools/list`
    /// answer and leaves out the tools whose declarations are invalid (the
    /// spec's rule for HTTP clients), with a warning naming each.
    pub(super) fn learn_tools(&self, body: String) -> String {
        let Ok(mut message) = serde_json::from_str::<serde_json::Value>(&body) else {
            return body;
        };
        let Some(tools) = message
            .get_mut("result")
            .and_then(|r| r.get_mut("tools"))
            .and_then(serde_json::Value::as_array_mut)
        else {
            return body;
        };
        let before = tools.len();
        let mut learnt = lock(&self.tool_headers);
        tools.retain(|tool| {
            let name = tool
                .get("name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            let schema = tool.get("inputSchema").unwrap_or(&serde_json::Value::Null);
            match param_headers::declarations(schema) {
                Ok(declared) => {
                    learnt.insert(name.to_string(), declared);
                    true
                }
                Err(why) => {
                    tracing::warn!("leaving out tool `{name}`: {why}");
                    learnt.remove(name);
                    false
                }
            }
        });
        if tools.len() == before {
            return body;
        }
        serde_json::to_string(&message).unwrap_or(body)
    }
}

/// The revision a request's `_meta` names, if any: a 2026-07-28 request
/// carries it, a session's request does not.
fn claimed_version(params: Option<&serde_json::value::RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<&'a serde_json::value::RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct Claim {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
        version: Option<String>,
    }
    let Params { meta } = serde_json::from_str(params?.get()).ok()?;
    serde_json::from_str::<Claim>(meta?.get()).ok()?.version
}

/// Whether `text` is a `notifications/cancelled` for an open 2026-07-28
/// request; if so, that request's response stream is closed.
pub(super) fn cancel_open_request(conn: &Conn, text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Cancelled {
        #[serde(rename = "requestId")]
        request_id: RequestId,
    }
    let Ok(Inbound::Notification(n)) = decode(text) else {
        return false;
    };
    if n.method != methods::NOTIFICATIONS_CANCELLED {
        return false;
    }
    let Some(Cancelled { request_id }) = n
        .params
        .and_then(|p| serde_json::from_str::<Cancelled>(p.get()).ok())
    else {
        return false;
    };
    match lock(&conn.open_requests).remove(&request_id) {
        Some(token) => {
            token.cancel();
            true
        }
        None => false,
    }
}

/// Sends a 2026-07-28 request: no session, its own headers. An error
/// without an id (a server that could not tell which request) is the answer
/// to this one: its code says whether the server speaks the revision. The
/// caller cancelling it closes the response stream.
pub(super) async fn send_modern(
    conn: &Arc<Conn>,
    request: &Outgoing,
    headers: &[(String, String)],
    text: &str,
) {
    let cancel = CancellationToken::new();
    lock(&conn.open_requests).insert(request.id.clone(), cancel.clone());
    tokio::select! {
        () = send_modern_once(conn, request, headers, text) => {}
        () = cancel.cancelled() => {}
    }
    lock(&conn.open_requests).remove(&request.id);
}

async fn send_modern_once(
    conn: &Arc<Conn>,
    request: &Outgoing,
    headers: &[(String, String)],
    text: &str,
) {
    let id = &request.id;
    let response = match conn.post_with(text, Some(headers)).await {
        Ok(r) => r,
        Err(e) => return conn.fail_send(id, e).await,
    };
    let status = response.status();
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        if let Ok(Inbound::Response(r)) = decode(&body) {
            if let (None, Err(e)) = (&r.id, &r.outcome) {
                return conn
                    .deliver(crate::jsonrpc::encode_error(Some(id), e))
                    .await;
            }
        }
        return forward_error(conn, id, status, body).await;
    }
    read_answer(conn, id, Answer::of(false, request.is_tools_list), response).await;
}
