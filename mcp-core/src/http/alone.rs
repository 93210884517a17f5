//! The outlet of a POST that has no session to resume from (a 2026-07-28
//! request, or a POST of the legacy stateless mode): what its request
//! sends goes to its response, nothing is stored, and anything unrelated
//! to it has nowhere to go.

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::session::lock;
use super::streams::{LiveItem, Replay};
use crate::schema::RequestId;
use crate::session::OutboundSink;
use crate::transport::{OutboundKind, OutboundMessage};

/// The one stream of a lone request (its event ids are `1/<seq>`).
pub(super) const ALONE_STREAM: u64 = 1;

#[derive(Debug)]
pub(super) struct Alone {
    request: Option<RequestId>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The last sequence number given out.
    seq: u64,
    /// Events sent before the response was attached.
    buffered: Replay,
    /// The response carries the answer: nothing more goes out.
    done: bool,
    /// The server ended the response (or its reader fell behind).
    closed: bool,
    live: Option<mpsc::Sender<LiveItem>>,
}

/// What the POST does once its request has started.
pub(super) enum Attach {
    /// The stream ended already: send `replay` and stop (`done`: the
    /// answer is among it).
    Complete(Replay),
    /// Send `replay`, then what arrives on the channel.
    Live(Replay, mpsc::Receiver<LiveItem>),
}

impl Alone {
    /// The outlet of request `request` (`None`: a notification's POST).
    pub(super) fn new(request: Option<RequestId>) -> Arc<Self> {
        Arc::new(Self {
            request,
            state: Mutex::new(State::default()),
        })
    }

    /// Whether nothing was sent yet (an answer ready now can be the whole
    /// JSON body).
    pub(super) fn is_empty(&self) -> bool {
        lock(&self.state).seq == 0
    }

    /// Records the answer that was ready at once, as the stream's last event.
    pub(super) fn answer(&self, text: String) {
        let mut state = lock(&self.state);
        if state.done || state.closed {
            return;
        }
        state.seq += 1;
        let seq = state.seq;
        state.buffered.push((seq, Arc::from(text)));
        state.done = true;
    }

    /// Attaches the POST's response: what was sent so far, then live.
    pub(super) fn attach(&self, capacity: usize) -> Attach {
        let mut state = lock(&self.state);
        let replay = std::mem::take(&mut state.buffered);
        if state.done || state.closed {
            return Attach::Complete(replay);
        }
        let (tx, rx) = mpsc::channel(capacity);
        state.live = Some(tx);
        Attach::Live(replay, rx)
    }
}

impl OutboundSink for Alone {
    fn deliver(&self, message: OutboundMessage) -> Result<(), ()> {
        if self.request.is_none() || message.related != self.request {
            tracing::debug!("a message of a request standing alone, with nowhere to go: dropped");
            return Ok(());
        }
        let mut state = lock(&self.state);
        if state.done || state.closed {
            return Ok(());
        }
        let item = match message.kind {
            OutboundKind::CloseStream | OutboundKind::EndStream => {
                state.closed = true;
                LiveItem::Close
            }
            kind => {
                state.seq += 1;
                let last = kind == OutboundKind::Response;
                state.done = last;
                LiveItem::Event {
                    seq: state.seq,
                    text: Arc::from(message.text),
                    last,
                }
            }
        };
        match (&state.live, item) {
            (Some(live), item) => {
                // A reader that fell behind is cut off (it cannot resume).
                if let Err(mpsc::error::TrySendError::Full(_)) = live.try_send(item) {
                    state.closed = true;
                    state.live = None;
                }
            }
            (None, LiveItem::Event { seq, text, .. }) => state.buffered.push((seq, text)),
            (None, LiveItem::Close) => {}
        }
        Ok(())
    }
}
