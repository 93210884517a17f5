//! JSON-RPC 2.0 framing of MCP messages: the wire error type, decoding of one
//! incoming message into an [`Inbound`] (params and results left as raw JSON
//! until the method is known) and encoding of outgoing messages.

#[cfg(feature = "http-server")]
mod at_once;
mod decode;
mod encode;
mod error;

#[cfg(feature = "http-server")]
pub(crate) use at_once::{RequestAtOnce, decode_request_at_once};

pub use decode::{
    DecodeError, Inbound, InboundNotification, InboundRequest, InboundResponse, decode,
};
#[cfg(any(feature = "server", feature = "client"))]
pub(crate) use encode::encode_result_json;
pub use encode::{
    encode_empty_result, encode_error, encode_notification, encode_request, encode_result,
};
pub use error::{ErrorCode, RpcError};
