use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::Peer;
use crate::schema::{ProgressNotification, ProgressNotificationParams, ProgressToken, RequestId};

/// What a handler knows about the request it is handling.
#[derive(Clone, Debug)]
pub struct RequestContext {
    pub(crate) id: RequestId,
    pub(crate) peer: Peer,
    pub(crate) cancel: CancellationToken,
    pub(crate) progress_token: Option<ProgressToken>,
    /// The HTTP request that carried this request (Streamable HTTP).
    pub(crate) http: Option<Arc<http::request::Parts>>,
    /// The request's `mcp.request` span (disabled when nobody listens).
    pub(crate) span: tracing::Span,
}

impl RequestContext {
    /// The id of the request.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The other side of the session. Requests and notifications sent through
    /// it are related to this request (Streamable HTTP sends them on this
    /// request's stream).
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Fires when the requester cancels the request or the session ends; the
    /// response is then not sent.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The progress token the requester asked progress for, if any.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.progress_token.as_ref()
    }

    /// The head of the HTTP request that carried this request (method, URI,
    /// headers, and the extensions the host application's layers added),
    /// over Streamable HTTP; `None` on other transports.
    pub fn http_parts(&self) -> Option<&http::request::Parts> {
        self.http.as_deref()
    }

    /// The request's `mcp.request` span (see the `session` module docs);
    /// disabled when no subscriber is interested.
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Asks the transport to end this request's response stream now; the
    /// client resumes it and still receives the result (Streamable HTTP,
    /// SEP-1699). Does nothing on other transports.
    pub async fn close_stream(&self) -> crate::Result<()> {
        self.peer.close_stream().await
    }

    /// Reports progress, if the requester asked for it (otherwise does
    /// nothing). `progress` should increase with each call.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> crate::Result<()> {
        let Some(token) = self.progress_token.clone() else {
            return Ok(());
        };
        let params = ProgressNotificationParams {
            total: total.map(number).transpose()?,
            message,
            ..ProgressNotificationParams::new(number(progress)?, token)
        };
        self.peer.notify::<ProgressNotification>(params).await
    }
}

/// A JSON number that prints integral values without a fraction.
pub(crate) fn number(value: f64) -> crate::Result<serde_json::Number> {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        // Exact: the value is integral and within f64's exact integer range.
        #[allow(
            clippy::cast_possible_truncation,
            reason = "checked integral and in range"
        )]
        return Ok(serde_json::Number::from(value as i64));
    }
    serde_json::Number::from_f64(value)
        .ok_or_else(|| crate::Error::InvalidArgument(format!("{value} is not a finite number")))
}
