//! The table over the stream transports: stdio (a real `mcp serve
//! everything` process) and the in-memory pair.

use std::process::Stdio as Piped;

use mcp_core::server::ServerSession;
use mcp_core::transport::{
    InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle, memory_pair,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::common::{WAIT, mcp_binary, test_server};
use crate::{
    Answer, CANCEL_SLOW, INITIALIZE, Input, Memory, Phase, Stdio, Via, cases, check, initialized,
};

// ---------------------------------------------------------------------------
// Stream transports: stdio and in-memory

#[allow(
    clippy::large_enum_variant,
    reason = "one per test, never moved around"
)]
enum Stream {
    Stdio {
        child: Child,
        stdin: Option<ChildStdin>,
        stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    },
    Memory {
        ours: TransportHandle,
        _server: ServerSession,
    },
}

impl Stream {
    async fn stdio() -> Self {
        let mut child = tokio::process::Command::new(mcp_binary())
            .args(["serve", "everything"])
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self::Stdio {
            child,
            stdin,
            stdout,
        }
    }

    fn memory() -> Self {
        let (ours, theirs) = memory_pair();
        let server = test_server().serve(theirs).unwrap();
        Self::Memory {
            ours: ours.start().unwrap(),
            _server: server,
        }
    }

    async fn send(&mut self, message: &[u8]) {
        match self {
            Self::Stdio { stdin, .. } => {
                let stdin = stdin.as_mut().unwrap();
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
                ours.outbound.send(message).await.unwrap();
            }
        }
    }

    /// The next message from the server.
    async fn recv(&mut self) -> Value {
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

    /// Reads messages until a response arrives; returns it and whatever
    /// else came first.
    async fn next_response(&mut self) -> (Value, Vec<Value>) {
        let mut others = Vec::new();
        for _ in 0..100 {
            let m = self.recv().await;
            if m.get("method").is_none() {
                return (m, others);
            }
            others.push(m);
        }
        panic!("no response among {others:?}")
    }

    /// Checks that the session answers `ping` (and, once initialized,
    /// `tools/list`); returns any other message that arrived meanwhile.
    async fn alive(&mut self, n: usize, phase: Phase) -> Vec<Value> {
        let ping = json!(format!("alive-{n}"));
        let list = json!(format!("alive-list-{n}"));
        self.send(
            json!({"jsonrpc": "2.0", "id": ping, "method": "ping"})
                .to_string()
                .as_bytes(),
        )
        .await;
        let mut waiting = vec![ping.clone()];
        if phase == Phase::Ready {
            self.send(
                json!({"jsonrpc": "2.0", "id": list, "method": "tools/list"})
                    .to_string()
                    .as_bytes(),
            )
            .await;
            waiting.push(list.clone());
        }
        let mut stray = Vec::new();
        while !waiting.is_empty() {
            let (response, others) = self.next_response().await;
            stray.extend(others);
            match waiting.iter().position(|id| response["id"] == *id) {
                Some(i) => {
                    waiting.remove(i);
                    if response["id"] == ping {
                        assert_eq!(response["result"], json!({}), "{response}");
                    } else {
                        assert!(
                            response["result"]["tools"]
                                .as_array()
                                .is_some_and(|t| !t.is_empty()),
                            "{response}"
                        );
                    }
                }
                None => stray.push(response),
            }
        }
        stray
    }

    async fn initialize(&mut self) {
        self.send(INITIALIZE.as_bytes()).await;
        let (response, others) = self.next_response().await;
        assert!(others.is_empty(), "{others:?}");
        assert!(initialized(&response["result"]), "{response}");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }

    /// Ends the server: closes stdin (it exits on end of input), and kills
    /// it by its process id if it has not exited in time.
    async fn close(self) {
        if let Self::Stdio {
            mut child, stdin, ..
        } = self
        {
            drop(stdin);
            let exited = tokio::time::timeout(WAIT, child.wait()).await;
            if exited.is_err() {
                child.start_kill().unwrap();
                child.wait().await.unwrap();
                panic!("the server did not exit when its input ended");
            }
        }
    }
}

async fn run_stream(mut stream: Stream, transport: Via) {
    let cases = cases();
    let mut ran = 0;
    let mut initialized = false;
    for (n, case) in cases.iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&transport) {
            continue;
        }
        if case.phase == Phase::Ready && !initialized {
            stream.initialize().await;
            initialized = true;
        }
        let mut others = Vec::new();
        let in_flight = matches!(case.input, Input::WhileInFlight { .. });
        match &case.input {
            Input::Message(m) => stream.send(m).await,
            Input::WhileInFlight { slow, message } => {
                stream.send(slow.as_bytes()).await;
                stream.send(message.as_bytes()).await;
            }
            Input::Http { .. } => unreachable!("{}: HTTP only", case.name),
        }
        if !matches!(case.stream, Answer::Nothing) {
            let (response, before) = stream.next_response().await;
            others = before;
            check(case.name, &case.stream, Some(&response));
        }
        if in_flight {
            stream.send(CANCEL_SLOW).await;
        }
        let stray = stream.alive(n, case.phase).await;
        assert!(
            others.is_empty() && stray.is_empty(),
            "{transport:?} {}: unexpected messages {others:?} {stray:?}",
            case.name
        );
        ran += 1;
    }
    assert!(ran > 40, "{transport:?}: only {ran} cases ran");
    stream.close().await;
}

#[tokio::test]
async fn bad_input_over_stdio() {
    let binary = tokio::task::spawn_blocking(mcp_binary).await.unwrap();
    assert!(binary.exists());
    run_stream(Stream::stdio().await, Stdio).await;
}

#[tokio::test]
async fn bad_input_in_memory() {
    run_stream(Stream::memory(), Memory).await;
}
