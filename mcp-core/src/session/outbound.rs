//! Where the engine's outgoing messages go: a transport's channel (stdio,
//! child process, in-memory), or straight into a transport that routes them
//! itself as they are sent (Streamable HTTP writes each to the response
//! stream it belongs to, with no task in between).

#[cfg(feature = "http-server")]
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::transport::OutboundMessage;

/// A transport that takes each outgoing message at once, in the sender's
/// task (it never waits: a slow reader is the transport's to handle).
#[cfg(feature = "http-server")]
pub(crate) trait OutboundSink: Send + Sync + 'static {
    /// Takes `message`; `Err(())` once the transport is closed.
    #[allow(clippy::result_unit_err, reason = "closed is the only failure")]
    fn deliver(&self, message: OutboundMessage) -> Result<(), ()>;
}

/// The engine's way out.
pub(crate) enum Outbound {
    /// A transport's outbound channel.
    Channel(mpsc::Sender<OutboundMessage>),
    /// A transport that routes each message as it is sent.
    #[cfg(feature = "http-server")]
    Direct(Arc<dyn OutboundSink>),
}

impl Outbound {
    /// Sends `message`, waiting for room in a channel; `Err(())` once the
    /// transport is closed. The wait is rare and boxed, so that every task
    /// awaiting this stays small (a session's tasks are part of the memory
    /// each session costs).
    pub(crate) async fn send(&self, message: OutboundMessage) -> Result<(), ()> {
        match self {
            Self::Channel(tx) => match tx.try_send(message) {
                Ok(()) => Ok(()),
                Err(mpsc::error::TrySendError::Full(message)) => {
                    Box::pin(tx.send(message)).await.map_err(|_| ())
                }
                Err(mpsc::error::TrySendError::Closed(_)) => Err(()),
            },
            #[cfg(feature = "http-server")]
            Self::Direct(sink) => sink.deliver(message),
        }
    }

    /// Sends `message` if that needs no wait (best effort).
    pub(crate) fn try_send(&self, message: OutboundMessage) {
        match self {
            Self::Channel(tx) => {
                let _ = tx.try_send(message);
            }
            #[cfg(feature = "http-server")]
            Self::Direct(sink) => {
                let _ = sink.deliver(message);
            }
        }
    }
}
