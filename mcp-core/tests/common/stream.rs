//! A client end of the stream transports, for tests that run the same
//! input over both: stdio (a real `mcp serve everything` process, one
//! message a line) and the in-memory pair (a server in this process, one
//! message a frame). Every wait has a time limit, so a hang fails instead
//! of blocking the suite.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

use std::process::Stdio as Piped;

use mcp_core::server::{Server, ServerSession};
use mcp_core::transport::{
    InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle, memory_pair,
};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::{WAIT, mcp_binary, test_server};

#[allow(
    clippy::large_enum_variant,
    reason = "one per test, never moved around"
)]
pub(crate) enum Stream {
    Stdio {
        child: Child,
        stdin: ChildStdin,
        stdout: Lines<BufReader<ChildStdout>>,
    },
    Memory {
        ours: TransportHandle,
        _server: ServerSession,
    },
}

impl Stream {
    /// A new `mcp serve everything` process, spoken to over its stdin and
    /// stdout.
    pub(crate) async fn stdio() -> Self {
        let binary = tokio::task::spawn_blocking(mcp_binary).await.unwrap();
        let mut child = tokio::process::Command::new(binary)
            .args(["serve", "everything"])
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self::Stdio {
            child,
            stdin,
            stdout,
        }
    }

    /// The test server over the in-memory pair.
    pub(crate) fn memory() -> Self {
        Self::serving(test_server())
    }

    /// `server` over the in-memory pair.
    pub(crate) fn serving(server: Server) -> Self {
        let (ours, theirs) = memory_pair();
        let server = server.serve(theirs).unwrap();
        Self::Memory {
            ours: ours.start().unwrap(),
            _server: server,
        }
    }

    /// Sends one message as it is: a line on stdio, a frame in memory
    /// (where it must be UTF-8).
    pub(crate) async fn send(&mut self, message: &[u8]) {
        match self {
            Self::Stdio { stdin, .. } => {
                let mut line = message.to_vec();
                line.push(b'\n');
                tokio::time::timeout(WAIT, async {
                    stdin.write_all(&line).await.unwrap();
                    stdin.flush().await.unwrap();
                })
                .await
                .expect("the server reads its input");
            }
            Self::Memory { ours, .. } => {
                let text = String::from_utf8(message.to_vec()).expect("memory frames are text");
                let message = OutboundMessage {
                    text,
                    kind: OutboundKind::Request,
                    related: None,
                };
                tokio::time::timeout(WAIT, ours.outbound.send(message))
                    .await
                    .expect("the server reads its input")
                    .unwrap();
            }
        }
    }

    /// The next message from the server, whatever it is.
    pub(crate) async fn recv(&mut self) -> Value {
        let text = match self {
            Self::Stdio { stdout, .. } => tokio::time::timeout(WAIT, stdout.next_line())
                .await
                .expect("the server answers in time")
                .unwrap()
                .expect("the server is still running"),
            Self::Memory { ours, .. } => {
                match tokio::time::timeout(WAIT, ours.inbound.recv())
                    .await
                    .expect("the server answers in time")
                {
                    Some(InboundFrame::Message(text)) => text,
                    other => panic!("not a message: {other:?}"),
                }
            }
        };
        serde_json::from_str(&text).unwrap()
    }

    /// Ends the server. Over stdio: closes its input and waits for it to
    /// exit, and kills it if it has not exited in time. Whether it ended of
    /// itself (always, in memory).
    pub(crate) async fn close(self) -> bool {
        match self {
            Self::Stdio {
                mut child, stdin, ..
            } => {
                drop(stdin);
                if tokio::time::timeout(WAIT, child.wait()).await.is_ok() {
                    return true;
                }
                let _ = child.kill().await;
                false
            }
            Self::Memory { .. } => true,
        }
    }
}
