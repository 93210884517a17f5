//! One MCP session over Streamable HTTP: the engine's transport channels,
//! and the task that routes the engine's messages to HTTP responses.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::streams::{LiveItem, Streams};
use crate::server::ServerSession;
use crate::transport::{
    CHANNEL_CAPACITY, InboundFrame, OutboundKind, OutboundMessage, TransportHandle,
};

/// Starts the engine side of a session given its transport.
pub(crate) type SessionFactory = Arc<
    dyn Fn(TransportHandle, Option<crate::ProtocolVersion>) -> crate::Result<ServerSession>
        + Send
        + Sync,
>;

#[derive(Debug)]
pub(crate) struct HttpSession {
    pub(crate) id: String,
    pub(crate) inbound: mpsc::Sender<InboundFrame>,
    pub(crate) streams: Mutex<Streams>,
    pub(crate) server: ServerSession,
    created: Instant,
    /// Milliseconds since `created` of the last request.
    last_active: AtomicU64,
    pub(crate) closed: CancellationToken,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl HttpSession {
    /// Starts a session: the engine (through `factory`) and its router task.
    pub(crate) fn start(
        id: String,
        factory: &SessionFactory,
        preinitialized: Option<crate::ProtocolVersion>,
        store: Arc<dyn super::EventStore>,
        json_mode: bool,
    ) -> crate::Result<Arc<Self>> {
        let (in_tx, in_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let (out_tx, out_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let close = CancellationToken::new();
        let done = CancellationToken::new();
        let handle = TransportHandle {
            inbound: in_rx,
            outbound: out_tx,
            close: close.clone(),
            done: done.clone(),
        };
        let server = factory(handle, preinitialized)?;
        let session = Arc::new(Self {
            streams: Mutex::new(Streams::new(id.clone(), store, json_mode)),
            id,
            inbound: in_tx,
            server,
            created: Instant::now(),
            last_active: AtomicU64::new(0),
            closed: close.clone(),
        });
        tokio::spawn(route(session.clone(), out_rx, close, done));
        Ok(session)
    }

    pub(crate) fn touch(&self) {
        let now = u64::try_from(self.created.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_active.store(now, Ordering::Relaxed);
    }

    pub(crate) fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_active.load(Ordering::Relaxed));
        self.created.elapsed().saturating_sub(last)
    }

    /// Ends the session: the engine closes and every attached response ends.
    pub(crate) async fn terminate(&self) {
        self.closed.cancel();
        lock(&self.streams).forget_all();
        self.server.close().await;
    }
}

/// Delivers each engine message to the HTTP response of its stream.
async fn route(
    session: Arc<HttpSession>,
    mut outbound: mpsc::Receiver<OutboundMessage>,
    close: CancellationToken,
    done: CancellationToken,
) {
    loop {
        let message = tokio::select! {
            m = outbound.recv() => m,
            () = close.cancelled() => None,
        };
        let Some(message) = message else { break };
        let delivery = {
            let mut streams = lock(&session.streams);
            match message.kind {
                OutboundKind::CloseStream => match message.related.as_ref() {
                    Some(id) => streams
                        .close_request_stream(id)
                        .map(|live| (live, LiveItem::Close)),
                    None => None,
                },
                OutboundKind::EndStream => message
                    .related
                    .as_ref()
                    .and_then(|id| streams.end_request_stream(id))
                    .map(|live| (live, LiveItem::Close)),
                kind => streams.push(
                    message.related.as_ref(),
                    Arc::from(message.text),
                    kind == OutboundKind::Response,
                ),
            }
        };
        if let Some((live, item)) = delivery {
            // The event is stored either way. A response that went away is
            // fine; one whose reader fell behind is ended, so that a slow
            // client neither blocks the session nor grows memory: it resumes
            // with Last-Event-ID.
            if let Err(mpsc::error::TrySendError::Full(_)) = live.try_send(item) {
                lock(&session.streams).detach(&live);
            }
        }
    }
    session.closed.cancel();
    done.cancel();
}
