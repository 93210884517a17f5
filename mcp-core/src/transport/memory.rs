use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::oversize::Ends;
use super::{
    CHANNEL_CAPACITY, DEFAULT_MAX_MESSAGE_SIZE, InboundFrame, OutboundMessage, Transport,
    TransportHandle,
};

/// One end of an in-process connection; see [`memory_pair`].
#[derive(Debug)]
pub struct MemoryTransport {
    handle: TransportHandle,
    peer_inbound: mpsc::Sender<InboundFrame>,
    from_self: mpsc::Receiver<OutboundMessage>,
    peer_close: CancellationToken,
    max_message_size: usize,
}

/// Two connected in-memory transports, for tests and for running a client
/// and a server in one process. Closing either end closes both.
pub fn memory_pair() -> (MemoryTransport, MemoryTransport) {
    let (a_in_tx, a_in_rx) = mpsc::channel(CHANNEL_CAPACITY);
    let (b_in_tx, b_in_rx) = mpsc::channel(CHANNEL_CAPACITY);
    let (a_out_tx, a_out_rx) = mpsc::channel(CHANNEL_CAPACITY);
    let (b_out_tx, b_out_rx) = mpsc::channel(CHANNEL_CAPACITY);
    let a_close = CancellationToken::new();
    let b_close = CancellationToken::new();
    let a = MemoryTransport {
        handle: TransportHandle {
            inbound: a_in_rx,
            outbound: a_out_tx,
            close: a_close.clone(),
            done: CancellationToken::new(),
        },
        peer_inbound: b_in_tx,
        from_self: a_out_rx,
        peer_close: b_close.clone(),
        max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
    };
    let b = MemoryTransport {
        handle: TransportHandle {
            inbound: b_in_rx,
            outbound: b_out_tx,
            close: b_close,
            done: CancellationToken::new(),
        },
        peer_inbound: a_in_tx,
        from_self: b_out_rx,
        peer_close: a_close,
        max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
    };
    (a, b)
}

impl MemoryTransport {
    /// Sets the largest message this end delivers to its peer.
    #[must_use]
    pub fn with_max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

impl Transport for MemoryTransport {
    fn start(self) -> crate::Result<TransportHandle> {
        let Self {
            handle,
            peer_inbound,
            mut from_self,
            peer_close,
            max_message_size,
        } = self;
        let close = handle.close.clone();
        let done = handle.done.clone();
        tokio::spawn(async move {
            loop {
                let message = tokio::select! {
                    m = from_self.recv() => m,
                    () = close.cancelled() => None,
                    () = peer_close.cancelled() => None,
                };
                let Some(message) = message else { break };
                if !message.kind.is_message() {
                    continue;
                }
                let frame = if message.text.len() > max_message_size {
                    Ends::new(message.text.as_bytes(), &[]).frame(max_message_size)
                } else {
                    InboundFrame::Message(message.text)
                };
                if peer_inbound.send(frame).await.is_err() {
                    break;
                }
            }
            let _ = peer_inbound
                .send(InboundFrame::Closed("the in-memory peer closed".into()))
                .await;
            peer_close.cancel();
            done.cancel();
        });
        Ok(handle)
    }
}
