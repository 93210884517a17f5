//! Transports move encoded messages between two peers. Every transport, once
//! started, is the same thing to the session engine: a [`TransportHandle`] of
//! two channels (frames in, messages out) and a token to close it.
//!
//! | transport | client side | server side |
//! |---|---|---|
//! | stdio | [`ChildProcess`] (spawns the server) | [`Stdio`] (own stdin/stdout) |
//! | in-memory | [`memory_pair`] | [`memory_pair`] |

#[cfg(feature = "stdio")]
mod child;
#[cfg(feature = "stdio")]
mod framing;
#[cfg(any(feature = "http-server", feature = "http-client"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "http-server", feature = "http-client")))
)]
pub mod http;
mod memory;
mod oversize;
#[cfg(feature = "stdio")]
mod stdio;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::schema::RequestId;

#[cfg(feature = "fuzzing")]
pub(crate) use framing::read_frames;

#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub use child::ChildProcess;
pub use memory::{MemoryTransport, memory_pair};
#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub use stdio::Stdio;

/// Default maximum size of one message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

/// Capacity of the channels between a transport and its session.
pub(crate) const CHANNEL_CAPACITY: usize = 256;

/// What a transport delivers to the session.
#[derive(Debug)]
#[non_exhaustive]
pub enum InboundFrame {
    /// One complete message (not yet decoded).
    Message(String),
    /// A message was longer than the limit and was dropped.
    Oversize {
        /// The limit in bytes.
        limit: usize,
    },
    /// A request longer than the limit was dropped; its id could still be
    /// read, so the session refuses it with that id.
    OversizeRequest {
        /// The limit in bytes.
        limit: usize,
        /// The id of the request.
        id: RequestId,
    },
    /// A message was not valid UTF-8 and was dropped.
    InvalidUtf8,
    /// The transport could not deliver request `id` or read its answer (for
    /// example, the answer was over the size limit); the call fails with a
    /// transport error (not an answer from the peer).
    RequestFailed {
        /// The request that failed.
        id: RequestId,
        /// Why, for the caller's error message.
        reason: String,
    },
    /// The transport could not authorize request `id` (OAuth: the
    /// server's challenge could not be answered); the call fails with
    /// [`Error::Auth`](crate::Error::Auth).
    AuthorizationFailed {
        /// The request that failed.
        id: RequestId,
        /// Why, for the caller's error message (holds no token).
        reason: String,
    },
    /// The transport closed; no more frames follow.
    Closed(String),
}

/// What kind of message an [`OutboundMessage`] is, for transports that route
/// (Streamable HTTP sends a response on the stream of its request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutboundKind {
    /// A request to the peer.
    Request,
    /// A notification to the peer.
    Notification,
    /// A response (result or error) to a peer's request.
    Response,
    /// Not a message: asks a transport that streams per request (Streamable
    /// HTTP) to end the stream of `related` now, so that the peer resumes it
    /// later (SEP-1699). Other transports ignore it; `text` is empty.
    CloseStream,
    /// Not a message: the peer's request `related` will get no response (it
    /// was cancelled), so a transport that streams per request ends that
    /// stream for good. Other transports ignore it; `text` is empty.
    EndStream,
}

impl OutboundKind {
    /// Whether this is a message for the peer (not a signal to the
    /// transport such as [`CloseStream`](Self::CloseStream)).
    pub fn is_message(self) -> bool {
        !matches!(self, Self::CloseStream | Self::EndStream)
    }
}

/// One encoded message for the peer.
#[derive(Debug)]
pub struct OutboundMessage {
    /// The JSON text, without a trailing newline.
    pub text: String,
    /// What kind of message it is.
    pub kind: OutboundKind,
    /// The peer's request this message belongs to: the one it answers, or the
    /// one being handled when it was sent. `None` for unrelated messages.
    pub related: Option<RequestId>,
}

/// A started transport, as the session engine uses it.
#[derive(Debug)]
pub struct TransportHandle {
    /// Frames from the peer; ends with [`InboundFrame::Closed`] or when the
    /// sender is dropped.
    pub inbound: mpsc::Receiver<InboundFrame>,
    /// Messages for the peer.
    pub outbound: mpsc::Sender<OutboundMessage>,
    /// Cancelled by the session to close the transport.
    pub close: CancellationToken,
    /// Cancelled by the transport once it has fully shut down (for a child
    /// process: once it has been reaped).
    pub done: CancellationToken,
}

/// Something that can be started into a [`TransportHandle`]. Start it inside
/// a Tokio runtime: transports spawn their I/O tasks on it.
pub trait Transport: Send + 'static {
    /// Starts the transport's I/O.
    fn start(self) -> crate::Result<TransportHandle>;

    /// An unstarted copy of this transport, for a client that must start
    /// over: an older server that exits on the 2026-07-28 version probe is
    /// started again and spoken to with `initialize`. `None` (the default):
    /// the transport cannot be started twice.
    fn fresh(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }

    /// What OpenTelemetry's `network.transport` calls it: `pipe` for stdio
    /// and a child process, `tcp` for HTTP; `None` (the default) for a
    /// transport in the process.
    fn network_transport(&self) -> Option<&'static str> {
        None
    }
}

impl Transport for TransportHandle {
    fn start(self) -> crate::Result<TransportHandle> {
        Ok(self)
    }
}
