//! `subscriptions/listen` (2026-07-28): one long request whose answer is a
//! stream of notifications. The server acknowledges first with the part of
//! the filter it honours, then tags every notification of the stream with
//! the listen's request id (`_meta["io.modelcontextprotocol/subscriptionId"]`).
//! The session's notification dispatch routes each tagged notification to
//! its listen ([`Listens`]); dropping or closing the [`Subscription`]
//! cancels the request (stdio: `notifications/cancelled`; HTTP: its response
//! stream is closed).

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::schema::{RequestId, ServerNotification, SubscriptionFilter, SubscriptionsListenResult};
use crate::{Error, Result};

/// Notifications a listen keeps for a caller that does not read them;
/// beyond this the newest are dropped with a warning.
const BACKLOG: usize = 1024;

/// How long a listen may stay open: for all practical purposes forever
/// (the request's timeout; a closed connection still ends it).
pub(crate) const LISTEN_LIFETIME: Duration = Duration::from_secs(366 * 24 * 3600);

/// The open listens of one client, by subscription (request) id.
#[derive(Default)]
pub(crate) struct Listens(Mutex<HashMap<RequestId, mpsc::Sender<ServerNotification>>>);

impl Listens {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<RequestId, mpsc::Sender<ServerNotification>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn open(&self, id: RequestId) -> mpsc::Receiver<ServerNotification> {
        let (tx, rx) = mpsc::channel(BACKLOG);
        self.lock().insert(id, tx);
        rx
    }

    fn close(&self, id: &RequestId) {
        self.lock().remove(id);
    }

    /// Hands a notification tagged with a subscription id to its listen; one
    /// for no open listen is ignored.
    pub(crate) fn route(&self, params: Option<&RawValue>, notification: &ServerNotification) {
        let Some(id) = subscription_id(params) else {
            return;
        };
        let listens = self.lock();
        let Some(tx) = listens.get(&id) else {
            tracing::debug!(
                "ignoring `{}` for subscription {id}, which is not open",
                notification.tag()
            );
            return;
        };
        if tx.try_send(notification.clone()).is_err() {
            tracing::warn!(
                "subscription {id}: dropping `{}`, the reader is {BACKLOG} notifications behind",
                notification.tag()
            );
        }
    }
}

/// The subscription id in a notification's `_meta`, if any.
fn subscription_id(params: Option<&RawValue>) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<&'a RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
        id: Option<RequestId>,
    }
    let Params { meta } = serde_json::from_str(params?.get()).ok()?;
    serde_json::from_str::<Meta>(meta?.get()).ok()?.id
}

/// An open `subscriptions/listen` stream ([`Client::listen`](super::Client::listen)).
///
/// [`next`](Self::next) gives each notification; dropping the subscription
/// or calling [`close`](Self::close) ends it (the request is cancelled).
pub struct Subscription {
    id: RequestId,
    honoured: SubscriptionFilter,
    frames: mpsc::Receiver<ServerNotification>,
    /// The listen request; `None` once the server has answered it.
    request: Option<BoxFuture<'static, Result<Box<RawValue>>>>,
    /// How the request ended, once it has and its frames are read.
    ended: Option<Result<()>>,
    listens: std::sync::Arc<super::service::ClientService>,
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("honoured", &self.honoured)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// Registers the listen `id` and waits for the server's acknowledgement
    /// (within `ack_timeout`), which must be the stream's first frame.
    pub(crate) async fn open(
        service: std::sync::Arc<super::service::ClientService>,
        id: RequestId,
        request: BoxFuture<'static, Result<Box<RawValue>>>,
        ack_timeout: Duration,
    ) -> Result<Self> {
        let frames = service.listens.open(id.clone());
        let mut subscription = Self {
            id,
            honoured: SubscriptionFilter::new(),
            frames,
            request: Some(request),
            ended: None,
            listens: service,
        };
        let first = tokio::time::timeout(ack_timeout, subscription.next())
            .await
            .map_err(|_| Error::Timeout {
                method: "subscriptions/listen".into(),
                timeout: ack_timeout,
            })??;
        match first {
            Some(ServerNotification::SubscriptionsAcknowledged(ack)) => {
                subscription.honoured = ack.params.notifications;
                Ok(subscription)
            }
            Some(other) => Err(Error::Protocol(format!(
                "the first frame of subscription {} is `{}`, not \
                 notifications/subscriptions/acknowledged",
                subscription.id,
                other.tag()
            ))),
            None => Err(Error::Protocol(format!(
                "the server ended subscription {} before acknowledging it",
                subscription.id
            ))),
        }
    }

    /// The subscription's id (the id of its `subscriptions/listen` request).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// What the server acknowledged it will send: the part of the asked
    /// filter it honours.
    pub fn honoured(&self) -> &SubscriptionFilter {
        &self.honoured
    }

    /// The next notification; `Ok(None)` once the server has ended the
    /// stream, an error if the request failed (e.g. the connection closed).
    pub async fn next(&mut self) -> Result<Option<ServerNotification>> {
        loop {
            let Some(request) = self.request.as_mut() else {
                // Frames that came before the answer are still given out.
                if let Ok(frame) = self.frames.try_recv() {
                    return Ok(Some(frame));
                }
                return match self.ended.take() {
                    Some(Err(e)) => Err(e),
                    _ => Ok(None),
                };
            };
            tokio::select! {
                biased;
                frame = self.frames.recv() => {
                    if let Some(frame) = frame {
                        return Ok(Some(frame));
                    }
                }
                answer = request => {
                    self.request = None;
                    self.listens.listens.close(&self.id);
                    self.ended = Some(self.check_end(answer));
                }
            }
        }
    }

    /// The listen's final answer names this subscription.
    fn check_end(&self, answer: Result<Box<RawValue>>) -> Result<()> {
        let result: SubscriptionsListenResult = serde_json::from_str(answer?.get())
            .map_err(|e| Error::Protocol(format!("malformed subscriptions/listen result: {e}")))?;
        let named = &result.meta.io_modelcontextprotocol_subscription_id;
        if *named == self.id {
            Ok(())
        } else {
            Err(Error::Protocol(format!(
                "subscription {} ended with a result for subscription {named}",
                self.id
            )))
        }
    }

    /// Ends the subscription: the request is cancelled and later
    /// notifications for it are ignored.
    pub fn close(mut self) {
        self.end();
    }

    fn end(&mut self) {
        // Dropping the request's future cancels it.
        self.request = None;
        self.listens.listens.close(&self.id);
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

    #[test]
    fn finds_the_subscription_id() {
        let raw = |s: &str| RawValue::from_string(s.to_string()).unwrap();
        let tagged = raw(&format!(
            r#"{{"uri":"x","_meta":{{"{SUBSCRIPTION_ID}":7}}}}"#
        ));
        assert_eq!(subscription_id(Some(&tagged)), Some(RequestId::Integer(7)));
        let tagged = raw(&format!(r#"{{"_meta":{{"{SUBSCRIPTION_ID}":"s-1"}}}}"#));
        assert_eq!(
            subscription_id(Some(&tagged)),
            Some(RequestId::String("s-1".into()))
        );
        assert_eq!(subscription_id(Some(&raw(r#"{"uri":"x"}"#))), None);
        assert_eq!(subscription_id(Some(&raw(r#"{"_meta":{}}"#))), None);
        assert_eq!(subscription_id(None), None);
    }
}
